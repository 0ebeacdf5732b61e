/*
 * test_power.c - power intervals, summaries, histograms, traces, regions and
 * per-row power against values computed by hand from crafted sample streams.
 *
 * The stream "steps" (E_q = 2.94 mJ, first sample at 1 s):
 *   A: 100 intervals of 10 ms, idle  -> 0.294 W  (bucket 5 of 50 mW)
 *   B: 200 intervals of  2 ms, busy  -> 1.470 W  (bucket 29)
 *   C: 100 intervals of  5 ms, busy  -> 0.588 W  (bucket 11)
 * 401 samples over 1.9 s: 400 quanta, 210.526 Hz, 0.61895 W, 1.17894 J,
 * idle 101 of 401 samples (the first sample is idle too).
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

#include "power/plot.h"
#include "power/power.h"
#include "power/power_plot.h"

#define Q 2.94e-3

static struct eq_sample steps[401];
static size_t nsteps;

/* Builds "steps"; drop samples [drop_from, drop_from + drop_n) of the seq. */
static void build_steps(unsigned drop_from, unsigned drop_n)
{
	static const struct { unsigned n; uint64_t dt; int idle; } ph[3] = {
		{ 100, 10000000, 1 }, { 200, 2000000, 0 }, { 100, 5000000, 0 },
	};
	uint64_t t = 1000000000ull;
	uint32_t seq = 0;
	unsigned p, i;
	int lost = 0;

	nsteps = 0;
	for (p = 0; p < 3; p++)
		for (i = 0; i < ph[p].n + (p == 0); i++) {
			if (p || i)
				t += ph[p].dt;
			if (seq >= drop_from && seq < drop_from + drop_n) {
				seq++;
				lost = 1;
				continue;
			}
			steps[nsteps] = (struct eq_sample){
				.time = t, .pc = 0x401000, .pid = ph[p].idle ? 0 : 100,
				.seq = seq++,
				.flags = EQ_F_ENERGY | (ph[p].idle ? EQ_F_IDLE : 0) |
					 (lost ? EQ_F_LOST : 0),
			};
			lost = 0;
			nsteps++;
		}
}

static void open_steps(struct power_input *in)
{
	struct eq_error err;

	assert_int_equal(power_input_from_samples(in, "steps", steps, nsteps, 1e9, Q, &err), 0);
}

static void test_summary_steps(void **state)
{
	struct power_input in;
	struct power_summary s;
	struct eq_error err;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_int_equal(s.samples, 401);
	assert_int_equal(s.intervals, 400);
	assert_int_equal(s.quanta, 400);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.idle_samples, 101);
	assert_float_equal(s.duration_s, 1.9, 1e-12);
	assert_float_equal(s.freq_hz, 400 / 1.9, 1e-9);
	assert_float_equal(s.power_w, Q * 400 / 1.9, 1e-12);
	assert_float_equal(s.energy_j, Q * 401, 1e-12);
	assert_float_equal(s.idle_pct, 100.0 * 101 / 401, 1e-9);
	power_input_free(&in);
}

static void test_summary_lost(void **state)
{
	struct power_input in;
	struct power_summary s;
	struct eq_error err;

	(void)state;
	build_steps(150, 10); /* ten samples of phase B never arrived */
	open_steps(&in);
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_int_equal(s.samples, 391);
	assert_int_equal(s.intervals, 390);
	assert_int_equal(s.quanta, 400);  /* the gap's quanta still count */
	assert_int_equal(s.lost, 10);
	assert_float_equal(s.power_w, Q * 400 / 1.9, 1e-12);
	assert_float_equal(s.energy_j, Q * 401, 1e-12);
	power_input_free(&in);
}

/* Losses the recorder counted that left no seq gap between the first and
 * the last sample (interrupts that merged before the ISR ran, samples dropped
 * after the last stored one) cannot be placed inside the span: they count in
 * the energy but not in the rate, which is the quanta of the span from seq. */
