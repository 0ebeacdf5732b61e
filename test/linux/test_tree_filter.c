/*
 * test_tree_filter.c - record -e without -a keeps the command's process tree:
 * samples of the root and of every process forked from it (also forks of
 * forks, learnt in order) pass; others are counted, not passed; maps,
 * names and losses always pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "record/tree_filter.h"

struct seen {
	uint32_t pids[64];
	int n, maps, comms, forks;
	uint64_t lost;
};

static int s_sample(void *ctx, const struct eq_sample *s)
{
	struct seen *x = ctx;

	x->pids[x->n++] = s->pid;
	return 0;
}

static int s_mmap(void *ctx, uint32_t pid, uint64_t time, const char *line)
{
	((struct seen *)ctx)->maps++;
	return 0;
}

static int s_comm(void *ctx, uint32_t pid, uint32_t tid, uint64_t time, const char *name, int exec)
{
	((struct seen *)ctx)->comms++;
	return 0;
}

static int s_fork(void *ctx, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid,
		  uint64_t time)
{
	((struct seen *)ctx)->forks++;
	return 0;
}

static void s_lost(void *ctx, uint32_t source, uint64_t count)
{
	((struct seen *)ctx)->lost += count;
}

static void sample(const struct eq_sink *k, uint32_t pid)
{
	struct eq_sample s = { .pid = pid, .tid = pid };

	assert_int_equal(k->sample(k->ctx, &s), 0);
}

static void keeps_the_tree(void **state)
{
	struct seen x = { 0 };
	struct eq_sink down = { .ctx = &x, .sample = s_sample, .mmap = s_mmap, .comm = s_comm,
				 .fork = s_fork, .lost = s_lost };
	struct tree_filter *f = tree_filter_new(100, &down);
	struct eq_sink k;
	uint32_t i;

	(void)state;
	assert_non_null(f);
	k = tree_filter_sink(f);
	sample(&k, 100);
	sample(&k, 7);                                  /* not ours */
	sample(&k, 0);                                  /* idle: not the command */
	assert_int_equal(k.fork(k.ctx, 100, 100, 101, 101, 1), 0);   /* child */
	assert_int_equal(k.fork(k.ctx, 101, 101, 102, 102, 2), 0);   /* grandchild */
	assert_int_equal(k.fork(k.ctx, 7, 7, 8, 8, 3), 0);         /* someone else's */
	assert_int_equal(k.fork(k.ctx, 100, 100, 100, 105, 4), 0);   /* a thread */
	sample(&k, 101);
	sample(&k, 102);
	sample(&k, 8);
	assert_int_equal(k.mmap(k.ctx, 8, 0, "x\n"), 0);
	assert_int_equal(k.comm(k.ctx, 8, 8, 0, "other", 1), 0);
	k.lost(k.ctx, 1, 5);
	/* many descendants: the set grows past its first size */
	for (i = 200; i < 300; i++)
		assert_int_equal(k.fork(k.ctx, i == 200 ? 100 : i - 1, i == 200 ? 100 : i - 1, i, i, i), 0);
	sample(&k, 299);
	assert_int_equal(x.n, 4);
	assert_int_equal(x.pids[0], 100);
	assert_int_equal(x.pids[1], 101);
	assert_int_equal(x.pids[2], 102);
	assert_int_equal(x.pids[3], 299);
	assert_int_equal(tree_filter_dropped(f), 3);
	assert_int_equal(x.maps, 1);
	assert_int_equal(x.comms, 1);
	assert_int_equal(x.forks, 104);
	assert_int_equal(x.lost, 5);
	tree_filter_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_the_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
