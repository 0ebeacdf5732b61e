/*
 * test_view.c - analysis/view's buckets against values worked out by hand.
 *
 * A crafted energy-driven recording (E_q = 1 mJ, ns clock): 41 samples 10
 * ticks apart, alternating in runs of 4 between two procedures f and g of
 * one program, every fifth an idle one.  Asked for 8 buckets over the
 * 400 ticks (and one for the last edge), the builder makes 8 of w = 51:
 *   - bucket k holds the samples at rel (51k, 51k + 51] (bucket 0 also
 *     rel 0);
 *   - the 40 intervals of one quantum add up to 40 mJ over the buckets,
 *     and every edge (51 k ticks) cuts the interval (10 j, 10 j + 10]
 *     around it;
 *   - the rows' counts add up to each bucket's samples in every grouping,
 *     and the changes between consecutive samples (lag 1) to twice the
 *     number of changes (each counts for both rows).
 * The same samples written out of time order (two chunks swapped) fold to
 * the same page data, and a recording with no power (time-driven, no
 * board) folds its samples all the same.
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

#include "view/view_priv.h"

#define N 41
#define PID 7
#define BASE 0x400000ull

static char dir[] = "/tmp/test_view.XXXXXX";

/* the sample i: f (i/4 even) or g, idle every fifth */
static struct eq_sample sample(unsigned i)
{
	struct eq_sample s = { .time = 1000 + 10ull * i, .seq = i, .flags = EQ_F_ENERGY };

	if (i % 5 == 4) {
		s.flags |= EQ_F_IDLE;
		s.pc = 0xc0001000;
	} else {
		s.pid = s.tid = PID;
		s.pc = BASE + ((i / 4) % 2 ? 0x2010 : 0x1010);
	}
	return s;
}

static void write_rec(const char *path, enum eqp_mode mode, int swap)
{
	struct eqp_meta m = { .mode = mode, .quantum_j = mode == EQP_MODE_ENERGY ? 1e-3 : 0,
			      .nominal_hz = mode == EQP_MODE_TIME ? 1e8 : 0, .clock_hz = 1e9,
			      .target = "test" };
	static const struct eqp_symbol syms[2] = { { 0x1000, 0x1000, "f" }, { 0x2000, 0x1000, "g" } };
	const char maps[] = "400000-410000 r-xp 00000000 00:00 0 /bin/prog\n";
	struct eq_sample s[N];
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &m, &err);
	unsigned i, half = 20;

	assert_non_null(w);
	for (i = 0; i < N; i++)
		s[i] = sample(i);
	assert_int_equal(eqp_add_symtab(w, &(struct eqp_symtab){ "/bin/prog", 0, 2, syms }, &err), 0);
	assert_int_equal(eqp_add_maps(w, PID, 0, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_comm(w, PID, 0, "prog", &err), 0);
	if (swap) {
		assert_int_equal(eqp_add_samples(w, s + half, N - half, &err), 0);
		assert_int_equal(eqp_flush(w, &err), 0);
		assert_int_equal(eqp_add_samples(w, s, half, &err), 0);
	} else {
		assert_int_equal(eqp_add_samples(w, s, half, &err), 0);
		assert_int_equal(eqp_flush(w, &err), 0);
		assert_int_equal(eqp_add_samples(w, s + half, N - half, &err), 0);
	}
	assert_int_equal(eqp_commit(w, &err), 0);
}

struct built {
	struct eqp_file *f;
	struct eq_symbolizer *s;
	struct eq_view *v;
};

static void build_w(struct built *b, const char *path, unsigned buckets, uint64_t w_ticks)
{
	struct eq_view_opts o = { .buckets = buckets, .w_ticks = w_ticks };
	struct eq_error err;

	b->f = eqp_open(path, &err);
	assert_non_null(b->f);
	b->s = eq_sym_new(b->f, NULL, &err);
	assert_non_null(b->s);
	eq_sym_skip_lines(b->s, 1);
	b->v = eq_view_build(b->f, b->s, &o, &err);
	if (!b->v)
		fail_msg("%s", err.msg);
}

static void build(struct built *b, const char *path, unsigned buckets)
{
	build_w(b, path, buckets, 0);
}

static void unbuild(struct built *b)
{
	eq_view_free(b->v);
	eq_sym_free(b->s);
	eqp_close(b->f);
}

static char *json_of(const struct eq_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct eq_error err;

	assert_non_null(m);
	assert_int_equal(eq_view_write_json(m, v, &err), 0);
	fclose(m);
	return buf;
}

