/*
 * eprofile.h - joules per procedure (or executable, module, line) from a
 * time-driven recording whose energy source was read alongside the samples
 * (`eqprof record -t --energy SOURCE`; ESRC and ERDG chunks).
 *
 * The readings cut the recording into intervals [b_k, b_k+1).  Interval k
 * used E_k = e(b_k+1) - e(b_k) joules (es_energy_at(): the best estimate
 * between the source's updates) and holds n_k samples, c_kp of them in row
 * p.  Its energy is charged to its samples in proportion (a ratio
 * estimator, interval by interval):
 *
 *     J_p = sum_k E_k c_kp / n_k
 *
 * Energy of intervals without a sample (the command slept, waited, or was
 * not running) is not anyone's: it goes to the row "[no samples]".  The
 * rows and "[no samples]" add up to the energy between the first and the
 * last reading.
 *
 * Two errors, both in the interval (docs/energy-sources.md, "Energy per
 * procedure"):
 *   sampling     which samples fell in an interval: binomial within each
 *                interval, var J_p = sum_k E_k^2 f(1-f)/n_k with f shrunk
 *                towards 1/2 ((c+1/2)/(n+1)) so that an interval of few
 *                samples is not taken as certain; a 95% half-width of
 *                1.96 sd;
 *   granularity  the source shows a new value only every update period U,
 *                so e(b_k) is known only within [lo_k, hi_k]; J_p moves by
 *                (e_true(b_k) - e(b_k)) (f_k-1,p - f_k,p) at each
 *                boundary: the worst case of that over every boundary is
 *                added to the interval on each side (not statistical: a
 *                bound).
 * What neither covers, and the docs say: power that changes within an
 * interval together with the code (an interval that holds two phases of
 * different power splits its energy by time, not by power), and energy of
 * other processes in a shared domain (a package's RAPL counter on a busy
 * machine).
 */
#ifndef EQ_EPROFILE_H
#define EQ_EPROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"

struct ep_row {
	const char *name;        /* as report's rows: proc, exe, module, file:line */
	const char *module;      /* module basename ("" for "[no samples]") */
	uint64_t samples;
	double joules;           /* estimate (runs pooled: the mean per run) */
	double sd;               /* sampling standard deviation, J (pooled: the
				    run-to-run SD of the per-run values) */
	double gran_lo, gran_hi; /* granularity: truth - estimate lies in
				    [gran_lo, gran_hi] (<= 0, >= 0; hi may be
				    +inf: the source had not updated again) */
	double ci95_low, ci95_high;
	int unsampled;           /* the "[no samples]" row */
	/* ep_build_children: the procedure and everything it called (the
	   samples whose stack holds it, recursion once), as the fields above */
	uint64_t children_samples;
	double children_j, children_sd, children_lo, children_hi, children_glo, children_ghi;
};

struct ep_domain {
	char spec[160], name[64], kind[16];
	int type;                /* es_type */
	double update_s;         /* the period the bounds use (nominal, else detected) */
	char update_how[64];
	size_t readings, intervals, sampled_intervals;
	double span_s;           /* first to last reading */
	double first_s, last_s;  /* their times on the samples' clock, s */
	double mean_interval_s, max_sampled_interval_s;
	double total_j, total_lo, total_hi; /* first to last reading, bounds */
	double charged_j;        /* to samples (rows without "[no samples]") */
	uint64_t samples, samples_outside; /* charged; before the first or after the last reading */
	size_t nrows;
	struct ep_row *rows;     /* joules, most first; "[no samples]" last */
	unsigned runs;           /* recordings pooled (1: one) */
	int coarse;              /* updates much slower than the readings: biased */
	int shared;              /* a domain that also powers other code (package, psys,
				    battery, board): biased on a busy machine */
};

struct ep_profile {
	enum eq_by by;
	int children;            /* rows carry children_* (ep_build_children) */
	size_t ndomains;
	struct ep_domain *domains;
	struct eq_intern *strings_;
	int own_strings_;
};

/* 1 when f has energy readings (record --energy). */
int ep_has_energy(const struct eqp_file *f);
/*
 * Joules per row of every domain of f, at by (exe, module, proc or line);
 * idle samples are rows of their own ([idle]); exclude_idle leaves them out
 * of the rows (their energy is still charged to them, not to others).
 */
struct ep_profile *ep_build(const struct eqp_file *f, struct eq_symbolizer *s, enum eq_by by,
			    int exclude_idle, struct eq_error *err);
/*
 * A recording with call stacks (record -g or --call-graph dwarf): joules per
 * procedure, by proc, alone (the fields of ep_build) and with everything it
 * called (children_*): interval k's energy is charged to each procedure on
 * a sample's stack in proportion to the samples of k whose stack holds it,
 * J_p = sum_k E_k c_kp / n_k with c_kp now counting those samples, and the
 * same two errors (binomial within each interval, the source's update
 * granularity).  Rows ordered by children joules, most first.
 */
struct ep_profile *ep_build_children(const struct eqp_file *f, struct eq_symbolizer *s,
				     int exclude_idle, struct eq_error *err);
/*
 * Several recordings of the same work: per row and domain, the mean of the
 * per-run joules (a row missing from a run counts 0 J there) with the
 * run-to-run SD and the 95% interval of the mean (Student's t); domains
 * are matched by name and must be in every recording.
 */
struct ep_profile *ep_pool(struct ep_profile *const *p, size_t n, struct eq_error *err);
void ep_free(struct ep_profile *p);

/* The table report prints after the time profile. */
void ep_print_table(FILE *out, const struct ep_profile *p, double percent_limit);
void ep_print_csv(FILE *out, const struct ep_profile *p);
/* A JSON object: {"by": ..., "domains": [...]} (docs/energy-sources.md). */
void ep_print_json(FILE *out, const struct ep_profile *p);

#endif
