/*
 * diff.c - two sets of runs compared row by row; the model is in diff.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/compare.h"
#include "profile/diff.h"
#include "profile/stats.h"
#include "util/units.h"

static double per_sample(const struct eq_profile *p)
{
	return p->mode == EQP_MODE_ENERGY ? p->quantum_j : p->period_s;
}

/* Mean and variance of the mean of the recordings' totals; sd gets their SD. */
static int side_total(struct eq_profile *const *v, size_t n, double *mean, double *var_mean,
		      double *sd, struct eq_error *err)
{
	double s = 0, s2 = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double q = per_sample(v[i]);

		if (!(q > 0) || !isfinite(q))
			return eq_fail(err, "a recording has no known %s per sample; diff needs "
				       "amounts (record with a known quantum or rate)",
				       v[i]->mode == EQP_MODE_ENERGY ? "energy" : "time");
		s += (double)v[i]->total_samples * q;
	}
	*mean = s / (double)n;
	for (i = 0; i < n; i++) {
		double x = (double)v[i]->total_samples * per_sample(v[i]) - *mean;

		s2 += x * x;
	}
	*sd = n > 1 ? sqrt(s2 / (double)(n - 1)) : NAN;
	*var_mean = n > 1 ? s2 / (double)(n - 1) / (double)n : 0;
	return 0;
}

struct side {
	const struct eq_profile *pooled;
	double total, var_total;
	unsigned runs;
};

/* Welch-Satterthwaite: the sum of parts v[i] with df[i] (0: known). */
static double welch_df(const double *v, const double *df, size_t n)
{
	double num = 0, den = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		num += v[i];
		if (df[i] > 0)
			den += v[i] * v[i] / df[i];
	}
	if (!(den > 0))
		return 0;  /* every part known: the normal */
	return num * num / den;
}

static void fill(struct eq_diff_row *r, const struct eq_row *ra, const struct eq_row *rb,
		 const struct side *A, const struct side *B, enum eq_interval iv)
{
	const struct eq_row *any = ra ? ra : rb;
	double na = (double)A->pooled->total_samples, nb = (double)B->pooled->total_samples;
	double ka, kb, p0, da, db, v[4], dfv[4], var, crit;
	unsigned dfa, dfb;

	memset(r, 0, sizeof(*r));
	r->name = any->name;
	r->module = any->module;
	r->fields = any->fields;
	r->samples_a = ra ? ra->samples : 0;
	r->samples_b = rb ? rb->samples : 0;
	ka = (double)r->samples_a;
	kb = (double)r->samples_b;
	r->share_a = na > 0 ? ka / na : 0;
	r->share_b = nb > 0 ? kb / nb : 0;
	r->amount_a = A->total * r->share_a;
	r->amount_b = B->total * r->share_b;
	r->change = r->amount_b - r->amount_a;
	r->relative = r->amount_a > 0 ? r->change / r->amount_a : NAN;
	da = eq_row_deff(ra, iv, &dfa);
	db = eq_row_deff(rb, iv, &dfb);
	r->share_significant = eq_shares_differ(kb, nb, db, dfb, ka, na, da, dfa, &r->share_z);
	p0 = na + nb > 0 ? (ka + kb) / (na + nb) : 0;
	v[0] = na > 0 ? A->total * A->total * p0 * (1 - p0) * da / na : 0;
	v[1] = nb > 0 ? B->total * B->total * p0 * (1 - p0) * db / nb : 0;
	v[2] = r->share_a * r->share_a * A->var_total;
	v[3] = r->share_b * r->share_b * B->var_total;
	dfv[0] = dfa;
	dfv[1] = dfb;
	dfv[2] = A->runs > 1 ? A->runs - 1 : 0;
	dfv[3] = B->runs > 1 ? B->runs - 1 : 0;
	var = v[0] + v[1] + v[2] + v[3];
	r->df = welch_df(v, dfv, 4);
	if (r->df > 0 && r->df < 1)
		r->df = 1;
	if (var > 0) {
		r->t = r->change / sqrt(var);
		r->p = eq_t_pvalue(r->t, r->df);
		crit = r->df > 0 ? eq_t95(r->df < 1e6 ? (unsigned)r->df : 0) : EQ_Z95;
		r->change_low = r->change - crit * sqrt(var);
		r->change_high = r->change + crit * sqrt(var);
	} else {
		/* the row is in no sample of either side */
		r->t = 0;
		r->p = 1;
		r->change_low = r->change_high = r->change;
	}
}

