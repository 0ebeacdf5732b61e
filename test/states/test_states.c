/*
 * test_states.c - power states (issue 12, seed 003): the PSTA chunk round
 * trip and its damage checks, state lookups, --by parsing, split profiles
 * on a crafted recording, and the split profile's intervals against the
 * simulator's exact truth per state over many seeds.
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
#include "profile/profile.h"
#include "states/pstate.h"
#include "sim.h"
#include "test/lib/simrun.h"
#include "sim_internal.h"
#include "states/split.h"
#include "states.h"
#include "symbols/symbolize.h"


/* A recording of samples (pc 0x1000 of process 5 or idle) and states. */
static void write_rec(const char *path, const struct eq_sample *s, size_t n,
		      const struct eqp_pstate *ps, size_t nps)
{
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = 1e-3, .clock_hz = 1e9,
			      .target = "test" };
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &m, &err);
	static const char maps[] = "00001000-00002000 r-xp 00000000 00:00 0 /bin/app\n";

	assert_non_null(w);
	assert_int_equal(eqp_add_maps(w, 5, 0, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_comm(w, 5, 0, "app", &err), 0);
	assert_int_equal(eqp_add_samples(w, s, n, &err), 0);
	if (nps)
		assert_int_equal(eqp_add_pstates(w, ps, nps, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
}

static struct eq_sample smp(uint64_t t, uint16_t cpu, int idle, int kernel)
{
	struct eq_sample s = { .time = t, .pc = 0x1000, .pid = idle ? 0 : 5, .tid = idle ? 0 : 5,
			       .cpu = cpu, .flags = (uint16_t)(EQ_F_ENERGY | (idle ? EQ_F_IDLE | EQ_F_KERNEL : 0) |
							       (kernel ? EQ_F_KERNEL : 0)) };
	return s;
}

static void test_psta_roundtrip(void **state)
{
	char path[512];
	struct eq_sample s[2] = { smp(10, 0, 0, 0), smp(20, 1, 0, 0) };
	struct eqp_pstate *ps = calloc(5000, sizeof(*ps));
	struct eq_error err;
	struct eqp_file *f;
	size_t i;

	(void)state;
	assert_non_null(ps);
	for (i = 0; i < 5000; i++) /* more than one chunk */
		ps[i] = (struct eqp_pstate){ .time = i * 100, .cpu = (uint16_t)(i % 3),
					     .kind = (uint16_t)(1 + i % 2), .value = (uint32_t)i };
	snprintf(path, sizeof(path), "%s/rt.eqp", simrun_dir);
	write_rec(path, s, 2, ps, 5000);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_null(eqp_warning(f));
	assert_int_equal(eqp_npstates(f), 5000);
	for (i = 0; i < 5000; i++)
		assert_memory_equal(eqp_pstate_at(f, i), &ps[i], sizeof(*ps));
	assert_null(eqp_pstate_at(f, 5000));
	eqp_close(f);
	/* a recording without the chunk (every file before it) has none */
	write_rec(path, s, 2, NULL, 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_int_equal(eqp_npstates(f), 0);
	eqp_close(f);
	free(ps);
}

/* A PSTA count that does not fit its payload is refused as corruption. */
static void test_psta_damage(void **state)
{
	char path[512];
	struct eq_sample s = smp(10, 0, 0, 0);
	struct eqp_pstate ps = { .time = 1, .kind = EQP_PS_FREQ, .value = 206000 };
	struct eq_error err;
	unsigned char *buf;
	size_t len, off;
	FILE *fp;
	struct eqp_file *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/dmg.eqp", simrun_dir);
	write_rec(path, &s, 1, &ps, 1);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	buf = malloc(1 << 16);
	len = fread(buf, 1, 1 << 16, fp);
	fclose(fp);
	for (off = 16; off + 4 < len; off++)
		if (!memcmp(buf + off, "PSTA", 4))
			break;
	assert_true(off + 4 < len);
	buf[off + 16] = 2; /* count 2, payload for 1 */
	f = eqp_open_mem(buf, len, "dmg.eqp", &err);
	assert_null(f);
	/* with the CRC wrong too, the message names the chunk either way */
	assert_non_null(strstr(err.msg, "PSTA"));
	free(buf);
}

static void test_lookup(void **state)
{
	char path[512];
	struct eq_sample s = smp(10, 0, 0, 0);
	/* out of order on purpose: the timelines sort them */
	struct eqp_pstate ps[] = {
		{ .time = 500, .cpu = 0, .kind = EQP_PS_FREQ, .value = 59000 },
		{ .time = 100, .cpu = 0, .kind = EQP_PS_FREQ, .value = 206000 },
		{ .time = 100, .cpu = 1, .kind = EQP_PS_FREQ, .value = 1200000 },
		{ .time = 200, .cpu = 0, .kind = EQP_PS_IDLE, .value = 2 },
		{ .time = 300, .cpu = 0, .kind = EQP_PS_IDLE, .value = 0 },
		{ .time = 300, .cpu = 0, .kind = 77, .value = 9 },   /* unknown kind: ignored */
	};
	struct eq_error err;
	struct eqp_file *f;
	struct eq_pstates *t;
	uint32_t khz;
	int c;
	char buf[32];

	(void)state;
	snprintf(path, sizeof(path), "%s/lk.eqp", simrun_dir);
	write_rec(path, &s, 1, ps, sizeof(ps) / sizeof(ps[0]));
	f = eqp_open(path, &err);
	assert_non_null(f);
	t = eq_pstates_new(f, &err);
	assert_non_null(t);
	assert_true(eq_pstates_has(t, EQP_PS_FREQ) && eq_pstates_has(t, EQP_PS_IDLE));
	eq_pstates_at(t, 0, 99, &khz, &c);
	assert_int_equal(khz, 0);
	assert_int_equal(c, -1);
	eq_pstates_at(t, 0, 100, &khz, &c);
	assert_int_equal(khz, 206000);
	eq_pstates_at(t, 0, 250, &khz, &c);
	assert_int_equal(khz, 206000);
	assert_int_equal(c, 2);
	eq_pstates_at(t, 0, 1000, &khz, &c);
	assert_int_equal(khz, 59000);
	assert_int_equal(c, 0);
	eq_pstates_at(t, 1, 1000, &khz, &c);
	assert_int_equal(khz, 1200000);
	assert_int_equal(c, -1);
	eq_pstates_at(t, 2, 1000, &khz, &c);
	assert_int_equal(khz, 0);
	assert_string_equal(eq_freq_label(buf, sizeof(buf), 1200000), "1.2GHz");
	assert_string_equal(eq_freq_label(buf, sizeof(buf), 206000), "206MHz");
	assert_string_equal(eq_freq_label(buf, sizeof(buf), 1500), "1.5MHz");
	assert_string_equal(eq_cstate_label(buf, sizeof(buf), -2), "idle");
	eq_pstates_free(t);
	eqp_close(f);
}

static void test_parse(void **state)
{
	struct eq_error err;
	enum eq_by by;

	(void)state;
	assert_int_equal(eq_by_parse_split("proc", &by, &err), 0);
	assert_int_equal(by, EQ_BY_PROC);
	assert_int_equal(eq_by_parse_split("state", &by, &err), 0);
	assert_true((unsigned)by & EQ_BY_SPLIT);
	assert_int_equal(EQ_BY_PRIMARY(by), EQ_BY_NONE);
	assert_int_equal(EQ_BY_SPLITS(by), EQ_SPLIT_STATE);
	assert_string_equal(eq_by_name(by), "state");
	assert_int_equal(eq_by_parse_split("exe,state", &by, &err), 0);
	assert_int_equal(EQ_BY_PRIMARY(by), EQ_BY_EXE);
	assert_string_equal(eq_by_name(by), "exe,state");
	assert_int_equal(eq_by_parse_split("mode,proc,cpu", &by, &err), 0);
	assert_string_equal(eq_by_name(by), "proc,cpu,mode");
	assert_int_equal(eq_by_parse_split("line,state", &by, &err), -1);
	assert_non_null(strstr(err.msg, "cannot be split"));
	assert_int_equal(eq_by_parse_split("exe,proc,state", &by, &err), -1);
	assert_int_equal(eq_by_parse_split("state,freq", &by, &err), -1);
	assert_int_equal(eq_by_parse_split("exe,exe2", &by, &err), -1);
	assert_int_equal(eq_by_parse_split("exe,cpu,cpu", &by, &err), -1);
	assert_int_equal(eq_by_parse_split("bogus", &by, &err), -1);
	assert_non_null(strstr(err.msg, "state"));
}

static struct eq_profile *split(struct eqp_file *f, struct eq_symbolizer **s, const char *by_text,
				unsigned flags, struct eq_split_store **st, struct eq_error *err)
{
	enum eq_by by;

	assert_int_equal(eq_by_parse_split(by_text, &by, err), 0);
	*s = eq_sym_new(f, NULL, err);
	assert_non_null(*s);
	return eq_split_profile_build(f, *s, by, flags, st, err);
}

/* Samples of the rows of this name (of any module). */
static uint64_t row_samples(const struct eq_profile *p, const char *name)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (!strcmp(p->rows[i].name, name))
			n += p->rows[i].samples;
	return n;
}

/* Samples on two CPUs in known states: each row counts what it should. */
static void test_split_crafted(void **state)
{
	char path[512];
	struct eq_sample s[] = {
		smp(150, 0, 0, 0), smp(160, 0, 0, 1), smp(250, 0, 1, 0), smp(350, 0, 0, 0),
		smp(600, 0, 0, 0), smp(150, 1, 0, 0), smp(700, 1, 1, 0),
	};
	struct eqp_pstate ps[] = {
		{ .time = 100, .cpu = 0, .kind = EQP_PS_FREQ, .value = 206000 },
		{ .time = 500, .cpu = 0, .kind = EQP_PS_FREQ, .value = 59000 },
		{ .time = 100, .cpu = 1, .kind = EQP_PS_FREQ, .value = 59000 },
		{ .time = 0, .cpu = 0, .kind = EQP_PS_IDLE, .value = 0 },
		{ .time = 200, .cpu = 0, .kind = EQP_PS_IDLE, .value = 2 },
		{ .time = 300, .cpu = 0, .kind = EQP_PS_IDLE, .value = 0 },
		{ .time = 0, .cpu = 1, .kind = EQP_PS_IDLE, .value = 0 },
		{ .time = 650, .cpu = 1, .kind = EQP_PS_IDLE, .value = 1 },
	};
	struct eq_error err;
	struct eqp_file *f;
	struct eq_symbolizer *sy;
	struct eq_split_store *st;
	struct eq_profile *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/cr.eqp", simrun_dir);
	write_rec(path, s, sizeof(s) / sizeof(s[0]), ps, sizeof(ps) / sizeof(ps[0]));
	f = eqp_open(path, &err);
	assert_non_null(f);

	p = split(f, &sy, "state", 0, &st, &err);
	assert_non_null(p);
	assert_int_equal(p->total_samples, 7);
	assert_int_equal(row_samples(p, "206MHz C0"), 3);
	assert_int_equal(row_samples(p, "206MHz C2"), 1);
	assert_int_equal(row_samples(p, "59MHz C0"), 2);
	assert_int_equal(row_samples(p, "59MHz C1"), 1);
	assert_int_equal(p->idle_samples, 2);
	assert_string_equal(eq_by_name(p->by), "state");
	eq_profile_free(p);
	eq_split_store_free(st);
	eq_sym_free(sy);

	p = split(f, &sy, "exe,cpu,mode", EQ_PROFILE_EXCLUDE_IDLE, &st, &err);
	assert_non_null(p);
	assert_int_equal(p->total_samples, 5);
	assert_int_equal(row_samples(p, "app [cpu0 user]"), 3);
	assert_int_equal(row_samples(p, "app [cpu0 kernel]"), 1);
	assert_int_equal(row_samples(p, "app [cpu1 user]"), 1);
	eq_profile_free(p);
	eq_split_store_free(st);
	eq_sym_free(sy);

	p = split(f, &sy, "proc,freq", 0, &st, &err);
	assert_non_null(p);
	assert_int_equal(row_samples(p, "[unknown] [206MHz]"), 3);
	assert_int_equal(row_samples(p, "[unknown] [59MHz]"), 2);
	eq_profile_free(p);
	eq_split_store_free(st);
	eq_sym_free(sy);
	eqp_close(f);

	/* without PSTA: cpu and mode work, state says what to record */
	write_rec(path, s, sizeof(s) / sizeof(s[0]), NULL, 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	p = split(f, &sy, "mode", 0, &st, &err);
	assert_non_null(p);
	assert_int_equal(row_samples(p, "idle"), 2);
	eq_profile_free(p);
	eq_split_store_free(st);
	eq_sym_free(sy);
	p = split(f, &sy, "exe,state", 0, &st, &err);
	assert_null(p);
	assert_null(st);
	assert_non_null(strstr(err.msg, "no power-state changes"));
	assert_non_null(strstr(err.msg, "record"));
	eq_sym_free(sy);
	eqp_close(f);
}

/* ---- against the simulator's truth ------------------------------------- */

/* Two frequencies, idle in both, a mix of procedures: 4 states.  The
 * clock alternates every 200 ms (a governor's pace), so every state's
 * samples spread over the whole run like a procedure's do (dvfs_scenario). */
static const char *dvfs_head =
	"scenario dvfs\nbase_power 120mW\nfreq 206MHz\nfreq 59MHz\n"
	"consumer lcd 120mW period 1ms duty 50%\n"
	"kernel\n proc idle_loop 0xc0001000 0x1000 20mW\n"
	" proc sched 0xc0004000 0x1000 900mW@206MHz 260mW@59MHz\nidle idle_loop\n"
	"module /bin/app\n proc decode 0x10000 0x8000 900mW@206MHz 260mW@59MHz\n"
	" proc ui 0x30000 0x8000 300mW@206MHz 90mW@59MHz\n"
	"process app 100 /bin/app\n map /bin/app 0x400000\n";

static void dvfs_scenario(char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "%s", dvfs_head);
	int i;

	for (i = 0; i < 40; i++)
		len += (size_t)snprintf(buf + len, size - len, i % 2 ?
			"phase slow%d 0.2s\n cpufreq 59MHz\n cpu_idle 30%% granularity 26ms\n slice 1ms\n"
			" run app decode 1\n run app ui 2\n" :
			"phase fast%d 0.2s\n cpufreq 206MHz\n cpu_idle 50%% granularity 26ms\n slice 1ms\n"
			" run app decode 3\n run app ui 1\n run app sched 1\n", i);
	assert_true(len < size);
}

/* Issue 23 item 6: states that last thousands of samples (Table 5's
 * Itsy: one stretch per clock), where the systematic-sampling variance
 * from the lag-1 correlation is the rounding of a few stretches and the
 * quanta cut at each change set the error.  Three clocks, each busy in
 * one stretch and idle in another, with Itsy's powers. */
static void long_scenario(char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size,
		"scenario long\nbase_power 100mW\nfreq 206MHz\nfreq 118MHz\nfreq 59MHz\n"
		"isr_power 600mW@206MHz 343.7mW@118MHz 171.8mW@59MHz\n"
		"kernel\n proc cpu_idle 0xc0010000 0x100 10mW\n"
		" proc flash_write 0xc0020000 0x800 400mW\nidle cpu_idle\n"
		"module /bin/app\n proc kernel_loop 0x1000 0x2000 607mW@206MHz 348mW@118MHz 181mW@59MHz\n"
		" proc checksum 0x4000 0x800 607mW@206MHz 348mW@118MHz 181mW@59MHz\n"
		"process app 300 /bin/app\n map /bin/app 0x8000\n");
	static const char *const clocks[] = { "206MHz", "118MHz", "59MHz" };
	static const double busy[] = { 1.2, 1.6, 2.4 }, rest[] = { 0.6, 0.9, 1.3 };
	int i;

	for (i = 0; i < 3; i++)
		len += (size_t)snprintf(buf + len, size - len,
			"phase run%d %gs\n cpufreq %s\n cpu_idle 0\n run app kernel_loop 70\n"
			" run app checksum 30\n run app flash_write 1\n"
			"phase rest%d %gs\n cpufreq %s\n cpu_idle 100%%\n",
			i, busy[i], clocks[i], i, rest[i], clocks[i]);
	assert_true(len < size);
}

/* The front end's modelled biases off (docs/simulator.md "Bias", which no
 * interval covers: the supply drop without voltage compensation, the dead
 * time); everything else as the defaults: the sampling ISR (2000 cycles),
 * the OS tick's handlers, the recorder, the quantum jitter, the latency. */
static const char *const no_frontend_bias[] = {
	"dead_time=1ns", "vcomp=on", "r_fuse=0", "r_source=0", NULL,
};

enum { G_STATES, G_FREQS, G_CSTATES, NGROUPS };
static const char *const group_by[NGROUPS] = { "state", "freq", "cstate" };

struct cov { long rows, in; double ss, ss2; long seeds; };

/* The true share of a state row of group g from the run's cpu_states
 * (everything drawn in each state, the ISR and the handlers included:
 * truth-states.json's states, freqs and cstates). */
static double true_share(const struct sim_scenario *sc, const struct sim_truth_act *cpu, int g,
			 size_t f, int idle, int mode, double total)
{
	double x = 0;
	size_t j;

	for (j = 0; j < 2 * sc->nfreqs; j++)
		if ((g == G_STATES && j == f * 2 + (size_t)idle) || (g == G_FREQS && j / 2 == f) ||
		    (g == G_CSTATES && (int)(j % 2) == idle))
			x += mode ? cpu[j].time_s : cpu[j].energy_j;
	return x / total;
}

/* One seed: each row's sampling interval against its true share, for
 * --by state, freq and cstate, energy- and time-driven. */
static void cover_one(void (*scenario)(char *, size_t), const char *const *sets, uint64_t seed,
		      struct cov cv[2][NGROUPS])
{
	struct sim_scenario sc;
	struct sim_result r;
	struct eq_error err;
	char dir[600], path[700], text[8192];
	size_t i, f;
	int mode, g;

	scenario(text, sizeof(text));
	assert_int_equal(sim_scenario_parse(&sc, text, strlen(text), "states.scn", &err), 0);
	snprintf(path, sizeof(path), "seed=%llu", (unsigned long long)seed);
	assert_int_equal(sim_scenario_set(&sc, path, &err), 0);
	for (; sets && *sets; sets++)
		assert_int_equal(sim_scenario_set(&sc, *sets, &err), 0);
	assert_int_equal(sim_run(&sc, NULL, &r, &err), 0);
	snprintf(dir, sizeof(dir), "%s/cov", simrun_dir);
	assert_int_equal(sim_write_outputs(&sc, &r, dir, &err), 0);
	for (mode = 0; mode < 2; mode++) {
		/* the time-driven recording is its own run when the two are separate */
		const struct sim_truth_act *cpu = mode && r.time_run.cpu_states ? r.time_run.cpu_states : r.cpu_states;
		double total = mode ? (r.time_run.cpu_states ? r.time_run.duration : r.duration) :
			       (r.time_run.cpu_states || !mode ? r.energy_j : r.time_run.energy_j);

		snprintf(path, sizeof(path), "%s/%s", dir, mode ? "time.eqp" : "energy.eqp");
		for (g = 0; g < NGROUPS; g++) {
			struct eqp_file *fp = eqp_open(path, &err);
			struct eq_symbolizer *sy;
			struct eq_split_store *st;
			struct eq_profile *p;
			long in = 0, rows = 0;

			assert_non_null(fp);
			p = split(fp, &sy, group_by[g], 0, &st, &err);
			assert_non_null(p);
			for (f = 0; f < (g == G_CSTATES ? 1 : sc.nfreqs); f++)
				for (int idle = 0; idle < (g == G_FREQS ? 1 : 2); idle++) {
					double truth = true_share(&sc, cpu, g, f, idle, mode, total);
					const struct eq_row *row;
					char label[64], fl[32], cl[16];

					eq_freq_label(fl, sizeof(fl), (uint32_t)llround(sc.freqs[f].hz / 1e3));
					eq_cstate_label(cl, sizeof(cl), idle ? SIM_IDLE_CSTATE : 0);
					snprintf(label, sizeof(label), "%s%s%s", g == G_CSTATES ? "" : fl,
						 g == G_STATES ? " " : "", g == G_FREQS ? "" : cl);
					row = eq_profile_find(p, label, NULL);
					if (!row) { /* a state with no time: no row, no truth */
						assert_true(truth == 0);
						continue;
					}
					rows++;
					in += truth >= row->ci95_low && truth <= row->ci95_high;
					if (getenv("EQ_STATES_DETAIL"))
						print_message("#  %llu %s %s truth %.5f share %.5f [%.5f, %.5f]\n",
							      (unsigned long long)seed, mode ? "time" : "energy", label,
							      truth, row->share, row->ci95_low, row->ci95_high);
				}
			cv[mode][g].rows += rows;
			cv[mode][g].in += in;
			cv[mode][g].ss += in;
			cv[mode][g].ss2 += (double)in * in;
			cv[mode][g].seeds++;
			for (i = 0; i < p->nrows; i++)  /* every row is one of the truth's */
				assert_true(p->rows[i].samples > 0);
			eq_profile_free(p);
			eq_split_store_free(st);
			eq_sym_free(sy);
			eqp_close(fp);
		}
	}
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* Coverage of group g's rows over seeds: printed, and its phi (the
 * per-seed count's variance over the binomial one: rows of a seed cover
 * together). */
static double report_cov(const char *what, const char *mode, int g, const struct cov *c, double *phi)
{
	double cov = (double)c->in / c->rows, per = (double)c->rows / c->seeds;
	double var = c->ss2 / c->seeds - (c->ss / c->seeds) * (c->ss / c->seeds);

	*phi = cov < 1 ? var / (per * cov * (1 - cov)) : 0;
	print_message("# %s, %s-driven, by %s: %ld rows over %ld seeds, the sampling interval covers the truth in %.1f%% (phi %.2f)\n",
		      what, mode, group_by[g], c->rows, c->seeds, 100 * cov, *phi);
	return cov;
}

/*
 * Coverage of the 95% sampling interval of each state's share, energy- and
 * time-driven, through the recording files (PSTA chunks, state lookup,
 * split profile), against everything drawn in each state
 * (truth-states.json), with the OS tick, the sampling ISR, the recorder
 * and the jitter as by default (only the front end's documented biases
 * off: no_frontend_bias).
 *
 * dvfs: states alternating every 200 ms and idle every 26 ms, 100 seeds x
 * 4 states.  Measured by state 99.8% energy-driven, 99.5% time-driven
 * (seeds 5000..5099, phi 1.0 and 2.0; 99.4% and 99.5% over 300 seeds).
 * Checked >= 90%: at 98% with phi 2 the SD of the coverage is sqrt(2 x
 * 0.98 x 0.02 / 400) = 1.0%, so 90% is 8 SD away (false failure below
 * 1e-14).  A wrong lookup (a state
 * shifted in time, another CPU's state, the target clock's offset
 * forgotten) moves whole stretches of samples and covers few rows.
 *
 * EQ_STATES_SEEDS=N, EQ_STATES_DETAIL=1 rerun it by hand.
 */
static void test_state_coverage(void **state)
{
	unsigned nseeds = getenv("EQ_STATES_SEEDS") ? (unsigned)atoi(getenv("EQ_STATES_SEEDS")) : 100;
	struct cov c[2][NGROUPS];
	double phi;
	unsigned i;
	int mode;

	(void)state;
	memset(c, 0, sizeof(c));
	for (i = 0; i < nseeds; i++)
		cover_one(dvfs_scenario, no_frontend_bias, 5000 + i, c);
	for (mode = 0; mode < 2; mode++)
		assert_true(report_cov("dvfs", mode ? "time" : "energy", G_STATES, &c[mode][G_STATES], &phi) >= 0.90);
}

/*
 * Issue 23 item 6: states lasting thousands of samples (long_scenario:
 * three clocks, each one busy and one idle stretch of 0.6-2.4 s), where
 * the interval used to be the lag-1 model's alone: on Itsy-6freq +-0.01
 * pp, covering 75% of the rows.  100 seeds, each 6 states, 3 clocks and
 * 2 idle states, energy- and time-driven: 2200 rows, against every joule
 * (and second) drawn in each state.
 *
 * Measured, seeds 7000..7099 (20000..20299): by state 99.7% (99.6%)
 * energy-driven, 98.8% (96.7%) time-driven; by freq 97.0% (99.1%), 96.0%
 * (99.9%); by cstate 98.0% (97.3%), 98.0% (95.2%); all rows together
 * 98.3%.  Without the boundary terms of analysis/states/split.c the
 * energy-driven rows covered 90.7% by state and 85.0% by freq.
 *
 * The checks and their false-failure rates: rows of one run cover together
 * (a state row and its clock's row share their boundaries, C0 and C1 are
 * complements), phi measured 0.9-2.0.
 *  - all 2200 rows together >= 93%: at the worst measured 97% and phi 2,
 *    the SD is sqrt(2 x 0.97 x 0.03 / 2200) = 0.52%, 93% is 7.7 SD away;
 *  - each of the six groups (200-600 rows) >= 85%: at the worst, by
 *    cstate time-driven, 95.2% over 200 rows with phi 2 (SD 2.1%), 85% is
 *    4.8 SD away (8e-7), six checks below 1e-5.
 * The estimator before failed the first (and by freq the second).
 *
 * EQ_STATES_SEEDS=N, EQ_STATES_BASE=S, EQ_STATES_DETAIL=1 rerun it by hand.
 */
static void test_long_state_coverage(void **state)
{
	unsigned nseeds = getenv("EQ_STATES_SEEDS") ? (unsigned)atoi(getenv("EQ_STATES_SEEDS")) : 100;
	uint64_t base = getenv("EQ_STATES_BASE") ? strtoull(getenv("EQ_STATES_BASE"), NULL, 10) : 7000;
	struct cov c[2][NGROUPS];
	double phi, cov, in = 0, rows = 0;
	int ok = 1;
	unsigned i;
	int mode, g;

	(void)state;
	memset(c, 0, sizeof(c));
	for (i = 0; i < nseeds; i++)
		cover_one(long_scenario, no_frontend_bias, base + i, c);
	for (mode = 0; mode < 2; mode++)
		for (g = 0; g < NGROUPS; g++) {
			cov = report_cov("long states", mode ? "time" : "energy", g, &c[mode][g], &phi);
			ok &= cov >= 0.85;
			in += (double)c[mode][g].in;
			rows += (double)c[mode][g].rows;
		}
	print_message("# long states, all rows: %.0f, covered %.1f%%\n", rows, 100 * in / rows);
	assert_true(in / rows >= 0.93);
	assert_true(ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psta_roundtrip),
		cmocka_unit_test(test_psta_damage),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_split_crafted),
		cmocka_unit_test(test_state_coverage),
		cmocka_unit_test(test_long_state_coverage),
	};

	(void)simrun; /* simrun.h's runner switches the ISR off: these tests run their own */
	return cmocka_run_group_tests(tests, simrun_setup, simrun_teardown);
}
