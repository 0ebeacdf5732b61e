/*
 * eprofile.c - joules per procedure from energy readings taken alongside
 * time-driven samples; see eprofile.h.
 */
#include "energy/eprofile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/callgraph.h"
#include "energy/eseries.h"
#include "symbols/intern.h"
#include "profile/stats.h"
#include "profile/table.h"
#include "util/grow.h"

#define Z95 1.959963984540054

int ep_has_energy(const struct eqp_file *f)
{
	return eqp_nenergy_domains(f) > 0 && eqp_nenergy_readings(f) > 1;
}

/* ---- rows: (name, module) interned pairs -------------------------------- */

struct rowset {
	struct ep_row *v;
	size_t n, cap;
	uint32_t *slots;      /* index + 1 */
	size_t mask;
};

static size_t pair_hash(const void *a, const void *b)
{
	uint64_t x = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)b;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(x ^ (x >> 32));
}

static long row_index(struct rowset *rs, const char *name, const char *module)
{
	size_t j;

	if (2 * (rs->n + 1) > rs->mask) {
		size_t mask = rs->mask ? 2 * rs->mask + 1 : 255, i;
		uint32_t *s = calloc(mask + 1, sizeof(*s));

		if (!s)
			return -1;
		for (i = 0; i < rs->n; i++) {
			for (j = pair_hash(rs->v[i].name, rs->v[i].module) & mask; s[j]; j = (j + 1) & mask)
				;
			s[j] = (uint32_t)(i + 1);
		}
		free(rs->slots);
		rs->slots = s;
		rs->mask = mask;
	}
	for (j = pair_hash(name, module) & rs->mask; rs->slots[j]; j = (j + 1) & rs->mask) {
		struct ep_row *r = &rs->v[rs->slots[j] - 1];

		if (r->name == name && r->module == module)
			return (long)(rs->slots[j] - 1);
	}
	if (EQ_GROW(rs->v, rs->cap, rs->n + 1, 64) < 0)
		return -1;
	rs->v[rs->n] = (struct ep_row){ .name = name, .module = module };
	rs->slots[j] = (uint32_t)(++rs->n);
	return (long)(rs->n - 1);
}

/* The row of a located sample at by, as report names it. */
static int row_name(struct eq_intern *st, const struct eq_loc *loc, enum eq_by by,
		    const char **name, const char **module)
{
	*module = eq_intern(st, loc->module_base ? loc->module_base : "");
	if (loc->kind == EQ_LOC_IDLE) {
		*name = eq_intern(st, loc->proc ? loc->proc : "[idle]");
		return *name && *module ? 0 : -1;
	}
	switch (by) {
	case EQ_BY_EXE:
		*name = eq_intern(st, loc->exe);
		*module = *name;
		break;
	case EQ_BY_MODULE:
		*name = eq_intern(st, loc->module);
		break;
	case EQ_BY_LINE:
		if (loc->file) {
			*name = eq_internf(st, "%s:%u", loc->file, loc->line);
			break;
		}
		/* fall through: no line, the procedure */
		__attribute__((fallthrough));
	default:
		*name = eq_intern(st, loc->proc ? loc->proc : "[unknown]");
		break;
	}
	return *name && *module ? 0 : -1;
}

/* ---- one domain --------------------------------------------------------- */

struct tsample {
	double t;
	uint32_t row;    /* the row, or (inclusive) the sample's set of rows */
};

/* Inclusive builds: the distinct sets of procedures on the samples' stacks
 * (each procedure once), stored once each: set i is rows[off[i] ..
 * off[i+1]).  Identical stacks are the rule, so memory follows them, not
 * the samples times their depth. */
struct rowsets {
	uint32_t *rows, *off;
	size_t nrows, caprows, n, capoff;
	uint32_t *slots;     /* set index + 1, open addressing on the rows' hash */
	size_t mask;
};

static uint64_t set_hash(const uint32_t *r, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ r[i]) * 1099511628211ull;
	return h ^ (h >> 31);
}

/* The index of the set r[0..n) (added when new), or -1 out of memory. */
static long set_index(struct rowsets *rs, const uint32_t *r, size_t n)
{
	size_t j;

	if (2 * (rs->n + 1) > rs->mask) {
		size_t mask = rs->mask ? 2 * rs->mask + 1 : 1023, i;
		uint32_t *s = calloc(mask + 1, sizeof(*s));

		if (!s)
			return -1;
		for (i = 0; i < rs->n; i++) {
			for (j = set_hash(rs->rows + rs->off[i], rs->off[i + 1] - rs->off[i]) & mask; s[j];
			     j = (j + 1) & mask)
				;
			s[j] = (uint32_t)(i + 1);
		}
		free(rs->slots);
		rs->slots = s;
		rs->mask = mask;
	}
	for (j = set_hash(r, n) & rs->mask; rs->slots[j]; j = (j + 1) & rs->mask) {
		size_t i = rs->slots[j] - 1;

		if (rs->off[i + 1] - rs->off[i] == n && !memcmp(rs->rows + rs->off[i], r, n * sizeof(*r)))
			return (long)i;
	}
	if (rs->n + 2 > rs->capoff) {
		size_t cap = rs->capoff ? 2 * rs->capoff : 256;
		uint32_t *g = realloc(rs->off, cap * sizeof(*g));

		if (!g)
			return -1;
		rs->off = g;
		rs->capoff = cap;
		if (rs->n == 0)
			rs->off[0] = 0;
	}
	if (rs->nrows + n > rs->caprows) {
		size_t cap = 2 * (rs->nrows + n) + 1024;
		uint32_t *g = realloc(rs->rows, cap * sizeof(*g));

		if (!g)
			return -1;
		rs->rows = g;
		rs->caprows = cap;
	}
	memcpy(rs->rows + rs->nrows, r, n * sizeof(*r));
	rs->nrows += n;
	rs->off[rs->n + 1] = (uint32_t)rs->nrows;
	rs->slots[j] = (uint32_t)(++rs->n);
	return (long)(rs->n - 1);
}

