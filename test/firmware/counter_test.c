/*
 * counter_test.c - the portable preload logic: jitter range, exact
 * uniformity and exact long-run mean; voltage compensation to 0.1 %;
 * layout of quanta on a 16-bit counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "counter.h"

static struct fw_counter_cfg cfg(uint32_t n, uint8_t j, uint8_t vcomp, uint32_t seed)
{
	struct fw_counter_cfg c = { .quantum_pulses = n, .jitter_pct = j, .vcomp = vcomp,
				    .vb_nominal_uv = 4070000, .seed = seed };
	return c;
}

static void test_check_rejects_bad_config(void **state)
{
	struct fw_counter_cfg c = cfg(64, 5, 0, 1);

	(void)state;
	assert_int_equal(fw_counter_check(&c), FW_CFG_OK);
	c.quantum_pulses = 0;
	assert_int_equal(fw_counter_check(&c), FW_CFG_BAD_QUANTUM);
	c.quantum_pulses = FW_QUANTUM_MAX + 1;
	assert_int_equal(fw_counter_check(&c), FW_CFG_BAD_QUANTUM);
	c = cfg(64, FW_JITTER_MAX_PCT + 1, 0, 1);
	assert_int_equal(fw_counter_check(&c), FW_CFG_BAD_JITTER);
	c = cfg(64, 5, 1, 1);
	c.vb_nominal_uv = 0;
	assert_int_equal(fw_counter_check(&c), FW_CFG_BAD_VNOM);
}

static void test_no_jitter_is_constant(void **state)
{
	struct fw_counter c;
	struct fw_counter_cfg k = cfg(64, 0, 0, 7);
	int i;

	(void)state;
	assert_int_equal(fw_counter_init(&c, &k), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(fw_counter_next(&c), 64);
}

/* Every preload within +-D and the running sum never more than D off. */
static void test_jitter_range_and_exact_mean(void **state)
{
	struct fw_counter c;
	struct fw_counter_cfg k = cfg(64, 5, 0, 12345);
	int64_t sum = 0;
	int i, lo = 1000, hi = 0;

	(void)state;
	fw_counter_init(&c, &k);
	assert_int_equal(c.half, 3);
	for (i = 1; i <= 100000; i++) {
		int p = (int)fw_counter_next(&c);

		if (p < lo) lo = p;
		if (p > hi) hi = p;
		sum += p - 64;
		assert_true(sum >= -3 && sum <= 3);
	}
	assert_int_equal(lo, 61);
	assert_int_equal(hi, 67);
}

/* Chi-square of 200 000 draws over the 21 values of N=200, J=5 %. */
static void test_jitter_is_uniform(void **state)
{
	struct fw_counter c;
	struct fw_counter_cfg k = cfg(200, 5, 0, 99);
	unsigned bins[21] = { 0 };
	double chi2 = 0, expect = 200000.0 / 21;
	int i;

	(void)state;
	fw_counter_init(&c, &k);
	for (i = 0; i < 200000; i++) {
		uint32_t p = fw_counter_next(&c);

		assert_in_range(p, 190, 210);
		bins[p - 190]++;
	}
	for (i = 0; i < 21; i++)
		chi2 += (bins[i] - expect) * (bins[i] - expect) / expect;
	/* 20 degrees of freedom: P(chi2 > 52.4) = 1e-4 for uniform draws, the
	 * false-failure rate of this check (the bounded running sum of the
	 * jitter only makes the counts more even). */
	assert_true(chi2 < 52.4);
}

static void test_seed_reproducible(void **state)
{
	struct fw_counter a, b, d;
	struct fw_counter_cfg ka = cfg(1000, 10, 0, 5), kd = cfg(1000, 10, 0, 6);
	int i, differ = 0;

	(void)state;
	fw_counter_init(&a, &ka);
	fw_counter_init(&b, &ka);
	fw_counter_init(&d, &kd);
	for (i = 0; i < 100; i++) {
		uint32_t x = fw_counter_next(&a);

		assert_int_equal(x, fw_counter_next(&b));
		differ += x != fw_counter_next(&d);
	}
	/* Two seeds draw the same of 201 values about once in 201 draws:
	 * 50 or fewer differences of 100 has a probability below 1e-100. */
	assert_true(differ > 50);
}

