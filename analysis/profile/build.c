/*
 * build.c - a recording's samples grouped into a profile (eq_profile_build).
 *
 * The hot loop looks each sample up in a table keyed by (pid, pc,
 * kernel/idle flags) that maps straight to its row, so a pc is symbolized
 * and grouped once however many samples hit it; memory grows with distinct
 * pcs only.  Samples go through in time order, so the time series both
 * intervals need is kept as they pass.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/agg.h"
#include "profile/pcmap.h"
#include "util/bigarr.h"
#include "util/grow.h"

/* the count loop four samples at a time with AVX2 (fast_on4) */
#if AGG_AVX2
#include <immintrin.h>
#endif

double eq_profile_period_s(const struct eqp_file *f)
{
	const struct eqp_meta *m = eqp_meta(f);
	size_t nchunks = eqp_nsample_chunks(f), n0, n1;
	const struct eq_sample *first, *last;
	uint64_t n = eqp_nsamples(f);

	if (m->nominal_hz > 0)
		return 1.0 / m->nominal_hz;
	if (n < 2 || m->clock_hz <= 0 || !nchunks)
		return 0;
	first = eqp_sample_chunk(f, 0, &n0);
	last = eqp_sample_chunk(f, nchunks - 1, &n1);
	if (!n0 || !n1 || last[n1 - 1].time <= first[0].time)
		return 0;
	return (double)(last[n1 - 1].time - first[0].time) / m->clock_hz / (double)(n - 1);
}

static int by_unres_samples(const void *x, const void *y)
{
	const struct eq_unresolved *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->module, b->module);
}

/*
 * pc -> row table: 16-byte slots, open addressing, at most half full.
 * "pid" is eq_sym_space_key() (the pid, or the address space after an
 * exec); by pid and thread the "pc" is 0 and the tid: rows do not depend
 * on where the sample was.
 * tag = 0 for an empty slot, else kernel/idle flags in the top 4 bits and
 * row + 1 below (ROW_SKIP + 1 for an excluded idle sample).
 */
struct pc_slot {
	uint64_t pc;
	uint32_t pid;
	uint32_t tag;
};

#define TAG_UNRESOLVED 0x80000000u  /* the pc has no symbol: counted per module */

/*
 * The extents with no symbol in a map of rows by range, where the row does
 * not tell which module their samples count for (by exe and by module,
 * and key sets): the map holds TAG_UNRESOLVED | an index here, of the
 * (row, module), made on first sight, so that a sample's module costs no
 * lookup (a symbolizer's per pc: every pc of a stripped program).
 */
struct unres_class {
	uint32_t row;
	const char *module;
	uint64_t taken;           /* samples the fast loops counted */
};
struct unres_classes {
	struct unres_class *v;
	size_t n, cap;
	uint32_t *slots;          /* index + 1 by (row, module), at most half used */
	size_t mask;
};

static inline size_t unres_class_hash(uint32_t row, const char *module)
{
	return (size_t)((((uint64_t)row << 32) ^ (uint64_t)(uintptr_t)module) *
			0x9e3779b97f4a7c15ull >> 24);
}

static int unres_classes_grow(struct unres_classes *u)
{
	size_t newmask = u->mask ? 2 * u->mask + 1 : 63, i, j;
	uint32_t *v = calloc(newmask + 1, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < u->n; i++) {
		for (j = unres_class_hash(u->v[i].row, u->v[i].module) & newmask; v[j];
		     j = (j + 1) & newmask)
			;
		v[j] = (uint32_t)i + 1;
	}
	free(u->slots);
	u->slots = v;
	u->mask = newmask;
	return 0;
}

/* The map's value for extents of row with no symbol in module:
 * TAG_UNRESOLVED | their class's index; 0 when out of memory. */
static uint32_t unres_class(struct unres_classes *u, uint32_t row, const char *module)
{
	size_t j;

	if ((2 * (u->n + 1) > u->mask && unres_classes_grow(u)) || u->n >= TAG_ROW_MASK)
		return 0;
	for (j = unres_class_hash(row, module) & u->mask; u->slots[j]; j = (j + 1) & u->mask) {
		const struct unres_class *c = &u->v[u->slots[j] - 1];

		if (c->row == row && c->module == module)
			return TAG_UNRESOLVED | (u->slots[j] - 1);
	}
	if (EQ_GROW(u->v, u->cap, u->n + 1, 16) < 0)
		return 0;
	u->v[u->n] = (struct unres_class){ row, module, 0 };
	u->slots[j] = (uint32_t)++u->n;
	return TAG_UNRESOLVED | (uint32_t)(u->n - 1);
}

static void unres_classes_free(struct unres_classes *u)
{
	free(u->v);
	free(u->slots);
}

struct pc_table {
	struct pc_slot *slots;
	size_t mask, count;
	struct eq_pcmap *ranges;  /* rows by pc range (row_for), or NULL */
	struct unres_classes uc;  /* ranges' extents with no symbol */
};
#define KFLAGS(smp) ((uint32_t)((smp)->flags & (EQ_F_KERNEL | EQ_F_IDLE)) << 28)

static inline size_t pc_hash(uint64_t pc, uint32_t pid)
{
	return (size_t)(((pc ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ull) >> 20);
}

static int pc_grow(struct pc_table *t)
{
	size_t newmask = t->mask ? 2 * t->mask + 1 : 8191, i;
	struct pc_slot *slots = eq_big_calloc(newmask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; t->slots && i <= t->mask; i++) {
		struct pc_slot *s = &t->slots[i];
		size_t j;

		if (!s->tag)
			continue;
		for (j = pc_hash(s->pc, s->pid) & newmask; slots[j].tag; j = (j + 1) & newmask)
			;
		slots[j] = *s;
	}
	eq_big_free(t->slots);
	t->slots = slots;
	t->mask = newmask;
	return 0;
}

/*
 * Whether a's rows count their samples with no symbol: by procedure, and by
 * line (a pc with no line is by procedure), the pcs with no symbol have
 * rows of their own (a module's "[unknown]", agg.c's row_of), every sample
 * of which has none; by instruction a row is one offset of one module,
 * which has a symbol or not.  Their samples are then added per module
 * (the rows' first key) from the rows at the end (eq_profile_build_opts),
 * not one at a time, and their pcs carry no TAG_UNRESOLVED: the fast loops
 * take them (a stripped or missing program's samples, all of them, went
 * one at a time).
 */
static int unres_by_row(const struct eq_agg *a)
{
	return !a->keys.n && !a->filter &&
	       (a->by == EQ_BY_PROC || a->by == EQ_BY_LINE || a->by == EQ_BY_INSN);
}

/* The row of a sample at loc (its tag: kernel/idle flags, row + 1, and
 * TAG_UNRESOLVED when the pc has no symbol and the rows do not count
 * that); -1 when out of memory. */
static int loc_row(struct eq_agg *a, struct eq_symbolizer *s, const struct eq_sample *smp,
		   const struct eq_loc *loc, uint32_t *row, uint32_t *tag)
{
	struct task task = { smp->pid, smp->tid, NULL, smp->cpu };
	long i;

	if (a->by == EQ_BY_THREAD && !(task.thread = eq_sym_thread_name(s, smp)))
		return -1;
	if (loc->kind == EQ_LOC_IDLE && (a->flags & EQ_PROFILE_EXCLUDE_IDLE))
		*row = ROW_SKIP;
	else if ((i = eq_agg_row_index(a, loc, &task)) < 0 || i >= (long)ROW_SKIP)
		return -1;
	else
		*row = (uint32_t)i;
	*tag = KFLAGS(smp) | (*row + 1);
	/* by pid and thread a slot stands for many pcs: no per-pc flag */
	if ((loc->kind == EQ_LOC_UNRESOLVED || loc->kind == EQ_LOC_NO_MODULE) &&
	    a->by != EQ_BY_PID && a->by != EQ_BY_THREAD && !unres_by_row(a))
		*tag |= TAG_UNRESOLVED;
	return 0;
}

/* First sight of a (pid, pc, flags): symbolize, group, remember in slot j. */
static int row_miss(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s,
		    const struct eq_sample *smp, uint64_t pc, uint32_t who, size_t j,
		    uint32_t *row, uint32_t *tag)
{
	if (loc_row(a, s, smp, eq_sym_lookup(s, smp), row, tag) < 0)
		return -1;
	t->slots[j] = (struct pc_slot){ .pc = pc, .pid = who, .tag = *tag };
	if (2 * ++t->count > t->mask && pc_grow(t))
		return -1;
	return 0;
}

/* The slot of (pc, who, kernel/idle flags kf) in t: its own, or the
 * empty one where it goes. */
static inline __attribute__((always_inline)) size_t
pc_probe(const struct pc_table *t, uint64_t pc, uint32_t who, uint32_t kf)
{
	size_t j = pc_hash(pc, who) & t->mask;

	for (; t->slots[j].tag; j = (j + 1) & t->mask) {
		const struct pc_slot *c = &t->slots[j];

		if (c->pc == pc && c->pid == who && (c->tag & ~TAG_ROW_MASK & ~TAG_UNRESOLVED) == kf)
			break;
	}
	return j;
}

/* row_for by the sample's own slot in t. */
static inline __attribute__((always_inline)) int
row_by_pc(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s, int multi,
	  const struct eq_sample *smp, uint32_t *row, const int fast)
{
	uint32_t who = !fast && multi ? eq_sym_space_key(s, smp) : smp->pid;
	uint32_t tag;
	uint64_t pc = fast ? smp->pc : a->by == EQ_BY_THREAD ? smp->tid :
		      a->by == EQ_BY_PID ? 0 : smp->pc;
	size_t j = pc_probe(t, pc, who, KFLAGS(smp));

	if (t->slots[j].tag) {
		*row = (t->slots[j].tag & TAG_ROW_MASK) - 1;
		return (t->slots[j].tag & TAG_UNRESOLVED) != 0;
	}
	if (row_miss(t, a, s, smp, pc, who, j, row, &tag) < 0)
		return -1;
	return (tag & TAG_UNRESOLVED) != 0;
}

/* First sight of a user pc where no range was filled: the sample's row,
 * then the same for the pcs of its page that its extent (symbolize.h)
 * holds: the row's key (module and procedure, line, module, or exe) and
 * whether the pc has a symbol are the same for every pc in it.  Neither
 * the pc table nor the symbolizer's cache keeps the pc: the map answers
 * for it from now on (each would cost a miss in a table as large as the
 * pcs are many). */
static int range_miss(struct eq_pcmap *ranges, struct unres_classes *uc, struct eq_agg *a,
		      struct eq_symbolizer *s, const struct eq_sample *smp, uint32_t *row,
		      const char **umod)
{
	uint64_t first, last;
	const struct eq_loc *loc = eq_sym_locate_extent(s, smp, a->by == EQ_BY_LINE ? 2 : 0,
							      &first, &last);
	uint32_t tag, v;

	if (loc_row(a, s, smp, loc, row, &tag) < 0)
		return -1;
	v = *row + 1;
	/* no symbol, where the row does not tell the module (unres_by_row) */
	if ((tag & TAG_UNRESOLVED) && !(v = unres_class(uc, *row, loc->module)))
		return -1;
	if (eq_pcmap_fill(ranges, smp->pid, smp->pc, first, last, v) < 0)
		return -1;
	*umod = loc->module;
	return (tag & TAG_UNRESOLVED) != 0;
}

/* Whether rows by `by` are rows over ranges of pcs (a procedure's, a line
 * record's, a module's, a process's): row_for then asks the symbolizer
 * for a range's first pc only. */
static int by_ranges(enum eq_by by)
{
	return by == EQ_BY_PROC || by == EQ_BY_MODULE || by == EQ_BY_EXE || by == EQ_BY_LINE;
}

/*
 * The row of a sample, -1 when out of memory; 1 when its pc has no symbol
 * (its module into *umod, when the map of ranges knew it: else NULL).
 * fast (a constant): rows by pc, and each pid its own address space.  With
 * t->ranges (rows by procedure, module or exe, each pid its own address
 * space), a user pc's row is its range's (pcmap.h), and only the first pc
 * met in a range (within a page) is looked up by pc.
 */
static inline __attribute__((always_inline)) int
row_for(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s, int multi,
	const struct eq_sample *smp, uint32_t *row, const int fast, const char **umod)
{
	*umod = NULL;
	if (t->ranges && !(smp->flags & (EQ_F_KERNEL | EQ_F_IDLE)) && smp->pid) {
		uint32_t v = eq_pcmap_get(t->ranges, smp->pid, smp->pc);

		if (__builtin_expect(v != 0 && !(v & TAG_UNRESOLVED), 1)) {
			*row = v - 1;
			return 0;
		}
		if (v) {
			const struct unres_class *c = &t->uc.v[v & TAG_ROW_MASK];

			*row = c->row;
			*umod = c->module;
			return 1;
		}
		return range_miss(t->ranges, &t->uc, a, s, smp, row, umod);
	}
	return row_by_pc(t, a, s, multi, smp, row, fast);
}

/*
 * The module of a sample with no symbol in row: the row's own (its key's
 * first part is its locs' module, agg.c's row_of, but by exe), else the
 * symbolizer's (its cache has the pc; with rows by range, a lookup more
 * per sample: every sample of a stripped program).
 */
static inline const char *unres_module(const struct eq_agg *a, struct eq_symbolizer *s,
				       const struct eq_sample *x, uint32_t row)
{
	if (!a->keys.n && a->by != EQ_BY_EXE && a->by != EQ_BY_PID && a->by != EQ_BY_THREAD)
		return a->rows[row].key.a;
	return eq_sym_lookup(s, x)->module;
}

#define PREFETCH_AHEAD 8
/* Samples a pass takes at a time: 3 x 8 KiB, one round of the CRC's three
 * streams (crc32c.c), then still in the first-level cache for the pass. */
#define SUB_SAMPLES (3 * 8192 / sizeof(struct eq_sample))
/* a pc table larger than the second-level cache (16-byte slots) */
#define PREFETCH_MIN_SLOTS (64 * 1024)

/* Samples with no symbol, per module (few modules: a list). */
struct unres_list {
	struct eq_unresolved *v;
	size_t n, cap;
};

static int unres_add(struct unres_list *u, const char *module)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		if (u->v[i].module == module) {
			u->v[i].samples++;
			return 0;
		}
	if (EQ_GROW(u->v, u->cap, u->n + 1, 16) < 0)
		return -1;
	u->v[u->n++] = (struct eq_unresolved){ .module = module, .samples = 1 };
	return 0;
}

