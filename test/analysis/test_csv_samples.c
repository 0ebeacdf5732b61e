/*
 * test_csv_samples.c - the import CSV reader: every field, hex and decimal,
 * limits, comments, CRLF, and errors with line and field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "file/csv_samples.h"

static int read_all(const char *text, struct eq_sample *out, size_t max, size_t *n,
		    struct eq_error *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct eq_csv_reader r;
	int rc;

	assert_non_null(f);
	eq_csv_reader_init(&r, f, "s.csv");
	*n = 0;
	while ((rc = eq_csv_next(&r, &out[*n], err)) == 1)
		if (++*n == max)
			break;
	eq_csv_reader_release(&r);
	fclose(f);
	return rc;
}

static void reads_every_field(void **state)
{
	struct eq_sample s[4];
	struct eq_error err;
	size_t n;

	(void)state;
	assert_int_equal(read_all("time_ns,pc,pid,tid,cpu,flags\r\n"
				  "# a comment\n"
				  "\n"
				  "18446744073709551615,0xFFFFffff81000000,4294967295,7,65535,0x1f\r\n"
				  "5, 4198710 ,0,0,0,6\n", s, 4, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_true(s[0].time == UINT64_MAX);
	assert_true(s[0].pc == 0xffffffff81000000ull);
	assert_int_equal(s[0].pid, UINT32_MAX);
	assert_int_equal(s[0].tid, 7);
	assert_int_equal(s[0].cpu, 65535);
	assert_int_equal(s[0].flags, 0x1f);
	assert_int_equal(s[0].seq, 0);
	assert_int_equal(s[1].pc, 4198710);
	assert_int_equal(s[1].flags, EQ_F_IDLE | EQ_F_ENERGY);
}

static void expect_error(const char *text, const char *needle1, const char *needle2)
{
	struct eq_sample s[4];
	struct eq_error err;
	size_t n;

	assert_int_equal(read_all(text, s, 4, &n, &err), -1);
	if (!strstr(err.msg, needle1) || !strstr(err.msg, needle2))
		fail_msg("message '%s' lacks '%s' or '%s'", err.msg, needle1, needle2);
}

static void errors_name_line_and_field(void **state)
{
	const char *h = "time_ns,pc,pid,tid,cpu,flags\n";
	char buf[256];

	(void)state;
	expect_error("", "s.csv", "no header");
	expect_error("# only a comment\n", "s.csv", "no header");
	expect_error("pc,time\n", "s.csv:1", "header");
	snprintf(buf, sizeof(buf), "%s1,2,3,4,5,6\n1,2,3\n", h);
	expect_error(buf, "s.csv:3", "3 fields");
	snprintf(buf, sizeof(buf), "%s1,2,3,4,5,6,7\n", h);
	expect_error(buf, "s.csv:2", "more than 6");
	snprintf(buf, sizeof(buf), "%s1,0x,3,4,5,6\n", h);
	expect_error(buf, "s.csv:2", "field pc");
	snprintf(buf, sizeof(buf), "%s-1,2,3,4,5,6\n", h);
	expect_error(buf, "s.csv:2", "field time_ns");
	snprintf(buf, sizeof(buf), "%s1,2,4294967296,4,5,6\n", h);
	expect_error(buf, "s.csv:2", "field pid");
	snprintf(buf, sizeof(buf), "%s1,2,3,4294967296,5,6\n", h);
	expect_error(buf, "s.csv:2", "field tid");
	snprintf(buf, sizeof(buf), "%s1,2,3,4,65536,6\n", h);
	expect_error(buf, "s.csv:2", "field cpu");
	snprintf(buf, sizeof(buf), "%s1,2,3,4,5,0x10000\n", h);
	expect_error(buf, "s.csv:2", "field flags");
	snprintf(buf, sizeof(buf), "%s18446744073709551616,2,3,4,5,6\n", h);
	expect_error(buf, "s.csv:2", "too large");
	snprintf(buf, sizeof(buf), "%s1,0x10000000000000000,3,4,5,6\n", h);
	expect_error(buf, "s.csv:2", "too large");
	snprintf(buf, sizeof(buf), "%s1,2,3,4,5,\n", h);
	expect_error(buf, "s.csv:2", "field flags");
}

static void header_only_is_no_samples(void **state)
{
	struct eq_sample s[1];
	struct eq_error err;
	size_t n;

	(void)state;
	assert_int_equal(read_all("time_ns,pc,pid,tid,cpu,flags\n", s, 1, &n, &err), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_every_field),
		cmocka_unit_test(errors_name_line_and_field),
		cmocka_unit_test(header_only_is_no_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