static void test_summary_merged_losses(void **state)
{
	struct power_input in;
	struct power_summary s;
	struct eq_error err;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	in.lost_recorded = 25;
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_int_equal(s.lost, 25);
	assert_int_equal(s.quanta, 400);
	assert_float_equal(s.freq_hz, 400 / 1.9, 1e-9);
	assert_float_equal(s.power_w, Q * 400 / 1.9, 1e-12);
	assert_float_equal(s.energy_j, Q * 426, 1e-12);
	power_input_free(&in);
}

/* A ring that overflowed at the end: the last ten quanta (seq 391-400) were
 * dropped after the last stored sample (seq 390 at 1.85 s: 100 x 10 ms, 200 x
 * 2 ms, 90 x 5 ms).  The rate is 390 quanta over 1.85 s; counting the ten
 * drops in it, as before, gave 400 / 1.85 (+2.6%). */
static void test_summary_drops_after_last(void **state)
{
	struct power_input in;
	struct power_summary s;
	struct eq_error err;

	(void)state;
	build_steps(391, 10);
	open_steps(&in);
	in.lost_recorded = 10;
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_int_equal(s.samples, 391);
	assert_int_equal(s.lost, 10);
	assert_int_equal(s.quanta, 390);
	assert_float_equal(s.duration_s, 1.85, 1e-12);
	assert_float_equal(s.power_w, Q * 390 / 1.85, 1e-12);
	assert_float_equal(s.energy_j, Q * 401, 1e-12);
	power_input_free(&in);
}

static void test_hist_steps(void **state)
{
	struct power_input in;
	struct power_hist h;
	struct eq_error err;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	assert_int_equal(power_hist_init(&h, 0.050, &err), 0);
	assert_int_equal(power_hist_build(&h, &in, &err), 0);
	assert_int_equal(h.total, 400);
	assert_float_equal(power_hist_pct(&h, 5, POWER_HIST_ALL), 25.0, 1e-9);
	assert_float_equal(power_hist_pct(&h, 29, POWER_HIST_ALL), 50.0, 1e-9);
	assert_float_equal(power_hist_pct(&h, 11, POWER_HIST_ALL), 25.0, 1e-9);
	assert_float_equal(power_hist_pct(&h, 12, POWER_HIST_ALL), 0.0, 1e-9);
	assert_int_equal(power_hist_peak(&h, POWER_HIST_ALL), 29);
	assert_int_equal(power_hist_peak(&h, POWER_HIST_IDLE), 5);
	assert_float_equal(power_hist_pct(&h, 5, POWER_HIST_IDLE), 25.0, 1e-9);
	assert_float_equal(power_hist_pct(&h, 5, POWER_HIST_BUSY), 0.0, 1e-9);
	assert_float_equal(power_hist_pct(&h, 29, POWER_HIST_BUSY), 50.0, 1e-9);
	power_hist_free(&h);
	/* 100 mW buckets move the peaks: 0.294 -> 2, 1.47 -> 14, 0.588 -> 5. */
	assert_int_equal(power_hist_init(&h, 0.100, &err), 0);
	assert_int_equal(power_hist_build(&h, &in, &err), 0);
	assert_float_equal(power_hist_pct(&h, 2, POWER_HIST_ALL), 25.0, 1e-9);
	assert_float_equal(power_hist_pct(&h, 14, POWER_HIST_ALL), 50.0, 1e-9);
	assert_float_equal(power_hist_pct(&h, 5, POWER_HIST_ALL), 25.0, 1e-9);
	power_hist_free(&h);
	assert_int_equal(power_hist_init(&h, 0, &err), -1);
	assert_non_null(strstr(err.msg, "--bucket"));
	power_input_free(&in);
}