static int blk_table(struct agg_counts *cs, unsigned nblocks, uint64_t n);

static int series_init(struct eq_agg *a, uint64_t n, double clock_hz)
{
	struct agg_series *ser = &a->ser;
	unsigned nb = eq_series_nblocks(n);

	free(ser->block_m);
	memset(ser, 0, sizeof(*ser));
	ser->on = 1;
	ser->prev[0] = ser->prev[1] = ROW_NONE;
	ser->first[0] = ser->first[1] = ROW_NONE;
	ser->expected = n;
	ser->times.clock_hz = clock_hz;
	if (!nb)
		return blk_table(&a->cs, 0, n);   /* too few samples for batch means */
	ser->nblocks = nb;
	ser->next_boundary = (n + nb - 1) / nb;
	ser->block_m = calloc(nb, sizeof(*ser->block_m));
	return ser->block_m ? blk_table(&a->cs, nb, n) : -1;
}

_Static_assert(EQ_BATCHES_MAX <= 1u << (32 - AGG_BLK_COUNT_BITS), "a block in the log's bits");

/* The batch log's entry of count samples (at most AGG_BLK_COUNT_MAX) of row
 * in block + 1 blk. */
static inline uint64_t blk_ent(uint32_t row, uint32_t blk, uint32_t count)
{
	return (uint64_t)row << 32 | (uint64_t)(blk - 1) << AGG_BLK_COUNT_BITS | count;
}

/* Bytes a tile of the table takes. */
static inline size_t blk_tile(unsigned nblk)
{
	return (size_t)nblk * AGG_TILE_STEP + AGG_TILE_PAD;
}

/* Row's cell in block + 1 blk of the table. */
static inline size_t blk_cell(const struct agg_counts *cs, uint32_t row, uint32_t blk)
{
	return (size_t)(row >> AGG_TILE_BITS) * cs->tile + (size_t)(blk - 1) * AGG_TILE_STEP +
	       (row & (AGG_TILE_ROWS - 1));
}

/* n samples of row in block + 1 blk added to its cell in the table, if
 * there is one and the cell holds them: 1, else 0. */
static inline __attribute__((always_inline)) int
blk_cell_add(struct agg_counts *cs, uint32_t row, uint32_t blk, uint32_t n)
{
	uint8_t *m;

	if (!cs->mat)
		return 0;
	m = &cs->mat[blk_cell(cs, row, blk)];
	if (n > AGG_CELL_MAX - *m)
		return 0;
	*m = (uint8_t)(*m + n);
	return 1;
}

/* Room in the log for one more entry; -1 when out of memory. */
static int blk_log_room(struct agg_counts *cs)
{
	return EQ_BIG_GROW(cs->log, cs->logcap, cs->nlog + 1, 1024) < 0 ? -1 : 0;
}

/* The table's cells as the log: once, when it would outgrow cs->mat_max. */
static int blk_to_log(struct agg_counts *cs)
{
	size_t i;
	unsigned b;

	for (i = 0; i < cs->mat_rows; i++) {
		for (b = 1; b <= cs->nblk; b++) {
			uint8_t n = cs->mat[blk_cell(cs, (uint32_t)i, b)];

			if (!n)
				continue;
			if (blk_log_room(cs))
				return -1;
			cs->log[cs->nlog++] = blk_ent((uint32_t)i, b, n);
		}
	}
	eq_big_free(cs->mat);
	cs->mat = NULL;
	cs->mat_cap = cs->mat_rows = 0;
	cs->nblk = 0;
	return 0;
}

/* n samples of row in block + 1 blk: into the table while its cell holds
 * them, else into the log. */
static int blk_put(struct agg_counts *cs, uint32_t row, uint32_t blk, uint32_t n)
{
	uint32_t k;

	if (blk_cell_add(cs, row, blk, n))
		return 0;
	for (; n; n -= k) {
		k = n < AGG_BLK_COUNT_MAX ? n : AGG_BLK_COUNT_MAX;
		if (blk_log_room(cs))
			return -1;
		cs->log[cs->nlog++] = blk_ent(row, blk, k);
	}
	return 0;
}

/* A row's samples in its latest block, written. */
static int blk_flush(struct agg_counts *cs, uint32_t row)
{
	struct row_count *c = &cs->rc[row];

	if (c->blk_in && blk_put(cs, row, c->blk_cur, c->blk_in))
		return -1;
	c->samples += c->blk_in;
	c->blk_in = 0;
	return 0;
}

/* The same when a row's sample is its first in block blk, without a call
 * unless the log is full (or the count needs more than one entry): 0, or
 * -1 when the caller must blk_flush. */
static inline __attribute__((always_inline)) int
blk_enter(struct agg_counts *cs, struct row_count *c, uint32_t row, uint32_t blk)
{
	if (c->blk_in) {
		if (!blk_cell_add(cs, row, c->blk_cur, c->blk_in)) {
			if (cs->nlog == cs->logcap || c->blk_in > AGG_BLK_COUNT_MAX)
				return -1;
			cs->log[cs->nlog++] = blk_ent(row, c->blk_cur, c->blk_in);
		}
		c->samples += c->blk_in;
		c->blk_in = 0;
	}
	c->blk_cur = blk;
	return 0;
}

/* Tiles in the table for n rows; or the log, once the table would have
 * more cells than cs->mat_max. */
static int blk_table_grow(struct agg_counts *cs, size_t n)
{
	size_t rows = (n + AGG_TILE_ROWS - 1) & ~(size_t)(AGG_TILE_ROWS - 1);

	if (rows > cs->mat_max / cs->nblk)
		return cs->mat ? blk_to_log(cs) : (cs->nblk = 0, 0);
	if (EQ_BIG_GROW0(cs->mat, cs->mat_cap, (rows >> AGG_TILE_BITS) * cs->tile, cs->tile) ||
	    EQ_BIG_GROW0(cs->cell_n, cs->cell_cap, rows, AGG_TILE_ROWS))
		return -1;
	cs->mat_rows = rows;
	return 0;
}

static size_t table_cells = EQ_BATCH_TABLE_AUTO;

void eq_profile_batch_table(size_t cells)
{
	__atomic_store_n(&table_cells, cells, __ATOMIC_RELAXED);
}

/* The table for a series of nblocks blocks (0: none) over about n
 * samples, while it has no more cells than 8 a sample (and a million
 * more; eq_profile_batch_table): beyond, where rows are many and have few
 * samples each, the log is the smaller (12 bytes an entry, at most one a
 * sample). */
static int blk_table(struct agg_counts *cs, unsigned nblocks, uint64_t n)
{
	size_t max = __atomic_load_n(&table_cells, __ATOMIC_RELAXED);

	eq_big_free(cs->mat);
	cs->mat = NULL;
	cs->mat_cap = cs->mat_rows = 0;
	cs->nblk = nblocks;
	cs->tile = blk_tile(nblocks);
	if (max == EQ_BATCH_TABLE_AUTO)
		max = n < (SIZE_MAX >> 4) ? 8 * (size_t)n + ((size_t)1 << 20) : 0;
	cs->mat_max = max;
	return cs->nblk && cs->cap ? blk_table_grow(cs, cs->cap) : 0;
}

int eq_agg_counts_reserve(struct agg_counts *cs, size_t n)
{
	if (n > cs->cap && EQ_BIG_GROW0(cs->rc, cs->cap, n, 256) < 0)   /* new ones zero */
		return -1;
	return cs->nblk && n > cs->mat_rows ? blk_table_grow(cs, n) : 0;
}

void eq_agg_counts_free(struct agg_counts *cs)
{
	eq_big_free(cs->rc);
	eq_big_free(cs->log);
	eq_big_free(cs->mat);
	eq_big_free(cs->cell_n);
	memset(cs, 0, sizeof(*cs));
}

int eq_agg_counts_fold(struct eq_agg *a)
{
	struct agg_counts *cs = &a->cs;
	size_t i;

	for (i = 0; i < a->nrows; i++) {
		struct row_count *c = &cs->rc[i];
		struct agg_row *r = &a->rows[i];

		if (blk_flush(cs, (uint32_t)i))
			return -1;
		if (i < cs->cell_cap) {
			c->samples += cs->cell_n[i];
			cs->cell_n[i] = 0;
		}
		r->samples += c->samples;
		r->same[0] += c->same[0];
		r->same[1] += c->same[1];
		c->samples = c->same[0] = c->same[1] = 0;
	}
	return 0;
}

/* Every row's batch counts from the log, in time order, into one array
 * (a counting sort over a small array of offsets: the rows' own fields are
 * far apart), block << AGG_BLK_COUNT_BITS | count in 4 bytes (the log's
 * entry without the row): rows[i].blk point in, and at their cells in the
 * table. */
static int blk_index(struct eq_agg *a)
{
	struct agg_counts *cs = &a->cs;
	uint32_t *v = eq_big_malloc(cs->nlog, sizeof(*v));
	size_t *at = calloc(a->nrows + 1, sizeof(*at));
	size_t i;

	if (!v || !at) {
		eq_big_free(v);
		free(at);
		return -1;
	}
	eq_big_free(a->blk_v);
	a->blk_v = v;
	for (i = 0; i < cs->nlog; i++)
		at[(cs->log[i] >> 32) + 1]++;
	for (i = 0; i < a->nrows; i++) {
		a->rows[i].blk.v = v + at[i];
		a->rows[i].blk.n = (uint32_t)at[i + 1];
		a->rows[i].blk.col = cs->mat ? cs->mat + blk_cell(cs, (uint32_t)i, 1) : NULL;
		at[i + 1] += at[i];
	}
	for (i = 0; i < cs->nlog; i++) {
		uint64_t e = cs->log[i];

		v[at[e >> 32]++] = (uint32_t)e;
	}
	free(at);
	eq_big_free(cs->log);
	cs->log = NULL;
	cs->nlog = cs->logcap = 0;
	return 0;
}

/*
 * The series as the hot loop keeps it, in locals, over a segment of
 * samples that lie in one block.  Per sample it counts what the pair
 * counts need and nothing more: the samples of a row that follow one of
 * the same row 1 (2) samples before.  A row's pairs with another row are
 * then 2 k - 2 same, less its place among the first and last samples
 * (eq_agg_series_close); only pairs with an excluded sample are counted
 * as they come (rare: --exclude-idle, a relative filter).
 */
struct series_run {
	uint32_t p0, p1;          /* rows of the previous two samples */
	uint32_t blk;             /* the segment's block + 1 */
	uint64_t skips;           /* excluded samples in the segment so far */
	struct eq_series_times times;
};

/* How many of the next `left` samples lie in the current block (advanced
 * first when the series reached its end). */
static size_t series_segment(struct agg_series *ser, size_t left)
{
	if (!ser->nblocks)
		return left;
	while (ser->n >= ser->next_boundary && ser->block + 1 < ser->nblocks) {
		ser->block++;
		ser->next_boundary = ((uint64_t)(ser->block + 1) * ser->expected +
				      ser->nblocks - 1) / ser->nblocks;
	}
	if (ser->block + 1 < ser->nblocks && ser->next_boundary - ser->n < left)
		return (size_t)(ser->next_boundary - ser->n);
	return left;
}

static inline void series_load(const struct agg_series *ser, struct series_run *r)
{
	r->p0 = ser->prev[0];
	r->p1 = ser->prev[1];
	r->blk = ser->block + 1;
	r->skips = 0;
	r->times = ser->times;
}

static inline void series_store(struct agg_series *ser, const struct series_run *r, size_t n)
{
	ser->prev[0] = r->p0;
	ser->prev[1] = r->p1;
	ser->times = r->times;
	if (ser->nblocks)
		ser->block_m[ser->block] += (double)(n - r->skips);
	ser->n += n;
}

/* Pairs of a sample (row) with the previous two where one is excluded. */
static void skip_pairs(struct eq_agg *a, struct series_run *r, uint32_t row)
{
	uint32_t prev[2] = { r->p0, r->p1 };
	int lag;

	for (lag = 0; lag < 2; lag++) {
		uint32_t p = prev[lag];

		if (p == row || p == ROW_NONE || (row != ROW_SKIP && p != ROW_SKIP))
			continue;
		a->ser.skip_trans[lag]++;
		a->rows[row == ROW_SKIP ? p : row].trans_skip[lag]++;
	}
	r->skips += row == ROW_SKIP;
}

/*
 * One more sample in time order, in row (ROW_SKIP: an excluded one).
 * general 0 (a constant): the caller knows that the series holds two
 * samples already and that no sample is excluded.
 */
static inline __attribute__((always_inline)) int
series_step(struct eq_agg *a, struct agg_series *ser, struct agg_counts *cs,
	    struct series_run *r, uint32_t row, uint64_t time, uint16_t flags,
	    const int general, const int timed)
{
	if (general && timed)
		eq_series_time(&r->times, time, (flags & EQ_F_LOST) != 0);
	else if (timed)
		eq_series_dt(&r->times, time, (flags & EQ_F_LOST) != 0);
	if (general && r->p1 == ROW_NONE)
		ser->first[r->p0 != ROW_NONE] = row;
	if (general && (row == ROW_SKIP || r->p0 == ROW_SKIP || r->p1 == ROW_SKIP))
		skip_pairs(a, r, row);
	if (!general || row != ROW_SKIP) {
		struct row_count *c = &cs->rc[row];

		c->same[0] += row == r->p0;
		c->same[1] += row == r->p1;
		if (__builtin_expect(c->blk_cur != r->blk, 0)) {
			if (blk_flush(cs, row))
				return -1;
			c->blk_cur = r->blk;
		}
		c->blk_in++;
	}
	r->p1 = r->p0;
	r->p0 = row;
	return 0;
}

