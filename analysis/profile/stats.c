/*
 * stats.c - Wilson score intervals (plain and at an effective sample size),
 * the systematic-sampling and batch-means variances of a share, Student's
 * t quantiles and the tests of whether two shares differ.  The formulas and
 * why they hold are in stats.h and docs/guide.md ("Intervals").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stats.h"
#include "util/bigarr.h"

static const char *const interval_names[] = { "sampling", "run-to-run" };

int eq_interval_parse(const char *text, enum eq_interval *iv, struct eq_error *err)
{
	if (!strcmp(text, "sampling"))
		*iv = EQ_IV_SAMPLING;
	else if (!strcmp(text, "run-to-run") || !strcmp(text, "run"))
		*iv = EQ_IV_RUN;
	else
		return eq_fail(err, "--interval %s: unknown interval; use sampling (this run's "
			       "share) or run-to-run (what another run would give)", text);
	return 0;
}

const char *eq_interval_name(enum eq_interval iv)
{
	return (unsigned)iv < 2 ? interval_names[iv] : "?";
}

void eq_wilson_eff(double p, double n, double z, double *lo, double *hi)
{
	double z2n, denom, centre, half;

	if (!(n > 0) || !(p >= 0 && p <= 1)) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	if (isinf(n)) {
		*lo = *hi = p;
		return;
	}
	z2n = z * z / n;
	denom = 1.0 + z2n;
	centre = (p + z2n / 2.0) / denom;
	half = z * sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / denom;
	*lo = centre - half;
	*hi = centre + half;
	/* Exact bounds at the edges (rounding could leave 1e-17 outside). */
	if (p == 0 || *lo < 0.0)
		*lo = 0.0;
	if (p == 1 || *hi > 1.0)
		*hi = 1.0;
}

void eq_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	if (n == 0 || k > n) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	eq_wilson_eff((double)k / (double)n, (double)n, z, lo, hi);
}

/* t(0.975, df) for df 1..30 (Abramowitz and Stegun, Table 26.10). */
static const double t975_table[31] = {
	0, 12.7062047, 4.3026527, 3.1824463, 2.7764451, 2.5705818, 2.4469119,
	2.3646243, 2.3060041, 2.2621572, 2.2281389, 2.2009852, 2.1788128, 2.1603687,
	2.1447867, 2.1314495, 2.1199053, 2.1098156, 2.1009220, 2.0930241, 2.0859634,
	2.0796138, 2.0738731, 2.0686576, 2.0638986, 2.0595386, 2.0555294, 2.0518305,
	2.0484071, 2.0452296, 2.0422725,
};

double eq_t95(unsigned df)
{
	double z = EQ_Z95, v = (double)df, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
	double z9 = z7 * z * z;

	if (df == 0)
		return z;
	if (df <= 30)
		return t975_table[df];
	/* Cornish-Fisher expansion of t in 1/df (A&S 26.7.5): < 1e-7 off here. */
	return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v) +
	       (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * v * v * v * v);
}

double eq_sampling_deff(double rho)
{
	double a;

	if (!(rho > 0))
		return 1.0;
	if (rho >= 1)
		return 0.0;
	a = -log(rho) / 2;
	if (a < 1e-3)
		return a / 3 - a * a * a / 45;  /* coth(a) - 1/a, series */
	if (a > 20)
		return 1 - 1 / a;
	return 1 / tanh(a) - 1 / a;
}

double eq_sampling_deff_lags(double rho1, double rho2, double n)
{
	double se = n > 9 ? 1 / sqrt(n) : 1, thr = 3 * se, nu;

	if (!(rho1 > se))
		return 1.0;
	if (rho1 < thr)
		return 1 - (1 - eq_sampling_deff(thr)) * (rho1 - se) / (thr - se);
	if (rho2 > thr && rho2 > rho1 * rho1) {
		nu = 1 - rho1 * rho1 / rho2;
		return nu + (1 - nu) * eq_sampling_deff(rho2 >= rho1 ? 1 : rho2 / rho1);
	}
	return eq_sampling_deff(rho1);
}

double eq_lag_rho(double k, double m, double n, double d, unsigned lag)
{
	double p, r0, rho;

	if (!(m > 0) || !(n > lag) || !(k > 0) || k >= m)
		return 0;
	p = k / m;
	r0 = k * (1 - p) / n;
	rho = 1 - d / (2 * (n - lag) * r0);
	return rho < -1 ? -1 : rho > 1 ? 1 : rho;
}

/* The sums of eq_batch_var: sum r_b^2 and sum r_b r_{b-1} over nb >= 1
 * batches, in batch order. */
