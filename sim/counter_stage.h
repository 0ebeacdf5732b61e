/*
 * counter_stage.h - the simulator's counter stage: front-end pulses in,
 * IRQ edges to the target out.
 *
 * The board's MCU counts the analog front end's pulses (one minimum quantum
 * E_min each) in a preloadable countdown counter; when the count reaches
 * zero it raises an IRQ edge on the target and loads the next preload
 * (jittered around the mean N, optionally scaled by the measured
 * battery-terminal voltage).  The simulator talks to that logic only through
 * this interface, so the same simulated run can use:
 *
 *   - the built-in model (sim/counter_builtin.c), which links the firmware's
 *     portable counter logic (firmware/portable/counter.h, libeqfw.a): the
 *     very preload/jitter/compensation code the AVR runs;
 *   - the real firmware ELF executed in simavr (sim/counter_simavr.c, written
 *     by the firmware part), selected with `eqprof sim --firmware ELF`.
 *
 * Time is simulated seconds (double) from the start of the run.  Pulses are
 * fed in time order.  An implementation may report an edge later than the
 * pulse that caused it (simavr needs some cycles); the simulator then
 * interrupts the target at the edge's own time, or at the time it learns of
 * it, whichever is later.
 */
#ifndef SIM_COUNTER_STAGE_H
#define SIM_COUNTER_STAGE_H

#include <stdint.h>

#include "util/eq_error.h"

/* How the board is configured for a run (names as in hardware/board.values). */
struct counter_stage_config {
	uint32_t quantum_pulses;  /* mean preload N (pulses per interrupt) */
	uint32_t jitter_pct;      /* preload jitter +-J % (0 = none) */
	int vcomp;                /* 1: scale the preload by vb_nominal / measured Vb */
	double vb_nominal;        /* V: the battery voltage E_min refers to */
	double mcu_clock;         /* Hz: board timestamp clock */
	uint64_t seed;            /* jitter random seed (runs are reproducible) */
	double adc_vref;          /* V at AREF: the board's reference (0: the design's 2.5 V) */
};

/* One IRQ edge raised by the counter stage. */
struct counter_edge {
	double t;                 /* s: time of the edge on the IRQ line */
	uint64_t ticks;           /* board timestamp (mcu_clock ticks) of the edge */
	uint32_t seq;             /* quantum number, from 0 */
	uint32_t pulses;          /* preload used: pulses in the quantum that just ended */
	uint32_t vbat_uv;         /* battery-terminal voltage the board measured, uV */
	uint16_t flags;           /* EQP_BOARD_F_* (analysis/file/eqp.h) */
};

struct counter_stage;

struct counter_stage_ops {
	const char *name;         /* "builtin", "simavr" */
	/*
	 * One front-end pulse at time t (s) while the battery-terminal voltage
	 * is vb (V).  Writes the edges known by now (at most max) to out and
	 * returns their number, or -1 with err set.
	 */
	int (*pulse)(struct counter_stage *cs, double t, double vb,
		     struct counter_edge *out, int max, struct eq_error *err);
	/* No more pulses: runs on to t_end and returns the edges still pending. */
	int (*finish)(struct counter_stage *cs, double t_end,
		      struct counter_edge *out, int max, struct eq_error *err);
	void (*close)(struct counter_stage *cs);
};

/* Every implementation embeds this first. */
struct counter_stage {
	const struct counter_stage_ops *ops;
};

/* The model linking firmware/portable/counter.h (always available). */
struct counter_stage *counter_stage_builtin_open(const struct counter_stage_config *cfg,
						 struct eq_error *err);

/*
 * The firmware ELF in simavr (sim/counter_simavr.c).  Declared weak: a build
 * without simavr leaves it out, and `eqprof sim --firmware` then says so.
 */
struct counter_stage *counter_stage_simavr_open(const char *elf,
						const struct counter_stage_config *cfg,
						struct eq_error *err) __attribute__((weak));

static inline int counter_stage_pulse(struct counter_stage *cs, double t, double vb,
				      struct counter_edge *out, int max,
				      struct eq_error *err)
{
	return cs->ops->pulse(cs, t, vb, out, max, err);
}

static inline int counter_stage_finish(struct counter_stage *cs, double t_end,
				       struct counter_edge *out, int max,
				       struct eq_error *err)
{
	return cs->ops->finish(cs, t_end, out, max, err);
}

static inline void counter_stage_close(struct counter_stage *cs)
{
	if (cs)
		cs->ops->close(cs);
}

#endif
