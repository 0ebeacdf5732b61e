/*
 * pcmap.h - private to analysis/profile: a pc -> value map filled a range
 * at a time, so that samples spread over many pcs of few functions cost
 * one lookup in a table that stays in the cache (issue 30).
 *
 * Addresses of one space (a number the caller picks: the pid) are split in
 * 4 KiB pages of 16-byte granules, one 32-bit entry a granule: 1 KiB a page
 * of code touched, found through a small hash table of pages.  A granule
 * holds 0 (nothing known yet), a value, or, when the edge of a range cuts
 * it (functions and lines need not start on 16 bytes), EQ_PCMAP_SUB, the
 * bytes 1-15 at which a run of equal entries starts (bits 15-29) and the
 * index (bits 0-14) of the runs' values, one after the other in the
 * page's vals: 4 bytes a run where one a byte took 64 bytes a granule, so
 * that a map of line records, cut nearly everywhere, stays in the
 * second-level cache.
 */
#ifndef EQ_PROFILE_PCMAP_H
#define EQ_PROFILE_PCMAP_H

#include <stddef.h>
#include <stdint.h>

#define EQ_PCMAP_PAGE_SHIFT 12
#define EQ_PCMAP_GRAN_SHIFT 4
#define EQ_PCMAP_GRANS (1u << (EQ_PCMAP_PAGE_SHIFT - EQ_PCMAP_GRAN_SHIFT))
#define EQ_PCMAP_SUB 0x40000000u   /* in no value */
#define EQ_PCMAP_RUN_SHIFT 15      /* a cut granule's run starts */
#define EQ_PCMAP_VALS (1u << EQ_PCMAP_RUN_SHIFT)  /* a page's vals, above all */

struct eq_pcmap_slot {
	uint64_t page;         /* pc >> EQ_PCMAP_PAGE_SHIFT */
	uint32_t space;
	uint16_t nvals, capvals;  /* vals used (some by runs no granule has
				     now), and room for */
	uint32_t *grans;       /* EQ_PCMAP_GRANS entries; NULL: an empty slot */
	uint32_t *vals;        /* cut granules' runs' values */
};

/*
 * The last pcs looked up, by a hash of the pc: with few pcs they are all
 * here, in 16 KiB, and cost a compare.  With many, the compare mostly
 * fails and costs a miss in the first-level cache and a store.  So after
 * EQ_PCMAP_ON misses, EQ_PCMAP_TRIAL lookups are counted out of line, hits
 * and misses; when fewer than half found their pc, recent is off
 * (m->recent is &m->none, an entry of no space that stays in the cache) for
 * EQ_PCMAP_OFF lookups, then tried again.  Nothing is counted on a hit.
 */
#define EQ_PCMAP_RECENT 1024
#define EQ_PCMAP_ON 65536
#define EQ_PCMAP_TRIAL 16384
#define EQ_PCMAP_OFF (1u << 20)
enum { EQ_PCMAP_MODE_ON, EQ_PCMAP_MODE_OFF, EQ_PCMAP_MODE_TRIAL };
struct eq_pcmap_recent {
	uint64_t pc;
	uint32_t space;        /* 0: an empty entry */
	uint32_t v;
};

/* Where pc of space goes in a cache of recent pcs, before the mask
 * (EQ_PCMAP_RECENT - 1, or m->rmask). */
static inline uint64_t eq_pcmap_recent_hash(uint64_t pc, uint32_t space)
{
	return pc ^ (pc >> 10) ^ space;
}

/*
 * pc of space, value v, into the cache of recent pcs rec (EQ_PCMAP_RECENT
 * entries), at its place; what was there moves to the entry beside it
 * (the index ^ 1), where the loops that read the cache most look next.
 * Two pcs whose places are the same are both kept: with 64 pcs drawn at
 * random among 1,024 places a few pairs meet, and each would push the
 * other out at every other sample (in bench/speed's 100 M samples at 64
 * pcs, 1.5% of the lookups missed).
 */
static inline void eq_pcmap_recent_put(struct eq_pcmap_recent *rec, uint64_t pc, uint32_t space,
				       uint32_t v)
{
	size_t h = eq_pcmap_recent_hash(pc, space) & (EQ_PCMAP_RECENT - 1);

	if (rec[h].space && (rec[h].pc != pc || rec[h].space != space))
		rec[h ^ 1] = rec[h];
	rec[h] = (struct eq_pcmap_recent){ pc, space, v };
}