static void rowsets_free(struct rowsets *rs)
{
	free(rs->rows);
	free(rs->off);
	free(rs->slots);
}

static int by_time(const void *x, const void *y)
{
	const struct tsample *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t;
}

static int by_joules(const void *x, const void *y)
{
	const struct ep_row *a = x, *b = y;

	if (a->unsampled != b->unsampled)
		return a->unsampled - b->unsampled;
	if (a->joules != b->joules)
		return a->joules < b->joules ? 1 : -1;
	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* The domain's readings as a series, and its update period (the recorded
 * nominal one, else detected from the changes as the recorder would). */
static int load_series(const struct eqp_file *f, const struct eqp_edomain *ed,
		       double clock_hz, struct es_series *s, struct ep_domain *d,
		       struct eq_error *err)
{
	struct es_domain dom;
	struct es_track k;
	size_t i;
	int changed;

	memset(&dom, 0, sizeof(dom));
	dom.type = (enum es_type)ed->type;
	dom.range = ed->range;
	dom.update_s = ed->update_s;
	snprintf(dom.name, sizeof(dom.name), "%s", ed->name);
	snprintf(dom.path, sizeof(dom.path), "%s", ed->path);
	es_track_init(&k, &dom);
	memset(s, 0, sizeof(*s));
	s->type = dom.type;
	for (i = 0; i < eqp_nenergy_readings(f); i++) {
		const struct eqp_ereading *r = eqp_energy_reading_at(f, i);
		double t = (double)r->time / clock_hz;

		if (r->domain != ed->index)
			continue;
		if (s->n && !(t > s->t[s->n - 1]))
			return eq_fail(err, "%s: energy readings of %s are not in time order (reading at %.9f s after %.9f s)",
				       eqp_path(f), ed->name, t, s->t[s->n - 1]);
		if (es_series_add(s, t, r->energy_j, r->raw, (r->flags & EQP_EREAD_F_CHANGED) || !s->n,
				  err) < 0)
			return -1;
		/* only for the update period: a track of the raw values */
		if (dom.type != ES_POWER || r->raw >= 0)
			es_track_add(&k, t, r->raw, &changed, err);
	}
	if (s->n < 2)
		return eq_fail(err, "%s: the energy domain %s has %zu reading%s; at least 2 are needed",
			       eqp_path(f), ed->name, s->n, s->n == 1 ? "" : "s");
	if (ed->update_s > 0) {
		s->update_s = ed->update_s;
		snprintf(d->update_how, sizeof(d->update_how), "%s", ed->update_how);
	} else {
		s->update_s = es_track_update_s(&k, d->update_how, sizeof(d->update_how));
	}
	return 0;
}

/* Per-row scratch while walking the intervals. */
struct acc {
	double j, var, glo, ghi;
	double fprev;       /* f of the previous interval (valid when seen == k - 1) */
	uint64_t n;         /* samples charged */
	long seen;          /* last interval with samples of this row, -2 none */
};

/* Boundary error of one row: truth moves by delta * df, delta in [dlo, dhi]. */
static void bound_add(struct acc *a, double df, double dlo, double dhi)
{
	double x = df * dlo, y = df * dhi;

	if (df == 0)
		return;
	a->glo += x < y ? x : y;
	a->ghi += x < y ? y : x;
}

/* Interval k's samples (those before tend from *pos on), counted per row in
 * cnt, each row once in in_k (*nk of them); returns how many samples. */
static double count_interval(const struct tsample *ts, size_t nts, size_t *pos,
			     const struct rowsets *sets, double tend, uint32_t *cnt,
			     uint32_t *in_k, size_t *nkp)
{
	size_t nk = 0, r;
	double n_k = 0;

	while (*pos < nts && ts[*pos].t < tend) {
		const uint32_t *rw = &ts[*pos].row;
		size_t nr = 1, q;

		if (sets) {  /* every procedure on the sample's stack */
			rw = sets->rows + sets->off[ts[*pos].row];
			nr = sets->off[ts[*pos].row + 1] - sets->off[ts[*pos].row];
		}
		for (q = 0; q < nr; q++) {
			r = rw[q];
			if (!cnt[r]++)
				in_k[nk++] = (uint32_t)r;
		}
		n_k++;
		(*pos)++;
	}
	*nkp = nk;
	return n_k;
}

