/*
 * test_eprofile.c - energy readings in a recording (ESRC, ERDG chunks) and
 * the joules per row that report computes from them (eprofile.h), on small
 * recordings whose every number is worked out here by hand.
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

#include "energy/eprofile.h"
#include "file/eqp.h"
#include "energy/eseries.h"
#include "symbols/symbolize.h"

static char path[64];

static const struct eqp_meta time_meta = { .mode = EQP_MODE_TIME, .nominal_hz = 1000, .clock_hz = 1e9,
					   .target = "test", .extra = "" };

static const struct eqp_edomain dom0 = {
	.index = 0, .type = ES_COUNTER, .range = 262143.32885, .resolution = 1e-6, .update_s = 1e-3,
	.spec = "rapl:package-0", .name = "package-0", .kind = "package",
	.path = "/sys/class/powercap/intel-rapl:0/energy_uj", .update_how = "Intel SDM: about 1 ms",
};

static struct eq_sample smp(double t, int idle)
{
	return (struct eq_sample){ .time = (uint64_t)llround(t * 1e9), .pc = 0x1000, .pid = 42,
				   .tid = 42, .flags = idle ? EQ_F_IDLE : 0 };
}

static struct eqp_ereading rd(double t, double e)
{
	return (struct eqp_ereading){ .time = (uint64_t)llround(t * 1e9), .energy_j = e,
				      .raw = e, .domain = 0, .flags = EQP_EREAD_F_CHANGED };
}

/*
 * Readings at 1.0, 1.1, 1.2, 1.3 s: 0, 1, 3, 3.5 J.  Interval 0 holds three
 * samples of the program and one idle one, interval 1 two of the program,
 * interval 2 none.  scale multiplies every energy (pooling).
 */
static void write_rec(const char *file, double scale, struct eq_error *err)
{
	struct eqp_writer *w = eqp_create(file, &time_meta, err);
	struct eq_sample s[6] = { smp(1.01, 0), smp(1.03, 0), smp(1.05, 1), smp(1.07, 0),
				  smp(1.12, 0), smp(1.15, 0) };
	struct eqp_ereading r[4] = { rd(1.0, 0), rd(1.1, 1 * scale), rd(1.2, 3 * scale),
				     rd(1.3, 3.5 * scale) };

	assert_non_null(w);
	assert_int_equal(eqp_add_energy_domain(w, &dom0, err), 0);
	assert_int_equal(eqp_add_samples(w, s, 6, err), 0);
	assert_int_equal(eqp_add_energy_readings(w, r, 4, err), 0);
	assert_int_equal(eqp_commit(w, err), 0);
}

static void round_trip(void **state)
{
	struct eq_error err;
	struct eqp_file *f;
	const struct eqp_edomain *d;

	(void)state;
	write_rec(path, 1, &err);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_int_equal(eqp_nenergy_domains(f), 1);
	d = eqp_energy_domain_at(f, 0);
	assert_string_equal(d->spec, "rapl:package-0");
	assert_string_equal(d->name, "package-0");
	assert_string_equal(d->kind, "package");
	assert_string_equal(d->path, dom0.path);
	assert_string_equal(d->update_how, dom0.update_how);
	assert_int_equal(d->type, ES_COUNTER);
	assert_true(d->range == dom0.range && d->resolution == 1e-6 && d->update_s == 1e-3);
	assert_int_equal(eqp_nenergy_readings(f), 4);
	assert_true(eqp_energy_reading_at(f, 2)->energy_j == 3);
	assert_int_equal(eqp_energy_reading_at(f, 3)->time, 1300000000ull);
	assert_null(eqp_energy_reading_at(f, 4));
	assert_true(ep_has_energy(f));
	eqp_close(f);
}

static void bad_domain_refused(void **state)
{
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &time_meta, &err);
	struct eqp_ereading r = rd(1.0, 0);

	(void)state;
	r.domain = 5;
	assert_non_null(w);
	assert_int_equal(eqp_add_energy_domain(w, &dom0, &err), 0);
	assert_int_equal(eqp_add_energy_readings(w, &r, 1, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	assert_null(eqp_open(path, &err));
	assert_non_null(strstr(err.msg, "names domain 5"));
	assert_non_null(strstr(err.msg, "ERDG"));
}

static const struct ep_row *row_with(const struct ep_domain *d, uint64_t samples, int unsampled)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (d->rows[i].samples == samples && d->rows[i].unsampled == unsampled)
			return &d->rows[i];
	return NULL;
}

