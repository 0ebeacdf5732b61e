/*
 * pcmap.c - the pc -> value map of pcmap.h: pages found by hash, filled a
 * range at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/pcmap.h"
#include "util/grow.h"

#define GRAN (1u << EQ_PCMAP_GRAN_SHIFT)

static int pcmap_grow(struct eq_pcmap *m)
{
	size_t newmask = m->mask ? 2 * m->mask + 1 : 255, i, j;
	struct eq_pcmap_slot *slots = calloc(newmask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; m->slots && i <= m->mask; i++) {
		const struct eq_pcmap_slot *s = &m->slots[i];

		if (!s->grans)
			continue;
		for (j = eq_pcmap_hash(s->page, s->space) & newmask; slots[j].grans;
		     j = (j + 1) & newmask)
			;
		slots[j] = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->mask = newmask;
	return 0;
}

/* The entries of a page of space, made (cleared) on first use; NULL when
 * out of memory. */
static uint32_t *pcmap_page(struct eq_pcmap *m, uint32_t space, uint64_t page)
{
	size_t j;

	if (2 * (m->count + 1) > m->mask && pcmap_grow(m))
		return NULL;
	for (j = eq_pcmap_hash(page, space) & m->mask; m->slots[j].grans; j = (j + 1) & m->mask)
		if (m->slots[j].page == page && m->slots[j].space == space)
			return m->slots[j].grans;
	m->slots[j].grans = calloc(EQ_PCMAP_GRANS, sizeof(uint32_t));
	if (!m->slots[j].grans)
		return NULL;
	m->slots[j].page = page;
	m->slots[j].space = space;
	m->count++;
	return m->slots[j].grans;
}

/* A granule from lo the range cuts: its own entries, one a byte (made on
 * first use), filled over [first, last]. */
static int sub_fill(struct eq_pcmap *m, uint32_t *e, uint64_t lo, uint64_t first,
		    uint64_t last, uint32_t value)
{
	uint32_t *sub;
	unsigned i;

	if (!*e) {
		if (m->nsub >= EQ_PCMAP_SUB || EQ_GROW(m->sub, m->capsub, m->nsub + 1, 256) < 0)
			return -1;
		memset(m->sub[m->nsub], 0, sizeof(m->sub[m->nsub]));
		*e = EQ_PCMAP_SUB | (uint32_t)m->nsub++;
	}
	sub = m->sub[*e & ~EQ_PCMAP_SUB];
	for (i = 0; i < GRAN; i++)
		if (!sub[i] && lo + i >= first && lo + i <= last)
			sub[i] = value;
	return 0;
}

int eq_pcmap_fill(struct eq_pcmap *m, uint32_t space, uint64_t pc, uint64_t first,
		  uint64_t last, uint32_t value)
{
	uint64_t page = pc >> EQ_PCMAP_PAGE_SHIFT, base = page << EQ_PCMAP_PAGE_SHIFT;
	uint64_t top = base + ((1u << EQ_PCMAP_PAGE_SHIFT) - 1), g;
	uint32_t *grans = pcmap_page(m, space, page);

	if (!grans)
		return -1;
	if (first < base)
		first = base;
	if (last > top)
		last = top;
	/* granules from first's to last's, both within the page */
	for (g = first >> EQ_PCMAP_GRAN_SHIFT; g <= last >> EQ_PCMAP_GRAN_SHIFT; g++) {
		uint64_t lo = g << EQ_PCMAP_GRAN_SHIFT, hi = lo + (GRAN - 1);
		uint32_t *e = &grans[g & (EQ_PCMAP_GRANS - 1)];

		if (!*e && first <= lo && hi <= last)
			*e = value;
		else if ((!*e || (*e & EQ_PCMAP_SUB)) && sub_fill(m, e, lo, first, last, value))
			return -1;
	}
	return 0;
}

uint32_t eq_pcmap_get_probe(const struct eq_pcmap *m, uint32_t space, uint64_t pc)
{
	uint64_t page = pc >> EQ_PCMAP_PAGE_SHIFT;
	size_t j;

	for (j = eq_pcmap_hash(page, space) & m->mask; m->slots[j].grans; j = (j + 1) & m->mask)
		if (m->slots[j].page == page && m->slots[j].space == space)
			return eq_pcmap_at(m, m->slots[j].grans, pc);
	return 0;
}

int eq_pcmap_init(struct eq_pcmap *m)
{
	if (!m->recent && !(m->recent = calloc(EQ_PCMAP_RECENT, sizeof(*m->recent))))
		return -1;
	return m->slots ? 0 : pcmap_grow(m);
}

void eq_pcmap_free(struct eq_pcmap *m)
{
	size_t i;

	for (i = 0; m->slots && i <= m->mask; i++)
		free(m->slots[i].grans);
	free(m->slots);
	free(m->sub);
	free(m->recent);
	memset(m, 0, sizeof(*m));
}
