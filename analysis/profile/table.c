/*
 * table.c - profile output as an aligned table, CSV or JSON.
 */
#include <math.h>
#include <string.h>

#include "profile/table.h"
#include "states/split.h"
#include "util/fmtnum.h"
#include "util/units.h"

/*
 * The run-to-run interval over the sampling one, per row (half-widths go
 * as the square root of the design effects): the most the batch means can
 * overstate another run's spread when the work's slow variation is phases
 * that another run repeats (an exact repeat differs only by sampling).
 * Rows of at least 10 samples and a share below 1; 0 when there is none.
 */
static int overwidth(const struct eq_profile *p, double *lo, double *hi)
{
	size_t i;
	int n = 0;

	*lo = INFINITY;
	*hi = 0;
	for (i = 0; i < p->nrows; i++) {
		const struct eq_row *r = &p->rows[i];
		double x;

		if (r->samples < 10 || !(r->share < 1) || !(r->deff_sampling > 0) || !(r->deff_run > 0))
			continue;
		x = sqrt(r->deff_run / r->deff_sampling);
		*lo = fmin(*lo, x);
		*hi = fmax(*hi, x);
		n++;
	}
	return n;
}

int eq_format_parse(const char *text, enum eq_format *fmt, struct eq_error *err)
{
	if (!strcmp(text, "table"))
		*fmt = EQ_FMT_TABLE;
	else if (!strcmp(text, "csv"))
		*fmt = EQ_FMT_CSV;
	else if (!strcmp(text, "json"))
		*fmt = EQ_FMT_JSON;
	else
		return eq_fail(err, "--format %s: unknown output format; use table, csv or json",
			       text);
	return 0;
}

void eq_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void eq_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		size_t run = 0;

		/* the characters that need no escape go out in one piece */
		while (s[run] && s[run] != '"' && s[run] != '\\' && (unsigned char)s[run] >= 0x20)
			run++;
		fwrite(s, 1, run, out);
		s += run;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else
			fprintf(out, "\\u%04x", (unsigned char)*s);
		s++;
	}
	fputc('"', out);
}

void eq_json_number(FILE *out, double v)
{
	char b[EQ_FMTNUM_SIZE];

	if (isfinite(v))
		fwrite(b, 1, eq_fmt_g(b, v, 15), out);  /* "%.15g" */
	else
		fputs("null", out);
}

static const char *amount_key(const struct eq_profile *p)
{
	return p->mode == EQP_MODE_ENERGY ? "energy_j" : "time_s";
}

/* ",%llu,%.8f,[%.10g],%.8f,%.8f\n" of a row's numbers (fmtnum.h: printf's
 * bytes), written at once */
static void print_csv_numbers(FILE *out, const struct eq_row *r)
{
	char line[5 * EQ_FMTNUM_SIZE + 8], *d = line;

	*d++ = ',';
	d += eq_fmt_u64(d, r->samples);
	*d++ = ',';
	d += eq_fmt_fixed(d, r->share, 8);
	*d++ = ',';
	if (isfinite(r->amount))
		d += eq_fmt_g(d, r->amount, 10);
	*d++ = ',';
	d += eq_fmt_fixed(d, r->ci95_low, 8);
	*d++ = ',';
	d += eq_fmt_fixed(d, r->ci95_high, 8);
	*d++ = '\n';
	fwrite(line, 1, (size_t)(d - line), out);
}

static void print_csv(FILE *out, const struct eq_profile *p)
{
	size_t i;
	unsigned k;

	/* with sort keys: a column per key where name and module would be */
	for (k = 0; k < p->keys.n; k++)
		fprintf(out, "%s,", eq_key_name(p->keys.k[k]));
	if (!p->keys.n)
		fputs("name,module,", out);
	fprintf(out, "samples,share,%s,ci95_low,ci95_high\n", amount_key(p));
	for (i = 0; i < p->nrows; i++) {
		const struct eq_row *r = &p->rows[i];

		for (k = 0; k < p->keys.n; k++) {
			eq_csv_field(out, r->fields[k]);
			if (k + 1 < p->keys.n)
				fputc(',', out);
		}
		if (!p->keys.n) {
			eq_csv_field(out, r->name);
			fputc(',', out);
			eq_csv_field(out, r->module);
		}
		print_csv_numbers(out, r);
	}
}