/* The entry of pc of space in rec (as eq_pcmap_recent_put leaves it), or
 * NULL. */
static inline const struct eq_pcmap_recent *
eq_pcmap_recent_find(const struct eq_pcmap_recent *rec, uint64_t pc, uint32_t space)
{
	size_t h = eq_pcmap_recent_hash(pc, space) & (EQ_PCMAP_RECENT - 1);

	if (__builtin_expect(rec[h].pc == pc && rec[h].space == space, 1))
		return &rec[h];
	h ^= 1;
	return rec[h].pc == pc && rec[h].space == space ? &rec[h] : NULL;
}

struct eq_pcmap {
	struct eq_pcmap_recent *recent;  /* pcs (on), or &none */
	size_t rmask;          /* EQ_PCMAP_RECENT - 1 (on), or 0 */
	int mode;              /* EQ_PCMAP_MODE_ */
	int store;             /* a miss is stored in recent (not off) */
	uint64_t left;         /* misses (lookups while off or in a trial)
				  before eq_pcmap_tune */
	uint64_t hits, gets;   /* in the trial */
	struct eq_pcmap_recent *pcs, none;  /* EQ_PCMAP_RECENT, and one */
	struct eq_pcmap_slot *slots;
	size_t mask, count;
};

static inline size_t eq_pcmap_hash(uint64_t page, uint32_t space)
{
	return (size_t)(((page ^ ((uint64_t)space << 40)) * 0x9e3779b97f4a7c15ull) >> 24);
}

/* The bits set in each byte value: eq_pcmap_ones without a call to
 * libgcc where the CPU has no popcnt instruction. */
extern const uint8_t eq_pcmap_ones8[256];

/* The bits set in x (below 2^15). */
static inline uint32_t eq_pcmap_ones(uint32_t x)
{
	return (uint32_t)eq_pcmap_ones8[x & 0xff] + eq_pcmap_ones8[x >> 8];
}

/* The entry of pc in its page's slot: a cut granule's value is that of
 * the run holding pc, the runs starting at bytes 1 to pc's. */
static inline uint32_t eq_pcmap_at(const struct eq_pcmap_slot *sl, uint64_t pc)
{
	uint32_t v = sl->grans[(pc >> EQ_PCMAP_GRAN_SHIFT) & (EQ_PCMAP_GRANS - 1)];

	if (__builtin_expect((v & EQ_PCMAP_SUB) != 0, 0)) {
		uint32_t below = (v >> EQ_PCMAP_RUN_SHIFT) &
				 ((1u << (pc & ((1u << EQ_PCMAP_GRAN_SHIFT) - 1))) - 1);

		v = sl->vals[(v & (EQ_PCMAP_VALS - 1)) + eq_pcmap_ones(below)];
	}
	return v;
}

/* eq_pcmap_get for a page not in its hash's own slot. */
uint32_t eq_pcmap_get_probe(const struct eq_pcmap *m, uint32_t space, uint64_t pc);

/* What follows EQ_PCMAP_ON misses of recent, or EQ_PCMAP_OFF lookups
 * with it off: a trial, whose every lookup comes here, in m->none
 * (pcmap.c). */
void eq_pcmap_tune(struct eq_pcmap *m);

/* The value at pc in space (not 0: no space): 0 when no range filled
 * there holds it.  The map is eq_pcmap_init'ed. */