/* Energy per interrupt: sum(P * Vb) / Vnom / quanta against N. */
static double energy_error(uint32_t n, uint8_t j, const uint32_t *vb, int nvb, int quanta)
{
	struct fw_counter c;
	struct fw_counter_cfg k = cfg(n, j, 1, 3);
	double e = 0;
	int i;

	fw_counter_init(&c, &k);
	for (i = 0; i < quanta; i++) {
		fw_counter_set_vbat(&c, vb[i % nvb]);
		e += (double)fw_counter_next(&c) * vb[i % nvb] / 4070000.0;
	}
	return e / quanta / n - 1;
}

static void test_vcomp_constant_voltage(void **state)
{
	uint32_t v = 3000000;
	struct fw_counter c;
	struct fw_counter_cfg k = cfg(64, 0, 1, 3);
	double sum = 0;
	int i;

	(void)state;
	fw_counter_init(&c, &k);
	fw_counter_set_vbat(&c, v);
	for (i = 0; i < 1000; i++) {
		uint32_t p = fw_counter_next(&c);

		assert_in_range(p, 86, 87); /* 64 * 4.07 / 3.0 = 86.83 */
		sum += p;
	}
	assert_true(sum / 1000 > 86.82 && sum / 1000 < 86.84);
	assert_true(energy_error(64, 0, &v, 1, 10000) < 1e-3);
}

static void test_vcomp_varying_voltage_exact(void **state)
{
	uint32_t ramp[97];
	int i;

	(void)state;
	for (i = 0; i < 97; i++) /* 4.2 V down to 3.6 V and odd steps */
		ramp[i] = 4200000 - (uint32_t)i * 6187;
	{
		double e1 = energy_error(64, 5, ramp, 97, 20000);
		double e2 = energy_error(7, 0, ramp, 97, 20000);
		double e3 = energy_error(100000, 20, ramp, 97, 2000);

		assert_true(e1 > -1e-3 && e1 < 1e-3);
		assert_true(e2 > -1e-3 && e2 < 1e-3);
		assert_true(e3 > -1e-3 && e3 < 1e-3);
	}
}

static void test_vcomp_clamps(void **state)
{
	uint8_t clamped;

	(void)state;
	assert_int_equal(fw_vcomp_ratio_q16(4070000, 4070000, &clamped), 65536);
	assert_int_equal(clamped, 0);
	assert_int_equal(fw_vcomp_ratio_q16(4070000, 0, &clamped), FW_RATIO_MIN_Q16);
	assert_int_equal(clamped, 1);
	assert_int_equal(fw_vcomp_ratio_q16(4070000, 30000000, &clamped), FW_RATIO_MIN_Q16);
	assert_int_equal(clamped, 1);
	assert_int_equal(fw_vcomp_ratio_q16(4070000, 500000, &clamped), FW_RATIO_MAX_Q16);
	assert_int_equal(clamped, 1);
}

static void test_sched_layout(void **state)
{
	static const uint32_t sizes[] = { 1, 64, 65535, 65536, 65537, 98304, 200000, FW_QUANTUM_MAX };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct fw_sched s;
		uint32_t step = fw_sched_begin(&s, sizes[i]), total = 0;

		for (;;) {
			assert_true(step >= 1 && step <= FW_STEP_MAX);
			total += step;
			if (fw_sched_final(&s))
				break;
			assert_int_equal(step, FW_STEP_LAP); /* disarmed steps leave half a wrap */
			step = fw_sched_next(&s);
		}
		assert_int_equal(total, sizes[i]);
		if (sizes[i] > FW_STEP_MAX)
			assert_true(step >= FW_STEP_LAP); /* the armed step also leaves half a wrap */
		assert_int_equal(fw_sched_next(&s), 0);
	}
}

