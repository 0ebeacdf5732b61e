/*
 * profile.c - group located samples into rows at one granularity.
 *
 * The hot loop in eq_profile_build() looks each sample up in a table keyed
 * by (pid, pc, kernel/idle flags) that maps straight to its row, so a pc is
 * symbolized and grouped once however many samples hit it; memory grows
 * with distinct pcs only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "profile.h"
#include "stats.h"

struct agg_key {
	const void *a, *b;
	uint64_t c;
};

struct agg_row {
	struct agg_key key;
	const char *name, *module;
	const struct eq_loc *loc;
	uint32_t pid, tid;
	uint64_t samples;
};

/* The task a sample ran in, for rows by pid and thread. */
struct task {
	uint32_t pid, tid;
	const char *thread;   /* its name (eq_sym_thread_name) */
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
};

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
	return (unsigned)by < NBY ? by_names[by] : "?";
}

static uint64_t key_hash(const struct agg_key *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->a * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)k->b * 0xc2b2ae3d27d4eb4full;
	h ^= k->c * 0x165667b19e3779f9ull;
	h ^= h >> 29;
	return h;
}

struct eq_agg *eq_agg_new(enum eq_by by, unsigned flags, struct eq_error *err)
{
	struct eq_agg *a = calloc(1, sizeof(*a));

	if (a) {
		a->by = by;
		a->flags = flags;
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
	if (!a)
		return;
	free(a->rows);
	free(a->slots);
	eq_intern_free(a->strings);
	free(a);
}

/* The key and display names of loc's row at a->by (task: the sample's
 * thread, for rows by pid and thread; NULL: loc's process). */
static void row_of(struct eq_agg *a, const struct eq_loc *loc, const struct task *task,
		   struct agg_key *k, const char **name, const char **module)
{
	memset(k, 0, sizeof(*k));
	*name = NULL;
	*module = loc->module_base;
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
		if (r->key.a == k.a && r->key.b == k.b && r->key.c == k.c)
			return (long)(a->slots[j] - 1);
	}
	if (a->nrows == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		struct agg_row *rows = realloc(a->rows, cap * sizeof(*rows));

		if (!rows)
			return -1;
		a->rows = rows;
		a->cap = cap;
	}
	if (!name)
		name = format_name(a, loc, &k);
	if (!module)
		module = eq_internf(a->strings, "%u:%s", loc->pid, loc->exe);
	if (!name || !module)
		return -1;
	r = &a->rows[a->nrows];
	*r = (struct agg_row){ .key = k, .name = name, .module = module, .loc = loc };
	if (loc->kind != EQ_LOC_IDLE && (a->by == EQ_BY_PID || a->by == EQ_BY_THREAD)) {
		r->pid = loc->pid;
		r->tid = a->by == EQ_BY_THREAD ? (uint32_t)k.c : 0;
	}
	a->slots[j] = (uint32_t)(++a->nrows);
	return (long)(a->nrows - 1);
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
		r->samples = a->rows[i].samples;
		r->share = a->total ? (double)r->samples / (double)a->total : 0;
		eq_wilson(r->samples, a->total, EQ_Z95, &r->ci95_low, &r->ci95_high);
		r->amount = per_sample > 0 ? (double)r->samples * per_sample : NAN;
	}
	qsort(p->rows, p->nrows, sizeof(*p->rows), by_samples);
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

#define TAG_ROW_MASK 0x0fffffffu
#define TAG_UNRESOLVED 0x80000000u  /* the pc has no symbol: counted per module */
#define ROW_SKIP (TAG_ROW_MASK - 1)   /* excluded idle sample */
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
	struct task task = { smp->pid, smp->tid, NULL };
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
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 16;
		struct eq_unresolved *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return -1;
		u->v = v;
		u->cap = cap;
	}
	u->v[u->n++] = (struct eq_unresolved){ .module = module, .samples = 1 };
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
	}
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
	const struct eqp_meta *m = eqp_meta(f);
	struct pc_table t = { 0 };
	struct eq_agg *a = eq_agg_new(by, flags, err);
	struct eq_profile *p;
	uint64_t lost_marks = 0, done = 0;
	struct unres_list unres = { 0 };
	size_t c, i;

	if (!a)
		return NULL;
	if (pc_grow(&t))
		goto oom;
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		if (smp && count_chunk(&t, a, s, smp, n, &lost_marks, &unres))
			goto oom;
		done += smp ? n : 0;
		if (progress)
			progress(done, eqp_nsamples(f), arg);
	}
	free(t.slots);
	for (i = 0; i < a->nrows; i++) {
		a->total += a->rows[i].samples;
		if (a->rows[i].loc->kind == EQ_LOC_IDLE)
			a->idle += a->rows[i].samples;
	}
	p = eq_agg_finish(a, m->mode, m->quantum_j,
			  m->mode == EQP_MODE_TIME ? eq_profile_period_s(f) : 0,
			  eqp_lost_total(f), err);
	if (p) {
		p->lost_marks = lost_marks;
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
	free(unres.v);
	free(t.slots);
	eq_agg_free(a);
	eq_fail(err, "profile of %s: out of memory", eqp_path(f));
	return NULL;
}
