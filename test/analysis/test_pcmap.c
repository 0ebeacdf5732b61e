/*
 * test_pcmap.c - the pc -> value map of analysis/profile (pcmap.h) against
 * a plain array of one value a byte, filled the same way: ranges of a few
 * bytes in a random order (granules cut into up to 16 runs, runs that
 * grow, merge into one value, and are copied when a page's vals are
 * full), lookups between the fills; and its cache of recent pcs, which
 * turns itself off while most lookups miss it and on again when they
 * stop missing, without changing any value; the same through the map
 * kept in registers, as the fast loops look it up.
 *
 * The expected values come from the array, which keeps one entry a byte
 * and no runs; the sizes from the runs counted in the array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/pcmap.h"
#include "test/lib/xorshift.h"

#define PAGE (1u << EQ_PCMAP_PAGE_SHIFT)
#define GRAN (1u << EQ_PCMAP_GRAN_SHIFT)
#define NPAGES 3
#define BASE 0x7f0000001000ull    /* the first page of the model */
#define SPACE 5

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	return eq_xorshift64(&rng);
}

/* A value as build.c makes them: row + 1, maybe the unresolved bit. */
static uint32_t some_value(void)
{
	uint32_t v = (uint32_t)(next() % 100000) + 1;

	return next() % 4 ? v : v | 0x80000000u;
}

/* pc's value in the model of pages [BASE, BASE + NPAGES pages). */
static void model_fill(uint32_t *model, uint64_t pc, uint64_t first, uint64_t last, uint32_t v)
{
	uint64_t base = pc & ~(uint64_t)(PAGE - 1), b;

	for (b = first < base ? base : first; b <= last && b < base + PAGE; b++)
		if (!model[b - BASE])
			model[b - BASE] = v;
}

static void check_all(struct eq_pcmap *m, const uint32_t *model)
{
	uint64_t i;

	for (i = 0; i < NPAGES * PAGE; i++)
		assert_int_equal(eq_pcmap_get(m, SPACE, BASE + i), model[i]);
	assert_int_equal(eq_pcmap_get(m, SPACE + 1, BASE), 0);
	assert_int_equal(eq_pcmap_get(m, SPACE, BASE - 1), 0);
	assert_int_equal(eq_pcmap_get(m, SPACE, BASE + NPAGES * PAGE), 0);
}

/* The slot of the page at pc (the map holds it). */
static const struct eq_pcmap_slot *slot_of(const struct eq_pcmap *m, uint64_t pc)
{
	size_t j;

	for (j = 0; j <= m->mask; j++)
		if (m->slots[j].grans && m->slots[j].space == SPACE &&
		    m->slots[j].page == pc >> EQ_PCMAP_PAGE_SHIFT)
			return &m->slots[j];
	fail();
	return NULL;
}

/* Ranges of 1 to maxlen bytes at random places (overlapping ones keep
 * what they found), each filled from a random pc in it, with lookups of
 * random pcs between them; the whole model checked every so often. */
static void random_fills(uint64_t seed, unsigned nfill, unsigned maxlen)
{
	struct eq_pcmap m = { 0 };
	uint32_t *model = calloc(NPAGES * PAGE, sizeof(*model));
	unsigned f, k;

	assert_non_null(model);
	rng = seed;
	assert_int_equal(eq_pcmap_init(&m), 0);
	for (f = 0; f < nfill; f++) {
		uint64_t first = BASE + next() % (NPAGES * PAGE), len = next() % maxlen;
		uint64_t last = first + len, pc = first + (len ? next() % (len + 1) : 0);
		uint32_t v = some_value();

		if (last >= BASE + NPAGES * PAGE)
			last = BASE + NPAGES * PAGE - 1;
		if (pc > last)
			pc = last;
		/* the page's edges reach past it */
		if (next() % 8 == 0)
			first = first > BASE + 40 ? first - 40 : BASE;
		model_fill(model, pc, first, last, v);
		assert_int_equal(eq_pcmap_fill(&m, SPACE, pc, first, last, v), 0);
		for (k = 0; k < 8; k++) {
			uint64_t i = next() % (NPAGES * PAGE);

			assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + i), model[i]);
		}
		if (f % 512 == 0)
			check_all(&m, model);
	}
	check_all(&m, model);
	/* and again, now from recent */
	check_all(&m, model);
	eq_pcmap_free(&m);
	free(model);
}