static void test_hist_glitch_is_capped(void **state)
{
	struct eq_sample s[3] = {
		{ .time = 0, .seq = 0 }, { .time = 1, .seq = 1 }, { .time = 1000001, .seq = 2 },
	};
	struct power_input in;
	struct power_hist h;
	struct eq_error err;

	(void)state;
	/* 2.94 mJ in 1 ns is 2.94 MW: it lands in the last bucket, not in a
	 * 60-million-bucket array. */
	assert_int_equal(power_input_from_samples(&in, "glitch", s, 3, 1e9, Q, &err), 0);
	assert_int_equal(power_hist_init(&h, 0.050, &err), 0);
	assert_int_equal(power_hist_build(&h, &in, &err), 0);
	assert_true(h.nbuckets <= 200000);
	assert_int_equal(h.total, 2);
	power_hist_free(&h);
	power_input_free(&in);
}

struct collect {
	struct power_point p[1000];
	size_t n;
};

static int collect_point(void *ctx, const struct power_point *p)
{
	struct collect *c = ctx;

	if (c->n < 1000)
		c->p[c->n] = *p;
	c->n++;
	return 0;
}

static void test_trace_steps_and_window(void **state)
{
	struct power_trace_opts o = { .window = 1 };
	static struct collect c;
	struct power_input in;
	struct eq_error err;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	c.n = 0;
	assert_int_equal(power_trace_walk(&in, &o, collect_point, &c, &err), 0);
	assert_int_equal(c.n, 400);
	assert_float_equal(c.p[0].t, 0.010, 1e-12);
	assert_float_equal(c.p[0].power_w, 0.294, 1e-9);
	assert_int_equal(c.p[0].idle, 1);
	assert_float_equal(c.p[100].power_w, 1.47, 1e-9);
	assert_int_equal(c.p[100].idle, 0);
	assert_float_equal(c.p[399].power_w, 0.588, 1e-9);
	/* Window of 2 at the A->B edge: 2 quanta over 10 ms + 2 ms. */
	o.window = 2;
	c.n = 0;
	assert_int_equal(power_trace_walk(&in, &o, collect_point, &c, &err), 0);
	assert_float_equal(c.p[100].power_w, 2 * Q / 0.012, 1e-9);
	assert_float_equal(c.p[101].power_w, 1.47, 1e-9);
	/* Close-up of phase B only: ends in [1.0, 1.4] s. */
	o.window = 1;
	o.t0 = 1.0005;
	o.t1 = 1.4;
	c.n = 0;
	assert_int_equal(power_trace_walk(&in, &o, collect_point, &c, &err), 0);
	assert_int_equal(c.n, 200);
	power_input_free(&in);
}

static void test_trace_decimation_keeps_extremes(void **state)
{
	struct power_trace_opts o = { .window = 1, .max_points = 40 };
	static struct collect c;
	struct power_input in;
	struct eq_error err;
	double lo = 1e9, hi = 0;
	size_t i;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	c.n = 0;
	assert_int_equal(power_trace_walk(&in, &o, collect_point, &c, &err), 0);
	assert_true(c.n <= 40 + 4);
	assert_true(c.n >= 10);
	for (i = 0; i < c.n; i++) {
		lo = fmin(lo, c.p[i].power_w);
		hi = fmax(hi, c.p[i].power_w);
		if (i)
			assert_true(c.p[i].t >= c.p[i - 1].t);
	}
	assert_float_equal(lo, 0.294, 1e-9);
	assert_float_equal(hi, 1.47, 1e-9);
	power_input_free(&in);
}

struct columns {
	struct power_column c[64];
	size_t n;
};

static int collect_column(void *ctx, const struct power_column *c)
{
	struct columns *cs = ctx;

	if (cs->n < 64)
		cs->c[cs->n] = *c;
	cs->n++;
	return 0;
}

/*
 * The envelope of "steps" in 21 columns of 1.9/21 s (no interval ends on a
 * column's edge): the values are computed by hand from the phases, not
 * from the code's sums.
 */
