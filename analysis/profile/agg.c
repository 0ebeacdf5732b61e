/*
 * agg.c - the aggregator: located samples grouped into rows by key (the
 * granularity, or the sort keys), and the profile they finish into, with
 * both intervals of every row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/agg.h"
#include "symbols/intern.h"
#include "util/bigarr.h"
#include "util/fmtnum.h"
#include "util/grow.h"

const char eq_filtered_name[] = "[filtered out]";

/* The hash of a row's key: a, b, c and the first nkeys sort keys of sk
 * (none without sort keys: rows by granularity).  The hash only finds
 * rows; their order is that of creation. */
static uint64_t key_hash(const struct agg_key *k, const struct agg_sortkey *sk, unsigned nkeys)
{
	uint64_t h = (uint64_t)(uintptr_t)k->a * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)k->b * 0xc2b2ae3d27d4eb4full;
	h ^= k->c * 0x165667b19e3779f9ull;
	for (unsigned i = 0; i < nkeys; i++) {
		h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
		h ^= (uint64_t)(uintptr_t)sk->kp[i] * 0x94d049bb133111ebull ^ sk->kv[i];
	}
	h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h;
}

/* Same key (and, with nkeys sort keys, the same xs and ys)? */
static int key_equal(const struct agg_key *x, const struct agg_sortkey *xs,
		     const struct agg_key *y, const struct agg_sortkey *ys, unsigned nkeys)
{
	return x->a == y->a && x->b == y->b && x->c == y->c &&
	       (!nkeys || (!memcmp(xs->kp, ys->kp, nkeys * sizeof(xs->kp[0])) &&
			   !memcmp(xs->kv, ys->kv, nkeys * sizeof(xs->kv[0]))));
}

struct eq_agg *eq_agg_new(enum eq_by by, unsigned flags, struct eq_error *err)
{
	struct eq_agg *a = calloc(1, sizeof(*a));

	if (a) {
		a->by = by;
		a->flags = flags;
		a->filtered_row = -1;
		a->mask = 1023;
		a->slots = eq_big_calloc(a->mask + 1, sizeof(*a->slots));
		a->strings = eq_intern_new();
	}
	if (!a || !a->slots || !a->strings) {
		eq_agg_free(a);
		eq_fail(err, "profile: out of memory");
		return NULL;
	}
	return a;
}

void eq_agg_free(struct eq_agg *a)
{
	if (!a)
		return;
	eq_big_free(a->blk_v);
	eq_agg_counts_free(&a->cs);
	free(a->ser.block_m);
	free(a->fcache);
	eq_big_free(a->rows);
	eq_big_free(a->sk);
	eq_big_free(a->slots);
	eq_intern_free(a->strings);
	free(a);
}

static int resolved(const struct eq_loc *loc)
{
	return (loc->kind == EQ_LOC_RESOLVED || loc->kind == EQ_LOC_IDLE) && loc->proc;
}

/* The identity of loc's row under the sort keys (k zeroed). */
static void keys_of(struct eq_agg *a, const struct eq_loc *loc, const struct task *task,
		    struct agg_sortkey *k)
{
	unsigned i;

	for (i = 0; i < a->keys.n; i++) {
		switch (a->keys.k[i]) {
		case EQ_KEY_COMM:
			/* equal names, one pointer (a thread's own name and
			 * an exe's are separate strings) */
			k->kp[i] = task && task->thread ? eq_intern(a->strings, task->thread) : loc->exe;
			break;
		case EQ_KEY_PID:
			k->kp[i] = loc->exe;
			k->kv[i] = loc->pid;
			break;
		case EQ_KEY_TID:
			k->kp[i] = task ? task->thread : loc->exe;
			k->kv[i] = (uint64_t)loc->pid << 32 | (task ? task->tid : loc->pid);
			break;
		case EQ_KEY_CPU:
			k->kv[i] = task ? task->cpu + 1u : 0;
			break;
		case EQ_KEY_DSO:
			k->kp[i] = loc->module;
			break;
		case EQ_KEY_SYM:
			k->kp[i] = resolved(loc) ? loc->proc : NULL;
			k->kv[i] = (uint64_t)(uintptr_t)loc->module;
			break;
		case EQ_KEY_SRCLINE:
			if (loc->file) {
				k->kp[i] = loc->file;
				k->kv[i] = loc->line;
			} else {
				k->kp[i] = resolved(loc) ? loc->proc : loc->module;
				k->kv[i] = UINT64_MAX;
			}
			break;
		case EQ_KEY_SRCFILE:
			k->kp[i] = loc->file ? loc->file : loc->module;
			k->kv[i] = loc->file ? 1 : 2;
			break;
		}
	}
}

