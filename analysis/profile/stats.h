/*
 * stats.h - the statistics behind shares: two intervals that answer two
 * questions, and the test of whether two shares differ.
 *
 * A share p = k/m of samples estimates the fraction of energy (or time)
 * spent in some code.  Two different questions are asked of it
 * (docs/guide.md, "Intervals"):
 *
 *   sampling    How much of THIS run's energy went to f?  The error is the
 *               sampling error only.  Energy-driven samples (one per quantum,
 *               jitter with bounded drift) and jittered-timer samples are
 *               systematic samples, whose error is smaller than the binomial
 *               one whenever the code runs in stretches longer than a sample
 *               interval.
 *   run-to-run  How much would ANOTHER run of the same work give?  The error
 *               adds the run's own variation (bursts, phases, the luck of
 *               the scheduler), usually larger than the binomial one.
 *
 * Both are reported as Wilson score intervals at an effective sample size
 * m / deff, where the design effect deff is the estimated variance over the
 * binomial p(1-p)/m.  Wilson's score form keeps the interval inside [0, 1]
 * and lets the variance follow the share (honest for small shares).
 */
#ifndef EQ_STATS_H
#define EQ_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"

/* z for a two-sided 95% interval. */
#define EQ_Z95 1.959963984540054

/* Below this many samples in a row (or outside it) the estimated design
 * effect is not trusted and the plain binomial (Wilson) interval is the
 * floor: deff >= 1. */
#define EQ_SMALL_COUNT 10

enum eq_interval {
	EQ_IV_SAMPLING,    /* this run's share: systematic-sampling variance */
	EQ_IV_RUN,         /* another run's: batch means, or several recordings */
};

/* Samples per batch of the batch means, at least; batches 16..128. */
#define EQ_BATCH_MIN_SAMPLES 8
#define EQ_BATCHES_MIN 16
#define EQ_BATCHES_MAX 128
/* Batchings tried: 128, 64, 32 and 16 batches. */
#define EQ_BATCH_LEVELS 4
/* Lag-1 correlation of the batch means above which the run-to-run
 * interval is flagged: the work changes more slowly than a batch, and the
 * interval errs, one way or the other (table.c says which, and by how
 * much at most). */
#define EQ_BATCH_LAG1_WARN 0.3

/* The floor of a design effect where a row holds (or leaves out) fewer
 * than EQ_SMALL_COUNT of m samples: 1, the binomial. */
double eq_small_count_floor(double deff, uint64_t k, uint64_t m);

/*
 * ---- the two intervals of rows over a time-ordered series of samples ----
 *
 * Profiles (eq_profile_build) and call graphs (inclusive shares) make rows
 * over the same time-ordered samples and estimate both intervals of every
 * row the same way, here.
 */

/* The times of the series: its span and the spread of the intervals
 * between samples (not across a loss), one sample at a time (inline: the
 * profile's loop over every sample calls it). */
struct eq_series_times {
	double clock_hz;
	uint64_t t_first, t_last;
	double dt_n, dt_sum, dt_sum2;
	int started;
};

/* ... a sample after the first */
static inline void eq_series_dt(struct eq_series_times *t, uint64_t time, int after_loss)
{
	if (!after_loss && time >= t->t_last) {
		double dt = (double)(time - t->t_last);

		t->dt_n++;
		t->dt_sum += dt;
		t->dt_sum2 += dt * dt;
	}
	t->t_last = time;
}

static inline void eq_series_time(struct eq_series_times *t, uint64_t time, int after_loss)
{
	if (__builtin_expect(!t->started, 0)) {
		t->t_first = time;
		t->t_last = time;
		t->started = 1;
	} else {
		eq_series_dt(t, time, after_loss);
	}
}

/* Blocks of consecutive samples for batch means over n samples: a power
 * of two from EQ_BATCHES_MIN to EQ_BATCHES_MAX with at least
 * EQ_BATCH_MIN_SAMPLES each, or 0: too few samples. */
unsigned eq_series_nblocks(uint64_t n);

/* Per-row arrays: k and d filled by the caller, the rest by
 * eq_series_intervals. */
