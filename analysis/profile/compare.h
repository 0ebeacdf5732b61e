/*
 * compare.h - a time profile and an energy profile of the same work side by
 * side (seed 001, Figure 12): per row the time share, the energy share, their
 * difference (energy - time) and whether it is significant at 95%.  Rows are
 * ordered by time share, most first.
 *
 * The test is the pooled two-proportion score test with each profile's
 * design effect (stats.h, eq_shares_differ): run-to-run ones for recordings
 * of two separate runs (the usual case: a time-driven and an energy-driven
 * run of the same work), sampling ones for two samplings of one run (the
 * simulator's pair), where only the sampling errors differ.
 */
#ifndef EQ_COMPARE_H
#define EQ_COMPARE_H

#include <stdio.h>

#include "profile/profile.h"
#include "profile/table.h"

/* Rows paired across profiles by (name, module): the order, a profile's
 * rows in it (malloc'd; free it), and a row's design effect and degrees of
 * freedom under iv (a missing row, NULL, has the binomial's: 1, df 0).
 * compare and diff share them. */
int eq_row_by_name(const void *x, const void *y);
const struct eq_row **eq_rows_by_name(const struct eq_profile *p);
double eq_row_deff(const struct eq_row *r, enum eq_interval iv, unsigned *df);

struct eq_cmp_row {
	const char *name, *module;
	uint64_t time_samples, energy_samples;
	double time_share, energy_share;
	double difference;    /* energy_share - time_share */
	double z;             /* two-proportion score statistic */
	int significant;      /* |z| above the 95% quantile (normal or Welch t) */
	double power_w;       /* average power while in this row; NAN if unknown */
	const char *const *fields; /* with sort keys: each key's value (eq_row.fields) */
	double energy_j;      /* energy samples x the energy file's quantum; NAN if unknown */
	double *source_j;     /* per energy-source domain of the time recording
				 (record -t --energy): the row's joules; NAN: no row */
};

#define EQ_CMP_MAX_DOMAINS 8

struct eq_comparison {
	enum eq_by by;
	struct eq_keys keys;  /* --sort: rows by these keys (keys.n == 0: by `by`) */
	int filtered, filter_relative; /* --comm/--dso/--symbol, as eq_profile's */
	uint64_t time_filtered, energy_filtered; /* samples the filters left out */
	int exclude_idle;
	const char *time_source, *energy_source;
	uint64_t time_total, energy_total;
	struct eqp_skipped time_skipped, energy_skipped; /* what each reader could not use */
	size_t nrows;
	struct eq_cmp_row *rows;
	int has_power;        /* power_w was filled in (eq_comparison_set_power) */
	int has_energy_j;     /* energy_j was filled in (the quantum is known) */
	size_t ndomains;      /* energy-source domains of the time recording */
	const char *domain[EQ_CMP_MAX_DOMAINS]; /* their names ("package-0") */
	double *source_j_;    /* nrows x ndomains */
	enum eq_interval interval; /* whose variances the test used */
	unsigned time_runs, energy_runs; /* recordings pooled on each side (1: one) */
};

/* Joins the rows of t and e by (name, module) and tests each with the
 * design effects of interval iv; NULL if out of memory.  The comparison
 * points into t and e, which must outlive it. */
struct eq_comparison *eq_compare(const struct eq_profile *t, const struct eq_profile *e,
				 const char *time_source, const char *energy_source,
				 enum eq_interval iv);
void eq_comparison_free(struct eq_comparison *c);

/* Rows print their average power once eq_comparison_set_power (power.h)
 * has filled it. */

/* Every row's joules from the energy file's quantum (J per sample). */
void eq_comparison_set_quantum(struct eq_comparison *c, double quantum_j);
/* Adds an energy-source domain of the time recording (record -t --energy):
 * joules(arg, name, module) gives a row's joules, or NAN when it has none
 * there.  -1 when out of memory or more than EQ_CMP_MAX_DOMAINS. */
int eq_comparison_add_domain(struct eq_comparison *c, const char *domain,
			     double (*joules)(const void *arg, const char *name, const char *module),
			     const void *arg);

void eq_comparison_print(FILE *out, const struct eq_comparison *c, enum eq_format fmt);

#endif