/* n bytes of s after the len of buf (size bytes), as much as fits below
 * its last byte, without printf: the length the whole would have (what
 * snprintf gives back). */
static size_t join_part(char *buf, size_t size, size_t len, const char *s, size_t n)
{
	if (len < size - 1)
		memcpy(buf + len, s, n < size - 1 - len ? n : size - 1 - len);
	return len + n;
}

/* Each key's value as printed, and the row's name: them joined. */
static const char *key_fields(struct eq_agg *a, const struct eq_loc *loc,
			      const struct task *task, const char **fields)
{
	char buf[2048];
	size_t len = 0;
	unsigned i;

	for (i = 0; i < a->keys.n; i++) {
		const char *v = NULL;
		const char *thread = task && task->thread ? task->thread : loc->exe;

		switch (a->keys.k[i]) {
		case EQ_KEY_COMM:
			v = eq_intern(a->strings, thread);
			break;
		case EQ_KEY_PID:
			v = eq_internf(a->strings, "%u:%s", loc->pid, loc->exe);
			break;
		case EQ_KEY_TID:
			v = eq_internf(a->strings, "%u:%s", task ? task->tid : loc->pid, thread);
			break;
		case EQ_KEY_CPU:
			v = task ? eq_internf(a->strings, "%u", task->cpu) : "?";
			break;
		case EQ_KEY_DSO:
			v = loc->module_base ? loc->module_base : loc->module;
			break;
		case EQ_KEY_SYM:
			v = resolved(loc) ? loc->proc : "[unknown]";
			break;
		case EQ_KEY_SRCLINE:
			v = loc->file ? eq_internf(a->strings, "%s:%u", loc->file, loc->line) :
			    resolved(loc) ? loc->proc : "[unknown]";
			break;
		case EQ_KEY_SRCFILE:
			v = loc->file ? loc->file : loc->module_base ? loc->module_base : loc->module;
			break;
		}
		if (!v)
			return NULL;
		fields[i] = v;
		if (i)
			len = join_part(buf, sizeof(buf), len, " / ", 3);
		len = join_part(buf, sizeof(buf), len, v, strlen(v));
	}
	return eq_intern_n(a->strings, buf, len < sizeof(buf) ? len : sizeof(buf) - 1);
}

/* The key and display names of loc's row at a->by (task: the sample's
 * thread, for rows by pid and thread; NULL: loc's process). */