/* Interval k's energy e_k to its n_k samples, row by row (to "[no samples]"
 * when it has none), with the variance of each row's share. */
static void charge_interval(struct ep_domain *d, struct acc *acc, size_t nrows,
			    const uint32_t *in_k, size_t nk, const uint32_t *cnt, double n_k,
			    double e_k, double dt)
{
	size_t i, r;

	if (n_k == 0) {
		acc[nrows].j += e_k;
	} else {
		d->sampled_intervals++;
		if (dt > d->max_sampled_interval_s)
			d->max_sampled_interval_s = dt;
		d->samples += (uint64_t)n_k;
		for (i = 0; i < nk; i++) {
			double c = cnt[in_k[i]], fs = (c + 0.5) / (n_k + 1);

			r = in_k[i];
			acc[r].j += e_k * c / n_k;
			acc[r].n += (uint64_t)c;
			acc[r].var += e_k * e_k * fs * (1 - fs) / n_k;
		}
	}
}

/* The domain's rows: each with samples in its span (idle left out when asked),
 * and "[no samples]" when energy or a boundary error fell outside every sample. */
static int domain_rows(struct ep_domain *d, const struct acc *acc, const struct ep_row *rows,
		       size_t nrows, double fprev_unsampled, int exclude_idle,
		       const char *idle_module, struct eq_intern *st, struct eq_error *err)
{
	size_t r;

	/* the rows that have samples in this domain's span */
	d->rows = calloc(nrows + 1, sizeof(*d->rows));
	if (!d->rows) {
		return eq_fail(err, "energy profile: out of memory");
	}
	for (r = 0; r <= nrows; r++) {
		struct ep_row *o;

		if (r < nrows && acc[r].seen == -2)
			continue;
		if (r < nrows && exclude_idle && rows[r].module == idle_module)
			continue;
		o = &d->rows[d->nrows];
		if (r < nrows) {
			*o = rows[r];
			d->charged_j += acc[r].j;
		} else {
			if (!(acc[r].j > 0) && fprev_unsampled == 0 && acc[r].glo == 0 && acc[r].ghi == 0)
				continue;
			*o = (struct ep_row){ .name = eq_intern(st, "[no samples]"),
					      .module = eq_intern(st, ""), .unsampled = 1 };
		}
		o->samples = acc[r].n;
		o->joules = acc[r].j;
		o->sd = sqrt(acc[r].var);
		o->gran_lo = acc[r].glo;
		o->gran_hi = acc[r].ghi;
		o->ci95_low = o->joules + o->gran_lo - Z95 * o->sd;
		o->ci95_high = o->joules + o->gran_hi + Z95 * o->sd;
		if (o->ci95_low < 0)
			o->ci95_low = 0;
		d->nrows++;
	}
	return 0;
}

/* The domain's names and kind, everything else zero. */
static void domain_head(struct ep_domain *d, const struct eqp_edomain *ed)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->spec, sizeof(d->spec), "%s", ed->spec);
	snprintf(d->name, sizeof(d->name), "%s", ed->name);
	snprintf(d->kind, sizeof(d->kind), "%s", ed->kind);
	d->type = (int)ed->type;
	d->runs = 1;
}

