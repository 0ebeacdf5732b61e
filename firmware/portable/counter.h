/*
 * counter.h - the energy-counter board's quantum logic in portable C.
 *
 * The board counts front-end pulses (one minimum quantum E_min each) in a
 * preloadable countdown counter and raises one IRQ edge when it reaches zero
 * (seed 001, Figure 15).  This file decides how many pulses each quantum has
 * and how a quantum of any size is laid out on a 16-bit hardware counter.
 * The AVR firmware (firmware/avr/), the host tools and the simulator's
 * built-in counter model (sim/, through libeqfw.a) all run this same code.
 *
 * Preload of quantum k (docs/firmware.md has the derivation):
 *
 *   T_k = N + d_k                     jitter (seed 001, A.2): d_k uniform in
 *                                     [-D, D], D = floor(N * J / 100), drawn
 *                                     from a xorshift32 PRNG.  A draw that
 *                                     would take the running sum of d outside
 *                                     [-D, D] is mirrored (-d), which keeps
 *                                     every d_k exactly uniform and bounds
 *                                     the sum, so the long-run mean is N
 *                                     exactly (error <= D / k pulses).
 *   P_k = floor(T_k * Vnom / Vb + e)  voltage compensation (A.1.1): a pulse
 *                                     is a fixed charge, so its energy is
 *                                     E_min * Vb / Vnom; scaling by Vnom/Vb
 *                                     makes each quantum a fixed energy.
 *                                     e carries the fraction to the next
 *                                     quantum (error diffusion), so the sum
 *                                     of energies never drifts by more than
 *                                     one pulse.  Off: P_k = T_k.
 *
 * No floating point and no 64-bit division: the AVR computes this between
 * quanta.
 */
#ifndef FW_COUNTER_H
#define FW_COUNTER_H

#include <stdint.h>

#define FW_QUANTUM_MIN      1UL
#define FW_QUANTUM_MAX      (1UL << 24)  /* 16.7 M pulses = 774 J at E_min 46 uJ */
#define FW_JITTER_MAX_PCT   50
/* Voltage compensation scales by Vnom/Vb within [1/4, 4]; beyond, it clamps. */
#define FW_RATIO_ONE_Q16    65536UL
#define FW_RATIO_MIN_Q16    (FW_RATIO_ONE_Q16 / 4)
#define FW_RATIO_MAX_Q16    (FW_RATIO_ONE_Q16 * 4)

struct fw_counter_cfg {
	uint32_t quantum_pulses;  /* mean preload N, FW_QUANTUM_MIN..FW_QUANTUM_MAX */
	uint8_t jitter_pct;       /* J, 0..FW_JITTER_MAX_PCT */
	uint8_t vcomp;            /* 1: fixed energy per quantum (needs fw_counter_set_vbat) */
	uint32_t vb_nominal_uv;   /* the voltage E_min refers to, microvolts */
	uint32_t seed;            /* PRNG seed; 0 picks a fixed nonzero seed */
};

struct fw_counter {
	struct fw_counter_cfg cfg;
	uint32_t rng;             /* xorshift32 state, never 0 */
	uint32_t span;            /* 2D + 1: number of jitter offsets */
	uint32_t reject_below;    /* Lemire rejection threshold for exact uniformity */
	int32_t half;             /* D */
	int32_t drift;            /* running sum of offsets, always within [-D, D] */
	uint32_t ratio_q16;       /* Vnom / Vb in Q16 (1.0 when compensation is off) */
	uint32_t carry_q16;       /* error-diffusion fraction of a pulse, < 1.0 */
	uint32_t vbat_uv;         /* last voltage given, 0 = none yet */
	uint8_t clamped;          /* the last voltage needed a ratio outside [1/4, 4] */
};

/* What fw_counter_check() found wrong (0 = nothing). */
enum fw_cfg_error {
	FW_CFG_OK = 0,
	FW_CFG_BAD_QUANTUM,       /* quantum_pulses outside FW_QUANTUM_MIN..MAX */
	FW_CFG_BAD_JITTER,        /* jitter_pct above FW_JITTER_MAX_PCT */
	FW_CFG_BAD_VNOM,          /* vb_nominal_uv 0 or above 65.535 V */
};

/* Checks cfg; FW_CFG_OK or the first bad field. */
int fw_counter_check(const struct fw_counter_cfg *cfg);
/* Starts a fresh preload sequence; returns fw_counter_check(cfg). */
int fw_counter_init(struct fw_counter *c, const struct fw_counter_cfg *cfg);
/*
 * The battery-terminal voltage for the quanta still to be drawn.  Does the
 * one division; call it when a new ADC average arrives, not per pulse.
 */
