/*
 * test_stats.c - Wilson score interval and two-proportion test against
 * published values (Wilson 1927 / Newcombe 1998 method 3 as in R's
 * prop.test(correct = FALSE)), and their edge cases; Student's t quantiles
 * against published tables; the systematic-sampling design effect against
 * its closed form and limits; batch means and the design-effect test on
 * small worked examples.  (The intervals' coverage over many simulated runs
 * is test/sim/test_accuracy.c.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "profile/stats.h"

static void wilson_known_values(void **state)
{
	double lo, hi;

	(void)state;
	/* 50 of 100: 0.4038315 .. 0.5961685 */
	eq_wilson(50, 100, EQ_Z95, &lo, &hi);
	assert_true(fabs(lo - 0.4038315) < 1e-6 && fabs(hi - 0.5961685) < 1e-6);
	/* 1 of 10: 0.0178762 .. 0.4041500 */
	eq_wilson(1, 10, EQ_Z95, &lo, &hi);
	assert_true(fabs(lo - 0.0178762) < 1e-7 && fabs(hi - 0.4041500) < 1e-7);
	/* 981 of 1000: 0.9705155 .. 0.9878031 */
	eq_wilson(981, 1000, EQ_Z95, &lo, &hi);
	assert_true(fabs(lo - 0.9705155) < 1e-6 && fabs(hi - 0.9878031) < 1e-6);
}

static void wilson_edges(void **state)
{
	double lo, hi;

	(void)state;
	eq_wilson(0, 0, EQ_Z95, &lo, &hi);
	assert_true(lo == 0.0 && hi == 1.0);
	eq_wilson(0, 20, EQ_Z95, &lo, &hi);
	assert_true(lo == 0.0 && hi > 0.16 && hi < 0.17);   /* 0.1611247 */
	eq_wilson(20, 20, EQ_Z95, &lo, &hi);
	assert_true(hi == 1.0 && lo > 0.83 && lo < 0.84);
	eq_wilson(5, 3, EQ_Z95, &lo, &hi);                  /* nonsense in, no crash */
	assert_true(lo == 0.0 && hi == 1.0);
	eq_wilson(UINT64_C(1) << 40, UINT64_C(1) << 41, EQ_Z95, &lo, &hi);
	assert_true(lo < 0.5 && hi > 0.5 && hi - lo < 1e-5);
}

static void two_proportions(void **state)
{
	double z;

	(void)state;
	/* 300/1000 vs 500/1000: z = -9.128709 */
	assert_int_equal(eq_two_prop_differ(300, 1000, 500, 1000, EQ_Z95, &z), 1);
	assert_true(fabs(z + 9.128709) < 1e-5);
	/* 310/1000 vs 300/1000: z = 0.4856716, not significant */
	assert_int_equal(eq_two_prop_differ(310, 1000, 300, 1000, EQ_Z95, &z), 0);
	assert_true(fabs(z - 0.4856716) < 1e-6);
	assert_int_equal(eq_two_prop_differ(0, 10, 0, 10, EQ_Z95, &z), 0);
	assert_true(z == 0.0);
	assert_int_equal(eq_two_prop_differ(1, 0, 1, 10, EQ_Z95, &z), 0);
	assert_int_equal(eq_two_prop_differ(10, 10, 10, 10, EQ_Z95, &z), 0);
}

static void t_quantiles(void **state)
{
	(void)state;
	/* published two-sided 95% values */
	assert_true(fabs(eq_t95(0) - 1.959964) < 1e-6);
	assert_true(fabs(eq_t95(1) - 12.706205) < 1e-6);
	assert_true(fabs(eq_t95(15) - 2.131450) < 1e-6);
	assert_true(fabs(eq_t95(30) - 2.042272) < 1e-6);
	/* past the table: the expansion (R qt(0.975, df)) */
	assert_true(fabs(eq_t95(31) - 2.039513) < 2e-6);  /* also test/analysis/eqtest.py t95() */
	assert_true(fabs(eq_t95(63) - 1.998341) < 2e-6);
	assert_true(fabs(eq_t95(127) - 1.978820) < 2e-6);
	assert_true(fabs(eq_t95(100000) - 1.959988) < 2e-6);
}

