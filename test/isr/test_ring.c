/*
 * test_ring.c - single-threaded behaviour of the sample ring: init checks,
 * order, wrap-around, drop counting, seq advancing through drops and
 * EQ_F_LOST on the first sample stored after a drop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "eq_ring.h"

static struct eq_sample mem[8];

static struct eq_sample sample_at(uint64_t pc)
{
	struct eq_sample s = { .time = pc * 10, .pc = pc, .pid = 7, .tid = 8, .seq = 999,
			       .cpu = 1, .flags = EQ_F_ENERGY };
	return s;
}

static void init_rejects_bad_capacity(void **state)
{
	struct eq_ring r;

	(void)state;
	assert_int_equal(eq_ring_init(&r, mem, 0, 0), -1);
	assert_int_equal(eq_ring_init(&r, mem, 1, 0), -1);
	assert_int_equal(eq_ring_init(&r, mem, 6, 0), -1);
	assert_int_equal(eq_ring_init(&r, NULL, 8, 0), -1);
	assert_int_equal(eq_ring_init(&r, mem, 8, 0), 0);
	assert_int_equal(eq_ring_capacity(&r), 8);
	assert_int_equal(eq_ring_count(&r), 0);
}

static void producer_and_consumer_fields_on_separate_lines(void **state)
{
	(void)state;
	assert_true(offsetof(struct eq_ring, tail) - offsetof(struct eq_ring, head) >= EQ_RING_LINE);
	assert_true(offsetof(struct eq_ring, head) >= EQ_RING_LINE);
}

static void pops_in_order_with_ring_assigned_seq(void **state)
{
	struct eq_ring r;
	struct eq_sample out[8], s;
	uint32_t i;

	(void)state;
	eq_ring_init(&r, mem, 8, 100);
	for (i = 0; i < 5; i++) {
		s = sample_at(0x1000 + i);
		assert_int_equal(eq_ring_push(&r, &s), 1);
	}
	assert_int_equal(eq_ring_count(&r), 5);
	assert_int_equal(eq_ring_pop_batch(&r, out, 3), 3);
	assert_int_equal(eq_ring_pop_batch(&r, out + 3, 8), 2);
	assert_int_equal(eq_ring_pop_batch(&r, out, 8), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(out[i].pc, 0x1000 + i);
		assert_int_equal(out[i].time, (0x1000 + i) * 10);
		assert_int_equal(out[i].seq, 100 + i);
		assert_int_equal(out[i].flags, EQ_F_ENERGY);
		assert_int_equal(out[i].pid, 7);
		assert_int_equal(out[i].cpu, 1);
	}
	assert_int_equal(eq_ring_dropped(&r), 0);
}

static void wraps_around_many_times(void **state)
{
	struct eq_ring r;
	struct eq_sample out[3], s;
	uint32_t i, next = 0;

	(void)state;
	eq_ring_init(&r, mem, 4, 0);
	for (i = 0; i < 1000; i++) {
		s = sample_at(i);
		assert_int_equal(eq_ring_push(&r, &s), 1);
		if (i % 3 == 2) {
			uint32_t n = eq_ring_pop_batch(&r, out, 3), k;

			assert_int_equal(n, 3);
			for (k = 0; k < n; k++, next++)
				assert_int_equal(out[k].seq, next);
		}
	}
	assert_int_equal(eq_ring_dropped(&r), 0);
}

static void full_ring_counts_drops_and_flags_next(void **state)
{
	struct eq_ring r;
	struct eq_sample out[8], s = sample_at(1);
	uint32_t i;

	(void)state;
	eq_ring_init(&r, mem, 4, 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(eq_ring_push(&r, &s), 1);
	assert_int_equal(eq_ring_push(&r, &s), 0);   /* seq 4 dropped */
	assert_int_equal(eq_ring_push(&r, &s), 0);   /* seq 5 dropped */
	assert_int_equal(eq_ring_dropped(&r), 2);
	assert_int_equal(eq_ring_count(&r), 4);
	assert_int_equal(eq_ring_pop_batch(&r, out, 8), 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(out[i].seq, i);
		assert_false(out[i].flags & EQ_F_LOST);
	}
	assert_int_equal(eq_ring_push(&r, &s), 1);   /* seq 6, after the gap */
	assert_int_equal(eq_ring_push(&r, &s), 1);   /* seq 7, no new loss */
	assert_int_equal(eq_ring_pop_batch(&r, out, 8), 2);
	assert_int_equal(out[0].seq, 6);
	assert_true(out[0].flags & EQ_F_LOST);
	assert_true(out[0].flags & EQ_F_ENERGY);
	assert_int_equal(out[1].seq, 7);
	assert_false(out[1].flags & EQ_F_LOST);
}

static void caller_lost_flag_is_kept(void **state)
{
	struct eq_ring r;
	struct eq_sample out[2], s = sample_at(1);

	(void)state;
	/* A producer that lost samples before the ring (e.g. in hardware)
	 * may set EQ_F_LOST itself; the ring must not clear it. */
	eq_ring_init(&r, mem, 2, 0);
	s.flags |= EQ_F_LOST;
	eq_ring_push(&r, &s);
	assert_int_equal(eq_ring_pop_batch(&r, out, 2), 1);
	assert_true(out[0].flags & EQ_F_LOST);
}

static void lose_skips_seq_counts_and_flags(void **state)
{
	struct eq_ring r;
	struct eq_sample out[4], s = sample_at(1);

	(void)state;
	/* Interrupts that merged before the handler ran (eq_ring_lose) show
	 * as a drop would: a seq gap, the count, EQ_F_LOST on the next one. */
	eq_ring_init(&r, mem, 4, 100);
	eq_ring_push(&r, &s);
	eq_ring_lose(&r, 0);                    /* nothing lost: no effect */
	eq_ring_push(&r, &s);
	eq_ring_lose(&r, 3);
	eq_ring_push(&r, &s);
	assert_int_equal(eq_ring_dropped(&r), 3);
	assert_int_equal(eq_ring_pop_batch(&r, out, 4), 3);
	assert_int_equal(out[0].seq, 100);
	assert_int_equal(out[1].seq, 101);
	assert_false(out[1].flags & EQ_F_LOST);
	assert_int_equal(out[2].seq, 105);
	assert_true(out[2].flags & EQ_F_LOST);
}

static void seq_wraps_at_32_bits(void **state)
{
	struct eq_ring r;
	struct eq_sample out[4], s = sample_at(1);

	(void)state;
	eq_ring_init(&r, mem, 4, UINT32_MAX - 1);
	eq_ring_push(&r, &s);
	eq_ring_push(&r, &s);
	eq_ring_push(&r, &s);
	assert_int_equal(eq_ring_pop_batch(&r, out, 4), 3);
	assert_int_equal(out[0].seq, UINT32_MAX - 1);
	assert_int_equal(out[1].seq, UINT32_MAX);
	assert_int_equal(out[2].seq, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_rejects_bad_capacity),
		cmocka_unit_test(producer_and_consumer_fields_on_separate_lines),
		cmocka_unit_test(pops_in_order_with_ring_assigned_seq),
		cmocka_unit_test(wraps_around_many_times),
		cmocka_unit_test(full_ring_counts_drops_and_flags_next),
		cmocka_unit_test(caller_lost_flag_is_kept),
		cmocka_unit_test(lose_skips_seq_counts_and_flags),
		cmocka_unit_test(seq_wraps_at_32_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
