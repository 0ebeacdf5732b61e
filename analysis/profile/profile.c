/*
 * profile.c - group located samples into rows at one granularity.
 *
 * The hot loop in eq_profile_build() looks each sample up in a table keyed
 * by (pid, pc, kernel/idle flags) that maps straight to its row, so a pc is
 * symbolized and grouped once however many samples hit it; memory grows
 * with distinct pcs only.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "profile.h"
#include "split.h"
#include "stats.h"
#include "grow.h"

#define TAG_ROW_MASK 0x0fffffffu
#define ROW_SKIP (TAG_ROW_MASK - 1)   /* excluded idle sample */

struct agg_key {
	const void *a, *b;
	uint64_t c;
	/* with sort keys: each key's identity (zero beyond keys.n) */
	const void *kp[EQ_KEYS_MAX];
	uint64_t kv[EQ_KEYS_MAX];
};

/* Batch counts of a row: (block << 32 | count), blocks increasing. */
struct blk_list {
	uint64_t *v;
	uint32_t n, cap;
};

struct agg_row {
	struct agg_key key;
	const char *name, *module;
	const struct eq_loc *loc;
	uint32_t pid, tid;
	const char *fields[EQ_KEYS_MAX];
	uint64_t samples;
	uint64_t trans[2];    /* samples 1 (2) apart, one in this row, one not */
	uint64_t trans_skip[2]; /* ... of which the other an excluded idle sample */
	struct blk_list blk;
};

/* The time-ordered view eq_profile_build takes of the samples: what the
 * sampling and run-to-run variances need, in O(1) per sample. */
struct agg_series {
	int on;
	uint32_t prev[2];     /* rows of the previous two samples (ROW_NONE: none) */
	uint64_t n;           /* samples in the series (excluded idle too) */
	uint64_t skip_trans[2]; /* pairs 1 (2) apart with exactly one excluded idle */
	uint64_t expected;    /* samples the file holds (sets the blocks) */
	unsigned nblocks, block;
	uint64_t next_boundary;
	double *block_m;      /* samples counted in the shares per block */
	uint64_t t_first, t_last;
	double clock_hz;
	double dt_n, dt_sum, dt_sum2; /* intervals between samples (not after a loss) */
};

/* The task a sample ran in, for rows by pid and thread. */
struct task {
	uint32_t pid, tid;
	const char *thread;   /* its name (eq_sym_thread_name) */
	uint16_t cpu;
};

struct eq_agg {
	enum eq_by by;
	unsigned flags;
	struct eq_intern *strings;
	struct agg_row *rows;
	size_t nrows, cap;
	uint32_t *slots;           /* row index + 1; 0 = empty */
	size_t mask;
	uint64_t total, idle;
	struct agg_series ser;
	struct eq_keys keys;       /* sort keys (n == 0: rows by `by`) */
	const struct eq_filter *filter;
	long filtered_row;         /* the hidden row of filtered-out samples, or -1 */
	uint64_t filtered;         /* samples left out of the shares (relative) */
	struct fcache_slot *fcache; /* the filter's verdicts (FCACHE_SIZE) */
};

#define FCACHE_SIZE 4096
struct fcache_slot {
	const struct eq_loc *loc;
	const char *thread;
	int keep;
};

/* The hidden row's name: rows pointing at it are removed when finished. */
static const char filtered_name[] = "[filtered out]";

static const char *const by_names[] = { "exe", "module", "proc", "line", "insn", "pid",
					 "thread" };
#define NBY (sizeof(by_names) / sizeof(by_names[0]))

int eq_by_parse(const char *text, enum eq_by *by, struct eq_error *err)
{
	size_t i;

	for (i = 0; i < NBY; i++)
		if (!strcmp(text, by_names[i])) {
			*by = (enum eq_by)i;
			return 0;
		}
	return eq_fail(err, "--by %s: unknown granularity; use exe, module, proc, line, insn, pid or thread",
		       text);
}

const char *eq_by_name(enum eq_by by)
{
	if ((unsigned)by & EQ_BY_SPLIT)
		return eq_split_by_name(by);
	return (unsigned)by < NBY ? by_names[by] : "?";
}

static const char *const key_names[] = { "comm", "pid", "tid", "cpu", "dso", "sym",
					  "srcline", "srcfile" };
#define NKEYS (sizeof(key_names) / sizeof(key_names[0]))

const char *eq_key_name(enum eq_key k)
{
	return (unsigned)k < NKEYS ? key_names[k] : "?";
}

