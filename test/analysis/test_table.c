/*
 * test_table.c - output writers: CSV quoting, JSON escaping and numbers,
 * format names, and the profile printed in all three formats.
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

#include "profile/compare.h"
#include "profile/table.h"
#include "util/units.h"

/* Runs fn into a memory stream and returns the text (caller frees). */
static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static void csv_field(FILE *f, const void *s) { eq_csv_field(f, s); }
static void json_string(FILE *f, const void *s) { eq_json_string(f, s); }
static void json_number(FILE *f, const void *v) { eq_json_number(f, *(const double *)v); }

static void quoting_and_escaping(void **state)
{
	static const double nan_v = NAN, inf_v = INFINITY, q = 0.00294;
	char *out;

	(void)state;
	out = capture(csv_field, "plain_name");
	assert_string_equal(out, "plain_name");
	free(out);
	out = capture(csv_field, "operator,\"quoted\"");
	assert_string_equal(out, "\"operator,\"\"quoted\"\"\"");
	free(out);
	out = capture(json_string, "a\"b\\c\n\x01");
	assert_string_equal(out, "\"a\\\"b\\\\c\\u000a\\u0001\"");
	free(out);
	out = capture(json_number, &nan_v);
	assert_string_equal(out, "null");
	free(out);
	out = capture(json_number, &inf_v);
	assert_string_equal(out, "null");
	free(out);
	out = capture(json_number, &q);
	assert_string_equal(out, "0.00294");
	free(out);
}

static void format_names(void **state)
{
	struct eq_error err;
	enum eq_format fmt;

	(void)state;
	assert_int_equal(eq_format_parse("json", &fmt, &err), 0);
	assert_int_equal(fmt, EQ_FMT_JSON);
	assert_int_equal(eq_format_parse("csv", &fmt, &err), 0);
	assert_int_equal(fmt, EQ_FMT_CSV);
	assert_int_equal(eq_format_parse("xml", &fmt, &err), -1);
	assert_non_null(strstr(err.msg, "table, csv or json"));
}

static struct eq_profile *small_profile(enum eqp_mode mode)
{
	static struct eq_loc f = { .kind = EQ_LOC_RESOLVED, .exe = "x", .module = "/bin/x",
				   .module_base = "x", .proc = "f,g" };
	static struct eq_loc idle = { .kind = EQ_LOC_IDLE, .exe = "[idle]", .module = "[idle]",
				      .module_base = "[idle]", .proc = "[idle]" };
	struct eq_error err;
	struct eq_agg *a = eq_agg_new(EQ_BY_PROC, 0, &err);

	eq_agg_add(a, &f, 3, &err);
	eq_agg_add(a, &idle, 1, &err);
	return eq_agg_finish(a, mode, 0.002, 0.01, 2, &err);
}

struct print_arg {
	const struct eq_profile *p;
	enum eq_format fmt;
};

static void print(FILE *f, const void *arg)
{
	const struct print_arg *a = arg;

	eq_profile_print(f, a->p, a->fmt, "rec.eqp");
}

static void profile_in_three_formats(void **state)
{
	struct eq_profile *p = small_profile(EQP_MODE_ENERGY);
	struct print_arg a = { p, EQ_FMT_JSON };
	char *out;

	(void)state;
	out = capture(print, &a);
	assert_non_null(strstr(out, "\"mode\": \"energy\", \"by\": \"proc\", \"quantum_j\": 0.002"));
	assert_non_null(strstr(out, "\"total_samples\": 4"));
	assert_non_null(strstr(out, "{\"name\": \"f,g\", \"module\": \"x\", \"samples\": 3, "
				    "\"share\": 0.75, \"energy_j\": 0.006"));
	free(out);
	a.fmt = EQ_FMT_CSV;
	out = capture(print, &a);
	assert_non_null(strstr(out, "name,module,samples,share,energy_j,ci95_low,ci95_high\n"
				    "\"f,g\",x,3,0.75000000,0.006,"));
	free(out);
	a.fmt = EQ_FMT_TABLE;
	out = capture(print, &a);
	assert_non_null(strstr(out, "# energy profile by proc of rec.eqp\n"
				    "# 4 samples x 2 mJ = 8 mJ; idle 1; lost 2\n"));
	assert_non_null(strstr(out, " 75.00%            3        6 mJ"));
	free(out);
	eq_profile_free(p);

	p = small_profile(EQP_MODE_TIME);
	a.p = p;
	a.fmt = EQ_FMT_JSON;
	out = capture(print, &a);
	assert_non_null(strstr(out, "\"mode\": \"time\", \"by\": \"proc\", \"period_s\": 0.01"));
	assert_non_null(strstr(out, "\"time_s\": 0.03"));
	free(out);
	eq_profile_free(p);
}

/* A row's line as printf writes it, for the table (no keys) and for the
 * keys' table (w: the columns' widths). */