static void row_of(struct eq_agg *a, const struct eq_loc *loc, const struct task *task,
		   struct agg_key *k, struct agg_sortkey *sk, const char **name,
		   const char **module)
{
	memset(k, 0, sizeof(*k));
	*name = NULL;
	*module = loc->module_base;
	if (a->keys.n) {
		memset(sk, 0, sizeof(*sk));
		keys_of(a, loc, task, sk);
		*module = "";
		return;
	}
	if (loc->kind == EQ_LOC_IDLE) {
		k->a = loc->module;
		*name = loc->proc;
		return;
	}
	switch (a->by) {
	case EQ_BY_PID:
		k->a = loc->exe;
		k->c = loc->pid;
		*module = loc->exe;
		return;
	case EQ_BY_THREAD:
		k->a = loc->exe;
		k->b = task ? task->thread : loc->exe;
		k->c = (uint64_t)loc->pid << 32 | (task ? task->tid : loc->pid);
		*module = NULL;  /* formatted by the caller on first sight */
		return;
	case EQ_BY_EXE:
		k->a = loc->exe;
		*name = loc->exe;
		*module = loc->exe;
		return;
	case EQ_BY_MODULE:
		k->a = loc->module;
		*name = loc->module;
		return;
	case EQ_BY_LINE:
		if (loc->file) {
			k->a = loc->module;
			k->b = loc->file;
			k->c = loc->line;
			*name = NULL;  /* formatted by the caller on first sight */
			return;
		}
		/* no line information: group by procedure */
		__attribute__((fallthrough));
	case EQ_BY_PROC:
		k->a = loc->module;
		k->b = loc->proc;
		k->c = UINT64_MAX;
		*name = loc->proc ? loc->proc : "[unknown]";
		return;
	case EQ_BY_INSN:
		k->a = loc->module;
		k->c = loc->module_off;
		*name = NULL;
		return;
	}
}

static const char *format_name(struct eq_agg *a, const struct eq_loc *loc,
			       const struct agg_key *k)
{
	if (a->by == EQ_BY_PID)
		return eq_internf(a->strings, "%u:%s", loc->pid, loc->exe);
	if (a->by == EQ_BY_THREAD)
		return eq_internf(a->strings, "%u:%s", (uint32_t)k->c, (const char *)k->b);
	if (a->by == EQ_BY_LINE) {
		/* eq_internf(a->strings, "%s:%u", file, line) without printf
		 * (a row each): the same bytes, cut at 4095 like it; not
		 * interned, as the row's key (module, file, line) is unique */
		char buf[4096], num[24];
		size_t lf = strlen(loc->file), ln = eq_fmt_u64(num, loc->line);

		if (lf + 1 + ln >= sizeof(buf))
			return eq_internf(a->strings, "%s:%u", loc->file, loc->line);
		memcpy(buf, loc->file, lf);
		buf[lf] = ':';
		memcpy(buf + lf + 1, num, ln);
		return eq_intern_copy(a->strings, buf, lf + 1 + ln);
	}
	if (loc->proc)
		return eq_internf(a->strings, "%s+0x%llx", loc->proc,
				  (unsigned long long)loc->proc_off);
	if (loc->kind == EQ_LOC_NO_MODULE)
		return eq_internf(a->strings, "[unknown] 0x%llx", (unsigned long long)loc->pc);
	return eq_internf(a->strings, "[unknown] %s+0x%llx", loc->module_base,
			  (unsigned long long)loc->module_off);
}

/* A slot: row index + 1 below (0: empty), the key's hash's top half above,
 * so that a probe past other keys does not read their rows (each one a
 * cache miss when the rows are many). */
#define SLOT(h, row) ((h) >> 32 << 32 | (uint64_t)(row))
#define SLOT_ROW(s) ((uint32_t)(s))

static int agg_grow(struct eq_agg *a)
{
	size_t newmask = 2 * a->mask + 1, i;
	uint64_t *slots = eq_big_calloc(newmask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < a->nrows; i++) {
		uint64_t h = key_hash(&a->rows[i].key, a->keys.n ? &a->sk[i] : NULL, a->keys.n);
		size_t j = h & newmask;

		while (slots[j])
			j = (j + 1) & newmask;
		slots[j] = SLOT(h, i + 1);
	}
	eq_big_free(a->slots);
	a->slots = slots;
	a->mask = newmask;
	return 0;
}

/* A new row at the end, zero (and its sort key's room, with sort keys):
 * NULL when out of memory. */