static void batch_sums(const double *c, const double *mb, unsigned nb, double p, double *s0,
		       double *s1)
{
	double prev = c[0] - p * mb[0], sum0 = 0, sum1 = 0;  /* (sums in registers:
								 the same order) */
	unsigned b;

	sum0 += prev * prev;
	for (b = 1; b < nb; b++) {
		double r = c[b] - p * mb[b];

		sum0 += r * r;
		sum1 += r * prev;
		prev = r;
	}
	*s0 = sum0;
	*s1 = sum1;
}

/*
 * The same for four rows at once, a row a lane of a vector of four doubles
 * (GCC's vector extension: one instruction for the four where the CPU has
 * AVX, for which GCC builds a second copy, two where it has SSE2 only),
 * batch b's counts in c[4 b .. 4 b + 3].
 * Each lane goes through batch_sums' operations in their order and reads
 * no other lane: the same doubles, row by row.  The chains of adds, each
 * waiting on the one before, serve four rows at the price of one.
 */
typedef double v4d __attribute__((vector_size(4 * sizeof(double))));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx", "default")))
#endif
static void batch_sums4(const double *c, const double *mb, unsigned nb, const double *p4,
			double *s0, double *s1)
{
	v4d p, prev, r, sum0 = { 0 }, sum1 = { 0 };
	unsigned b;

	memcpy(&p, p4, sizeof(p));
	memcpy(&prev, c, sizeof(prev));
	prev -= p * mb[0];
	sum0 += prev * prev;
	for (b = 1; b < nb; b++) {
		memcpy(&r, c + 4 * b, sizeof(r));
		r -= p * mb[b];
		sum0 += r * r;
		sum1 += r * prev;
		prev = r;
	}
	memcpy(s0, &sum0, sizeof(sum0));
	memcpy(s1, &sum1, sizeof(sum1));
}

/* Four rows' batch b (at to) from their batches 2b and 2b + 1 (at from). */
static inline void batch_pair4(double *to, const double *from)
{
	v4d x, y;

	memcpy(&x, from, sizeof(x));
	memcpy(&y, from + 4, sizeof(y));
	x += y;
	memcpy(to, &x, sizeof(x));
}

static double batch_total(const double *mb, unsigned nb)
{
	double total = 0;
	unsigned b;

	for (b = 0; b < nb; b++)
		total += mb[b];
	return total;
}

static double batch_var_of(double sum0, double total, unsigned nb)
{
	if (nb < 2 || total <= 0)
		return NAN;
	return (double)nb / (nb - 1) * sum0 / (total * total);
}

double eq_batch_var(const double *c, const double *mb, unsigned nb, double p,
		    double *s0, double *s1)
{
	if (!nb) {
		*s0 = *s1 = 0;
		return NAN;
	}
	batch_sums(c, mb, nb, p, s0, s1);
	return batch_var_of(*s0, batch_total(mb, nb), nb);
}

int eq_shares_differ(double k1, double n1, double deff1, unsigned df1,
		     double k2, double n2, double deff2, unsigned df2, double *zout)
{
	double pool, v1, v2, se, stat, df, crit;

	*zout = 0.0;
	if (!(n1 > 0) || !(n2 > 0) || k1 > n1 || k2 > n2 || k1 < 0 || k2 < 0)
		return 0;
	pool = (k1 + k2) / (n1 + n2);
	v1 = pool * (1 - pool) * deff1 / n1;
	v2 = pool * (1 - pool) * deff2 / n2;
	se = sqrt(v1 + v2);
	if (!(se > 0))
		return 0;
	stat = (k1 / n1 - k2 / n2) / se;
	*zout = stat;
	/* Welch-Satterthwaite: a side with df 0 has a known variance. */
	if (df1 == 0 && df2 == 0) {
		crit = EQ_Z95;
	} else {
		df = (v1 + v2) * (v1 + v2) /
		     ((df1 ? v1 * v1 / df1 : 0) + (df2 ? v2 * v2 / df2 : 0));
		crit = isfinite(df) && df < 1e9 ? eq_t95(df < 1 ? 1 : (unsigned)df) : EQ_Z95;
	}
	return fabs(stat) > crit;
}