static inline __attribute__((always_inline)) uint32_t
eq_pcmap_get(struct eq_pcmap *m, uint32_t space, uint64_t pc)
{
	struct eq_pcmap_recent *r = &m->recent[eq_pcmap_recent_hash(pc, space) & m->rmask];
	const struct eq_pcmap_slot *sl;
	uint64_t page;
	uint32_t v;

	if (__builtin_expect(r->pc == pc && r->space == space, 1))
		return r->v;
	/* (on, the entry beside it: eq_pcmap_recent_put) */
	if (m->rmask) {
		const struct eq_pcmap_recent *a = &m->recent[(size_t)(r - m->recent) ^ 1];

		if (a->pc == pc && a->space == space)
			return a->v;
	}
	page = pc >> EQ_PCMAP_PAGE_SHIFT;
	sl = &m->slots[eq_pcmap_hash(page, space) & m->mask];
	/* (an empty slot is page 0 of space 0) */
	v = sl->page == page && sl->space == space ? eq_pcmap_at(sl, pc) :
	    eq_pcmap_get_probe(m, space, pc);
	/* (a value once there stays: what recent has is never stale; off,
	 * nothing is stored, for the next lookup not to wait on this one) */
	if (v && m->store) {
		if (m->rmask)
			eq_pcmap_recent_put(m->recent, pc, space, v);
		else
			*r = (struct eq_pcmap_recent){ pc, space, v };
	}
	if (__builtin_expect(--m->left == 0, 0))
		eq_pcmap_tune(m);
	return v;
}

/*
 * What a loop keeps of the map in registers, with the mode of the recent
 * cache fixed while it runs (eq_pcmap_get reads the map through m at every
 * lookup, and counts down m->left there): from eq_pcmap_reg_load to
 * eq_pcmap_reg_store, during which nothing is filled.  on: the mode is
 * EQ_PCMAP_MODE_ON, and only the recent cache is kept (a miss costs a
 * call, eq_pcmap_miss); off: EQ_PCMAP_MODE_OFF, only the pages (every
 * lookup counted in n).  In a trial every lookup goes through eq_pcmap_get.
 */
struct eq_pcmap_reg {
	struct eq_pcmap_recent *recent;  /* on: EQ_PCMAP_RECENT of them */
	const struct eq_pcmap_slot *slots;
	size_t mask;
	uint64_t n;            /* off: lookups m->left counts down */
};

static inline __attribute__((always_inline)) void
eq_pcmap_reg_load(const struct eq_pcmap *m, struct eq_pcmap_reg *g)
{
	*g = (struct eq_pcmap_reg){ m->recent, m->slots, m->mask, 0 };
}

/* The loop's lookups counted down; eq_pcmap_tune when they reached
 * m->left (up to a loop's lookups later than eq_pcmap_get would: which
 * mode the cache is in changes no value). */
static inline void eq_pcmap_reg_store(struct eq_pcmap *m, const struct eq_pcmap_reg *g)
{
	if (g->n < m->left)
		m->left -= g->n;
	else
		eq_pcmap_tune(m);
}

/* A miss of the recent cache in mode on: eq_pcmap_get's, except that
 * m->left stops at 0 (eq_pcmap_reg_store tunes). */
uint32_t eq_pcmap_miss(struct eq_pcmap *m, uint32_t space, uint64_t pc);

/* eq_pcmap_get in mode on (1: EQ_PCMAP_MODE_ON) or off (0:
 * EQ_PCMAP_MODE_OFF) through g. */
static inline __attribute__((always_inline)) uint32_t
eq_pcmap_reg_get(struct eq_pcmap *m, struct eq_pcmap_reg *g, uint32_t space, uint64_t pc,
		 const int on)
{
	const struct eq_pcmap_slot *sl;
	uint64_t page = pc >> EQ_PCMAP_PAGE_SHIFT;

	if (on) {
		const struct eq_pcmap_recent *r = eq_pcmap_recent_find(g->recent, pc, space);

		return __builtin_expect(r != NULL, 1) ? r->v : eq_pcmap_miss(m, space, pc);
	}
	g->n++;
	sl = &g->slots[eq_pcmap_hash(page, space) & g->mask];
	return sl->page == page && sl->space == space ? eq_pcmap_at(sl, pc) :
	       eq_pcmap_get_probe(m, space, pc);
}

/*
 * value (not 0, EQ_PCMAP_SUB clear) for the pcs [first, last] (inclusive)
 * of space, which hold pc, within pc's page (pcs filled already keep what
 * they have: ranges filled are to agree where they meet).  0, or -1 when
 * out of memory.
 */
int eq_pcmap_fill(struct eq_pcmap *m, uint32_t space, uint64_t pc, uint64_t first,
		  uint64_t last, uint32_t value);
/* An empty map (m zeroed): 0, or -1 when out of memory. */
int eq_pcmap_init(struct eq_pcmap *m);
void eq_pcmap_free(struct eq_pcmap *m);

#endif
