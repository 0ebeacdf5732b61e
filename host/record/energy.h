/*
 * energy.h - an energy source read alongside time-driven samples
 * (`eqprof record -t --energy SOURCE`): the source is read every poll
 * period while the command runs, once more an update period after it ends,
 * and (for coarse sources such as a battery gauge) until it has updated
 * after the end; every reading goes into the recording (ESRC and ERDG
 * chunks, docs/format.md) on the samples' clock (CLOCK_MONOTONIC), so that
 * `report` can charge each interval's energy to the samples in it
 * (analysis/energy/eprofile.h).
 */
#ifndef EQ_RECORD_ENERGY_H
#define EQ_RECORD_ENERGY_H

#include <stdio.h>

#include "util/eq_error.h"
#include "record/recorder.h"

struct record_energy;

/* Opens SOURCE ("rapl", "battery:BAT0", "hwmon:ina3221", "auto") under
 * sysfs (NULL: $EQPROF_SYSFS or /sys); fails saying why, before anything
 * is recorded. */
struct record_energy *record_energy_open(const char *spec, const char *sysfs, double poll_s,
					 struct eq_error *err);
/* Writes the domains (ESRC) and takes the first reading. */
int record_energy_start(struct record_energy *re, struct recorder *rec, struct eq_error *err);
/* Milliseconds until the next reading is due (at least 1). */
int record_energy_due_ms(const struct record_energy *re);
/* Reads the source when a reading is due; -1 when it cannot be read or its
 * values cannot be energy (the message says which domain and file). */
int record_energy_poll(struct record_energy *re, struct eq_error *err);
/* Writes the readings taken since the last call (ERDG). */
int record_energy_write(struct record_energy *re, struct recorder *rec, struct eq_error *err);
/* After the command: a reading that brackets its end, then readings until
 * every counter or store has changed after it (at most settle_s), then
 * the rest written. */
int record_energy_finish(struct record_energy *re, struct recorder *rec, double settle_s,
			 int quiet, struct eq_error *err);
/* "eqprof record: rapl:package-0: 412 readings, 37.2 J ..." lines. */
void record_energy_summary(const struct record_energy *re, FILE *out);
/* Domains of the source that could not be read and are not recorded ("" =
 * none): shown even with -q, since the recording lacks them. */
const char *record_energy_warning(const struct record_energy *re);
void record_energy_close(struct record_energy *re);

#endif