static int build_domain(const struct eqp_file *f, const struct eqp_edomain *ed,
			const struct tsample *ts, size_t nts, const struct rowsets *sets, size_t nrows,
			const struct ep_row *rows, struct ep_domain *d, int exclude_idle,
			const char *idle_module, struct eq_intern *st, struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	struct es_series s;
	struct es_point *pt = NULL;
	struct acc *acc = NULL;
	uint32_t *in_k = NULL, *in_prev = NULL;  /* rows present in interval k, k-1 */
	uint32_t *cnt = NULL;
	size_t nk = 0, nprev = 0, K, k, i, pos = 0, r;
	double fprev_unsampled = 0;
	int rc = -1;

	domain_head(d, ed);
	if (load_series(f, ed, m->clock_hz > 0 ? m->clock_hz : 1e9, &s, d, err) < 0)
		goto out;
	d->update_s = s.update_s;
	K = s.n - 1;
	d->readings = s.n;
	d->intervals = K;
	d->span_s = s.t[K] - s.t[0];
	d->first_s = s.t[0];
	d->last_s = s.t[K];
	d->mean_interval_s = d->span_s / (double)K;
	pt = calloc(s.n, sizeof(*pt));
	acc = calloc(nrows + 1, sizeof(*acc));   /* the last: "[no samples]" */
	in_k = calloc(nrows + 1, sizeof(*in_k));
	in_prev = calloc(nrows + 1, sizeof(*in_prev));
	cnt = calloc(nrows + 1, sizeof(*cnt));
	if (!pt || !acc || !in_k || !in_prev || !cnt) {
		eq_fail(err, "energy profile: out of memory");
		goto out;
	}
	for (i = 0; i <= nrows; i++)
		acc[i].seen = -2;
	for (k = 0; k <= K; k++)
		if (es_energy_at(&s, s.t[k], &pt[k], err) < 0)
			goto out;
	d->total_j = pt[K].e - pt[0].e;
	d->total_lo = fmax(0, pt[K].lo - pt[0].hi);
	d->total_hi = pt[K].hi - pt[0].lo;
	while (pos < nts && ts[pos].t < s.t[0]) {
		d->samples_outside++;
		pos++;
	}
	/* Boundary k (reading k) sits between interval k-1 and interval k. */
	for (k = 0; k <= K; k++) {
		double dlo = pt[k].lo - pt[k].e, dhi = pt[k].hi - pt[k].e, e_k, n_k = 0;
		double f_unsampled;

		/* interval k: its samples, counted per row */
		nk = 0;
		if (k < K)
			n_k = count_interval(ts, nts, &pos, sets, s.t[k + 1], cnt, in_k, &nk);
		f_unsampled = k < K && n_k == 0 ? 1 : 0;
		/* the boundary: rows of k-1 and of k */
		for (i = 0; i < nprev; i++) {
			r = in_prev[i];
			bound_add(&acc[r], acc[r].fprev - (cnt[r] ? cnt[r] / n_k : 0), dlo, dhi);
		}
		for (i = 0; i < nk; i++) {
			r = in_k[i];
			if (acc[r].seen != (long)k - 1)
				bound_add(&acc[r], -(cnt[r] / n_k), dlo, dhi);
		}
		bound_add(&acc[nrows], fprev_unsampled - f_unsampled, dlo, dhi);
		if (k == K)
			break;
		/* interval k's energy to its samples */
		e_k = pt[k + 1].e - pt[k].e;
		charge_interval(d, acc, nrows, in_k, nk, cnt, n_k, e_k, s.t[k + 1] - s.t[k]);
		fprev_unsampled = f_unsampled;
		for (i = 0; i < nk; i++) {
			r = in_k[i];
			acc[r].fprev = cnt[r] / n_k;
			acc[r].seen = (long)k;
		}
		for (i = 0; i < nk; i++)
			cnt[in_k[i]] = 0;
		memcpy(in_prev, in_k, nk * sizeof(*in_k));
		nprev = nk;
	}
	d->samples_outside += nts - pos;
	if (domain_rows(d, acc, rows, nrows, fprev_unsampled, exclude_idle, idle_module, st, err) < 0)
		goto out;
	qsort(d->rows, d->nrows, sizeof(*d->rows), by_joules);
	d->coarse = d->update_s > 0.1 || d->update_s > 5 * d->mean_interval_s;
	d->shared = strcmp(d->kind, "dram") != 0;
	rc = 0;
out:
	es_series_free(&s);
	free(pt);
	free(acc);
	free(in_k);
	free(in_prev);
	free(cnt);
	return rc;
}

/* The procedures on a sample's stack, each once (recursion counts once),
 * its own first, as a set of rows: its index in sets, or -1. */
static long stack_set(const struct eqp_file *f, struct eq_symbolizer *sym, size_t c, size_t i,
		      const struct eq_sample *smp, struct eq_intern *st, const char *idle_module,
		      struct rowset *rs, const struct eq_loc **frames, uint32_t *rows,
		      struct rowsets *sets)
{
	size_t depth, k, n = 0, j;
	int had_chain;

	depth = eq_sample_frames(f, sym, c, i, smp, frames, &had_chain);
	for (k = 0; k < depth; k++) {
		const char *name, *module;
		long r;
		int seen = 0;

		if (row_name(st, frames[k], EQ_BY_PROC, &name, &module) < 0)
			return -1;
		if (frames[k]->kind == EQ_LOC_IDLE)
			module = idle_module;
		r = row_index(rs, name, module);
		if (r < 0)
			return -1;
		for (j = 0; j < n && !seen; j++)
			seen = rows[j] == (uint32_t)r;
		if (!seen)
			rows[n++] = (uint32_t)r;
	}
	return set_index(sets, rows, n);
}