/* One sample on its own (eq_agg_add_sample). */
static int series_add(struct eq_agg *a, uint32_t row, uint64_t time, uint16_t flags)
{
	struct series_run r;

	series_segment(&a->ser, 1);
	series_load(&a->ser, &r);
	if (series_step(a, &a->ser, &a->cs, &r, row, time, flags, 1, 1))
		return -1;
	series_store(&a->ser, &r, 1);
	return 0;
}

int eq_agg_series_close(struct eq_agg *a)
{
	const struct agg_series *ser = &a->ser;
	size_t i;

	if (eq_agg_counts_fold(a))
		return -1;
	for (i = 0; i < a->nrows; i++) {
		struct agg_row *r = &a->rows[i];
		/* the first d samples follow none, the last d precede none */
		uint64_t edge0 = (ser->first[0] == i) + (ser->prev[0] == i);
		uint64_t edge1 = edge0 + (ser->first[1] == i) + (ser->prev[1] == i);

		r->trans[0] = 2 * (r->samples - r->same[0]) - edge0;
		r->trans[1] = 2 * (r->samples - r->same[1]) - edge1;
	}
	return ser->nblocks ? blk_index(a) : 0;
}

int eq_agg_order(struct eq_agg *a, uint64_t nsamples, double clock_hz, struct eq_error *err)
{
	if (a->nrows || series_init(a, nsamples, clock_hz))
		return eq_fail(err, a->nrows ? "profile: eq_agg_order after samples were added" :
			       "profile: out of memory");
	return 0;
}

int eq_agg_add_sample(struct eq_agg *a, const struct eq_loc *loc, uint64_t time,
		      struct eq_error *err)
{
	uint32_t row = ROW_SKIP;
	long i;

	if (loc->kind == EQ_LOC_IDLE)
		a->idle++;
	if (loc->kind != EQ_LOC_IDLE || !(a->flags & EQ_PROFILE_EXCLUDE_IDLE)) {
		if ((i = eq_agg_row_index(a, loc, NULL)) < 0 || i >= (long)ROW_SKIP)
			return eq_fail(err, "profile: out of memory");
		row = (uint32_t)i;
		if (!a->ser.on)
			a->rows[row].samples++;    /* else the series counts it */
		a->total++;
	}
	if (a->ser.on && series_add(a, row, time, 0))
		return eq_fail(err, "profile: out of memory");
	return 0;
}

/* Samples k to end of a chunk of n into the profile, one at a time: the
 * general path (count_fast is the fast one). */
static int count_span(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s,
		      const struct eq_sample *smp, size_t k, size_t end, size_t n,
		      uint64_t *lost_marks, struct unres_list *unres)
{
	int multi = eq_sym_multi_space(s);
	int ahead = !t->ranges && !multi && a->by != EQ_BY_PID && a->by != EQ_BY_THREAD;
	size_t len = end - k;
	uint64_t lost = 0, idle = 0;
	struct series_run r;

	series_load(&a->ser, &r);
	for (; k < end; k++) {
		const struct eq_sample *x = &smp[k];
		uint32_t row;

		/* Random pcs miss the cache: ask for a later sample's slot now. */
		if (ahead && k + PREFETCH_AHEAD < n)
			__builtin_prefetch(&t->slots[pc_hash(x[PREFETCH_AHEAD].pc,
							     x[PREFETCH_AHEAD].pid) & t->mask]);
		const char *umod;
		int u = row_for(t, a, s, multi, x, &row, 0, &umod);

		if (__builtin_expect(u != 0, 0)) {
			if (u < 0)
				return -1;
			if (row != ROW_SKIP &&
			    unres_add(unres, umod ? umod : unres_module(a, s, x, row)) < 0)
				return -1;
		}
		lost += (x->flags & EQ_F_LOST) != 0;
		idle += row == ROW_SKIP;
		if (series_step(a, &a->ser, &a->cs, &r, row, x->time, x->flags, 1, 1))
			return -1;
	}
	series_store(&a->ser, &r, len);
	*lost_marks += lost;
	a->idle += idle;
	return 0;
}

/* The fast loops' state (fast_plain_loop, fast_keys_loop), in registers
 * while they run: rows as ids (fast_plain: tags, row + 1; the pairs compare
 * alike), the block, the last time and the sums of the intervals. */
struct fast_run {
	uint32_t p0, p1, blk;
	uint32_t hot;          /* among many rows: an id whose cell in the
				  block is full (UINT32_MAX: none) */
	uint64_t last;
	double sum, sum2;
};

static inline __attribute__((always_inline)) void
fast_load(struct fast_run *f, const struct series_run *r, uint32_t bias)
{
	*f = (struct fast_run){ r->p0 + bias, r->p1 + bias, r->blk, UINT32_MAX, r->times.t_last,
				r->times.dt_sum, r->times.dt_sum2 };
}

static inline __attribute__((always_inline)) void
fast_store(const struct fast_run *f, struct series_run *r, uint32_t bias, size_t n)
{
	r->p0 = f->p0 - bias;
	r->p1 = f->p1 - bias;
	r->times.t_last = f->last;
	r->times.dt_n += (double)n;
	r->times.dt_sum = f->sum;
	r->times.dt_sum2 = f->sum2;
}

/* A sample's interval (at time, after f->last) into the sums. */
static inline __attribute__((always_inline)) void
fast_time(struct fast_run *f, uint64_t time)
{
	double dt = (double)(int64_t)(time - f->last);

	f->sum += dt;
	f->sum2 += dt * dt;
	f->last = time;
}

/*
 * A sample of row among many, in the table's cell of the block it is in,
 * when the table has one with room: 1, else 0 (then the row's block as
 * below).  The cells the samples of a block are counted in lie near each
 * other (agg.h), where a row's cell of the block it last had a sample in,
 * which blk_enter writes, can be anywhere in the table; and whether the
 * row had a sample there is a branch guessed wrong often.  Over 3.9 M
 * samples in 34 k rows by line (bench/speed's spread recording), nearly
 * every sample is its row's first in the block: this took its branches
 * guessed wrong from 1.5 M to 0.1 M (cachegrind).  The sample is counted
 * in cs->cell_n, 4 bytes a row, and the row's counts (32 bytes, 1.1 MB
 * for those rows) are not read: in a cache of 512 KiB (cachegrind's
 * last level), the count loop's read misses by line went from 5.5 M to
 * 2.4 M.  A row whose cell filled counts the rest of the block in
 * c->blk_in; fast_count keeps the latest such row (f->hot) there without
 * looking at its cell again.
 */
static inline __attribute__((always_inline)) int
blk_cell_inc(struct agg_counts *cs, uint32_t row, uint32_t blk)
{
	if (!blk_cell_add(cs, row, blk, 1))
		return 0;
	cs->cell_n[row]++;
	return 1;
}

/*
 * A sample in the row of count c, id as the loop keeps it (row + bias):
 * its block and its pairs; -1 when the batch log is full (the loop stops
 * before it).  Among many rows, in its cell as it comes unless the cell
 * is full or the row is f->hot (blk_cell_inc).  few (a constant): the loop over
 * few rows (under FAST_MANY_ROWS), where a row follows itself often (in
 * runs, or 1 in 10 with 10 rows): its pairs are added without a branch,
 * which would be guessed wrong each time the run begins or ends.  (Over a
 * recording with runs and 71 rows that takes 13% less time, over 10 rows
 * 12-20%; over rows drawn at random with no runs, 2.5% less at 64 rows and
 * up to 9% more at 500, where a branch that is never taken is guessed
 * right.)
 */
static inline __attribute__((always_inline)) int
fast_count(struct fast_run *f, struct agg_counts *cs, struct row_count *c, uint32_t id,
	   uint32_t bias, const int few)
{
	if (few || id == f->hot || !blk_cell_inc(cs, id - bias, f->blk)) {
		if (!few)
			f->hot = id;
		if (__builtin_expect(c->blk_cur != f->blk, 0) &&
		    blk_enter(cs, c, id - bias, f->blk))
			return -1;
		c->blk_in++;
	}
	if (few) {
		c->same[0] += id == f->p0;
		c->same[1] += id == f->p1;
	} else {
		if (id == f->p0)
			c->same[0]++;
		if (id == f->p1)
			c->same[1]++;
	}
	f->p1 = f->p0;
	f->p0 = id;
	return 0;
}

/* Samples the fast loops look up before they count them: a span's
 * lookups depend on nothing but their own sample, so the processor has
 * many in flight, and samples spread over many pcs wait on memory once a
 * few instead of once each. */
#define FAST_SPAN 128
/* rows from which the counts of the rows ahead are fetched (32 bytes a
 * row: beyond the first-level cache) */
#define FAST_MANY_ROWS 1024

/*
 * The counting half of the fast loops: the n samples whose rows (as ids,
 * row + bias) the looking-up half put in ids[0..n), ids[n..n +
 * PREFETCH_AHEAD) readable.  Returns how many it took: all, or fewer when
 * the batch log filled.
 */
static inline __attribute__((always_inline)) size_t
fast_count_ids(struct fast_run *f, struct agg_counts *cs, const uint32_t *ids, size_t n,
	       const uint32_t bias)
{
	struct row_count *rcb = cs->rc - bias;  /* indexed by id */
	/* (no table: the rows' counts, fetched in vain) */
	const uint32_t *cn = cs->cell_n ? cs->cell_n - bias : (const uint32_t *)rcb;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t id = ids[i];

		/* many rows: their counts are far apart */
		__builtin_prefetch(&cn[ids[i + PREFETCH_AHEAD]], 1);
		if (fast_count(f, cs, &rcb[id], id, bias, 0))
			break;
	}
	return i;
}

/*
 * The fast loops' span: the looking-up half took got of the span's samples
 * at x (their intervals summed in f; ids[got..got + PREFETCH_AHEAD) are
 * its own).  Counts them; when the log filled first, the intervals
 * of those it took are summed again from keep.  Returns how many it took.
 */
static inline __attribute__((always_inline)) size_t
fast_span_count(struct fast_run *f, const struct fast_run *keep, struct agg_counts *cs,
		const struct eq_sample *x, uint32_t *ids, size_t got, const uint32_t bias)
{
	uint32_t pad = got ? ids[got - 1] : bias;
	size_t i, took;

	for (i = 0; i < PREFETCH_AHEAD; i++)
		ids[got + i] = pad;
	took = fast_count_ids(f, cs, ids, got, bias);
	if (__builtin_expect(took < got, 0)) {
		f->last = keep->last;
		f->sum = keep->sum;
		f->sum2 = keep->sum2;
		for (i = 0; i < took; i++)
			fast_time(f, x[i].time);
	}
	return took;
}

/* What the fast loops over rows by pc read of the table, in registers
 * while they run. */
struct fast_plain_tab {
	const struct pc_slot *slots;
	size_t mask;
	struct eq_pcmap *map;
	struct eq_pcmap_reg g;   /* map's, with FAST_MAP_ON and _OFF */
	struct unres_class *cls; /* the map's extents with no symbol, or NULL */
};

/* How the fast loops find a sample's row (their `ranges`, a constant in
 * each copy): by pc in the table's slots, or by range in the map,
 * through eq_pcmap_get (in a trial of its recent cache), or with the map
 * in registers, its recent cache on or off (pcmap.h). */
enum { FAST_SLOTS, FAST_MAP, FAST_MAP_ON, FAST_MAP_OFF };

/* The copy of a fast loop for the map's mode now. */
static int fast_map_how(const struct eq_pcmap *m)
{
	return m->mode == EQ_PCMAP_MODE_ON ? FAST_MAP_ON :
	       m->mode == EQ_PCMAP_MODE_OFF ? FAST_MAP_OFF : FAST_MAP;
}

/* fast_plain_tag by the pc's own slot (by pc; by range a kernel or idle
 * pc, or pid 0's, as row_for has them): its tag into *id, 1; 0 when its
 * slot does not hold it, with kernel/idle flags kf, as a resolved pc. */
static inline __attribute__((always_inline)) int
slot_tag(const struct fast_plain_tab *tb, uint64_t pc, uint64_t pid, uint64_t kf, uint32_t *id)
{
	const struct pc_slot *sl;
	uint64_t w;

	/* an empty slot is all zero, so (pc, pid) (0, 0) is looked up apart */
	if (!(pc | pid))
		return 0;
	sl = &tb->slots[pc_hash(pc, (uint32_t)pid) & tb->mask];
	/* pid and tag as one word: the sample's kernel/idle bits, and no
	 * unresolved one */
	memcpy(&w, &sl->pid, sizeof(w));
	if (sl->pc != pc || (w & 0xf0000000ffffffffull) != (pid | kf << 32))
		return 0;
	*id = (uint32_t)((w >> 32) ^ kf);
	return 1;
}

/* fast_plain_tag's samples by range that are not user pcs of a pid, and
 * those it does not take (out of line: the loops' registers serve the
 * user pcs). */
static __attribute__((noinline)) int
fast_tag_apart(const struct fast_plain_tab *tb, const struct eq_sample *p, uint64_t time,
	       uint64_t last, uint32_t *id)
{
	if ((p->flags & EQ_F_LOST) || (int64_t)(time | (time - last)) < 0)
		return 0;
	return slot_tag(tb, p->pc, p->pid, KFLAGS(p), id);
}

/*
 * A sample the fast loops over rows by pc take (its time read), after one
 * at time last: not after a loss, no earlier than the one before (and
 * times below 2^63, which convert alike signed), at a pc seen before (with
 * the same kernel and idle flags), resolved and in the slot its hash names
 * (a user pc's, by range, in the map).  Its tag (row + 1) into
 * *id; 0 when it is not such a sample.  far: fetch the slot of a sample
 * ahead (a table beyond the second-level cache).  By range, a pc with no
 * symbol too (2: its extent's class into *uc, counted in it as taken: a
 * caller that does not count the sample then takes it back).
 */
static inline __attribute__((always_inline)) int
fast_plain_tag(struct fast_plain_tab *tb, const struct eq_sample *p, uint64_t time,
	       uint64_t last, uint32_t *id, const int far, const int ranges,
	       struct unres_class **uc)
{
	uint64_t pc = p->pc, pid = p->pid, w;