int eq_two_prop_differ(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
		       double z, double *zout)
{
	double p1, p2, pool, se, stat;

	*zout = 0.0;
	if (n1 == 0 || n2 == 0 || k1 > n1 || k2 > n2)
		return 0;
	p1 = (double)k1 / (double)n1;
	p2 = (double)k2 / (double)n2;
	pool = (double)(k1 + k2) / (double)(n1 + n2);
	se = sqrt(pool * (1.0 - pool) * (1.0 / (double)n1 + 1.0 / (double)n2));
	if (se == 0.0)
		return 0;
	stat = (p1 - p2) / se;
	*zout = stat;
	return fabs(stat) > z;
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap, h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2)), del;

		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double betai(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double eq_t_pvalue(double t, double df)
{
	if (isnan(t))
		return 1;
	if (!(df > 0) || !isfinite(df) || df > 1e7)
		return erfc(fabs(t) / sqrt(2.0));
	return betai(df / 2, 0.5, df / (df + t * t));
}

struct holm_item {
	double p;
	size_t i;
};

static int by_p(const void *x, const void *y)
{
	const struct holm_item *a = x, *b = y;

	return a->p < b->p ? -1 : a->p > b->p ? 1 : (a->i > b->i) - (a->i < b->i);
}

void eq_holm(const double *p, size_t n, double alpha, int *sig)
{
	struct holm_item *v = malloc((n ? n : 1) * sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		sig[i] = 0;
	if (!v)
		return;  /* out of memory: nothing claimed */
	for (i = 0; i < n; i++)
		v[i] = (struct holm_item){ isnan(p[i]) ? 1 : p[i], i };
	qsort(v, n, sizeof(*v), by_p);
	for (i = 0; i < n && v[i].p <= alpha / (double)(n - i); i++)
		sig[v[i].i] = 1;
	free(v);
}

double eq_small_count_floor(double deff, uint64_t k, uint64_t m)
{
	if (k < EQ_SMALL_COUNT || m - k < EQ_SMALL_COUNT)
		return deff > 1 ? deff : 1;
	return deff;
}

/* Row i's batch variances at every batching from level `from` (nblocks >>
 * level batches) down to EQ_BATCHES_MIN into s->rows.batch_v, their sums
 * s0, s1 over the rows (in row order, as before) into t0, t1: one call of
 * s->batches per row, at the finest batching, and each coarser batching
 * the sums of neighbours.  The counts are whole numbers below 2^53, so any
 * order of adding them gives the same doubles as adding them block by
 * block into the coarser batch. */
static void series_levels(const struct eq_series *s, const double (*mb)[EQ_BATCHES_MAX],
			  unsigned from, unsigned levels, double *t0, double *t1)
{
	double c[4 * EQ_BATCHES_MAX], total[EQ_BATCH_LEVELS], s0[4], s1[4], pr[4];
	size_t i, n, j;
	unsigned lv, b, nb;

	for (lv = 0; lv < levels; lv++)
		total[lv] = batch_total(mb[lv], s->nblocks >> lv);
	/* four rows at a time, a lane each (lanes past the last row: no
	 * samples, a share of 0) */
	for (i = 0; i < s->nrows; i += n) {
		n = s->nrows - i < 4 ? s->nrows - i : 4;
		for (j = 0; j < 4; j++)
			pr[j] = j < n ? s->rows.k[i + j] / s->m : 0;
		if (n < 4 || !s->batches4 || s->batches4(s->arg, i, s->nblocks, c) < 0) {
			memset(c, 0, 4 * s->nblocks * sizeof(*c));
			for (j = 0; j < n; j++)
				s->batches(s->arg, i + j, s->nblocks, c + j, 4);
		}
		for (lv = 0, nb = s->nblocks; lv < levels; lv++, nb /= 2) {
			for (b = 0; lv && b < nb; b++)
				batch_pair4(c + 4 * b, c + 8 * b);
			if (lv < from)
				continue;
			batch_sums4(c, mb[lv], nb, pr, s0, s1);
			for (j = 0; j < n; j++) {
				s->rows.batch_v[(i + j) * EQ_BATCH_LEVELS + lv] =
					batch_var_of(s0[j], total[lv], nb);
				t0[lv] += s0[j];
				t1[lv] += s1[j];
			}
		}
	}
}

/* Both design effects of every row (eq_series_intervals in stats.h). */
static void series_deffs(const struct eq_series *s, struct eq_series_out *o)
{
	double mb[EQ_BATCH_LEVELS][EQ_BATCHES_MAX], t0[EQ_BATCH_LEVELS] = { 0 };
	double t1[EQ_BATCH_LEVELS] = { 0 }, r1 = 0, inflate;
	unsigned nb = 0, try, per, b, levels = 0, lv;
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		double k = s->rows.k[i], rho[2], f;
		int lag;

		for (lag = 0; lag < 2; lag++)
			rho[lag] = eq_lag_rho(k, s->m, s->n, s->rows.d[lag][i], lag + 1);
		f = eq_sampling_deff_lags(rho[0], rho[1], s->n);
		s->rows.deff_sampling[i] = eq_small_count_floor(f + o->cv2 * (1 - f), (uint64_t)k,
								 (uint64_t)s->m);
		s->rows.deff_run[i] = 1;
		s->rows.df_run[i] = 0;
	}
	o->batches = 0;
	o->lag1 = 0;
	if (!s->nblocks || !(s->m > 0))
		return;
	for (try = s->nblocks; try >= EQ_BATCHES_MIN && levels < EQ_BATCH_LEVELS; try /= 2) {
		per = s->nblocks / try;
		memset(mb[levels], 0, try * sizeof(*mb[levels]));
		for (b = 0; b < s->nblocks; b++)
			mb[levels][b / per] += s->block_m[b];
		levels++;
	}
	/* The finest batching first: the usual answer; the coarser ones only
	 * when its batches are still correlated. */
	series_levels(s, (const double (*)[EQ_BATCHES_MAX])mb, 0, 1, t0, t1);
	for (lv = 0, try = s->nblocks; lv < levels; lv++, try /= 2) {
		if (lv == 1)
			series_levels(s, (const double (*)[EQ_BATCHES_MAX])mb, 1, levels, t0, t1);
		nb = try;
		r1 = t0[lv] > 0 ? t1[lv] / t0[lv] : 0;
		if (r1 <= -1.0 / try)
			break;
	}
	if (lv == levels)
		lv--;
	o->batches = nb;
	o->lag1 = r1;
	/* Correlation left between the 16 batches (r1 above its -1/B bias):
	 * their mean's variance is larger by about 1 + 2 rho. */
	inflate = 1 + 2 * (r1 + 1.0 / nb > 0 ? r1 + 1.0 / nb : 0);
	for (i = 0; i < s->nrows; i++) {
		double pr = s->rows.k[i] / s->m, v;

		v = s->rows.batch_v[i * EQ_BATCH_LEVELS + lv] * inflate;
		s->rows.deff_run[i] = pr > 0 && pr < 1 && isfinite(v) ? v / (pr * (1 - pr) / s->m) : 1;
		s->rows.deff_run[i] = eq_small_count_floor(s->rows.deff_run[i], (uint64_t)s->rows.k[i],
							   (uint64_t)s->m);
		/* a share of 0 or 1 has no spread to estimate: the binomial floor, normal */
		s->rows.df_run[i] = pr > 0 && pr < 1 ? nb - 1 : 0;
	}
}

unsigned eq_series_nblocks(uint64_t n)
{
	unsigned nb = EQ_BATCHES_MAX;

	while (nb >= EQ_BATCHES_MIN && n / nb < EQ_BATCH_MIN_SAMPLES)
		nb /= 2;
	return nb < EQ_BATCHES_MIN ? 0 : nb;
}

/* The arrays in one block (bigarr: a few faults where there are many rows). */
int eq_series_rows_alloc(struct eq_series_rows *r, size_t nrows)
{
	size_t n = nrows ? nrows : 1, per = (5 + EQ_BATCH_LEVELS) * sizeof(double) + sizeof(unsigned);
	double *v = n <= ((size_t)-1) / per ? eq_big_calloc(n, per) : NULL;

	memset(r, 0, sizeof(*r));
	if (!v)
		return -1;
	r->k = v;
	r->d[0] = v + n;
	r->d[1] = v + 2 * n;
	r->deff_sampling = v + 3 * n;
	r->deff_run = v + 4 * n;
	r->batch_v = v + 5 * n;
	r->df_run = (unsigned *)(v + (5 + EQ_BATCH_LEVELS) * n);
	return 0;
}

void eq_series_rows_free(struct eq_series_rows *r)
{
	eq_big_free(r->k);   /* all of them */
	memset(r, 0, sizeof(*r));
}

void eq_series_intervals(const struct eq_series *s, struct eq_series_out *o)
{
	const struct eq_series_times *t = s->times;

	o->cv2 = 0;
	o->batch_s = 0;
	/* A timer's jitter lets the sample grid drift (a renewal process):
	 * cv^2 of its intervals adds to the rounding of each stretch.  The
	 * board's quantum jitter is bounded: no drift, nothing to add. */
	if (s->timer && t->dt_n > 1 && t->dt_sum > 0) {
		double mean = t->dt_sum / t->dt_n;

		o->cv2 = (t->dt_sum2 / t->dt_n - mean * mean) / (mean * mean);
		o->cv2 = o->cv2 > 0 ? o->cv2 : 0;
	}
	series_deffs(s, o);
	if (o->batches && t->clock_hz > 0 && t->t_last > t->t_first)
		o->batch_s = (double)(t->t_last - t->t_first) / t->clock_hz / o->batches;
}