static void print_json_row(FILE *out, const struct eq_profile *p, const struct eq_row *r)
{
	fputs("{\"name\": ", out);
	eq_json_string(out, r->name);
	fputs(", \"module\": ", out);
	eq_json_string(out, r->module);
	fprintf(out, ", \"samples\": %llu, \"share\": ", (unsigned long long)r->samples);
	eq_json_number(out, r->share);
	fprintf(out, ", \"%s\": ", amount_key(p));
	eq_json_number(out, r->amount);
	fputs(", \"ci95_low\": ", out);
	eq_json_number(out, r->ci95_low);
	fputs(", \"ci95_high\": ", out);
	eq_json_number(out, r->ci95_high);
	fputs(", \"deff\": ", out);
	eq_json_number(out, p->interval == EQ_IV_RUN ? r->deff_run : r->deff_sampling);
	if (p->keys.n) {
		unsigned k;

		fputs(", \"keys\": {", out);
		for (k = 0; k < p->keys.n; k++) {
			fprintf(out, "%s\"%s\": ", k ? ", " : "", eq_key_name(p->keys.k[k]));
			eq_json_string(out, r->fields[k]);
		}
		fputc('}', out);
	}
	if (p->by == EQ_BY_LINE && r->loc->file) {
		fputs(", \"file\": ", out);
		eq_json_string(out, r->loc->file);
		fprintf(out, ", \"line\": %u", r->loc->line);
	}
	if (p->by == EQ_BY_INSN && r->loc->kind != EQ_LOC_IDLE)
		fprintf(out, ", \"offset\": %llu", (unsigned long long)r->loc->module_off);
	if ((p->by == EQ_BY_PID || p->by == EQ_BY_THREAD) && r->loc->kind != EQ_LOC_IDLE)
		fprintf(out, ", \"pid\": %u", r->pid);
	if (p->by == EQ_BY_THREAD && r->loc->kind != EQ_LOC_IDLE)
		fprintf(out, ", \"tid\": %u", r->tid);
	fputc('}', out);
}