static struct agg_row *row_new(struct eq_agg *a)
{
	if (EQ_BIG_GROW(a->rows, a->cap, a->nrows + 1, 256) < 0 ||
	    eq_agg_counts_reserve(&a->cs, a->nrows + 1) < 0 ||
	    (a->keys.n && EQ_BIG_GROW0(a->sk, a->skcap, a->nrows + 1, 256) < 0))
		return NULL;
	a->rows[a->nrows] = (struct agg_row){ 0 };
	return &a->rows[a->nrows];
}

long eq_agg_row_index(struct eq_agg *a, const struct eq_loc *loc, const struct task *task)
{
	struct agg_key k;
	struct agg_sortkey sk;
	const char *name, *module;
	struct agg_row *r;
	uint64_t h;
	size_t j;

	row_of(a, loc, task, &k, &sk, &name, &module);
	if (2 * (a->nrows + 1) > a->mask && agg_grow(a))
		return -1;
	h = key_hash(&k, &sk, a->keys.n);
	for (j = h & a->mask; a->slots[j]; j = (j + 1) & a->mask) {
		size_t i = SLOT_ROW(a->slots[j]) - 1;

		if (a->slots[j] >> 32 == h >> 32 &&
		    key_equal(&a->rows[i].key, a->keys.n ? &a->sk[i] : NULL, &k, &sk, a->keys.n))
			return (long)i;
	}
	if (!(r = row_new(a)))
		return -1;
	r->key = k;
	r->loc = loc;
	if (a->keys.n) {
		a->sk[a->nrows] = sk;
		name = key_fields(a, loc, task, a->sk[a->nrows].fields);
	} else if (!name) {
		name = format_name(a, loc, &k);
	}
	if (!module)
		module = eq_internf(a->strings, "%u:%s", loc->pid, loc->exe);
	if (!name || !module)
		return -1;
	r->name = name;
	r->module = module;
	if (loc->kind != EQ_LOC_IDLE && (a->by == EQ_BY_PID || a->by == EQ_BY_THREAD)) {
		r->pid = loc->pid;
		r->tid = a->by == EQ_BY_THREAD ? (uint32_t)k.c : 0;
	}
	a->slots[j] = SLOT(h, ++a->nrows);
	return (long)(a->nrows - 1);
}

long eq_agg_row(struct eq_agg *a, const struct eq_loc *loc)
{
	long i = eq_agg_row_index(a, loc, NULL);

	return i >= (long)ROW_SKIP ? -1 : i;
}

size_t eq_agg_nrows(const struct eq_agg *a)
{
	return a->nrows;
}

void eq_agg_row_name(const struct eq_agg *a, size_t i, const char **name, const char **module)
{
	*name = a->rows[i].name;
	*module = a->rows[i].module;
}

long eq_agg_filtered_index(struct eq_agg *a)
{
	struct agg_row *r;

	if (a->filtered_row >= 0)
		return a->filtered_row;
	if (a->nrows >= ROW_SKIP || !(r = row_new(a)))
		return -1;
	/* not in the hash: nothing looks it up by key */
	r->name = r->module = eq_filtered_name;
	a->filtered_row = (long)a->nrows++;
	return a->filtered_row;
}

int eq_agg_add(struct eq_agg *a, const struct eq_loc *loc, uint64_t weight,
	       struct eq_error *err)
{
	long i;

	if (loc->kind == EQ_LOC_IDLE) {
		a->idle += weight;
		if (a->flags & EQ_PROFILE_EXCLUDE_IDLE)
			return 0;
	}
	i = eq_agg_row_index(a, loc, NULL);
	if (i < 0)
		return eq_fail(err, "profile: out of memory");
	a->rows[i].samples += weight;
	a->total += weight;
	return 0;
}

int eq_row_by_samples(const void *x, const void *y)
{
	const struct eq_row *a = x, *b = y;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module, b->module);
}

/* A row's sort key (eq_row_by_samples'), beside its place. */
struct row_key {
	uint64_t samples;
	const char *name, *module;
	size_t i;
};

