/*
 * pstate.h - power states of a recording (seed 003, SEProf): each CPU's
 * clock frequency and idle state over time, from the PSTA chunks
 * (docs/format.md), looked up at a sample's time, and the labels reports
 * use for them ("206MHz C0", "59MHz C1").
 */
#ifndef EQ_PSTATE_H
#define EQ_PSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"
#include "file/eqp.h"

struct eq_pstates;

/* The power-state timelines of f (which must outlive them); never NULL
 * unless out of memory.  A file without PSTA chunks gives empty ones. */
struct eq_pstates *eq_pstates_new(const struct eqp_file *f, struct eq_error *err);
void eq_pstates_free(struct eq_pstates *t);

/* 1 when the recording has events of this kind (EQP_PS_FREQ, EQP_PS_IDLE). */
int eq_pstates_has(const struct eq_pstates *t, unsigned kind);

/* The state of cpu at time: *khz its clock (0 = unknown), *cstate its idle
 * state (0 running, n in Cn; -1 unknown). */
void eq_pstates_at(const struct eq_pstates *t, uint16_t cpu, uint64_t time,
		   uint32_t *khz, int *cstate);

/* "206MHz", "1.2GHz", "?MHz" (khz 0) */
const char *eq_freq_label(char *buf, size_t size, uint32_t khz);
/* "C0", "C1", "idle" (cstate -2: idle, depth unknown), "?" (-1) */
const char *eq_cstate_label(char *buf, size_t size, int cstate);

#endif
