/*
 * test_ring_stress.c - two threads, at least 10 million pushes through a
 * small ring: every seq is either delivered exactly once, in order, with
 * its own payload, or counted lost (the ring's drop counter, the seq gap
 * and EQ_F_LOST all agree), once through a ring that overflows all the time
 * and once through one that mostly keeps up.  Built three ways: plain, ASan+UBSan, and
 * ThreadSanitizer (test/isr/module.mk).  EQ_STRESS_N overrides the count.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "eq_ring.h"

#define SMALL_RING 1024      /* overflows all the time: drops on every burst */
#define LARGE_RING 65536     /* mostly keeps up: the ordinary path under contention */
#define BATCH 256

struct stress {
	struct eq_ring ring;
	struct eq_sample *slots;
	uint32_t total;
	int done;                  /* producer finished (atomic) */
	/* consumer's findings */
	uint64_t delivered, gaps, gap_samples, lost_flags, bad_payload, bad_flag, out_of_order;
	uint32_t last_seq;
	int have_last;
};

static void *producer(void *arg)
{
	struct stress *st = arg;
	uint32_t i;

	for (i = 0; i < st->total; i++) {
		struct eq_sample s = { .time = i, .pc = (uint64_t)i * 7 + 3, .pid = i ^ 0x5a5a,
				       .tid = ~i, .cpu = (uint16_t)i, .flags = EQ_F_ENERGY };

		eq_ring_push(&st->ring, &s);
		if ((i & 0xffff) == 0)
			sched_yield();     /* let the consumer fall behind now and then */
	}
	__atomic_store_n(&st->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void check_one(struct stress *st, const struct eq_sample *s)
{
	uint32_t expect = st->have_last ? st->last_seq + 1 : 0;

	if (s->time != s->seq || s->pc != (uint64_t)s->seq * 7 + 3 ||
	    s->pid != (s->seq ^ 0x5a5a) || s->tid != ~s->seq || s->cpu != (uint16_t)s->seq)
		st->bad_payload++;
	if (st->have_last && s->seq <= st->last_seq)
		st->out_of_order++;
	if (s->seq != expect) {
		st->gaps++;
		st->gap_samples += s->seq - expect;
		if (!(s->flags & EQ_F_LOST))
			st->bad_flag++;
	} else if (s->flags & EQ_F_LOST) {
		st->bad_flag++;
	}
	if (s->flags & EQ_F_LOST)
		st->lost_flags++;
	st->last_seq = s->seq;
	st->have_last = 1;
	st->delivered++;
}

static void consume(struct stress *st)
{
	static struct eq_sample out[BATCH];

	for (;;) {
		int done = __atomic_load_n(&st->done, __ATOMIC_ACQUIRE);
		uint32_t n = eq_ring_pop_batch(&st->ring, out, BATCH), k;

		for (k = 0; k < n; k++)
			check_one(st, &out[k]);
		if (!n && done && eq_ring_count(&st->ring) == 0)
			break;
	}
}

static void run_stress(uint32_t capacity)
{
	static struct stress st;
	static struct eq_sample slots[LARGE_RING];
	const char *env = getenv("EQ_STRESS_N");
	uint64_t trailing;
	pthread_t t;

	memset(&st, 0, sizeof(st));
	st.slots = slots;
	st.total = env ? (uint32_t)strtoul(env, NULL, 10) : 10000000u;
	assert_int_equal(eq_ring_init(&st.ring, st.slots, capacity, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, producer, &st), 0);
	consume(&st);
	assert_int_equal(pthread_join(t, NULL), 0);

	trailing = st.have_last ? st.total - 1 - st.last_seq : st.total;
	print_message("# ring of %u: %u pushed, %llu delivered, %u dropped (%llu gaps)\n",
		      capacity, st.total,
		      (unsigned long long)st.delivered, eq_ring_dropped(&st.ring),
		      (unsigned long long)st.gaps);
	assert_int_equal(st.bad_payload, 0);
	assert_int_equal(st.out_of_order, 0);
	assert_int_equal(st.bad_flag, 0);
	assert_int_equal(st.lost_flags, st.gaps);
	/* No silent loss, no duplicate: the books balance exactly. */
	assert_int_equal(st.delivered + st.gap_samples + trailing, st.total);
	assert_int_equal(eq_ring_dropped(&st.ring), st.gap_samples + trailing);
}

static void small_ring_every_seq_delivered_once_or_counted_lost(void **state)
{
	(void)state;
	run_stress(SMALL_RING);
}

static void large_ring_every_seq_delivered_once_or_counted_lost(void **state)
{
	(void)state;
	run_stress(LARGE_RING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_ring_every_seq_delivered_once_or_counted_lost),
		cmocka_unit_test(large_ring_every_seq_delivered_once_or_counted_lost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