static int by_change(const void *x, const void *y)
{
	const struct eq_diff_row *a = x, *b = y;
	double fa = fabs(a->change), fb = fabs(b->change);
	int c;

	if (fa != fb)
		return fa > fb ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module, b->module);
}

struct eq_diff *eq_diff_build(struct eq_profile *const *a, size_t na, const struct eq_profile *pa,
			      struct eq_profile *const *b, size_t nb, const struct eq_profile *pb,
			      enum eq_interval iv, int per_row, struct eq_error *err)
{
	struct eq_diff *d = calloc(1, sizeof(*d));
	const struct eq_row **va = NULL, **vb = NULL;
	struct side A = { .pooled = pa, .runs = (unsigned)na }, B = { .pooled = pb, .runs = (unsigned)nb };
	double *p = NULL;
	int *sig = NULL;
	size_t i = 0, j = 0;

	if (!d)
		goto oom;
	d->by = pa->by;
	d->keys = pa->keys;
	d->mode = pa->mode;
	d->exclude_idle = pa->exclude_idle;
	d->interval = iv;
	d->per_row = per_row;
	d->runs_a = (unsigned)na;
	d->runs_b = (unsigned)nb;
	if (side_total(a, na, &A.total, &A.var_total, &d->sd_a, err) ||
	    side_total(b, nb, &B.total, &B.var_total, &d->sd_b, err)) {
		free(d);
		return NULL;
	}
	d->total_a = A.total;
	d->total_b = B.total;
	d->change = B.total - A.total;
	d->change_low = d->change_high = d->change_df = d->change_p = NAN;
	if (na > 1 && nb > 1) {
		double v[2] = { A.var_total, B.var_total }, dfv[2] = { (double)na - 1, (double)nb - 1 };
		double se = sqrt(v[0] + v[1]), crit;

		d->change_known = 1;
		d->change_df = welch_df(v, dfv, 2);
		if (se > 0) {
			crit = eq_t95(d->change_df >= 1 ? (unsigned)d->change_df : 1);
			d->change_low = d->change - crit * se;
			d->change_high = d->change + crit * se;
			d->change_p = eq_t_pvalue(d->change / se, d->change_df >= 1 ? d->change_df : 1);
		} else {
			d->change_low = d->change_high = d->change;
			d->change_p = d->change ? 0 : 1;
		}
		d->change_significant = d->change_p < 0.05;
	}
	va = eq_rows_by_name(pa);
	vb = eq_rows_by_name(pb);
	d->rows = calloc(pa->nrows + pb->nrows + 1, sizeof(*d->rows));
	if (!va || !vb || !d->rows)
		goto oom;
	while (i < pa->nrows || j < pb->nrows) {
		int c = i == pa->nrows ? 1 : j == pb->nrows ? -1 : eq_row_by_name(&va[i], &vb[j]);

		if (c == 0)
			fill(&d->rows[d->nrows++], va[i++], vb[j++], &A, &B, iv);
		else if (c < 0)
			fill(&d->rows[d->nrows++], va[i++], NULL, &A, &B, iv);
		else
			fill(&d->rows[d->nrows++], NULL, vb[j++], &A, &B, iv);
	}
	p = malloc((d->nrows ? d->nrows : 1) * sizeof(*p));
	sig = malloc((d->nrows ? d->nrows : 1) * sizeof(*sig));
	if (!p || !sig)
		goto oom;
	for (i = 0; i < d->nrows; i++)
		p[i] = d->rows[i].p;
	if (per_row)
		for (i = 0; i < d->nrows; i++)
			sig[i] = d->rows[i].p < 0.05;
	else
		eq_holm(p, d->nrows, 0.05, sig);
	for (i = 0; i < d->nrows; i++) {
		d->rows[i].significant = sig[i];
		d->nflagged += (size_t)sig[i];
	}
	if (d->nrows)
		qsort(d->rows, d->nrows, sizeof(*d->rows), by_change);
	free(p);
	free(sig);
	free(va);
	free(vb);
	return d;
oom:
	free(p);
	free(sig);
	free(va);
	free(vb);
	eq_diff_free(d);
	eq_fail(err, "diff: out of memory");
	return NULL;
}