	/* by range, a kernel or idle pc or pid 0's leaves with the rest: out
	 * of line, so that the loop's registers serve the user pcs */
	if (__builtin_expect((p->flags & (EQ_F_LOST | (ranges ? EQ_F_KERNEL | EQ_F_IDLE : 0))) ||
			     (ranges && !pid) || (int64_t)(time | (time - last)) < 0, 0))
		return ranges ? fast_tag_apart(tb, p, time, last, id) : 0;
	/* the next sub-block on its way while this one is counted */
	__builtin_prefetch(p + SUB_SAMPLES);
	if (far)
		__builtin_prefetch(&tb->slots[pc_hash(p[PREFETCH_AHEAD].pc,
						      p[PREFETCH_AHEAD].pid) & tb->mask]);
	if (ranges) {
		/* its range's row (row_for), if met and resolved */
		w = ranges == FAST_MAP ? eq_pcmap_get(tb->map, (uint32_t)pid, pc) :
		    eq_pcmap_reg_get(tb->map, &tb->g, (uint32_t)pid, pc, ranges == FAST_MAP_ON);
		if ((int32_t)w <= 0) {   /* none, or TAG_UNRESOLVED: a class */
			if (!w || !tb->cls)
				return 0;
			*uc = &tb->cls[w & TAG_ROW_MASK];
			(*uc)->taken++;
			*id = (*uc)->row + 1;
			return 2;
		}
		*id = (uint32_t)w;
		return 1;
	}
	return slot_tag(tb, pc, pid, KFLAGS(p), id);
}

/* The looking-up half for rows by pc: of the m samples at x (avail left in
 * the chunk), how many in a row fast_plain_tag takes, each one's tag into
 * ids, its interval into f. */
static inline __attribute__((always_inline)) size_t
fast_plain_ids(struct fast_plain_tab *tb, const struct eq_sample *x, size_t m,
	       size_t avail, struct fast_run *f, uint32_t *ids, const int big, const int ranges)
{
	size_t i, far = big && avail > PREFETCH_AHEAD ? avail - PREFETCH_AHEAD : 0;
	struct fast_run g = *f;
	struct unres_class *uc;

	for (i = 0; i < m; i++) {
		uint64_t time = x[i].time;
		/* (a class's sample taken back by fast_plain_loop if the count
		 * stops before it) */
		if (!fast_plain_tag(tb, &x[i], time, g.last, &ids[i], big && i < far, ranges, &uc))
			break;
		fast_time(&g, time);
	}
	*f = g;
	return i;
}

/*
 * The fused loop four samples at a time where the CPU has AVX2 and the
 * map's recent cache is on (few pcs, as in long runs of a small program):
 * the four samples' checks (fast_plain_tag's) and intervals as vectors,
 * then their recent entries and rows one by one, so that per sample only
 * the lookup, the counts and the two sums are left to do one at a time,
 * in order.  The sums are the same doubles: an interval below 2^52
 * converts exactly, and the squares are the same products.  A group with
 * a sample fast_plain_tag would not take, one whose recent entry misses,
 * or a row's first sample in the block is not taken (nothing of it
 * counted): the caller does its samples one at a time.  Returns how many
 * of the m at x it took (a multiple of 4).
 */
#if AGG_AVX2
static __attribute__((target("avx2"))) size_t
fast_on4(const struct eq_pcmap_recent *rec, struct row_count *rc1, struct fast_run *f,
	 const struct eq_sample *x, size_t m)
{
	const __m256i flags = _mm256_set1_epi64x((long long)((uint64_t)(EQ_F_KERNEL | EQ_F_IDLE |
									      EQ_F_LOST) << 48));
	const __m256i lo32 = _mm256_set1_epi64x(0xffffffffll), zero = _mm256_setzero_si256();
	const __m256i exact = _mm256_set1_epi64x((1ll << 52) - 1);
	const __m256i two52 = _mm256_set1_epi64x(0x4330000000000000ll);
	struct fast_run g = *f;
	size_t i;

	for (i = 0; i + 4 <= m; i += 4) {
		const struct eq_sample *p = x + i;
		__m256i s0 = _mm256_loadu_si256((const __m256i *)&p[0]);
		__m256i s1 = _mm256_loadu_si256((const __m256i *)&p[1]);
		__m256i s2 = _mm256_loadu_si256((const __m256i *)&p[2]);
		__m256i s3 = _mm256_loadu_si256((const __m256i *)&p[3]);
		/* time, pc, pid | tid << 32 and seq | cpu << 32 | flags << 48
		 * of the four, each in a vector */
		__m256i a = _mm256_unpacklo_epi64(s0, s1), b = _mm256_unpackhi_epi64(s0, s1);
		__m256i c = _mm256_unpacklo_epi64(s2, s3), d = _mm256_unpackhi_epi64(s2, s3);
		__m256i t = _mm256_permute2x128_si256(a, c, 0x20);
		__m256i pid = _mm256_and_si256(_mm256_permute2x128_si256(a, c, 0x31), lo32);
		__m256i fl = _mm256_permute2x128_si256(b, d, 0x31);
		__m256i prev = _mm256_blend_epi32(_mm256_permute4x64_epi64(t, 0x90),
						  _mm256_set1_epi64x((long long)g.last), 0x03);
		__m256i dt = _mm256_sub_epi64(t, prev), bad;
		uint32_t tg[4];
		double dv[4], d2[4];
		int j;

		__builtin_prefetch(p + SUB_SAMPLES);
		__builtin_prefetch(p + SUB_SAMPLES + 2);
		/* fast_plain_tag's checks; an interval below 2^52 */
		bad = _mm256_or_si256(_mm256_and_si256(fl, flags), _mm256_cmpeq_epi64(pid, zero));
		bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(dt, exact));
		if (_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_or_si256(t, dt))) ||
		    !_mm256_testz_si256(bad, bad))
			break;
		/* the recent entries (eq_pcmap_reg_get, on) */
#pragma GCC unroll 4
		for (j = 0; j < 4; j++) {
			const struct eq_pcmap_recent *e = eq_pcmap_recent_find(rec, p[j].pc, p[j].pid);

			if (!e || (int32_t)e->v <= 0 || rc1[e->v].blk_cur != g.blk)
				break;
			tg[j] = e->v;
		}
		if (j < 4)
			break;
		/* the intervals as doubles (exact below 2^52), their squares */
		__m256d dd = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(dt, two52)),
					   _mm256_castsi256_pd(two52));
		_mm256_storeu_pd(dv, dd);
		_mm256_storeu_pd(d2, _mm256_mul_pd(dd, dd));
#pragma GCC unroll 4
		for (j = 0; j < 4; j++) {
			uint32_t id = tg[j];
			struct row_count *r = &rc1[id];

			r->blk_in++;       /* (pairs without a branch: fast_count's few) */
			r->same[0] += id == g.p0;
			r->same[1] += id == g.p1;
			g.p1 = g.p0;
			g.p0 = id;
			g.sum += dv[j];
			g.sum2 += d2[j];
		}
		g.last = p[3].time;
	}
	*f = g;
	return i;
}

static int fast4_state = -1;   /* -1: not decided yet */

static int cpu_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

/* Whether fast_on4 may run: the CPU has AVX2, and EQPROF_SIMD is not 0
 * (or eq_profile_use_simd said). */
static int fast4_on(void)
{
	int v = __atomic_load_n(&fast4_state, __ATOMIC_RELAXED);

	if (v < 0) {
		const char *e = getenv("EQPROF_SIMD");

		v = cpu_avx2() && !(e && !strcmp(e, "0"));
		__atomic_store_n(&fast4_state, v, __ATOMIC_RELAXED);
	}
	return v;
}

int eq_profile_use_simd(int on)
{
	if (on && !cpu_avx2())
		return -1;
	__atomic_store_n(&fast4_state, !!on, __ATOMIC_RELAXED);
	return 0;
}
#else
static size_t fast_on4(const struct eq_pcmap_recent *rec, struct row_count *rc1,
		       struct fast_run *f, const struct eq_sample *x, size_t m)
{
	(void)rec, (void)rc1, (void)f, (void)x, (void)m;
	return 0;
}

static int fast4_on(void)
{
	return 0;
}

int eq_profile_use_simd(int on)
{
	return on ? -1 : 0;
}
#endif

int agg_simd(void)
{
	return fast4_on();
}

/* The same, each sample counted as soon as it is looked up: when rows are
 * few (their counts stay in the first-level cache).  Returns how many it
 * took (it stops before one the log has no room for too). */
static inline __attribute__((always_inline)) size_t
fast_plain_fused(struct fast_plain_tab *tb, struct agg_counts *cs, struct fast_run *f,
		 const struct eq_sample *x, size_t m, size_t avail, const int big,
		 const int ranges)
{
	const struct eq_sample *p = x, *end = x + m,
			       *far = big && avail > PREFETCH_AHEAD ? x + avail - PREFETCH_AHEAD : x;
	struct row_count *rc1 = cs->rc - 1;   /* indexed by tag */
	const struct eq_sample *next4 = x;
	struct fast_run g = *f;
	struct unres_class *uc = NULL;
	uint32_t id;
	int four = ranges == FAST_MAP_ON && !big && fast4_on(), got = 0;

	for (; p < end; p++) {
		uint64_t time = p->time;

		/* four at a time, again 4 samples after a group it did not take */
		if (four && p >= next4) {
			p += fast_on4(tb->g.recent, rc1, &g, p, (size_t)(end - p));
			next4 = p + 4;
			if (p == end)
				break;
			time = p->time;
		}
		got = fast_plain_tag(tb, p, time, g.last, &id, big && p < far, ranges, &uc);
		if (!got || fast_count(&g, cs, &rc1[id], id, 1, 1))
			break;
		fast_time(&g, time);
	}
	if (p < end && got > 1)     /* looked up, not counted */
		uc->taken--;
	*f = g;
	return (size_t)(p - x);
}

/* The n samples at x, which fast_plain_ids took but the count did not (the
 * batch log filled): their classes' counts as before (count_span counts
 * them). */
static __attribute__((noinline)) void untake_classes(const struct pc_table *t,
						     const struct eq_sample *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t v = eq_pcmap_get_probe(t->ranges, x[i].pid, x[i].pc);

		if (v & TAG_UNRESOLVED)
			t->uc.v[v & TAG_ROW_MASK].taken--;
	}
}

/*
 * The commonest samples (fast_plain_tag), with nothing to call: a row's
 * first sample in a block too, while the batch log has room.  With many
 * rows a span at a time, looked up, then counted; with few, one pass.
 * Returns how many of the m it took, up to the first it does not take
 * (count_fast takes that one).  Rows are kept as their tags (row + 1).
 */
static inline __attribute__((always_inline)) size_t
fast_plain_loop(const struct pc_table *t, struct agg_counts *cs, struct series_run *r,
		const struct eq_sample *x, size_t m, size_t avail, const int big, const int ranges,
		const int many)
{
	struct fast_plain_tab tb = { t->slots, t->mask, t->ranges, { 0 }, t->uc.v };
	uint32_t ids[FAST_SPAN + PREFETCH_AHEAD];
	size_t done = 0, span, got, took;
	struct fast_run f, keep;

	fast_load(&f, r, 1);                  /* tags: ROW_NONE is 0 */
	if ((int64_t)f.last < 0)
		return 0;
	if (ranges >= FAST_MAP_ON)
		eq_pcmap_reg_load(t->ranges, &tb.g);
	if (!many) {
		done = fast_plain_fused(&tb, cs, &f, x, m, avail, big, ranges);
		goto out;
	}
	for (; done < m; done += took) {
		span = m - done < FAST_SPAN ? m - done : FAST_SPAN;
		keep = f;
		got = fast_plain_ids(&tb, x + done, span, avail - done, &f, ids, big, ranges);
		if (!got)               /* the first one it does not take */
			break;
		took = fast_span_count(&f, &keep, cs, x + done, ids, got, 1);
		if (took < got && ranges)
			untake_classes(t, x + done + took, got - took);
		if (took < span) {
			done += took;
			break;
		}
	}
out:
	if (ranges >= FAST_MAP_ON)
		eq_pcmap_reg_store(t->ranges, &tb.g);
	fast_store(&f, r, 1, done);
	return done;
}

static __attribute__((noinline)) size_t
fast_plain(const struct pc_table *t, struct agg_counts *cs, struct series_run *r,
	   const struct eq_sample *x, size_t m, size_t avail)
{
	int many = cs->cap >= FAST_MANY_ROWS;

	if (t->mask + 1 >= PREFETCH_MIN_SLOTS)
		return many ? fast_plain_loop(t, cs, r, x, m, avail, 1, FAST_SLOTS, 1) :
		       fast_plain_loop(t, cs, r, x, m, avail, 1, FAST_SLOTS, 0);
	return many ? fast_plain_loop(t, cs, r, x, m, avail, 0, FAST_SLOTS, 1) :
	       fast_plain_loop(t, cs, r, x, m, avail, 0, FAST_SLOTS, 0);
}

/* fast_plain with rows by range (t->ranges, row_for): user pcs of a pid,
 * the map's recent cache on, off or in a trial (one function each: the
 * loops keep what they need in registers). */
#define FAST_RANGES(name, how)                                                          \
	static __attribute__((noinline)) size_t                                         \
	name(const struct pc_table *t, struct agg_counts *cs, struct series_run *r,     \
	     const struct eq_sample *x, size_t m, size_t avail)                         \
	{                                                                               \
		return cs->cap >= FAST_MANY_ROWS ?                                      \
		       fast_plain_loop(t, cs, r, x, m, avail, 0, how, 1) :              \
		       fast_plain_loop(t, cs, r, x, m, avail, 0, how, 0);               \
	}
FAST_RANGES(fast_ranges_on, FAST_MAP_ON)
FAST_RANGES(fast_ranges_off, FAST_MAP_OFF)
FAST_RANGES(fast_ranges_trial, FAST_MAP)

static size_t (*const fast_ranges_by[])(const struct pc_table *, struct agg_counts *,
					struct series_run *, const struct eq_sample *, size_t,
					size_t) = {
	[FAST_MAP] = fast_ranges_trial, [FAST_MAP_ON] = fast_ranges_on,
	[FAST_MAP_OFF] = fast_ranges_off,
};

