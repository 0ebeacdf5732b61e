/*
 * test_fmtnum.c - eq_fmt_fixed, eq_fmt_g and eq_fmt_u64 against snprintf
 * itself (glibc, the reference: independent of fmtnum.c's arithmetic), over
 * millions of numbers: every magnitude, the exact ties where rounding goes
 * to even (u / 2^j), a few ulps around them and around every power of ten
 * (where %g's exponent turns), and the numbers a report prints (shares,
 * Wilson bounds in percent, sample counts times a quantum).
 * EQ_FMTNUM_ROUNDS=N multiplies the random rounds (by hand: 100 runs the
 * hundreds of millions the comment in fmtnum.h refers to).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/fmtnum.h"
#include "test/lib/xorshift.h"

static const int fixed_precs[] = { 0, 1, 2, 3, 6, 8, 10, 17, 19, 20 };
static const int g_precs[] = { 0, 1, 3, 4, 6, 9, 10, 15, 16 };
static unsigned long long compared;

static void same(double v)
{
	char want[EQ_FMTNUM_SIZE], got[EQ_FMTNUM_SIZE];
	size_t i;

	for (i = 0; i < sizeof(fixed_precs) / sizeof(fixed_precs[0]); i++) {
		snprintf(want, sizeof(want), "%.*f", fixed_precs[i], v);
		if (eq_fmt_fixed(got, v, fixed_precs[i]) != strlen(want) || strcmp(got, want))
			fail_msg("%%.%df of %a: printf \"%s\", eq_fmt_fixed \"%s\"", fixed_precs[i], v,
				 want, got);
	}
	for (i = 0; i < sizeof(g_precs) / sizeof(g_precs[0]); i++) {
		snprintf(want, sizeof(want), "%.*g", g_precs[i], v);
		if (eq_fmt_g(got, v, g_precs[i]) != strlen(want) || strcmp(got, want))
			fail_msg("%%.%dg of %a: printf \"%s\", eq_fmt_g \"%s\"", g_precs[i], v, want,
				 got);
	}
	compared++;
}

static unsigned rounds(void)
{
	const char *s = getenv("EQ_FMTNUM_ROUNDS");

	return s && atoi(s) > 0 ? (unsigned)atoi(s) : 1;
}

static void edges(void **state)
{
	static const double v[] = { 0.0, -0.0, 0.125, 0.375, 0.625, 2.5, 0.5, 1.5, 0.05, 0.005,
				    99.995, 99.994999999999, 100, 9.9995, 999.95, 9999.5,
				    0.00012345, 0.000099995, 1e-5, 1e15, 1e16, 1e17, 1e19, 1e21,
				    1e22, 1e37, 1e38, 1e-21, 1e-22, 1e-300, 5e-324, 1.7e308,
				    18446744073709551615.0, 9007199254740993.0, -1.0, -0.004,
				    -99.995, 123456789012345678.0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		same(v[i]);
		same(-v[i]);
		same(nextafter(v[i], INFINITY));
		same(nextafter(v[i], -INFINITY));
	}
	same(NAN);
	same(INFINITY);
	same(-INFINITY);
}

/* Exact ties (an odd number over a power of two) at every scale a
 * precision rounds at, and their neighbours. */
static void ties(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned long i, n = 20000ul * rounds();

	(void)state;
	for (i = 0; i < n; i++) {
		uint64_t u = (eq_xorshift64(&x) >> (11 + eq_xorshift64(&x) % 50)) | 1;
		int j = (int)(eq_xorshift64(&x) % 90) - 20;
		double v = ldexp((double)u, -j);

		same(v);
		same(nextafter(v, 0));
		same(nextafter(v, INFINITY));
	}
}

/* Powers of ten and the numbers that round up to them (%g's exponent). */
static void powers_of_ten(void **state)
{
	int i, p, k;

	(void)state;
	for (i = -30; i <= 40; i++) {
		double t = pow(10.0, i), v = t;

		for (k = 0; k < 4; k++) {
			same(v);
			same(-v);
			v = nextafter(v, INFINITY);
		}
		for (v = t, k = 0; k < 4; k++) {
			same(v);
			v = nextafter(v, 0);
		}
		/* 9.99..95 10^(i-1) at every number of nines */
		for (p = 1; p <= 17; p++) {
			v = t * (1 - 0.5 * pow(10.0, -p));
			same(v);
			same(nextafter(v, 0));
			same(nextafter(v, INFINITY));
		}
	}
}

/* Random numbers: any bit pattern, and log-uniform from 1e-25 to 1e40. */
static void random_numbers(void **state)
{
	uint64_t x = 88172645463325252ull;
	unsigned long i, n = 30000ul * rounds();

	(void)state;
	for (i = 0; i < n; i++) {
		uint64_t b = eq_xorshift64(&x);
		double v;

		memcpy(&v, &b, sizeof(v));
		same(v);
		v = ldexp((double)(eq_xorshift64(&x) >> 11), -53) * pow(10.0, (double)(eq_xorshift64(&x) % 66) - 25.0);
		same(v);
	}
}

/* What a report prints: 100 k / n, Wilson bounds of k of n in percent,
 * k times a quantum or period, decimals typed by a user. */
static void report_numbers(void **state)
{
	static const double per[] = { 250e-6, 1e-3, 46e-6, 2.94e-3, 1.0 / 3000, 1e-9, 0.001 };
	uint64_t x = 1234567;
	unsigned long i, n = 20000ul * rounds();

	(void)state;
	for (i = 0; i < n; i++) {
		uint64_t tot = 1 + eq_xorshift64(&x) % 100000000, k = eq_xorshift64(&x) % (tot + 1);
		double p = (double)k / (double)tot, z2n = 3.84 / (double)tot;
		double c = (p + z2n / 2) / (1 + z2n), h = 1.96 * sqrt(p * (1 - p) / (double)tot +
							    z2n / (4 * (double)tot)) / (1 + z2n);
		char dec[32];

		same(100 * p);
		same(p);
		same(100 * (c - h));
		same(100 * (c + h));
		same((double)k * per[i % 7]);
		same((double)k * per[i % 7] / 1e-3);
		snprintf(dec, sizeof(dec), "%llu.%03llu5", (unsigned long long)(k % 1000),
			 (unsigned long long)(eq_xorshift64(&x) % 1000));
		same(strtod(dec, NULL));
	}
}

static void integers(void **state)
{
	uint64_t x = 42, v;
	char want[32], got[32];
	unsigned long i;

	(void)state;
	for (i = 0; i < 1000000; i++) {
		v = eq_xorshift64(&x) >> (eq_xorshift64(&x) % 64);
		if (i < 1000)
			v = i;
		if (i == 1000)
			v = UINT64_MAX;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		assert_int_equal(eq_fmt_u64(got, v), strlen(want));
		assert_string_equal(got, want);
	}
}

static int report(void **state)
{
	(void)state;
	fprintf(stderr, "# %llu numbers, %zu formats each, as snprintf prints them\n", compared,
		sizeof(fixed_precs) / sizeof(fixed_precs[0]) + sizeof(g_precs) / sizeof(g_precs[0]));
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edges),
		cmocka_unit_test(ties),
		cmocka_unit_test(powers_of_ten),
		cmocka_unit_test(random_numbers),
		cmocka_unit_test(report_numbers),
		cmocka_unit_test(integers),
	};
	return cmocka_run_group_tests(tests, NULL, report);
}