int eq_keys_parse(const char *text, struct eq_keys *keys, struct eq_error *err)
{
	const char *p = text;

	memset(keys, 0, sizeof(*keys));
	for (;;) {
		size_t len = strcspn(p, ","), i, j;

		for (i = 0; i < NKEYS; i++)
			if (strlen(key_names[i]) == len && !strncmp(p, key_names[i], len))
				break;
		/* perf's spellings of the same keys */
		if (i == NKEYS && len == 6 && !strncmp(p, "symbol", 6))
			i = EQ_KEY_SYM;
		if (i == NKEYS && len == 6 && !strncmp(p, "thread", 6))
			i = EQ_KEY_TID;
		if (i == NKEYS)
			return eq_fail(err, "--sort %s: unknown key '%.*s'; the keys are comm, pid, "
				       "tid, cpu, dso, sym, srcline and srcfile", text, (int)len, p);
		for (j = 0; j < keys->n; j++)
			if (keys->k[j] == (enum eq_key)i)
				return eq_fail(err, "--sort %s: key '%s' given twice", text, key_names[i]);
		if (keys->n == EQ_KEYS_MAX)
			return eq_fail(err, "--sort %s: at most %d keys", text, EQ_KEYS_MAX);
		keys->k[keys->n++] = (enum eq_key)i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return 0;
}

int eq_keys_need_lines(const struct eq_keys *keys)
{
	unsigned i;

	for (i = 0; keys && i < keys->n; i++)
		if (keys->k[i] == EQ_KEY_SRCLINE || keys->k[i] == EQ_KEY_SRCFILE)
			return 1;
	return 0;
}

int eq_filter_active(const struct eq_filter *f)
{
	return f && (f->ncomm || f->ndso || f->nsym);
}

/* 1 when a pattern matches a or b; hit[] (if given) marks every one that does. */
static int any_match(const char *const *pat, size_t n, const char *a, const char *b,
		     unsigned char *hit)
{
	size_t i;
	int any = 0;

	for (i = 0; i < n; i++)
		if ((a && !fnmatch(pat[i], a, 0)) || (b && !fnmatch(pat[i], b, 0))) {
			any = 1;
			if (!hit)
				break;
			hit[i] = 1;
		}
	return any;
}

static int filter_eval(const struct eq_filter *f, const struct eq_loc *loc, const char *thread,
		       int mark)
{
	int keep = 1;

	if (!f)
		return 1;
	if (f->ncomm && !any_match(f->comm, f->ncomm, thread, loc->exe, mark ? f->hit_comm : NULL))
		keep = 0;
	if ((keep || mark) && f->ndso &&
	    !any_match(f->dso, f->ndso, loc->module_base, loc->module, mark ? f->hit_dso : NULL))
		keep = 0;
	if ((keep || mark) && f->nsym &&
	    !any_match(f->sym, f->nsym, (loc->kind == EQ_LOC_RESOLVED || loc->kind == EQ_LOC_IDLE) &&
		       loc->proc ? loc->proc : "[unknown]", NULL, mark ? f->hit_sym : NULL))
		keep = 0;
	return keep;
}

int eq_filter_match(const struct eq_filter *f, const struct eq_loc *loc, const char *thread)
{
	return filter_eval(f, loc, thread, 0);
}

static uint64_t key_hash(const struct agg_key *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->a * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)k->b * 0xc2b2ae3d27d4eb4full;
	h ^= k->c * 0x165667b19e3779f9ull;
	for (unsigned i = 0; i < EQ_KEYS_MAX; i++) {
		h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
		h ^= (uint64_t)(uintptr_t)k->kp[i] * 0x94d049bb133111ebull ^ k->kv[i];
	}
	h ^= h >> 29;
	return h;
}

struct eq_agg *eq_agg_new(enum eq_by by, unsigned flags, struct eq_error *err)
{
	struct eq_agg *a = calloc(1, sizeof(*a));

	if (a) {
		a->by = by;
		a->flags = flags;
		a->filtered_row = -1;
		a->mask = 1023;
		a->slots = calloc(a->mask + 1, sizeof(*a->slots));
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
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nrows; i++)
		free(a->rows[i].blk.v);
	free(a->ser.block_m);
	free(a->fcache);
	free(a->rows);
	free(a->slots);
	eq_intern_free(a->strings);
	free(a);
}

static int resolved(const struct eq_loc *loc)
{
	return (loc->kind == EQ_LOC_RESOLVED || loc->kind == EQ_LOC_IDLE) && loc->proc;
}

/* The identity of loc's row under the sort keys (k zeroed). */
static void keys_of(struct eq_agg *a, const struct eq_loc *loc, const struct task *task,
		    struct agg_key *k)
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
		len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0, "%s%s",
					i ? " / " : "", v);
	}
	return eq_intern_n(a->strings, buf, len < sizeof(buf) ? len : sizeof(buf) - 1);
}

/* The key and display names of loc's row at a->by (task: the sample's
 * thread, for rows by pid and thread; NULL: loc's process). */