/* Samples k to end of a chunk of n on the fast path (one block of the
 * series, which holds two samples already; rows by pc, each pid its own
 * address space, none left out): runs of plain samples in one loop, each
 * sample it stops at one at a time. */
static int count_fast(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s,
		      const struct eq_sample *smp, size_t k, size_t end, size_t n,
		      uint64_t *lost_marks, struct unres_list *unres)
{
	while (k < end) {
		struct series_run r;
		size_t got;

		series_load(&a->ser, &r);
		got = t->ranges ? fast_ranges_by[fast_map_how(t->ranges)](t, &a->cs, &r, smp + k,
									  end - k, n - k) :
		      fast_plain(t, &a->cs, &r, smp + k, end - k, n - k);
		series_store(&a->ser, &r, got);
		k += got;
		/* the one it stopped at: a new pc, a row new to the block... */
		if (k < end && count_span(t, a, s, smp, k, k + 1, n, lost_marks, unres))
			return -1;
		k += k < end;
	}
	return 0;
}

static int fast_loops = 1;   /* eq_profile_fast_loops */

void eq_profile_fast_loops(int on)
{
	__atomic_store_n(&fast_loops, !!on, __ATOMIC_RELAXED);
}

/*
 * A chunk's samples into the profile, a sub-block at a time, the CRC of
 * each fed to ck (when not NULL) just before the pass reads it.
 */
static int count_chunk(struct pc_table *t, struct eq_agg *a, struct eq_symbolizer *s,
		       const struct eq_sample *smp, size_t n, struct eqp_chunk_check *ck,
		       uint64_t *lost_marks, struct unres_list *unres)
{
	/* The pid names the address space unless some process exec'ed; no
	 * sample is left out unless idle ones are. */
	int fast = !eq_sym_multi_space(s) && a->by != EQ_BY_PID && a->by != EQ_BY_THREAD &&
		   !(a->flags & EQ_PROFILE_EXCLUDE_IDLE) &&
		   __atomic_load_n(&fast_loops, __ATOMIC_RELAXED);
	size_t k = 0, e, seg;

	for (; k < n; k = e) {
		e = n - k < SUB_SAMPLES ? n : k + SUB_SAMPLES;
		if (ck)
			eqp_chunk_check_feed(ck, smp + k, e - k);
		for (; k < e; k += seg) {
			seg = series_segment(&a->ser, e - k);
			if (fast && a->ser.n >= 2) {
				if (count_fast(t, a, s, smp, k, k + seg, n, lost_marks, unres))
					return -1;
				continue;
			}
			/* the first two samples of the series apart (they have no pairs) */
			if (a->ser.n < 2 && seg > 2 - a->ser.n)
				seg = (size_t)(2 - a->ser.n);
			if (count_span(t, a, s, smp, k, k + seg, n, lost_marks, unres))
				return -1;
		}
	}
	return 0;
}

/*
 * The same with sort keys or a filter: rows depend on more than the pc (the
 * thread, the CPU), so every sample is located through the symbolizer's own
 * cache and its row looked up by key.
 */
/* The filter's verdict on (loc, thread), remembered (fnmatch per sample
 * would dominate). */
static int filter_cached(struct eq_agg *a, const struct eq_loc *loc, const char *thread)
{
	size_t h = (size_t)((((uint64_t)(uintptr_t)loc * 0x9e3779b97f4a7c15ull) ^
			     ((uint64_t)(uintptr_t)thread * 0xc2b2ae3d27d4eb4full)) >> 40) &
		   (FCACHE_SIZE - 1);
	struct fcache_slot *c = &a->fcache[h];

	if (c->loc != loc || c->thread != thread) {
		c->loc = loc;
		c->thread = thread;
		c->keep = eq_filter_eval(a->filter, loc, thread, 1);
	}
	return c->keep;
}

/*
 * What a sample's (pid, address space, pc, kernel/idle flags, and the tid
 * and CPU where the keys or the filter read them) came to the first time
 * it was seen: its row and the counts it adds besides.  The symbolizer's
 * answers, the thread's name and the filter's verdict depend on nothing
 * else, so a key set costs a hash probe per sample as --by proc does, and
 * the symbolizer, eq_agg_row_index and the filter once per distinct key.
 */
struct key_slot {
	uint64_t pc;
	uint32_t pid, who, tid;
	uint16_t cpu, kf;
	uint32_t row;            /* ROW_SKIP: counted in no row */
	uint8_t used, unres, idle, dropped;
	const char *module;      /* with unres: counted per module */
};

/* A (pid, tid, CPU) of a key set, numbered for the range map (id 0: an
 * empty slot). */
struct key_space {
	uint32_t pid, tid, cpu, id;
};

struct key_table {
	struct key_slot *slots;
	size_t mask, count;
	int tid, cpu;            /* the tid, the CPU are part of the key */
	/* keys_ranged(): a user pc's row by its extent (pcmap.h) in its
	 * (pid, tid, CPU)'s space; NULL: by key slot only */
	struct eq_pcmap *ranges;
	struct key_space *spaces;
	size_t smask, scount;
	struct unres_classes uc;  /* ranges' extents with no symbol */
};

static inline size_t key_slot_hash(uint64_t pc, uint32_t pid, uint32_t who, uint32_t tid,
				   uint16_t cpu)
{
	uint64_t h = (pc ^ ((uint64_t)pid << 32 | who)) * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)tid << 16 | cpu) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h >> 20);
}

static int key_grow(struct key_table *t)
{
	size_t newmask = t->mask ? 2 * t->mask + 1 : 8191, i;
	struct key_slot *slots = eq_big_calloc(newmask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; t->slots && i <= t->mask; i++) {
		struct key_slot *k = &t->slots[i];
		size_t j;

		if (!k->used)
			continue;
		for (j = key_slot_hash(k->pc, k->pid, k->who, k->tid, k->cpu) & newmask;
		     slots[j].used; j = (j + 1) & newmask)
			;
		slots[j] = *k;
	}
	eq_big_free(t->slots);
	t->slots = slots;
	t->mask = newmask;
	return 0;
}

/* First sight of a key: the sample's row as the per-sample code gave it. */
static int key_miss(struct eq_agg *a, struct eq_symbolizer *s, int need_thread,
		    const struct eq_sample *smp, struct key_slot *k)
{
	const struct eq_loc *loc = eq_sym_lookup(s, smp);
	struct task task = { smp->pid, smp->tid, NULL, smp->cpu };
	long r;

	if (need_thread && !(task.thread = eq_sym_thread_name(s, smp)))
		return -1;
	if (loc->kind == EQ_LOC_IDLE && (a->flags & EQ_PROFILE_EXCLUDE_IDLE)) {
		k->row = ROW_SKIP;
	} else if (a->filter && !filter_cached(a, loc, task.thread)) {
		if (a->filter->relative) {
			k->row = ROW_SKIP;
			k->dropped = 1;
		} else {
			if ((r = eq_agg_filtered_index(a)) < 0)
				return -1;
			k->row = (uint32_t)r;
		}
	} else {
		if ((r = eq_agg_row_index(a, loc, &task)) < 0 || r >= (long)ROW_SKIP)
			return -1;
		k->row = (uint32_t)r;
		k->unres = loc->kind == EQ_LOC_UNRESOLVED || loc->kind == EQ_LOC_NO_MODULE;
		k->module = loc->module;
	}
	k->idle = loc->kind == EQ_LOC_IDLE &&
		  (k->row == ROW_SKIP || (long)k->row == a->filtered_row);
	return 0;
}

static inline const struct key_slot *key_for(struct key_table *t, struct eq_agg *a,
					     struct eq_symbolizer *s, int multi,
					     int need_thread, const struct eq_sample *smp)
{
	uint32_t who = multi ? eq_sym_space_key(s, smp) : 0;
	uint32_t tid = t->tid ? smp->tid : 0;
	uint16_t cpu = t->cpu ? smp->cpu : 0;
	uint16_t kf = smp->flags & (EQ_F_KERNEL | EQ_F_IDLE);
	size_t j = key_slot_hash(smp->pc, smp->pid, who, tid, cpu) & t->mask;
	struct key_slot *k;

	for (; t->slots[j].used; j = (j + 1) & t->mask) {
		k = &t->slots[j];
		if (k->pc == smp->pc && k->pid == smp->pid && k->who == who && k->tid == tid &&
		    k->cpu == cpu && k->kf == kf)
			return k;
	}
	k = &t->slots[j];
	*k = (struct key_slot){ .pc = smp->pc, .pid = smp->pid, .who = who, .tid = tid,
				.cpu = cpu, .kf = kf, .used = 1 };
	t->count++;
	return key_miss(a, s, need_thread, smp, k) < 0 ? NULL : k;
}

/*
 * Whether a key set's row is the same for every pc of an extent of one
 * (pid, tid, CPU): its keys and filters read the thread, the process, the
 * CPU, the module, the procedure and the line (keys_lines: the extent of a
 * line record, eq_sym_lookup_line_extent); rows without keys by procedure,
 * module, exe or line (not by instruction).
 */
static int keys_ranged(const struct eq_agg *a)
{
	return a->keys.n || by_ranges(a->by);
}

/* Whether its rows read the line: extents of a line record then. */
static int keys_lines(const struct eq_agg *a)
{
	unsigned i;

	for (i = 0; i < a->keys.n; i++)
		if (a->keys.k[i] == EQ_KEY_SRCLINE || a->keys.k[i] == EQ_KEY_SRCFILE)
			return 1;
	return !a->keys.n && a->by == EQ_BY_LINE;
}

static inline size_t key_space_hash(uint32_t pid, uint32_t tid, uint32_t cpu)
{
	return (size_t)((((uint64_t)pid << 32 | tid) * 0x9e3779b97f4a7c15ull ^
			 (uint64_t)cpu * 0xc2b2ae3d27d4eb4full) >> 24);
}

static int key_space_grow(struct key_table *t)
{
	size_t newmask = t->smask ? 2 * t->smask + 1 : 63, i, j;
	struct key_space *v = calloc(newmask + 1, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; t->spaces && i <= t->smask; i++) {
		const struct key_space *e = &t->spaces[i];

		if (!e->id)
			continue;
		for (j = key_space_hash(e->pid, e->tid, e->cpu) & newmask; v[j].id;
		     j = (j + 1) & newmask)
			;
		v[j] = *e;
	}
	free(t->spaces);
	t->spaces = v;
	t->smask = newmask;
	return 0;
}

/* The space of (pid, tid, cpu) (the parts the keys read), numbered from 1
 * on first sight; 0 when out of memory. */
static uint32_t key_space_id(struct key_table *t, uint32_t pid, uint32_t tid, uint32_t cpu)
{
	size_t j;

	if (2 * (t->scount + 1) > t->smask && key_space_grow(t))
		return 0;
	for (j = key_space_hash(pid, tid, cpu) & t->smask; t->spaces[j].id;
	     j = (j + 1) & t->smask)
		if (t->spaces[j].pid == pid && t->spaces[j].tid == tid && t->spaces[j].cpu == cpu)
			return t->spaces[j].id;
	t->spaces[j] = (struct key_space){ pid, tid, cpu, (uint32_t)++t->scount };
	return t->spaces[j].id;
}

/* The space of smp's (pid, tid, cpu), the parts the keys read; 0 when out
 * of memory. */
static uint32_t key_space_of(struct key_table *t, const struct eq_sample *smp)
{
	return key_space_id(t, smp->pid, t->tid ? smp->tid : 0, t->cpu ? smp->cpu : 0);
}

/* After a user sample's key was looked up by slot: its row for its whole
 * extent, when the row is a plain one (resolved, not idle, not left out),
 * or its key with no symbol (key_class: counted per module too). */
static int key_range_fill(struct key_table *t, struct eq_agg *a, struct eq_symbolizer *s,
			  const struct eq_sample *smp)
{
	const struct key_slot *k = key_for(t, a, s, 0, 0, smp);
	uint32_t space, value = 0;
	uint64_t first, last;

	if (!k)
		return -1;
	if (k->idle || k->dropped || k->row == ROW_SKIP)
		return 0;
	if (k->unres && (value = unres_class(&t->uc, k->row, k->module)) == 0)
		return -1;
	space = key_space_of(t, smp);
	if (!space)
		return -1;
	if (keys_lines(a))
		eq_sym_lookup_line_extent(s, smp, &first, &last);
	else
		eq_sym_lookup_extent(s, smp, &first, &last);
	return eq_pcmap_fill(t->ranges, space, smp->pc, first, last,
			     k->unres ? value : k->row + 1) < 0 ? -1 : 0;
}

/* The key with no symbol that the map gives smp's extent (key_range_fill)
 * into *k: 1, else 0 (a user sample's, by the map of a key set's
 * extents). */
static int key_class_of(struct key_table *t, const struct eq_sample *smp, struct key_slot *k)
{
	const struct unres_class *c;
	uint32_t space, v;

	if (!t->ranges || !t->uc.n || (smp->flags & (EQ_F_KERNEL | EQ_F_IDLE)) ||
	    !(space = key_space_of(t, smp)) ||
	    !((v = eq_pcmap_get(t->ranges, space, smp->pc)) & TAG_UNRESOLVED))
		return 0;
	c = &t->uc.v[v & TAG_ROW_MASK];
	*k = (struct key_slot){ .row = c->row, .used = 1, .unres = 1, .module = c->module };
	return 1;
}

/* Samples k to end of a chunk of n by key; fast: see series_step (a
 * constant). */