static void printf_row(char *buf, size_t size, const struct eq_profile *p, const struct eq_row *r,
		       const int *w)
{
	char ci[64], amt[32];
	int n;
	unsigned k;

	snprintf(ci, sizeof(ci), "[%.2f%%, %.2f%%]", 100 * r->ci95_low, 100 * r->ci95_high);
	if (isfinite(r->amount))
		eq_format_quantity(amt, sizeof(amt), r->amount, p->mode == EQP_MODE_ENERGY ? "J" : "s");
	else
		strcpy(amt, "-");
	n = snprintf(buf, size, "\n%6.2f%% %12llu %11s  %-17s", 100 * r->share,
		     (unsigned long long)r->samples, amt, ci);
	if (!p->keys.n) {
		snprintf(buf + n, size - (size_t)n, "  %-20s %s\n", r->module, r->name);
		return;
	}
	for (k = 0; k < p->keys.n; k++)
		n += snprintf(buf + n, size - (size_t)n, "  %-*s", k + 1 < p->keys.n ? w[k] : 0,
			      r->fields[k]);
	snprintf(buf + n, size - (size_t)n, "\n");
}

/* The table's rows are made without printf, and with keys too: each the
 * bytes printf makes, long names and fields (beyond the line's buffer)
 * and extreme numbers included. */
static void rows_as_printf(void **state)
{
	static char longname[3000], longfield[2000], buf[8192];
	struct eq_row rows[6];
	struct eq_profile p;
	struct print_arg a = { &p, EQ_FMT_TABLE };
	int w[2];
	unsigned k, round;
	size_t i;
	char *out;

	(void)state;
	memset(longname, 'n', sizeof(longname) - 1);
	memset(longfield, 'f', sizeof(longfield) - 1);
	memset(rows, 0, sizeof(rows));
	rows[0] = (struct eq_row){ .name = "main", .module = "x", .samples = 3, .share = 1,
				   .ci95_low = 0.99, .ci95_high = 1, .amount = 0.03,
				   .fields = { "x", "main" } };
	rows[1] = (struct eq_row){ .name = longname, .module = "a-module-name-longer-than-20",
				   .samples = UINT64_MAX, .share = 1e-9, .ci95_low = 0,
				   .ci95_high = 2.5e-7, .amount = NAN, .fields = { "y", longfield } };
	rows[2] = (struct eq_row){ .name = "", .module = "", .samples = 0, .share = 0.123456,
				   .ci95_low = 0.1, .ci95_high = 0.14, .amount = 1234.5,
				   .fields = { longfield, "" } };
	rows[3] = (struct eq_row){ .name = "g", .module = "m", .samples = 42, .share = 0.00499,
				   .ci95_low = 0.004994999, .ci95_high = 0.005, .amount = 4.2e-7,
				   .fields = { "a-field-just-over-forty-characters-long-x", "g" } };
	rows[4] = (struct eq_row){ .name = "h", .module = "m", .samples = 7, .share = 0.5,
				   .ci95_low = 0.125, .ci95_high = 0.875, .amount = 1e300,
				   .fields = { "m", "h" } };
	rows[5] = (struct eq_row){ .name = "i", .module = "m", .samples = 1, .share = 0.999999,
				   .ci95_low = -0.0, .ci95_high = 1e20, .amount = INFINITY,
				   .fields = { "m", "i" } };
	for (round = 0; round < 4; round++) {
		memset(&p, 0, sizeof(p));
		p.by = EQ_BY_PROC;
		p.mode = round & 1 ? EQP_MODE_ENERGY : EQP_MODE_TIME;
		p.rows = rows;
		p.nrows = sizeof(rows) / sizeof(rows[0]);
		if (round >= 2) {
			p.keys.n = 2;
			p.keys.k[0] = EQ_KEY_DSO;
			p.keys.k[1] = EQ_KEY_SYM;
		}
		for (k = 0; k < p.keys.n; k++) {
			w[k] = (int)strlen(eq_key_name(p.keys.k[k]));
			for (i = 0; i < p.nrows; i++)
				if ((int)strlen(rows[i].fields[k]) > w[k])
					w[k] = (int)strlen(rows[i].fields[k]);
			if (w[k] > 40)
				w[k] = 40;
		}
		out = capture(print, &a);
		for (i = 0; i < p.nrows; i++) {
			printf_row(buf, sizeof(buf), &p, &rows[i], w);
			if (!strstr(out, buf))
				fail_msg("round %u, row %zu: no line \"%.120s\"", round, i, buf + 1);
		}
		free(out);
	}
}

static void comparison_joins_rows(void **state)
{
	struct eq_profile *t = small_profile(EQP_MODE_TIME), *e = small_profile(EQP_MODE_ENERGY);
	struct eq_comparison *c = eq_compare(t, e, "t.eqp", "e.eqp", EQ_IV_SAMPLING);

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->nrows, 2);
	assert_string_equal(c->rows[0].name, "f,g");
	assert_int_equal(c->rows[0].time_samples, 3);
	assert_int_equal(c->rows[0].energy_samples, 3);
	assert_true(c->rows[0].difference == 0.0 && !c->rows[0].significant);
	eq_comparison_free(c);
	eq_profile_free(t);
	eq_profile_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quoting_and_escaping),
		cmocka_unit_test(format_names),
		cmocka_unit_test(profile_in_three_formats),
		cmocka_unit_test(rows_as_printf),
		cmocka_unit_test(comparison_joins_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
