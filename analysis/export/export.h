/*
 * export.h - eqprof results in the formats other tools read:
 *
 *   callgrind  callgrind_annotate, KCachegrind: events Energy (nJ) or Time
 *              (ns), and Samples, per instruction and source line
 *   pprof      profile.proto, gzipped: sample types samples/count and
 *              energy/nanojoules (time/nanoseconds for time-driven files)
 *   folded     one "exe;module;proc COUNT" line per stack, for flame graphs
 *   chrome     Chrome trace-event JSON (Perfetto UI, chrome://tracing): a
 *              power counter track and what each CPU was running
 *   csv        every sample, resolved, with its interval's power
 *
 * The exact field mapping of each format is in docs/export.md.
 */
#ifndef EQ_EXPORT_H
#define EQ_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "power/power.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"

enum export_format {
	EXPORT_CALLGRIND,
	EXPORT_PPROF,
	EXPORT_FOLDED,
	EXPORT_CHROME,
	EXPORT_CSV,
};

int export_format_parse(const char *text, enum export_format *f, struct eq_error *err);

struct export_ctx {
	const struct eqp_file *f;
	struct eq_symbolizer *sym;
	struct power_input in;     /* time order, and the power intervals */
	int exclude_idle;
	enum eqp_mode mode;
	uint64_t unit_per_sample;  /* nJ per energy sample, or ns per time sample */
	const char *unit_event;    /* "Energy" or "Time" */
	const char *unit_name;     /* "nanojoules" or "nanoseconds" */
	const char *creator;       /* "eqprof 0.1" */
	eq_progress_fn *progress;  /* NULL, or called as samples are written */
	void *progress_arg;
	uint64_t progress_done, progress_total;
};

/* One sample visited: tells progress every 65536 samples. */
static inline void export_tick(struct export_ctx *x)
{
	if (x->progress && (++x->progress_done & 0xffff) == 0)
		x->progress(x->progress_done, x->progress_total, x->progress_arg);
}

int export_ctx_init(struct export_ctx *x, const struct eqp_file *f,
		    struct eq_symbolizer *sym, int exclude_idle,
		    const char *creator, struct eq_error *err);
void export_ctx_free(struct export_ctx *x);

/* Writes the whole export into out (an eq_outfile's stream). */
int export_write(FILE *out, enum export_format fmt, struct export_ctx *x,
		 struct eq_error *err);

/* ---- shared by the formats (export.c) ---------------------------------- */

/* Distinct locations with their sample counts. */
struct loc_count {
	const struct eq_loc *loc;
	uint64_t samples;
	uint64_t seen;  /* distinct locations met before this one */
};

/* Every sample looked up once, counted per location (idle excluded if
 * asked), sorted by module, file, proc, offset.  *out is malloc'd. */
int export_count_locs(struct export_ctx *x, struct loc_count **out, size_t *n,
		      uint64_t *total, struct eq_error *err);

/* export_count_locs's order, for qsort: module, file, proc, offset, pid,
 * then exe, pc and the order first met (one pid's address spaces around
 * an exec are two locations at one file offset), so that it is the same
 * in every run. */
int export_loc_count_cmp(const void *a, const void *b);

/* Every distinct frame of the stacks, sorted as export_count_locs sorts
 * (samples: how many distinct stack frames it is, not meaningful). */
struct eq_stacks;
int export_stack_locs(const struct eq_stacks *st, struct loc_count **out, size_t *n,
		      struct eq_error *err);

/* Chunk *c and index *i of sample s of the input (the time-order iterator
 * gives pointers); *c is where to look first.  0, or -1 if not found. */
int export_find_sample(const struct power_input *in, const struct eq_sample *s, size_t *c,
		       size_t *i);

/* v rounded to a whole number for the formats' integer fields: 0 for NaN or
 * v <= 0, UINT64_MAX past the range (a cast would be undefined: a target
 * clock of 1e-300 Hz makes spans infinite). */
uint64_t export_u64(double v);

/* Names the formats print for a location ("[unknown]" and friends). */
const char *export_proc_name(const struct eq_loc *l);
const char *export_file_name(const struct eq_loc *l);

int export_callgrind(FILE *out, struct export_ctx *x, struct eq_error *err);
int export_pprof(FILE *out, struct export_ctx *x, struct eq_error *err);
int export_folded(FILE *out, struct export_ctx *x, struct eq_error *err);
int export_chrome(FILE *out, struct export_ctx *x, struct eq_error *err);
int export_csv(FILE *out, struct export_ctx *x, struct eq_error *err);

#endif