static inline __attribute__((always_inline)) int
count_keys_span(struct key_table *t, struct eq_agg *a, struct eq_symbolizer *s,
		const struct eq_sample *smp, size_t k, size_t end, uint64_t *lost_marks,
		struct unres_list *unres, int multi, int need_thread, const int fast,
		const struct key_slot *given)
{
	size_t len = end - k;
	uint64_t lost = 0, idle = 0, filtered = 0;
	struct series_run r;

	series_load(&a->ser, &r);
	for (; k < end; k++) {
		const struct key_slot *c;

		/* Random pcs miss the cache: ask for a later sample's slot now. */
		if (!multi && k + PREFETCH_AHEAD < end) {
			const struct eq_sample *x = &smp[k + PREFETCH_AHEAD];

			__builtin_prefetch(&t->slots[key_slot_hash(x->pc, x->pid, 0,
								   t->tid ? x->tid : 0,
								   t->cpu ? x->cpu : 0) & t->mask]);
		}
		/* the next sub-block on its way (count_chunk_keys checks it next) */
		__builtin_prefetch(&smp[k] + SUB_SAMPLES);
		/* room for one more key before looking (a miss fills its slot) */
		if (2 * (t->count + 1) > t->mask && key_grow(t))
			return -1;
		if (!(c = given ? given : key_for(t, a, s, multi, need_thread, &smp[k])))
			return -1;
		filtered += c->dropped;
		if (__builtin_expect(c->unres, 0) && unres_add(unres, c->module) < 0)
			return -1;
		lost += (smp[k].flags & EQ_F_LOST) != 0;
		idle += c->idle;
		if (series_step(a, &a->ser, &a->cs, &r, c->row, smp[k].time, smp[k].flags, !fast, 1))
			return -1;
	}
	series_store(&a->ser, &r, len);
	*lost_marks += lost;
	a->idle += idle;
	a->filtered += filtered;
	return 0;
}

/* What the fast loops over key sets read of the table, and the space of
 * the latest (pid, tid, CPU). */
struct fast_keys_tab {
	struct key_table *t;
	struct eq_pcmap *map;     /* t->ranges */
	struct eq_pcmap_reg g;    /* map's, with FAST_MAP_ON and _OFF */
	uint64_t whos;            /* masks of pid | tid << 32 and of the CPU: */
	uint32_t cpus;            /* the tid and the CPU where keys read them */
	uint64_t lwho;            /* the latest pid | tid << 32 and CPU, as */
	uint32_t lcpu, space;     /* masked (lcpu UINT32_MAX: none), its space */
	struct unres_class *cls;  /* the map's extents with no symbol, or NULL */
};

/* fast_keys_row by the key's own slot (by key; by extent a kernel or idle
 * pc, as count_keys_fast has them): its row into *id, 1; 0 when the slot
 * does not hold it. */
static inline __attribute__((always_inline)) int
key_slot_row(const struct fast_keys_tab *kt, uint64_t pc, uint64_t who, uint32_t cpu,
	     uint16_t kf, uint32_t *id)
{
	const struct key_table *t = kt->t;
	uint32_t pid = (uint32_t)who, tid = (uint32_t)(who >> 32);
	const struct key_slot *k = &t->slots[key_slot_hash(pc, pid, 0, tid, cpu) & t->mask];

	if (!k->used || k->pc != pc || k->pid != pid || k->who || k->tid != tid ||
	    k->cpu != cpu || k->kf != kf || k->unres || k->idle || k->dropped)
		return 0;
	*id = k->row;
	return 1;
}

/* fast_keys_row's kernel and idle samples by extent, and those it does
 * not take (out of line: the loops' registers serve the user pcs). */
static __attribute__((noinline)) int
fast_keys_apart(const struct fast_keys_tab *kt, const struct eq_sample *p, uint64_t time,
		uint64_t last, uint32_t *id)
{
	uint64_t who;

	memcpy(&who, &p->pid, sizeof(who));
	if ((p->flags & EQ_F_LOST) || time < last || (int64_t)(time - last) < 0)
		return 0;
	return key_slot_row(kt, p->pc, who & kt->whos, p->cpu & kt->cpus,
			    p->flags & (EQ_F_KERNEL | EQ_F_IDLE), id);
}

/*
 * A sample the fast loops over key sets take (its time read), after one at
 * time last: not after a loss, in time order, whose key (pc, pid, the
 * kernel and idle flags, and the tid and CPU where they count) was seen and
 * is in the slot its hash names (a user pc's, by extent, in the map), in a
 * row with a symbol.  Its row into *id; 0 when it is not such
 * a sample.  far: fetch the slot of a sample ahead.  By extent, a pc with
 * no symbol too (2: its extent's class into *uc, counted in it as taken: a
 * caller that does not count the sample then takes it back).
 */
static inline __attribute__((always_inline)) int
fast_keys_row(struct fast_keys_tab *kt, const struct eq_sample *p, uint64_t time,
	      uint64_t last, uint32_t *id, const int far, const int ranges,
	      struct unres_class **uc)
{
	struct key_table *t = kt->t;
	uint64_t pc = p->pc, who;
	uint32_t cpu = p->cpu & kt->cpus, v;

	if (__builtin_expect((p->flags & (EQ_F_LOST | (ranges ? EQ_F_KERNEL | EQ_F_IDLE : 0))) ||
			     time < last || (int64_t)(time - last) < 0, 0))
		return ranges ? fast_keys_apart(kt, p, time, last, id) : 0;
	/* pid and tid (where keys read it), side by side in the sample, as
	 * one word */
	memcpy(&who, &p->pid, sizeof(who));
	who &= kt->whos;
	__builtin_prefetch(p + SUB_SAMPLES);
	if (far)
		__builtin_prefetch(&t->slots[key_slot_hash(p[PREFETCH_AHEAD].pc,
							   p[PREFETCH_AHEAD].pid, 0,
							   p[PREFETCH_AHEAD].tid &
							   (uint32_t)(kt->whos >> 32),
							   p[PREFETCH_AHEAD].cpu & kt->cpus) &
					     t->mask]);
	if (!ranges)
		return key_slot_row(kt, pc, who, cpu, p->flags & (EQ_F_KERNEL | EQ_F_IDLE), id);
	/* its (pid, tid, CPU)'s space, then its extent's row */
	if (who != kt->lwho || cpu != kt->lcpu) {
		if (!(kt->space = key_space_id(t, (uint32_t)who, (uint32_t)(who >> 32), cpu))) {
			kt->lcpu = UINT32_MAX;
			return 0;
		}
		kt->lwho = who;
		kt->lcpu = cpu;
	}
	v = ranges == FAST_MAP ? eq_pcmap_get(kt->map, kt->space, pc) :
	    eq_pcmap_reg_get(kt->map, &kt->g, kt->space, pc, ranges == FAST_MAP_ON);
	if ((int32_t)v <= 0) {   /* none, or a key with no symbol: a class */
		if (!v || !kt->cls)
			return 0;
		*uc = &kt->cls[v & TAG_ROW_MASK];
		(*uc)->taken++;
		*id = (*uc)->row;
		return 2;
	}
	*id = v - 1;
	return 1;
}

/* untake_classes for key sets: the classes of the n samples at x, which
 * fast_keys_loop looked up (their spaces are known) but did not count. */
static __attribute__((noinline)) void untake_key_classes(struct key_table *t,
							 const struct eq_sample *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t space = key_space_of(t, &x[i]);
		uint32_t v = space ? eq_pcmap_get_probe(t->ranges, space, x[i].pc) : 0;

		if (v & TAG_UNRESOLVED)
			t->uc.v[v & TAG_ROW_MASK].taken--;
	}
}

/*
 * fast_plain_loop for key sets, where nothing is left out and every pid is
 * its own address space (fast_keys_row): with many rows a span at a time,
 * looked up, then counted; with few, one pass.  Returns how many of the m
 * it took.
 */
static inline __attribute__((always_inline)) size_t
fast_keys_loop(struct key_table *t, struct agg_counts *cs, struct series_run *r,
	       const struct eq_sample *x, size_t m, size_t avail, const int ranges,
	       const int many)
{
	struct fast_keys_tab kt = { .t = t, .map = t->ranges,
				    .whos = t->tid ? UINT64_MAX : UINT32_MAX,
				    .cpus = t->cpu ? UINT16_MAX : 0, .lcpu = UINT32_MAX,
				    .cls = t->uc.v };
	struct unres_class *uc = NULL;
	int un = 0;
	size_t i, done = 0, span, got, took,
	       far = !ranges && t->mask + 1 >= PREFETCH_MIN_SLOTS / 2 && avail > PREFETCH_AHEAD ?
		     avail - PREFETCH_AHEAD : 0;
	uint32_t ids[FAST_SPAN + PREFETCH_AHEAD];
	struct fast_run f, keep;

	fast_load(&f, r, 0);
	if (ranges >= FAST_MAP_ON)
		eq_pcmap_reg_load(t->ranges, &kt.g);
	if (!many) {
		const struct eq_sample *p = x, *end = x + m, *pfar = x + far;
		struct row_count *rc = cs->rc;
		uint32_t row;

		for (; p < end; p++) {
			uint64_t time = p->time;

			un = fast_keys_row(&kt, p, time, f.last, &row, !ranges && p < pfar, ranges,
					   &uc);
			if (!un || fast_count(&f, cs, &rc[row], row, 0, 1))
				break;
			fast_time(&f, time);
		}
		if (p < end && un > 1)     /* looked up, not counted */
			uc->taken--;
		done = (size_t)(p - x);
		goto out;
	}
	for (; done < m; done += took) {
		span = m - done < FAST_SPAN ? m - done : FAST_SPAN;
		keep = f;
		for (i = 0; i < span; i++) {
			uint64_t time = x[done + i].time;

			un = fast_keys_row(&kt, &x[done + i], time, f.last, &ids[i],
					   done + i < far, ranges, &uc);
			/* (a class's sample taken back if the count stops
			 * before it) */
			if (!un)
				break;
			fast_time(&f, time);
		}
		got = i;
		if (!got)               /* the first one it does not take */
			break;
		took = fast_span_count(&f, &keep, cs, x + done, ids, got, 0);
		if (took < got && ranges)
			untake_key_classes(t, x + done + took, got - took);
		if (took < span) {
			done += took;
			break;
		}
	}
out:
	if (ranges >= FAST_MAP_ON)
		eq_pcmap_reg_store(t->ranges, &kt.g);
	fast_store(&f, r, 0, done);
	return done;
}

/* fast_keys_loop by extent (t->ranges), the map's recent cache on, off or
 * in a trial, and by key (one function each, as FAST_RANGES). */
#define FAST_KEYS(name, how)                                                            \
	static __attribute__((noinline)) size_t                                         \
	name(struct key_table *t, struct agg_counts *cs, struct series_run *r,          \
	     const struct eq_sample *x, size_t m, size_t avail)                         \
	{                                                                               \
		return cs->cap >= FAST_MANY_ROWS ?                                      \
		       fast_keys_loop(t, cs, r, x, m, avail, how, 1) :                  \
		       fast_keys_loop(t, cs, r, x, m, avail, how, 0);                   \
	}
FAST_KEYS(fast_keys_on, FAST_MAP_ON)
FAST_KEYS(fast_keys_off, FAST_MAP_OFF)
FAST_KEYS(fast_keys_trial, FAST_MAP)
FAST_KEYS(fast_keys_slots, FAST_SLOTS)

static size_t (*const fast_keys_by[])(struct key_table *, struct agg_counts *,
				      struct series_run *, const struct eq_sample *, size_t,
				      size_t) = {
	[FAST_SLOTS] = fast_keys_slots, [FAST_MAP] = fast_keys_trial,
	[FAST_MAP_ON] = fast_keys_on, [FAST_MAP_OFF] = fast_keys_off,
};

/* count_keys_span's fast case: runs of plain samples in one loop (when
 * each pid is its own address space), the others one at a time (and, with
 * t->ranges, a user sample's row then kept for its extent). */
static int count_keys_fast(struct key_table *t, struct eq_agg *a, struct eq_symbolizer *s,
			   const struct eq_sample *smp, size_t k, size_t end, size_t n,
			   uint64_t *lost_marks, struct unres_list *unres, int multi,
			   int need_thread)
{
	while (k < end) {
		struct key_slot cls;
		int un;

		if (!multi && t->slots) {
			struct series_run r;
			size_t got;

			series_load(&a->ser, &r);
			got = fast_keys_by[t->ranges ? fast_map_how(t->ranges) : FAST_SLOTS](
				t, &a->cs, &r, smp + k, end - k, n - k);
			series_store(&a->ser, &r, got);
			k += got;
		}
		/* an extent with no symbol (its key from the map), else by slot */
		un = k < end && key_class_of(t, &smp[k], &cls);
		if (k < end && count_keys_span(t, a, s, smp, k, k + 1, lost_marks, unres, multi,
					       need_thread, 1, un ? &cls : NULL))
			return -1;
		if (k < end && !un && t->ranges && !(smp[k].flags & (EQ_F_KERNEL | EQ_F_IDLE)) &&
		    key_range_fill(t, a, s, &smp[k]) < 0)
			return -1;
		k += k < end;
	}
	return 0;
}

static int count_chunk_keys(struct key_table *t, struct eq_agg *a, struct eq_symbolizer *s,
			    const struct eq_sample *smp, size_t n, struct eqp_chunk_check *ck,
			    uint64_t *lost_marks, struct unres_list *unres)
{
	int need_thread = a->by == EQ_BY_THREAD || (a->filter && a->filter->ncomm);
	int multi = eq_sym_multi_space(s);
	/* samples are left out (ROW_SKIP) only when idle ones or, with
	 * relative shares, filtered ones are */
	int fast = !(a->flags & EQ_PROFILE_EXCLUDE_IDLE) && !(a->filter && a->filter->relative) &&
		   __atomic_load_n(&fast_loops, __ATOMIC_RELAXED);
	unsigned i;
	size_t k = 0, e, seg;

	for (i = 0; i < a->keys.n; i++) {
		need_thread |= a->keys.k[i] == EQ_KEY_COMM || a->keys.k[i] == EQ_KEY_TID;
		t->cpu |= a->keys.k[i] == EQ_KEY_CPU;
	}
	/* the thread's name is of (pid, tid) and the address space */
	t->tid = need_thread;
	if (a->filter && !a->fcache && !(a->fcache = calloc(FCACHE_SIZE, sizeof(*a->fcache))))
		return -1;
	for (; k < n; k = e) {
		e = n - k < SUB_SAMPLES ? n : k + SUB_SAMPLES;
		if (ck)
			eqp_chunk_check_feed(ck, smp + k, e - k);
		for (; k < e; k += seg) {
			seg = series_segment(&a->ser, e - k);
			if (fast && a->ser.n >= 2) {
				if (count_keys_fast(t, a, s, smp, k, k + seg, n, lost_marks, unres,
						    multi, need_thread))
					return -1;
				continue;
			}
			/* the first two samples of the series apart (they have no pairs) */
			if (a->ser.n < 2 && seg > 2 - a->ser.n)
				seg = (size_t)(2 - a->ser.n);
			if (count_keys_span(t, a, s, smp, k, k + seg, lost_marks, unres, multi,
					    need_thread, 0, NULL))
				return -1;
		}
	}
	return 0;
}