static void pcmap_short_ranges(void **state)
{
	(void)state;
	/* line records: runs of a few bytes, granules cut two to four times */
	random_fills(1, 6000, 12);
}

static void pcmap_single_bytes(void **state)
{
	(void)state;
	/* every byte its own range: granules of 16 runs, runs that grow one
	 * at a time (each page's vals copied over and over) */
	random_fills(2, 20000, 1);
}

static void pcmap_long_ranges(void **state)
{
	(void)state;
	/* functions: whole granules, a cut one at each edge */
	random_fills(3, 400, 300);
}

/* A cut granule that ends up with one value is one entry again; a page
 * of granules cut in four keeps 4 bytes a run, and what runs that grew
 * left behind is dropped when its vals are full. */
static void pcmap_runs_are_dense(void **state)
{
	struct eq_pcmap m = { 0 };
	const struct eq_pcmap_slot *sl;
	uint64_t g, b, runs = 0;
	uint32_t i;

	(void)state;
	assert_int_equal(eq_pcmap_init(&m), 0);
	/* two ranges of the same value over one granule: one value */
	assert_int_equal(eq_pcmap_fill(&m, SPACE, BASE + 3, BASE + 3, BASE + 20, 9), 0);
	assert_int_equal(eq_pcmap_fill(&m, SPACE, BASE, BASE, BASE + 2, 9), 0);
	sl = slot_of(&m, BASE);
	assert_int_equal(sl->grans[0], 9);
	assert_int_not_equal(sl->grans[1] & EQ_PCMAP_SUB, 0);
	for (b = 0; b < 2 * GRAN; b++)
		assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + b), b <= 20 ? 9 : 0);
	/* the rest of the page in quarters of granules, each granule's
	 * quarters filled one at a time, last to first: its runs grow from
	 * two to four, moving to the end of the page's vals each time */
	for (g = 2; g < EQ_PCMAP_GRANS; g++)
		for (i = 4; i-- > 0;) {
			uint64_t lo = BASE + g * GRAN + 4 * i;

			assert_int_equal(eq_pcmap_fill(&m, SPACE, lo, lo, lo + 3,
						       (uint32_t)(g * 4 + i + 100)), 0);
		}
	for (g = 2; g < EQ_PCMAP_GRANS; g++) {
		assert_int_not_equal(sl->grans[g] & EQ_PCMAP_SUB, 0);
		for (b = 0; b < GRAN; b++)
			assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + g * GRAN + b),
					 g * 4 + b / 4 + 100);
		runs += 4;
	}
	runs += 2;   /* granule 1: 9, then nothing */
	/* 4 bytes a run, what moved dropped: at most twice the runs (and
	 * their room doubled), where one entry a byte took 64 bytes a granule */
	assert_true(sl->nvals <= sl->capvals);
	assert_true(sl->capvals <= 4 * runs);
	/* appended, had nothing been dropped: 2, then 2 + 3 + 4 a granule */
	assert_true(sl->nvals < 2 + 9 * (EQ_PCMAP_GRANS - 2));
	eq_pcmap_free(&m);
}

/* The cache of recent pcs: on while lookups find their pc there (few
 * pcs), off after a trial in which most did not (many pcs), on again
 * after a trial in which they do; the values alike in every mode. */
