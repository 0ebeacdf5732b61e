/*
 * test_profile.c - the profile library end to end on a recording written
 * here: a module known only by its embedded symbol table, kernel pcs with
 * kallsyms, idle, unmapped pcs; every granularity, idle exclusion, energy
 * and time amounts, the rate estimate of time-driven recordings, and the
 * lower-level aggregator.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "file/eqp.h"
#include "profile/agg.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"
#include "test/lib/xorshift.h"

static const char maps[] =
	"400000-401000 r--p 00000000 00:00 0 /target/app\n"
	"401000-403000 r-xp 00001000 00:00 0 /target/app\n";
static const struct eqp_symbol app_syms[] = {
	{ 0x1000, 0x100, "alpha" }, { 0x1100, 0, "beta" },
};
static const struct eqp_symbol kern_syms[] = {
	{ 0xffffffff81000000ull, 0, "k_entry" }, { 0xffffffff81001000ull, 0, "k_idle" },
};

struct fixture {
	char path[64];
	struct eqp_file *f;
	struct eq_symbolizer *s;
};

static void add(struct eq_sample *v, size_t *n, uint64_t pc, uint32_t pid, uint16_t flags,
		int count)
{
	while (count-- > 0) {
		v[*n] = (struct eq_sample){ .time = 1000 * *n, .pc = pc, .pid = pid, .tid = pid,
					    .seq = (uint32_t)*n, .flags = flags };
		(*n)++;
	}
}

static int setup(void **state, enum eqp_mode mode)
{
	static struct eq_sample v[256];
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct eqp_meta meta = { .mode = mode, .quantum_j = mode == EQP_MODE_ENERGY ? 0.002 : 0,
				 .clock_hz = 1e9, .target = "unit test" };
	struct eqp_symtab app = { "/target/app", 0, 2, app_syms };
	struct eqp_symtab kern = { "[kernel.kallsyms]", 1, 2, kern_syms };
	struct eq_error err;
	struct eqp_writer *w;
	size_t n = 0;

	snprintf(fx->path, sizeof(fx->path), "/tmp/test_profile.%d.eqp", (int)getpid());
	add(v, &n, 0x401010, 10, 0, 40);                       /* alpha+0x10 */
	add(v, &n, 0x401020, 10, 0, 20);                       /* alpha+0x20 */
	add(v, &n, 0x401180, 10, 0, 15);                       /* beta+0x80 */
	add(v, &n, 0x401200, 11, 0, 5);                        /* other pid, beta+0x100 */
	add(v, &n, 0xffffffff81000010ull, 10, EQ_F_KERNEL, 8); /* k_entry+0x10 */
	add(v, &n, 0xffffffff81001000ull, 0, EQ_F_KERNEL, 10); /* pid 0: idle */
	add(v, &n, 0x401010, 10, EQ_F_IDLE, 2);                /* flagged idle */
	add(v, &n, 0x900000, 10, 0, 4);                        /* unmapped */
	add(v, &n, 0x400800, 10, 0, 1);                        /* mapped, no symbol */
	w = eqp_create(fx->path, &meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_maps(w, 10, 0, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_maps(w, 11, 0, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_comm(w, 10, 0, "app", &err), 0);
	assert_int_equal(eqp_add_symtab(w, &app, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &kern, &err), 0);
	assert_int_equal(eqp_add_samples(w, v, n, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	fx->f = eqp_open(fx->path, &err);
	assert_non_null(fx->f);
	fx->s = eq_sym_new(fx->f, NULL, &err);
	assert_non_null(fx->s);
	*state = fx;
	return 0;
}

static int setup_energy(void **state) { return setup(state, EQP_MODE_ENERGY); }
static int setup_time(void **state) { return setup(state, EQP_MODE_TIME); }

static int teardown(void **state)
{
	struct fixture *fx = *state;

	eq_sym_free(fx->s);
	eqp_close(fx->f);
	unlink(fx->path);
	free(fx);
	return 0;
}

static struct eq_profile *build(void **state, enum eq_by by, unsigned flags)
{
	struct fixture *fx = *state;
	struct eq_error err;
	struct eq_profile *p = eq_profile_build(fx->f, fx->s, by, flags, &err);

	assert_non_null(p);
	return p;
}

static uint64_t samples_of(const struct eq_profile *p, const char *name, const char *module)
{
	const struct eq_row *r = eq_profile_find(p, name, module);

	if (!r)
		fail_msg("no row %s in %s", name, module ? module : "any module");
	return r->samples;
}

static void by_proc(void **state)
{
	struct eq_profile *p = build(state, EQ_BY_PROC, 0);

	assert_int_equal(p->total_samples, 105);
	assert_int_equal(p->idle_samples, 12);
	assert_int_equal(p->nrows, 6);
	assert_string_equal(p->rows[0].name, "alpha");
	assert_int_equal(p->rows[0].samples, 60);
	assert_string_equal(p->rows[0].module, "app");
	assert_true(fabs(p->rows[0].share - 60.0 / 105) < 1e-12);
	assert_true(fabs(p->rows[0].amount - 0.12) < 1e-12);
	assert_true(p->rows[0].ci95_low < p->rows[0].share && p->rows[0].share < p->rows[0].ci95_high);
	assert_int_equal(samples_of(p, "beta", "app"), 20);
	assert_int_equal(samples_of(p, "k_entry", "[kernel.kallsyms]"), 8);
	assert_int_equal(samples_of(p, "[idle]", "[idle]"), 12);
	assert_int_equal(samples_of(p, "[unknown]", "[unknown]"), 4);
	assert_int_equal(samples_of(p, "[unknown]", "app"), 1);
	eq_profile_free(p);
}

static void by_exe_module_insn(void **state)
{
	struct eq_profile *p = build(state, EQ_BY_EXE, 0);

	/* pid 10 is "app" by comm; pid 11 has none and is named from its maps. */
	assert_int_equal(samples_of(p, "app", "app"), 40 + 20 + 15 + 8 + 4 + 1 + 5);
	assert_int_equal(p->nrows, 2);
	eq_profile_free(p);
	p = build(state, EQ_BY_MODULE, 0);
	assert_int_equal(samples_of(p, "/target/app", "app"), 81);
	assert_int_equal(samples_of(p, "[kernel.kallsyms]", NULL), 8);
	eq_profile_free(p);
	p = build(state, EQ_BY_INSN, 0);
	assert_int_equal(samples_of(p, "alpha+0x10", "app"), 40);
	assert_int_equal(samples_of(p, "beta+0x100", "app"), 5);
	assert_int_equal(samples_of(p, "k_entry+0x10", NULL), 8);
	assert_int_equal(samples_of(p, "[unknown] 0x900000", NULL), 4);
	assert_int_equal(samples_of(p, "[unknown] app+0x800", NULL), 1);
	eq_profile_free(p);
	p = build(state, EQ_BY_LINE, 0);     /* no line info: falls back to procs */
	assert_int_equal(samples_of(p, "alpha", "app"), 60);
	eq_profile_free(p);
}

static void exclude_idle_renormalizes(void **state)
{
	struct eq_profile *p = build(state, EQ_BY_PROC, EQ_PROFILE_EXCLUDE_IDLE);

	assert_int_equal(p->total_samples, 93);
	assert_int_equal(p->idle_samples, 12);
	assert_null(eq_profile_find(p, "[idle]", NULL));
	assert_true(fabs(eq_profile_find(p, "alpha", NULL)->share - 60.0 / 93) < 1e-12);
	eq_profile_free(p);
}

static void time_mode_uses_the_sample_interval(void **state)
{
	struct fixture *fx = *state;
	struct eq_profile *p = build(state, EQ_BY_PROC, 0);

	/* No nominal rate in the header: 105 samples 1000 ns apart -> 1 us. */
	assert_true(fabs(eq_profile_period_s(fx->f) - 1e-6) < 1e-15);
	assert_int_equal(p->mode, EQP_MODE_TIME);
	assert_true(fabs(eq_profile_find(p, "alpha", NULL)->amount - 60e-6) < 1e-15);
	eq_profile_free(p);
}

/* eq_rows_sort: the order of eq_row_by_samples, rows tied on samples,
 * name and module in the order they came (a stable sort), whatever the
 * sizes: against an insertion sort here, over rows with many ties (the
 * pid keeps each row's first place).  The second set of names all share
 * their first 16 bytes (one file's lines, most rows' ties by line), and
 * differ in the 8 bytes after them, past those, at bytes above 0x7f
 * (strcmp's bytes are unsigned), or not at all. */
static void rows_sort_stable(void **state)
{
	static const char *set0[] = { "f", "g", "/src/a.c:10", "/src/a.c:9", "" };
	static const char *set1[] = { "/tmp/s5/funcs.c:", "/tmp/s5/funcs.c:45003",
				      "/tmp/s5/funcs.c:4500", "/tmp/s5/funcs.c:12345678",
				      "/tmp/s5/funcs.c:123456781", "/tmp/s5/funcs.c:123456780",
				      "/tmp/s5/funcs.c:\xc3\xa9", "/tmp/s5/funcs.c:\xc4\xa8",
				      "/tmp/s5/funcs.c:9" };
	static const char *mods[] = { "x", "libc.so.6", "" };
	static const size_t sizes[] = { 0, 1, 2, 15, 16, 17, 33, 1000, 4099 };
	uint64_t seed = 0x5eed5047;
	size_t z, i, j, n;

	(void)state;
	for (z = 0; z < 4 * sizeof(sizes) / sizeof(sizes[0]); z++) {
		const char *const *names = z & 2 ? set1 : set0;
		size_t nnames = z & 2 ? sizeof(set1) / sizeof(set1[0]) :
					sizeof(set0) / sizeof(set0[0]);
		struct eq_row *got, *want;

		n = sizes[z / 4];
		got = calloc(n ? n : 1, sizeof(*got));
		want = calloc(n ? n : 1, sizeof(*want));
		assert_non_null(got);
		assert_non_null(want);
		for (i = 0; i < n; i++) {
			uint64_t r = eq_xorshift64(&seed);

			got[i] = (struct eq_row){ .name = names[r % nnames],
						  .module = mods[(r >> 8) % 3],
						  .samples = (r >> 16) % (z & 1 ? 4 : 300),
						  .pid = (uint32_t)i };
		}
		for (i = 0; i < n; i++) {
			struct eq_row x = got[i];

			for (j = i; j > 0 && eq_row_by_samples(&x, &want[j - 1]) < 0; j--)
				want[j] = want[j - 1];
			want[j] = x;
		}
		eq_rows_sort(got, n);
		for (i = 0; i < n; i++)
			if (got[i].pid != want[i].pid)
				fail_msg("%zu rows: row %zu is the first's %u, not %u", n, i, got[i].pid,
					 want[i].pid);
		free(got);
		free(want);
	}
}

/* A row's name under sort keys: its keys' values joined by " / ", as
 * snprintf joined them, cut at 2,047 bytes (a value of 3,000 bytes). */
static void key_names_joined(void **state)
{
	static char longproc[3001], want[4096];
	struct eq_loc f = { .kind = EQ_LOC_RESOLVED, .exe = "x", .module = "/bin/x",
			    .module_base = "x", .proc = "f" };
	struct eq_error err;
	struct eq_agg *a;
	unsigned round;

	(void)state;
	memset(longproc, 'p', sizeof(longproc) - 1);
	for (round = 0; round < 3; round++) {
		a = eq_agg_new(EQ_BY_PROC, 0, &err);
		assert_non_null(a);
		a->keys.n = round == 2 ? 3 : 2;
		a->keys.k[0] = EQ_KEY_DSO;
		a->keys.k[1] = EQ_KEY_SYM;
		a->keys.k[2] = EQ_KEY_SRCFILE;
		f.proc = round ? longproc : "f";
		assert_int_equal(eq_agg_add(a, &f, 1, &err), 0);
		if (round == 2)
			snprintf(want, sizeof(want), "%s / %s / %s", "x", longproc, "x");
		else
			snprintf(want, sizeof(want), "%s / %s", "x", f.proc);
		want[2047] = '\0';    /* the cut */
		assert_string_equal(a->rows[0].name, want);
		assert_int_equal(strlen(a->rows[0].name), round ? 2047 : 5);
		eq_agg_free(a);
	}
}

static void aggregator_directly(void **state)
{
	struct eq_error err;
	struct eq_loc a = { .kind = EQ_LOC_RESOLVED, .exe = "x", .module = "/m",
			    .module_base = "m", .proc = "f" };
	struct eq_loc b = a;
	struct eq_agg *g = eq_agg_new(EQ_BY_PROC, 0, &err);
	struct eq_profile *p;

	(void)state;
	b.proc = "g";
	assert_int_equal(eq_agg_add(g, &a, 3, &err), 0);
	assert_int_equal(eq_agg_add(g, &b, 1, &err), 0);
	assert_int_equal(eq_agg_add(g, &a, 4, &err), 0);
	p = eq_agg_finish(g, EQP_MODE_ENERGY, 0, 0, 5, &err);
	assert_non_null(p);
	assert_int_equal(p->nrows, 2);
	assert_int_equal(p->rows[0].samples, 7);
	assert_int_equal(p->lost_samples, 5);
	assert_true(isnan(p->rows[0].amount));   /* quantum unknown: shares only */
	eq_profile_free(p);
}

/*
 * A row with more samples in one block than a batch log entry holds
 * (AGG_BLK_COUNT_MAX): its count in that block is logged in several
 * entries, which the batches add up; the counts of a few samples are in
 * the table.  The expected counts are the samples added here, per block.
 */
static void batch_log_long_runs(void **state)
{
	const uint64_t big = (uint64_t)AGG_BLK_COUNT_MAX + 3, per = 4;
	struct eq_error err;
	struct eq_loc a = { .kind = EQ_LOC_RESOLVED, .exe = "x", .module = "/m",
			    .module_base = "m", .proc = "f" };
	struct eq_loc b = a;
	struct eq_agg *g = eq_agg_new(EQ_BY_PROC, 0, &err);
	uint64_t i, sum[2][2] = { { 0 } }, t = 0;
	uint32_t j;

	(void)state;
	b.proc = "g";
	/* blocks of big + per samples: f's first run fills block 0 past an
	 * entry, g ends it, f's next samples are in block 1 */
	assert_int_equal(eq_agg_order(g, (big + per) * EQ_BATCHES_MAX, 1e9, &err), 0);
	for (i = 0; i < big; i++)
		assert_int_equal(eq_agg_add_sample(g, &a, t++, &err), 0);
	for (i = 0; i < per; i++)
		assert_int_equal(eq_agg_add_sample(g, &b, t++, &err), 0);
	for (i = 0; i < per; i++)
		assert_int_equal(eq_agg_add_sample(g, &a, t++, &err), 0);
	assert_int_equal(eq_agg_series_close(g), 0);
	assert_int_equal(g->nrows, 2);
	for (i = 0; i < 2; i++) {
		const struct blk_list *l = &g->rows[i].blk;

		for (j = 0; j < l->n; j++) {
			assert_true(l->v[j] >> AGG_BLK_COUNT_BITS < 2);
			sum[i][l->v[j] >> AGG_BLK_COUNT_BITS] += l->v[j] & AGG_BLK_COUNT_MAX;
		}
		/* the counts that fit a byte are in the table */
		for (j = 0; l->col && j < EQ_BATCHES_MAX; j++) {
			assert_true(j < 2 || !l->col[j * AGG_TILE_STEP]);
			sum[i][j < 2 ? j : 0] += l->col[j * AGG_TILE_STEP];
		}
	}
	assert_int_equal(sum[0][0], big);
	assert_int_equal(sum[0][1], per);
	assert_int_equal(sum[1][0], per);
	assert_int_equal(sum[1][1], 0);
	eq_agg_free(g);
}

/*
 * The count loop four samples at a time (AVX2, eq_profile_use_simd) gives
 * the profile the one-at-a-time loop gives, to the bit: counts, pairs,
 * batches, and the timer's interval sums (a double summed in order).  The
 * recording has what stops the fast loops: kernel, idle and lost samples,
 * pid 0, time going back, intervals at and past 2^52 (where the vector's
 * conversion would not be exact), pcs with no symbol and in no module, a
 * second process, and a phase over 3,000 pcs (the recent cache misses and
 * turns off), between phases over 64 in runs (rows correlated at lags 1
 * and 2, so that the pair counts reach the intervals); intervals
 * jittered.  Each setting is compared with the other, by proc, module and
 * exe (rows by range).
 */
#define SIMD_N 300000
static const struct eqp_symbol simd_syms[] = {
	{ 0x1000, 0x400, "s0" }, { 0x1400, 0x400, "s1" }, { 0x1800, 0x400, "s2" },
	{ 0x1c00, 0x400, "s3" }, { 0x2000, 0x800, "s4" }, { 0x2800, 0x800, "s5" },
};
static const char simd_maps[] =
	"400000-401000 r--p 00000000 00:00 0 /target/app\n"
	"401000-404000 r-xp 00001000 00:00 0 /target/app\n";

static struct eq_sample simd_sample(uint64_t *rng, uint64_t i, uint64_t *t, const uint64_t *few,
				    uint64_t hist[2])
{
	uint64_t r = eq_xorshift64(rng), odd = r % 3000, pick = (r >> 12) % 8;
	int many = i >= SIMD_N / 3 && i < SIMD_N / 2;
	/* runs at a pc, and returns to the one before it: rows correlated
	 * at lags 1 and 2, whose pair counts the intervals then read */
	struct eq_sample x = { .pc = many ? 0x401000 + (r >> 20) % 0x3000 :
				     pick < 4 ? hist[0] : pick < 6 ? hist[1] : few[(r >> 20) % 64],
			       .pid = 10, .tid = 10, .seq = (uint32_t)i };

	hist[1] = hist[0];
	hist[0] = x.pc;

	*t += 900 + (r >> 40) % 200;
	if (odd == 1)
		x.flags = EQ_F_KERNEL, x.pc = 0xffffffff81000010ull;
	else if (odd == 2)
		x.flags = EQ_F_IDLE;
	else if (odd == 3)
		x.flags = EQ_F_LOST;
	else if (odd == 4)
		x.pid = 0, x.pc = 0xffffffff81001000ull, x.flags = EQ_F_KERNEL;
	else if (odd == 5)
		*t -= 3000;                         /* back in time */
	else if (odd == 6 && i % 7 == 0)
		*t += (1ull << 52) + (r & 1);       /* no exact vector conversion */
	else if (odd == 7 && i % 5 == 0)
		*t += (1ull << 52) - 1 - 1000;      /* the largest that has one */
	else if (odd == 8)
		x.pc = 0x400800;                    /* mapped, no symbol */
	else if (odd == 9)
		x.pc = 0x900000;                    /* in no module */
	else if (odd == 10)
		x.pid = 11, x.tid = 11;
	x.time = *t;
	return x;
}

static void same_profile(const struct eq_profile *a, const struct eq_profile *b)
{
	size_t i;

	assert_int_equal(a->total_samples, b->total_samples);
	assert_int_equal(a->idle_samples, b->idle_samples);
	assert_int_equal(a->nrows, b->nrows);
	assert_memory_equal(&a->interval_cv2, &b->interval_cv2, sizeof(double));
	assert_int_equal(a->batches, b->batches);
	assert_memory_equal(&a->batch_lag1, &b->batch_lag1, sizeof(double));
	for (i = 0; i < a->nrows; i++) {
		const struct eq_row *x = &a->rows[i], *y = &b->rows[i];

		assert_string_equal(x->name, y->name);
		assert_string_equal(x->module, y->module);
		assert_int_equal(x->samples, y->samples);
		assert_memory_equal(&x->share, &y->share, sizeof(double));
		assert_memory_equal(&x->ci95_low, &y->ci95_low, sizeof(double));
		assert_memory_equal(&x->ci95_high, &y->ci95_high, sizeof(double));
		assert_memory_equal(&x->deff_sampling, &y->deff_sampling, sizeof(double));
		assert_memory_equal(&x->deff_run, &y->deff_run, sizeof(double));
		assert_int_equal(x->df_run, y->df_run);
	}
}

/* simd_sample's recording, open, at /tmp/test_profile_NAME.PID.eqp (into
 * path: the caller unlinks it). */
static struct eqp_file *simd_file(char path[64], const char *name)
{
	static struct eq_sample v[SIMD_N];
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9, .target = "unit test" };
	struct eqp_symtab app = { "/target/app", 0, 6, simd_syms };
	struct eqp_symtab kern = { "[kernel.kallsyms]", 1, 2, kern_syms };
	uint64_t rng = 0x5eed4a11, t = 1000000, few[64], hist[2];
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_file *f;
	size_t i;

	snprintf(path, 64, "/tmp/test_profile_%s.%d.eqp", name, (int)getpid());
	for (i = 0; i < 64; i++)
		few[i] = 0x401000 + eq_xorshift64(&rng) % 0x3000;
	hist[0] = few[0];
	hist[1] = few[1];
	for (i = 0; i < SIMD_N; i++)
		v[i] = simd_sample(&rng, i, &t, few, hist);
	w = eqp_create(path, &meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_maps(w, 10, 0, simd_maps, strlen(simd_maps), &err), 0);
	assert_int_equal(eqp_add_maps(w, 11, 0, simd_maps, strlen(simd_maps), &err), 0);
	assert_int_equal(eqp_add_symtab(w, &app, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &kern, &err), 0);
	assert_int_equal(eqp_add_samples(w, v, SIMD_N, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	return f;
}

/* f's profile by `by`, with a symbolizer of its own in *s (the rows'
 * names are its). */
static struct eq_profile *fresh_profile(struct eqp_file *f, enum eq_by by,
					struct eq_symbolizer **s)
{
	struct eq_error err;
	struct eq_profile *p;

	*s = eq_sym_new(f, NULL, &err);
	assert_non_null(*s);
	p = eq_profile_build(f, *s, by, 0, &err);
	assert_non_null(p);
	return p;
}

static void free_profiles(struct eq_profile **p, struct eq_symbolizer **s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		eq_profile_free(p[i]);
		eq_sym_free(s[i]);
	}
}

static void simd_as_scalar(void **state)
{
	static const enum eq_by bys[] = { EQ_BY_PROC, EQ_BY_MODULE, EQ_BY_EXE };
	char path[64];
	struct eqp_file *f;
	size_t i, b;

	(void)state;
	f = simd_file(path, "simd");
	/* a CPU without AVX2 compares the one-at-a-time loop with itself */
	if (eq_profile_use_simd(1))
		print_message("no AVX2 here: the four-at-a-time loop is not run\n");
	for (b = 0; b < sizeof(bys) / sizeof(*bys); b++) {
		struct eq_profile *p[2];
		struct eq_symbolizer *s[2];
		int on;

		for (on = 0; on < 2; on++) {
			if (!on || !eq_profile_use_simd(1))
				assert_int_equal(eq_profile_use_simd(on), 0);
			p[on] = fresh_profile(f, bys[b], &s[on]);
		}
		assert_true(p[0]->nrows >= (bys[b] == EQ_BY_PROC ? 6u : 2u) && p[0]->interval_cv2 > 0);
		/* rows correlated: design effects that read the pair counts */
		for (i = 0; i < p[0]->nrows && !(p[0]->rows[i].deff_sampling > 1); i++)
			;
		assert_true(bys[b] != EQ_BY_PROC || i < p[0]->nrows);
		same_profile(p[0], p[1]);
		free_profiles(p, s, 2);
	}
	eqp_close(f);
	unlink(path);
}

/*
 * The batch counts in the table (a byte a row and block, the larger counts
 * in the log), in the log alone, and in a table that becomes the log as
 * the rows outgrow it (two tiles, where by insn the rows pass 3,000): the
 * same profile to the bit, by proc (few rows with runs: counts past a
 * byte), module, exe and insn.
 */
static void batch_table_as_log(void **state)
{
	static const enum eq_by bys[] = { EQ_BY_PROC, EQ_BY_MODULE, EQ_BY_EXE, EQ_BY_INSN };
	static const size_t cells[] = { 0, EQ_BATCH_TABLE_AUTO,
					2 * AGG_TILE_ROWS * EQ_BATCHES_MAX };
	char path[64];
	struct eqp_file *f;
	size_t b, k;

	(void)state;
	f = simd_file(path, "table");
	for (b = 0; b < sizeof(bys) / sizeof(*bys); b++) {
		struct eq_profile *p[3];
		struct eq_symbolizer *s[3];

		for (k = 0; k < 3; k++) {
			eq_profile_batch_table(cells[k]);
			p[k] = fresh_profile(f, bys[b], &s[k]);
		}
		eq_profile_batch_table(EQ_BATCH_TABLE_AUTO);
		assert_true(p[0]->batches > 0);
		assert_true(bys[b] != EQ_BY_INSN || p[0]->nrows > 2 * AGG_TILE_ROWS);
		for (k = 1; k < 3; k++)
			same_profile(p[0], p[k]);
		free_profiles(p, s, 3);
	}
	eqp_close(f);
	unlink(path);
}

/*
 * Among many rows (by insn: 12 k pcs, past the count loop's FAST_MANY_ROWS)
 * each sample goes to the table's cell of its block as it comes
 * (blk_cell_inc), and one pc has more samples in each block than a cell
 * holds (AGG_CELL_MAX): they go on in the row's count of the block, and
 * from there to the log.  The table and the log alone give the same
 * profile to the bit.
 */
#define FULL_N 100000
static void full_cells_among_many(void **state)
{
	static struct eq_sample v[FULL_N];
	static const uint64_t busy = 0x401234;
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9, .target = "unit test" };
	struct eqp_symtab app = { "/target/app", 0, 6, simd_syms };
	uint64_t rng = 0xce11f011, t = 1000000;
	struct eq_profile *p[2];
	struct eq_symbolizer *s[2];
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_file *f;
	char path[64];
	size_t i, k;

	(void)state;
	for (i = 0; i < FULL_N; i++) {
		uint64_t r = eq_xorshift64(&rng);
		int spread = i < FULL_N / 10 || r % 16 == 0;

		t += 900 + (r >> 40) % 200;
		v[i] = (struct eq_sample){ .time = t, .pid = 10, .tid = 10, .seq = (uint32_t)i,
					   .pc = spread ? 0x401000 + (r >> 20) % 0x3000 : busy };
	}
	snprintf(path, sizeof(path), "/tmp/test_profile_full.%d.eqp", (int)getpid());
	w = eqp_create(path, &meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_maps(w, 10, 0, simd_maps, strlen(simd_maps), &err), 0);
	assert_int_equal(eqp_add_symtab(w, &app, &err), 0);
	assert_int_equal(eqp_add_samples(w, v, FULL_N, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	for (k = 0; k < 2; k++) {
		eq_profile_batch_table(k ? EQ_BATCH_TABLE_AUTO : 0);
		p[k] = fresh_profile(f, EQ_BY_INSN, &s[k]);
	}
	eq_profile_batch_table(EQ_BATCH_TABLE_AUTO);
	assert_true(p[0]->nrows > 4 * AGG_TILE_ROWS && p[0]->batches > 0);
	/* the busy pc's row: more than two full cells a block on average */
	for (i = 0; i < p[0]->nrows && p[0]->rows[i].samples < FULL_N / 2; i++)
		;
	assert_true(i < p[0]->nrows);
	assert_true(p[0]->rows[i].samples > 2 * AGG_CELL_MAX * EQ_BATCHES_MAX);
	same_profile(p[0], p[1]);
	free_profiles(p, s, 2);
	eqp_close(f);
	unlink(path);
}

/*
 * Samples with no symbol are counted per module three ways: by proc, line
 * and insn from their rows at the end; by exe, by module and by key set
 * from the class (row, module) of their extent in the map of ranges; and,
 * when the samples are split between threads (--jobs 2), by exe and by
 * module per pc, its module from the symbolizer.  The same modules and
 * counts every way.  The recording has pcs mapped with no symbol and in no
 * module among 300 k samples (73 chunks), so that the count loops meet
 * them among others.
 */
static void same_unresolved(const struct eq_profile *a, const struct eq_profile *b)
{
	size_t i;

	assert_int_equal(a->nunresolved, b->nunresolved);
	assert_int_equal(a->unresolved_samples, b->unresolved_samples);
	for (i = 0; i < a->nunresolved; i++) {
		assert_string_equal(a->unresolved[i].module, b->unresolved[i].module);
		assert_int_equal(a->unresolved[i].samples, b->unresolved[i].samples);
	}
}

static void unresolved_counted_alike(void **state)
{
	static const enum eq_by bys[] = { EQ_BY_PROC, EQ_BY_LINE, EQ_BY_INSN, EQ_BY_EXE,
					  EQ_BY_MODULE };
	static const char *const keys[] = { "sym", "comm,dso,sym", "dso" };
	char path[64];
	struct eqp_file *f;
	struct eq_profile *ref, *q;
	struct eq_symbolizer *s;
	struct eq_keys k;
	struct eq_profile_opts o = { .jobs = 2 };
	struct eq_error err;
	size_t b;
	int jobs;

	(void)state;
	f = simd_file(path, "unres");
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	ref = eq_profile_build_opts(f, s, EQ_BY_EXE, &o, &err);
	assert_non_null(ref);
	/* mapped with no symbol, and in no module */
	assert_int_equal(ref->nunresolved, 2);
	assert_true(ref->unresolved[1].samples > 50);
	for (b = 0; b < sizeof(bys) / sizeof(*bys); b++) {
		for (jobs = 1; jobs <= 2; jobs++) {
			o.jobs = (unsigned)jobs;
			q = eq_profile_build_opts(f, s, bys[b], &o, &err);
			assert_non_null(q);
			same_unresolved(ref, q);
			eq_profile_free(q);
		}
	}
	/* the batch counts in the log alone, which fills: a class's sample
	 * looked up when it does is taken back */
	eq_profile_batch_table(0);
	for (b = 3; b < sizeof(bys) / sizeof(*bys); b++) {
		q = eq_profile_build(f, s, bys[b], 0, &err);
		assert_non_null(q);
		same_unresolved(ref, q);
		eq_profile_free(q);
	}
	eq_profile_batch_table(EQ_BATCH_TABLE_AUTO);
	for (b = 0; b < sizeof(keys) / sizeof(*keys); b++) {
		struct eq_profile_opts ko = { .keys = &k };

		assert_int_equal(eq_keys_parse(keys[b], &k, &err), 0);
		q = eq_profile_build_opts(f, s, EQ_BY_PROC, &ko, &err);
		assert_non_null(q);
		same_unresolved(ref, q);
		eq_profile_free(q);
	}
	eq_profile_free(ref);
	eq_sym_free(s);
	eqp_close(f);
	unlink(path);
}

/*
 * By exe over 500 and 1,100 processes (rows for the count loop's one pass,
 * and enough for its spans, FAST_MANY_ROWS), half of them running a
 * program whose file is gone:
 * samples with no symbol counted by class in the fast loops, with the
 * batch counts in the table, and in the log alone (which fills, so that
 * a span's count stops before samples it looked up and takes their
 * classes back); the same by key sets of a row a process; against by insn
 * (rows) and by exe on two threads (per pc).
 */
#define MANY_PROCS 1100
#define MANY_N 200000
#define FAST_MANY_ROWS_TEST 1024   /* build.c's FAST_MANY_ROWS */

static struct eqp_file *many_procs_file(char path[64], uint32_t nprocs)
{
	static struct eq_sample v[MANY_N];
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9, .target = "unit test" };
	struct eqp_symtab app = { "/target/app", 0, 6, simd_syms };
	static const char gone_maps[] = "401000-404000 r-xp 00001000 00:00 0 /gone/prog\n";
	uint64_t rng = 0x11a55e5, t = 1000000;
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_file *f;
	uint32_t pid;
	size_t i;

	snprintf(path, 64, "/tmp/test_profile_procs.%d.eqp", (int)getpid());
	w = eqp_create(path, &meta, &err);
	assert_non_null(w);
	for (pid = 100; pid < 100 + nprocs; pid++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "p%u", pid);
		assert_int_equal(eqp_add_maps(w, pid, 0, pid & 1 ? gone_maps : simd_maps,
					      strlen(pid & 1 ? gone_maps : simd_maps), &err), 0);
		assert_int_equal(eqp_add_comm(w, pid, 0, comm, &err), 0);
	}
	assert_int_equal(eqp_add_symtab(w, &app, &err), 0);
	for (i = 0; i < MANY_N; i++) {
		uint64_t r = eq_xorshift64(&rng);

		t += 900 + (r >> 40) % 200;
		v[i] = (struct eq_sample){ .time = t, .pc = 0x401000 + (r >> 20) % 0x3000,
					   .pid = 100 + (uint32_t)(r % nprocs),
					   .seq = (uint32_t)i };
		v[i].tid = v[i].pid;
	}
	assert_int_equal(eqp_add_samples(w, v, MANY_N, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	return f;
}

static void unresolved_in_spans(void **state)
{
	char path[64];
	struct eqp_file *f;
	struct eq_symbolizer *s;
	struct eq_profile *ref, *q[2];
	struct eq_profile_opts o = { .jobs = 2 };
	struct eq_error err;
	size_t k;

	(void)state;
	/* 500 processes: rows too few for spans, enough for the log to fill
	 * in the one-pass loop too */
	f = many_procs_file(path, 500);
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	ref = eq_profile_build_opts(f, s, EQ_BY_EXE, &o, &err);
	assert_non_null(ref);
	eq_profile_batch_table(0);
	q[0] = eq_profile_build(f, s, EQ_BY_EXE, 0, &err);
	eq_profile_batch_table(EQ_BATCH_TABLE_AUTO);
	assert_non_null(q[0]);
	assert_true(q[0]->nrows > 256 && q[0]->nrows < FAST_MANY_ROWS_TEST);
	same_unresolved(ref, q[0]);
	eq_profile_free(q[0]);
	eq_profile_free(ref);
	eq_sym_free(s);
	eqp_close(f);
	unlink(path);

	f = many_procs_file(path, MANY_PROCS);
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	ref = eq_profile_build_opts(f, s, EQ_BY_EXE, &o, &err);
	assert_non_null(ref);
	/* /gone/prog and /target/app (past its symbols) */
	assert_int_equal(ref->nunresolved, 2);
	assert_true(ref->nrows >= MANY_PROCS);
	for (k = 0; k < 2; k++) {
		eq_profile_batch_table(k ? 0 : EQ_BATCH_TABLE_AUTO);
		q[k] = eq_profile_build(f, s, EQ_BY_EXE, 0, &err);
		assert_non_null(q[k]);
		same_unresolved(ref, q[k]);
	}
	eq_profile_batch_table(EQ_BATCH_TABLE_AUTO);
	same_profile(q[0], q[1]);
	eq_profile_free(q[0]);
	eq_profile_free(q[1]);
	q[0] = eq_profile_build(f, s, EQ_BY_INSN, 0, &err);
	assert_non_null(q[0]);
	same_unresolved(ref, q[0]);
	eq_profile_free(q[0]);
	/* key sets of a row a process (and module or symbol) */
	for (k = 0; k < 4; k++) {
		struct eq_keys keys;
		struct eq_profile_opts ko = { .keys = &keys };

		assert_int_equal(eq_keys_parse(k & 1 ? "comm,sym" : "comm,dso", &keys, &err), 0);
		eq_profile_batch_table(k & 2 ? 0 : EQ_BATCH_TABLE_AUTO);
		q[0] = eq_profile_build_opts(f, s, EQ_BY_PROC, &ko, &err);
		assert_non_null(q[0]);
		assert_true(q[0]->nrows >= MANY_PROCS);
		same_unresolved(ref, q[0]);
		eq_profile_free(q[0]);
	}
	eq_profile_batch_table(EQ_BATCH_TABLE_AUTO);
	eq_profile_free(ref);
	eq_sym_free(s);
	eqp_close(f);
	unlink(path);
}

/*
 * The fast loops against counting every sample one at a time, to the bit:
 * over simd_sample's recording (kernel, idle, pid 0, lost samples, time
 * going back, pcs with no symbol and in no module) and over 500 processes
 * half of which run a program that is gone; every view by range and by
 * pc, and key sets, the batch counts in the table and in the log alone.
 */
static void fast_as_slow(void **state)
{
	static const enum eq_by bys[] = { EQ_BY_PROC, EQ_BY_LINE, EQ_BY_INSN, EQ_BY_EXE,
					  EQ_BY_MODULE };
	static const char *const keys[] = { "comm,dso,sym", "sym", "dso", "cpu,sym" };
	char path[64];
	struct eq_symbolizer *s;
	struct eq_profile *p[2];
	struct eq_error err;
	struct eq_keys k;
	size_t b, fi;
	int on, tab;

	(void)state;
	for (fi = 0; fi < 2; fi++) {
		struct eqp_file *f = fi ? many_procs_file(path, 500) : simd_file(path, "slow");

		s = eq_sym_new(f, NULL, &err);
		assert_non_null(s);
		for (b = 0; b < sizeof(bys) / sizeof(*bys) + sizeof(keys) / sizeof(*keys); b++) {
			struct eq_profile_opts o = { .keys = &k };
			int bykey = b >= sizeof(bys) / sizeof(*bys);

			if (bykey)
				assert_int_equal(eq_keys_parse(keys[b - sizeof(bys) / sizeof(*bys)],
							       &k, &err), 0);
			for (tab = 0; tab < 2; tab++) {
				eq_profile_batch_table(tab ? 0 : EQ_BATCH_TABLE_AUTO);
				for (on = 0; on < 2; on++) {
					eq_profile_fast_loops(on);
					p[on] = bykey ? eq_profile_build_opts(f, s, EQ_BY_PROC, &o,
									      &err) :
						eq_profile_build(f, s, bys[b], 0, &err);
					assert_non_null(p[on]);
				}
				same_profile(p[0], p[1]);
				same_unresolved(p[0], p[1]);
				eq_profile_free(p[0]);
				eq_profile_free(p[1]);
			}
		}
		eq_profile_fast_loops(1);
		eq_profile_batch_table(EQ_BATCH_TABLE_AUTO);
		eq_sym_free(s);
		eqp_close(f);
		unlink(path);
	}
}

static void by_parse(void **state)
{
	struct eq_error err;
	enum eq_by by;

	(void)state;
	assert_int_equal(eq_by_parse("line", &by, &err), 0);
	assert_int_equal(by, EQ_BY_LINE);
	assert_string_equal(eq_by_name(by), "line");
	assert_int_equal(eq_by_parse("function", &by, &err), -1);
	assert_non_null(strstr(err.msg, "exe, module, proc, line, insn, pid or thread"));
}

/*
 * Kernel modules' tables (kallsyms lines "[mod]", recorded absolute) on
 * either side of the core kernel's: above it as x86-64 loads them, below
 * it as arm64 does (a sample of the eqprof module's poll in an arm64 guest
 * was [unknown] in [kernel.kallsyms]).  Each module pc gets its module's
 * symbol; core kernel pcs above a module below stay the core's.
 */
static void kernel_modules_either_side(void **state)
{
	static const struct eqp_symbol core[] = {
		{ 0xffff800081000000ull, 0x100, "core_a" }, { 0xffff800081000100ull, 0x100, "core_b" },
	};
	static const struct eqp_symbol lo[] = { { 0xffff800079000000ull, 0x94, "lo_poll" } };
	static const struct eqp_symbol hi[] = { { 0xffff800090000000ull, 0x40, "hi_fn" } };
	static const struct { uint64_t pc; const char *module, *proc; } want[] = {
		{ 0xffff800079000054ull, "[lo]", "lo_poll" },
		{ 0xffff800081000010ull, "[kernel.kallsyms]", "core_a" },
		{ 0xffff800081000180ull, "[kernel.kallsyms]", "core_b" },
		{ 0xffff800090000020ull, "[hi]", "hi_fn" },
	};
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9, .target = "unit test" };
	struct eqp_symtab tk = { "[kernel.kallsyms]", 1, 2, core };
	struct eqp_symtab tl = { "[lo]", 1, 1, lo }, th = { "[hi]", 1, 1, hi };
	struct eq_sample v[4];
	char path[64];
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_file *f;
	struct eq_symbolizer *s;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_profile_kmod.%d.eqp", (int)getpid());
	for (i = 0; i < 4; i++)
		v[i] = (struct eq_sample){ .time = 1000 * i, .pc = want[i].pc, .pid = 10, .tid = 10,
					   .seq = (uint32_t)i, .flags = EQ_F_KERNEL };
	w = eqp_create(path, &meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_symtab(w, &tk, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &tl, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &th, &err), 0);
	assert_int_equal(eqp_add_samples(w, v, 4, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	for (i = 0; i < 4; i++) {
		const struct eq_loc *loc = eq_sym_lookup(s, &v[i]);

		if (strcmp(loc->module, want[i].module) || !loc->proc || strcmp(loc->proc, want[i].proc))
			fail_msg("pc 0x%llx: %s in %s, not %s in %s", (unsigned long long)want[i].pc,
				 loc->proc ? loc->proc : "[unknown]", loc->module, want[i].proc,
				 want[i].module);
	}
	eq_sym_free(s);
	eqp_close(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_modules_either_side),
		cmocka_unit_test_setup_teardown(by_proc, setup_energy, teardown),
		cmocka_unit_test_setup_teardown(by_exe_module_insn, setup_energy, teardown),
		cmocka_unit_test_setup_teardown(exclude_idle_renormalizes, setup_energy, teardown),
		cmocka_unit_test_setup_teardown(time_mode_uses_the_sample_interval, setup_time,
						teardown),
		cmocka_unit_test(aggregator_directly),
		cmocka_unit_test(rows_sort_stable),
		cmocka_unit_test(key_names_joined),
		cmocka_unit_test(batch_log_long_runs),
		cmocka_unit_test(by_parse),
		cmocka_unit_test(simd_as_scalar),
		cmocka_unit_test(batch_table_as_log),
		cmocka_unit_test(full_cells_among_many),
		cmocka_unit_test(unresolved_counted_alike),
		cmocka_unit_test(unresolved_in_spans),
		cmocka_unit_test(fast_as_slow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
