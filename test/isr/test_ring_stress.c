/*
 * test_ring_stress.c - two threads, at least 10 million pushes through a
 * small ring: every seq is either delivered exactly once, in order, with
 * its own payload, or counted lost (the ring's drop counter, the seq gap
 * and EQ_F_LOST all agree).  Built three ways: plain, ASan+UBSan, and
 * ThreadSanitizer (test/isr/module.mk).  EQ_STRESS_N overrides the count.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "eq_ring.h"

#define RING_CAPACITY 1024
#define BATCH 256

struct stress {
	struct eq_ring ring;
	struct eq_sample slots[RING_CAPACITY];
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

static void every_seq_delivered_once_or_counted_lost(void **state)
{
	static struct stress st;
	const char *env = getenv("EQ_STRESS_N");
	uint64_t trailing;
	pthread_t t;

	(void)state;
	st.total = env ? (uint32_t)strtoul(env, NULL, 10) : 10000000u;
	assert_int_equal(eq_ring_init(&st.ring, st.slots, RING_CAPACITY, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, producer, &st), 0);
	consume(&st);
	assert_int_equal(pthread_join(t, NULL), 0);

	trailing = st.have_last ? st.total - 1 - st.last_seq : st.total;
	print_message("# %u pushed, %llu delivered, %u dropped (%llu gaps)\n", st.total,
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_seq_delivered_once_or_counted_lost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