static void test_envelope_columns(void **state)
{
	struct power_trace_opts o = { .window = 1 };
	static struct columns cs;
	struct power_input in;
	struct eq_error err;
	double e = 0, idle_t = 0;
	uint64_t n = 0;
	size_t i;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	assert_int_equal(power_trace_count(&in, &o), 400);
	assert_int_equal(power_envelope_walk(&in, &o, 21, collect_column, &cs, &err), 0);
	assert_int_equal(cs.n, 21);
	/* column 3: phase A only */
	assert_float_equal(cs.c[3].t0, 3 * 1.9 / 21, 1e-12);
	assert_float_equal(cs.c[3].min_w, 0.294, 1e-9);
	assert_float_equal(cs.c[3].max_w, 0.294, 1e-9);
	assert_float_equal(cs.c[3].mean_w, 0.294, 1e-9);
	assert_float_equal(cs.c[3].idle_share, 1, 1e-12);
	/* column 11, [0.99524, 1.08571): A's last interval (ends 1.000, 10 ms)
	 * and 42 of B's (1.002 .. 1.084, 2 ms each): the mean weighs time,
	 * 43 quanta in 94 ms (the intervals' mean power would be 1.4426 W) */
	assert_int_equal(cs.c[11].intervals, 43);
	assert_float_equal(cs.c[11].min_w, 0.294, 1e-9);
	assert_float_equal(cs.c[11].max_w, 1.47, 1e-9);
	assert_float_equal(cs.c[11].mean_w, 43 * Q / 0.094, 1e-9);
	assert_float_equal(cs.c[11].idle_share, 0.010 / 0.094, 1e-9);
	/* column 15, [1.35714, 1.44762): 22 of B's (1.358 .. 1.400), 9 of C's
	 * (1.405 .. 1.445, 5 ms each) */
	assert_int_equal(cs.c[15].intervals, 31);
	assert_float_equal(cs.c[15].min_w, 0.588, 1e-9);
	assert_float_equal(cs.c[15].max_w, 1.47, 1e-9);
	assert_float_equal(cs.c[15].mean_w, 31 * Q / 0.089, 1e-9);
	assert_float_equal(cs.c[15].idle_share, 0, 1e-12);
	/* every interval once: 400 quanta, A's 1 s idle */
	for (i = 0; i < cs.n; i++) {
		/* the column's intervals' time: mean power = energy / time */
		double q = (double)cs.c[i].intervals * Q, t = q / cs.c[i].mean_w;

		n += cs.c[i].intervals;
		e += q;
		idle_t += cs.c[i].idle_share * t;
	}
	assert_int_equal(n, 400);
	assert_float_equal(e, 400 * Q, 1e-9);
	assert_float_equal(idle_t, 1.0, 1e-9);
	/* a part: 1.2 .. 1.3 s in 4 columns, all of B */
	o.t0 = 1.2001;
	o.t1 = 1.3001;
	cs.n = 0;
	assert_int_equal(power_trace_count(&in, &o), 50);
	assert_int_equal(power_envelope_walk(&in, &o, 4, collect_column, &cs, &err), 0);
	assert_int_equal(cs.n, 4);
	for (i = 0; i < cs.n; i++)
		assert_float_equal(cs.c[i].mean_w, 1.47, 1e-9);
	power_input_free(&in);
}

static void test_region(void **state)
{
	struct power_region r = { .label = "mid", .t0 = 0.5, .t1 = 1.5 };
	struct power_input in;
	struct eq_error err;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	/* 0.5 s at 0.294 W + 0.4 s at 1.47 W + 0.1 s at 0.588 W */
	assert_int_equal(power_region_measure(&in, &r, &err), 0);
	assert_float_equal(r.energy_j, 0.147 + 0.588 + 0.0588, 1e-9);
	assert_float_equal(r.power_w, 0.7938, 1e-9);
	assert_int_equal(r.samples, 50 + 200 + 20);
	/* Part of one interval: 3 ms of a 10 ms interval at 0.294 W. */
	r.t0 = 0.101;
	r.t1 = 0.104;
	assert_int_equal(power_region_measure(&in, &r, &err), 0);
	assert_float_equal(r.energy_j, 0.294 * 0.003, 1e-12);
	r.t1 = r.t0;
	assert_int_equal(power_region_measure(&in, &r, &err), -1);
	power_input_free(&in);
}

