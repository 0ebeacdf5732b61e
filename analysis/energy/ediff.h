/*
 * ediff.h - `eqprof diff` in joules: recordings read with an energy source
 * (record -t --energy, eprofile.h) before (A) and after (B) a change.
 *
 * For each domain in every recording and each row (exe, module, proc or
 * line), a side's value is the mean of its runs' joules (0 in a run where
 * the row has none); the change B - A gets a 95% interval from the spread
 * of the runs on a side with several (the variance of the mean, s^2/n, n-1
 * degrees of freedom) or, on a side with one run, that run's sampling SD
 * (eprofile's binomial, normal), combined by Welch-Satterthwaite.  Each row
 * is tested at 95% on its own.  The source's update granularity (a bound,
 * eprofile.h) is not in the interval: with a coarse gauge, give each side
 * several runs.
 */
#ifndef EQ_EDIFF_H
#define EQ_EDIFF_H

#include <stdio.h>

#include "energy/eprofile.h"

struct ep_diff_row {
	const char *name, *module;   /* point into the profiles */
	double a, b, change;         /* J per run */
	double ci95_low, ci95_high;  /* NaN when neither side has an error to give */
	double df;                   /* Welch's degrees of freedom; 0: normal */
	int significant;
};

struct ep_diff_domain {
	char name[64], spec[160];
	size_t nrows;
	struct ep_diff_row *rows;    /* by |change|, largest first */
};

struct ep_diff {
	enum eq_by by;
	unsigned runs_a, runs_b;
	size_t ndomains;             /* the domains every recording has */
	struct ep_diff_domain *domains;
};

/* The profiles (ep_build, one per recording) must outlive the result. */
struct ep_diff *ep_diff_build(struct ep_profile *const *a, size_t na, struct ep_profile *const *b,
			      size_t nb, struct eq_error *err);
void ep_diff_free(struct ep_diff *d);
void ep_diff_print_table(FILE *out, const struct ep_diff *d, double percent_limit);
/* {"by", "runs_a", "runs_b", "domains": [{"domain", "source", "rows": [{"name",
 * "module", "a_j", "b_j", "change_j", "ci95_low_j", "ci95_high_j", "df",
 * "significant"}]}]} */
void ep_diff_print_json(FILE *out, const struct ep_diff *d);

#endif
