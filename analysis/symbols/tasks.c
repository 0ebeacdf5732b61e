/*
 * tasks.c - processes, address spaces and thread names of a recording over
 * time; see tasks.h.
 *
 * Built once from every MAPS and COMM chunk (sorted by pid and time, so a
 * recording of many processes costs n log n, not a scan per process), then
 * looked up per sample through a hash on pid.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/intern.h"
#include "symbols/tasks.h"
#include "util/grow.h"

struct pname {
	uint64_t time;
	const char *name;
};

struct proc {
	uint32_t pid;
	struct eq_space *spaces;   /* sorted by start; never reallocated once built */
	size_t n, last;            /* last: the space of the previous lookup */
	struct pname *names;       /* process names by time */
	size_t nnames;
};

struct tname {
	uint32_t pid, tid;
	const char *name;
};

struct eq_tasks {
	struct proc *procs;
	size_t nprocs, cap;
	uint32_t *slots;           /* proc index + 1, open addressing on pid */
	size_t mask;
	struct tname *threads;     /* sorted by (pid, tid) */
	size_t nthreads;
	uint32_t nwho;
	int multi;
};

/* A chunk reference, sortable by (pid, tid, time, file order). */
struct ref {
	uint32_t pid, tid;
	uint64_t time;
	size_t idx;
};

static int by_pid_time(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t hash_pid(uint32_t pid)
{
	uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 29);
}

static int rehash(struct eq_tasks *t, size_t mask)
{
	uint32_t *slots = calloc(mask + 1, sizeof(*slots));
	size_t i, j;

	if (!slots)
		return -1;
	for (i = 0; i < t->nprocs; i++) {
		for (j = hash_pid(t->procs[i].pid) & mask; slots[j]; j = (j + 1) & mask)
			;
		slots[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->mask = mask;
	return 0;
}

static struct proc *find(const struct eq_tasks *t, uint32_t pid)
{
	size_t j;

	for (j = hash_pid(pid) & t->mask; t->slots[j]; j = (j + 1) & t->mask)
		if (t->procs[t->slots[j] - 1].pid == pid)
			return &t->procs[t->slots[j] - 1];
	return NULL;
}

/* The entry of pid, made empty on first sight. */
static struct proc *get(struct eq_tasks *t, uint32_t pid)
{
	struct proc *p = find(t, pid);
	size_t j;

	if (p)
		return p;
	if (EQ_GROW(t->procs, t->cap, t->nprocs + 1, 64) < 0)
		return NULL;
	if (2 * (t->nprocs + 1) > t->mask && rehash(t, 2 * t->mask + 1))
		return NULL;
	p = &t->procs[t->nprocs];
	*p = (struct proc){ .pid = pid };
	for (j = hash_pid(pid) & t->mask; t->slots[j]; j = (j + 1) & t->mask)
		;
	t->slots[j] = (uint32_t)++t->nprocs;
	return p;
}

/* The name of spaces[k]: the last given during its life, else the last
 * before it, else none. */
static const char *space_name(const struct proc *p, size_t k)
{
	uint64_t from = p->spaces[k].start;
	int last = k + 1 == p->n;
	uint64_t to = last ? 0 : p->spaces[k + 1].start;
	const char *before = NULL, *during = NULL;
	size_t i;

	for (i = 0; i < p->nnames; i++) {
		const struct pname *nm = &p->names[i];

		if (nm->time < from && k > 0)
			before = nm->name;
		else if (last || nm->time < to)
			during = nm->name;
	}
	return during ? during : before;
}

static void add_space(struct eq_tasks *t, struct proc *p, const struct eqp_maps *m,
		      uint64_t start)
{
	p->spaces[p->n++] = (struct eq_space){ .pid = p->pid, .who = ++t->nwho,
					       .start = start, .maps = m };
}

static int index_maps(struct eq_tasks *t, const struct eqp_file *f)
{
	size_t n = eqp_nmaps(f), i, j, k;
	struct ref *refs = malloc((n ? n : 1) * sizeof(*refs));

	if (!refs)
		return -1;
	for (i = 0; i < n; i++) {
		const struct eqp_maps *m = eqp_maps_at(f, i);

		refs[i] = (struct ref){ .pid = m->pid, .time = m->time, .idx = i };
	}
	qsort(refs, n, sizeof(*refs), by_pid_time);
	for (i = 0; i < n; i = j) {
		struct proc *p = get(t, refs[i].pid);
		size_t times = 0;

		for (j = i; j < n && refs[j].pid == refs[i].pid; j++)
			times += j == i || refs[j].time != refs[j - 1].time;
		if (!p || !(p->spaces = calloc(times, sizeof(*p->spaces))))
			goto oom;
		/* Of chunks with one time, the last written is the most complete. */
		for (k = i; k < j; k++)
			if (k + 1 == j || refs[k + 1].time != refs[k].time)
				add_space(t, p, eqp_maps_at(f, refs[k].idx), refs[k].time);
		if (p->n > 1)
			t->multi = 1;
	}
	free(refs);
	return 0;
oom:
	free(refs);
	return -1;
}

static int index_names(struct eq_tasks *t, const struct eqp_file *f, struct eq_intern *strings)
{
	size_t n = eqp_ncomm(f), i, j;
	struct ref *refs = malloc((n ? n : 1) * sizeof(*refs));

	if (!refs)
		return -1;
	for (i = 0; i < n; i++) {
		const struct eqp_comm *c = eqp_comm_at(f, i);

		/* tid 0 and tid = pid both name the process: sort them together */
		refs[i] = (struct ref){ .pid = c->pid, .tid = c->tid == c->pid ? 0 : c->tid,
					.time = c->time, .idx = i };
	}
	qsort(refs, n, sizeof(*refs), by_pid_time);
	t->threads = calloc(n ? n : 1, sizeof(*t->threads));
	if (!t->threads)
		goto oom;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && refs[j].pid == refs[i].pid && refs[j].tid == refs[i].tid; j++)
			;
		if (refs[i].tid) {
			/* a thread keeps the last name it gave itself */
			const char *nm = eq_intern(strings, eqp_comm_at(f, refs[j - 1].idx)->name);

			if (!nm)
				goto oom;
			t->threads[t->nthreads++] = (struct tname){ refs[i].pid, refs[i].tid, nm };
		} else {
			struct proc *p = get(t, refs[i].pid);
			size_t k;

			if (!p || !(p->names = calloc(j - i, sizeof(*p->names))))
				goto oom;
			for (k = i; k < j; k++) {
				const char *nm = eq_intern(strings, eqp_comm_at(f, refs[k].idx)->name);

				if (!nm)
					goto oom;
				p->names[p->nnames++] = (struct pname){ refs[k].time, nm };
			}
		}
	}
	free(refs);
	return 0;
oom:
	free(refs);
	return -1;
}