static void print_json(FILE *out, const struct eq_profile *p)
{
	size_t i;

	fprintf(out, "{\"mode\": \"%s\", \"by\": \"%s\", ",
		p->mode == EQP_MODE_ENERGY ? "energy" : "time", eq_by_name(p->by));
	if (p->mode == EQP_MODE_ENERGY) {
		fputs("\"quantum_j\": ", out);
		eq_json_number(out, p->quantum_j > 0 ? p->quantum_j : NAN);
	} else {
		fputs("\"period_s\": ", out);
		eq_json_number(out, p->period_s > 0 ? p->period_s : NAN);
	}
	fprintf(out, ", \"total_samples\": %llu, \"idle_samples\": %llu, "
		"\"lost_samples\": %llu, \"lost_marks\": %llu, \"exclude_idle\": %s, \"skipped\": ",
		(unsigned long long)p->total_samples, (unsigned long long)p->idle_samples,
		(unsigned long long)p->lost_samples, (unsigned long long)p->lost_marks,
		p->exclude_idle ? "true" : "false");
	eqp_skipped_json(out, &p->skipped);
	fprintf(out, ",\n \"unresolved_samples\": %llu, \"unresolved\": [",
		(unsigned long long)p->unresolved_samples);
	for (i = 0; i < p->nunresolved; i++) {
		fputs(i ? ", {\"module\": " : "{\"module\": ", out);
		eq_json_string(out, p->unresolved[i].module);
		fprintf(out, ", \"samples\": %llu, \"why\": ",
			(unsigned long long)p->unresolved[i].samples);
		if (p->unresolved[i].why)
			eq_json_string(out, p->unresolved[i].why);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("],\n", out);
	fprintf(out, " \"interval\": \"%s\", \"interval_method\": \"%s\", \"recordings\": %u, "
		"\"batches\": %u, \"batch_s\": ", eq_interval_name(p->interval), eq_interval_method(p),
		p->recordings ? p->recordings : 1, p->batches);
	eq_json_number(out, p->batch_s > 0 ? p->batch_s : NAN);
	fputs(", \"batch_lag1\": ", out);
	eq_json_number(out, p->batches && !p->recordings ? p->batch_lag1 : NAN);
	{
		double lo, hi;
		int have = p->batches && !p->recordings && p->interval == EQ_IV_RUN &&
			   p->batch_lag1 > EQ_BATCH_LAG1_WARN && overwidth(p, &lo, &hi);

		fputs(", \"batch_overwidth\": ", out);
		if (have)
			fprintf(out, "[%.6g, %.6g]", lo, hi);
		else
			fputs("null", out);
	}
	if (p->keys.n) {
		unsigned k;

		fputs(",\n \"sort\": [", out);
		for (k = 0; k < p->keys.n; k++)
			fprintf(out, "%s\"%s\"", k ? ", " : "", eq_key_name(p->keys.k[k]));
		fputc(']', out);
	}
	if (p->ranged) {
		fputs(",\n \"from_s\": ", out);
		eq_json_number(out, isfinite(p->range_from_s) ? p->range_from_s : NAN);
		fputs(", \"to_s\": ", out);
		eq_json_number(out, isfinite(p->range_to_s) ? p->range_to_s : NAN);
		if (p->range_name) {
			fputs(", \"region\": ", out);
			eq_json_string(out, p->range_name);
		}
	}
	if (p->filtered)
		fprintf(out, ",\n \"filtered_samples\": %llu, \"percentage\": \"%s\"",
			(unsigned long long)p->filtered_samples,
			p->filter_relative ? "relative" : "absolute");
	fputs(",\n \"rows\": [", out);
	for (i = 0; i < p->nrows; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		print_json_row(out, p, &p->rows[i]);
	}
	fputs(p->nrows ? "\n ]}\n" : "]}\n", out);
}

int eq_profile_uses_symbols(const struct eq_profile *p)
{
	unsigned k, primary;

	if (p->keys.n) {
		for (k = 0; k < p->keys.n; k++)
			if (p->keys.k[k] == EQ_KEY_SYM || p->keys.k[k] == EQ_KEY_SRCLINE ||
			    p->keys.k[k] == EQ_KEY_SRCFILE)
				return 1;
		return 0;
	}
	primary = (unsigned)p->by & EQ_BY_SPLIT ? EQ_BY_PRIMARY(p->by) : (unsigned)p->by;
	return primary == EQ_BY_PROC || primary == EQ_BY_LINE || primary == EQ_BY_INSN;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/*
 * Samples no symbol covers, only when the rows are named by symbols (perf
 * says nothing of symbols in a --sort comm table): one line, the modules
 * most first; with -v a line per module with why.
 */
static void print_unresolved(FILE *out, const struct eq_profile *p)
{
	size_t i, shown = p->nunresolved < 8 ? p->nunresolved : 8;
	uint64_t rest = p->unresolved_samples;

	if (!p->unresolved_samples || !eq_profile_uses_symbols(p))
		return;
	fprintf(out, "# %llu sample%s (%.2f%%) %s no symbol:",
		(unsigned long long)p->unresolved_samples, p->unresolved_samples == 1 ? "" : "s",
		p->total_samples ? 100.0 * (double)p->unresolved_samples / (double)p->total_samples : 0,
		p->unresolved_samples == 1 ? "has" : "have");
	if (!p->verbose) {
		shown = p->nunresolved < 3 ? p->nunresolved : 3;
		for (i = 0; i < shown; i++)
			fprintf(out, "%s %llu in %s", i ? "," : "",
				(unsigned long long)p->unresolved[i].samples,
				base_of(p->unresolved[i].module));
		if (p->nunresolved > shown)
			fprintf(out, " and %zu more module%s", p->nunresolved - shown,
				p->nunresolved - shown == 1 ? "" : "s");
		fputs(" (-v says why)\n", out);
		return;
	}
	fputc('\n', out);
	for (i = 0; i < shown; i++) {
		const struct eq_unresolved *u = &p->unresolved[i];

		fprintf(out, "#   %llu in %s%s%s\n", (unsigned long long)u->samples, u->module,
			u->why ? ": " : "", u->why ? u->why : "");
		rest -= u->samples;
	}
	if (rest)
		fprintf(out, "#   %llu in %zu more modules\n", (unsigned long long)rest,
			p->nunresolved - shown);
}

/* "# samples after 10 s up to 20 s since the first sample (--from/--to)",
 * or "# samples of region 'alpha': after ... (--region alpha: from its
 * marker to the next)" */
static void print_range(FILE *out, const struct eq_profile *p)
{
	fputs("# samples", out);
	if (p->range_name)
		fprintf(out, " of region '%s':", p->range_name);
	if (isfinite(p->range_from_s) && p->range_from_s > 0)
		fprintf(out, " after %.9g s", p->range_from_s);
	else
		fputs(" from the first", out);
	if (isfinite(p->range_to_s))
		fprintf(out, " up to %.9g s", p->range_to_s);
	if (p->range_name)
		fprintf(out, " since the first sample (--region %s: from its marker to %s)\n",
			p->range_name, isfinite(p->range_to_s) ? "the next" : "the end");
	else
		fputs(" since the first sample (--from/--to)\n", out);
}

static void print_heading(FILE *out, const struct eq_profile *p, const char *source)
{
	char q[32], tot[32];
	double per = p->mode == EQP_MODE_ENERGY ? p->quantum_j : p->period_s;
	const char *unit = p->mode == EQP_MODE_ENERGY ? "J" : "s";

	if (p->keys.n) {
		unsigned k;

		fprintf(out, "# %s profile of %s, sorted by ",
			p->mode == EQP_MODE_ENERGY ? "energy" : "time", source);
		for (k = 0; k < p->keys.n; k++)
			fprintf(out, "%s%s", k ? "," : "", eq_key_name(p->keys.k[k]));
		fputc('\n', out);
	} else {
		fprintf(out, "# %s profile by %s of %s\n",
			p->mode == EQP_MODE_ENERGY ? "energy" : "time", eq_by_name(p->by), source);
	}
	if (p->ranged)
		print_range(out, p);
	fprintf(out, "# %llu samples", (unsigned long long)p->total_samples);
	if (per > 0)
		fprintf(out, " x %s = %s", eq_format_quantity(q, sizeof(q), per, unit),
			eq_format_quantity(tot, sizeof(tot),
					   per * (double)p->total_samples, unit));
	else if (p->recordings > 1 && p->pooled_amount > 0)
		/* each recording's quantum or rate is known: rows add up theirs */
		fprintf(out, " of %u recordings with different %s = %s", p->recordings,
			p->mode == EQP_MODE_ENERGY ? "quanta" : "sampling rates",
			eq_format_quantity(tot, sizeof(tot), p->pooled_amount, unit));
	else
		fputs(p->mode == EQP_MODE_ENERGY ? " (quantum unknown: shares only)" :
		      " (sampling rate unknown: shares only)", out);
	fprintf(out, "; idle %llu%s; lost %llu", (unsigned long long)p->idle_samples,
		p->exclude_idle ? " (excluded)" : "", (unsigned long long)p->lost_samples);
	if (p->lost_marks)
		fprintf(out, " (%llu sample%s after a loss)", (unsigned long long)p->lost_marks,
			p->lost_marks == 1 ? "" : "s");
	fputc('\n', out);
	if (p->filtered) {
		uint64_t all = p->total_samples + (p->filter_relative ? p->filtered_samples : 0);

		fprintf(out, "# filtered: %llu sample%s (%.2f%%) left out; shares are of %s\n",
			(unsigned long long)p->filtered_samples, p->filtered_samples == 1 ? "" : "s",
			all ? 100.0 * (double)p->filtered_samples / (double)all : 0,
			p->filter_relative ? "the samples kept (--percentage relative)" :
			"all samples (--percentage absolute)");
	}
	if (p->skipped.chunks || p->skipped.bytes || p->skipped.truncated) {
		char sk[160];

		fprintf(out, "# skipped (not in this profile): %s\n",
			eqp_skipped_line(&p->skipped, sk, sizeof(sk)));
	}
	if (p->note)
		fprintf(out, "# note: %s\n", p->note);
	print_unresolved(out, p);
}

const char *eq_interval_method(const struct eq_profile *p)
{
	if (!p->ordered)
		return "binomial";
	if (p->interval == EQ_IV_SAMPLING)
		return "systematic";
	if (p->recordings > 1)
		return "recordings";
	return p->batches ? "batch-means" : "binomial";
}

void eq_interval_describe(FILE *out, const struct eq_profile *p)
{
	const char *m = eq_interval_method(p);

	if (p->interval == EQ_IV_SAMPLING) {
		fprintf(out, "# 95%% intervals: sampling, this run's share (%s)\n",
			strcmp(m, "binomial") ? "systematic-sampling variance from the samples' "
			"lag-1 correlation; binomial below 10 samples" : "binomial: sample order unknown");
		return;
	}
	if (p->recordings > 1) {
		fprintf(out, "# 95%% intervals: run-to-run, what another run would give (spread of "
			"%u recordings' shares, t with %u df)\n", p->recordings, p->recordings - 1);
		return;
	}
	if (!p->batches) {
		fputs("# 95% intervals: run-to-run, what another run would give (too few samples "
		      "for batch means: binomial, probably too narrow)\n", out);
		return;
	}
	fprintf(out, "# 95%% intervals: run-to-run, what another run would give (batch means: "
		"%u batches", p->batches);
	if (p->batch_s > 0) {
		char q[32];

		fprintf(out, " of %s", eq_format_quantity(q, sizeof(q), p->batch_s, "s"));
	}
	fprintf(out, ", lag-1 correlation %.2f)\n", p->batch_lag1);
	if (p->batch_lag1 > EQ_BATCH_LAG1_WARN) {
		double lo, hi;

		/* Two causes, errors in opposite directions: work that drifts at
		 * random more slowly than the batches (the interval is too narrow),
		 * or phases that another run repeats (too wide: the paper's phased
		 * benchmarks, by 11 to 114 times).  One recording cannot tell them
		 * apart; the bound on the second is the sampling interval's. */
		fputs("# warning: the batches are still correlated: the work changes more slowly than a "
		      "batch. If it runs in phases that another run repeats (a scripted benchmark), "
		      "this interval is too wide", out);
		if (overwidth(p, &lo, &hi))
			fprintf(out, ", by up to %.3gx (%.3gx to %.3gx over the rows: each row's "
				"half-width over its sampling interval's, what an exact repeat would "
				"give)", hi, lo, hi);
		else
			fputs(", by up to its width over the sampling interval's", out);
		fputs("; if it drifts at random, too narrow. For an honest run-to-run interval give "
		      "several recordings (eqprof report run1.eqp run2.eqp ...)\n", out);
	}
}

/* s, then spaces up to width (printf's "%-*s") */
static char *put_left(char *d, const char *s, size_t n, size_t width)
{
	memcpy(d, s, n);
	d += n;
	for (; n < width; n++)
		*d++ = ' ';
	return d;
}

/* spaces, then s, width in all (printf's "%*s") */
static char *put_right(char *d, const char *s, size_t n, size_t width)
{
	for (; n < width; width--)
		*d++ = ' ';
	memcpy(d, s, n);
	return d + n;
}

/* The bytes row_head writes at most: the share and the two bounds at
 * EQ_FMTNUM_SIZE each, the samples, the amount and the spaces. */
#define ROW_HEAD_MAX (3 * EQ_FMTNUM_SIZE + 96)

/* The columns every table row begins with, into d: the bytes of
 *   fprintf("%6.2f%% %12llu %11s  %-17s", 100 share, samples, amount, ci)
 * with ci "[%.2f%%, %.2f%%]" of the bounds in percent, made by fmtnum.h
 * (printf's digits exactly).  Returns their end. */
static char *row_head(char *d, const struct eq_profile *p, const struct eq_row *r)
{
	char num[EQ_FMTNUM_SIZE], ci[2 * EQ_FMTNUM_SIZE + 8], amt[32], *c = ci;
	size_t n;

	if (isfinite(r->amount))
		eq_format_quantity(amt, sizeof(amt), r->amount, p->mode == EQP_MODE_ENERGY ? "J" : "s");
	else
		strcpy(amt, "-");
	*c++ = '[';
	c += eq_fmt_fixed(c, 100 * r->ci95_low, 2);
	memcpy(c, "%, ", 3);
	c += 3;
	c += eq_fmt_fixed(c, 100 * r->ci95_high, 2);
	memcpy(c, "%]", 2);
	c += 2;
	n = eq_fmt_fixed(num, 100 * r->share, 2);
	d = put_right(d, num, n, 6);
	*d++ = '%';
	*d++ = ' ';
	n = eq_fmt_u64(num, r->samples);
	d = put_right(d, num, n, 12);
	*d++ = ' ';
	d = put_right(d, amt, strlen(amt), 11);
	*d++ = ' ';
	*d++ = ' ';
	return put_left(d, ci, (size_t)(c - ci), 17);
}

/* Rows by sort keys: a column per key, each as wide as its widest value
 * (the last one unpadded). */
static void print_keys_table(FILE *out, const struct eq_profile *p)
{
	const char *what = p->mode == EQP_MODE_ENERGY ? "energy" : "time";
	int w[EQ_KEYS_MAX];
	unsigned k;
	size_t i;

	for (k = 0; k < p->keys.n; k++) {
		w[k] = (int)strlen(eq_key_name(p->keys.k[k]));
		for (i = 0; i < p->nrows; i++)
			if ((int)strlen(p->rows[i].fields[k]) > w[k])
				w[k] = (int)strlen(p->rows[i].fields[k]);
		if (w[k] > 40)
			w[k] = 40;
	}
	fprintf(out, "%7s %12s %11s  %-17s", "share", "samples", what, "95% CI of share");
	for (k = 0; k < p->keys.n; k++)
		fprintf(out, "  %-*s", k + 1 < p->keys.n ? w[k] : 0, eq_key_name(p->keys.k[k]));
	fputc('\n', out);
	for (i = 0; i < p->nrows; i++) {
		const struct eq_row *r = &p->rows[i];
		char line[ROW_HEAD_MAX + 1024], *d = row_head(line, p, r);
		size_t n[EQ_KEYS_MAX], room = sizeof(line) - (size_t)(d - line) - 1;

		for (k = 0; k < p->keys.n; k++) {
			size_t pad = k + 1 < p->keys.n ? (size_t)w[k] : 0;

			n[k] = strlen(r->fields[k]);
			if (room < 2 + (n[k] > pad ? n[k] : pad))
				break;
			room -= 2 + (n[k] > pad ? n[k] : pad);
		}
		if (k < p->keys.n) {
			/* long fields: the same in pieces */
			fwrite(line, 1, (size_t)(d - line), out);
			for (k = 0; k < p->keys.n; k++)
				fprintf(out, "  %-*s", k + 1 < p->keys.n ? w[k] : 0, r->fields[k]);
			fputc('\n', out);
			continue;
		}
		for (k = 0; k < p->keys.n; k++) {
			*d++ = ' ';
			*d++ = ' ';
			d = put_left(d, r->fields[k], n[k], k + 1 < p->keys.n ? (size_t)w[k] : 0);
		}
		*d++ = '\n';
		fwrite(line, 1, (size_t)(d - line), out);
	}
}

int eq_by_module_column(enum eq_by by)
{
	unsigned primary = (unsigned)by & EQ_BY_SPLIT ? EQ_BY_PRIMARY(by) : (unsigned)by;

	return primary != EQ_BY_EXE && primary != EQ_BY_NONE;
}

/* A row of the table: row_head's bytes, then those of
 *   fprintf("  [%-20s ]%s\n", module, name)
 * written at once. */
static void print_table_row(FILE *out, const struct eq_profile *p, const struct eq_row *r,
			    int with_module)
{
	char line[ROW_HEAD_MAX + 512], *d = row_head(line, p, r);
	size_t lm = with_module ? strlen(r->module) : 0, ln = strlen(r->name);

	*d++ = ' ';
	*d++ = ' ';
	if ((size_t)(d - line) + lm + ln + 24 > sizeof(line)) {
		/* a long name: the same in pieces */
		fwrite(line, 1, (size_t)(d - line), out);
		if (with_module)
			fprintf(out, "%-20s ", r->module);
		fprintf(out, "%s\n", r->name);
		return;
	}
	if (with_module) {
		d = put_left(d, r->module, lm, 20);
		*d++ = ' ';
	}
	memcpy(d, r->name, ln);
	d += ln;
	*d++ = '\n';
	fwrite(line, 1, (size_t)(d - line), out);
}

static void print_table(FILE *out, const struct eq_profile *p, const char *source)
{
	const char *what = p->mode == EQP_MODE_ENERGY ? "energy" : "time";
	int with_module = eq_by_module_column(p->by);
	size_t i;

	print_heading(out, p, source);
	eq_interval_describe(out, p);
	if (p->keys.n) {
		print_keys_table(out, p);
		return;
	}
	fprintf(out, "%7s %12s %11s  %-17s  ", "share", "samples", what, "95% CI of share");
	if (with_module)
		fprintf(out, "%-20s ", "module");
	fprintf(out, "%s\n", p->by == EQ_BY_MODULE ? "module path" : eq_by_name(p->by));
	for (i = 0; i < p->nrows; i++)
		print_table_row(out, p, &p->rows[i], with_module);
}

void eq_profile_print(FILE *out, const struct eq_profile *p, enum eq_format fmt,
		      const char *source)
{
	switch (fmt) {
	case EQ_FMT_TABLE:
		print_table(out, p, source);
		break;
	case EQ_FMT_CSV:
		print_csv(out, p);
		break;
	case EQ_FMT_JSON:
		print_json(out, p);
		break;
	}
}
