/*
 * test_align.c - analysis/align: board records against energy samples, on
 * recordings written through the real .eqp writer with a known answer:
 * the quantum offset K, the clocks' rate and offset, what was lost counted
 * and what was lost silently, and eqp_merge's output read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "align/align.h"
#include "file/eqp.h"
#include "file/eqp_merge.h"

#define NQ 1200                  /* board quanta */
#define K 150                    /* board seq = target seq + K */
#define CLOCK 2e6                /* board ticks per second */
#define RATE 1.0003              /* target ns per board ns */
#define OFFSET_NS 5e9

static double board_s[NQ];
static char dir[] = "/tmp/eqalign.XXXXXX";

static uint32_t rng = 12345;
static double uniform(void)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) / 16777216.0;
}

/* Quanta at three powers in turn, N jittered by +-5% as the firmware does;
 * damaged_seq >= 0: that record's quantum number has a high bit flipped. */
static void make_board_damaged(const char *path, int damaged_seq)
{
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = 0, .clock_hz = CLOCK,
			      .target = "board", .extra = NULL };
	struct eqp_board_info bi = { CLOCK, 46.3e-6, 64, 5, 0, "test", 4.07, 300e-9, 0, 0, 0 };
	struct eqp_board_rec r[NQ];
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &m, &err);
	double t = 0.1;
	int i;

	assert_non_null(w);
	for (i = 0; i < NQ; i++) {
		double mean = (i / 200) % 3 == 0 ? 2.5e-3 : (i / 200) % 3 == 1 ? 11e-3 : 6e-3;

		t += mean * (0.95 + 0.1 * uniform());
		board_s[i] = t;
		r[i] = (struct eqp_board_rec){ (uint64_t)llround(t * CLOCK), (uint32_t)i, 64, 4070000, 0, 0 };
	}
	if (damaged_seq >= 0)
		r[damaged_seq].seq ^= 1u << 30;
	assert_int_equal(eqp_add_board_info(w, &bi, &err), 0);
	assert_int_equal(eqp_add_board_records(w, r, NQ, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
}

static void make_board(const char *path)
{
	make_board_damaged(path, -1);
}

/*
 * Samples for board quanta K .. K+799 (target seq 0..799), each taken
 * 20..80 us after its edge.  gap_at: that seq is missing and counted (a
 * seq gap); silent_at: that edge never became an interrupt, and the
 * target's numbering carries on as if it had not happened.
 */
static void make_target(const char *path, const char *sampler, int64_t k, int gap_at, int silent_at)
{
	char extra[128];
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = 0, .clock_hz = 1e9,
			      .target = "target", .extra = extra };
	struct eq_error err;
	struct eqp_writer *w;
	uint32_t seq = 0;
	int i;

	snprintf(extra, sizeof(extra), "sampler=%s\n", sampler);
	w = eqp_create(path, &m, &err);
	assert_non_null(w);
	for (i = 0; i < 800; i++) {
		struct eq_sample s = { 0 };
		int q = (int)k + i;

		if (i == silent_at)
			continue;
		s.seq = seq++;
		if (i == gap_at)
			continue;
		s.time = (uint64_t)llround(OFFSET_NS + RATE * board_s[q] * 1e9 + 20e3 + 60e3 * uniform());
		s.pc = 0x1000;
		s.pid = 100;
		s.tid = 100;
		s.flags = EQ_F_ENERGY;
		assert_int_equal(eqp_add_samples(w, &s, 1, &err), 0);
	}
	assert_int_equal(eqp_commit(w, &err), 0);
}

static void open_pair(const char *tname, const char *bname, struct eq_align *a)
{
	char tp[128], bp[128];
	struct eq_error err;
	struct eqp_file *t, *b;

	snprintf(tp, sizeof(tp), "%s/%s", dir, tname);
	snprintf(bp, sizeof(bp), "%s/%s", dir, bname);
	t = eqp_open(tp, &err);
	b = eqp_open(bp, &err);
	assert_non_null(t);
	assert_non_null(b);
	eq_align_compute(t, b, a);
	eqp_close(t);
	eqp_close(b);
}

