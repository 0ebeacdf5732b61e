/*
 * counter.c - preload sequence (jitter, voltage compensation) and the
 * layout of a quantum on a 16-bit counter.  See counter.h for the method.
 */
#include "counter.h"

#define DEFAULT_SEED 0x2545f491UL

int fw_counter_check(const struct fw_counter_cfg *cfg)
{
	if (cfg->quantum_pulses < FW_QUANTUM_MIN || cfg->quantum_pulses > FW_QUANTUM_MAX)
		return FW_CFG_BAD_QUANTUM;
	if (cfg->jitter_pct > FW_JITTER_MAX_PCT)
		return FW_CFG_BAD_JITTER;
	/* The ratio is computed in mV with a Q16 shift: Vnom must fit 16 bits of mV. */
	if (cfg->vb_nominal_uv < 1000 || cfg->vb_nominal_uv > 65535000UL)
		return FW_CFG_BAD_VNOM;
	return FW_CFG_OK;
}

/*
 * xorshift32 (13, 17, 5).  avr-gcc shifts a 32-bit value one bit per loop
 * turn (about 245 cycles for the three shifts); written as byte moves plus
 * single shifts it takes about 76, with the same numbers (counter_test
 * holds it to the textbook form).  The empty asm keeps the compiler from
 * folding the pieces back into a loop; the host runs the same code.
 */
#define OPAQUE(v) __asm__("" : "+r"(v))
static inline uint32_t dbl(uint32_t v)
{
	v += v;
	OPAQUE(v);
	return v;
}

uint32_t fw_rng_next(uint32_t *state)
{
	uint32_t x = *state, t = x << 8;

	OPAQUE(t);
	x ^= dbl(dbl(dbl(dbl(dbl(t)))));        /* x << 13 */
	t = x >> 16;
	OPAQUE(t);
	x ^= t >> 1;                            /* x >> 17 */
	x ^= dbl(dbl(dbl(dbl(dbl(x)))));        /* x << 5 */
	*state = x;
	return x;
}

/*
 * Lemire's multiply-shift maps a 32-bit draw to [0, span); rejecting the
 * (2^32 mod span) low products makes every value exactly equally likely.
 */
uint32_t fw_rng_reject_below(uint32_t span)
{
	return (uint32_t)(0x100000000ULL % span);
}

uint32_t fw_rng_below(uint32_t *state, uint32_t span, uint32_t reject_below)
{
	uint32_t x, lo, hi, a, b;
	uint64_t m;

	if (span > 0xffff) {
		do
			m = (uint64_t)fw_rng_next(state) * span;
		while ((uint32_t)m < reject_below);
		return (uint32_t)(m >> 32);
	}
	/*
	 * The same 64-bit product from two 16x16 ones (the AVR has no 64-bit
	 * arithmetic: a 64-bit multiply and shift cost ~500 cycles there).
	 */
	do {
		x = fw_rng_next(state);
		a = (uint32_t)(uint16_t)x * (uint16_t)span;
		b = (uint32_t)(uint16_t)(x >> 16) * (uint16_t)span;
		lo = a + (b << 16);
		hi = (b >> 16) + (lo < a);
	} while (lo < reject_below);
	return hi;
}

int fw_counter_init(struct fw_counter *c, const struct fw_counter_cfg *cfg)
{
	int bad = fw_counter_check(cfg);

	if (bad)
		return bad;
	c->cfg = *cfg;
	c->rng = cfg->seed ? cfg->seed : DEFAULT_SEED;
	c->half = (int32_t)(cfg->quantum_pulses * cfg->jitter_pct / 100);
	c->span = 2 * (uint32_t)c->half + 1;
	c->reject_below = fw_rng_reject_below(c->span);
	c->drift = 0;
	c->ratio_q16 = FW_RATIO_ONE_Q16;
	c->carry_q16 = 0;
	c->vbat_uv = 0;
	c->clamped = 0;
	return FW_CFG_OK;
}

uint32_t fw_vcomp_ratio_q16(uint32_t vnom_uv, uint32_t vbat_uv, uint8_t *clamped)
{
	/* mV keeps Vnom << 16 within 32 bits; rounding both halves the bias. */
	uint32_t vnom_mv = (vnom_uv + 500) / 1000;
	uint32_t vb_mv = (vbat_uv + 500) / 1000;
	uint32_t ratio;

	*clamped = 1;
	if (vb_mv == 0 || vb_mv > (vnom_mv << 2) + 1)
		return FW_RATIO_MIN_Q16;
	ratio = ((vnom_mv << 16) + vb_mv / 2) / vb_mv;
	if (ratio < FW_RATIO_MIN_Q16)
		return FW_RATIO_MIN_Q16;
	if (ratio > FW_RATIO_MAX_Q16)
		return FW_RATIO_MAX_Q16;
	*clamped = 0;
	return ratio;
}

void fw_counter_set_vbat(struct fw_counter *c, uint32_t vbat_uv)
{
	c->vbat_uv = vbat_uv;
	if (c->cfg.vcomp)
		c->ratio_q16 = fw_vcomp_ratio_q16(c->cfg.vb_nominal_uv, vbat_uv, &c->clamped);
}

/* Offset in [-D, D], mirrored when it would take the running sum out of it. */
static int32_t jitter_offset(struct fw_counter *c)
{
	int32_t d, sum;

	if (c->half == 0)
		return 0;
	d = (int32_t)fw_rng_below(&c->rng, c->span, c->reject_below) - c->half;
	sum = c->drift + d;
	if (sum > c->half || sum < -c->half)
		d = -d;
	c->drift += d;
	return d;
}

uint32_t fw_counter_next(struct fw_counter *c)
{
	uint32_t target = (uint32_t)((int32_t)c->cfg.quantum_pulses + jitter_offset(c));
	uint32_t pulses;

	if (c->ratio_q16 == FW_RATIO_ONE_Q16)
		return target ? target : 1;
	/*
	 * (target * ratio + carry) >> 16 from 16-bit halves: the target is
	 * below 2^25 and the ratio below 2^19, so every partial product fits
	 * 32 bits, and no 64-bit arithmetic is needed (costly on the AVR).
	 */
	{
		uint32_t tl = target & 0xffffU, th = target >> 16;
		uint32_t rl = c->ratio_q16 & 0xffffU, rh = c->ratio_q16 >> 16;
		uint32_t low = tl * rl + c->carry_q16;

		pulses = ((th * rh) << 16) + th * rl + tl * rh + (low >> 16);
		c->carry_q16 = low & 0xffffU;
	}
	if (pulses == 0) {
		/* Only with N tiny and Vb far above Vnom: a quantum has >= 1 pulse. */
		pulses = 1;
		c->carry_q16 = 0;
	}
	return pulses;
}