void fw_counter_set_vbat(struct fw_counter *c, uint32_t vbat_uv);
/*
 * The compensation ratio Vnom/Vb in Q16, clamped to [1/4, 4] (*clamped set
 * then; a zero voltage clamps to 1/4).  fw_counter_set_vbat() uses it; the
 * AVR calls it outside its critical section and stores the result atomically.
 */
uint32_t fw_vcomp_ratio_q16(uint32_t vnom_uv, uint32_t vbat_uv, uint8_t *clamped);
/* Preload (pulses, >= 1) of the next quantum. */
uint32_t fw_counter_next(struct fw_counter *c);

/* The PRNG alone (xorshift32), exposed for the tests. */
uint32_t fw_rng_next(uint32_t *state);
/* Uniform integer in [0, span) without modulo bias; span >= 1. */
uint32_t fw_rng_below(uint32_t *state, uint32_t span, uint32_t reject_below);
uint32_t fw_rng_reject_below(uint32_t span);

/*
 * Laying one quantum out on a 16-bit counter in clear-on-match mode: a
 * step of s pulses is the compare value s - 1.  Steps are at most 65535
 * pulses: simavr 1.6 never matches a compare value of 0xffff (it compares
 * against OCR + 1), and one step less costs nothing.  A quantum longer than
 * that is split into steps of 32768 with the IRQ output disconnected, and
 * a final armed step of more than 32767: every step but a short quantum's
 * only one leaves the firmware at least half a wrap to reprogram the
 * compare register.
 */
#define FW_STEP_MAX    65535UL
#define FW_STEP_LAP    32768UL

struct fw_sched {
	uint32_t left;            /* pulses of the quantum not yet in a scheduled step */
};

/* Inline: the AVR's compare interrupt calls these, where every call costs. */
static inline uint32_t fw_sched_take(struct fw_sched *s)
{
	uint32_t step = s->left > FW_STEP_MAX ? FW_STEP_LAP : s->left;

	s->left -= step;
	return step;
}
/* Starts a quantum of `pulses` (>= 1); returns the first step. */
static inline uint32_t fw_sched_begin(struct fw_sched *s, uint32_t pulses)
{
	s->left = pulses ? pulses : 1;
	return fw_sched_take(s);
}
/* After a compare match: 0 if it ended the quantum, else the next step. */
static inline uint32_t fw_sched_next(struct fw_sched *s)
{
	return s->left ? fw_sched_take(s) : 0;
}
/* 1 when the step just scheduled ends the quantum (IRQ output armed). */
static inline int fw_sched_final(const struct fw_sched *s)
{
	return s->left == 0;
}
/*
 * A Timer1 compare match fires on the pulse that takes the counter off the
 * compare value (ATmega328P datasheet, "Output Compare Units": OCF1A is
 * set in the timer clock cycle after TCNT1 = OCR1A), so a compare written
 * while the counter holds its value, or is still below it, is in time.
 * simavr 1.6 matches one input edge later (docs/firmware.md, "Running in
 * simavr"): there a compare written one count past its value still fires,
 * on the next pulse.
 */
#ifdef FW_SIMAVR
#define FW_COMPARE_LAG 1
#else
#define FW_COMPARE_LAG 0
#endif
/*
 * 1 if a compare `step` pulses after the previous compare point has been
 * missed: read back after the compare register was written, the counter is
 * `elapsed` (mod 2^16) pulses past that point, and the compare flag
 * (`fired`, read after the counter) says whether it matched.  A counter
 * past the value may just have taken its match on the pulse that arrived
 * between the write and the read: the flag tells, so a quantum that ended
 * on time is never taken for a late one (issue 23 item 7).  Not fired and
 * past it (beyond the lag): the quantum overran, and the firmware must end
 * it by hand and report it.  (fw_sched_past: the counter's part alone, for
 * code that reads the flag only when it matters.)
 */
static inline int fw_sched_past(uint16_t elapsed, uint32_t step)
{
	return elapsed > step && (FW_COMPARE_LAG == 0 || elapsed - step > FW_COMPARE_LAG);
}
static inline int fw_sched_missed(uint16_t elapsed, uint32_t step, int fired)
{
	return !fired && fw_sched_past(elapsed, step);
}

#endif
