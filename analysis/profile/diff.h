/*
 * diff.h - did my change save energy?  Two sets of recordings of the same
 * work, before (A) and after (B) a change, compared row by row: each row's
 * energy per run (or time per run for time-driven recordings) on both
 * sides, the change B - A with its 95% interval, and whether it is
 * significant; and the same for the run's total.
 *
 * Per side, with R recordings: the energy of a run E is the mean of the
 * recordings' totals (samples x quantum); a row's share p is its pooled
 * share (eq_profile_pool); its energy per run a = E p.  The change of a row,
 * d = a_B - a_A, has the variance
 *
 *     var(d) = sum over sides  E^2 p0 (1 - p0) deff / n  +  p^2 var(E)
 *
 * with n the side's pooled samples, p0 = (k_A + k_B) / (n_A + n_B) the
 * share both sides would have if the row did not change (the pooled score
 * form of eq_shares_differ, which also gives rows absent from one side a
 * variance), deff the row's run-to-run design effect (stats.h: the spread
 * of the recordings' shares with R - 1 degrees of freedom, or with one
 * recording batch means over its time blocks) and var(E) = s_E^2 / R, the
 * spread of the recordings' totals (0 with one recording a side: the
 * totals' run-to-run spread is then unknown and the header says so).  t =
 * d / sqrt(var(d)) is referred to Student's t at the Welch-Satterthwaite
 * degrees of freedom of the parts; its two-sided p-value flags the row
 * either per row at 95% or (the default) family-wise: Holm's procedure over
 * every row at 5%, so that identical work flags no row at all in 95% of
 * diffs.  The total's change E_B - E_A has the interval of the spread of
 * the totals (Welch), when both sides have two recordings or more.
 *
 * Each row also carries the plain share test (eq_shares_differ with the
 * same design effects): did the row's share of the run change?
 */
#ifndef EQ_DIFF_H
#define EQ_DIFF_H

#include <stdio.h>

#include "profile/profile.h"
#include "profile/table.h"

struct eq_diff_row {
	const char *name, *module;
	const char *const *fields;  /* sort keys' values (keys.n of them) */
	uint64_t samples_a, samples_b; /* pooled over the side's recordings */
	double share_a, share_b;
	double amount_a, amount_b;  /* J (or s) per run */
	double change;              /* amount_b - amount_a */
	double change_low, change_high; /* its 95% interval */
	double relative;            /* change / amount_a (NaN when amount_a is 0) */
	double t, df, p;            /* the test of change (df 0: normal) */
	int significant;            /* flagged (family-wise or per row, see eq_diff) */
	double share_z;             /* eq_shares_differ's statistic */
	int share_significant;      /* ... and its verdict at 95% */
};

struct eq_diff {
	enum eq_by by;
	struct eq_keys keys;
	enum eqp_mode mode;
	int exclude_idle;
	enum eq_interval interval;  /* design effects used (run-to-run unless asked) */
	int per_row;                /* 1: each row at 95%; 0: Holm, family-wise 5% */
	unsigned runs_a, runs_b;
	double total_a, total_b;    /* J (or s) per run: mean of the recordings' totals */
	double sd_a, sd_b;          /* their spread (SD across recordings; NaN with one) */
	double change, change_low, change_high, change_df, change_p; /* total; CI NaN
				       when a side has one recording */
	int change_known;           /* both sides have >= 2 recordings */
	int change_significant;
	size_t nrows, nflagged;
	struct eq_diff_row *rows;   /* by |change|, largest first */
};

/*
 * Builds the diff of two sides, each given as its recordings' profiles
 * (same mode, granularity and idle handling; shares computed with design
 * effects of interval iv) and the pooled profile of them (the profile itself
 * when there is one).  Every profile must outlive the diff.  Returns NULL
 * with err set if out of memory or the amounts are unknown.
 */
struct eq_diff *eq_diff_build(struct eq_profile *const *a, size_t na, const struct eq_profile *pa,
			      struct eq_profile *const *b, size_t nb, const struct eq_profile *pb,
			      enum eq_interval iv, int per_row, struct eq_error *err);
void eq_diff_free(struct eq_diff *d);

/* sources: a heading naming both sides' recordings. */
void eq_diff_print(FILE *out, const struct eq_diff *d, enum eq_format fmt,
		   const char *source_a, const char *source_b, double percent_limit);

#endif
