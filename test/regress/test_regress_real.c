/*
 * test_regress_real.c - power per procedure by regression on recordings
 * that are not eqprof sim's (issue 12, seed 002): the energy per interval
 * from an energy source's readings (record -t --energy: ESRC/ERDG chunks)
 * and from a board stream whose clock meets the samples' only through
 * eqprof merge (the knots of merge --edges, or its linear alignment).
 *
 * The recordings are written here with the eqp_write API from a known
 * timeline: three procedures of one program alternate in segments of
 * random lengths, each at its own power (one table per domain); time-driven
 * samples at 1 kHz +-5% say which ran; the readings are what a RAPL counter
 * would show (1 ms updates, 15.3 uJ steps, read just after each update);
 * the board's records are the edges of 10 mJ quanta on a board clock that
 * runs at another rate and changes rate halfway (a paused board, a loaded
 * host).  No RAPL is read: the real-hardware path is exercised by the
 * hardware-in-the-loop test (test/hil) for the board only.
 *
 * Every fit must put each true power inside its interval widened to
 * Student's t at 1 - 2.5e-5 (19 degrees of freedom: 20 jackknife groups):
 * 5.21 standard errors, so that a correct fit fails less than once in
 * 10,000 runs over the 3 x 4 coefficients were the seed drawn at random
 * (it is fixed here: the test is deterministic); and within 3% of it.
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

#include "file/eqp.h"
#include "regress/regress.h"
#include "symbols/symbolize.h"
#include "test/lib/xorshift.h"

#define NPROC 3
#define SECONDS 40.0
#define BASE 0x400000ull
#define T99 5.2086 /* Student's t, 19 df, 1 - 2.5e-5 */

static const char *const names[NPROC] = { "decode", "filter", "wait_io" };
static const uint64_t addrs[NPROC] = { 0x1000, 0x2000, 0x3000 };
static const double pw_pkg[NPROC] = { 2.0, 5.0, 0.8 };
static const double pw_dram[NPROC] = { 0.5, 0.2, 1.0 };

static char tmpdir[] = "/tmp/eq-regress-real-XXXXXX";