static int setup(void **state)
{
	char p[128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/board.eqp", dir);
	make_board(p);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void timing_finds_k_rate_and_offset(void **state)
{
	char p[128];
	struct eq_align a;

	(void)state;
	snprintf(p, sizeof(p), "%s/gpio.eqp", dir);
	make_target(p, "eqprof module: gpio chip:3 rising hardirq", K, -1, -1);
	open_pair("gpio.eqp", "board.eqp", &a);
	assert_int_equal(a.status, EQ_ALIGN_OK);
	assert_int_equal(a.numbered, 0);
	assert_int_equal(a.k_start, K);
	assert_int_equal(a.k_end, K);
	assert_int_equal(a.board_first, K);
	assert_int_equal(a.board_last, K + 799);
	assert_int_equal(a.board_irqs, 800);
	assert_int_equal(a.samples, 800);
	assert_int_equal(a.target_lost, 0);
	assert_int_equal(a.unaccounted, 0);
	assert_true(fabs(a.rate - RATE) < 1e-5);
	/* the mean latency (50 us) is part of the offset */
	assert_true(fabs(a.offset_ns - (OFFSET_NS + 50e3)) < 10e3);
	assert_true(a.resid_max_ns < 40e3);
}

static void counted_losses_balance(void **state)
{
	char p[128];
	struct eq_align a;

	(void)state;
	snprintf(p, sizeof(p), "%s/gap.eqp", dir);
	make_target(p, "eqprof module: gpio chip:3 rising hardirq", K, 400, -1);
	open_pair("gap.eqp", "board.eqp", &a);
	assert_int_equal(a.status, EQ_ALIGN_OK);
	assert_int_equal(a.samples, 799);
	assert_int_equal(a.target_lost, 1);
	assert_int_equal(a.board_irqs, 800);
	assert_int_equal(a.unaccounted, 0);
}

static void silent_loss_is_a_mismatch(void **state)
{
	char p[128];
	struct eq_align a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	snprintf(p, sizeof(p), "%s/silent.eqp", dir);
	make_target(p, "eqprof module: gpio chip:3 rising hardirq", K, -1, 400);
	open_pair("silent.eqp", "board.eqp", &a);
	assert_int_equal(a.status, EQ_ALIGN_OK);
	assert_int_equal(a.k_start, K);
	assert_int_equal(a.k_end, K + 1);
	assert_int_equal(a.samples, 799);
	assert_int_equal(a.target_lost, 0);
	assert_int_equal(a.board_irqs, 800);
	assert_int_equal(a.unaccounted, 1);
	f = open_memstream(&buf, &len);
	eq_align_print(f, "report", &a);
	fclose(f);
	assert_non_null(strstr(buf, "MISMATCH"));
	assert_non_null(strstr(buf, "1 interrupts lost without being counted"));
	free(buf);
}

static void numbered_source_needs_no_timing(void **state)
{
	char p[128];
	struct eq_align a;

	(void)state;
	/* ivshmem: seq = the board's quantum; K = 0 whatever the timing */
	snprintf(p, sizeof(p), "%s/ivs.eqp", dir);
	make_target(p, "eqprof module: ivshmem 0000:00:04.0 msix hardirq", 0, -1, -1);
	open_pair("ivs.eqp", "board.eqp", &a);
	assert_int_equal(a.status, EQ_ALIGN_OK);
	assert_int_equal(a.numbered, 1);
	assert_int_equal(a.k_start, 0);
	assert_int_equal(a.board_first, 0);
	assert_int_equal(a.board_last, 799);
	assert_int_equal(a.unaccounted, 0);
}

/*
 * record --target cortexm whose edge counter holds the board's quantum
 * numbers (seq_numbers=board): K = 0 though the target's clock has nothing
 * to do with the board's (QEMU's virtual clock while the HIL bridge holds
 * the board in lockstep: the intervals drawn afresh here).  Before the
 * header line was read, this failed as "no stretch ... matches".
 */
static void cortexm_board_numbers_need_no_timing(void **state)
{
	char p[128];
	struct eq_align a;
	double saved[NQ];

	(void)state;
	snprintf(p, sizeof(p), "%s/cm.eqp", dir);
	rng = 4242;
	memcpy(saved, board_s, sizeof(saved));
	for (int i = 1; i < NQ; i++)
		board_s[i] = board_s[i - 1] + 5e-3 * (0.5 + uniform());
	make_target(p, "isr/cortexm energy-driven (the board's IRQ)\nseq_numbers=board", 0, -1, -1);
	memcpy(board_s, saved, sizeof(saved));
	open_pair("cm.eqp", "board.eqp", &a);
	assert_int_equal(a.status, EQ_ALIGN_OK);
	assert_int_equal(a.numbered, 1);
	assert_int_equal(a.board_first, 0);
	assert_int_equal(a.board_last, 799);
	assert_int_equal(a.unaccounted, 0);
	/* any other value of the line is a claim merge does not know */
	make_target(p, "isr/cortexm energy-driven (the board's IRQ)\nseq_numbers=ring", 0, -1, -1);
	open_pair("cm.eqp", "board.eqp", &a);
	assert_int_equal(a.numbered, 0);
}

static void unrelated_board_is_refused(void **state)
{
	char p[128];
	struct eq_align a;

	(void)state;
	/* intervals drawn afresh: no stretch of the board's log matches */
	snprintf(p, sizeof(p), "%s/other.eqp", dir);
	rng = 999;
	{
		double saved[NQ];

		memcpy(saved, board_s, sizeof(saved));
		for (int i = 1; i < NQ; i++)
			board_s[i] = board_s[i - 1] + 5e-3 * (0.5 + uniform());
		make_target(p, "eqprof module: gpio chip:3 rising hardirq", K, -1, -1);
		memcpy(board_s, saved, sizeof(saved));
	}
	open_pair("other.eqp", "board.eqp", &a);
	assert_int_equal(a.status, EQ_ALIGN_FAILED);
	assert_non_null(strstr(a.why, "matches"));
}

/*
 * One quantum number with a bit flipped spans a billion quanta: refused
 * with a message (not a table of gigabytes, as the fuzz target found it
 * did; not a search over every one of them).
 */
static void damaged_board_numbers_are_refused(void **state)
{
	char p[128];
	struct eq_align a;

	(void)state;
	snprintf(p, sizeof(p), "%s/damaged-board.eqp", dir);
	make_board_damaged(p, 600);
	snprintf(p, sizeof(p), "%s/gpio2.eqp", dir);
	make_target(p, "eqprof module: gpio chip:3 rising hardirq", K, -1, -1);
	open_pair("gpio2.eqp", "damaged-board.eqp", &a);
	assert_int_equal(a.status, EQ_ALIGN_FAILED);
	assert_non_null(strstr(a.why, "damaged"));
}

/* Found by fuzz_parsers: 5000 + (59015550015555.5 - 5000) * 1000 / 1000
 * rounds to 59015550015555.508, past the last knot. */
static void knots_map_stays_within_its_knots(void **state)
{
	struct eq_knots k;
	double t;

	(void)state;
	assert_int_equal(eq_knots_parse("1000:5000 2000:59015550015555.5", &k), 0);
	t = eq_knots_map(&k, 2000);
	assert_true(t <= k.target_ns[1] && t >= k.target_ns[0]);
	t = eq_knots_map(&k, 1000);
	assert_true(t == k.target_ns[0]);
	eq_knots_free(&k);
}

static void merge_holds_both_and_the_alignment(void **state)
{
	char t[128], b[128], o[128];
	struct eq_error err;
	struct eqp_file *f;
	struct eq_align a;

	(void)state;
	snprintf(t, sizeof(t), "%s/gpio.eqp", dir);
	snprintf(b, sizeof(b), "%s/board.eqp", dir);
	snprintf(o, sizeof(o), "%s/merged.eqp", dir);
	assert_int_equal(eqp_merge(t, b, "board_align=ok\n", 2.9632e-3, o, &err), 0);
	f = eqp_open(o, &err);
	assert_non_null(f);
	assert_null(eqp_warning(f));
	assert_int_equal(eqp_nsamples(f), 800);
	assert_int_equal(eqp_nboard_records(f), NQ);
	assert_string_equal(eqp_meta_get(f, "board_align"), "ok");
	assert_string_equal(eqp_meta_get(f, "sampler"), "eqprof module: gpio chip:3 rising hardirq");
	assert_true(fabs(eqp_meta(f)->quantum_j - 2.9632e-3) < 1e-12);
	eq_align_compute(f, f, &a);
	assert_int_equal(a.status, EQ_ALIGN_OK);
	assert_int_equal(a.unaccounted, 0);
	eqp_close(f);
	/* merging it again is refused, and the output is left alone */
	assert_int_equal(eqp_merge(o, b, "", 0, t, &err), -1);
	assert_non_null(strstr(err.msg, "already holds a board stream"));
	f = eqp_open(t, &err);
	assert_non_null(f);
	assert_int_equal(eqp_nboard_records(f), 0);
	eqp_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timing_finds_k_rate_and_offset),
		cmocka_unit_test(counted_losses_balance),
		cmocka_unit_test(silent_loss_is_a_mismatch),
		cmocka_unit_test(numbered_source_needs_no_timing),
		cmocka_unit_test(cortexm_board_numbers_need_no_timing),
		cmocka_unit_test(unrelated_board_is_refused),
		cmocka_unit_test(damaged_board_numbers_are_refused),
		cmocka_unit_test(merge_holds_both_and_the_alignment),
		cmocka_unit_test(knots_map_stays_within_its_knots),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
