/* test_labels.c - eq_path_labels (analysis/util/labels.h): the shortest end
 * of each path that tells it from the others (issue 28: two sim runs gave
 * two rows named energy.eqp). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/labels.h"

static void check(const char *const *paths, size_t n, const char *const *want)
{
	const char *got[8];
	size_t i;

	eq_path_labels(paths, n, got);
	for (i = 0; i < n; i++)
		assert_string_equal(got[i], want[i]);
}

static void one_path_is_its_base_name(void **state)
{
	const char *p[] = { "music/energy.eqp" }, *w[] = { "energy.eqp" };

	(void)state;
	check(p, 1, w);
}

static void same_base_names_get_their_folder(void **state)
{
	const char *p[] = { "music/energy.eqp", "silent/energy.eqp", "/tmp/run.eqp" };
	const char *w[] = { "music/energy.eqp", "silent/energy.eqp", "run.eqp" };

	(void)state;
	check(p, 3, w);
}

static void as_deep_as_needed_and_no_deeper(void **state)
{
	const char *p[] = { "/a/x/e.eqp", "/b/x/e.eqp", "/b/y/e.eqp", "f.eqp" };
	const char *w[] = { "a/x/e.eqp", "b/x/e.eqp", "y/e.eqp", "f.eqp" };

	(void)state;
	check(p, 4, w);
}

static void a_path_inside_another(void **state)
{
	/* energy.eqp cannot be told from music/energy.eqp by a shorter end:
	 * it stays whole, the other grows */
	const char *p[] = { "energy.eqp", "music/energy.eqp" };
	const char *w[] = { "energy.eqp", "music/energy.eqp" };

	(void)state;
	check(p, 2, w);
}

static void the_same_path_twice(void **state)
{
	const char *p[] = { "runs/e.eqp", "runs/e.eqp", "other/e.eqp" };
	const char *w[] = { "runs/e.eqp", "runs/e.eqp", "other/e.eqp" };

	(void)state;
	check(p, 3, w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_path_is_its_base_name),
		cmocka_unit_test(same_base_names_get_their_folder),
		cmocka_unit_test(as_deep_as_needed_and_no_deeper),
		cmocka_unit_test(a_path_inside_another),
		cmocka_unit_test(the_same_path_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