static void sampling_deff(void **state)
{
	double a = -log(0.5) / 2;

	(void)state;
	assert_true(eq_sampling_deff(0) == 1 && eq_sampling_deff(-0.3) == 1);
	assert_true(eq_sampling_deff(1) == 0);
	/* coth(a) - 1/a at rho = 0.5 */
	assert_true(fabs(eq_sampling_deff(0.5) - (cosh(a) / sinh(a) - 1 / a)) < 1e-12);
	/* long stretches: about (1 - rho) / 6 */
	assert_true(fabs(eq_sampling_deff(0.999) / (0.001 / 6) - 1) < 0.01);
	/* nearly independent samples: 1 - 1/a, still below 1 (the run's own
	 * variation is not sampling error) */
	assert_true(eq_sampling_deff(1e-12) < 1 && eq_sampling_deff(1e-12) > 0.9);
	/* continuous where the formula switches (series, tanh, 1 - 1/a) */
	assert_true(fabs(eq_sampling_deff(exp(-2 * 0.00099)) - eq_sampling_deff(exp(-2 * 0.00101))) < 1e-5);
	assert_true(fabs(eq_sampling_deff(exp(-2 * 19.99)) - eq_sampling_deff(exp(-2 * 20.01))) < 1e-4);
}

static void lags(void **state)
{
	(void)state;
	/* 0 1 0 1 ... (n = 10, k = 5): 9 changes; R0 = 0.25, rho = 1 - 9/(2*9*0.25) = -1 */
	assert_true(fabs(eq_lag_rho(5, 10, 10, 9, 1) + 1) < 1e-12);
	/* ... and at lag 2 no pair differs: rho2 = 1 */
	assert_true(fabs(eq_lag_rho(5, 10, 10, 0, 2) - 1) < 1e-12);
	/* 0 0 0 0 0 1 1 1 1 1: 1 change: rho = 1 - 1/4.5; 2 pairs 2 apart:
	 * rho2 = 1 - 2*10/(2*8*2.5) */
	assert_true(fabs(eq_lag_rho(5, 10, 10, 1, 1) - (1 - 1 / 4.5)) < 1e-12);
	assert_true(fabs(eq_lag_rho(5, 10, 10, 2, 2) - 0.5) < 1e-12);
	/* nothing to correlate */
	assert_true(eq_lag_rho(0, 10, 10, 0, 1) == 0 && eq_lag_rho(10, 10, 10, 0, 1) == 0);
}

static void sampling_deff_from_lags(void **state)
{
	double n = 10000, se = 0.01, nu;

	(void)state;
	/* within a standard error of 0: the binomial */
	assert_true(eq_sampling_deff_lags(0.005, 0.5, n) == 1);
	assert_true(eq_sampling_deff_lags(-0.2, 0.5, n) == 1);
	/* between 1 and 3 standard errors: linear from 1 to the telegraph value */
	assert_true(fabs(eq_sampling_deff_lags(2 * se, 0, n) -
			 (1 + eq_sampling_deff(3 * se)) / 2) < 1e-12);
	/* a telegraph process (rho2 = rho1^2): the telegraph value */
	assert_true(fabs(eq_sampling_deff_lags(0.5, 0.25, n) - eq_sampling_deff(0.5)) < 1e-12);
	/* fast then slow (rho2 > rho1^2): white part nu plus the slow exponential */
	nu = 1 - 0.5 * 0.5 / 0.45;
	assert_true(fabs(eq_sampling_deff_lags(0.5, 0.45, n) -
			 (nu + (1 - nu) * eq_sampling_deff(0.9))) < 1e-12);
	assert_true(eq_sampling_deff_lags(0.5, 0.45, n) > eq_sampling_deff(0.5));
	/* rho2 >= rho1: no decay left to fit: the white part alone */
	assert_true(fabs(eq_sampling_deff_lags(0.5, 0.6, n) - (1 - 0.25 / 0.6)) < 1e-12);
}

static void batch_means(void **state)
{
	double c[4] = { 3, 5, 4, 4 }, m[4] = { 10, 10, 10, 10 }, s0, s1, v;

	(void)state;
	/* p = 0.4: residuals -1 1 0 0; s0 = 2, s1 = -1; V = 4/3 * 2 / 1600 */
	v = eq_batch_var(c, m, 4, 0.4, &s0, &s1);
	assert_true(s0 == 2 && s1 == -1);
	assert_true(fabs(v - 4.0 / 3 * 2 / 1600) < 1e-15);
	assert_true(isnan(eq_batch_var(c, m, 1, 0.3, &s0, &s1)));
}

