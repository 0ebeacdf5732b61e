/*
 * view_priv.h - the folded recording behind view.h, shared by the builder
 * (view_build.c) and the JSON writer (view_json.c).
 */
#ifndef EQ_VIEW_PRIV_H
#define EQ_VIEW_PRIV_H

#include "profile/profile.h"
#include "view/view.h"

/* Per-bucket sparse lists, filled bucket after bucket: bucket b's entries
 * are [off[b], off[b + 1]); v holds `width` numbers an entry. */
struct vcsr {
	uint32_t *off;        /* nb + 1 */
	uint32_t *v;
	size_t n, cap;        /* entries */
	unsigned width;
};

/* One grouping of the per-bucket profile. */
struct vgroup {
	enum eq_by by;
	struct eq_agg *agg;   /* names rows as profiles do */
	struct vcsr csr;      /* row, samples, changes at lag 1, at lag 2 */
	int32_t *edge_rows;   /* 4 per edge: rows of the samples 2 and 1 before it,
				 1 and 2 after it (-1: none) */
	/* the bucket being filled: dense by row, the rows touched */
	uint32_t *cnt, *tr1, *tr2;
	size_t rows_cap;
	uint32_t *touched;
	size_t ntouched, touched_cap;
	uint32_t prev[2];     /* rows of the previous two samples (UINT32_MAX: none) */
};

struct eq_view {
	const struct eqp_file *f;
	const char *name, *path;
	enum eqp_mode mode;
	enum power_basis basis;
	const char *why_none;
	double clock_hz, quantum_j, period_s, nominal_hz;
	uint64_t t0;                 /* first sample (target clock) */
	uint64_t nsamples, lost_total;
	uint64_t w;                  /* ticks a bucket */
	size_t nb;
	int decimals;                /* of a time printed to the tick */
	double span_s;               /* of the samples */

	/* power (basis samples, board or source) */
	int has_power, idle_known;
	double cov_a, cov_b;         /* first interval's start, last one's end */
	double *e;                   /* energy inside each bucket */
	uint32_t *nint, *nidle_int;  /* intervals ending in it */
	double *pmin, *pmax;         /* their lowest and highest power (NaN: none) */
	double *se, *sa, *sb;        /* nb + 1: the interval each edge cuts (se 0: none) */
	struct vcsr hist;            /* fine log bin, intervals, idle ones */

	/* samples */
	uint32_t *ns, *nidle, *nlost;
	double *dtn, *dts, *dts2;    /* gaps to the previous sample, by the later one */
	double *xdt;                 /* nb + 1: the gap an edge cuts (NaN: not counted) */
	int32_t *edge_bk;            /* 2 per edge: buckets of the 2 samples after it */

	int ngroups;
	struct vgroup g[EQ_VIEW_NGROUP];

	/* stacks: [exe row, proc row (root) ... proc row (leaf)] */
	int chains;                  /* 1: some samples had call chains */
	uint64_t with_chain;
	uint32_t *stk;               /* all stacks' entries, each: depth then rows */
	size_t stk_n, stk_cap;
	uint32_t *stk_at;            /* offset of each stack in stk */
	size_t nstacks, stacks_cap;
	struct vcsr scsr;            /* stack, samples */

	/* markers and board events (seconds on the power axis) */
	size_t nmarkers;
	double *marker_t;
	const char **marker_label;
	uint32_t *board_drops;       /* per bucket: board records missing (seq gaps) */
	double *resets;              /* board segments' starts */
	size_t nresets;
	uint64_t stalls;
	double stall_s;
	const char *target;
	const char *note;
};

int eq_vcsr_init(struct vcsr *c, size_t nb, unsigned width);
/* Appends one entry (width numbers) to the bucket being filled. */
int eq_vcsr_push(struct vcsr *c, const uint32_t *v);
void eq_vcsr_free(struct vcsr *c);

#endif
