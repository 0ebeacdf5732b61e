/*
 * pcmap.h - private to analysis/profile: a pc -> value map filled a range
 * at a time, so that samples spread over many pcs of few functions cost
 * one lookup in a table that stays in the cache (issue 30).
 *
 * Addresses of one space (a number the caller picks: the pid) are split in
 * 4 KiB pages of 16-byte granules, one 32-bit entry a granule: 1 KiB a page
 * of code touched, found through a small hash table of pages.  A granule
 * holds 0 (nothing known yet), a value, or, when the edge of a range cuts
 * it (functions need not start on 16 bytes), EQ_PCMAP_SUB and the index of
 * 16 entries of its own, one a byte: 64 bytes a function edge.
 */
#ifndef EQ_PROFILE_PCMAP_H
#define EQ_PROFILE_PCMAP_H

#include <stddef.h>
#include <stdint.h>

#define EQ_PCMAP_PAGE_SHIFT 12
#define EQ_PCMAP_GRAN_SHIFT 4
#define EQ_PCMAP_GRANS (1u << (EQ_PCMAP_PAGE_SHIFT - EQ_PCMAP_GRAN_SHIFT))
#define EQ_PCMAP_SUB 0x40000000u   /* in no value */

struct eq_pcmap_slot {
	uint64_t page;         /* pc >> EQ_PCMAP_PAGE_SHIFT */
	uint32_t space;
	uint32_t *grans;       /* EQ_PCMAP_GRANS entries; NULL: an empty slot */
};

/* The last pcs looked up, by a hash of the pc: with few pcs they are all
 * here, in 16 KiB, and cost a compare. */
#define EQ_PCMAP_RECENT 1024
struct eq_pcmap_recent {
	uint64_t pc;
	uint32_t space;        /* 0: an empty entry */
	uint32_t v;
};

struct eq_pcmap {
	struct eq_pcmap_recent *recent;
	struct eq_pcmap_slot *slots;
	size_t mask, count;
	uint32_t (*sub)[1u << EQ_PCMAP_GRAN_SHIFT];  /* cut granules' entries */
	size_t nsub, capsub;
};

static inline size_t eq_pcmap_hash(uint64_t page, uint32_t space)
{
	return (size_t)(((page ^ ((uint64_t)space << 40)) * 0x9e3779b97f4a7c15ull) >> 24);
}

/* The entry of pc in a page's granules. */
static inline uint32_t eq_pcmap_at(const struct eq_pcmap *m, const uint32_t *grans, uint64_t pc)
{
	uint32_t v = grans[(pc >> EQ_PCMAP_GRAN_SHIFT) & (EQ_PCMAP_GRANS - 1)];

	if (__builtin_expect((v & EQ_PCMAP_SUB) != 0, 0))
		v = m->sub[v & ~EQ_PCMAP_SUB][pc & ((1u << EQ_PCMAP_GRAN_SHIFT) - 1)];
	return v;
}

/* eq_pcmap_get for a page not in its hash's own slot. */
uint32_t eq_pcmap_get_probe(const struct eq_pcmap *m, uint32_t space, uint64_t pc);

/* The value at pc in space (not 0: no space): 0 when no range filled
 * there holds it.  The map is eq_pcmap_init'ed. */
static inline uint32_t eq_pcmap_get(struct eq_pcmap *m, uint32_t space, uint64_t pc)
{
	struct eq_pcmap_recent *r = &m->recent[(pc ^ (pc >> 10) ^ space) & (EQ_PCMAP_RECENT - 1)];
	uint64_t page = pc >> EQ_PCMAP_PAGE_SHIFT;
	const struct eq_pcmap_slot *sl;
	uint32_t v;

	if (__builtin_expect(r->pc == pc && r->space == space, 1))
		return r->v;
	sl = &m->slots[eq_pcmap_hash(page, space) & m->mask];
	/* (an empty slot is page 0 of space 0) */
	v = sl->page == page && sl->space == space ? eq_pcmap_at(m, sl->grans, pc) :
	    eq_pcmap_get_probe(m, space, pc);
	if (v)
		*r = (struct eq_pcmap_recent){ pc, space, v };
	return v;
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
