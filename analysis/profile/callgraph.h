/*
 * callgraph.h - call stacks of a recording: inclusive ("children") and
 * exclusive ("self") energy per procedure, the call paths to a procedure,
 * and the stacks of a flame graph.
 *
 * A sample's stack is its own pc (the leaf) followed by its callers' return
 * addresses (eqp_sample_callchain), each located by the symbolizer; a
 * return address is looked up at address - 1 so that it falls inside the
 * call instruction, not on the instruction after it (which may be the next
 * function).  Identical stacks are counted once with their number of
 * samples, so memory follows the number of distinct stacks.
 *
 * A procedure's children count is the number of samples whose stack holds
 * it at least once (recursion counts once), its self count the number whose
 * leaf it is: the energy spent in it and in everything it called, and in it
 * alone.  Procedures are (name, module) pairs; unresolved frames are
 * "[unknown]" per module.
 */
#ifndef EQ_CALLGRAPH_H
#define EQ_CALLGRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"
#include "profile/table.h"

struct eq_stack {
	uint64_t samples;
	size_t depth;                 /* frames, >= 1 */
	const struct eq_loc **frames; /* leaf first, then callers outwards */
};

struct eq_stacks {
	enum eqp_mode mode;
	double per_sample;            /* J or s per sample, 0 if unknown */
	uint64_t total_samples;       /* samples counted (idle removed if asked) */
	uint64_t with_chain;          /* samples that had a call chain */
	const char *note;             /* the recording's "note" header line, or NULL */
	int fp_chains;                /* chains from frame pointers (record -g) */
	uint64_t busy, unchained;     /* samples not idle, and of those without a chain */
	uint64_t cut_stacks;          /* --call-graph dwarf: stacks whose unwinding
					 stopped at the copy's end (callers cut off) */
	unsigned copy_size;           /* ... the copy's size (header call_graph=dwarf,N) */
	size_t nstacks;
	struct eq_stack *stacks;      /* most samples first */
	void *priv_;
};

/*
 * Raw call chains interned: a key of two head words and n frame words
 * (for a sample: its leaf's location, its address space and the chain's
 * kernel/user split, then the return addresses as recorded) gets a dense
 * id, 0, 1, ... in order of first sight, so that a chain seen before costs
 * a hash and one comparison, not a symbol lookup per frame.  The hash is
 * the caller's (eq_chain_hash, or any function of the key: keys that
 * collide are told apart by comparing them whole).
 */
struct eq_chain_set {
	struct eq_chain_slot *slots;  /* open addressing; NULL until the first key */
	size_t mask, count;
	uint64_t *pool;               /* every key's words, one after the other */
	size_t npool, cap;
};
uint64_t eq_chain_hash(const uint64_t head[2], const uint64_t *w, size_t n);
/* The key's id, *fresh = 1 when it was not seen before; -1 when out of memory. */
long eq_chain_set_id(struct eq_chain_set *cs, uint64_t hash, const uint64_t head[2],
		     const uint64_t *w, size_t n, int *fresh);
void eq_chain_set_free(struct eq_chain_set *cs);

/* flags: EQ_PROFILE_EXCLUDE_IDLE */
struct eq_stacks *eq_stacks_build(const struct eqp_file *f, struct eq_symbolizer *s,
				  unsigned flags, struct eq_error *err);
/* The same over the samples of a --from/--to range only (range.h; NULL:
 * every sample). */
struct eq_stacks *eq_stacks_build_range(const struct eqp_file *f, struct eq_symbolizer *s,
					unsigned flags, const struct eq_range *range,
					struct eq_error *err);
void eq_stacks_free(struct eq_stacks *st);

/* The located frames of sample i of sample chunk c (smp: that sample): the
 * leaf first, then its callers; frames must hold 1 + 2 * EQP_MAX_CHAIN_FRAMES.
 * Returns the depth; *had_chain = 1 when the sample has a call chain. */
size_t eq_sample_frames(const struct eqp_file *f, struct eq_symbolizer *s, size_t c, size_t i,
			const struct eq_sample *smp, const struct eq_loc **frames, int *had_chain);

/* Folded stacks ("frame;frame;... COUNT" lines), one writer for export
 * and the call graph: eq_folded_put appends a frame to a growing key with
 * the one escaping rule (';' becomes ':', a newline a space), after a ';'
 * when sep; -1 when out of memory.  eq_folded_write sorts the keys, writes
 * each distinct one once with its summed samples and frees fo and its keys. */
struct eq_folded {
	char *key;
	uint64_t samples;
};
int eq_folded_put(char **key, size_t *len, size_t *cap, const char *name, int sep);
int eq_folded_write(FILE *out, struct eq_folded *fo, size_t n, struct eq_error *err);
void eq_folded_free(struct eq_folded *fo, size_t n);

/* A frame's name in folded stacks: the procedure, else "[module]" (perf's
 * habit), else "[unknown]"; buf may hold it. */
const char *eq_folded_frame_name(const struct eq_loc *l, char *buf, size_t n);

/* Name of a frame as reports print it ("[unknown]" for an unresolved pc). */
const char *eq_frame_name(const struct eq_loc *l);

/* One row of the inclusive profile. */
struct eq_cg_row {
	const char *name, *module;    /* module basename */
	uint64_t self, children;      /* samples */
	double self_share, children_share;
	double ci95_low, ci95_high;   /* 95% interval of children_share (the
					 callgraph's interval) */
	double deff_sampling;         /* design effects of children_share, as for */
	double deff_run;              /* flat rows (profile.h): this run's share, */
	unsigned df_run;              /* another run's (batch means) */
};

/*
 * The inclusive share of a procedure is the share of samples whose stack
 * holds it: an indicator per sample, like a flat row's, so its two
 * intervals are made the same way (eq_series_deffs over the time-ordered
 * samples: the lag-1 and lag-2 correlations of the indicator for this
 * run's share, batch means over blocks of consecutive samples for another
 * run's), Wilson score intervals at the effective sample size.  Samples
 * left out (--exclude-idle) are not in the series.
 */
struct eq_callgraph {
	const struct eq_stacks *st;
	size_t nrows;
	struct eq_cg_row *rows;       /* children first (most first), then self, then name */
	enum eq_interval interval;    /* what ci95_low/high are */
	int ordered;                  /* 1: design effects from the sample order */
	unsigned batches;             /* of the batch means (0: too few samples) */
	double batch_lag1, batch_s;   /* as in eq_profile */
};

struct eq_callgraph *eq_callgraph_build(const struct eq_stacks *st, struct eq_error *err);
/* Sets every row's ci95_low/high to interval iv (sampling after build). */
void eq_callgraph_set_interval(struct eq_callgraph *cg, enum eq_interval iv);
void eq_callgraph_free(struct eq_callgraph *cg);

struct eq_cg_print {
	enum eq_format fmt;
	const char *source;           /* recording's name for the heading */
	int call_paths;               /* also print the call paths to each row (table, json) */
	int callees;                  /* table: the tree of what each row called (perf's
					 caller graph); 0: of who called it (callee graph) */
	int width;                    /* table: tree lines cut to this many columns (0: none) */
	double percent_limit;         /* rows below this children share (0..100) are left out */
	double path_limit;            /* paths below this share of their row are left out */
};

void eq_callgraph_print(FILE *out, const struct eq_callgraph *cg, const struct eq_cg_print *o);

/* Folded stacks for flame graphs: "exe;outermost;...;leaf COUNT" a line. */
int eq_stacks_write_folded(FILE *out, const struct eq_stacks *st, struct eq_error *err);

#endif
