/*
 * test_maps_log.c - recorded maps as a log of mmaps (eq_maps_parse_log): a
 * library loaded where another was unloaded replaces it, a mapping over
 * the middle of another splits it (offsets follow), neighbouring pieces of
 * one line join again, and what /proc/PID/maps would list is unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "symbols/maps.h"

static void later_replaces_earlier(void **state)
{
	static const char text[] =
		"7f0000001000-7f0000003000 r-xp 00001000 08:01 1 /lib/liba.so\n"
		"7f0000001000-7f0000002000 r-xp 00001000 08:01 2 /lib/libb.so\n"
		"400000-410000 r-xp 00000000 08:01 3 /bin/app\n"
		"404000-405000 r-xp 00000000 00:00 0 //anon\n";
	struct eq_maps m;
	struct eq_error err;
	const struct eq_map *x;

	(void)state;
	assert_int_equal(eq_maps_parse(text, strlen(text), "t", &m, &err), -1);
	assert_int_equal(eq_maps_parse_log(text, strlen(text), "t", &m, &err), 0);
	assert_int_equal(m.n, 5);
	x = eq_maps_find(&m, 0x7f0000001800);
	assert_string_equal(x->path, "/lib/libb.so");
	x = eq_maps_find(&m, 0x7f0000002800);
	assert_string_equal(x->path, "/lib/liba.so");
	assert_int_equal(x->start, 0x7f0000002000);
	assert_int_equal(x->offset, 0x2000);        /* the piece keeps its file offset */
	assert_string_equal(eq_maps_find(&m, 0x404100)->path, "//anon");
	x = eq_maps_find(&m, 0x405000);
	assert_string_equal(x->path, "/bin/app");
	assert_int_equal(x->offset, 0x5000);
	assert_int_equal(eq_maps_find(&m, 0x403fff)->start, 0x400000);
	eq_maps_release(&m);
}

static void snapshot_unchanged(void **state)
{
	static const char text[] =
		"400000-401000 r--p 00000000 08:01 3 /bin/app\n"
		"401000-402000 r-xp 00001000 08:01 3 /bin/app\n"
		"7f0000000000-7f0000001000 r-xp 00000000 08:01 1 /lib/liba.so\n";
	struct eq_maps a, b;
	struct eq_error err;
	size_t i;

	(void)state;
	assert_int_equal(eq_maps_parse(text, strlen(text), "t", &a, &err), 0);
	assert_int_equal(eq_maps_parse_log(text, strlen(text), "t", &b, &err), 0);
	assert_int_equal(a.n, b.n);
	for (i = 0; i < a.n; i++) {
		assert_int_equal(a.maps[i].start, b.maps[i].start);
		assert_int_equal(a.maps[i].end, b.maps[i].end);
		assert_int_equal(a.maps[i].offset, b.maps[i].offset);
		assert_string_equal(a.maps[i].path, b.maps[i].path);
	}
	eq_maps_release(&a);
	eq_maps_release(&b);
	assert_int_equal(eq_maps_parse_log("", 0, "t", &b, &err), 0);
	assert_int_equal(b.n, 0);
	eq_maps_release(&b);
	assert_int_equal(eq_maps_parse_log("zz\n", 3, "t", &b, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(later_replaces_earlier),
		cmocka_unit_test(snapshot_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