static struct ep_profile *build(const char *file, struct eqp_file **f, struct eq_symbolizer **s)
{
	struct eq_error err;
	struct ep_profile *p;

	*f = eqp_open(file, &err);
	assert_non_null(*f);
	*s = eq_sym_new(*f, NULL, &err);
	assert_non_null(*s);
	p = ep_build(*f, *s, EQ_BY_PROC, 0, &err);
	if (!p)
		fail_msg("%s", err.msg);
	return p;
}

static void joules_by_hand(void **state)
{
	struct eqp_file *f;
	struct eq_symbolizer *s;
	struct ep_profile *p;
	const struct ep_domain *d;
	const struct ep_row *a, *idle, *none;
	struct es_series ser = { 0 };
	struct es_point pt[4];
	struct eq_error err;
	double var, glo[3] = { 0 }, ghi[3] = { 0 };
	/* fractions of row A, idle and [no samples] in intervals -1..3 */
	const double fa[5] = { 0, 0.75, 1, 0, 0 }, fi[5] = { 0, 0.25, 0, 0, 0 },
		     fn[5] = { 0, 0, 0, 1, 0 };
	int k, r;

	(void)state;
	write_rec(path, 1, &err);
	p = build(path, &f, &s);
	assert_int_equal(p->ndomains, 1);
	d = &p->domains[0];
	assert_int_equal(d->readings, 4);
	assert_int_equal(d->intervals, 3);
	assert_int_equal(d->sampled_intervals, 2);
	assert_int_equal(d->samples, 6);
	assert_int_equal(d->samples_outside, 0);
	a = row_with(d, 5, 0);
	idle = row_with(d, 1, 0);
	none = row_with(d, 0, 1);
	assert_non_null(a);
	assert_non_null(idle);
	assert_non_null(none);

	/* The energies at the readings, as es_energy_at() gives them. */
	ser.type = ES_COUNTER;
	ser.update_s = 1e-3;
	{
		const double t[4] = { 1.0, 1.1, 1.2, 1.3 }, e[4] = { 0, 1, 3, 3.5 };

		for (k = 0; k < 4; k++)
			assert_int_equal(es_series_add(&ser, t[k], e[k], e[k], 1, &err), 0);
		for (k = 0; k < 4; k++)
			assert_int_equal(es_energy_at(&ser, t[k], &pt[k], &err), 0);
	}
	/* J = sum_k E_k c/n, by hand */
	{
		double e0 = pt[1].e - pt[0].e, e1 = pt[2].e - pt[1].e, e2 = pt[3].e - pt[2].e;

		assert_float_equal(a->joules, e0 * 3 / 4 + e1, 1e-12);
		assert_float_equal(idle->joules, e0 / 4, 1e-12);
		assert_float_equal(none->joules, e2, 1e-12);
		assert_float_equal(a->joules + idle->joules + none->joules, d->total_j, 1e-12);
		/* sampling: f shrunk to (c + 1/2)/(n + 1) */
		var = e0 * e0 * 0.7 * 0.3 / 4 + e1 * e1 * (2.5 / 3) * (0.5 / 3) / 2;
		assert_float_equal(a->sd, sqrt(var), 1e-12);
		var = e0 * e0 * 0.3 * 0.7 / 4;
		assert_float_equal(idle->sd, sqrt(var), 1e-12);
		assert_float_equal(none->sd, 0, 0);
	}
	/* granularity: at reading k the truth moves by delta (f_k-1 - f_k),
	 * delta in [lo - e, hi - e] */
	for (k = 0; k < 4; k++) {
		const double *fr[3] = { fa, fi, fn };

		for (r = 0; r < 3; r++) {
			double df = fr[r][k] - fr[r][k + 1], x = df * (pt[k].lo - pt[k].e),
			       y = df * (pt[k].hi - pt[k].e);

			if (df == 0)
				continue;
			glo[r] += fmin(x, y);
			ghi[r] += fmax(x, y);
		}
	}
	assert_float_equal(a->gran_lo, glo[0], 1e-12);
	assert_float_equal(a->gran_hi, ghi[0], 1e-12);
	assert_float_equal(idle->gran_lo, glo[1], 1e-12);
	assert_float_equal(idle->gran_hi, ghi[1], 1e-12);
	assert_true(isinf(none->gran_hi));  /* no update after the last reading */
	assert_float_equal(a->ci95_low, fmax(0, a->joules + glo[0] - 1.959963984540054 * a->sd), 1e-12);
	assert_float_equal(a->ci95_high, a->joules + ghi[0] + 1.959963984540054 * a->sd, 1e-12);
	es_series_free(&ser);
	ep_free(p);
	eq_sym_free(s);
	eqp_close(f);
}

