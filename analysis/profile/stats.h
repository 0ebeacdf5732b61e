/*
 * stats.h - the statistics behind shares: binomial confidence intervals and
 * the test of whether two shares differ.
 *
 * A share p = k/n of samples estimates the fraction of energy (or time) spent
 * in some code.  Samples are treated as independent Bernoulli trials (seed
 * 001, appendix A.2), so the share's uncertainty is binomial.
 */
#ifndef EQ_STATS_H
#define EQ_STATS_H

#include <stdint.h>

/* z for a two-sided 95% interval. */
#define EQ_Z95 1.959963984540054

/*
 * Wilson score interval of k successes in n trials at normal quantile z:
 * stays inside [0, 1] and is honest for small k (where the plain
 * p +- z*sqrt(p(1-p)/n) interval is not).  n == 0 gives [0, 1].
 */
void eq_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/*
 * Two-proportion z test: are k1/n1 and k2/n2 different at normal quantile z?
 * Uses the pooled standard error.  Returns 1 if significant, 0 if not (also
 * when either n is 0 or both shares are 0 or 1).  *zout gets the statistic.
 */
int eq_two_prop_differ(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
		       double z, double *zout);

#endif
