/*
 * test_stats.c - Wilson score interval and two-proportion test against
 * published values (Wilson 1927 / Newcombe 1998 method 3 as in R's
 * prop.test(correct = FALSE)), and their edge cases.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats.h"

static void wilson_known_values(void **state)
{
	double lo, hi;

	(void)state;
	/* 50 of 100: 0.4038315 .. 0.5961685 */
	eq_wilson(50, 100, EQ_Z95, &lo, &hi);
	assert_true(fabs(lo - 0.4038315) < 1e-6 && fabs(hi - 0.5961685) < 1e-6);
	/* 1 of 10: 0.0178762 .. 0.4041500 */
	eq_wilson(1, 10, EQ_Z95, &lo, &hi);
	assert_true(fabs(lo - 0.0178762) < 1e-7 && fabs(hi - 0.4041500) < 1e-7);
	/* 981 of 1000: 0.9705155 .. 0.9878031 */
	eq_wilson(981, 1000, EQ_Z95, &lo, &hi);
	assert_true(fabs(lo - 0.9705155) < 1e-6 && fabs(hi - 0.9878031) < 1e-6);
}

static void wilson_edges(void **state)
{
	double lo, hi;

	(void)state;
	eq_wilson(0, 0, EQ_Z95, &lo, &hi);
	assert_true(lo == 0.0 && hi == 1.0);
	eq_wilson(0, 20, EQ_Z95, &lo, &hi);
	assert_true(lo == 0.0 && hi > 0.16 && hi < 0.17);   /* 0.1611247 */
	eq_wilson(20, 20, EQ_Z95, &lo, &hi);
	assert_true(hi == 1.0 && lo > 0.83 && lo < 0.84);
	eq_wilson(5, 3, EQ_Z95, &lo, &hi);                  /* nonsense in, no crash */
	assert_true(lo == 0.0 && hi == 1.0);
	eq_wilson(UINT64_C(1) << 40, UINT64_C(1) << 41, EQ_Z95, &lo, &hi);
	assert_true(lo < 0.5 && hi > 0.5 && hi - lo < 1e-5);
}

static void two_proportions(void **state)
{
	double z;

	(void)state;
	/* 300/1000 vs 500/1000: z = -9.128709 */
	assert_int_equal(eq_two_prop_differ(300, 1000, 500, 1000, EQ_Z95, &z), 1);
	assert_true(fabs(z + 9.128709) < 1e-5);
	/* 310/1000 vs 300/1000: z = 0.4856716, not significant */
	assert_int_equal(eq_two_prop_differ(310, 1000, 300, 1000, EQ_Z95, &z), 0);
	assert_true(fabs(z - 0.4856716) < 1e-6);
	assert_int_equal(eq_two_prop_differ(0, 10, 0, 10, EQ_Z95, &z), 0);
	assert_true(z == 0.0);
	assert_int_equal(eq_two_prop_differ(1, 0, 1, 10, EQ_Z95, &z), 0);
	assert_int_equal(eq_two_prop_differ(10, 10, 10, 10, EQ_Z95, &z), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wilson_known_values),
		cmocka_unit_test(wilson_edges),
		cmocka_unit_test(two_proportions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