/*
 * Call chains (ep_build_children): /bin/app (no file here: its embedded
 * symbols) has main, a, b and leaf.  Readings at 1.0, 1.1, 1.2 s: 0, 1, 3 J.
 * Interval 0 holds leaf<a<main, leaf<b<main twice and a<main; interval 1
 * leaf<a<main and main alone.  By hand, E0 = 1 and E1 = 2 (as es_energy_at
 * gives them here):
 *   self:     leaf 1*3/4 + 2*1/2 = 1.75, a 1/4, b 0, main 2/2 = 1
 *   children: main 1 + 2 = 3, a 1*2/4 + 2*1/2 = 1.5, b 1*2/4 = 0.5,
 *             leaf 1.75; samples under each: 6, 3, 2, 4
 */
static const struct ep_row *row_named(const struct ep_domain *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (!strcmp(d->rows[i].name, name))
			return &d->rows[i];
	return NULL;
}

static void children_by_hand(void **state)
{
	enum { MAIN = 0x400110, A = 0x400210, B = 0x400310, LEAF = 0x400410 };
	static const struct eqp_symbol syms[4] = { { 0x100, 0x100, "main" }, { 0x200, 0x100, "a" },
						   { 0x300, 0x100, "b" }, { 0x400, 0x100, "leaf" } };
	const struct eqp_symtab tab = { "/bin/app", 0, 4, syms };
	/* return addresses: just after a call inside the caller */
	static const uint64_t via_a[2] = { A + 1, MAIN + 1 }, via_b[2] = { B + 1, MAIN + 1 },
			      in_a[1] = { MAIN + 1 };
	const struct { double t; uint64_t pc; const uint64_t *fr; unsigned n; } smps[6] = {
		{ 1.01, LEAF, via_a, 2 }, { 1.03, LEAF, via_b, 2 }, { 1.05, LEAF, via_b, 2 },
		{ 1.07, A, in_a, 1 }, { 1.12, LEAF, via_a, 2 }, { 1.15, MAIN, NULL, 0 },
	};
	struct eqp_ereading r[3] = { rd(1.0, 0), rd(1.1, 1), rd(1.2, 3) };
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &time_meta, &err);
	struct eqp_file *f;
	struct eq_symbolizer *s;
	struct ep_profile *p;
	const struct ep_domain *d;
	const struct ep_row *rm, *ra, *rb, *rl;
	struct es_series ser = { 0 };
	struct es_point pt[3];
	double e0, e1;
	int k;

	(void)state;
	assert_non_null(w);
	{
		static const char maps[] = "00400000-00410000 r-xp 00000000 08:01 1 /bin/app\n";

		assert_int_equal(eqp_add_maps(w, 42, 0, maps, sizeof(maps) - 1, &err), 0);
	}
	assert_int_equal(eqp_add_symtab(w, &tab, &err), 0);
	assert_int_equal(eqp_add_energy_domain(w, &dom0, &err), 0);
	for (k = 0; k < 6; k++) {
		struct eq_sample x = smp(smps[k].t, 0);
		struct eqp_callchain cc = { 0, smps[k].n, smps[k].fr };

		x.pc = smps[k].pc;
		assert_int_equal(eqp_add_sample_chain(w, &x, &cc, &err), 0);
	}
	assert_int_equal(eqp_add_energy_readings(w, r, 3, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);

	f = eqp_open(path, &err);
	assert_non_null(f);
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	p = ep_build_children(f, s, 0, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_true(p->children);
	d = &p->domains[0];
	ser.type = ES_COUNTER;
	ser.update_s = 1e-3;
	{
		const double t[3] = { 1.0, 1.1, 1.2 }, e[3] = { 0, 1, 3 };

		for (k = 0; k < 3; k++)
			assert_int_equal(es_series_add(&ser, t[k], e[k], e[k], 1, &err), 0);
		for (k = 0; k < 3; k++)
			assert_int_equal(es_energy_at(&ser, t[k], &pt[k], &err), 0);
	}
	e0 = pt[1].e - pt[0].e;
	e1 = pt[2].e - pt[1].e;
	rm = row_named(d, "main");
	ra = row_named(d, "a");
	rb = row_named(d, "b");
	rl = row_named(d, "leaf");
	assert_non_null(rm);
	assert_non_null(ra);
	assert_non_null(rb);
	assert_non_null(rl);
	assert_float_equal(rl->joules, e0 * 3 / 4 + e1 / 2, 1e-12);
	assert_float_equal(ra->joules, e0 / 4, 1e-12);
	assert_float_equal(rb->joules, 0, 0);
	assert_float_equal(rm->joules, e1 / 2, 1e-12);
	assert_float_equal(rm->children_j, e0 + e1, 1e-12);
	assert_float_equal(ra->children_j, e0 * 2 / 4 + e1 / 2, 1e-12);
	assert_float_equal(rb->children_j, e0 * 2 / 4, 1e-12);
	assert_float_equal(rl->children_j, rl->joules, 1e-12);
	assert_int_equal(rm->children_samples, 6);
	assert_int_equal(ra->children_samples, 3);
	assert_int_equal(rb->children_samples, 2);
	assert_int_equal(rl->children_samples, 4);
	/* sampling SD of a's children: f shrunk to (c + 1/2)/(n + 1) */
	assert_float_equal(ra->children_sd,
			   sqrt(e0 * e0 * (2.5 / 5) * (2.5 / 5) / 4 + e1 * e1 * (1.5 / 3) * (1.5 / 3) / 2), 1e-12);
	/* ordered by children joules: main first */
	assert_ptr_equal(&d->rows[0], rm);
	/* self joules as ep_build gives them, the domain's totals too */
	{
		struct ep_profile *flat = ep_build(f, s, EQ_BY_PROC, 0, &err);

		assert_non_null(flat);
		assert_float_equal(row_named(&flat->domains[0], "leaf")->joules, rl->joules, 1e-15);
		assert_float_equal(flat->domains[0].charged_j, d->charged_j, 1e-15);
		assert_int_equal(flat->domains[0].samples, d->samples);
		ep_free(flat);
	}
	es_series_free(&ser);
	ep_free(p);
	eq_sym_free(s);
	eqp_close(f);
}

static void pooled_runs(void **state)
{
	struct eqp_file *f[3];
	struct eq_symbolizer *s[3];
	struct ep_profile *p[3], *pool;
	const double scale[3] = { 1, 1.2, 0.7 };
	double v[3], mean = 0, ss = 0;
	struct eq_error err;
	const struct ep_row *a;
	char name[96];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s.%d", path, i);
		write_rec(name, scale[i], &err);
		p[i] = build(name, &f[i], &s[i]);
		v[i] = row_with(&p[i]->domains[0], 5, 0)->joules;
		mean += v[i] / 3;
	}
	for (i = 0; i < 3; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	pool = ep_pool(p, 3, &err);
	assert_non_null(pool);
	assert_int_equal(pool->domains[0].runs, 3);
	a = row_with(&pool->domains[0], 15, 0);
	assert_non_null(a);
	assert_float_equal(a->joules, mean, 1e-12);
	assert_float_equal(a->sd, sqrt(ss / 2), 1e-12);
	/* t(2) = 4.302653 */
	assert_float_equal(a->ci95_high - a->joules, 4.302653 * sqrt(ss / 2) / sqrt(3), 1e-5);
	ep_free(pool);
	for (i = 0; i < 3; i++) {
		ep_free(p[i]);
		eq_sym_free(s[i]);
		eqp_close(f[i]);
		snprintf(name, sizeof(name), "%s.%d", path, i);
		unlink(name);
	}
}

static void no_readings(void **state)
{
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &time_meta, &err);
	struct eq_sample x = smp(1, 0);
	struct eqp_file *f;

	(void)state;
	assert_non_null(w);
	assert_int_equal(eqp_add_samples(w, &x, 1, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_false(ep_has_energy(f));
	assert_int_equal(eqp_nenergy_domains(f), 0);
	assert_null(eqp_energy_domain_at(f, 0));
	eqp_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(bad_domain_refused),
		cmocka_unit_test(joules_by_hand),
		cmocka_unit_test(children_by_hand),
		cmocka_unit_test(pooled_runs),
		cmocka_unit_test(no_readings),
	};
	int rc;

	snprintf(path, sizeof(path), "/tmp/test_eprofile.%d.eqp", (int)getpid());
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}