/* ---- eq_series_intervals against the batching it replaced -------------
 * The reference below is the code before the batch counts were made once a
 * row (each batching asked the rows for their counts again, block by
 * block): the run-to-run design effects must be the same doubles, bit for
 * bit, whichever batching the pooled lag-1 correlation picks. */
struct ref_rows {
	unsigned nblocks;
	const uint32_t *cnt;  /* nrows x nblocks */
};

/* Row i's counts in nb batches of nblocks / nb blocks each, block by
 * block, into c (zeroed). */
static void ref_counts(const struct ref_rows *r, size_t i, unsigned nblocks, unsigned nb,
		       double *c)
{
	unsigned per = nblocks / nb, b;

	memset(c, 0, nb * sizeof(*c));
	for (b = 0; b < nblocks; b++)
		c[b / per] += (double)r->cnt[i * nblocks + b];
}

/* eq_series.batches over them. */
static void ref_batches(void *arg, size_t i, unsigned nblocks, double *c, size_t stride)
{
	const struct ref_rows *r = arg;
	unsigned b;

	for (b = 0; b < nblocks; b++)
		c[b * stride] += (double)r->cnt[i * nblocks + b];
}

static void ref_deff_run(const struct eq_series *s, double *deff, unsigned *df, unsigned *nbo,
			 double *lag1)
{
	double mb[EQ_BATCHES_MAX], c[EQ_BATCHES_MAX], s0, s1, r1 = 0, inflate;
	unsigned nb = 0, try, per, b;
	size_t i;

	for (try = s->nblocks; try >= EQ_BATCHES_MIN; try /= 2) {
		double t0 = 0, t1 = 0;

		per = s->nblocks / try;
		memset(mb, 0, try * sizeof(*mb));
		for (b = 0; b < s->nblocks; b++)
			mb[b / per] += s->block_m[b];
		for (i = 0; i < s->nrows; i++) {
			ref_counts(s->arg, i, s->nblocks, try, c);
			eq_batch_var(c, mb, try, s->rows.k[i] / s->m, &s0, &s1);
			t0 += s0;
			t1 += s1;
		}
		nb = try;
		r1 = t0 > 0 ? t1 / t0 : 0;
		if (r1 <= -1.0 / try)
			break;
	}
	*nbo = nb;
	*lag1 = r1;
	inflate = 1 + 2 * (r1 + 1.0 / nb > 0 ? r1 + 1.0 / nb : 0);
	per = s->nblocks / nb;
	memset(mb, 0, nb * sizeof(*mb));
	for (b = 0; b < s->nblocks; b++)
		mb[b / per] += s->block_m[b];
	for (i = 0; i < s->nrows; i++) {
		double pr = s->rows.k[i] / s->m, v;

		ref_counts(s->arg, i, s->nblocks, nb, c);
		v = eq_batch_var(c, mb, nb, pr, &s0, &s1) * inflate;
		deff[i] = pr > 0 && pr < 1 && isfinite(v) ? v / (pr * (1 - pr) / s->m) : 1;
		deff[i] = eq_small_count_floor(deff[i], (uint64_t)s->rows.k[i], (uint64_t)s->m);
		df[i] = pr > 0 && pr < 1 ? nb - 1 : 0;
	}
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

static void series_batchings_as_before(void **state)
{
	enum { ROWS = 25 };  /* 22 to 25 by seed: series_levels takes rows four at
				a time, so every size of its last group */
	static uint32_t cnt[ROWS * EQ_BATCHES_MAX];
	static const struct eq_series_times times;
	double block_m[EQ_BATCHES_MAX], deff[ROWS], lag1;
	unsigned df[ROWS], nb, picked[EQ_BATCHES_MAX + 1] = { 0 }, seed;
	uint64_t x = 12345;

	(void)state;
	for (seed = 0; seed < 400; seed++) {
		unsigned nblocks = EQ_BATCHES_MIN << (seed % 4), b, r;
		/* slow drift (the batches stay correlated: coarser batchings)
		 * from none to strong */
		unsigned drift = (unsigned)(lcg(&x) % 4) * (unsigned)(lcg(&x) % 3);
		unsigned nrows = ROWS - seed / 4 % 4;
		struct ref_rows rr = { nblocks, cnt };
		struct eq_series s = { .n = 0, .times = &times, .nblocks = nblocks,
				       .block_m = block_m, .nrows = nrows, .batches = ref_batches,
				       .arg = &rr };
		struct eq_series_out o;

		assert_int_equal(eq_series_rows_alloc(&s.rows, ROWS), 0);
		for (b = 0; b < nblocks; b++)
			block_m[b] = 0;
		for (r = 0; r < nrows; r++) {
			uint64_t k = 0;
			/* rows of 0 samples, of a few (below EQ_SMALL_COUNT) and many */
			unsigned scale = r % 5 == 0 ? 0 : r % 5 == 1 ? 1 : 1 + (unsigned)(lcg(&x) % 300);

			for (b = 0; b < nblocks; b++) {
				unsigned phase = drift * (r % 3 == 0 ? b : nblocks - b) / nblocks;
				uint32_t c = scale ? (uint32_t)(lcg(&x) % (scale * (1 + phase))) : 0;

				c = r % 5 == 1 ? (lcg(&x) % 7 == 0) : c;
				cnt[r * nblocks + b] = c;
				block_m[b] += c;
				k += c;
			}
			s.rows.k[r] = (double)k;
		}
		for (b = 0; b < nblocks; b++)
			s.m += block_m[b];
		s.n = s.m + (double)(lcg(&x) % 1000);
		eq_series_intervals(&s, &o);
		ref_deff_run(&s, deff, df, &nb, &lag1);
		assert_int_equal(o.batches, nb);
		assert_memory_equal(&o.lag1, &lag1, sizeof(lag1));
		assert_memory_equal(s.rows.deff_run, deff, nrows * sizeof(*deff));
		assert_memory_equal(s.rows.df_run, df, nrows * sizeof(*df));
		picked[nb == nblocks ? 0 : nb]++;
		eq_series_rows_free(&s.rows);
	}
	/* every way out of the search was taken: the finest batching, a
	 * middle one, the coarsest (16 of more blocks) */
	assert_true(picked[0] > 0);
	assert_true(picked[32] > 0 || picked[64] > 0);
	assert_true(picked[16] > 0);
}

static void wilson_effective(void **state)
{
	double lo, hi, lo2, hi2;

	(void)state;
	/* an effective size equal to n is the plain Wilson interval */
	eq_wilson(50, 100, EQ_Z95, &lo, &hi);
	eq_wilson_eff(0.5, 100, EQ_Z95, &lo2, &hi2);
	assert_true(lo == lo2 && hi == hi2);
	/* a design effect of 4 doubles the half-width (about) */
	eq_wilson_eff(0.5, 25, EQ_Z95, &lo2, &hi2);
	assert_true(hi2 - lo2 > 1.85 * (hi - lo) && hi2 - lo2 < 2.0 * (hi - lo));
	eq_wilson_eff(0.3, INFINITY, EQ_Z95, &lo, &hi);
	assert_true(lo == 0.3 && hi == 0.3);
	eq_wilson_eff(0.3, 0, EQ_Z95, &lo, &hi);
	assert_true(lo == 0 && hi == 1);
	eq_wilson_eff(0, 1000, EQ_Z95, &lo, &hi);
	assert_true(lo == 0 && hi > 0);
}

static void shares_differ(void **state)
{
	double z, z2;

	(void)state;
	/* deff 1, df 0: the classic test */
	assert_int_equal(eq_shares_differ(300, 1000, 1, 0, 500, 1000, 1, 0, &z), 1);
	assert_int_equal(eq_two_prop_differ(300, 1000, 500, 1000, EQ_Z95, &z2), 1);
	assert_true(fabs(z - z2) < 1e-12);
	/* a design effect of 4 on both sides halves z */
	eq_shares_differ(300, 1000, 4, 0, 500, 1000, 4, 0, &z2);
	assert_true(fabs(2 * z2 - z) < 1e-12);
	/* z = 2.1: significant against the normal and against t with 30 + 30
	 * df (Welch: 60, t = 2.000), not with 3 + 3 (6: t = 2.447) */
	assert_int_equal(eq_shares_differ(0.5 * 1000 + 2.1 * sqrt(0.25 * 2 / 1000) * 500, 1000, 1, 0,
					  0.5 * 1000 - 2.1 * sqrt(0.25 * 2 / 1000) * 500, 1000, 1, 0, &z), 1);
	assert_true(fabs(z - 2.1) < 1e-9);
	assert_int_equal(eq_shares_differ(0.5 * 1000 + 2.1 * sqrt(0.25 * 2 / 1000) * 500, 1000, 1, 30,
					  0.5 * 1000 - 2.1 * sqrt(0.25 * 2 / 1000) * 500, 1000, 1, 30, &z), 1);
	assert_int_equal(eq_shares_differ(0.5 * 1000 + 2.1 * sqrt(0.25 * 2 / 1000) * 500, 1000, 1, 3,
					  0.5 * 1000 - 2.1 * sqrt(0.25 * 2 / 1000) * 500, 1000, 1, 3, &z), 0);
	assert_int_equal(eq_shares_differ(0, 10, 1, 0, 0, 10, 1, 0, &z), 0);
	assert_int_equal(eq_shares_differ(1, 0, 1, 0, 1, 10, 1, 0, &z), 0);
}

static void interval_names(void **state)
{
	enum eq_interval iv;
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_interval_parse("run-to-run", &iv, &err), 0);
	assert_int_equal(iv, EQ_IV_RUN);
	assert_string_equal(eq_interval_name(iv), "run-to-run");
	assert_int_equal(eq_interval_parse("sampling", &iv, &err), 0);
	assert_int_equal(iv, EQ_IV_SAMPLING);
	assert_int_equal(eq_interval_parse("binomial", &iv, &err), -1);
	assert_non_null(strstr(err.msg, "--interval binomial"));
}