/* Joules per row (self), or, inclusive = 1, per procedure on the stack. */
static struct ep_profile *build(const struct eqp_file *f, struct eq_symbolizer *sym, enum eq_by by,
				int exclude_idle, int inclusive, struct eq_intern *strings,
				struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	double clock_hz = m->clock_hz > 0 ? m->clock_hz : 1e9;
	struct ep_profile *p = calloc(1, sizeof(*p));
	struct rowset rs = { 0 };
	struct tsample *ts = NULL;
	const struct eq_loc **frames = NULL;
	struct rowsets sets = { 0 };
	uint32_t *srows = NULL;
	const char *idle_module;
	size_t c, i, nts = 0;

	if (!p) {
		eq_fail(err, "energy profile: out of memory");
		return NULL;
	}
	p->by = by;
	if (by != EQ_BY_EXE && by != EQ_BY_MODULE && by != EQ_BY_PROC && by != EQ_BY_LINE) {
		eq_fail(err, "%s: energy per row is given --by exe, module, proc or line, not by %s",
			eqp_path(f), eq_by_name(by));
		goto fail;
	}
	if (m->mode != EQP_MODE_TIME) {
		eq_fail(err, "%s: energy readings go with time-driven samples; this recording is energy-driven",
			eqp_path(f));
		goto fail;
	}
	p->strings_ = strings ? strings : eq_intern_new();
	p->own_strings_ = !strings;
	ts = malloc((eqp_nsamples(f) ? eqp_nsamples(f) : 1) * sizeof(*ts));
	if (inclusive) {
		frames = malloc((1 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*frames));
		srows = malloc((1 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*srows));
	}
	if (!p->strings_ || !ts || (inclusive && (!frames || !srows)))
		goto oom;
	idle_module = eq_intern(p->strings_, "[idle]");
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++) {
			double t = (double)smp[i].time / clock_hz;
			const struct eq_loc *loc;
			const char *name, *module;
			long r;

			if (inclusive) {
				r = stack_set(f, sym, c, i, &smp[i], p->strings_, idle_module, &rs, frames,
					      srows, &sets);
				if (r < 0)
					goto oom;
				ts[nts++] = (struct tsample){ t, (uint32_t)r };
				continue;
			}
			loc = eq_sym_lookup(sym, &smp[i]);
			if (row_name(p->strings_, loc, by, &name, &module) < 0)
				goto oom;
			if (loc->kind == EQ_LOC_IDLE)
				module = idle_module;
			r = row_index(&rs, name, module);
			if (r < 0)
				goto oom;
			ts[nts++] = (struct tsample){ t, (uint32_t)r };
		}
	}
	qsort(ts, nts, sizeof(*ts), by_time);
	p->ndomains = eqp_nenergy_domains(f);
	p->domains = calloc(p->ndomains ? p->ndomains : 1, sizeof(*p->domains));
	if (!p->domains)
		goto oom;
	for (i = 0; i < p->ndomains; i++)
		if (build_domain(f, eqp_energy_domain_at(f, i), ts, nts, inclusive ? &sets : NULL, rs.n, rs.v,
				 &p->domains[i],
				 exclude_idle, idle_module, p->strings_, err) < 0)
			goto fail;
	free(frames);
	free(srows);
	rowsets_free(&sets);
	free(ts);
	free(rs.v);
	free(rs.slots);
	return p;
oom:
	eq_fail(err, "energy profile of %s: out of memory", eqp_path(f));
fail:
	free(frames);
	free(srows);
	rowsets_free(&sets);
	free(ts);
	free(rs.v);
	free(rs.slots);
	ep_free(p);
	return NULL;
}

struct ep_profile *ep_build(const struct eqp_file *f, struct eq_symbolizer *sym, enum eq_by by,
			    int exclude_idle, struct eq_error *err)
{
	return build(f, sym, by, exclude_idle, 0, NULL, err);
}

static int by_children(const void *x, const void *y)
{
	const struct ep_row *a = x, *b = y;

	if (a->unsampled != b->unsampled)
		return a->unsampled - b->unsampled;
	if (a->children_j != b->children_j)
		return a->children_j < b->children_j ? 1 : -1;
	return by_joules(x, y);
}

struct ep_profile *ep_build_children(const struct eqp_file *f, struct eq_symbolizer *sym,
				     int exclude_idle, struct eq_error *err)
{
	struct ep_profile *self = build(f, sym, EQ_BY_PROC, exclude_idle, 0, NULL, err), *inc;
	size_t i, j, k;

	if (!self)
		return NULL;
	inc = build(f, sym, EQ_BY_PROC, exclude_idle, 1, self->strings_, err);
	if (!inc) {
		ep_free(self);
		return NULL;
	}
	self->children = 1;
	for (i = 0; i < self->ndomains; i++) {
		struct ep_domain *d = &self->domains[i];
		const struct ep_domain *di = &inc->domains[i];
		struct ep_row *rows = realloc(d->rows, (d->nrows + di->nrows + 1) * sizeof(*rows));

		if (!rows) {
			ep_free(inc);
			ep_free(self);
			eq_fail(err, "energy profile: out of memory");
			return NULL;
		}
		d->rows = rows;
		for (j = 0; j < d->nrows; j++) {  /* a row of no stack: its own */
			d->rows[j].children_j = d->rows[j].joules;
			d->rows[j].children_sd = d->rows[j].sd;
			d->rows[j].children_lo = d->rows[j].ci95_low;
			d->rows[j].children_hi = d->rows[j].ci95_high;
			d->rows[j].children_samples = d->rows[j].samples;
			d->rows[j].children_glo = d->rows[j].gran_lo;
			d->rows[j].children_ghi = d->rows[j].gran_hi;
		}
		for (j = 0; j < di->nrows; j++) {
			const struct ep_row *x = &di->rows[j];
			struct ep_row *o = NULL;

			if (x->unsampled)
				continue;  /* [no samples] is the same in both */
			for (k = 0; k < d->nrows && !o; k++)  /* interned: pointers compare */
				if (d->rows[k].name == x->name && d->rows[k].module == x->module)
					o = &d->rows[k];
			if (!o) {  /* only ever a caller: no self energy */
				o = &d->rows[d->nrows++];
				*o = (struct ep_row){ .name = x->name, .module = x->module };
			}
			o->children_j = x->joules;
			o->children_sd = x->sd;
			o->children_lo = x->ci95_low;
			o->children_hi = x->ci95_high;
			o->children_samples = x->samples;
			o->children_glo = x->gran_lo;
			o->children_ghi = x->gran_hi;
		}
		qsort(d->rows, d->nrows, sizeof(*d->rows), by_children);
	}
	ep_free(inc);
	return self;
}

