/*
 * test_eseries.c - readings to energy (analysis/energy/eseries.h): wrap-
 * arounds, counters that go backwards, charging stores, power integration,
 * update-period detection, granularity bounds and Welford's statistics,
 * each against values worked out by hand here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "energy/eseries.h"

static struct es_domain dom(enum es_type t, double range, double update_s)
{
	struct es_domain d;

	memset(&d, 0, sizeof(d));
	strcpy(d.name, "package-0");
	strcpy(d.path, "/sys/class/powercap/intel-rapl:0/energy_uj");
	d.type = t;
	d.range = range;
	d.update_s = update_s;
	return d;
}

/* Feeds raw[] at times t[] into a track and a series. */
static int feed(struct es_track *k, struct es_series *s, const double *t, const double *raw,
		size_t n, struct eq_error *err)
{
	size_t i;
	int ch;

	for (i = 0; i < n; i++) {
		if (es_track_add(k, t[i], raw[i], &ch, err) < 0)
			return -1;
		if (s && es_series_add(s, t[i], k->energy, raw[i], ch, err) < 0)
			return -1;
	}
	return 0;
}

static void test_wrap_around(void **state)
{
	struct es_domain d = dom(ES_COUNTER, 100.0, 1e-3);
	struct es_track k;
	struct eq_error err;
	const double t[] = { 0, 1, 2, 3 }, raw[] = { 95, 99, 3, 10 };

	(void)state;
	es_track_init(&k, &d);
	assert_int_equal(feed(&k, NULL, t, raw, 4, &err), 0);
	/* 4 + (3 + 100 - 99) + 7 */
	assert_true(fabs(k.energy - 15.0) < 1e-12);
	assert_int_equal(k.wraps, 1);
	assert_true(fabs(k.min_step - 4.0) < 1e-12);
}

static void test_backwards(void **state)
{
	struct es_domain d = dom(ES_COUNTER, 100.0, 1e-3), e = dom(ES_COUNTER, 0, 1e-3);
	struct es_track k;
	struct eq_error err;
	const double t[] = { 0, 1 }, raw[] = { 50, 45 };

	(void)state;
	/* 5 J back is not a wrap: that would be 95 J of a 100 J range in 1 s */
	es_track_init(&k, &d);
	assert_int_equal(feed(&k, NULL, t, raw, 2, &err), -1);
	assert_non_null(strstr(err.msg, "went backwards from 50.000000 J to 45.000000 J"));
	assert_non_null(strstr(err.msg, "package-0 (/sys/class/powercap/intel-rapl:0/energy_uj)"));
	assert_non_null(strstr(err.msg, "nothing was measured"));
	/* without a range any step back is an error */
	es_track_init(&k, &e);
	assert_int_equal(feed(&k, NULL, t, raw, 2, &err), -1);
	assert_non_null(strstr(err.msg, "it has no wrap-around"));
	/* above the range is impossible */
	es_track_init(&k, &d);
	{
		int ch;

		assert_int_equal(es_track_add(&k, 0, 100.5, &ch, &err), -1);
		assert_non_null(strstr(err.msg, "above the counter's range"));
	}
}

static void test_store(void **state)
{
	struct es_domain d = dom(ES_STORE, 0, 0);
	struct es_track k;
	struct eq_error err;
	const double t[] = { 0, 15, 30, 45 }, raw[] = { 1000, 990, 975, 980 };

	(void)state;
	es_track_init(&k, &d);
	assert_int_equal(feed(&k, NULL, t, raw, 3, &err), 0);
	assert_true(fabs(k.energy - 25.0) < 1e-12);
	assert_int_equal(feed(&k, NULL, t + 3, raw + 3, 1, &err), -1);
	assert_non_null(strstr(err.msg, "it is being charged"));
}

static void test_power_integration(void **state)
{
	struct es_domain d = dom(ES_POWER, 0, 0.1);
	struct es_track k;
	struct eq_error err;
	const double t[] = { 0, 1, 2 }, raw[] = { 2, 2, 4 };
	int ch;

	(void)state;
	es_track_init(&k, &d);
	assert_int_equal(feed(&k, NULL, t, raw, 3, &err), 0);
	/* trapezoids: 2 + (2 + 4) / 2 */
	assert_true(fabs(k.energy - 5.0) < 1e-12);
	assert_int_equal(es_track_add(&k, 3, -1, &ch, &err), -1);
	assert_non_null(strstr(err.msg, "is not a power"));
}

static void test_update_detection(void **state)
{
	struct es_domain d = dom(ES_STORE, 0, 0);
	struct es_track k;
	struct eq_error err;
	char how[96];
	int i, ch;

	(void)state;
	es_track_init(&k, &d);
	/* read every 0.1 s for 10 s; the gauge drops 1 J every 1.5 s */
	for (i = 0; i <= 100; i++)
		assert_int_equal(es_track_add(&k, i * 0.1, 100 - floor(i / 15), &ch, &err), 0);
	assert_true(fabs(es_track_update_s(&k, how, sizeof(how)) - 1.5) < 1e-9);
	assert_non_null(strstr(how, "detected from"));
	/* a counter that changes at every read has no detectable period */
	es_track_init(&k, &d);
	for (i = 0; i <= 100; i++)
		assert_int_equal(es_track_add(&k, i * 0.01, 1000 - i, &ch, &err), 0);
	assert_true(es_track_update_s(&k, how, sizeof(how)) == 0);
	assert_non_null(strstr(how, "every read"));
}

