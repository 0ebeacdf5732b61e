/*
 * agg.h - private to analysis/profile: the aggregator behind eq_agg_* and
 * eq_profile_build, shared by agg.c (rows by key, the finished profile),
 * build.c (the hot loop over a recording's samples, the time series) and
 * keys.c (the filter).
 */
#ifndef EQ_PROFILE_AGG_H
#define EQ_PROFILE_AGG_H

#include <stdint.h>

#include "profile/profile.h"

#define TAG_ROW_MASK 0x0fffffffu
#define ROW_SKIP (TAG_ROW_MASK - 1)   /* excluded idle sample */

struct agg_key {
	const void *a, *b;
	uint64_t c;
};

/* What a row has with sort keys only (eq_agg.sk, beside the rows): each
 * key's identity (zero beyond keys.n), and its value as printed. */
struct agg_sortkey {
	const void *kp[EQ_KEYS_MAX];
	uint64_t kv[EQ_KEYS_MAX];
	const char *fields[EQ_KEYS_MAX];
};

/* Batch counts of a row: a list, block << AGG_BLK_COUNT_BITS | count,
 * blocks not decreasing (a block may come twice: its counts add), and
 * (col not NULL) its cell in each block of the table, AGG_TILE_STEP apart
 * (struct agg_counts). */
struct blk_list {
	const uint32_t *v;
	uint32_t n;
	const uint8_t *col;
};

/* What every sample of a row touches, together, as the samples pass; added
 * to the row (eq_agg_counts_fold) when they have passed.  One array for
 * all rows, apart from the rows' other fields: 32 bytes a row. */
struct row_count {
	uint64_t samples;     /* its samples, but blk_in (blk_flush adds them,
				 one add a block instead of one a sample)
				 and cs->cell_n's (eq_agg_counts_fold) */
	uint64_t same[2];     /* samples 1 (2) after one in this row, in it too */
	uint32_t blk_cur;     /* the block of its latest sample + 1 (0: none
				 yet), of those counted in blk_in */
	uint32_t blk_in;      /* its samples in that block not in its cell yet
				 (among many rows, samples go to their cell
				 as they come: blk_cell_inc) */
};

/* A row's samples in one block, written when the row leaves the block:
 * into a table of a byte a row and block while the count fits its cell
 * and the table stays small, else into a log for all rows, in time order,
 * 8 bytes an entry: row << 32 | block << AGG_BLK_COUNT_BITS | count (a
 * count of AGG_BLK_COUNT_MAX or more in several entries).  A row's counts
 * in a block are what its cell and its entries hold.  With many rows and
 * a sample or none each in a block (by line), the log would have an entry
 * for most samples; with few rows (thousands of samples each in a block),
 * the table holds none and the log a few.
 *
 * The table's cells are in tiles of AGG_TILE_ROWS rows, each tile's cells
 * block by block: the cells of the blocks the samples are in lie near
 * each other, and new rows take a new tile with no cell moved.  A tile's
 * blocks are AGG_TILE_STEP bytes apart and the tiles AGG_TILE_PAD bytes
 * more than their blocks: a power of two apart, a row's cells (which the
 * intervals read) and a block's cells in every tile (which the samples
 * write) would fall in the same few sets of the caches. */
#define AGG_BLK_COUNT_BITS 25
#define AGG_BLK_COUNT_MAX ((1u << AGG_BLK_COUNT_BITS) - 1)
#define AGG_CELL_MAX 255u
#define AGG_TILE_BITS 10
#define AGG_TILE_ROWS (1u << AGG_TILE_BITS)
#define AGG_TILE_STEP (AGG_TILE_ROWS + 64)
#define AGG_TILE_PAD 64

struct agg_counts {
	struct row_count *rc;  /* per row, zeroed */
	size_t cap;
	uint64_t *log;
	size_t nlog, logcap;
	uint8_t *mat;          /* the table (NULL: the log alone) */
	size_t mat_cap;        /* its cells' room */
	size_t mat_rows;       /* rows its tiles hold */
	unsigned nblk;         /* the table's blocks (0: no table) */
	size_t tile;           /* bytes a tile of it takes (blk_tile: nblk's,
				  kept because blk_cell reads it per sample) */
	size_t mat_max;        /* cells it may have before it becomes the log */
	uint32_t *cell_n;      /* per row of the table: its samples counted in
				  cells as they came (blk_cell_inc), not in
				  rc[].samples yet (eq_agg_counts_fold) */
	size_t cell_cap;
};

struct agg_row {
	uint64_t samples;
	uint64_t same[2];     /* samples 1 (2) after one in this row, in it too */
	struct agg_key key;
	const char *name, *module;
	const struct eq_loc *loc;
	uint32_t pid, tid;
	/* samples 1 (2) apart, one in this row, one not (made from same[] when
	 * the series closes) */
	uint64_t trans[2];
	uint64_t trans_skip[2]; /* ... of which the other an excluded idle sample */
	struct blk_list blk;
};

