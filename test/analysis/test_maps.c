/*
 * test_maps.c - the /proc/PID/maps parser: real-looking maps, lookups at
 * every boundary, and every malformed field named with its line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "symbols/maps.h"

static const char real_maps[] =
	"55d0c4e00000-55d0c4e01000 r--p 00000000 08:01 1234                       /usr/bin/prog\n"
	"55d0c4e01000-55d0c4e02000 r-xp 00001000 08:01 1234                       /usr/bin/prog\n"
	"55d0c5e00000-55d0c5e21000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f00aa000000-7f00aa022000 r--p 00000000 08:01 99   /usr/lib/x86_64-linux-gnu/lib c.so.6\n"
	"7f00aa022000-7f00aa197000 r-xp 00022000 08:01 99   /usr/lib/x86_64-linux-gnu/lib c.so.6\n"
	"7f00aa300000-7f00aa301000 rw-p 00000000 00:00 0 \n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static void parses_real_maps(void **state)
{
	struct eq_maps m;
	struct eq_error err;
	const struct eq_map *x;

	(void)state;
	assert_int_equal(eq_maps_parse(real_maps, strlen(real_maps), "t", &m, &err), 0);
	assert_int_equal(m.n, 7);
	x = eq_maps_find(&m, 0x55d0c4e01000);
	assert_non_null(x);
	assert_string_equal(x->path, "/usr/bin/prog");
	assert_int_equal(x->offset, 0x1000);
	assert_int_equal(x->perms, EQ_MAP_R | EQ_MAP_X);
	x = eq_maps_find(&m, 0x55d0c4e01fff);
	assert_int_equal(x->start, 0x55d0c4e01000);
	assert_null(eq_maps_find(&m, 0x55d0c4e02000));
	assert_null(eq_maps_find(&m, 0x55d0c4dfffff));
	assert_null(eq_maps_find(&m, 0));
	x = eq_maps_find(&m, 0x7f00aa100000);
	assert_string_equal(x->path, "/usr/lib/x86_64-linux-gnu/lib c.so.6"); /* spaces kept */
	x = eq_maps_find(&m, 0x7f00aa300010);
	assert_string_equal(x->path, "");                                    /* anonymous */
	assert_int_equal(eq_maps_find(&m, 0xffffffffff600000)->perms, EQ_MAP_X);
	assert_string_equal(eq_maps_main_path(&m), "/usr/bin/prog");
	eq_maps_release(&m);
}

static void sorts_unsorted_input_and_skips_blank_lines(void **state)
{
	static const char text[] = "\n2000-3000 r-xp 0 0:0 0 /b\n\n1000-2000 r-xp 0 0:0 0 /a";
	struct eq_maps m;
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_maps_parse(text, strlen(text), "t", &m, &err), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.maps[0].path, "/a");
	assert_string_equal(eq_maps_find(&m, 0x2fff)->path, "/b");
	eq_maps_release(&m);
}

static void empty_text_is_no_maps(void **state)
{
	struct eq_maps m;
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_maps_parse("", 0, "t", &m, &err), 0);
	assert_int_equal(m.n, 0);
	assert_null(eq_maps_find(&m, 1));
	assert_null(eq_maps_main_path(&m));
	eq_maps_release(&m);
}

static void expect_error(const char *text, const char *needle1, const char *needle2)
{
	struct eq_maps m;
	struct eq_error err;

	assert_int_equal(eq_maps_parse(text, strlen(text), "x.maps", &m, &err), -1);
	if (!strstr(err.msg, needle1) || !strstr(err.msg, needle2))
		fail_msg("message '%s' lacks '%s' or '%s'", err.msg, needle1, needle2);
}

static void names_line_and_field_of_errors(void **state)
{
	(void)state;
	expect_error("1000-2000 r-xp 0 0:0 0 /a\nzzzz-2000 r-xp 0 0:0 0 /a\n", "x.maps:2",
		     "address range");
	expect_error("1000 r-xp 0 0:0 0 /a\n", "x.maps:1", "address range");
	expect_error("2000-1000 r-xp 0 0:0 0 /a\n", "x.maps:1", "before it starts");
	expect_error("1000-2000 r-xq 0 0:0 0 /a\n", "x.maps:1", "permissions");
	expect_error("1000-2000 rx 0 0:0 0 /a\n", "x.maps:1", "permissions");
	expect_error("1000-2000 r-xp g 0:0 0 /a\n", "x.maps:1", "offset");
	expect_error("1000-2000 r-xp 0 00 0 /a\n", "x.maps:1", "device");
	expect_error("1000-2000 r-xp 0 0:0 x /a\n", "x.maps:1", "inode");
	expect_error("1000-2000 r-xp 0 0:0\n", "x.maps:1", "inode");
	expect_error("1000-2000 r-xp 0 0:0 0 /a\n1800-2800 r-xp 0 0:0 0 /b\n", "x.maps",
		     "overlap");
	expect_error("11112222333344445-ffffffffffffffff r-xp 0 0:0 0 /a\n", "x.maps:1",
		     "address range");
}

static void nul_byte_is_an_error(void **state)
{
	static const char text[] = "1000-2000 r-xp 0 0:0 0 /a\0b\n";
	struct eq_maps m;
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_maps_parse(text, sizeof(text) - 1, "x.maps", &m, &err), -1);
	assert_non_null(strstr(err.msg, "NUL"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_real_maps),
		cmocka_unit_test(sorts_unsorted_input_and_skips_blank_lines),
		cmocka_unit_test(empty_text_is_no_maps),
		cmocka_unit_test(names_line_and_field_of_errors),
		cmocka_unit_test(nul_byte_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