static void pcmap_recent_turns_off_and_on(void **state)
{
	struct eq_pcmap m = { 0 };
	uint64_t n, i;
	int tried;

	(void)state;
	assert_int_equal(eq_pcmap_init(&m), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(eq_pcmap_fill(&m, SPACE, BASE + i * PAGE, BASE,
					       UINT64_MAX, (uint32_t)i + 1), 0);
	/* 64 pcs: every lookup but the first 64 a hit, nothing counted */
	for (n = 0; n < 4 * EQ_PCMAP_ON; n++) {
		i = n % 64;
		assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + i * 1000 + 1), i * 1000 / PAGE + 1);
	}
	assert_int_equal(m.mode, EQ_PCMAP_MODE_ON);
	/* 64 k pcs in turn: every lookup a miss; after EQ_PCMAP_ON of them a
	 * trial, and after it, off */
	for (n = 0, tried = 0; n < EQ_PCMAP_ON + EQ_PCMAP_TRIAL; n++) {
		i = n % 65536;
		assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + i), i / PAGE + 1);
		tried |= m.mode == EQ_PCMAP_MODE_TRIAL;
	}
	assert_true(tried);
	assert_int_equal(m.mode, EQ_PCMAP_MODE_OFF);
	/* off: 64 pcs again, until the next trial, which finds them */
	for (n = 0, tried = 0; n < EQ_PCMAP_OFF + EQ_PCMAP_TRIAL; n++) {
		i = n % 64;
		assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + i * 1000 + 7), i * 1000 / PAGE + 1);
		tried |= m.mode == EQ_PCMAP_MODE_TRIAL;
		if (n < EQ_PCMAP_OFF / 2)
			assert_int_equal(m.mode, EQ_PCMAP_MODE_OFF);
	}
	assert_true(tried);
	assert_int_equal(m.mode, EQ_PCMAP_MODE_ON);
	assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + 16 * PAGE), 0);
	eq_pcmap_free(&m);
}

/*
 * A lookup as build.c's fast loops make them: in a trial through
 * eq_pcmap_get, else with the map in registers (eq_pcmap_reg_get, the
 * mode fixed), batch lookups between eq_pcmap_reg_load and _store.
 */
struct batched {
	struct eq_pcmap_reg g;
	int mode;               /* the mode the batch runs in, or -1: none open */
	unsigned in;            /* lookups in the open batch */
};

static uint32_t get_batched(struct eq_pcmap *m, struct batched *b, unsigned batch, uint64_t pc)
{
	uint32_t v;

	if (b->mode < 0 && m->mode != EQ_PCMAP_MODE_TRIAL) {
		eq_pcmap_reg_load(m, &b->g);
		b->mode = m->mode;
		b->in = 0;
	}
	if (b->mode < 0)
		return eq_pcmap_get(m, SPACE, pc);
	v = eq_pcmap_reg_get(m, &b->g, SPACE, pc, b->mode == EQ_PCMAP_MODE_ON);
	if (++b->in == batch) {
		eq_pcmap_reg_store(m, &b->g);
		b->mode = -1;
	}
	return v;
}

/* pcmap_recent_turns_off_and_on's lookups, in batches of batch (0: each
 * through eq_pcmap_get): the lookups at which the two trials began into
 * at[0] and at[1]. */
