/*
 * regress.h - power per procedure by regression (seed 002): the board's
 * stream gives the exact energy of every interval between quantum edges
 * (or an energy source's readings, that between its updates), time-driven
 * samples say what ran in it; the power of each procedure is the
 * coefficient of its time in a weighted least-squares fit of interval
 * energy on the times of the procedures in the interval.  The board's
 * times reach the samples' clock through eqprof merge's knots or alignment
 * (or the simulator's one clock).
 *
 * Intervals: runs of consecutive quanta whose lengths are primes drawn at
 * random (seed 002's collinearity-aware profiling: no interval length lines
 * up with a periodic pattern of the code).  Time per procedure in interval j
 * of length D_j with n_j samples, c_jp of them in p: D_j c_jp / n_j.
 *
 * Least squares weighted by 1/D_j (the sampling error of a time grows with
 * the interval).  The times are estimates, and errors in the regressors
 * bias least squares toward zero; the fit subtracts their covariance from
 * X'WX.  It is estimated from the data: D = A - B, the times from the
 * even-numbered samples of each interval less those from the odd ones, has
 * E[D'WD] = 4 (2^g - 1) Cov(errors of X) when the error variance grows as
 * (spacing)^g: g = 1 for independent samples, g = 2 for a regular timer
 * (whose halves' errors are anti-correlated); g from the difference of
 * every-4th-sample quarters over D (its expectation is 2^g).  Standard
 * errors by a delete-a-group jackknife over blocks of consecutive
 * intervals; intervals at Student's t.
 * Collinearity: condition number of the weighted, column-scaled design and
 * each coefficient's variance inflation factor, with warnings.
 */
#ifndef EQ_REGRESS_H
#define EQ_REGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "symbols/symbolize.h"
#include "profile/table.h"

struct eq_devmodel;

struct eq_regress_opts {
	unsigned min_prime, max_prime; /* interval lengths in quanta: primes in [min, max] */
	uint64_t seed;                 /* of the random interval lengths */
	double min_share;              /* procedures with less of the samples go to [other] */
	unsigned groups;               /* jackknife groups (0: 20) */
	int plain;                     /* 1: no correction for the times' sampling errors */
	const struct eq_devmodel *models; /* device tail times (else the recording's models) */
	size_t nmodels;
	const char *domain;            /* energy source's domain (name, kind or source); NULL:
					  the board's stream when there is one, else psys,
					  package, or the first domain */
};
void eq_regress_opts_default(struct eq_regress_opts *o);

#define EQ_VIF_WARN 10.0   /* a coefficient with more variance inflation is flagged */
#define EQ_COND_WARN 30.0  /* a design with a larger condition number is flagged */
#define EQ_MIN_COLUMN_SAMPLES 50 /* [other] with fewer samples is not fitted (its intervals left out) */
#define EQ_FLAG_COLLINEAR 0x1 /* VIF above EQ_VIF_WARN (or not finite) */
#define EQ_FLAG_IMPRECISE 0x2 /* the 95% interval reaches zero: not told apart from nothing */

struct eq_regress_row {
	const char *name;        /* procedure, "[idle]", "[other]" */
	const char *module;      /* module basename */
	uint64_t samples;        /* time-driven samples in the fitted intervals */
	double time_share;       /* of the fitted intervals' samples */
	double power_w;          /* the fit (instrumental variables) */
	double se_w;             /* jackknife standard error */
	double ci95_low, ci95_high;
	double other_w;          /* the other fit (plain least squares, or corrected with plain) */
	double vif;              /* variance inflation factor */
	int flagged;             /* EQ_FLAG_*: the coefficient is meaningless */
};

struct eq_regress {
	size_t nrows;
	struct eq_regress_row *rows;   /* most samples first */
	size_t nintervals;             /* intervals fitted */
	uint64_t quanta;               /* board quanta in them */
	uint64_t samples;              /* time-driven samples in them */
	double seconds, energy_j;      /* what they cover */
	double condition;              /* condition number of the scaled design */
	unsigned groups;               /* jackknife groups */
	double eiv_divisor;            /* D'WD / this is the times' error covariance; 0: plain */
	double spacing_ratio;          /* quarters' over halves' difference: 2^g (NaN: unknown) */
	unsigned min_prime, max_prime;
	uint64_t seed;
	uint64_t dropped_intervals;    /* not fitted: no samples, or a board gap */
	char warning[512];             /* "" or what the user must know */
	char energy_from[320];         /* where the intervals' energy came from, for people */
	char unit[96];                 /* what the intervals are counted in ("board quanta") */
	double update_s;               /* energy source: median spacing of its updates; 0: board */
	void *priv_;
};

/*
 * Fits f's procedures' power.  f must hold time-driven samples and the
 * energy of intervals on their clock: a board stream (eqprof sim's
 * time.eqp; eqprof merge --edges, whose knots tie the clocks; or a merge's
 * linear alignment), or an energy source's readings (record -t --energy).
 * The error says what to record when it does not.
 */
struct eq_regress *eq_regress_fit(const struct eqp_file *f, struct eq_symbolizer *s,
				  const struct eq_regress_opts *o, struct eq_error *err);
void eq_regress_free(struct eq_regress *r);
void eq_regress_print(FILE *out, const struct eq_regress *r, const char *source,
		      enum eq_format fmt);

/* ---- the linear algebra, exposed for tests -------------------------------- */

/* Solves A x = b (n x n, row-major, overwritten) by Gaussian elimination with
 * partial pivoting; -1 if singular. */
int eq_linsolve(double *a, double *b, size_t n);
/* Eigenvalues of the symmetric n x n matrix a (overwritten) by Jacobi
 * rotations, into ev (unsorted). */
void eq_sym_eigen(double *a, size_t n, double *ev);

#endif