void eq_diff_free(struct eq_diff *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d);
}

/* ---- output ----------------------------------------------------------------- */

static const char *unit(const struct eq_diff *d)
{
	return d->mode == EQP_MODE_ENERGY ? "J" : "s";
}

static int shown(const struct eq_diff_row *r, double percent_limit)
{
	return !(percent_limit > 0) || 100 * r->share_a >= percent_limit ||
	       100 * r->share_b >= percent_limit;
}

/* "+1.23 mJ" with the sign always shown. */
static const char *signed_q(char *buf, size_t n, double v, const char *u)
{
	char q[32];

	if (!isfinite(v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	eq_format_quantity(q, sizeof(q), fabs(v), u);
	snprintf(buf, n, "%s%s", v < 0 ? "-" : v > 0 ? "+" : "", q);
	return buf;
}

static void row_label(FILE *out, const struct eq_diff *d, const struct eq_diff_row *r)
{
	unsigned k;

	if (!d->keys.n) {
		fprintf(out, eq_by_module_column(d->by) ? "%-20s %s" : "%.0s%s", r->module, r->name);
		return;
	}
	for (k = 0; k < d->keys.n; k++)
		fprintf(out, "%s%s", k ? "  " : "", r->fields[k]);
}

static void print_table(FILE *out, const struct eq_diff *d, const char *sa, const char *sb,
			double percent_limit)
{
	const char *what = d->mode == EQP_MODE_ENERGY ? "energy" : "time";
	char b1[48], b2[48], b3[48], b4[48];
	size_t i;
	unsigned k;

	fprintf(out, "# %s diff by %s: B = %s against A = %s\n", what,
		d->keys.n ? "sort keys" : eq_by_name(d->by), sb, sa);
	fprintf(out, "# A: %s a run", eq_format_quantity(b1, sizeof(b1), d->total_a, unit(d)));
	if (d->runs_a > 1)
		fprintf(out, " (mean of %u runs, SD %s)", d->runs_a,
			eq_format_quantity(b2, sizeof(b2), d->sd_a, unit(d)));
	fprintf(out, "; B: %s a run", eq_format_quantity(b1, sizeof(b1), d->total_b, unit(d)));
	if (d->runs_b > 1)
		fprintf(out, " (mean of %u runs, SD %s)", d->runs_b,
			eq_format_quantity(b2, sizeof(b2), d->sd_b, unit(d)));
	fputc('\n', out);
	fprintf(out, "# total: %s (%+.2f%%)", signed_q(b1, sizeof(b1), d->change, unit(d)),
		d->total_a > 0 ? 100 * d->change / d->total_a : NAN);
	if (d->change_known)
		fprintf(out, ", 95%% CI [%s, %s]: %s\n", signed_q(b2, sizeof(b2), d->change_low, unit(d)),
			signed_q(b3, sizeof(b3), d->change_high, unit(d)),
			!d->change_significant ? "no significant change" :
			d->change < 0 ? (d->mode == EQP_MODE_ENERGY ? "B uses less energy" : "B takes less time") :
			(d->mode == EQP_MODE_ENERGY ? "B uses more energy" : "B takes more time"));
	else
		fputs(": no interval with one recording on a side (the totals' run-to-run spread "
		      "is unknown: record each side twice or more and give all the recordings)\n", out);
	fprintf(out, "# rows: change per run B - A with its 95%% interval (%s design effects",
		eq_interval_name(d->interval));
	if (!d->change_known)
		fputs("; totals taken as exact", out);
	fputs(")\n", out);
	if (d->per_row)
		fprintf(out, "# * = significant at 95%% per row: expect 5%% of unchanged rows flagged "
			"(%zu of %zu flagged)\n", d->nflagged, d->nrows);
	else
		fprintf(out, "# * = significant, family-wise 5%% (Holm over %zu rows): no unchanged row "
			"flagged in 95%% of diffs (%zu flagged)\n", d->nrows, d->nflagged);
	fprintf(out, "%11s  %-25s %8s %8s %8s %11s %11s  ", "change", "95% CI of change", "rel",
		"share A", "share B", "A", "B");
	if (d->keys.n)
		for (k = 0; k < d->keys.n; k++)
			fprintf(out, "%s%s", k ? "  " : "", eq_key_name(d->keys.k[k]));
	else
		fprintf(out, eq_by_module_column(d->by) ? "%-20s %s" : "%.0s%s", "module", eq_by_name(d->by));
	fputc('\n', out);
	for (i = 0; i < d->nrows; i++) {
		const struct eq_diff_row *r = &d->rows[i];
		char ci[64], rel[16];

		if (!shown(r, percent_limit))
			continue;
		snprintf(ci, sizeof(ci), "[%s, %s]", signed_q(b1, sizeof(b1), r->change_low, unit(d)),
			 signed_q(b2, sizeof(b2), r->change_high, unit(d)));
		if (isfinite(r->relative))
			snprintf(rel, sizeof(rel), "%+.1f%%", 100 * r->relative);
		else
			snprintf(rel, sizeof(rel), "new");
		fprintf(out, "%10s%c  %-25s %8s %7.2f%% %7.2f%% %11s %11s  ",
			signed_q(b3, sizeof(b3), r->change, unit(d)), r->significant ? '*' : ' ', ci, rel,
			100 * r->share_a, 100 * r->share_b,
			eq_format_quantity(b4, sizeof(b4), r->amount_a, unit(d)),
			eq_format_quantity(b1, sizeof(b1), r->amount_b, unit(d)));
		row_label(out, d, r);
		fputc('\n', out);
	}
}

static void print_csv(FILE *out, const struct eq_diff *d, double percent_limit)
{
	const char *u = d->mode == EQP_MODE_ENERGY ? "j" : "s";
	size_t i;
	unsigned k;

	for (k = 0; k < d->keys.n; k++)
		fprintf(out, "%s,", eq_key_name(d->keys.k[k]));
	if (!d->keys.n)
		fputs("name,module,", out);
	fprintf(out, "samples_a,samples_b,share_a,share_b,a_%s,b_%s,change_%s,change_low_%s,"
		"change_high_%s,relative,t,df,p,significant,share_z,share_significant\n", u, u, u, u, u);
	for (i = 0; i < d->nrows; i++) {
		const struct eq_diff_row *r = &d->rows[i];

		if (!shown(r, percent_limit))
			continue;
		for (k = 0; k < d->keys.n; k++) {
			eq_csv_field(out, r->fields[k]);
			fputc(',', out);
		}
		if (!d->keys.n) {
			eq_csv_field(out, r->name);
			fputc(',', out);
			eq_csv_field(out, r->module);
			fputc(',', out);
		}
		fprintf(out, "%llu,%llu,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,",
			(unsigned long long)r->samples_a, (unsigned long long)r->samples_b, r->share_a,
			r->share_b, r->amount_a, r->amount_b, r->change, r->change_low, r->change_high);
		if (isfinite(r->relative))
			fprintf(out, "%.10g", r->relative);
		fprintf(out, ",%.10g,%.10g,%.10g,%d,%.10g,%d\n", r->t, r->df, r->p, r->significant,
			r->share_z, r->share_significant);
	}
}

static void json_num(FILE *out, const char *key, double v)
{
	fprintf(out, ", \"%s\": ", key);
	eq_json_number(out, v);
}

static void print_json(FILE *out, const struct eq_diff *d, const char *sa, const char *sb,
		       double percent_limit)
{
	const char *u = d->mode == EQP_MODE_ENERGY ? "j" : "s";
	char key[32];
	size_t i, n = 0;
	unsigned k;

	fprintf(out, "{\"mode\": \"%s\", \"by\": \"%s\", \"a\": ",
		d->mode == EQP_MODE_ENERGY ? "energy" : "time", eq_by_name(d->by));
	eq_json_string(out, sa);
	fputs(", \"b\": ", out);
	eq_json_string(out, sb);
	fprintf(out, ", \"runs_a\": %u, \"runs_b\": %u, \"interval\": \"%s\", \"flags\": \"%s\"",
		d->runs_a, d->runs_b, eq_interval_name(d->interval), d->per_row ? "per-row" : "holm");
	if (d->keys.n) {
		fputs(", \"sort\": [", out);
		for (k = 0; k < d->keys.n; k++)
			fprintf(out, "%s\"%s\"", k ? ", " : "", eq_key_name(d->keys.k[k]));
		fputc(']', out);
	}
	fputs(",\n \"total\": {", out);
	snprintf(key, sizeof(key), "a_%s", u);
	fprintf(out, "\"%s\": ", key);
	eq_json_number(out, d->total_a);
	snprintf(key, sizeof(key), "b_%s", u);
	json_num(out, key, d->total_b);
	json_num(out, "sd_a", d->sd_a);
	json_num(out, "sd_b", d->sd_b);
	snprintf(key, sizeof(key), "change_%s", u);
	json_num(out, key, d->change);
	json_num(out, "change_low", d->change_low);
	json_num(out, "change_high", d->change_high);
	json_num(out, "df", d->change_df);
	json_num(out, "p", d->change_p);
	fprintf(out, ", \"significant\": %s}", !d->change_known ? "null" :
		d->change_significant ? "true" : "false");
	fprintf(out, ",\n \"flagged\": %zu, \"rows\": [", d->nflagged);
	for (i = 0; i < d->nrows; i++) {
		const struct eq_diff_row *r = &d->rows[i];

		if (!shown(r, percent_limit))
			continue;
		fputs(n++ ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		eq_json_string(out, r->name);
		fputs(", \"module\": ", out);
		eq_json_string(out, r->module);
		if (d->keys.n) {
			fputs(", \"keys\": {", out);
			for (k = 0; k < d->keys.n; k++) {
				fprintf(out, "%s\"%s\": ", k ? ", " : "", eq_key_name(d->keys.k[k]));
				eq_json_string(out, r->fields[k]);
			}
			fputc('}', out);
		}
		fprintf(out, ", \"samples_a\": %llu, \"samples_b\": %llu",
			(unsigned long long)r->samples_a, (unsigned long long)r->samples_b);
		json_num(out, "share_a", r->share_a);
		json_num(out, "share_b", r->share_b);
		snprintf(key, sizeof(key), "a_%s", u);
		json_num(out, key, r->amount_a);
		snprintf(key, sizeof(key), "b_%s", u);
		json_num(out, key, r->amount_b);
		snprintf(key, sizeof(key), "change_%s", u);
		json_num(out, key, r->change);
		json_num(out, "change_low", r->change_low);
		json_num(out, "change_high", r->change_high);
		json_num(out, "relative", r->relative);
		json_num(out, "t", r->t);
		json_num(out, "df", r->df);
		json_num(out, "p", r->p);
		fprintf(out, ", \"significant\": %s", r->significant ? "true" : "false");
		json_num(out, "share_z", r->share_z);
		fprintf(out, ", \"share_significant\": %s}", r->share_significant ? "true" : "false");
	}
	fputs(n ? "\n ]}\n" : "]}\n", out);
}

void eq_diff_print(FILE *out, const struct eq_diff *d, enum eq_format fmt,
		   const char *source_a, const char *source_b, double percent_limit)
{
	if (fmt == EQ_FMT_JSON)
		print_json(out, d, source_a, source_b, percent_limit);
	else if (fmt == EQ_FMT_CSV)
		print_csv(out, d, percent_limit);
	else
		print_table(out, d, source_a, source_b, percent_limit);
}