/* A gauge read every 0.1 s that updates at 3.05 s (to 10 J used) and 6.05 s
 * (20 J): between updates only the two values are known. */
static void coarse_series(struct es_series *s, double update_s)
{
	struct eq_error err;
	int i;

	memset(s, 0, sizeof(*s));
	s->type = ES_STORE;
	s->update_s = update_s;
	for (i = 0; i <= 100; i++) {
		double t = i * 0.1, e = t < 3.05 ? 0 : t < 6.05 ? 10 : 20;

		assert_int_equal(es_series_add(s, t, e, 100 - e, i == 31 || i == 61, &err), 0);
	}
}

static void test_bounds_coarse(void **state)
{
	struct es_series s;
	struct es_point p;
	struct eq_error err;

	(void)state;
	coarse_series(&s, 3.0);
	assert_int_equal(es_energy_at(&s, 4.5, &p, &err), 0);
	assert_true(p.lo == 10 && p.hi == 20);
	/* interpolated between the update instants 3.05 and 6.05 (each half a
	 * read after the one before it): 10 + 10 * (4.5 - 3.05) / 3 */
	assert_true(fabs(p.e - (10 + 10 * 1.45 / 3)) < 1e-9);
	assert_int_equal(es_energy_between(&s, 1.0, 5.0, &p, &err), 0);
	assert_true(p.lo == 0 && p.hi == 20);
	/* after the last update: only a lower bound */
	assert_int_equal(es_energy_at(&s, 9.0, &p, &err), 0);
	assert_true(p.lo == 20 && isinf(p.hi));
	assert_int_equal(es_energy_at(&s, 11.0, &p, &err), -1);
	es_series_free(&s);
}

static void test_bounds_power(void **state)
{
	struct es_series s;
	struct es_track k;
	struct es_domain d = dom(ES_POWER, 0, 0.1);
	struct es_point p;
	struct eq_error err;
	double t;
	int i, ch;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.type = ES_POWER;
	s.update_s = 0.1;
	es_track_init(&k, &d);
	/* 3 W, then 6 W from t = 1 s; the sensor shows each window's average
	 * at its end, windows of 0.1 s; read every 0.01 s */
	for (i = 0; i <= 300; i++) {
		double tt = i * 0.01, win = floor(tt / 0.1 + 1e-9) * 0.1;
		double shown = win < 0.1 ? 3 : win <= 1.0 + 1e-9 ? 3 : 6;

		assert_int_equal(es_track_add(&k, tt, shown, &ch, &err), 0);
		assert_int_equal(es_series_add(&s, tt, k.energy, shown, ch, &err), 0);
	}
	/* true energy between 0.5 s and 2.0 s: 0.5 * 3 + 1.0 * 6 */
	assert_int_equal(es_energy_between(&s, 0.5, 2.0, &p, &err), 0);
	t = 0.5 * 3 + 1.0 * 6;
	assert_true(p.lo <= t && t <= p.hi);
	assert_true(fabs(p.e - t) < 0.2);
	es_series_free(&s);
}

static void test_welford(void **state)
{
	struct es_welford w = { 0 };
	double x[1000], mean = 0, ss = 0, sd;
	int i;

	(void)state;
	srand(7);
	for (i = 0; i < 1000; i++) {
		x[i] = 1e9 + (double)rand() / RAND_MAX;
		mean += x[i];
	}
	mean /= 1000;
	for (i = 0; i < 1000; i++) {
		ss += (x[i] - mean) * (x[i] - mean);
		es_welford_add(&w, x[i]);
	}
	sd = sqrt(ss / 999);
	/* one pass, no cancellation: the two-pass result to 1e-6 relative
	 * even at an offset of 1e9 */
	assert_true(fabs(w.mean - mean) < 1e-6);
	assert_true(fabs(es_welford_sd(&w) - sd) < 1e-6 * sd);
	/* 95% CI: t(999) = 1.962341 */
	assert_true(fabs(es_welford_ci95(&w) - 1.962341 * sd / sqrt(1000)) < 1e-5 * sd);
	/* two values: t(1) = 12.706205 */
	memset(&w, 0, sizeof(w));
	es_welford_add(&w, 1);
	assert_true(isnan(es_welford_sd(&w)) && isnan(es_welford_ci95(&w)));
	es_welford_add(&w, 3);
	assert_true(fabs(es_welford_ci95(&w) - 12.706205 * sqrt(2) / sqrt(2)) < 1e-5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_power_integration),
		cmocka_unit_test(test_update_detection),
		cmocka_unit_test(test_bounds_coarse),
		cmocka_unit_test(test_bounds_power),
		cmocka_unit_test(test_welford),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