/* Whether a goes before b in eq_row_by_samples' order. */
static inline int key_before(const struct row_key *a, const struct row_key *b)
{
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples;
	c = strcmp(a->name, b->name);
	return c ? c < 0 : strcmp(a->module, b->module) < 0;
}

/* The sorted runs [lo, mid) and [mid, hi) of k merged into t, the left
 * one's first on a tie. */
static void keys_merge(const struct row_key *k, struct row_key *t, size_t lo, size_t mid,
		       size_t hi)
{
	size_t i = lo, j = mid, o = lo;

	while (i < mid && j < hi)
		t[o++] = key_before(&k[j], &k[i]) ? k[j++] : k[i++];
	while (i < mid)
		t[o++] = k[i++];
	while (j < hi)
		t[o++] = k[j++];
}

#define ROW_SORT_RUN 16

/* k (n keys) sorted, stably: runs of ROW_SORT_RUN by insertion, then
 * merged pairwise through t; returns where the sorted keys are. */
static struct row_key *keys_sort(struct row_key *k, struct row_key *t, size_t n)
{
	size_t lo, i, j, w;

	for (lo = 0; lo < n; lo += ROW_SORT_RUN) {
		size_t hi = n - lo < ROW_SORT_RUN ? n : lo + ROW_SORT_RUN;

		for (i = lo + 1; i < hi; i++) {
			struct row_key x = k[i];

			for (j = i; j > lo && key_before(&x, &k[j - 1]); j--)
				k[j] = k[j - 1];
			k[j] = x;
		}
	}
	for (w = ROW_SORT_RUN; w < n; w *= 2) {
		struct row_key *sw;

		for (lo = 0; lo < n; lo += 2 * w)
			keys_merge(k, t, lo, n - lo < w ? n : lo + w, n - lo < 2 * w ? n : lo + 2 * w);
		sw = k;
		k = t;
		t = sw;
	}
	return k;
}

void eq_rows_sort(struct eq_row *rows, size_t n)
{
	struct row_key *k = n > 1 ? eq_big_malloc(2 * n, sizeof(*k)) : NULL, *s;
	size_t i, j, from;

	if (!k) {
		/* (no memory for the keys: the same order, more slowly) */
		qsort(rows, n, sizeof(*rows), eq_row_by_samples);
		return;
	}
	for (i = 0; i < n; i++)
		k[i] = (struct row_key){ rows[i].samples, rows[i].name, rows[i].module, i };
	s = keys_sort(k, k + n, n);
	/* rows[i] = the old rows[s[i].i], a cycle at a time (s[i].i = n:
	 * moved) */
	for (i = 0; i < n; i++) {
		struct eq_row tmp;

		if (s[i].i == n || s[i].i == i)
			continue;
		tmp = rows[i];
		for (j = i; (from = s[j].i) != i; j = from) {
			rows[j] = rows[from];
			s[j].i = n;
		}
		rows[j] = tmp;
		s[j].i = n;
	}
	eq_big_free(k);
}

/* ---- the two intervals -------------------------------------------------- */

/* Row r's counts in the log (those past a byte, or all of them without
 * the table), block b's added to c[b * stride]. */
static void row_log_add(const struct agg_row *r, double *c, size_t stride)
{
	uint32_t j;

	for (j = 0; j < r->blk.n; j++)
		c[(r->blk.v[j] >> AGG_BLK_COUNT_BITS) * stride] +=
			(double)(r->blk.v[j] & AGG_BLK_COUNT_MAX);
}

/* eq_series.batches over an aggregator's rows: row i's count in each
 * block, its cell in the table (if it has cells) and its log entries. */
static void agg_batches(void *arg, size_t i, unsigned nblocks, double *c, size_t stride)
{
	const struct eq_agg *a = arg;
	const struct agg_row *r = &a->rows[i];
	const uint8_t *v = r->blk.col;
	unsigned b;

	for (b = 0; v && b < nblocks; b++, v += AGG_TILE_STEP)
		c[b * stride] += (double)*v;
	row_log_add(r, c, stride);
}