/*
 * ---- the same on several threads (rows by pc: the fast path) ----
 *
 * The profile must come out the same bytes as from one thread: the same
 * symbolizer calls in the same order (its warnings, its lazily loaded
 * modules), the rows made in the same order (sums over rows are in row
 * order), the same sums.  So it goes in three steps over parts of
 * consecutive chunks:
 *   1. each thread collects its part's distinct (pid, pc, flags), in the
 *      order they first come (and checks its chunks' CRCs);
 *   2. one thread makes their rows, part after part: exactly the misses,
 *      in exactly the order, of one thread's pass;
 *   3. each thread counts its part into rows of its own, the table read
 *      only; the counts are integers and add up in any order.  Pairs across
 *      a part's start are counted when the parts are joined.  The spread of
 *      the intervals between samples is a sum of doubles that only one pass
 *      in order gives to the bit: the first thread keeps it over its part
 *      and then over every later one.
 */
struct split_worker {
	pthread_t th;
	const struct eqp_file *f;
	size_t c0, c1;                /* chunks [c0, c1) it counts */
	size_t s0, s1;                /* chunks [s0, s1) it looks for new pcs in */
	uint64_t start;               /* its first sample's place in the series */
	size_t c_end;                 /* the last part's end (the first thread's times) */
	int timer;                    /* time-driven samples: the intervals' spread counts */
	struct pc_table seen;         /* step 1: the part's keys (tag 1 | flags) */
	const struct eq_sample **firsts;
	size_t nfirst, capfirst;
	const struct pc_table *t;     /* step 3: the rows' table, read only */
	const char *const *mods;      /* its unresolved slots' modules */
	struct agg_counts cs;
	struct agg_series ser;        /* its own place in the blocks, block_m */
	struct series_run run;
	uint32_t first[2];            /* rows of its first two samples */
	uint64_t lost;
	struct unres_list unres;
	int failed;
};

/* Step 1 for one sample: its key remembered on first sight. */
static int seen_add(struct split_worker *w, const struct eq_sample *x)
{
	struct pc_table *t = &w->seen;
	uint32_t kf = KFLAGS(x) | 1;
	size_t j = pc_hash(x->pc, x->pid) & t->mask;

	for (; t->slots[j].tag; j = (j + 1) & t->mask)
		if (t->slots[j].pc == x->pc && t->slots[j].pid == x->pid && t->slots[j].tag == kf)
			return 0;
	t->slots[j] = (struct pc_slot){ .pc = x->pc, .pid = x->pid, .tag = kf };
	if (EQ_GROW(w->firsts, w->capfirst, w->nfirst + 1, 256) < 0)
		return -1;
	w->firsts[w->nfirst++] = x;
	if (2 * ++t->count > t->mask && pc_grow(t))
		return -1;
	return 0;
}

/* Step 1's first look: the key last seen at a small hash of it (L1-sized;
 * few distinct pcs never reach the table). */
#define SEEN_RECENT 512
struct seen_recent {
	uint64_t pc;
	uint32_t pid, kf;      /* kf | 1: 0 is an empty entry */
};

static void *split_scan(void *arg)
{
	struct split_worker *w = arg;
	struct seen_recent *rec = calloc(SEEN_RECENT, sizeof(*rec));
	size_t c, k, n;

	if (!rec || pc_grow(&w->seen)) {
		free(rec);
		w->failed = 1;
		return NULL;
	}
	for (c = w->s0; c < w->s1; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(w->f, c, &n);

		for (k = 0; smp && k < n; k++) {
			const struct eq_sample *x = &smp[k];
			uint32_t kf = KFLAGS(x) | 1;
			struct seen_recent *r = &rec[((x->pc >> 2) ^ (x->pc >> 11) ^ x->pid) &
						     (SEEN_RECENT - 1)];

			if (r->pc == x->pc && r->pid == x->pid && r->kf == kf)
				continue;
			*r = (struct seen_recent){ x->pc, x->pid, kf };
			/* many distinct pcs: the table misses the cache */
			if (w->seen.mask > 65535 && k + PREFETCH_AHEAD < n)
				__builtin_prefetch(&w->seen.slots[pc_hash(x[PREFETCH_AHEAD].pc,
									 x[PREFETCH_AHEAD].pid) &
								 w->seen.mask]);
			if (seen_add(w, x)) {
				w->failed = 1;
				goto out;
			}
		}
	}
out:
	free(rec);
	return NULL;
}

/* The slot of a key made in step 2 (there is one). */
static inline __attribute__((always_inline)) size_t pc_find(const struct pc_table *t, const struct eq_sample *x)
{
	size_t j = pc_probe(t, x->pc, x->pid, KFLAGS(x));

	return t->slots[j].tag ? j : SIZE_MAX;
}

/* Step 3 for samples k to end of a chunk of n; general: the first two of
 * the series (see series_step); timed: keep the intervals. */
static inline __attribute__((always_inline)) int
split_span(struct split_worker *w, const struct eq_sample *smp, size_t k, size_t end, size_t n,
	   struct eq_agg *a, const int general, const int timed)
{
	const struct pc_table *t = w->t;
	size_t len = end - k;
	uint64_t lost = 0;
	struct series_run *r = &w->run;

	r->blk = w->ser.block + 1;
	r->skips = 0;
	for (; k < end; k++) {
		const struct eq_sample *x = &smp[k];
		size_t j;

		if (k + PREFETCH_AHEAD < n)
			__builtin_prefetch(&t->slots[pc_hash(x[PREFETCH_AHEAD].pc,
							     x[PREFETCH_AHEAD].pid) & t->mask]);
		if ((j = pc_find(t, x)) == SIZE_MAX)
			return -1;
		if (__builtin_expect((t->slots[j].tag & TAG_UNRESOLVED) != 0, 0) &&
		    unres_add(&w->unres, w->mods[j]) < 0)
			return -1;
		lost += (x->flags & EQ_F_LOST) != 0;
		if (series_step(a, &w->ser, &w->cs, r, (t->slots[j].tag & TAG_ROW_MASK) - 1,
				x->time, x->flags, general, timed))
			return -1;
	}
	if (w->ser.nblocks)
		w->ser.block_m[w->ser.block] += (double)len;
	w->ser.n += len;
	w->lost += lost;
	return 0;
}

/* Step 3 for samples k to end of a chunk of n, the series holding two
 * samples already: runs of plain samples in fast_plain's loop (the table
 * read only), each sample it stops at through split_span. */
static int split_fast(struct split_worker *w, const struct eq_sample *smp, size_t k, size_t end,
		      size_t n, const int timed)
{
	while (k < end) {
		struct series_run r = w->run;
		size_t got;

		r.blk = w->ser.block + 1;
		r.skips = 0;
		got = fast_plain(w->t, &w->cs, &r, smp + k, end - k, n - k);
		w->run = r;
		if (w->ser.nblocks)
			w->ser.block_m[w->ser.block] += (double)got;
		w->ser.n += got;
		k += got;
		if (k < end && split_span(w, smp, k, k + 1, n, NULL, 0, timed))
			return -1;
		k += k < end;
	}
	return 0;
}

/* Step 3 over a part; the first thread (start 0) keeps the times. */
static int split_count_part(struct split_worker *w)
{
	size_t c, k, n, seg;

	for (c = w->c0; c < w->c1; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(w->f, c, &n);

		for (k = 0; smp && k < n; k += seg) {
			seg = series_segment(&w->ser, n - k);
			if (w->start == 0 && w->ser.n < 2) {
				if (seg > 2 - w->ser.n)
					seg = (size_t)(2 - w->ser.n);
				if (split_span(w, smp, k, k + seg, n, NULL, 1, 1))
					return -1;
			} else if (split_fast(w, smp, k, k + seg, n, w->start == 0)) {
				return -1;
			}
		}
	}
	return 0;
}

static void *split_count(void *arg)
{
	struct split_worker *w = arg;
	size_t c, k, n, j;

	/* the rows of its first two samples, for the pairs across its start */
	for (c = w->c0, j = 0; c < w->c1 && j < 2; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(w->f, c, &n);

		for (k = 0; smp && k < n && j < 2; k++, j++)
			w->first[j] = (w->t->slots[pc_find(w->t, &smp[k])].tag & TAG_ROW_MASK) - 1;
	}
	if (split_count_part(w)) {
		w->failed = 1;
		return NULL;
	}
	if (w->start)
		return NULL;
	/* the first thread: the intervals of every later sample, in order;
	 * energy-driven samples need the last one's time only (the spread
	 * is the timer's jitter: stats.c reads it for time-driven ones) */
	for (c = w->c_end; !w->timer && c-- > w->c1;) {
		const struct eq_sample *smp = eqp_sample_chunk(w->f, c, &n);

		if (smp && n) {
			w->run.times.t_last = smp[n - 1].time;
			return NULL;
		}
	}
	for (c = w->c1; w->timer && c < w->c_end; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(w->f, c, &n);

		for (k = 0; smp && k < n; k++)
			eq_series_dt(&w->run.times, smp[k].time, (smp[k].flags & EQ_F_LOST) != 0);
	}
	return NULL;
}

/* Run fn on every worker, the first on this thread; -1 if one failed. */
static int split_run(struct split_worker *w, unsigned nw, void *(*fn)(void *))
{
	unsigned i, started;
	int failed = 0;

	for (started = 1; started < nw; started++)
		if (pthread_create(&w[started].th, NULL, fn, &w[started]))
			break;
	fn(&w[0]);
	/* threads that could not start: their parts here */
	for (i = started; i < nw; i++)
		fn(&w[i]);
	for (i = 1; i < started; i++)
		pthread_join(w[i].th, NULL);
	for (i = 0; i < nw; i++)
		failed |= w[i].failed;
	return failed ? -1 : 0;
}

/*
 * Step 2 for a key first seen in a part (x): its row (row_for's answer
 * for it), and its slot in t made.  With ranges (rows by range, as
 * eq_profile_build_opts makes them on one thread), a user pc's row is its
 * range's: the symbolizer is asked once per range, not once per pc.
 */
static int split_row(struct pc_table *t, struct eq_pcmap *ranges, struct eq_agg *a,
		     struct eq_symbolizer *s, const struct eq_sample *x, uint32_t *row)
{
	size_t j;
	uint32_t v;

	if (!ranges || (x->flags & (EQ_F_KERNEL | EQ_F_IDLE)) || !x->pid)
		return row_by_pc(t, a, s, 0, x, row, 1);
	j = pc_probe(t, x->pc, x->pid, 0);
	if (!t->slots[j].tag) {
		const char *umod;

		if (!(v = eq_pcmap_get(ranges, x->pid, x->pc))) {
			int un = range_miss(ranges, &t->uc, a, s, x, row, &umod);

			if (un < 0)
				return -1;
			v = (*row + 1) | (un ? TAG_UNRESOLVED : 0);
		} else if (v & TAG_UNRESOLVED) {
			/* the row of the extent's class */
			v = (t->uc.v[v & TAG_ROW_MASK].row + 1) | TAG_UNRESOLVED;
		}
		t->slots[j] = (struct pc_slot){ .pc = x->pc, .pid = x->pid, .tag = v };
		if (2 * ++t->count > t->mask && pc_grow(t))
			return -1;
	} else {
		v = t->slots[j].tag;
	}
	*row = (v & TAG_ROW_MASK) - 1;
	return (v & TAG_UNRESOLVED) != 0;
}

struct unres_first {
	const struct eq_sample *x;
	const char *module;
};

/* Step 2: the rows of every part's keys, part after part, and the
 * modules of the unresolved ones (*mods, by slot of t). */
static int split_rows(struct split_worker *w, unsigned nw, struct pc_table *t,
		      struct eq_pcmap *ranges, struct eq_agg *a, struct eq_symbolizer *s,
		      const char ***mods)
{
	struct unres_first *u = NULL;
	size_t nu = 0, capu = 0, i;
	unsigned p;
	int rc = -1;

	for (p = 0; p < nw; p++) {
		for (i = 0; i < w[p].nfirst; i++) {
			const struct eq_sample *x = w[p].firsts[i];
			uint32_t row;
			int un = split_row(t, ranges, a, s, x, &row);

			if (un < 0 || (un && EQ_GROW(u, capu, nu + 1, 16) < 0))
				goto out;
			/* the module, asked as one thread's pass asks it */
			if (un)
				u[nu++] = (struct unres_first){ x, eq_sym_lookup(s, x)->module };
		}
	}
	if (!(*mods = calloc(t->mask + 1, sizeof(**mods))))
		goto out;
	for (i = 0; i < nu; i++)
		(*mods)[pc_find(t, u[i].x)] = u[i].module;
	rc = 0;
out:
	free(u);
	return rc;
}

/* Parts of about equal samples, of whole chunks, at least 2 samples each
 * (the first weighs w0 against 4 for the others: it may keep the times of
 * all); their count. */
static unsigned split_parts(const struct eqp_file *f, unsigned jobs, double w0,
			    struct split_worker *w)
{
	size_t nchunks = eqp_nsample_chunks(f), c = 0;
	uint64_t total = eqp_nsamples(f), done = 0;
	unsigned p;

	for (p = 0; p < jobs && c < nchunks; p++) {
		uint64_t goal = p + 1 == jobs ? total :
				(uint64_t)((double)total * (w0 + 4.0 * p) / (4.0 * jobs - 4.0 + w0));

		w[p].c0 = c;
		w[p].start = done;
		while (c < nchunks && (done < goal || done - w[p].start < 2))
			done += eqp_sample_chunk_len(f, c++);
		w[p].c1 = c;
	}
	/* a last part of fewer than 2 samples joins the one before */
	if (p > 1 && done - w[p - 1].start < 2) {
		p--;
		w[p - 1].c1 = c;
	}
	return p;
}