struct timeline {
	size_t n;
	double *t0;      /* segment starts (s); t0[n] = end */
	int *proc;
	double *e_pkg, *e_dram; /* energy at each segment start */
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double uniform(void)
{
	return (double)(eq_xorshift64(&rng) >> 11) / 9007199254740992.0;
}

static void make_timeline(struct timeline *tl)
{
	size_t cap = 8192;
	double t = 0;

	tl->t0 = malloc((cap + 1) * sizeof(double));
	tl->proc = malloc(cap * sizeof(int));
	tl->e_pkg = malloc((cap + 1) * sizeof(double));
	tl->e_dram = malloc((cap + 1) * sizeof(double));
	assert_non_null(tl->t0);
	tl->n = 0;
	tl->e_pkg[0] = tl->e_dram[0] = 0;
	while (t < SECONDS) {
		double len = -0.03 * log(1 - uniform()); /* mean 30 ms */

		assert_true(tl->n < cap);
		tl->t0[tl->n] = t;
		tl->proc[tl->n] = (int)(uniform() * NPROC) % NPROC;
		t = fmin(SECONDS, t + len);
		tl->e_pkg[tl->n + 1] = tl->e_pkg[tl->n] + pw_pkg[tl->proc[tl->n]] * (t - tl->t0[tl->n]);
		tl->e_dram[tl->n + 1] = tl->e_dram[tl->n] + pw_dram[tl->proc[tl->n]] * (t - tl->t0[tl->n]);
		tl->n++;
	}
	tl->t0[tl->n] = SECONDS;
}

static size_t seg_at(const struct timeline *tl, double t)
{
	size_t lo = 0, hi = tl->n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (tl->t0[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static double energy_at(const struct timeline *tl, const double *e, const double *pw, double t)
{
	size_t i = seg_at(tl, t);

	return e[i] + pw[tl->proc[i]] * (t - tl->t0[i]);
}

/* The target's clock: 5 s of uptime before the recording, in ns. */
static uint64_t tns(double t) { return (uint64_t)llround((t + 5.0) * 1e9); }

enum { WITH_ENERGY = 1, WITH_BOARD = 2 };
enum { CLOCK_KNOTS, CLOCK_LINEAR, CLOCK_NONE };

/* The board's seconds at target seconds t: a rate change halfway. */
static double board_s(double t, int linear)
{
	if (linear || t < SECONDS / 2)
		return 3.0 + 0.9 * t;
	return 3.0 + 0.9 * SECONDS / 2 + 1.2 * (t - SECONDS / 2);
}

static void write_recording(const struct timeline *tl, const char *path, int what, int clock)
{
	struct eqp_meta m = { .mode = EQP_MODE_TIME, .nominal_hz = 1000, .clock_hz = 1e9,
			      .target = "x86_64 Linux (test)" };
	char *extra = NULL;
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_symbol syms[NPROC];
	struct eqp_symtab st = { "/bin/prog", 0, NPROC, syms };
	const char *maps = "00400000-00410000 r-xp 00000000 00:00 0 /bin/prog\n";
	double t;
	size_t i;

	/* the board's quanta: 10 mJ of package energy each */
	double *edge = NULL;
	size_t nedge = 0;

	if (what & WITH_BOARD) {
		double q = 0.010, total = tl->e_pkg[tl->n];
		size_t k;

		nedge = (size_t)(total / q);
		edge = malloc((nedge + 1) * sizeof(double));
		assert_non_null(edge);
		for (k = 1; k <= nedge; k++) { /* where the package energy reaches k quanta */
			size_t lo = 0, hi = tl->n;
			double want = (double)k * q;

			while (hi - lo > 1) {
				size_t mid = (lo + hi) / 2;

				if (tl->e_pkg[mid] <= want)
					lo = mid;
				else
					hi = mid;
			}
			edge[k - 1] = tl->t0[lo] + (want - tl->e_pkg[lo]) / pw_pkg[tl->proc[lo]];
		}
		extra = malloc(64 + nedge * 48);
		assert_non_null(extra);
		if (clock == CLOCK_KNOTS) {
			size_t len = (size_t)sprintf(extra, "board_align=ok\nboard_align_knots=");

			for (k = 0; k < nedge; k++) /* the edges, as merge --edges writes them */
				len += (size_t)sprintf(extra + len, "%s%.0f:%llu", k ? " " : "",
						       round(board_s(edge[k], 0) * 1e6) * 1e3,
						       (unsigned long long)tns(edge[k]));
			sprintf(extra + len, "\n");
		} else if (clock == CLOCK_LINEAR) {
			/* target ns = offset + rate x board ns */
			sprintf(extra, "board_align=ok\nboard_align_offset_ns=%.1f\nboard_align_rate=%.12f\n",
				(5.0 - 3.0 / 0.9) * 1e9, 1 / 0.9);
		} else {
			sprintf(extra, "tool=eqprof record -t\n");
		}
		m.extra = extra;
	}
	w = eqp_create(path, &m, &err);
	assert_non_null(w);
	for (i = 0; i < NPROC; i++)
		syms[i] = (struct eqp_symbol){ addrs[i], 0x100, names[i] };
	assert_int_equal(eqp_add_symtab(w, &st, &err), 0);
	assert_int_equal(eqp_add_maps(w, 100, 0, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_comm(w, 100, 0, "prog", &err), 0);
	/* time-driven samples, 1 kHz +-5% */
	for (t = 0.0005, i = 0; t < SECONDS; t += 1e-3 * (0.95 + 0.1 * uniform()), i++) {
		struct eq_sample s = { .time = tns(t), .pc = BASE + addrs[tl->proc[seg_at(tl, t)]] + 0x10,
				       .pid = 100, .tid = 100, .seq = (uint32_t)i };

		assert_int_equal(eqp_add_samples(w, &s, 1, &err), 0);
	}
	if (what & WITH_ENERGY) {
		/* RAPL-like: dram (index 0) and package (index 1), 1 ms updates,
		 * 15.3 uJ steps, each read 0-200 us after it happened */
		struct eqp_edomain d[2] = {
			{ 0, 1, 262143.0, 15.3e-6, 1e-3, "rapl:dram-0", "dram-0", "dram",
			  "/sys/class/powercap/intel-rapl:0:0/energy_uj", "Intel SDM: ~1 ms" },
			{ 1, 1, 262143.0, 15.3e-6, 1e-3, "rapl:package-0", "package-0", "package",
			  "/sys/class/powercap/intel-rapl:0/energy_uj", "Intel SDM: ~1 ms" },
		};
		double raw0[2] = { NAN, NAN }, prev[2] = { NAN, NAN }, u;

		assert_int_equal(eqp_add_energy_domain(w, &d[0], &err), 0);
		assert_int_equal(eqp_add_energy_domain(w, &d[1], &err), 0);
		for (u = 0.0003; u < SECONDS; u += 1e-3) {
			for (i = 0; i < 2; i++) {
				double e = energy_at(tl, i ? tl->e_pkg : tl->e_dram, i ? pw_pkg : pw_dram, u);
				double raw = floor(e / 15.3e-6) * 15.3e-6;
				struct eqp_ereading r = { .time = tns(fmin(u + 2e-4 * uniform(), SECONDS)),
							  .raw = raw, .domain = (uint32_t)i };

				if (isnan(raw0[i]))
					raw0[i] = raw;
				r.energy_j = raw - raw0[i];
				r.flags = raw != prev[i] ? EQP_EREAD_F_CHANGED : 0;
				prev[i] = raw;
				assert_int_equal(eqp_add_energy_readings(w, &r, 1, &err), 0);
			}
		}
	}
	if (what & WITH_BOARD) {
		struct eqp_board_info bi = { .clock_hz = 1e6, .e_min_j = 1e-4, .quantum_pulses = 100,
					     .firmware = "test" };
		size_t k;

		assert_int_equal(eqp_add_board_info(w, &bi, &err), 0);
		for (k = 0; k < nedge; k++) {
			struct eqp_board_rec r = { .time = (uint64_t)llround(board_s(edge[k], clock == CLOCK_LINEAR) * 1e6),
						   .seq = (uint32_t)(k + 1), .pulses = 100 };

			assert_int_equal(eqp_add_board_records(w, &r, 1, &err), 0);
		}
	}
	assert_int_equal(eqp_commit(w, &err), 0);
	free(edge);
	free(extra);
}

/* Fits path (with --domain `domain`) and holds each procedure to its power. */
static void check_fit(const char *path, const char *domain, const double *pw, const char *from)
{
	struct eq_error err;
	struct eqp_file *f = eqp_open(path, &err);
	struct eq_symbolizer *s;
	struct eq_regress_opts o;
	struct eq_regress *r;
	size_t i, k, found = 0;

	assert_non_null(f);
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	eq_regress_opts_default(&o);
	o.domain = domain;
	r = eq_regress_fit(f, s, &o, &err);
	if (!r)
		print_error("%s\n", err.msg);
	assert_non_null(r);
	if (!strstr(r->energy_from, from))
		print_error("energy from '%s', want '%s'\n", r->energy_from, from);
	assert_non_null(strstr(r->energy_from, from));
	for (i = 0; i < r->nrows; i++)
		for (k = 0; k < NPROC; k++)
			if (!strcmp(r->rows[i].name, names[k])) {
				const struct eq_regress_row *w = &r->rows[i];

				print_message("#  %-10s %-8s truth %.3f W fit %.4f +- %.4f W vif %.2f\n", from,
					      w->name, pw[k], w->power_w, w->se_w, w->vif);
				assert_true(fabs(w->power_w - pw[k]) <= T99 * w->se_w);
				assert_true(fabs(w->power_w - pw[k]) <= 0.03 * pw[k]);
				assert_false(w->flagged);
				found++;
			}
	assert_int_equal(found, NPROC);
	assert_true(isfinite(r->condition) && r->condition < EQ_COND_WARN);
	assert_true(r->nintervals > 100);
	eq_regress_free(r);
	eq_sym_free(s);
	eqp_close(f);
}

static void expect_error(const char *path, const char *domain, const char *want1, const char *want2)
{
	struct eq_error err;
	struct eqp_file *f = eqp_open(path, &err);
	struct eq_symbolizer *s;
	struct eq_regress_opts o;

	assert_non_null(f);
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	eq_regress_opts_default(&o);
	o.domain = domain;
	assert_null(eq_regress_fit(f, s, &o, &err));
	if (!strstr(err.msg, want1) || !strstr(err.msg, want2))
		print_error("message: %s\n", err.msg);
	assert_non_null(strstr(err.msg, want1));
	assert_non_null(strstr(err.msg, want2));
	eq_sym_free(s);
	eqp_close(f);
}

static struct timeline tl;

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	make_timeline(&tl);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	free(tl.t0);
	free(tl.proc);
	free(tl.e_pkg);
	free(tl.e_dram);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* record -t --energy rapl: the package by default, dram on request; the
 * output says which. */
static void test_energy_source(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/rapl.eqp", tmpdir);
	write_recording(&tl, path, WITH_ENERGY, CLOCK_NONE);
	check_fit(path, NULL, pw_pkg, "package-0 (package)");
	check_fit(path, "dram", pw_dram, "dram-0 (dram)");
	check_fit(path, "rapl:dram-0", pw_dram, "dram-0 (dram)");
	expect_error(path, "gpu", "no energy domain 'gpu'", "package-0 (package)");
}

/* A board stream whose clock runs at another rate, and changes it halfway:
 * the knots (merge --edges) map it exactly. */
static void test_board_knots(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/knots.eqp", tmpdir);
	write_recording(&tl, path, WITH_BOARD, CLOCK_KNOTS);
	check_fit(path, NULL, pw_pkg, "(eqprof merge --edges)");
	/* both: the board by default, the energy source on request */
	snprintf(path, sizeof(path), "%s/both.eqp", tmpdir);
	write_recording(&tl, path, WITH_BOARD | WITH_ENERGY, CLOCK_KNOTS);
	check_fit(path, NULL, pw_pkg, "edges (eqprof merge --edges)");
	check_fit(path, "dram-0", pw_dram, "dram-0 (dram)");
}

/* A merge's linear alignment (one rate) maps it too. */
static void test_board_linear(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/linear.eqp", tmpdir);
	write_recording(&tl, path, WITH_BOARD, CLOCK_LINEAR);
	check_fit(path, NULL, pw_pkg, "eqprof merge's alignment");
}

/* No known common clock: refused, saying what to record. */
static void test_refused(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/noclock.eqp", tmpdir);
	write_recording(&tl, path, WITH_BOARD, CLOCK_NONE);
	expect_error(path, NULL, "share no known clock", "--edges");
	expect_error(path, "package", "no energy source's readings", "--energy");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_energy_source),
		cmocka_unit_test(test_board_knots),
		cmocka_unit_test(test_board_linear),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