static void test_sched_missed(void **state)
{
	(void)state;
	/* The match fires on the pulse leaving the compare value. */
	assert_false(fw_sched_missed(0, 1, 0));
	assert_false(fw_sched_missed(1, 1, 0));
	assert_true(fw_sched_missed(2, 1, 0));
	assert_false(fw_sched_missed(64, 64, 0));
	assert_true(fw_sched_missed(65, 64, 0));
	/* past it, but the flag says it matched on the pulse read back: in time */
	assert_false(fw_sched_missed(65, 64, 1));
	assert_false(fw_sched_missed(65535, FW_STEP_MAX, 0));
}

/* The arithmetic written for the AVR (byte moves, 16-bit halves) gives
 * what the textbook 64-bit forms give. */
static void test_avr_arithmetic_matches_reference(void **state)
{
	uint32_t x = 1, ref = 1, seed = 99, i;

	(void)state;
	for (i = 0; i < 1000000; i++) {
		ref ^= ref << 13;
		ref ^= ref >> 17;
		ref ^= ref << 5;
		assert_int_equal(fw_rng_next(&x), ref);
	}
	for (i = 0; i < 200000; i++) {
		uint32_t span = 1 + (fw_rng_next(&seed) % (i & 1 ? 0xffff : 0x1ffff));
		uint32_t rej = fw_rng_reject_below(span), s1 = seed, s2 = seed;
		uint64_t m;

		do
			m = (uint64_t)fw_rng_next(&s2) * span;
		while ((uint32_t)m < rej);
		assert_int_equal(fw_rng_below(&s1, span, rej), (uint32_t)(m >> 32));
		assert_int_equal(s1, s2);
		seed = s1;
	}
	for (i = 0; i < 200000; i++) {
		struct fw_counter c;
		struct fw_counter_cfg cfg = { .quantum_pulses = 1 + fw_rng_next(&seed) % FW_QUANTUM_MAX,
					      .jitter_pct = (uint8_t)(fw_rng_next(&seed) % 51), .vcomp = 1,
					      .vb_nominal_uv = 4070000, .seed = i + 1 };
		uint32_t carry, ratio, target, got;
		uint64_t scaled;

		assert_int_equal(fw_counter_init(&c, &cfg), FW_CFG_OK);
		fw_counter_set_vbat(&c, 1000000 + fw_rng_next(&seed) % 20000000);
		c.carry_q16 = fw_rng_next(&seed) & 0xffff;
		carry = c.carry_q16;
		ratio = c.ratio_q16;
		got = fw_counter_next(&c);
		/* The target the jitter drew, from the model's own state. */
		target = (uint32_t)((int32_t)cfg.quantum_pulses + c.drift);
		scaled = (uint64_t)target * ratio + carry;
		if ((uint32_t)(scaled >> 16) != 0) {
			assert_int_equal(got, (uint32_t)(scaled >> 16));
			assert_int_equal(c.carry_q16, (uint32_t)scaled & 0xffff);
		}
	}
}

static void test_rng_below_exact(void **state)
{
	uint32_t st = 1, span = 3, rej = fw_rng_reject_below(3);
	unsigned bins[3] = { 0 };
	int i;

	(void)state;
	assert_int_equal(rej, (uint32_t)(0x100000000ULL % 3));
	for (i = 0; i < 30000; i++)
		bins[fw_rng_below(&st, span, rej)]++;
	/* 10000 +- 81.6 (binomial SD) each: 500 is 6.1 SD, a false failure
	 * about once in 1e9 runs for the three bins. */
	for (i = 0; i < 3; i++)
		assert_in_range(bins[i], 9500, 10500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_rejects_bad_config),
		cmocka_unit_test(test_no_jitter_is_constant),
		cmocka_unit_test(test_jitter_range_and_exact_mean),
		cmocka_unit_test(test_jitter_is_uniform),
		cmocka_unit_test(test_seed_reproducible),
		cmocka_unit_test(test_vcomp_constant_voltage),
		cmocka_unit_test(test_vcomp_varying_voltage_exact),
		cmocka_unit_test(test_vcomp_clamps),
		cmocka_unit_test(test_sched_layout),
		cmocka_unit_test(test_sched_missed),
		cmocka_unit_test(test_rng_below_exact),
		cmocka_unit_test(test_avr_arithmetic_matches_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