static void row_of(struct eq_agg *a, const struct eq_loc *loc, const struct task *task,
		   struct agg_key *k, const char **name, const char **module)
{
	memset(k, 0, sizeof(*k));
	*name = NULL;
	*module = loc->module_base;
	if (a->keys.n) {
		keys_of(a, loc, task, k);
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
	if (a->by == EQ_BY_LINE)
		return eq_internf(a->strings, "%s:%u", loc->file, loc->line);
	if (loc->proc)
		return eq_internf(a->strings, "%s+0x%llx", loc->proc,
				  (unsigned long long)loc->proc_off);
	if (loc->kind == EQ_LOC_NO_MODULE)
		return eq_internf(a->strings, "[unknown] 0x%llx", (unsigned long long)loc->pc);
	return eq_internf(a->strings, "[unknown] %s+0x%llx", loc->module_base,
			  (unsigned long long)loc->module_off);
}

static int agg_grow(struct eq_agg *a)
{
	size_t newmask = 2 * a->mask + 1, i;
	uint32_t *slots = calloc(newmask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < a->nrows; i++) {
		size_t j = key_hash(&a->rows[i].key) & newmask;

		while (slots[j])
			j = (j + 1) & newmask;
		slots[j] = (uint32_t)(i + 1);
	}
	free(a->slots);
	a->slots = slots;
	a->mask = newmask;
	return 0;
}

/* Index of loc's row, created on first sight; -1 if out of memory. */
static long agg_row_index(struct eq_agg *a, const struct eq_loc *loc, const struct task *task)
{
	struct agg_key k;
	const char *name, *module;
	struct agg_row *r;
	size_t j;

	row_of(a, loc, task, &k, &name, &module);
	if (2 * (a->nrows + 1) > a->mask && agg_grow(a))
		return -1;
	for (j = key_hash(&k) & a->mask; a->slots[j]; j = (j + 1) & a->mask) {
		r = &a->rows[a->slots[j] - 1];
		if (r->key.a == k.a && r->key.b == k.b && r->key.c == k.c &&
		    !memcmp(r->key.kp, k.kp, sizeof(k.kp)) && !memcmp(r->key.kv, k.kv, sizeof(k.kv)))
			return (long)(a->slots[j] - 1);
	}
	if (EQ_GROW(a->rows, a->cap, a->nrows + 1, 256) < 0)
		return -1;
	r = &a->rows[a->nrows];
	*r = (struct agg_row){ .key = k, .loc = loc };
	if (a->keys.n)
		name = key_fields(a, loc, task, r->fields);
	else if (!name)
		name = format_name(a, loc, &k);
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
	a->slots[j] = (uint32_t)(++a->nrows);
	return (long)(a->nrows - 1);
}

long eq_agg_row(struct eq_agg *a, const struct eq_loc *loc)
{
	long i = agg_row_index(a, loc, NULL);

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

/* The hidden row that holds the samples a filter left out (absolute shares). */
static long filtered_index(struct eq_agg *a)
{
	struct agg_row *r;

	if (a->filtered_row >= 0)
		return a->filtered_row;
	if (EQ_GROW(a->rows, a->cap, a->nrows + 1, 256) < 0)
		return -1;
	if (a->nrows >= ROW_SKIP)
		return -1;
	r = &a->rows[a->nrows];
	/* not in the hash: nothing looks it up by key */
	*r = (struct agg_row){ .name = filtered_name, .module = filtered_name };
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
	i = agg_row_index(a, loc, NULL);
	if (i < 0)
		return eq_fail(err, "profile: out of memory");
	a->rows[i].samples += weight;
	a->total += weight;
	return 0;
}

static int by_samples(const void *x, const void *y)
{
	const struct eq_row *a = x, *b = y;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module, b->module);
}

/* ---- the two intervals -------------------------------------------------- */

static double small_count_floor(double deff, uint64_t k, uint64_t m)
{
	if (k < EQ_SMALL_COUNT || m - k < EQ_SMALL_COUNT)
		return deff > 1 ? deff : 1;
	return deff;
}

/* Row i's counts in nb batches of nblocks / nb blocks each. */
static void row_batches(const struct agg_row *r, unsigned nblocks, unsigned nb, double *c)
{
	unsigned per = nblocks / nb;
	uint32_t j;

	memset(c, 0, nb * sizeof(*c));
	for (j = 0; j < r->blk.n; j++)
		c[(unsigned)(r->blk.v[j] >> 32) / per] += (double)(uint32_t)r->blk.v[j];
}


/*
 * Both design effects of every row.  Sampling: the telegraph model at the
 * lag-1 correlation of the row's linearized indicator (stats.h).  Run to
 * run: batch means with the finest batching (128, 64, 32 or 16 batches)
 * whose pooled lag-1 correlation shows no positive correlation left (r1
 * <= -1/B, the estimator's own bias when the batches are independent);
 * else 16 batches, and batch_lag1 tells how far from independent they are.
 */
void eq_series_deffs(const struct eq_series *s, struct eq_series_out *o)
{
	double mb[EQ_BATCHES_MAX], c[EQ_BATCHES_MAX], s0, s1, r1 = 0, inflate;
	unsigned nb = 0, try, per, b;
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		double k = s->k[i], rho[2], f;
		int lag;

		for (lag = 0; lag < 2; lag++)
			rho[lag] = eq_lag_rho(k, s->m, s->n, s->d[lag][i], lag + 1);
		f = eq_sampling_deff_lags(rho[0], rho[1], s->n);
		o->deff_sampling[i] = small_count_floor(f + s->cv2 * (1 - f), (uint64_t)k,
							(uint64_t)s->m);
		o->deff_run[i] = 1;
		o->df_run[i] = 0;
	}
	o->batches = 0;
	o->lag1 = 0;
	if (!s->nblocks || !(s->m > 0))
		return;
	for (try = s->nblocks; try >= EQ_BATCHES_MIN; try /= 2) {
		double t0 = 0, t1 = 0;

		per = s->nblocks / try;
		memset(mb, 0, try * sizeof(*mb));
		for (b = 0; b < s->nblocks; b++)
			mb[b / per] += s->block_m[b];
		for (i = 0; i < s->nrows; i++) {
			s->batches(s->arg, i, s->nblocks, try, c);
			eq_batch_var(c, mb, try, s->k[i] / s->m, &s0, &s1);
			t0 += s0;
			t1 += s1;
		}
		nb = try;
		r1 = t0 > 0 ? t1 / t0 : 0;
		if (r1 <= -1.0 / try)
			break;
	}
	o->batches = nb;
	o->lag1 = r1;
	/* Correlation left between the 16 batches (r1 above its -1/B bias):
	 * their mean's variance is larger by about 1 + 2 rho. */
	inflate = 1 + 2 * (r1 + 1.0 / nb > 0 ? r1 + 1.0 / nb : 0);
	per = s->nblocks / nb;
	memset(mb, 0, nb * sizeof(*mb));
	for (b = 0; b < s->nblocks; b++)
		mb[b / per] += s->block_m[b];
	for (i = 0; i < s->nrows; i++) {
		double pr = s->k[i] / s->m, v;

		s->batches(s->arg, i, s->nblocks, nb, c);
		v = eq_batch_var(c, mb, nb, pr, &s0, &s1) * inflate;
		o->deff_run[i] = pr > 0 && pr < 1 && isfinite(v) ? v / (pr * (1 - pr) / s->m) : 1;
		o->deff_run[i] = small_count_floor(o->deff_run[i], (uint64_t)s->k[i], (uint64_t)s->m);
		/* a share of 0 or 1 has no spread to estimate: the binomial floor, normal */
		o->df_run[i] = pr > 0 && pr < 1 ? nb - 1 : 0;
	}
}