/* The time-ordered view eq_profile_build takes of the samples: what the
 * sampling and run-to-run variances need, in O(1) per sample. */
struct agg_series {
	int on;
	uint32_t prev[2];     /* rows of the previous two samples (ROW_NONE: none) */
	uint32_t first[2];    /* rows of the first two samples (ROW_NONE: none) */
	uint64_t n;           /* samples in the series (excluded idle too) */
	uint64_t skip_trans[2]; /* pairs 1 (2) apart with exactly one excluded idle */
	uint64_t expected;    /* samples the file holds (sets the blocks) */
	unsigned nblocks, block;
	uint64_t next_boundary;
	double *block_m;      /* samples counted in the shares per block */
	struct eq_series_times times; /* its span and the intervals between samples */
};

/* The task a sample ran in, for rows by pid and thread. */
struct task {
	uint32_t pid, tid;
	const char *thread;   /* its name (eq_sym_thread_name) */
	uint16_t cpu;
};

struct eq_agg {
	enum eq_by by;
	unsigned flags;
	struct eq_intern *strings;
	struct agg_row *rows;
	size_t nrows, cap;
	struct agg_sortkey *sk;    /* a row's, with sort keys (NULL without) */
	size_t skcap;
	uint64_t *slots;           /* row index + 1; 0 = empty (agg.c: SLOT) */
	size_t mask;
	uint64_t total, idle;
	struct agg_series ser;
	struct eq_keys keys;       /* sort keys (n == 0: rows by `by`) */
	const struct eq_filter *filter;
	long filtered_row;         /* the hidden row of filtered-out samples, or -1 */
	uint64_t filtered;         /* samples left out of the shares (relative) */
	struct fcache_slot *fcache; /* the filter's verdicts (FCACHE_SIZE) */
	struct agg_counts cs;      /* the rows' counts as samples pass (rc: nrows) */
	uint32_t *blk_v;           /* every row's batch counts (rows[i].blk point in) */
};

#define FCACHE_SIZE 4096
struct fcache_slot {
	const struct eq_loc *loc;
	const char *thread;
	int keep;
};

#define ROW_NONE UINT32_MAX

/* The hidden row's name: rows pointing at it are removed when finished. */
extern const char eq_filtered_name[];

/* The pair counts and batch counts of every row from what the samples
 * left (eq_agg_finish calls it once, before it reads them); -1 when out
 * of memory. */
int eq_agg_series_close(struct eq_agg *a);
/* The counts in a->cs added to the rows' samples and same[], a->cs's
 * pending batch counts logged; -1 when out of memory. */
int eq_agg_counts_fold(struct eq_agg *a);
/* Room in cs for n rows (new ones zeroed); -1 when out of memory. */
int eq_agg_counts_reserve(struct agg_counts *cs, size_t n);
void eq_agg_counts_free(struct agg_counts *cs);

/* Index of loc's row, created on first sight; -1 if out of memory. */
long eq_agg_row_index(struct eq_agg *a, const struct eq_loc *loc, const struct task *task);
/* The hidden row that holds the samples a filter left out (absolute shares). */
long eq_agg_filtered_index(struct eq_agg *a);
/* The filter's verdict on a located sample; mark: note which patterns hit. */
int eq_filter_eval(const struct eq_filter *f, const struct eq_loc *loc, const char *thread,
		   int mark);
/* qsort order of rows: samples, most first; then name and module. */
int eq_row_by_samples(const void *x, const void *y);
/* rows in that order, rows in all three the same kept in the order they
 * had (what glibc's qsort, a merge sort, gives), without a call to
 * compare each pair: a sort of keys beside the rows, then the rows moved
 * once each. */
void eq_rows_sort(struct eq_row *rows, size_t n);

/* Whether this build has the AVX2 code (build.c's count loop four samples
 * at a time, agg.c's batch counts four rows at a time): x86-64, with
 * GCC's (or clang's) intrinsics. */
#if defined(__x86_64__) && defined(__GNUC__)
#define AGG_AVX2 1
#else
#define AGG_AVX2 0
#endif

/* Whether that code may run: the build has it, the CPU has AVX2, and
 * eq_profile_use_simd did not turn it off.  Either way the same profile. */
int agg_simd(void);

/* The samples of a range in time order, as slices: of the file's chunks
 * when the file is in time order, else of one sorted copy. */
struct range_slice {
	const struct eq_sample *smp;
	size_t n;
};
struct range_slices {
	struct range_slice *v;
	size_t n;
	uint64_t total;
	struct eq_sample *copy;
};
/* The samples of f in range r, in time order, into rs; -1 when out of
 * memory (free rs with eq_range_slices_free either way). */
int eq_range_slices(const struct eqp_file *f, const struct eq_range *r, struct range_slices *rs);
void eq_range_slices_free(struct range_slices *rs);

#endif
