/* test_units.c - SI quantities as users type them, and as we print them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "test/lib/xorshift.h"

static double parse_ok(const char *text, const char *unit)
{
	struct eq_error err = { "" };
	double v = -1;

	assert_int_equal(eq_parse_quantity(text, unit, "--x", &v, &err), 0);
	return v;
}

static void parses_prefixes(void **state)
{
	(void)state;
	assert_true(fabs(parse_ok("2.94mJ", "J") - 2.94e-3) < 1e-15);
	assert_true(fabs(parse_ok("46uJ", "J") - 46e-6) < 1e-18);
	assert_true(fabs(parse_ok("46\xc2\xb5J", "J") - 46e-6) < 1e-18);
	assert_true(parse_ok("50mW", "W") == 50e-3);
	assert_true(parse_ok("349Hz", "Hz") == 349);
	assert_true(parse_ok("1.5kHz", "Hz") == 1500);
	assert_true(fabs(parse_ok("300ns", "s") - 300e-9) < 1e-21);
	assert_true(parse_ok("0.5", "J") == 0.5);
	assert_true(parse_ok("2 mJ", "J") == 2e-3);
}

static void rejects_with_reason(void **state)
{
	struct eq_error err = { "" };
	double v;

	(void)state;
	assert_int_equal(eq_parse_quantity("2.94mW", "J", "--energy", &v, &err), -1);
	assert_non_null(strstr(err.msg, "--energy"));
	assert_non_null(strstr(err.msg, "expected J"));
	assert_int_equal(eq_parse_quantity("fast", "Hz", "--time", &v, &err), -1);
	assert_non_null(strstr(err.msg, "not a number"));
	assert_int_equal(eq_parse_quantity("", "Hz", "--time", &v, &err), -1);
	assert_int_equal(eq_parse_quantity("5xJ", "J", "--energy", &v, &err), -1);
}

/* Every accepted value is a finite number: no overflow to infinity by the
 * prefix, no infinity or NaN typed in, no positive value rounded to 0. */
static void range_checked(void **state)
{
	static const char *const bad[] = { "1e308GJ", "1e300GJ", "inf", "-infJ", "nanJ",
					   "1e309", "1e-320pJ" };
	struct eq_error err = { "" };
	size_t i;
	double v;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		if (eq_parse_quantity(bad[i], "J", "--energy", &v, &err) != -1)
			fail_msg("'%s' accepted as %g", bad[i], v);
		assert_non_null(strstr(err.msg, "--energy"));
		assert_non_null(strstr(err.msg, bad[i]));
	}
	assert_int_equal(eq_parse_quantity("1e308GJ", "J", "--energy", &v, &err), -1);
	assert_non_null(strstr(err.msg, "out of range"));
	assert_int_equal(eq_parse_quantity("1e-320pJ", "J", "--energy", &v, &err), -1);
	assert_non_null(strstr(err.msg, "out of range"));
	assert_true(parse_ok("1e300", "J") == 1e300);
	assert_true(parse_ok("-2mJ", "J") == -2e-3);    /* sign: the caller's rule */
}

static void formats_readably(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(eq_format_quantity(b, sizeof(b), 2.94e-3, "J"), "2.94 mJ");
	assert_string_equal(eq_format_quantity(b, sizeof(b), 1226e-3, "W"), "1.226 W");
	assert_string_equal(eq_format_quantity(b, sizeof(b), 46e-6, "J"), "46 uJ");
	assert_string_equal(eq_format_quantity(b, sizeof(b), 0, "W"), "0 W");
	assert_string_equal(eq_format_quantity(b, sizeof(b), 349, "Hz"), "349 Hz");
}

static void whole_numbers(void **state)
{
	struct eq_error err = { "" };
	unsigned long long v;

	(void)state;
	assert_int_equal(eq_parse_uint("64", "--n", 1000, &v, &err), 0);
	assert_int_equal(v, 64);
	assert_int_equal(eq_parse_uint("0x10", "--n", 1000, &v, &err), 0);
	assert_int_equal(v, 16);
	assert_int_equal(eq_parse_uint("-1", "--n", 1000, &v, &err), -1);
	assert_int_equal(eq_parse_uint("2000", "--n", 1000, &v, &err), -1);
	assert_non_null(strstr(err.msg, "limit 1000"));
	assert_int_equal(eq_parse_uint("12ab", "--n", 1000, &v, &err), -1);
	/* strtoull reads " -1" as 2^64 - 1 and "+5" as 5: neither is typed digits. */
	assert_int_equal(eq_parse_uint(" -1", "--n", ~0ull, &v, &err), -1);
	assert_int_equal(eq_parse_uint("+5", "--n", 1000, &v, &err), -1);
	assert_int_equal(eq_parse_uint("18446744073709551616", "--n", ~0ull, &v, &err), -1);
}

static void fixed3_is(double v)
{
	char want[400], got[400];

	snprintf(want, sizeof(want), "%.3f", v);
	assert_int_equal(eq_format_fixed3(got, v), strlen(want));
	assert_string_equal(got, want);
}

/* eq_format_fixed3 against printf itself: random numbers of every size the
 * exports write, numbers a few ulps around every kind of thousandth and
 * around the halves between them (where rounding turns), and the edges. */
static void fixed3_is_printf(void **state)
{
	static const double edges[] = { 0.0, -0.0, 0.0005, 0.0015, 0.0025, 1e-300, 0.9995,
					 999.9995, 8796093022.207, 8796093022.2075,
					 8796093022.208, 8796093022.2085, 1e10, 1e300, -1.0,
					 -0.0004 };
	uint64_t x = 88172645463325252ull;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		fixed3_is(edges[i]);
	fixed3_is(NAN);
	fixed3_is(INFINITY);
	for (i = 0; i < 400000; i++) {
		double v, base;

		eq_xorshift64(&x);
		/* a magnitude from 1e-6 to 1e11, then a random mantissa */
		v = ldexp((double)(x >> 11), -53) * pow(10.0, (double)(x % 18) - 6.0);
		fixed3_is(v);
		/* the thousandths and the halves between them, and their neighbours */
		base = floor(v * 1000.0) / 1000.0;
		for (k = -3; k <= 3; k++) {
			fixed3_is(nextafter(base, k < 0 ? 0 : INFINITY) + 0.0 * k);
			fixed3_is(base + 0.0005 + k * ldexp(base > 1 ? base : 1, -52));
		}
		fixed3_is((double)(x % 100000000000ull) / 1000.0);
		fixed3_is((double)(x % 100000000000ull) / 1e9 * 1e6);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_prefixes),
		cmocka_unit_test(rejects_with_reason),
		cmocka_unit_test(range_checked),
		cmocka_unit_test(formats_readably),
		cmocka_unit_test(whole_numbers),
		cmocka_unit_test(fixed3_is_printf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