/* eq_series.batches over an aggregator's rows. */
static void agg_batches(void *arg, size_t i, unsigned nblocks, unsigned nb, double *c)
{
	const struct eq_agg *a = arg;

	row_batches(&a->rows[i], nblocks, nb, c);
}

static int series_intervals(const struct eq_agg *a, struct eq_profile *p)
{
	const struct agg_series *ser = &a->ser;
	double m = (double)a->total, cv2 = 0;
	size_t n = a->nrows ? a->nrows : 1, i;
	double *k = malloc(n * sizeof(double)), *d0 = malloc(n * sizeof(double));
	double *d1 = malloc(n * sizeof(double)), *ds = malloc(n * sizeof(double));
	double *dr = malloc(n * sizeof(double));
	unsigned *df = malloc(n * sizeof(unsigned));
	struct eq_series s;
	struct eq_series_out o = { .deff_sampling = ds, .deff_run = dr, .df_run = df };
	int rc = -1;

	if (!k || !d0 || !d1 || !ds || !dr || !df)
		goto out;
	p->ordered = 1;
	/* A timer's jitter lets the sample grid drift (a renewal process):
	 * cv^2 of its intervals adds to the rounding of each stretch.  The
	 * board's quantum jitter is bounded: no drift, nothing to add. */
	if (p->mode == EQP_MODE_TIME && ser->dt_n > 1 && ser->dt_sum > 0) {
		double mean = ser->dt_sum / ser->dt_n;

		cv2 = (ser->dt_sum2 / ser->dt_n - mean * mean) / (mean * mean);
		cv2 = cv2 > 0 ? cv2 : 0;
	}
	p->interval_cv2 = cv2;
	for (i = 0; i < a->nrows; i++) {
		const struct agg_row *ar = &a->rows[i];
		double pr;

		k[i] = (double)p->rows[i].samples;
		pr = m > 0 ? k[i] / m : 0;
		d0[i] = (double)ar->trans[0] - 2 * pr * (double)ar->trans_skip[0] +
			pr * pr * (double)ser->skip_trans[0];
		d1[i] = (double)ar->trans[1] - 2 * pr * (double)ar->trans_skip[1] +
			pr * pr * (double)ser->skip_trans[1];
	}
	s = (struct eq_series){ .m = m, .n = (double)ser->n, .cv2 = cv2, .nblocks = ser->nblocks,
				.block_m = ser->block_m, .nrows = a->nrows, .k = k, .d = { d0, d1 },
				.batches = agg_batches, .arg = (void *)a };
	eq_series_deffs(&s, &o);
	for (i = 0; i < a->nrows; i++) {
		p->rows[i].deff_sampling = ds[i];
		if (o.batches) {
			p->rows[i].deff_run = dr[i];
			p->rows[i].df_run = df[i];
		}
	}
	if (o.batches) {
		p->batches = o.batches;
		p->batch_lag1 = o.lag1;
		if (ser->clock_hz > 0 && ser->t_last > ser->t_first)
			p->batch_s = (double)(ser->t_last - ser->t_first) / ser->clock_hz / o.batches;
	}
	rc = 0;
out:
	free(k);
	free(d0);
	free(d1);
	free(ds);
	free(dr);
	free(df);
	return rc;
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

	if (!p || !(p->rows = calloc(a->nrows ? a->nrows : 1, sizeof(*p->rows)))) {
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
		memcpy(r->fields, a->rows[i].fields, sizeof(r->fields));
		r->samples = a->rows[i].samples;
		r->share = a->total ? (double)r->samples / (double)a->total : 0;
		r->deff_sampling = r->deff_run = 1;
		r->amount = per_sample > 0 ? (double)r->samples * per_sample : NAN;
	}
	if (a->ser.on && series_intervals(a, p)) {
		eq_profile_free(p);
		eq_agg_free(a);
		eq_fail(err, "profile: out of memory");
		return NULL;
	}
	eq_profile_set_interval(p, EQ_IV_SAMPLING);
	qsort(p->rows, p->nrows, sizeof(*p->rows), by_samples);
	p->keys = a->keys;
	if (a->filter) {
		size_t j = 0;

		p->filtered = 1;
		p->filter_relative = a->filter->relative;
		p->filtered_samples = a->filtered;
		for (i = 0; i < p->nrows; i++) {
			if (p->rows[i].name == filtered_name)
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

/* ---- several recordings ---------------------------------------------- */

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
	r->deff_sampling = small_count_floor(r->deff_sampling, r->samples, p->total_samples);
	/* Another run's: each recording one batch. */
	v = eq_batch_var(k, m, (unsigned)np, pr, &s0, &s1);
	r->deff_run = pr > 0 && pr < 1 && isfinite(v) ? v / (pr * (1 - pr) / M) : 1;
	r->deff_run = small_count_floor(r->deff_run, r->samples, p->total_samples);
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
		p->rows = calloc(nref ? nref : 1, sizeof(*p->rows));
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
	qsort(p->rows, p->nrows, sizeof(*p->rows), by_samples);
	return p;
}

void eq_profile_free(struct eq_profile *p)
{
	if (!p)
		return;
	eq_intern_free(p->strings_);
	free(p->unresolved);
	free(p->rows);
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

double eq_profile_period_s(const struct eqp_file *f)
{
	const struct eqp_meta *m = eqp_meta(f);
	size_t nchunks = eqp_nsample_chunks(f), n0, n1;
	const struct eq_sample *first, *last;
	uint64_t n = eqp_nsamples(f);

	if (m->nominal_hz > 0)
		return 1.0 / m->nominal_hz;
	if (n < 2 || m->clock_hz <= 0 || !nchunks)
		return 0;
	first = eqp_sample_chunk(f, 0, &n0);
	last = eqp_sample_chunk(f, nchunks - 1, &n1);
	if (!n0 || !n1 || last[n1 - 1].time <= first[0].time)
		return 0;
	return (double)(last[n1 - 1].time - first[0].time) / m->clock_hz / (double)(n - 1);
}

static int by_unres_samples(const void *x, const void *y)
{
	const struct eq_unresolved *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->module, b->module);
}

/* ---- the hot loop ------------------------------------------------------- */

/*
 * pc -> row table: 16-byte slots, open addressing, at most half full.
 * "pid" is eq_sym_space_key() (the pid, or the address space after an
 * exec); by pid and thread the "pc" is 0 and the tid: rows do not depend
 * on where the sample was.
 * tag = 0 for an empty slot, else kernel/idle flags in the top 4 bits and
 * row + 1 below (ROW_SKIP + 1 for an excluded idle sample).
 */
struct pc_slot {
	uint64_t pc;
	uint32_t pid;
	uint32_t tag;
};

struct pc_table {
	struct pc_slot *slots;
	size_t mask, count;
};

#define TAG_UNRESOLVED 0x80000000u  /* the pc has no symbol: counted per module */
#define KFLAGS(smp) ((uint32_t)((smp)->flags & (EQ_F_KERNEL | EQ_F_IDLE)) << 28)

static inline size_t pc_hash(uint64_t pc, uint32_t pid)
{
	return (size_t)(((pc ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ull) >> 20);
}

static int pc_grow(struct pc_table *t)
{
	size_t newmask = t->mask ? 2 * t->mask + 1 : 8191, i;
	struct pc_slot *slots = calloc(newmask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; t->slots && i <= t->mask; i++) {
		struct pc_slot *s = &t->slots[i];
		size_t j;

		if (!s->tag)
			continue;
		for (j = pc_hash(s->pc, s->pid) & newmask; slots[j].tag; j = (j + 1) & newmask)
			;
		slots[j] = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = newmask;
	return 0;
}

/* First sight of a (pid, pc, flags): symbolize, group, remember in slot j. */
static int row_miss(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s,
		    const struct eq_sample *smp, uint64_t pc, uint32_t who, size_t j,
		    uint32_t *row, uint32_t *tag)
{
	const struct eq_loc *loc = eq_sym_lookup(s, smp);
	struct task task = { smp->pid, smp->tid, NULL, smp->cpu };
	long i;

	if (a->by == EQ_BY_THREAD && !(task.thread = eq_sym_thread_name(s, smp)))
		return -1;
	if (loc->kind == EQ_LOC_IDLE && (a->flags & EQ_PROFILE_EXCLUDE_IDLE))
		*row = ROW_SKIP;
	else if ((i = agg_row_index(a, loc, &task)) < 0 || i >= (long)ROW_SKIP)
		return -1;
	else
		*row = (uint32_t)i;
	*tag = KFLAGS(smp) | (*row + 1);
	/* by pid and thread a slot stands for many pcs: no per-pc flag */
	if ((loc->kind == EQ_LOC_UNRESOLVED || loc->kind == EQ_LOC_NO_MODULE) &&
	    a->by != EQ_BY_PID && a->by != EQ_BY_THREAD)
		*tag |= TAG_UNRESOLVED;
	t->slots[j] = (struct pc_slot){ .pc = pc, .pid = who, .tag = *tag };
	if (2 * ++t->count > t->mask && pc_grow(t))
		return -1;
	return 0;
}

static inline int row_for(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s,
			  int multi, const struct eq_sample *smp, uint32_t *row)
{
	uint32_t kf = KFLAGS(smp);
	uint32_t who = multi ? eq_sym_space_key(s, smp) : smp->pid;
	uint32_t tag;
	uint64_t pc = a->by == EQ_BY_THREAD ? smp->tid : a->by == EQ_BY_PID ? 0 : smp->pc;
	size_t j = pc_hash(pc, who) & t->mask;

	for (; t->slots[j].tag; j = (j + 1) & t->mask) {
		const struct pc_slot *c = &t->slots[j];

		if (c->pc == pc && c->pid == who && (c->tag & ~TAG_ROW_MASK & ~TAG_UNRESOLVED) == kf) {
			*row = (c->tag & TAG_ROW_MASK) - 1;
			return (c->tag & TAG_UNRESOLVED) != 0;
		}
	}
	if (row_miss(t, a, s, smp, pc, who, j, row, &tag) < 0)
		return -1;
	return (tag & TAG_UNRESOLVED) != 0;
}

#define PREFETCH_AHEAD 8

/* Samples with no symbol, per module (few modules: a list). */
struct unres_list {
	struct eq_unresolved *v;
	size_t n, cap;
};

static int unres_add(struct unres_list *u, const char *module)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		if (u->v[i].module == module) {
			u->v[i].samples++;
			return 0;
		}
	if (EQ_GROW(u->v, u->cap, u->n + 1, 16) < 0)
		return -1;
	u->v[u->n++] = (struct eq_unresolved){ .module = module, .samples = 1 };
	return 0;
}

#define ROW_NONE UINT32_MAX

static int series_init(struct agg_series *ser, uint64_t n, double clock_hz)
{
	unsigned nb = EQ_BATCHES_MAX;

	free(ser->block_m);
	memset(ser, 0, sizeof(*ser));
	ser->on = 1;
	ser->prev[0] = ser->prev[1] = ROW_NONE;
	ser->expected = n;
	ser->clock_hz = clock_hz;
	while (nb >= EQ_BATCHES_MIN && n / nb < EQ_BATCH_MIN_SAMPLES)
		nb /= 2;
	if (nb < EQ_BATCHES_MIN)
		return 0;          /* too few samples for batch means */
	ser->nblocks = nb;
	ser->next_boundary = (n + nb - 1) / nb;
	ser->block_m = calloc(nb, sizeof(*ser->block_m));
	return ser->block_m ? 0 : -1;
}

static int blk_add(struct blk_list *l, unsigned block)
{
	if (l->n && (unsigned)(l->v[l->n - 1] >> 32) == block) {
		l->v[l->n - 1]++;
		return 0;
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 2;
		uint64_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (uint64_t)block << 32 | 1;
	return 0;
}

/* Sample pair (row, prev) `lag` apart: count it if they differ. */
static inline void pair(struct eq_agg *a, uint32_t row, uint32_t prev, int lag)
{
	if (prev == row || prev == ROW_NONE)
		return;
	if (row != ROW_SKIP)
		a->rows[row].trans[lag]++;
	if (prev != ROW_SKIP)
		a->rows[prev].trans[lag]++;
	if (row == ROW_SKIP || prev == ROW_SKIP) {
		a->ser.skip_trans[lag]++;
		a->rows[row == ROW_SKIP ? prev : row].trans_skip[lag]++;
	}
}

/* One more sample in time order, in row (ROW_SKIP: an excluded idle one). */
static inline int series_add(struct eq_agg *a, uint32_t row, uint64_t time, uint16_t flags)
{
	struct agg_series *ser = &a->ser;
	uint32_t prev = ser->prev[0];

	if (prev == ROW_NONE) {
		ser->t_first = time;
	} else if (!(flags & EQ_F_LOST) && time >= ser->t_last) {
		double dt = (double)(time - ser->t_last);

		ser->dt_n++;
		ser->dt_sum += dt;
		ser->dt_sum2 += dt * dt;
	}
	ser->t_last = time;
	pair(a, row, prev, 0);
	pair(a, row, ser->prev[1], 1);
	ser->prev[1] = prev;
	ser->prev[0] = row;
	if (ser->nblocks) {
		while (ser->n >= ser->next_boundary && ser->block + 1 < ser->nblocks) {
			ser->block++;
			ser->next_boundary = ((uint64_t)(ser->block + 1) * ser->expected +
					      ser->nblocks - 1) / ser->nblocks;
		}
		if (row != ROW_SKIP) {
			ser->block_m[ser->block]++;
			if (blk_add(&a->rows[row].blk, ser->block))
				return -1;
		}
	}
	ser->n++;
	return 0;
}

int eq_agg_order(struct eq_agg *a, uint64_t nsamples, double clock_hz, struct eq_error *err)
{
	if (a->nrows || series_init(&a->ser, nsamples, clock_hz))
		return eq_fail(err, a->nrows ? "profile: eq_agg_order after samples were added" :
			       "profile: out of memory");
	return 0;
}

int eq_agg_add_sample(struct eq_agg *a, const struct eq_loc *loc, uint64_t time,
		      struct eq_error *err)
{
	uint32_t row = ROW_SKIP;
	long i;

	if (loc->kind == EQ_LOC_IDLE)
		a->idle++;
	if (loc->kind != EQ_LOC_IDLE || !(a->flags & EQ_PROFILE_EXCLUDE_IDLE)) {
		if ((i = agg_row_index(a, loc, NULL)) < 0 || i >= (long)ROW_SKIP)
			return eq_fail(err, "profile: out of memory");
		row = (uint32_t)i;
		a->rows[row].samples++;
		a->total++;
	}
	if (a->ser.on && series_add(a, row, time, 0))
		return eq_fail(err, "profile: out of memory");
	return 0;
}

static int count_chunk(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s,
		       const struct eq_sample *smp, size_t n, uint64_t *lost_marks,
		       struct unres_list *unres)
{
	/* The pid names the address space unless some process exec'ed. */
	int multi = eq_sym_multi_space(s);
	int ahead = !multi && a->by != EQ_BY_PID && a->by != EQ_BY_THREAD;
	size_t k;

	for (k = 0; k < n; k++) {
		uint32_t row;

		/* Random pcs miss the cache: ask for a later sample's slot now. */
		if (ahead && k + PREFETCH_AHEAD < n)
			__builtin_prefetch(&t->slots[pc_hash(smp[k + PREFETCH_AHEAD].pc,
							     smp[k + PREFETCH_AHEAD].pid) & t->mask]);
		int u = row_for(t, a, s, multi, &smp[k], &row);

		if (u < 0)
			return -1;
		/* the symbolizer's own cache has the pc's module */
		if (u && !(row == ROW_SKIP) &&
		    unres_add(unres, eq_sym_lookup(s, &smp[k])->module) < 0)
			return -1;
		*lost_marks += (smp[k].flags & EQ_F_LOST) != 0;
		if (row == ROW_SKIP)
			a->idle++;
		else
			a->rows[row].samples++;
		if (series_add(a, row, smp[k].time, smp[k].flags))
			return -1;
	}
	return 0;
}

/*
 * The same with sort keys or a filter: rows depend on more than the pc (the
 * thread, the CPU), so every sample is located through the symbolizer's own
 * cache and its row looked up by key.
 */
/* The filter's verdict on (loc, thread), remembered (fnmatch per sample
 * would dominate). */
static int filter_cached(struct eq_agg *a, const struct eq_loc *loc, const char *thread)
{
	size_t h = (size_t)((((uint64_t)(uintptr_t)loc * 0x9e3779b97f4a7c15ull) ^
			     ((uint64_t)(uintptr_t)thread * 0xc2b2ae3d27d4eb4full)) >> 40) &
		   (FCACHE_SIZE - 1);
	struct fcache_slot *c = &a->fcache[h];

	if (c->loc != loc || c->thread != thread) {
		c->loc = loc;
		c->thread = thread;
		c->keep = filter_eval(a->filter, loc, thread, 1);
	}
	return c->keep;
}

static int count_chunk_keys(struct eq_agg *a, struct eq_symbolizer *s,
			    const struct eq_sample *smp, size_t n, uint64_t *lost_marks,
			    struct unres_list *unres)
{
	int need_thread = a->by == EQ_BY_THREAD || (a->filter && a->filter->ncomm);
	unsigned i;
	size_t k;

	for (i = 0; i < a->keys.n; i++)
		need_thread |= a->keys.k[i] == EQ_KEY_COMM || a->keys.k[i] == EQ_KEY_TID;
	if (a->filter && !a->fcache && !(a->fcache = calloc(FCACHE_SIZE, sizeof(*a->fcache))))
		return -1;
	for (k = 0; k < n; k++) {
		const struct eq_loc *loc = eq_sym_lookup(s, &smp[k]);
		struct task task = { smp[k].pid, smp[k].tid, NULL, smp[k].cpu };
		uint32_t row;
		long r;

		if (need_thread && !(task.thread = eq_sym_thread_name(s, &smp[k])))
			return -1;
		if (loc->kind == EQ_LOC_IDLE && (a->flags & EQ_PROFILE_EXCLUDE_IDLE)) {
			row = ROW_SKIP;
		} else if (a->filter && !filter_cached(a, loc, task.thread)) {
			if (a->filter->relative) {
				row = ROW_SKIP;
				a->filtered++;
			} else {
				if ((r = filtered_index(a)) < 0)
					return -1;
				row = (uint32_t)r;
			}
		} else {
			if ((r = agg_row_index(a, loc, &task)) < 0 || r >= (long)ROW_SKIP)
				return -1;
			row = (uint32_t)r;
			if ((loc->kind == EQ_LOC_UNRESOLVED || loc->kind == EQ_LOC_NO_MODULE) &&
			    unres_add(unres, loc->module) < 0)
				return -1;
		}
		*lost_marks += (smp[k].flags & EQ_F_LOST) != 0;
		if (loc->kind == EQ_LOC_IDLE && (row == ROW_SKIP || (long)row == a->filtered_row))
			a->idle++;
		if (row != ROW_SKIP)
			a->rows[row].samples++;
		if (series_add(a, row, smp[k].time, smp[k].flags))
			return -1;
	}
	return 0;
}

/* ---- --from/--to ---------------------------------------------------------- */

uint64_t eq_samples_t0(const struct eqp_file *f)
{
	uint64_t t0 = UINT64_MAX;
	size_t c, i, n;

	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++)
			if (smp[i].time < t0)
				t0 = smp[i].time;
	}
	return t0 == UINT64_MAX ? 0 : t0;
}

/* The samples of a range in time order, as slices: of the file's chunks
 * when the file is in time order, else of one sorted copy. */
struct range_slice {
	const struct eq_sample *smp;
	size_t n;
};
struct range_slices {
	struct range_slice *v;
	size_t n;
	uint64_t total;
	struct eq_sample *copy;
};

static void range_slices_free(struct range_slices *rs)
{
	free(rs->v);
	free(rs->copy);
	memset(rs, 0, sizeof(*rs));
}

static int cmp_sample_time(const void *x, const void *y)
{
	const struct eq_sample *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* First index of smp[0..n) whose sample is not before the range (in), or
 * not in it any more (!in); smp in time order. */
static size_t range_bound(const struct eq_sample *smp, size_t n, uint64_t t0,
			  const struct eq_tick_range *tr, int past_end)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t rel = smp[mid].time - t0;
		int64_t r = rel > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rel;
		int ahead = past_end ? r > tr->to : (r > tr->from || (r == 0 && tr->from <= 0));

		if (ahead)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int range_slices(const struct eqp_file *f, const struct eq_range *r, struct range_slices *rs)
{
	const struct eqp_meta *m = eqp_meta(f);
	size_t nc = eqp_nsample_chunks(f), c, i, n, k = 0;
	uint64_t t0 = eq_samples_t0(f), prev = 0;
	struct eq_tick_range tr;
	int ordered = 1;

	eq_range_ticks(r, m->clock_hz > 0 ? m->clock_hz : 1e9, &tr);
	for (c = 0; c < nc && ordered; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++) {
			if (smp[i].time < prev) {
				ordered = 0;
				break;
			}
			prev = smp[i].time;
		}
	}
	rs->v = calloc(nc ? nc : 1, sizeof(*rs->v));
	if (!rs->v)
		return -1;
	if (ordered) {
		for (c = 0; c < nc; c++) {
			const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);
			size_t lo, hi;

			if (!smp)
				continue;
			lo = range_bound(smp, n, t0, &tr, 0);
			hi = range_bound(smp, n, t0, &tr, 1);
			if (hi > lo) {
				rs->v[rs->n++] = (struct range_slice){ smp + lo, hi - lo };
				rs->total += hi - lo;
			}
		}
		return 0;
	}
	/* several rings drained one after the other: the range's samples sorted */
	for (c = 0; c < nc; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++)
			rs->total += eq_tick_range_has(&tr, smp[i].time - t0);
	}
	rs->copy = malloc((rs->total ? rs->total : 1) * sizeof(*rs->copy));
	if (!rs->copy)
		return -1;
	for (c = 0; c < nc; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++)
			if (eq_tick_range_has(&tr, smp[i].time - t0))
				rs->copy[k++] = smp[i];
	}
	qsort(rs->copy, k, sizeof(*rs->copy), cmp_sample_time);
	rs->v[0] = (struct range_slice){ rs->copy, k };
	rs->n = 1;
	return 0;
}