/* Threads for n samples in nchunks chunks (eq_profile_opts.jobs). */
static unsigned split_jobs(unsigned jobs, uint64_t n, size_t nchunks)
{
	if (jobs == EQ_JOBS_ONLINE) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = cpus > 0 ? (unsigned)cpus : 1;
		if (n / EQ_SPLIT_MIN_SAMPLES < jobs)
			jobs = (unsigned)(n / EQ_SPLIT_MIN_SAMPLES);
	}
	if (jobs > EQ_SPLIT_MAX_JOBS)
		jobs = EQ_SPLIT_MAX_JOBS;
	if (jobs > nchunks)
		jobs = (unsigned)nchunks;
	return jobs ? jobs : 1;
}

/* n more samples with no symbol in module. */
static int unres_add_n(struct unres_list *u, const char *module, uint64_t n)
{
	size_t i;

	for (i = 0; i < u->n && u->v[i].module != module; i++)
		;
	if (i == u->n) {
		if (EQ_GROW(u->v, u->cap, u->n + 1, 16) < 0)
			return -1;
		u->v[u->n++] = (struct eq_unresolved){ .module = module };
	}
	u->v[i].samples += n;
	return 0;
}

/* The samples the fast loops took in each class, added to u: 0, or -1
 * when out of memory. */
static int unres_classes_add(const struct unres_classes *c, struct unres_list *u)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].taken && unres_add_n(u, c->v[i].module, c->v[i].taken) < 0)
			return -1;
	return 0;
}

/* A part's counts added to a's (its batch log into a's table where the
 * cells hold them, else into a's log). */
static int split_join_counts(struct eq_agg *a, struct agg_counts *cs)
{
	size_t i;

	for (i = 0; i < a->nrows; i++) {
		if (blk_flush(cs, (uint32_t)i))
			return -1;
		a->cs.rc[i].samples += cs->rc[i].samples;
		a->cs.rc[i].same[0] += cs->rc[i].same[0];
		a->cs.rc[i].same[1] += cs->rc[i].same[1];
	}
	for (i = 0; i < cs->nlog; i++) {
		uint64_t e = cs->log[i];

		if (blk_put(&a->cs, (uint32_t)(e >> 32), ((uint32_t)e >> AGG_BLK_COUNT_BITS) + 1,
			    (uint32_t)e & AGG_BLK_COUNT_MAX))
			return -1;
	}
	return 0;
}

/* The parts joined into a: counts, pairs across the parts' starts, the
 * series' ends and blocks, losses, samples with no symbol. */
static int split_join(struct split_worker *w, unsigned nw, struct eq_agg *a,
		      uint64_t *lost_marks, struct unres_list *unres)
{
	struct agg_series *ser = &a->ser;
	unsigned p, b;
	size_t i;

	for (p = 0; p < nw; p++) {
		if (split_join_counts(a, &w[p].cs))
			return -1;
		if (p) {
			/* its first samples after the previous part's last two */
			uint32_t l0 = w[p - 1].run.p0, l1 = w[p - 1].run.p1;
			uint32_t f0 = w[p].first[0], f1 = w[p].first[1];

			a->cs.rc[f0].same[0] += f0 == l0;
			a->cs.rc[f0].same[1] += f0 == l1;
			a->cs.rc[f1].same[1] += f1 == l0;
		}
		for (b = 0; b < ser->nblocks; b++)
			ser->block_m[b] += w[p].ser.block_m[b];
		*lost_marks += w[p].lost;
		for (i = 0; i < w[p].unres.n; i++)
			if (unres_add_n(unres, w[p].unres.v[i].module, w[p].unres.v[i].samples) < 0)
				return -1;
	}
	ser->first[0] = w[0].ser.first[0];
	ser->first[1] = w[0].ser.first[1];
	ser->prev[0] = w[nw - 1].run.p0;
	ser->prev[1] = w[nw - 1].run.p1;
	ser->times = w[0].run.times;
	ser->block = w[nw - 1].ser.block;
	ser->next_boundary = w[nw - 1].ser.next_boundary;
	ser->n = w[nw - 1].ser.n;
	return 0;
}

static void split_free(struct split_worker *w, unsigned nw)
{
	unsigned p;

	for (p = 0; p < nw; p++) {
		eq_big_free(w[p].seen.slots);
		free(w[p].firsts);
		eq_agg_counts_free(&w[p].cs);
		free(w[p].ser.block_m);
		free(w[p].unres.v);
	}
	free(w);
}

/* The whole recording's samples into a on nw threads (parts set). */
static int split_build(struct split_worker *w, unsigned nw, struct pc_table *t,
		       struct eq_agg *a, struct eq_symbolizer *s, uint64_t *lost_marks,
		       struct unres_list *unres)
{
	struct eq_pcmap ranges = { 0 };
	const char **mods = NULL;
	unsigned p;
	int rc = -1;

	if ((by_ranges(a->by) && eq_pcmap_init(&ranges)) || split_run(w, nw, split_scan) ||
	    split_rows(w, nw, t, by_ranges(a->by) ? &ranges : NULL, a, s, &mods))
		goto out;
	for (p = 0; p < nw; p++) {
		struct split_worker *x = &w[p];

		free(x->firsts);
		eq_big_free(x->seen.slots);
		x->firsts = NULL;
		x->seen.slots = NULL;
		x->t = t;
		x->mods = mods;
		x->ser = a->ser;
		x->ser.n = x->start;
		x->ser.block_m = NULL;
		x->run = (struct series_run){ .p0 = ROW_NONE, .p1 = ROW_NONE, .times = a->ser.times };
		x->first[0] = x->first[1] = ROW_NONE;
		if (eq_agg_counts_reserve(&x->cs, a->nrows) ||
		    (a->ser.nblocks && !(x->ser.block_m = calloc(a->ser.nblocks, sizeof(double)))))
			goto out;
	}
	if (split_run(w, nw, split_count) || split_join(w, nw, a, lost_marks, unres))
		goto out;
	rc = 0;
out:
	eq_pcmap_free(&ranges);
	free(mods);
	return rc;
}

/* eq_profile_build_opts's samples on several threads: 1 when it did them,
 * 0 when one thread is to (a small recording, a view that does not
 * split, jobs 1), -1 when out of memory. */
static int split_try(const struct eqp_file *f, struct eq_symbolizer *s, struct pc_table *t,
		     struct eq_agg *a, unsigned jobs, uint64_t *lost_marks,
		     struct unres_list *unres)
{
	int timer = eqp_meta(f)->mode == EQP_MODE_TIME;
	struct split_worker *w;
	unsigned nw, p;
	int rc;

	if (eq_sym_multi_space(s) || a->by == EQ_BY_PID || a->by == EQ_BY_THREAD ||
	    (a->flags & EQ_PROFILE_EXCLUDE_IDLE) || a->keys.n || a->filter)
		return 0;
	nw = split_jobs(jobs, eqp_nsamples(f), eqp_nsample_chunks(f));
	if (nw < 2)
		return 0;
	if (!(w = calloc(nw, sizeof(*w))))
		return -1;
	/* the first thread's pass over the later parts' times (time-driven
	 * samples only) costs about as much as counting them: it reads them
	 * again (perf record of --jobs 2 over 20 M samples at 64 pcs: with
	 * parts 3:4, 28% of the samples on the first thread and 18% on the
	 * other); 1:4 evens them */
	nw = split_parts(f, nw, 4.0, w);
	for (p = 0; p < nw; p++) {
		w[p].s0 = w[p].c0;       /* step 1 in equal parts */
		w[p].s1 = w[p].c1;
	}
	if (timer && split_parts(f, nw, 1.0, w) != nw)
		split_parts(f, nw, 4.0, w);
	for (p = 0; p < nw; p++) {
		w[p].f = f;
		w[p].c_end = w[nw - 1].c1;
		w[p].timer = timer;
	}
	rc = nw < 2 ? 0 : split_build(w, nw, t, a, s, lost_marks, unres) ? -1 : 1;
	split_free(w, nw);
	return rc;
}

struct eq_profile *eq_profile_build(const struct eqp_file *f, struct eq_symbolizer *s,
				    enum eq_by by, unsigned flags, struct eq_error *err)
{
	return eq_profile_build_progress(f, s, by, flags, NULL, NULL, err);
}

struct eq_profile *eq_profile_build_progress(const struct eqp_file *f,
					     struct eq_symbolizer *s, enum eq_by by,
					     unsigned flags, eq_progress_fn *progress,
					     void *arg, struct eq_error *err)
{
	struct eq_profile_opts o = { .flags = flags, .progress = progress, .progress_arg = arg };

	return eq_profile_build_opts(f, s, by, &o, err);
}

struct eq_profile *eq_profile_build_opts(const struct eqp_file *f, struct eq_symbolizer *s,
					 enum eq_by by, const struct eq_profile_opts *o,
					 struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	struct pc_table t = { 0 };
	struct eq_pcmap ranges = { 0 }, kranges = { 0 };
	struct key_table kt = { 0 };
	struct eq_agg *a = eq_agg_new(by, o->flags, err);
	struct eq_profile *p;
	uint64_t lost_marks = 0, done = 0;
	struct unres_list unres = { 0 };
	eq_progress_fn *progress = o->progress;
	void *arg = o->progress_arg;
	struct range_slices rs = { 0 };
	size_t nslices;
	int slow, split = 0;
	size_t c, i;

	if (!a)
		return NULL;
	if (o->keys)
		a->keys = *o->keys;
	if (eq_filter_active(o->filter))
		a->filter = o->filter;
	slow = a->keys.n || a->filter;
	if (eq_range_active(o->range)) {
		if (eq_range_slices(f, o->range, &rs) < 0)
			goto oom;
		nslices = rs.n;
	} else {
		nslices = eqp_nsample_chunks(f);
	}
	if (pc_grow(&t) || series_init(a, rs.v ? rs.total : eqp_nsamples(f), m->clock_hz))
		goto oom;
	if (!rs.v && (split = split_try(f, s, &t, a, o->jobs, &lost_marks, &unres)) < 0)
		goto oom;
	if (split && progress)
		progress(eqp_nsamples(f), eqp_nsamples(f), arg);
	/* one row over a procedure's (a module's, a process's, a line
	 * record's) pcs: rows by range (not by instruction), where each pid is
	 * one address space */
	if (!split && !slow && !eq_sym_multi_space(s) && by_ranges(by)) {
		if (eq_pcmap_init(&ranges))
			goto oom;
		t.ranges = &ranges;
	}
	/* the same for key sets and filters that read no line (keys_ranged) */
	if (!split && slow && !eq_sym_multi_space(s) && keys_ranged(a)) {
		if (eq_pcmap_init(&kranges))
			goto oom;
		kt.ranges = &kranges;
	}
	for (c = 0; !split && c < nslices; c++) {
		struct eqp_chunk_check ck = { 0 };
		size_t n;
		/* a whole chunk is checked as it is read; a range's slices were
		 * checked when they were cut */
		const struct eq_sample *smp = rs.v ? rs.v[c].smp :
					      eqp_sample_chunk_unchecked(f, c, &n, &ck);

		if (rs.v)
			n = rs.v[c].n;
		if (smp && (slow ? count_chunk_keys(&kt, a, s, smp, n, &ck, &lost_marks, &unres) :
			    count_chunk(&t, a, s, smp, n, &ck, &lost_marks, &unres)))
			goto oom;
		eqp_chunk_check_end(f, c, &ck);
		done += smp ? n : 0;
		if (progress)
			progress(done, rs.v ? rs.total : eqp_nsamples(f), arg);
	}
	eq_range_slices_free(&rs);
	eq_big_free(t.slots);
	eq_pcmap_free(&ranges);
	eq_pcmap_free(&kranges);
	eq_big_free(kt.slots);
	free(kt.spaces);
	i = unres_classes_add(&t.uc, &unres) | unres_classes_add(&kt.uc, &unres);
	unres_classes_free(&kt.uc);
	unres_classes_free(&t.uc);
	if (i || eq_agg_counts_fold(a))
		goto oom_freed;
	for (i = 0; i < a->nrows; i++) {
		const struct eq_loc *l = a->rows[i].loc;

		a->total += a->rows[i].samples;
		if (l && l->kind == EQ_LOC_IDLE)
			a->idle += a->rows[i].samples;
		if (unres_by_row(a) && l && a->rows[i].samples &&
		    (l->kind == EQ_LOC_UNRESOLVED || l->kind == EQ_LOC_NO_MODULE) &&
		    unres_add_n(&unres, a->rows[i].key.a, a->rows[i].samples) < 0)
			goto oom_freed;
	}
	p = eq_agg_finish(a, m->mode, m->quantum_j,
			  m->mode == EQP_MODE_TIME ? eq_profile_period_s(f) : 0,
			  eqp_lost_total(f), err);
	if (p) {
		if (eq_range_active(o->range)) {
			p->ranged = 1;
			eq_range_edges(o->range, m->clock_hz > 0 ? m->clock_hz : 1e9,
				       &p->range_from_s, &p->range_to_s);
		}
		p->lost_marks = lost_marks;
		p->skipped = *eqp_skipped(f);
		p->note = eqp_meta_get(f, "note");
		if (unres.n)
			qsort(unres.v, unres.n, sizeof(*unres.v), by_unres_samples);
		for (i = 0; i < unres.n; i++) {
			unres.v[i].why = eq_sym_module_note(s, unres.v[i].module);
			p->unresolved_samples += unres.v[i].samples;
		}
		p->unresolved = unres.v;
		p->nunresolved = unres.n;
	} else {
		free(unres.v);
	}
	return p;
oom:
	eq_range_slices_free(&rs);
	eq_big_free(t.slots);
	eq_pcmap_free(&ranges);
	eq_pcmap_free(&kranges);
	eq_big_free(kt.slots);
	free(kt.spaces);
	unres_classes_free(&kt.uc);
	unres_classes_free(&t.uc);
oom_freed:
	free(unres.v);
	eq_agg_free(a);
	eq_fail(err, "profile of %s: out of memory", eqp_path(f));
	return NULL;
}