/* Four cells a block, side by side at v, as doubles into c[4 b .. 4 b + 3]. */
static void cells4(const uint8_t *v, unsigned nblocks, double *c)
{
	unsigned b, j;

	for (b = 0; b < nblocks; b++, v += AGG_TILE_STEP)
		for (j = 0; j < 4; j++)
			c[4 * b + j] = (double)v[j];
}

#if AGG_AVX2
#include <immintrin.h>

__attribute__((target("avx2"))) static void cells4_avx2(const uint8_t *v, unsigned nblocks,
							double *c)
{
	unsigned b;
	int w;

	for (b = 0; b < nblocks; b++, v += AGG_TILE_STEP) {
		__m128i x;

		memcpy(&w, v, sizeof(w));
		x = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(w));
		_mm256_storeu_pd(c + 4 * b, _mm256_cvtepi32_pd(x));
	}
}

static void (*cells4_fn(void))(const uint8_t *, unsigned, double *)
{
	return agg_simd() ? cells4_avx2 : cells4;
}
#else
static void (*cells4_fn(void))(const uint8_t *, unsigned, double *)
{
	return cells4;
}
#endif

/* The same for rows i to i + 3, a batch a block, when their cells lie side
 * by side in the table (rows of a tile, four at a time): one load of their
 * four cells a block. */
static int agg_batches4(void *arg, size_t i, unsigned nblocks, double *c)
{
	const struct eq_agg *a = arg;
	const struct agg_row *r = &a->rows[i];
	const uint8_t *v = r->blk.col;
	unsigned j;

	if (!v || r[1].blk.col != v + 1 || r[2].blk.col != v + 2 || r[3].blk.col != v + 3)
		return -1;
	cells4_fn()(v, nblocks, c);
	for (j = 0; j < 4; j++)
		row_log_add(&r[j], c + j, 4);
	return 0;
}

/* Both intervals of every row from the time series eq_profile_build (or
 * eq_agg_add_sample) kept. */
static int series_intervals(const struct eq_agg *a, struct eq_profile *p)
{
	const struct agg_series *ser = &a->ser;
	double m = (double)a->total;
	struct eq_series s = { .m = m, .n = (double)ser->n, .timer = p->mode == EQP_MODE_TIME,
			       .times = &ser->times, .nblocks = ser->nblocks,
			       .block_m = ser->block_m, .nrows = a->nrows,
			       .batches = agg_batches, .batches4 = agg_batches4,
			       .arg = (void *)a };
	struct eq_series_out o;
	size_t i;

	if (eq_series_rows_alloc(&s.rows, a->nrows) < 0)
		return -1;
	p->ordered = 1;
	for (i = 0; i < a->nrows; i++) {
		const struct agg_row *ar = &a->rows[i];
		double pr, k = (double)p->rows[i].samples;

		s.rows.k[i] = k;
		pr = m > 0 ? k / m : 0;
		s.rows.d[0][i] = (double)ar->trans[0] - 2 * pr * (double)ar->trans_skip[0] +
				 pr * pr * (double)ser->skip_trans[0];
		s.rows.d[1][i] = (double)ar->trans[1] - 2 * pr * (double)ar->trans_skip[1] +
				 pr * pr * (double)ser->skip_trans[1];
	}
	eq_series_intervals(&s, &o);
	p->interval_cv2 = o.cv2;
	for (i = 0; i < a->nrows; i++) {
		p->rows[i].deff_sampling = s.rows.deff_sampling[i];
		p->rows[i].deff_run = s.rows.deff_run[i];
		p->rows[i].df_run = s.rows.df_run[i];
	}
	p->batches = o.batches;
	p->batch_lag1 = o.lag1;
	p->batch_s = o.batch_s;
	eq_series_rows_free(&s.rows);
	return 0;
}

