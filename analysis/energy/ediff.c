/*
 * ediff.c - `eqprof diff` in joules for recordings read with an energy
 * source (record -t --energy): each row's joules per run before (A) and
 * after (B), the change and its 95% interval.  See ediff.h.
 */
#include "energy/ediff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stats.h"
#include "profile/table.h"
#include "util/units.h"
#include "util/grow.h"

static const struct ep_domain *domain_named(const struct ep_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ndomains; i++)
		if (!strcmp(p->domains[i].name, name))
			return &p->domains[i];
	return NULL;
}

static const struct ep_row *row_of(const struct ep_domain *d, const char *name, const char *module)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (!strcmp(d->rows[i].name, name) && !strcmp(d->rows[i].module, module))
			return &d->rows[i];
	return NULL;
}

/* A side's mean joules per run of a row, the variance of that mean and its
 * degrees of freedom (0: normal, from one run's sampling SD). */
static void side_stats(struct ep_profile *const *p, size_t n, const char *dom, const char *name,
		       const char *module, double *mean, double *var, unsigned *df)
{
	double sum = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ep_row *r = row_of(domain_named(p[i], dom), name, module);

		sum += r ? r->joules : 0;
	}
	*mean = sum / (double)n;
	if (n == 1) {
		const struct ep_row *r = row_of(domain_named(p[0], dom), name, module);

		*var = r ? r->sd * r->sd : 0;
		*df = 0;
		return;
	}
	for (i = 0; i < n; i++) {
		const struct ep_row *r = row_of(domain_named(p[i], dom), name, module);
		double v = r ? r->joules : 0;

		ss += (v - *mean) * (v - *mean);
	}
	*var = ss / (double)(n - 1) / (double)n;
	*df = (unsigned)(n - 1);
}

static int by_change(const void *x, const void *y)
{
	const struct ep_diff_row *a = x, *b = y;

	if (fabs(a->change) != fabs(b->change))
		return fabs(a->change) < fabs(b->change) ? 1 : -1;
	return strcmp(a->name, b->name);
}

static int add_row(struct ep_diff_domain *dd, size_t *cap, const char *name, const char *module)
{
	size_t i;

	for (i = 0; i < dd->nrows; i++)
		if (!strcmp(dd->rows[i].name, name) && !strcmp(dd->rows[i].module, module))
			return 0;
	if (EQ_GROW(dd->rows, *cap, dd->nrows + 1, 32) < 0)
		return -1;
	memset(&dd->rows[dd->nrows], 0, sizeof(dd->rows[0]));
	dd->rows[dd->nrows].name = name;
	dd->rows[dd->nrows].module = module;
	dd->nrows++;
	return 0;
}

struct ep_diff *ep_diff_build(struct ep_profile *const *a, size_t na, struct ep_profile *const *b,
			      size_t nb, struct eq_error *err)
{
	struct ep_diff *d = calloc(1, sizeof(*d));
	size_t i, j, q, r;

	if (!d || !(d->domains = calloc(a[0]->ndomains ? a[0]->ndomains : 1, sizeof(*d->domains)))) {
		free(d);
		eq_fail(err, "energy diff: out of memory");
		return NULL;
	}
	d->by = a[0]->by;
	d->runs_a = (unsigned)na;
	d->runs_b = (unsigned)nb;
	for (i = 0; i < a[0]->ndomains; i++) {
		struct ep_diff_domain *dd = &d->domains[d->ndomains];
		const char *dom = a[0]->domains[i].name;
		size_t cap = 0;

		for (q = 0; q < na + nb; q++)
			if (!domain_named(q < na ? a[q] : b[q - na], dom))
				break;
		if (q < na + nb)
			continue;  /* not in every recording: not compared */
		d->ndomains++;
		snprintf(dd->name, sizeof(dd->name), "%s", dom);
		snprintf(dd->spec, sizeof(dd->spec), "%s", a[0]->domains[i].spec);
		for (q = 0; q < na + nb; q++) {
			const struct ep_domain *x = domain_named(q < na ? a[q] : b[q - na], dom);

			for (j = 0; j < x->nrows; j++)
				if (add_row(dd, &cap, x->rows[j].name, x->rows[j].module) < 0) {
					ep_diff_free(d);
					eq_fail(err, "energy diff: out of memory");
					return NULL;
				}
		}
		for (r = 0; r < dd->nrows; r++) {
			struct ep_diff_row *o = &dd->rows[r];
			double va, vb, se, v2 = 0, t;
			unsigned dfa, dfb;

			side_stats(a, na, dom, o->name, o->module, &o->a, &va, &dfa);
			side_stats(b, nb, dom, o->name, o->module, &o->b, &vb, &dfb);
			o->change = o->b - o->a;
			se = sqrt(va + vb);
			/* Welch-Satterthwaite over the sides with finite degrees of
			 * freedom; a side of one run counts as normal */
			if (dfa)
				v2 += va * va / dfa;
			if (dfb)
				v2 += vb * vb / dfb;
			o->df = v2 > 0 ? (va + vb) * (va + vb) / v2 : 0;
			t = o->df > 0 ? eq_t95((unsigned)floor(o->df)) : 1.959963984540054;
			/* no spread and no sampling error ([no samples]: its error is
			 * the source's granularity alone): no interval to give */
			o->ci95_low = se > 0 ? o->change - t * se : NAN;
			o->ci95_high = se > 0 ? o->change + t * se : NAN;
			o->significant = se > 0 && (o->ci95_low > 0 || o->ci95_high < 0);
		}
		qsort(dd->rows, dd->nrows, sizeof(*dd->rows), by_change);
	}
	return d;
}