static void turns(unsigned batch, uint64_t *at)
{
	struct eq_pcmap m = { 0 };
	struct batched b = { .mode = -1 };
	uint64_t n, i;

	assert_int_equal(eq_pcmap_init(&m), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(eq_pcmap_fill(&m, SPACE, BASE + i * PAGE, BASE,
					       UINT64_MAX, (uint32_t)i + 1), 0);
	at[0] = at[1] = UINT64_MAX;
	for (n = 0; n < 4 * EQ_PCMAP_ON + EQ_PCMAP_ON + EQ_PCMAP_TRIAL + 100 + EQ_PCMAP_OFF +
		    EQ_PCMAP_TRIAL + 100; n++) {
		int phase = n < 4 * EQ_PCMAP_ON ? 0 : n < 5 * EQ_PCMAP_ON + EQ_PCMAP_TRIAL + 100 ? 1 : 2;
		uint64_t pc = phase == 1 ? BASE + n % 65536 : BASE + n % 64 * 1000 + 1 + 6 * (phase == 2);
		uint32_t want = (uint32_t)((pc - BASE) / PAGE + 1);

		if (n == 4 * EQ_PCMAP_ON)
			assert_int_equal(m.mode, EQ_PCMAP_MODE_ON);
		if (n == 5 * EQ_PCMAP_ON + EQ_PCMAP_TRIAL + 100)
			assert_int_equal(m.mode, EQ_PCMAP_MODE_OFF);
		assert_int_equal(batch ? get_batched(&m, &b, batch, pc) : eq_pcmap_get(&m, SPACE, pc),
				 want);
		if (phase && m.mode == EQ_PCMAP_MODE_TRIAL && at[phase - 1] == UINT64_MAX)
			at[phase - 1] = n;
	}
	assert_int_equal(m.mode, EQ_PCMAP_MODE_ON);
	assert_int_equal(eq_pcmap_get(&m, SPACE, BASE + 16 * PAGE), 0);
	eq_pcmap_free(&m);
}

/* The same in batches of 100 lookups, the map in registers: the same
 * values, off after a trial when every lookup misses, on again after a
 * trial of few pcs; each trial begins where eq_pcmap_get's does, or up
 * to a batch later than the one before it did (the first up to a batch
 * later, the second up to a batch after the first's lag: its mode's
 * lookups are counted at the end of a batch). */
static void pcmap_reg_as_get(void **state)
{
	struct eq_pcmap m = { 0 };
	struct batched b = { .mode = -1 };
	uint32_t *model = calloc(NPAGES * PAGE, sizeof(*model));
	uint64_t at[2], want[2], n, i;

	(void)state;
	assert_non_null(model);
	turns(0, want);
	turns(100, at);
	for (i = 0; i < 2; i++) {
		uint64_t lag0 = i ? at[0] - want[0] : 0;

		assert_true(want[i] != UINT64_MAX);
		assert_true(at[i] >= want[i] + lag0 && at[i] < want[i] + lag0 + 100);
	}

	/* random fills, then every byte through registers, on and off */
	memset(&m, 0, sizeof(m));
	rng = 77;
	assert_int_equal(eq_pcmap_init(&m), 0);
	for (n = 0; n < 3000; n++) {
		uint64_t first = BASE + next() % (NPAGES * PAGE), last = first + next() % 40;
		uint32_t v = some_value();

		if (last >= BASE + NPAGES * PAGE)
			last = BASE + NPAGES * PAGE - 1;
		model_fill(model, first, first, last, v);
		assert_int_equal(eq_pcmap_fill(&m, SPACE, first, first, last, v), 0);
	}
	for (n = 0; n < 2; n++) {
		m.mode = n ? EQ_PCMAP_MODE_OFF : EQ_PCMAP_MODE_ON;
		m.left = UINT64_MAX;
		b.mode = -1;
		for (i = 0; i < NPAGES * PAGE; i++)
			assert_int_equal(get_batched(&m, &b, 100, BASE + i), model[i]);
		for (i = 0; i < NPAGES * PAGE; i++)
			assert_int_equal(get_batched(&m, &b, 100, BASE + i), model[i]);
	}
	eq_pcmap_free(&m);
	free(model);
}

/* Two pcs at one place of the cache of recent pcs (the hash's low 10 bits
 * alike: bit 20 of the pc moves bit 10 of the hash) are both kept, the
 * one pushed out beside the other: looked up in turn, through
 * eq_pcmap_get and through the map in registers, each misses once. */
static void pcmap_recent_keeps_two_at_one_place(void **state)
{
	const uint64_t pc[2] = { BASE + 100, (BASE + 100) ^ (1ull << 20) };
	unsigned batch, n;

	(void)state;
	assert_int_equal(eq_pcmap_recent_hash(pc[0], SPACE) & (EQ_PCMAP_RECENT - 1),
			 eq_pcmap_recent_hash(pc[1], SPACE) & (EQ_PCMAP_RECENT - 1));
	for (batch = 0; batch <= 100; batch += 100) {
		struct eq_pcmap m = { 0 };
		struct batched b = { .mode = -1 };

		assert_int_equal(eq_pcmap_init(&m), 0);
		assert_int_equal(eq_pcmap_fill(&m, SPACE, pc[0], pc[0], pc[0], 7), 0);
		assert_int_equal(eq_pcmap_fill(&m, SPACE, pc[1], pc[1], pc[1], 8), 0);
		for (n = 0; n < 1000; n++)
			assert_int_equal(batch ? get_batched(&m, &b, batch, pc[n & 1]) :
					 eq_pcmap_get(&m, SPACE, pc[n & 1]), 7 + (n & 1));
		assert_int_equal(m.mode, EQ_PCMAP_MODE_ON);
		assert_int_equal(m.left, EQ_PCMAP_ON - 2);
		eq_pcmap_free(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pcmap_short_ranges),
		cmocka_unit_test(pcmap_single_bytes),
		cmocka_unit_test(pcmap_long_ranges),
		cmocka_unit_test(pcmap_runs_are_dense),
		cmocka_unit_test(pcmap_recent_turns_off_and_on),
		cmocka_unit_test(pcmap_reg_as_get),
		cmocka_unit_test(pcmap_recent_keeps_two_at_one_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