struct eq_profile *eq_profile_build(const struct eqp_file *f, struct eq_symbolizer *s,
				    enum eq_by by, unsigned flags, struct eq_error *err)
{
	return eq_profile_build_progress(f, s, by, flags, NULL, NULL, err);
}

struct eq_profile *eq_profile_build_progress(const struct eqp_file *f,
					     struct eq_symbolizer *s, enum eq_by by,
					     unsigned flags, eq_progress_fn *progress,
					     void *arg, struct eq_error *err)
{
	struct eq_profile_opts o = { .flags = flags, .progress = progress, .progress_arg = arg };

	return eq_profile_build_opts(f, s, by, &o, err);
}

struct eq_profile *eq_profile_build_opts(const struct eqp_file *f, struct eq_symbolizer *s,
					 enum eq_by by, const struct eq_profile_opts *o,
					 struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	struct pc_table t = { 0 };
	struct eq_agg *a = eq_agg_new(by, o->flags, err);
	struct eq_profile *p;
	uint64_t lost_marks = 0, done = 0;
	struct unres_list unres = { 0 };
	eq_progress_fn *progress = o->progress;
	void *arg = o->progress_arg;
	struct range_slices rs = { 0 };
	size_t nslices;
	int slow;
	size_t c, i;

	if (!a)
		return NULL;
	if (o->keys)
		a->keys = *o->keys;
	if (eq_filter_active(o->filter))
		a->filter = o->filter;
	slow = a->keys.n || a->filter;
	if (eq_range_active(o->range)) {
		if (range_slices(f, o->range, &rs) < 0)
			goto oom;
		nslices = rs.n;
	} else {
		nslices = eqp_nsample_chunks(f);
	}
	if (pc_grow(&t) || series_init(&a->ser, rs.v ? rs.total : eqp_nsamples(f), m->clock_hz))
		goto oom;
	for (c = 0; c < nslices; c++) {
		size_t n;
		const struct eq_sample *smp = rs.v ? rs.v[c].smp : eqp_sample_chunk(f, c, &n);

		if (rs.v)
			n = rs.v[c].n;
		if (smp && (slow ? count_chunk_keys(a, s, smp, n, &lost_marks, &unres) :
			    count_chunk(&t, a, s, smp, n, &lost_marks, &unres)))
			goto oom;
		done += smp ? n : 0;
		if (progress)
			progress(done, rs.v ? rs.total : eqp_nsamples(f), arg);
	}
	range_slices_free(&rs);
	free(t.slots);
	for (i = 0; i < a->nrows; i++) {
		a->total += a->rows[i].samples;
		if (a->rows[i].loc && a->rows[i].loc->kind == EQ_LOC_IDLE)
			a->idle += a->rows[i].samples;
	}
	p = eq_agg_finish(a, m->mode, m->quantum_j,
			  m->mode == EQP_MODE_TIME ? eq_profile_period_s(f) : 0,
			  eqp_lost_total(f), err);
	if (p) {
		if (eq_range_active(o->range)) {
			p->ranged = 1;
			eq_range_edges(o->range, m->clock_hz > 0 ? m->clock_hz : 1e9,
				       &p->range_from_s, &p->range_to_s);
		}
		p->lost_marks = lost_marks;
		p->skipped = *eqp_skipped(f);
		p->note = eqp_meta_get(f, "note");
		if (unres.n)
			qsort(unres.v, unres.n, sizeof(*unres.v), by_unres_samples);
		for (i = 0; i < unres.n; i++) {
			unres.v[i].why = eq_sym_module_note(s, unres.v[i].module);
			p->unresolved_samples += unres.v[i].samples;
		}
		p->unresolved = unres.v;
		p->nunresolved = unres.n;
	} else {
		free(unres.v);
	}
	return p;
oom:
	range_slices_free(&rs);
	free(unres.v);
	free(t.slots);
	eq_agg_free(a);
	eq_fail(err, "profile of %s: out of memory", eqp_path(f));
	return NULL;
}