void ep_diff_free(struct ep_diff *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->ndomains; i++)
		free(d->domains[i].rows);
	free(d->domains);
	free(d);
}

static void qty(char *buf, size_t n, double v, int sign)
{
	char q[32];

	eq_format_quantity(q, sizeof(q), fabs(v), "J");
	snprintf(buf, n, "%s%s", sign ? (v < 0 ? "-" : "+") : (v < 0 ? "-" : ""), q);
}

void ep_diff_print_table(FILE *out, const struct ep_diff *d, double percent_limit)
{
	size_t i, r;

	for (i = 0; i < d->ndomains; i++) {
		const struct ep_diff_domain *dd = &d->domains[i];
		double tot = 0;

		for (r = 0; r < dd->nrows; r++)
			tot += fmax(dd->rows[r].a, dd->rows[r].b);
		fprintf(out, "\n# energy diff by %s from %s %s: B - A in joules per run (%u run%s of A, %u of B)\n",
			eq_by_name(d->by), dd->spec, dd->name, d->runs_a, d->runs_a == 1 ? "" : "s", d->runs_b);
		fprintf(out, "# 95%% interval of the change: %s; each row at 95%% (* = the interval excludes 0); the source's update granularity is not in it\n",
			d->runs_a > 1 && d->runs_b > 1 ? "the spread of the runs on each side (Welch)"
			: d->runs_a == 1 && d->runs_b == 1 ? "each run's sampling SD only (give each side several runs for the run-to-run spread)"
			: "the spread of the runs where a side has several, the sampling SD where it has one");
		fprintf(out, "%12s  %-29s %4s %11s %11s   %-20s %s\n", "change", "95% CI of change", "sig", "A",
			"B", "module", eq_by_name(d->by));
		for (r = 0; r < dd->nrows; r++) {
			const struct ep_diff_row *o = &dd->rows[r];
			char c[40], lo[40], hi[40], ci[96], qa[40], qb[40];

			if (tot > 0 && 100 * fmax(o->a, o->b) / tot < percent_limit)
				continue;
			qty(c, sizeof(c), o->change, 1);
			qty(lo, sizeof(lo), o->ci95_low, 1);
			qty(hi, sizeof(hi), o->ci95_high, 1);
			if (isfinite(o->ci95_low))
				snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
			else
				snprintf(ci, sizeof(ci), "n/a");
			qty(qa, sizeof(qa), o->a, 0);
			qty(qb, sizeof(qb), o->b, 0);
			fprintf(out, "%12s  %-29s %4s %11s %11s   %-20s %s\n", c, ci, o->significant ? "*" : "", qa,
				qb, o->module, o->name);
		}
	}
}

static void num(FILE *out, const char *key, double v)
{
	fprintf(out, ", \"%s\": ", key);
	eq_json_number(out, v);
}

void ep_diff_print_json(FILE *out, const struct ep_diff *d)
{
	size_t i, r;

	fprintf(out, "{\"by\": \"%s\", \"runs_a\": %u, \"runs_b\": %u, \"domains\": [", eq_by_name(d->by),
		d->runs_a, d->runs_b);
	for (i = 0; i < d->ndomains; i++) {
		const struct ep_diff_domain *dd = &d->domains[i];

		fprintf(out, "%s\n    {\"domain\": ", i ? "," : "");
		eq_json_string(out, dd->name);
		fputs(", \"source\": ", out);
		eq_json_string(out, dd->spec);
		fputs(", \"rows\": [", out);
		for (r = 0; r < dd->nrows; r++) {
			const struct ep_diff_row *o = &dd->rows[r];

			fputs(r ? ",\n      {\"name\": " : "\n      {\"name\": ", out);
			eq_json_string(out, o->name);
			fputs(", \"module\": ", out);
			eq_json_string(out, o->module);
			num(out, "a_j", o->a);
			num(out, "b_j", o->b);
			num(out, "change_j", o->change);
			num(out, "ci95_low_j", o->ci95_low);
			num(out, "ci95_high_j", o->ci95_high);
			num(out, "df", o->df > 0 ? o->df : NAN);
			fprintf(out, ", \"significant\": %s}", o->significant ? "true" : "false");
		}
		fputs("]}", out);
	}
	fputs("\n  ]}", out);
}