void eq_profile_set_interval(struct eq_profile *p, enum eq_interval iv)
{
	size_t i;

	p->interval = iv;
	for (i = 0; i < p->nrows; i++) {
		struct eq_row *r = &p->rows[i];
		double deff = iv == EQ_IV_RUN ? r->deff_run : r->deff_sampling;
		double z = iv == EQ_IV_RUN ? eq_t95(r->df_run) : EQ_Z95;

		eq_wilson_eff(r->share, deff > 0 ? (double)p->total_samples / deff : INFINITY, z,
			      &r->ci95_low, &r->ci95_high);
	}
}

struct eq_profile *eq_agg_finish(struct eq_agg *a, enum eqp_mode mode, double quantum_j,
				 double period_s, uint64_t lost_samples, struct eq_error *err)
{
	struct eq_profile *p = calloc(1, sizeof(*p));
	double per_sample = mode == EQP_MODE_ENERGY ? quantum_j : period_s;
	size_t i;

	/* the counts the series kept, into the rows (eq_agg_add_sample) */
	if (eq_agg_counts_fold(a) || !p ||
	    !(p->rows = eq_big_calloc(a->nrows, sizeof(*p->rows)))) {
		free(p);
		eq_agg_free(a);
		eq_fail(err, "profile: out of memory");
		return NULL;
	}
	p->by = a->by;
	p->mode = mode;
	p->quantum_j = mode == EQP_MODE_ENERGY ? quantum_j : 0;
	p->period_s = mode == EQP_MODE_TIME ? period_s : 0;
	p->exclude_idle = !!(a->flags & EQ_PROFILE_EXCLUDE_IDLE);
	p->total_samples = a->total;
	p->idle_samples = a->idle;
	p->lost_samples = lost_samples;
	p->nrows = a->nrows;
	for (i = 0; i < a->nrows; i++) {
		struct eq_row *r = &p->rows[i];

		r->name = a->rows[i].name;
		r->module = a->rows[i].module;
		r->loc = a->rows[i].loc;
		r->pid = a->rows[i].pid;
		r->tid = a->rows[i].tid;
		if (a->sk)
			memcpy(r->fields, a->sk[i].fields, sizeof(r->fields));
		r->samples = a->rows[i].samples;
		r->share = a->total ? (double)r->samples / (double)a->total : 0;
		r->deff_sampling = r->deff_run = 1;
		r->amount = per_sample > 0 ? (double)r->samples * per_sample : NAN;
	}
	if (a->ser.on && (eq_agg_series_close(a) || series_intervals(a, p))) {
		eq_profile_free(p);
		eq_agg_free(a);
		eq_fail(err, "profile: out of memory");
		return NULL;
	}
	eq_profile_set_interval(p, EQ_IV_SAMPLING);
	eq_rows_sort(p->rows, p->nrows);
	p->keys = a->keys;
	if (a->filter) {
		size_t j = 0;

		p->filtered = 1;
		p->filter_relative = a->filter->relative;
		p->filtered_samples = a->filtered;
		for (i = 0; i < p->nrows; i++) {
			if (p->rows[i].name == eq_filtered_name)
				p->filtered_samples += p->rows[i].samples;
			else
				p->rows[j++] = p->rows[i];
		}
		p->nrows = j;
	}
	/* The row names live in the aggregator's strings: keep them. */
	p->strings_ = a->strings;
	a->strings = NULL;
	eq_agg_free(a);
	return p;
}

void eq_profile_free(struct eq_profile *p)
{
	if (!p)
		return;
	eq_intern_free(p->strings_);
	free(p->unresolved);
	eq_big_free(p->rows);   /* eq_agg_finish's, eq_profile_pool's */
	free(p);
}

const struct eq_row *eq_profile_find(const struct eq_profile *p, const char *name,
				     const char *module)
{
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (!strcmp(p->rows[i].name, name) &&
		    (!module || !strcmp(p->rows[i].module, module)))
			return &p->rows[i];
	return NULL;
}
