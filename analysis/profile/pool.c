/*
 * pool.c - several recordings of the same work as one profile
 * (eq_profile_pool in profile.h): each recording one batch of the
 * run-to-run interval.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/bigarr.h"
#include "profile/agg.h"

struct pool_ref {
	const struct eq_row *r;
	size_t prof;
};

static int by_ref_name(const void *x, const void *y)
{
	const struct pool_ref *a = x, *b = y;
	int c = strcmp(a->r->name, b->r->name);

	if (!c)
		c = strcmp(a->r->module, b->r->module);
	return c ? c : (a->prof > b->prof) - (a->prof < b->prof);
}

/* One pooled row from the refs of one (name, module); k and v: scratch. */
static void pool_row(struct eq_profile *p, struct eq_profile *const *profs, size_t np,
		     const struct pool_ref *g, size_t ng, struct eq_row *r, double *k, double *m)
{
	double M = (double)p->total_samples, pr, vs = 0, v, s0, s1;
	size_t j;

	memset(k, 0, np * sizeof(*k));
	r->name = g[0].r->name;
	r->module = g[0].r->module;
	r->loc = g[0].r->loc;
	memcpy(r->fields, g[0].r->fields, sizeof(r->fields));
	r->amount = 0;
	for (j = 0; j < ng; j++) {
		k[g[j].prof] += (double)g[j].r->samples;
		r->samples += g[j].r->samples;
		r->amount += g[j].r->amount;
	}
	for (j = 0; j < np; j++)
		m[j] = (double)profs[j]->total_samples;
	r->share = pr = M > 0 ? (double)r->samples / M : 0;
	/* This run's (these runs') shares: the recordings' sampling variances. */
	for (j = 0; j < ng; j++) {
		const struct eq_profile *q = profs[g[j].prof];
		double pj = (double)g[j].r->samples / (double)q->total_samples;

		vs += g[j].r->deff_sampling * pj * (1 - pj) * (double)q->total_samples;
	}
	/* A recording without the row has no sampling error for it but the
	 * binomial floor of a count of 0 (Wilson below). */
	r->deff_sampling = pr > 0 && pr < 1 ? vs / (M * pr * (1 - pr)) : 1;
	r->deff_sampling = eq_small_count_floor(r->deff_sampling, r->samples, p->total_samples);
	/* Another run's: each recording one batch. */
	v = eq_batch_var(k, m, (unsigned)np, pr, &s0, &s1);
	r->deff_run = pr > 0 && pr < 1 && isfinite(v) ? v / (pr * (1 - pr) / M) : 1;
	r->deff_run = eq_small_count_floor(r->deff_run, r->samples, p->total_samples);
	r->df_run = (unsigned)np - 1;
}

struct eq_profile *eq_profile_pool(struct eq_profile *const *profs, size_t np,
				   struct eq_error *err)
{
	struct eq_profile *p = calloc(1, sizeof(*p));
	struct pool_ref *refs = NULL;
	double *scratch = NULL;
	size_t nref = 0, i, j, g;

	for (i = 0; i < np; i++)
		nref += profs[i]->nrows;
	if (p) {
		p->rows = eq_big_calloc(nref, sizeof(*p->rows));   /* eq_profile_free's */
		refs = malloc((nref ? nref : 1) * sizeof(*refs));
		scratch = malloc(2 * (np ? np : 1) * sizeof(*scratch));
	}
	if (!p || !p->rows || !refs || !scratch) {
		free(refs);
		free(scratch);
		eq_profile_free(p);
		eq_fail(err, "pooling %zu profiles: out of memory", np);
		return NULL;
	}
	p->by = profs[0]->by;
	p->mode = profs[0]->mode;
	p->quantum_j = profs[0]->quantum_j;
	p->period_s = profs[0]->period_s;
	p->exclude_idle = profs[0]->exclude_idle;
	p->keys = profs[0]->keys;
	p->filtered = profs[0]->filtered;
	p->filter_relative = profs[0]->filter_relative;
	p->ordered = 1;
	for (i = 0; i < np; i++) {
		const struct eq_profile *q = profs[i];
		double per = q->mode == EQP_MODE_ENERGY ? q->quantum_j : q->period_s;

		/* NaN once one recording's quantum or rate is unknown */
		p->pooled_amount += per > 0 ? per * (double)q->total_samples : NAN;
		p->total_samples += q->total_samples;
		p->idle_samples += q->idle_samples;
		p->lost_samples += q->lost_samples;
		p->lost_marks += q->lost_marks;
		p->filtered_samples += q->filtered_samples;
		p->ordered &= q->ordered;
		if (q->quantum_j != p->quantum_j)
			p->quantum_j = 0;  /* no one quantum: amounts per row still add up */
		if (q->period_s != p->period_s)
			p->period_s = 0;
		for (j = 0; j < q->nrows; j++)
			refs[p->nrows++] = (struct pool_ref){ .r = &q->rows[j], .prof = i };
	}
	qsort(refs, p->nrows, sizeof(*refs), by_ref_name);
	for (i = 0, g = 0; i < p->nrows; i = j) {
		for (j = i + 1; j < p->nrows && !strcmp(refs[j].r->name, refs[i].r->name) &&
		     !strcmp(refs[j].r->module, refs[i].r->module); j++)
			;
		pool_row(p, profs, np, &refs[i], j - i, &p->rows[g++], scratch, scratch + np);
	}
	p->nrows = g;
	if (!(p->pooled_amount > 0))
		p->pooled_amount = 0;
	p->recordings = (unsigned)np;
	p->batches = (unsigned)np;
	free(refs);
	free(scratch);
	eq_profile_set_interval(p, EQ_IV_RUN);
	eq_rows_sort(p->rows, p->nrows);
	return p;
}