struct eq_series_rows {
	double *k;                        /* samples in the row */
	double *d[2];                     /* see eq_series below */
	double *deff_sampling, *deff_run; /* the two design effects */
	unsigned *df_run;                 /* run-to-run degrees of freedom */
	double *batch_v;                  /* scratch: EQ_BATCH_LEVELS batch variances a row */
};
/* Zeroed arrays for nrows rows (at least one); -1 if out of memory. */
int eq_series_rows_alloc(struct eq_series_rows *r, size_t nrows);
void eq_series_rows_free(struct eq_series_rows *r);

/*
 * The rows of a series: n samples in the series, m of them counted in the
 * shares; row i has k[i] samples and d[lag][i] = sum over sample pairs
 * lag + 1 apart of the squared difference of its linearized indicator
 * (eq_lag_rho); nblocks (eq_series_nblocks, or 0) equal blocks of
 * consecutive samples with block_m[b] counted samples each, and
 * batches(arg, i, nblocks, c, stride) adds row i's count in each block,
 * block b's to c[b * stride] (zero before; eq_series_intervals asks once a
 * row, four rows side by side, and adds neighbours for the coarser
 * batchings: the counts must be whole numbers below 2^53, whose sums are
 * exact in any order).
 * timer: time-driven samples, whose timer jitter (the intervals' cv^2 from
 * times) adds to the sampling variance.
 */
struct eq_series {
	double m, n;
	int timer;
	const struct eq_series_times *times;
	unsigned nblocks;
	const double *block_m;
	size_t nrows;
	struct eq_series_rows rows;
	void (*batches)(void *arg, size_t i, unsigned nblocks, double *c, size_t stride);
	/* optional: rows i to i + 3 as batches(.., nblocks, c + j, 4) would
	 * give them, in one call, into c as it was (not zero); -1 when it
	 * cannot (then batches) */
	int (*batches4)(void *arg, size_t i, unsigned nblocks, double *c);
	void *arg;
};
struct eq_series_out {
	unsigned batches;  /* 0: no batch means (deff_run 1) */
	double lag1;       /* pooled lag-1 correlation of the batch means */
	double cv2;        /* the timer jitter's cv^2 (0: energy-driven) */
	double batch_s;    /* seconds per batch (0: unknown) */
};
/*
 * Both design effects of every row into s->rows.  Sampling: the telegraph
 * model at the lag-1 correlation of the row's linearized indicator.  Run to
 * run: batch means with the finest batching (128, 64, 32 or 16 batches)
 * whose pooled lag-1 correlation shows no positive correlation left (r1
 * <= -1/B, the estimator's own bias when the batches are independent);
 * else 16 batches, and lag1 tells how far from independent they are.
 */
void eq_series_intervals(const struct eq_series *s, struct eq_series_out *o);

/* "sampling", "run-to-run" -> *iv; else an error naming them. */
int eq_interval_parse(const char *text, enum eq_interval *iv, struct eq_error *err);
const char *eq_interval_name(enum eq_interval iv);

/*
 * Wilson score interval of k successes in n trials at normal quantile z:
 * stays inside [0, 1] and is honest for small k (where the plain
 * p +- z*sqrt(p(1-p)/n) interval is not).  n == 0 gives [0, 1].
 */
void eq_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/* The same for share p at a (real) effective sample size n_eff = m / deff:
 * infinite n_eff gives [p, p]; n_eff <= 0 gives [0, 1]. */
void eq_wilson_eff(double p, double n_eff, double z, double *lo, double *hi);

/* Two-sided 95% quantile of Student's t with df degrees of freedom
 * (df == 0: the normal's 1.96). */
double eq_t95(unsigned df);

