/*
 * align.h - the board's stream against the target's samples (docs/hil.md):
 * which board interrupt each energy-driven sample is, the two clocks'
 * offset and rate, and the loss cross-check.
 *
 * Every quantum the board counts is one IRQ edge and one board record (seq
 * = the quantum's number, kept even when records are dropped); every edge
 * the target takes is one sample or one counted loss (the sample's seq, per
 * CPU ring).  So target seq s is board seq s + K for one constant K as long
 * as nothing is lost uncounted.  A source that reads the board's count
 * (ivshmem, in the hardware-in-the-loop setup) numbers its samples with the
 * quanta: K = 0.  Otherwise (a GPIO line) K is found where the intervals
 * between samples match the intervals between board edges, separately at
 * the start and at the end of the recording; a different K at the end
 * means edges the board raised that the target neither sampled nor counted
 * (or the other way round), and the difference is their number.  The matched pairs then give target time = offset + rate
 * x board time by least squares, and the residuals say how well the two
 * clocks agree (the interrupt latency's spread, and any stall of either side).
 */
#ifndef EQ_ALIGN_H
#define EQ_ALIGN_H

#include <stdint.h>
#include <stdio.h>

#include "file/eqp.h"
#include "align/knots.h"

enum eq_align_status {
	EQ_ALIGN_NONE = 0,    /* no board records or no energy samples: nothing to check */
	EQ_ALIGN_OK = 1,      /* matched: the numbers below are meaningful */
	EQ_ALIGN_FAILED = 2,  /* could not match; why[] says why */
};

struct eq_align {
	enum eq_align_status status;
	char why[256];
	uint32_t cpu;             /* the ring that took the board's interrupts */
	uint64_t other_cpus;      /* energy samples on other rings (not matched) */
	int numbered;             /* 1: the source numbers samples with the board's quanta (ivshmem) */
	uint64_t samples;         /* energy samples of that ring */
	uint64_t target_first;    /* seq of the first sample */
	uint64_t target_lost;     /* seq numbers between the first and the last with no sample */
	uint64_t target_total;    /* last - first + 1: interrupts the target accounts for */
	uint64_t duplicates;      /* samples that repeat a seq number */
	uint64_t target_lost_outside; /* counted lost before the first or after the last sample */
	int64_t k_start, k_end;   /* board seq - target seq, at the start and at the end */
	uint64_t board_first;     /* board seq of the session's first interrupt (target seq 0) */
	uint64_t board_last;      /* board seq of the last one */
	uint64_t board_irqs;      /* board_last - board_first + 1: what the board raised meanwhile */
	int64_t unaccounted;      /* board_irqs - target_total; 0 = balanced */
	uint64_t board_missing;   /* board records missing in that span (the board's own stream) */
	/* target time (ns) = offset_ns + rate * board time (ns, from the board's clock_hz) */
	double offset_ns, rate;
	uint64_t matched;         /* pairs used for the fit */
	double resid_rms_ns, resid_p50_ns, resid_p99_ns, resid_max_ns; /* |target - fit| */
};

/*
 * Matches the energy samples of `target` with the board records of `board`
 * (the same file when it holds both, as `eqprof merge` writes).  Never
 * fails for want of data: a->status says what was found.
 */
void eq_align_compute(const struct eqp_file *target, const struct eqp_file *board,
		      struct eq_align *a);

/* The cross-check and the alignment as lines "eqprof CMD: board: ...". */
void eq_align_print(FILE *out, const char *cmd, const struct eq_align *a);

/* 1 when the cross-check found nothing to say: matched, every interrupt a
 * sample or a counted loss, no duplicate, nothing unmatched or missing. */
int eq_align_balanced(const struct eq_align *a);

/* A recording that holds both (eqprof merge): its cross-check, printed by
 * report and power.  Nothing for a recording with only one of them, and,
 * as perf says nothing of losses when there are none, nothing for a
 * balanced one unless verbose (-v). */
void eq_align_check_file(FILE *out, const char *cmd, const struct eqp_file *f, int verbose);

/* The alignment as HEAD extra lines (board_align_*=..., board_crosscheck_*=...). */
int eq_align_extra(const struct eq_align *a, char *buf, size_t size);

/*
 * The matched interrupts themselves, for a recording of another sampler on
 * the same target clock (`eqprof merge TIME.eqp BOARD.eqp --edges E.eqp`):
 * one HEAD line "board_align_knots=B:T B:T ...\n", B the board's time of a
 * quantum's edge and T the target's time of the sample that took it, both
 * in ns, in board order.  Between knots a reader interpolates: exact to
 * the interrupt latency however irregularly either clock ran (a paused
 * board, a loaded host).  a must be EQ_ALIGN_OK with the same K at both
 * ends.  Returns a malloc'd string (*nknots set), or NULL with why.
 */
char *eq_align_knots(const struct eqp_file *target, const struct eqp_file *board,
		     const struct eq_align *a, size_t *nknots, char *why, size_t whysize);


#endif