void ep_free(struct ep_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->ndomains; i++)
		free(p->domains[i].rows);
	free(p->domains);
	if (p->own_strings_)
		eq_intern_free(p->strings_);
	free(p);
}

/* ---- several runs ------------------------------------------------------- */

static const struct ep_domain *find_domain(const struct ep_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ndomains; i++)
		if (!strcmp(p->domains[i].name, name))
			return &p->domains[i];
	return NULL;
}

static const struct ep_row *find_row(const struct ep_domain *d, const char *name, const char *module)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (!strcmp(d->rows[i].name, name) && !strcmp(d->rows[i].module, module))
			return &d->rows[i];
	return NULL;
}

struct ep_profile *ep_pool(struct ep_profile *const *in, size_t n, struct eq_error *err)
{
	struct ep_profile *p = calloc(1, sizeof(*p));
	size_t i, j, q, r;

	if (!p || !(p->strings_ = eq_intern_new()))
		goto oom;
	p->own_strings_ = 1;
	p->by = in[0]->by;
	p->ndomains = in[0]->ndomains;
	p->domains = calloc(p->ndomains ? p->ndomains : 1, sizeof(*p->domains));
	if (!p->domains)
		goto oom;
	for (i = 0; i < p->ndomains; i++) {
		struct ep_domain *d = &p->domains[i];
		const struct ep_domain *d0 = &in[0]->domains[i];
		struct rowset rs = { 0 };
		struct es_welford tot = { 0 };

		*d = *d0;
		d->rows = NULL;
		d->nrows = 0;
		d->runs = (unsigned)n;
		d->samples = d->samples_outside = 0;
		d->charged_j = 0;
		d->readings = d->intervals = d->sampled_intervals = 0;
		d->max_sampled_interval_s = 0;
		for (q = 0; q < n; q++) {
			const struct ep_domain *dq = find_domain(in[q], d0->name);

			if (!dq) {
				ep_free(p);
				eq_fail(err, "recording %zu has no energy domain %s (the first has): pool recordings of the same source",
					q + 1, d0->name);
				return NULL;
			}
			es_welford_add(&tot, dq->total_j);
			d->samples += dq->samples;
			d->samples_outside += dq->samples_outside;
			d->readings += dq->readings;
			d->intervals += dq->intervals;
			d->sampled_intervals += dq->sampled_intervals;
			d->coarse |= dq->coarse;
			if (dq->max_sampled_interval_s > d->max_sampled_interval_s)
				d->max_sampled_interval_s = dq->max_sampled_interval_s;
			for (j = 0; j < dq->nrows; j++) {
				const char *nm = eq_intern(p->strings_, dq->rows[j].name);
				const char *md = eq_intern(p->strings_, dq->rows[j].module);
				long k;

				if (!nm || !md || (k = row_index(&rs, nm, md)) < 0) {
					free(rs.v);
					free(rs.slots);
					goto oom;
				}
				rs.v[k].unsampled = dq->rows[j].unsampled;
			}
		}
		d->total_j = tot.mean;
		d->total_lo = d->total_hi = NAN;
		for (r = 0; r < rs.n; r++) {
			struct ep_row *o = &rs.v[r];
			struct es_welford w = { 0 };
			double glo = 0, ghi = 0;

			o->samples = 0;
			for (q = 0; q < n; q++) {
				const struct ep_row *x = find_row(find_domain(in[q], d0->name), o->name, o->module);

				es_welford_add(&w, x ? x->joules : 0);
				if (x) {
					o->samples += x->samples;
					glo += x->gran_lo / (double)n;
					ghi += x->gran_hi / (double)n;
				}
			}
			o->joules = w.mean;
			o->sd = es_welford_sd(&w);
			o->gran_lo = glo;
			o->gran_hi = ghi;
			o->ci95_low = o->joules - es_welford_ci95(&w);
			o->ci95_high = o->joules + es_welford_ci95(&w);
			if (o->ci95_low < 0)
				o->ci95_low = 0;
			if (!o->unsampled)
				d->charged_j += o->joules;
		}
		qsort(rs.v, rs.n, sizeof(*rs.v), by_joules);
		d->rows = rs.v;
		d->nrows = rs.n;
		free(rs.slots);
	}
	return p;
oom:
	ep_free(p);
	eq_fail(err, "energy profile: out of memory");
	return NULL;
}

/* ---- output ------------------------------------------------------------- */

static const char *type_word(int t)
{
	return t == ES_COUNTER ? "counter" : t == ES_STORE ? "store" : "power";
}

static void fmt_j(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "%s", v > 0 ? "unbounded" : "?");
	else if (fabs(v) >= 100)
		snprintf(buf, size, "%.1f", v);
	else if (fabs(v) >= 1)
		snprintf(buf, size, "%.3f", v);
	else
		snprintf(buf, size, "%.4g", v);
}