/*
 * Design effect of systematic sampling for a stationary on/off process
 * whose samples have lag-1 autocorrelation rho (the telegraph model: an
 * exponential autocovariance R(h) = R(0) exp(-|h|/tau), rho = exp(-Q/tau)
 * at the sample spacing Q).  The error of a systematic sample mean against
 * the realized mean has variance n [sum_j R(jQ) - (1/Q) int R(h) dh], which
 * for this R is R(0) [coth(a) - 1/a] per sample, a = Q / (2 tau) =
 * -ln(rho) / 2.  So deff = coth(a) - 1/a: 1 for independent samples
 * (rho = 0; also returned for rho < 0), about (1 - rho) / 6 for long
 * stretches (rho near 1: one sixth of a sample's variance per stretch
 * boundary pair), 0 at rho = 1.
 */
double eq_sampling_deff(double rho);

/*
 * The design effect eqprof uses, from the lag-1 and lag-2 autocorrelations
 * of n samples:
 *   - rho1 <= 1/sqrt(n) (its standard error when the samples are
 *     independent): 1, no sign of correlation: the binomial;
 *   - rho1 below 3/sqrt(n) cannot tell how far below a sample interval the
 *     correlation fades: the telegraph value at 3/sqrt(n), interpolated
 *     linearly to 1 at 1/sqrt(n);
 *   - rho2 also above the noise level and above rho1^2 (the correlation
 *     fades fast at first, then slowly: code alternating within bursts):
 *     a white part ("nugget") plus an exponential fitted to both lags,
 *     nu = 1 - rho1^2/rho2 of the variance white, the rest decaying by
 *     rho2/rho1 per sample: deff = nu + (1 - nu) eq_sampling_deff(rho2/rho1);
 *   - else the telegraph value eq_sampling_deff(rho1).
 */
double eq_sampling_deff_lags(double rho1, double rho2, double n);

/*
 * Lag-L autocorrelation of a share's linearized indicator series, from the
 * counts one pass over the time-ordered samples gives: k samples in the
 * row, m samples counted in the shares (m < n when idle is excluded), n
 * samples in the series, and d = sum over samples L apart of
 * (z_i - z_{i-L})^2 with z_i = [sample i in row] - p [sample i counted],
 * p = k/m.  With z's mean 0: R(0) = k(1-p)/n, R(L) = R(0) - d/(2(n-L)).
 */
double eq_lag_rho(double k, double m, double n, double d, unsigned lag);

/*
 * Batch means of a share (the ratio estimator p = sum c_b / sum m_b over B
 * batches of consecutive samples): residuals r_b = c_b - p m_b, variance of
 * p = B/(B-1) sum r_b^2 / M^2 with M = sum m_b.  Returns that variance;
 * *s0 gets sum r_b^2 and *s1 sum r_b r_{b-1} (for the lag-1 check).
 */
double eq_batch_var(const double *c, const double *mb, unsigned nb, double p,
		    double *s0, double *s1);

/*
 * Do shares k1/n1 and k2/n2 differ at 95%?  Pooled score test with design
 * effects (Rao-Scott): z = (p1 - p2) / sqrt(pool (1 - pool) (deff1/n1 +
 * deff2/n2)), against Student's t at the Welch-Satterthwaite degrees of
 * freedom from df1, df2 (0 = known variance: the normal).  deff 1 and df 0
 * on both sides is the classic two-proportion z test.  Returns 1 if
 * significant, 0 if not (also when either n is 0 or both shares are 0 or
 * 1).  *zout gets the statistic.
 */
int eq_shares_differ(double k1, double n1, double deff1, unsigned df1,
		     double k2, double n2, double deff2, unsigned df2, double *zout);

/*
 * Two-sided p-value of a statistic t against Student's t with df degrees of
 * freedom (df <= 0 or infinite: the normal): P(|T| >= |t|), through the
 * regularized incomplete beta function I_{df/(df+t^2)}(df/2, 1/2).
 */
double eq_t_pvalue(double t, double df);

/* Holm's step-down procedure at family-wise level alpha over n p-values:
 * sig[i] = 1 for those rejected (no false rejection among all n with
 * probability >= 1 - alpha, whatever their dependence). */
void eq_holm(const double *p, size_t n, double alpha, int *sig);

/* The classic two-proportion z test (binomial samples) at quantile z. */
int eq_two_prop_differ(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
		       double z, double *zout);

#endif