static void test_regions_from_markers(void **state)
{
	struct eqp_marker a = { 1000000000ull, "A" }, b = { 2000000000ull, "B" };
	const struct eqp_marker *m[2] = { &a, &b };
	struct power_region *r;
	struct power_input in;
	struct eq_error err;
	size_t n;

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	assert_int_equal(power_regions_from_markers(&in, &r, &n, &err), -1);
	assert_non_null(strstr(err.msg, "no markers"));
	in.markers = m;
	in.nmarkers = 2;
	assert_int_equal(power_regions_from_markers(&in, &r, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].label, "A .. B");
	assert_float_equal(r[0].energy_j, 0.294, 1e-9);
	/* The phase begun at the last marker runs to the last sample. */
	assert_string_equal(r[1].label, "B .. end of recording");
	assert_float_equal(r[1].time_s, 0.9, 1e-9);
	assert_float_equal(r[1].energy_j, 0.588 + 0.294, 1e-9);
	assert_int_equal(r[1].samples, 300);
	free(r);
	in.markers = NULL;
	in.nmarkers = 0;
	power_input_free(&in);
}

static void test_unsorted_input(void **state)
{
	static struct eq_sample shuffled[401];
	struct power_input in;
	struct power_summary s;
	struct eq_error err;
	size_t i, k = 0;

	(void)state;
	build_steps(UINT32_MAX, 0);
	for (i = 0; i < nsteps; i += 2)
		shuffled[k++] = steps[i];
	for (i = 1; i < nsteps; i += 2)
		shuffled[k++] = steps[i];
	assert_int_equal(power_input_from_samples(&in, "two rings", shuffled, nsteps, 1e9, Q, &err), 0);
	assert_non_null(in.sorted);
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_float_equal(s.power_w, Q * 400 / 1.9, 1e-12);
	power_input_free(&in);
}

static char dir[] = "/tmp/power-test-XXXXXX";