/* With call chains: children joules (the procedure and what it called)
 * beside self joules, each with its 95% interval. */
static void print_children(FILE *out, const struct ep_profile *p, const struct ep_domain *d,
			   double percent_limit)
{
	char a[32], b[32], c[32], ci[80], sci[80], s[32];
	size_t j;

	(void)p;
	fputs("# children: the procedure and everything it called; self: the procedure alone\n", out);
	fprintf(out, "%12s  %-25s %12s  %-25s %9s   %-20s %s\n", "children J", "95% CI", "self J", "95% CI",
		"samples", "module", "proc");
	for (j = 0; j < d->nrows; j++) {
		const struct ep_row *r = &d->rows[j];
		double share = d->total_j > 0 ? r->children_j / d->total_j : 0;

		if (!r->unsampled && 100 * share < percent_limit)
			continue;
		fmt_j(a, sizeof(a), r->children_j);
		fmt_j(b, sizeof(b), r->children_lo);
		fmt_j(c, sizeof(c), r->children_hi);
		snprintf(ci, sizeof(ci), "[%s, %s]", b, c);
		fmt_j(s, sizeof(s), r->joules);
		fmt_j(b, sizeof(b), r->ci95_low);
		fmt_j(c, sizeof(c), r->ci95_high);
		snprintf(sci, sizeof(sci), "[%s, %s]", b, c);
		fprintf(out, "%12s  %-25s %12s  %-25s %9llu   %-20s %s\n", a, ci, s, sci,
			(unsigned long long)r->children_samples, r->module, r->name);
	}
}

void ep_print_table(FILE *out, const struct ep_profile *p, double percent_limit)
{
	size_t i, j;

	for (i = 0; i < p->ndomains; i++) {
		const struct ep_domain *d = &p->domains[i];
		char a[32], b[32], c[32];

		fprintf(out, "\n# energy by %s%s from %s %s (%s, %s", eq_by_name(p->by),
			p->children ? " with call chains" : "", d->spec, d->name, d->kind, type_word(d->type));
		if (d->update_s > 0)
			fprintf(out, ", updates every %.3g s%s%s%s", d->update_s, d->update_how[0] ? ": " : "",
				d->update_how, "");
		else
			fprintf(out, ", update period unknown");
		fprintf(out, ")\n");
		if (d->runs > 1) {
			fprintf(out, "# %u runs pooled: mean joules per run, 95%% interval of the mean from the spread of the runs\n",
				d->runs);
			fprintf(out, "# mean total %.6g J; %llu samples, %zu readings\n", d->total_j,
				(unsigned long long)d->samples, d->readings);
		} else {
			fmt_j(a, sizeof(a), d->total_j);
			fmt_j(b, sizeof(b), d->total_lo);
			fmt_j(c, sizeof(c), d->total_hi);
			fprintf(out, "# %s J in %.3f s [%s, %s]; %zu readings, every %.3g ms on average; %.6g J charged to %llu samples\n",
				a, d->span_s, b, c, d->readings, 1e3 * d->mean_interval_s, d->charged_j,
				(unsigned long long)d->samples);
			fprintf(out, "# 95%% intervals: which samples fell in each reading interval (binomial), plus the source's update granularity (a bound)\n");
		}
		if (d->samples_outside)
			fprintf(out, "# %llu samples before the first or after the last reading: no energy charged to them\n",
				(unsigned long long)d->samples_outside);
		if (d->coarse)
			fprintf(out, "# warning: %s updates every %.3g s, far slower than the readings: energy within an update is spread as if power were constant, so per-row joules are biased towards the time profile (docs/energy-sources.md)\n",
				d->name, d->update_s);
		if (d->shared)
			fprintf(out, "# note: %s also powers what else runs on the machine; on a busy machine their energy is charged to these samples\n",
				d->name);
		if (p->children) {
			print_children(out, p, d, percent_limit);
			continue;
		}
		fprintf(out, eq_by_module_column(p->by) ? "%12s  %-27s %7s %9s   %-20s %s\n" :
			"%12s  %-27s %7s %9s   %.0s%s\n", "joules", "95% CI", "share", "samples",
			"module", eq_by_name(p->by));
		for (j = 0; j < d->nrows; j++) {
			const struct ep_row *r = &d->rows[j];
			double share = d->total_j > 0 ? r->joules / d->total_j : 0;
			char ci[80];

			if (!r->unsampled && 100 * share < percent_limit)
				continue;
			fmt_j(a, sizeof(a), r->joules);
			fmt_j(b, sizeof(b), r->ci95_low);
			fmt_j(c, sizeof(c), r->ci95_high);
			snprintf(ci, sizeof(ci), "[%s, %s]", b, c);
			fprintf(out, eq_by_module_column(p->by) ? "%12s  %-27s %6.2f%% %9llu   %-20s %s\n" :
				"%12s  %-27s %6.2f%% %9llu   %.0s%s\n", a, ci, 100 * share,
				(unsigned long long)r->samples, r->module, r->name);
		}
	}
}

