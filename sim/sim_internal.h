/*
 * sim_internal.h - pieces of the simulator shared between its files (not an
 * interface for other parts of eqprof).
 */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <math.h>
#include <stdio.h>

#include "sim.h"
#include "rng.h"

/* ---- parameters (params.c) -------------------------------------------- */

/* "name=value" as in a scenario line "name value". */
int sim_params_set(struct sim_params *p, const char *assignment, struct eq_error *err);
/* Prints every default as "name value" lines; board_only: only the names of
 * hardware/board.values. */
void sim_params_print_defaults(FILE *out, int board_only);
/* Fails when the supply cannot deliver the scenario's highest power. */
int sim_check_feasible(const struct sim_scenario *sc, struct eq_error *err);
/* The highest total power any moment of the scenario can draw. */
double sim_max_power(const struct sim_scenario *sc);

/* The target's clock (ns) at true time t: rate error and offset. */
static inline uint64_t sim_target_ns(const struct sim_params *p, double t)
{
	double ns = (t * (1 + p->target_ppm * 1e-6) + p->target_offset) * 1e9;

	return ns > 0 ? (uint64_t)llround(ns) : 0;
}

/* ---- workload (workload.c) -------------------------------------------- */

/* A stretch of time in which the CPU does one thing at one frequency. */
struct sim_seg {
	double t0;              /* start; ends where the next one starts */
	uint32_t act;           /* activity index */
	uint16_t freq;          /* frequency state */
	uint16_t reserved;
	float scale;            /* this slice's CPU power over the procedure's (power_spread) */
};

/* Piecewise-constant power of the asynchronous consumers plus base power. */
struct sim_step {
	double t0;
	double power;
};

/*
 * The workload as a stream: segs and steps hold a window of it, generated
 * on demand and dropped once passed, so memory does not grow with the
 * scenario's length.  Once all is generated (segs_done, steps_done) the
 * window ends with a sentinel: segs[nsegs] at t_end, steps[nsteps] at t_end
 * (sim_timeline_build) or INFINITY (sim_timeline_open: the consumers' last
 * level lasts past a run that the ISR made longer).
 */
struct sim_tl_gen;
struct sim_timeline {
	struct sim_seg *segs;   /* nsegs (+ 1 sentinel once segs_done) */
	size_t nsegs;
	struct sim_step *steps; /* nsteps (+ 1 sentinel once steps_done) */
	size_t nsteps;
	double t_end;
	int segs_done, steps_done;
	size_t cap_segs, cap_steps;
	struct sim_tl_gen *gen;
};

/* The whole timeline at once (tests). */
int sim_timeline_build(const struct sim_scenario *sc, struct sim_timeline *tl,
		       struct eq_error *err);
/* A streamed timeline: nothing generated yet. */
int sim_timeline_open(const struct sim_scenario *sc, struct sim_timeline *tl,
		      struct eq_error *err);
/*
 * Makes segs[*k + ahead] (steps[...]) available, or the sentinel if the
 * workload ends before; may drop the entries before *k - 1 and then lowers
 * *k by as many.  -1 when out of memory.
 */
/* Adds a steady `power` over [a, e) to the steps (devices: sim/devices.c);
 * only on a timeline with nothing generated yet.  -1 when out of memory or
 * too late. */
int sim_timeline_add_level(struct sim_timeline *tl, double a, double e, double power);
int sim_timeline_need_seg(struct sim_timeline *tl, size_t *k, size_t ahead);
int sim_timeline_need_step(struct sim_timeline *tl, size_t *k, size_t ahead);
void sim_timeline_free(struct sim_timeline *tl);

/* CPU power of an activity at a frequency state. */
double sim_act_power(const struct sim_scenario *sc, size_t act, size_t freq);

/* ---- analog front end (frontend.c) ------------------------------------ */

struct sim_frontend {
	/* constants */
	double r_total;         /* source + fuse + sense */
	double supply;
	double alpha_eff;       /* alpha * (1 + gain_err) */
	double offset;          /* A */
	double vsens, v0;       /* device power: P (1 + vsens (Vb - v0)) */
	double noise;           /* A/sqrt(Hz) */
	double qc;              /* C * Vx / 3: charge per pulse */
	double dead_time;
	/* state */
	double q;               /* charge since the last reset (Vx/3 level) */
	double q_target;        /* charge this pulse needs (qc plus noise) */
	double dead_until;      /* end of the current discharge */
	struct sim_rng rng;
	/* accounting */
	double charge_in;       /* all charge the mirror delivered */
	double charge_lost;     /* part of it delivered during discharges */
	uint64_t pulses;
};

void sim_frontend_init(struct sim_frontend *fe, const struct sim_params *p);
/* Battery-terminal voltage and current when the device would draw power P
 * at vb_nominal: its actual power is vb * current = P (1 + power_vsens (vb -
 * vb_nominal)), lower when the terminal voltage sags (Figure 14). */
void sim_frontend_operating_point(const struct sim_frontend *fe, double power,
				  double *vb, double *current);
/* Mirror output current for a device current. */
double sim_frontend_mirror(const struct sim_frontend *fe, double current);
/*
 * Integrates the mirror current i_m over [t, t_end).  Returns the time of the
 * next pulse if it falls inside (the state is then reset to start a new
 * pulse), or a negative value when none does (the charge is kept).
 */
double sim_frontend_advance(struct sim_frontend *fe, double t, double t_end, double i_m);

#endif
