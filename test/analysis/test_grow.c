/* test_grow.c - eq_grow (analysis/util/grow.h): doubling, first capacity,
 * a need beyond one doubling, overflow refused with the array kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "util/grow.h"

static void doubles_from_first(void **state)
{
	int *v = NULL;
	size_t cap = 0, n;

	(void)state;
	for (n = 0; n < 1000; n++) {
		assert_int_equal(EQ_GROW(v, cap, n + 1, 16), 0);
		v[n] = (int)n;
		assert_true(cap >= n + 1);
		assert_true(cap == 16 || cap / 2 < n + 1);   /* doubled only when needed */
	}
	assert_int_equal(cap, 1024);
	for (n = 0; n < 1000; n++)
		assert_int_equal(v[n], (int)n);
	free(v);
}

static void need_beyond_one_doubling(void **state)
{
	double *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(EQ_GROW(v, cap, 1, 0), 0);    /* first 0: starts at 1 */
	assert_int_equal(cap, 1);
	assert_int_equal(EQ_GROW(v, cap, 100, 8), 0);
	assert_int_equal(cap, 128);
	v[99] = 1.5;
	assert_int_equal(EQ_GROW(v, cap, 50, 8), 0);   /* fits: unchanged */
	assert_int_equal(cap, 128);
	free(v);
}

static void overflow_refused(void **state)
{
	char *v = NULL;
	uint64_t *w = NULL;
	size_t cap = 0, capw = 0;

	(void)state;
	assert_int_equal(EQ_GROW(v, cap, 10, 8), 0);
	v[0] = 'x';
	assert_int_equal(EQ_GROW(v, cap, SIZE_MAX, 8), -1);
	assert_int_equal(cap, 16);                      /* kept */
	assert_int_equal(v[0], 'x');
	assert_int_equal(EQ_GROW(w, capw, SIZE_MAX / 4, 8), -1);   /* bytes overflow */
	assert_null(w);
	assert_int_equal(capw, 0);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doubles_from_first),
		cmocka_unit_test(need_beyond_one_doubling),
		cmocka_unit_test(overflow_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
