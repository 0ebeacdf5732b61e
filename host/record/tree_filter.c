/*
 * tree_filter.c - keeping one process tree's samples; see tree_filter.h.
 */
#include "record/tree_filter.h"

#include <stdlib.h>

struct tree_filter {
	struct eq_sink down;
	uint32_t *pids;         /* open addressing, 0 = empty */
	size_t n, cap;
	uint64_t dropped;
};

static size_t pid_hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	return x;
}

static int tree_has(const struct tree_filter *f, uint32_t pid)
{
	size_t i;

	for (i = pid_hash(pid) & (f->cap - 1); f->pids[i]; i = (i + 1) & (f->cap - 1))
		if (f->pids[i] == pid)
			return 1;
	return 0;
}

static int tree_add(struct tree_filter *f, uint32_t pid)
{
	size_t i;

	if (!pid || tree_has(f, pid))
		return 0;
	if ((f->n + 1) * 2 > f->cap) {
		uint32_t *old = f->pids;
		size_t oldcap = f->cap, j;

		f->pids = calloc(f->cap * 2, sizeof(*f->pids));
		if (!f->pids) {
			f->pids = old;
			return -1;
		}
		f->cap *= 2;
		f->n = 0;
		for (j = 0; j < oldcap; j++)
			if (old[j])
				tree_add(f, old[j]);
		free(old);
	}
	for (i = pid_hash(pid) & (f->cap - 1); f->pids[i]; i = (i + 1) & (f->cap - 1))
		;
	f->pids[i] = pid;
	f->n++;
	return 0;
}

static int tf_sample(void *ctx, const struct eq_sample *s)
{
	struct tree_filter *f = ctx;

	if (!tree_has(f, s->pid)) {
		f->dropped++;
		return 0;
	}
	return f->down.sample(f->down.ctx, s);
}

static int tf_mmap(void *ctx, uint32_t pid, uint64_t time, const char *line)
{
	struct tree_filter *f = ctx;

	return f->down.mmap(f->down.ctx, pid, time, line);
}

static int tf_comm(void *ctx, uint32_t pid, uint32_t tid, uint64_t time, const char *name,
		   int exec)
{
	struct tree_filter *f = ctx;

	return f->down.comm(f->down.ctx, pid, tid, time, name, exec);
}

static int tf_fork(void *ctx, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid,
		   uint64_t time)
{
	struct tree_filter *f = ctx;

	if (tree_has(f, ppid) && tree_add(f, pid) < 0)
		return -1;
	return f->down.fork(f->down.ctx, ppid, ptid, pid, tid, time);
}

static void tf_lost(void *ctx, uint32_t source, uint64_t count)
{
	struct tree_filter *f = ctx;

	f->down.lost(f->down.ctx, source, count);
}

struct tree_filter *tree_filter_new(pid_t root, const struct eq_sink *down)
{
	struct tree_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->down = *down;
	f->cap = 64;
	f->pids = calloc(f->cap, sizeof(*f->pids));
	if (!f->pids || tree_add(f, (uint32_t)root) < 0) {
		tree_filter_free(f);
		return NULL;
	}
	return f;
}

struct eq_sink tree_filter_sink(struct tree_filter *f)
{
	return (struct eq_sink){ .ctx = f, .sample = tf_sample, .mmap = tf_mmap, .comm = tf_comm,
				 .fork = tf_fork, .lost = tf_lost };
}

uint64_t tree_filter_dropped(const struct tree_filter *f)
{
	return f->dropped;
}

void tree_filter_free(struct tree_filter *f)
{
	if (!f)
		return;
	free(f->pids);
	free(f);
}