struct eq_tasks *eq_tasks_new(const struct eqp_file *f, struct eq_intern *strings)
{
	struct eq_tasks *t = calloc(1, sizeof(*t));
	size_t i, k;

	if (!t || rehash(t, 63) || index_maps(t, f) || index_names(t, f, strings))
		goto oom;
	for (i = 0; i < t->nprocs; i++) {
		struct proc *p = &t->procs[i];

		if (!p->n) {            /* named, but no maps: one empty space */
			p->spaces = calloc(1, sizeof(*p->spaces));
			if (!p->spaces)
				goto oom;
			add_space(t, p, NULL, 0);
		}
		for (k = 0; k < p->n; k++)
			p->spaces[k].exe = space_name(p, k);
	}
	return t;
oom:
	eq_tasks_free(t, NULL);
	return NULL;
}

void eq_tasks_free(struct eq_tasks *t, void (*release)(void *user))
{
	size_t i, k;

	if (!t)
		return;
	for (i = 0; i < t->nprocs; i++) {
		for (k = 0; release && k < t->procs[i].n; k++)
			if (t->procs[i].spaces[k].user)
				release(t->procs[i].spaces[k].user);
		free(t->procs[i].spaces);
		free(t->procs[i].names);
	}
	free(t->procs);
	free(t->slots);
	free(t->threads);
	free(t);
}

int eq_tasks_multi(const struct eq_tasks *t)
{
	return t->multi;
}

struct eq_space *eq_tasks_space(struct eq_tasks *t, uint32_t pid, uint64_t time)
{
	struct proc *p = find(t, pid);
	size_t lo, hi;

	if (!p) {
		p = get(t, pid);
		if (!p || !(p->spaces = calloc(1, sizeof(*p->spaces))))
			return NULL;
		add_space(t, p, NULL, 0);
	}
	if (p->n == 1)
		return &p->spaces[0];
	/* Samples of a process come in runs: try the last answer first. */
	if (p->spaces[p->last].start <= time &&
	    (p->last + 1 == p->n || time < p->spaces[p->last + 1].start))
		return &p->spaces[p->last];
	for (lo = 0, hi = p->n; lo < hi;) {   /* first space starting after time */
		size_t mid = lo + (hi - lo) / 2;

		if (p->spaces[mid].start <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	p->last = lo ? lo - 1 : 0;
	return &p->spaces[p->last];
}

const char *eq_tasks_thread_name(const struct eq_tasks *t, uint32_t pid, uint32_t tid)
{
	size_t lo = 0, hi = t->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct tname *x = &t->threads[mid];

		if (x->pid == pid && x->tid == tid)
			return x->name;
		if (x->pid < pid || (x->pid == pid && x->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