static void test_buckets(void **state)
{
	char path[64];
	struct built b;
	const struct eq_view *v;
	size_t k, gi, j;
	double e = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.eqp", dir);
	write_rec(path, EQP_MODE_ENERGY, 0);
	build(&b, path, 8);
	v = b.v;
	/* 400 ticks + 1 for the last edge: ceil(401 / 8) = 51 ticks a bucket */
	assert_int_equal(v->nb, 8);
	assert_int_equal(v->w, 51);
	assert_true(v->has_power);
	for (k = 0; k < v->nb; k++) {
		/* samples at rel 10 i in (51 k, 51 k + 51] */
		unsigned want = 0, i;

		for (i = 0; i < N; i++) {
			uint64_t rel = 10ull * i;
			size_t bk = rel == 0 ? 0 : (size_t)((rel - 1) / 51);

			want += bk == k;
		}
		assert_int_equal(v->ns[k], want);
		e += v->e[k];
		/* every grouping's rows add up to the bucket's samples */
		for (gi = 0; gi < (size_t)v->ngroups; gi++) {
			const struct vcsr *c = &v->g[gi].csr;
			unsigned sum = 0;

			for (j = c->off[k]; j < c->off[k + 1]; j++)
				sum += c->v[4 * j + 1];
			assert_int_equal(sum, v->ns[k]);
		}
	}
	/* 40 intervals of one quantum, all inside the run */
	assert_true(fabs(e - 40e-3) < 1e-12);
	/* an edge at 51 k cuts the interval (50 k', 50 k' + 10] around it */
	for (k = 1; k < v->nb; k++)
		if ((51 * k) % 10 && 51 * k < 400)
			assert_true(fabs(v->se[k] - 1e-3) < 1e-15);
	/* lag-1 changes by proc: f,g alternate in runs of 4 with idles inside */
	{
		const struct vgroup *g = &v->g[EQ_VIEW_PROC];
		unsigned changes = 0, sum = 0, i;

		for (i = 1; i < N; i++) {
			struct eq_sample a = sample(i - 1), c = sample(i);

			changes += a.pc != c.pc;
		}
		for (j = 0; j < g->csr.n; j++)
			sum += g->csr.v[4 * j + 2];
		assert_int_equal(sum, 2 * changes);
	}
	unbuild(&b);
}

static void test_unordered(void **state)
{
	char a[64], c[64], *ja, *jc, *pa, *pc;
	struct built x, y;

	(void)state;
	snprintf(a, sizeof(a), "%s/o.eqp", dir);
	snprintf(c, sizeof(c), "%s/u.eqp", dir);
	write_rec(a, EQP_MODE_ENERGY, 0);
	write_rec(c, EQP_MODE_ENERGY, 1);
	build(&x, a, 8);
	build(&y, c, 8);
	ja = json_of(x.v);
	jc = json_of(y.v);
	/* the same but for the names of the files */
	pa = strstr(ja, "\"mode\"");
	pc = strstr(jc, "\"mode\"");
	assert_non_null(pa);
	assert_non_null(pc);
	assert_string_equal(pa, pc);
	free(ja);
	free(jc);
	unbuild(&x);
	unbuild(&y);
}

static void test_no_power(void **state)
{
	char path[64];
	struct built b;
	size_t k;
	unsigned sum = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/t.eqp", dir);
	write_rec(path, EQP_MODE_TIME, 0);
	build(&b, path, 8);
	assert_false(b.v->has_power);
	assert_int_equal(b.v->basis, POWER_BASIS_NONE);
	for (k = 0; k < b.v->nb; k++)
		sum += b.v->ns[k];
	assert_int_equal(sum, N);
	unbuild(&b);
}

/* w_ticks: buckets of exactly that width (a page's second recording takes
 * the first's edges), the same samples in them; one that would make more
 * buckets than a page holds is not taken. */
static void test_given_width(void **state)
{
	char path[64];
	struct built a, b, c;
	size_t k;
	unsigned sum = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/w.eqp", dir);
	write_rec(path, EQP_MODE_ENERGY, 0);
	build(&a, path, 16);
	build_w(&b, path, 16, 3 * eq_view_bucket_ticks(a.v));
	assert_int_equal(eq_view_bucket_ticks(b.v), 3 * eq_view_bucket_ticks(a.v));
	assert_int_equal(eq_view_nbuckets(b.v), (eq_view_nbuckets(a.v) + 2) / 3);
	for (k = 0; k < b.v->nb; k++)
		sum += b.v->ns[k];
	assert_int_equal(sum, N);
	build_w(&c, path, 16, 1);
	assert_true(eq_view_nbuckets(c.v) <= EQ_VIEW_MAX_BUCKETS);
	unbuild(&a);
	unbuild(&b);
	unbuild(&c);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_unordered),
		cmocka_unit_test(test_no_power),
		cmocka_unit_test(test_given_width),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