static const char *tmp_path(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static struct eqp_file *write_time_file(const char *name, int board)
{
	struct eqp_meta m = { .mode = EQP_MODE_TIME, .nominal_hz = 1000, .clock_hz = 1e9,
			      .target = "t", .extra = "vb_nominal=4.0\n" };
	struct eqp_board_info bi = { 1e6, 46.12e-6, 64, 5, 1, "test", 0, 0, 0, 0, 0 };
	struct eqp_board_rec r[3] = {
		{ 0, 0, 64, 4000000, 0, 0 },
		{ 10000, 1, 64, 4000000, 0, 0 },  /* 10 ms: 0.2952 W */
		{ 15000, 3, 64, 2000000, EQP_BOARD_F_DROPPED, 0 }, /* seq gap of 1 */
	};
	struct eq_sample s[11];
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_file *f;
	int i;

	for (i = 0; i < 11; i++)
		s[i] = (struct eq_sample){ .time = 1000000ull * i, .seq = (uint32_t)i,
					   .flags = i < 3 ? EQ_F_IDLE : 0 };
	w = eqp_create(tmp_path(name), &m, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_samples(w, s, 11, &err), 0);
	if (board) {
		assert_int_equal(eqp_add_board_info(w, &bi, &err), 0);
		assert_int_equal(eqp_add_board_records(w, r, 3, &err), 0);
	}
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(tmp_path(name), &err);
	assert_non_null(f);
	return f;
}

static void test_time_file_without_board(void **state)
{
	struct eqp_file *f = write_time_file("time.eqp", 0);
	struct power_input in;
	struct power_summary s;
	struct power_hist h;
	struct eq_error err;

	(void)state;
	assert_int_equal(power_input_from_file(&in, f, POWER_BASIS_AUTO, &err), 0);
	assert_int_equal(in.basis, POWER_BASIS_NONE);
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_true(isnan(s.power_w));
	assert_non_null(strstr(s.why_none, "needs an energy-driven recording"));
	assert_float_equal(s.idle_pct, 300.0 / 11, 1e-9);
	assert_int_equal(power_hist_init(&h, 0.05, &err), 0);
	assert_int_equal(power_hist_build(&h, &in, &err), -1);
	assert_non_null(strstr(err.msg, "time-driven recording without board data"));
	power_hist_free(&h);
	power_input_free(&in);
	assert_int_equal(power_input_from_file(&in, f, POWER_BASIS_SAMPLES, &err), -1);
	assert_non_null(strstr(err.msg, "time-driven"));
	eqp_close(f);
}

static void test_time_file_with_board(void **state)
{
	struct eqp_file *f = write_time_file("board.eqp", 1);
	struct power_input in;
	struct power_summary s;
	struct power_iter it;
	struct power_iv iv;
	struct eq_error err;
	double e1 = 64 * 46.12e-6;            /* at 4.0 V = nominal */
	double e2 = e1 * 2.0 / 4.0;           /* at 2.0 V */

	(void)state;
	assert_int_equal(power_input_from_file(&in, f, POWER_BASIS_AUTO, &err), 0);
	assert_int_equal(in.basis, POWER_BASIS_BOARD);
	power_iter_init(&it, &in);
	assert_int_equal(power_iter_next(&it, &iv), 1);
	assert_float_equal(iv.dt, 0.010, 1e-12);
	assert_float_equal(iv.energy_j, e1, 1e-12);
	assert_int_equal(iv.idle_known, 0);
	assert_int_equal(power_iter_next(&it, &iv), 1);
	/* One dropped record: its quantum at the mean size, plus this one. */
	assert_int_equal(iv.quanta, 2);
	assert_float_equal(iv.energy_j, (e1 + e1 + e2) / 3 + e2, 1e-12);
	assert_int_equal(power_iter_next(&it, &iv), 0);
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_float_equal(s.power_w, (e1 + (e1 + e1 + e2) / 3 + e2) / 0.015, 1e-9);
	assert_float_equal(s.duration_s, 0.010, 1e-12);
	power_input_free(&in);
	eqp_close(f);
}

/* A board log alone (no samples, as `eqprof board log` writes) whose board
 * reset once: power comes from the board without --source, no interval
 * spans the restart, the restarted segment's first quantum counts, the time
 * between segments is not counted, and the seq gap is a loss even with no
 * LOST chunk. */
static void test_board_log_with_reset(void **state)
{
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = 64 * 46.12e-6,
			      .clock_hz = 1e6, .target = "board" };
	struct eqp_board_info b0 = { .clock_hz = 1e6, .e_min_j = 46.12e-6, .quantum_pulses = 64 };
	struct eqp_board_info b1 = b0;
	struct eqp_board_rec r0[3] = {
		{ 0, 0, 64, 0, 0, 0 }, { 10000, 1, 64, 0, 0, 0 },
		{ 30000, 3, 64, 0, EQP_BOARD_F_DROPPED, 0 },  /* one record missing */
	};
	struct eqp_board_rec r1[2] = { { 1030000, 0, 64, 0, 0, 0 }, { 1040000, 1, 64, 0, 0, 0 } };
	double e = 64 * 46.12e-6;
	struct power_input in;
	struct power_summary s;
	struct power_iter it;
	struct power_iv iv;
	struct eq_error err;
	struct eqp_writer *w = eqp_create(tmp_path("reset.eqp"), &m, &err);
	struct eqp_file *f;
	int n = 0;

	(void)state;
	b1.segment = 1;
	b1.time_offset = 1000000;
	assert_non_null(w);
	assert_int_equal(eqp_add_board_info(w, &b0, &err), 0);
	assert_int_equal(eqp_add_board_records(w, r0, 3, &err), 0);
	assert_int_equal(eqp_add_board_info(w, &b1, &err), 0);
	assert_int_equal(eqp_add_board_records(w, r1, 2, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(tmp_path("reset.eqp"), &err);
	assert_non_null(f);
	assert_int_equal(power_input_from_file(&in, f, POWER_BASIS_AUTO, &err), 0);
	assert_int_equal(in.basis, POWER_BASIS_BOARD);
	power_iter_init(&it, &in);
	while (power_iter_next(&it, &iv)) {
		assert_true(iv.dt <= 0.020 + 1e-12);
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(power_summarize(&in, &s, &err), 0);
	assert_int_equal(s.lost, 1);
	/* 5 records and the missing one.  Power: the 4 quanta that end inside
	 * the intervals (30 ms + 10 ms of counting); each segment's first
	 * quantum began at an unknown time. */
	assert_float_equal(s.energy_j, 6 * e, 1e-12);
	assert_float_equal(s.power_w, 4 * e / 0.040, 1e-9);
	power_input_free(&in);
	eqp_close(f);
}

/* The board header's own nominal voltage and dead time: each record's pulses
 * are scaled by its voltage and divided by the fraction of the interval the
 * front end was counting (1 - pulses x dead time / dt). */
static void test_board_dead_time_and_voltage(void **state)
{
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = 64 * 46.12e-6,
			      .clock_hz = 1e9, .target = "t" };
	struct eqp_board_info bi = { .clock_hz = 1e6, .e_min_j = 46.12e-6, .quantum_pulses = 64,
				     .firmware = "test", .vb_nominal_v = 4.0, .dead_time_s = 2e-6 };
	struct eqp_board_rec r[2] = {
		{ 0, 0, 64, 4000000, 0, 0 },
		{ 10000, 1, 64, 3000000, 0, 0 },  /* 10 ms at 3.0 V */
	};
	struct eq_sample smp[2] = { { .time = 0, .seq = 0 }, { .time = 10000000, .seq = 1 } };
	double want = 64 * 46.12e-6 * 3.0 / 4.0 / (1 - 64 * 2e-6 / 0.010);
	struct power_input in;
	struct power_iter it;
	struct power_iv iv;
	struct eq_error err;
	struct eqp_writer *w = eqp_create(tmp_path("dead.eqp"), &m, &err);
	struct eqp_file *f;

	(void)state;
	assert_non_null(w);
	assert_int_equal(eqp_add_samples(w, smp, 2, &err), 0);
	assert_int_equal(eqp_add_board_info(w, &bi, &err), 0);
	assert_int_equal(eqp_add_board_records(w, r, 2, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(tmp_path("dead.eqp"), &err);
	assert_non_null(f);
	assert_float_equal(eqp_board_info(f)->dead_time_s, 2e-6, 0);
	assert_int_equal(power_input_from_file(&in, f, POWER_BASIS_BOARD, &err), 0);
	power_iter_init(&it, &in);
	assert_int_equal(power_iter_next(&it, &iv), 1);
	assert_float_equal(iv.energy_j, want, 1e-15);
	assert_float_equal(iv.energy_j / iv.dt, want / 0.010, 1e-12);
	power_input_free(&in);
	eqp_close(f);
}

static void test_per_row(void **state)
{
	struct eqp_file *t = write_time_file("rowt.eqp", 0);
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = Q, .clock_hz = 1e9, .target = "e" };
	struct eq_sample s[2] = { { .time = 0 }, { .time = 1000, .seq = 1 } };
	struct power_row_ctx ctx;
	struct eq_error err;
	struct eqp_writer *w = eqp_create(tmp_path("rowe.eqp"), &m, &err);
	struct eqp_file *e;

	(void)state;
	assert_non_null(w);
	assert_int_equal(eqp_add_samples(w, s, 2, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	e = eqp_open(tmp_path("rowe.eqp"), &err);
	assert_non_null(e);
	assert_int_equal(power_row_context(t, e, &ctx, &err), 0);
	/* 11 time samples over 10 ms: 1 ms each. */
	assert_float_equal(ctx.time_per_sample_s, 0.001, 1e-12);
	/* 10 energy samples (29.4 mJ) over 20 time samples (20 ms): 1.47 W */
	assert_float_equal(power_per_row(&ctx, 10, 20), 1.47, 1e-9);
	assert_true(isnan(power_per_row(&ctx, 10, 0)));
	assert_int_equal(power_row_context(e, t, &ctx, &err), -1);
	eqp_close(e);
	eqp_close(t);
}

static void test_plot_hist_png_and_svg(void **state)
{
	struct power_plot_opts po = { .split_idle = 1 };
	const char *names[1] = { "steps" };
	struct power_input in;
	struct power_hist h;
	struct eq_error err;
	char png[256], svg[256];

	(void)state;
	build_steps(UINT32_MAX, 0);
	open_steps(&in);
	assert_int_equal(power_hist_init(&h, 0.050, &err), 0);
	assert_int_equal(power_hist_build(&h, &in, &err), 0);
	snprintf(png, sizeof(png), "%s", tmp_path("h.png"));
	snprintf(svg, sizeof(svg), "%s", tmp_path("h.svg"));
	assert_int_equal(power_plot_hist(png, &h, names, 1, &po, &err), 0);
	assert_int_equal(plot_check_image(png, PLOT_PNG, &err), 0);
	assert_int_equal(power_plot_hist(svg, &h, names, 1, &po, &err), 0);
	assert_int_equal(plot_check_image(svg, PLOT_SVG, &err), 0);
	/* The checker refuses what is not an image. */
	assert_int_equal(plot_check_image(svg, PLOT_PNG, &err), -1);
	assert_non_null(strstr(err.msg, "PNG"));
	/* An unknown extension is refused before gnuplot runs. */
	assert_int_equal(power_plot_hist(tmp_path("h.gif"), &h, names, 1, &po, &err), -1);
	assert_int_equal(access(tmp_path("h.gif"), F_OK), -1);
	power_hist_free(&h);
	power_input_free(&in);
}

static void test_fmt_fixed_matches_printf(void **state)
{
	static const double v[] = { 0, 0.294, 1.47, 0.5, 123.456789, 1e-9, 0.0000004,
				    9.999999999, 60144.6, 2.94e6, 1e300, -1.5 };
	char fast[64], slow[64];
	uint64_t seed = 12345;
	size_t i, differ = 0;
	int d;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (d = 1; d <= 9; d++) {
			size_t n = power_fmt_fixed(fast, sizeof(fast), v[i], d);

			snprintf(slow, sizeof(slow), "%.*f", d, v[i]);
			assert_string_equal(fast, slow);
			assert_int_equal(n, strlen(slow));
		}
	/* Random values: at most a rare last-digit difference at halfway points. */
	for (i = 0; i < 200000; i++) {
		double x;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		x = (double)(seed >> 11) / (double)(1ull << 53) * 1000.0;
		power_fmt_fixed(fast, sizeof(fast), x, 6);
		snprintf(slow, sizeof(slow), "%.6f", x);
		if (strcmp(fast, slow) != 0) {
			differ++;
			assert_float_equal(strtod(fast, NULL), strtod(slow, NULL), 1.01e-6);
		}
	}
	assert_true(differ < 20);
	/* A small buffer gets the truncated printf result, never an overflow. */
	assert_int_equal(power_fmt_fixed(fast, 4, 123.5, 3), 3);
	assert_string_equal(fast, "123");
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/power-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_steps),
		cmocka_unit_test(test_summary_lost),
		cmocka_unit_test(test_summary_drops_after_last),
		cmocka_unit_test(test_summary_merged_losses),
		cmocka_unit_test(test_board_dead_time_and_voltage),
		cmocka_unit_test(test_hist_steps),
		cmocka_unit_test(test_hist_glitch_is_capped),
		cmocka_unit_test(test_trace_steps_and_window),
		cmocka_unit_test(test_trace_decimation_keeps_extremes),
		cmocka_unit_test(test_envelope_columns),
		cmocka_unit_test(test_region),
		cmocka_unit_test(test_regions_from_markers),
		cmocka_unit_test(test_unsorted_input),
		cmocka_unit_test(test_time_file_without_board),
		cmocka_unit_test(test_time_file_with_board),
		cmocka_unit_test(test_board_log_with_reset),
		cmocka_unit_test(test_per_row),
		cmocka_unit_test(test_plot_hist_png_and_svg),
		cmocka_unit_test(test_fmt_fixed_matches_printf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