void ep_print_csv(FILE *out, const struct ep_profile *p)
{
	size_t i, j;

	fputs("domain,source,name,module,samples,joules,ci95_low_j,ci95_high_j,sd_j,granularity_low_j,granularity_high_j,runs",
	      out);
	if (p->children)
		fputs(",children_samples,children_joules,children_ci95_low_j,children_ci95_high_j,children_sd_j,"
		      "children_granularity_low_j,children_granularity_high_j", out);
	fputc('\n', out);
	for (i = 0; i < p->ndomains; i++)
		for (j = 0; j < p->domains[i].nrows; j++) {
			const struct ep_domain *d = &p->domains[i];
			const struct ep_row *r = &d->rows[j];

			eq_csv_field(out, d->name);
			fputc(',', out);
			eq_csv_field(out, d->spec);
			fputc(',', out);
			eq_csv_field(out, r->name);
			fputc(',', out);
			eq_csv_field(out, r->module);
			fprintf(out, ",%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%u", (unsigned long long)r->samples,
				r->joules, r->ci95_low, r->ci95_high, r->sd, r->gran_lo, r->gran_hi, d->runs);
			if (p->children)
				fprintf(out, ",%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g",
					(unsigned long long)r->children_samples, r->children_j, r->children_lo,
					r->children_hi, r->children_sd, r->children_glo, r->children_ghi);
			fputc('\n', out);
		}
}

static void json_kv(FILE *out, const char *key, double v, int comma)
{
	fprintf(out, "\"%s\": ", key);
	eq_json_number(out, v);
	if (comma)
		fputs(", ", out);
}

void ep_print_json(FILE *out, const struct ep_profile *p)
{
	size_t i, j;

	fprintf(out, "{\"by\": \"%s\", \"children\": %s, \"domains\": [", eq_by_name(p->by),
		p->children ? "true" : "false");
	for (i = 0; i < p->ndomains; i++) {
		const struct ep_domain *d = &p->domains[i];

		fprintf(out, "%s\n    {\"source\": ", i ? "," : "");
		eq_json_string(out, d->spec);
		fputs(", \"domain\": ", out);
		eq_json_string(out, d->name);
		fputs(", \"kind\": ", out);
		eq_json_string(out, d->kind);
		fprintf(out, ", \"type\": \"%s\", ", type_word(d->type));
		json_kv(out, "update_s", d->update_s > 0 ? d->update_s : NAN, 1);
		fputs("\"update_how\": ", out);
		eq_json_string(out, d->update_how);
		fprintf(out, ", \"runs\": %u, \"readings\": %zu, \"intervals\": %zu, \"sampled_intervals\": %zu, ",
			d->runs, d->readings, d->intervals, d->sampled_intervals);
		json_kv(out, "span_s", d->span_s, 1);
		json_kv(out, "first_s", d->runs > 1 ? NAN : d->first_s, 1);
		json_kv(out, "last_s", d->runs > 1 ? NAN : d->last_s, 1);
		json_kv(out, "mean_interval_s", d->mean_interval_s, 1);
		json_kv(out, "max_sampled_interval_s", d->max_sampled_interval_s, 1);
		json_kv(out, "total_j", d->total_j, 1);
		json_kv(out, "total_low_j", d->total_lo, 1);
		json_kv(out, "total_high_j", d->total_hi, 1);
		json_kv(out, "charged_j", d->charged_j, 1);
		fprintf(out, "\"samples\": %llu, \"samples_outside\": %llu, \"coarse\": %s, \"shared\": %s, \"rows\": [",
			(unsigned long long)d->samples, (unsigned long long)d->samples_outside,
			d->coarse ? "true" : "false", d->shared ? "true" : "false");
		for (j = 0; j < d->nrows; j++) {
			const struct ep_row *r = &d->rows[j];

			fprintf(out, "%s\n      {\"name\": ", j ? "," : "");
			eq_json_string(out, r->name);
			fputs(", \"module\": ", out);
			eq_json_string(out, r->module);
			fprintf(out, ", \"samples\": %llu, \"unsampled\": %s, ", (unsigned long long)r->samples,
				r->unsampled ? "true" : "false");
			json_kv(out, "joules", r->joules, 1);
			json_kv(out, "ci95_low_j", r->ci95_low, 1);
			json_kv(out, "ci95_high_j", r->ci95_high, 1);
			json_kv(out, "sd_j", r->sd, 1);
			json_kv(out, "granularity_low_j", r->gran_lo, 1);
			json_kv(out, "granularity_high_j", r->gran_hi, p->children);
			if (p->children) {
				fprintf(out, "\"children_samples\": %llu, ", (unsigned long long)r->children_samples);
				json_kv(out, "children_joules", r->children_j, 1);
				json_kv(out, "children_ci95_low_j", r->children_lo, 1);
				json_kv(out, "children_ci95_high_j", r->children_hi, 1);
				json_kv(out, "children_sd_j", r->children_sd, 1);
				json_kv(out, "children_granularity_low_j", r->children_glo, 1);
				json_kv(out, "children_granularity_high_j", r->children_ghi, 0);
			}
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs("\n  ]}", out);
}
