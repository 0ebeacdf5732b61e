/*
 * view.h - what an `eqprof view` page carries: a recording folded into time
 * buckets, from which any range's numbers are sums (docs/viewer.md).
 *
 * The page never holds the samples.  The run is cut into nb equal buckets
 * of w ticks of the recording's clock (edge k at k x w ticks after the first
 * sample; bucket k holds (edge k, edge k+1], bucket 0 also the first
 * sample), and every bucket keeps:
 *
 *   power   the energy of the intervals' parts inside it (power_range's
 *           proportional rule), the intervals ending in it with their idle
 *           count, lowest and highest power, and their counts per fine log
 *           bin of power (128 a decade, busy and idle); at each edge the
 *           interval it cuts, for the energy bounds of a range;
 *   samples how many, how many idle or after a loss;
 *   profile per grouping (exe, module, proc, line) the samples of each
 *           row and the row's changes between consecutive samples (lags 1
 *           and 2: what the sampling interval of a share needs, profile.h),
 *           and at each edge the rows of the two samples before and after
 *           it, to take out the pairs a range's start cuts; time-driven
 *           recordings also the sums of the gaps between samples (the
 *           timer's jitter);
 *   stacks  per bucket the samples of each call stack (exe, callers...,
 *           procedure), or of each (exe, procedure) without call chains.
 *
 * So a selection snapped to bucket edges gets exactly what `eqprof power
 * --from --to` and `eqprof report --from --to` print for the same edges
 * (docs/viewer.md, "Same numbers").
 */
#ifndef EQ_VIEW_H
#define EQ_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "power/power.h"
#include "symbols/symbolize.h"

/* Groupings of the per-bucket profile; LINE only when asked. */
enum { EQ_VIEW_EXE, EQ_VIEW_MODULE, EQ_VIEW_PROC, EQ_VIEW_LINE, EQ_VIEW_NGROUP };

#define EQ_VIEW_DEFAULT_BUCKETS 16384
#define EQ_VIEW_MAX_BUCKETS (1u << 20)

struct eq_view_opts {
	unsigned buckets;          /* this many buckets at most (0: the default,
				      EQ_VIEW_DEFAULT_BUCKETS, and no finer than
				      about 2 samples a bucket) */
	enum power_basis basis;    /* power --source */
	int lines;                 /* group by source line too (DWARF lines) */
	const char *name;          /* shown for the recording (NULL: its path) */
	uint64_t w_ticks;          /* buckets of exactly this many ticks (0: as
				      buckets says): two recordings on one
				      page share their edges */
};

struct eq_view;

/* Folds f (symbolized by s) into buckets; NULL with err set. */
struct eq_view *eq_view_build(const struct eqp_file *f, struct eq_symbolizer *s,
			      const struct eq_view_opts *o, struct eq_error *err);
void eq_view_free(struct eq_view *v);

/* A few facts, for the command's messages and tests. */
size_t eq_view_nbuckets(const struct eq_view *v);
double eq_view_bucket_s(const struct eq_view *v);
uint64_t eq_view_bucket_ticks(const struct eq_view *v);
double eq_view_clock_hz(const struct eq_view *v);

/* The view as one JSON object (the page's schema: docs/viewer.md). */
int eq_view_write_json(FILE *out, const struct eq_view *v, struct eq_error *err);

/*
 * The page: the viewer's HTML (built by `make viewer`, docs/viewer.md) with
 * the data put in at its placeholder.  data(out, arg) writes the JSON
 * document; characters that could end the script element are escaped by
 * the writers (eq_view_json_string).
 */
int eq_view_write_page(FILE *out, const char *template_path,
		       int (*data)(FILE *out, void *arg, struct eq_error *err), void *arg,
		       struct eq_error *err);
/* The placeholder the page template holds, once. */
#define EQ_VIEW_PLACEHOLDER "\"__EQPROF_VIEW_DATA__\""

/* A JSON string safe inside <script>: '<', '>' and '&' as \u escapes. */
void eq_view_json_string(FILE *out, const char *s);

#endif