/* Student's t p-values: 2 * pt(-t, df) to 8 digits (R), and the 95%
 * quantiles of eq_t95 give p = 0.05. */
static void t_pvalues(void **state)
{
	unsigned df;

	(void)state;
	assert_float_equal(eq_t_pvalue(2.0, 10), 0.07338803, 1e-8);
	assert_float_equal(eq_t_pvalue(-2.0, 10), 0.07338803, 1e-8);
	assert_float_equal(eq_t_pvalue(1.0, 1), 0.5, 1e-12);
	/* fractional df (Welch): Simpson integration of the density gives 0.03089723 */
	assert_float_equal(eq_t_pvalue(3.5, 3.5), 0.03089723, 1e-7);
	assert_float_equal(eq_t_pvalue(EQ_Z95, 0), 0.05, 1e-12);
	assert_float_equal(eq_t_pvalue(0, 7), 1.0, 1e-12);
	for (df = 1; df <= 200; df++)
		assert_float_equal(eq_t_pvalue(eq_t95(df), df), 0.05, 2e-7);
}

/* Holm: step down from the smallest p while p <= alpha / (n - rank). */
static void holm(void **state)
{
	const double p[5] = { 0.012, 0.001, 0.04, 0.013, 0.5 };
	int sig[5];

	(void)state;
	eq_holm(p, 5, 0.05, sig);
	/* 0.001 <= 0.01; 0.012 <= 0.0125; 0.013 <= 0.05/3; 0.04 > 0.025: stop */
	assert_int_equal(sig[1], 1);
	assert_int_equal(sig[0], 1);
	assert_int_equal(sig[3], 1);
	assert_int_equal(sig[2], 0);
	assert_int_equal(sig[4], 0);
	eq_holm(p, 0, 0.05, sig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_quantiles),
		cmocka_unit_test(sampling_deff),
		cmocka_unit_test(lags),
		cmocka_unit_test(sampling_deff_from_lags),
		cmocka_unit_test(batch_means),
		cmocka_unit_test(series_batchings_as_before),
		cmocka_unit_test(wilson_effective),
		cmocka_unit_test(shares_differ),
		cmocka_unit_test(interval_names),
		cmocka_unit_test(wilson_known_values),
		cmocka_unit_test(wilson_edges),
		cmocka_unit_test(two_proportions),
		cmocka_unit_test(t_pvalues),
		cmocka_unit_test(holm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
