/*
 * module.h - samples from the eqprof kernel module (isr/linux,
 * /dev/eqprof): energy-driven from the board's interrupt on a GPIO line, or
 * time-driven from the module's per-CPU hrtimers (the same handler, so the
 * two profiles are comparable sample for sample).
 *
 * The module samples the whole machine: every process, the kernel and the
 * idle task.  Its samples are handed to a sink as they are drained, with
 * each seq gap of a CPU's ring handed on as a loss of that CPU; maps and
 * names come from another source (perf's sideband records, see
 * perf.h, or record_proc_snapshot() in procs.h).
 */
#ifndef EQ_RECORD_MODULE_H
#define EQ_RECORD_MODULE_H

#include <stdint.h>
#include <sys/types.h>

#include "util/eq_error.h"
#include "eq_sample.h"
#include "record/recorder.h"

struct module_recorder;

struct module_open_opts {
	int energy;             /* 1: the board's GPIO line; 0: the module's hrtimers */
	double hz, jitter_pct;  /* time-driven rate and its +- jitter */
	const char *gpio;       /* "LABEL:LINE" of the board's line, or NULL: the
				   module's gpio_chip/gpio_line parameters */
	int ivshmem;            /* energy: the board behind an ivshmem doorbell (docs/hil.md) */
	uint32_t ring_bytes;    /* per-CPU ring; 0: the module's ring_kb */
	const char *device;     /* NULL: /dev/eqprof */
};

struct module_recorder_stats {
	uint64_t samples;       /* handed to the sink (before any filter) */
	uint64_t ring_dropped;  /* the module's count of drops (ring full) */
	uint64_t seq_gaps;      /* samples missing from the seq numbers */
	uint64_t missed;        /* hrtimer periods with no interrupt (overruns) */
	uint64_t approx;        /* samples without interrupted registers */
	uint64_t own;           /* samples of this process: the recorder's cost */
	double seconds;         /* start to stop */
	int threaded;           /* the GPIO interrupt is threaded */
	char source[64];        /* what the module says it samples from */
};

/* 1 when the module's device exists (the module is loaded). */
int module_recorder_available(const char *device);
/* Opens the device and configures a session (not started). */
struct module_recorder *module_recorder_open(const struct module_open_opts *o,
					     struct eq_error *err);
int module_recorder_start(struct module_recorder *r, struct eq_error *err);
/* Waits up to timeout_ms for samples, then hands what is there to sink. */
int module_recorder_drain(struct module_recorder *r, int timeout_ms,
			  const struct eq_sink *sink, struct eq_error *err);
/* Stops sampling, hands the rest (and losses after the last sample) to sink. */
int module_recorder_stop(struct module_recorder *r, const struct eq_sink *sink,
			 struct eq_error *err);
const struct module_recorder_stats *module_recorder_stats(const struct module_recorder *r);
void module_recorder_close(struct module_recorder *r);

#endif
