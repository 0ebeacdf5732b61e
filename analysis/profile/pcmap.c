/*
 * pcmap.c - the pc -> value map of pcmap.h: pages found by hash, filled a
 * range at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/pcmap.h"

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

/* The slot of a page of space, made (its entries cleared) on first use;
 * NULL when out of memory. */
static struct eq_pcmap_slot *pcmap_page(struct eq_pcmap *m, uint32_t space, uint64_t page)
{
	size_t j;

	if (2 * (m->count + 1) > m->mask && pcmap_grow(m))
		return NULL;
	for (j = eq_pcmap_hash(page, space) & m->mask; m->slots[j].grans; j = (j + 1) & m->mask)
		if (m->slots[j].page == page && m->slots[j].space == space)
			return &m->slots[j];
	m->slots[j].grans = calloc(EQ_PCMAP_GRANS, sizeof(uint32_t));
	if (!m->slots[j].grans)
		return NULL;
	m->slots[j].page = page;
	m->slots[j].space = space;
	m->count++;
	return &m->slots[j];
}

/* The runs of a cut granule's entry e. */
static unsigned runs_of(uint32_t e)
{
	return 1 + eq_pcmap_ones((e >> EQ_PCMAP_RUN_SHIFT) & (EQ_PCMAP_VALS - 1));
}

/*
 * Room for r runs at the end of the page's vals: their index, or -1 when
 * out of memory.  When full, the vals are copied to room for twice what
 * the granules have now (with r), in their order, and what cut_fill left
 * behind dropped: a page's granules have 4096 runs at most, so the index
 * stays below EQ_PCMAP_VALS, and a page is copied once every so many runs.
 */
static int64_t vals_room(struct eq_pcmap_slot *sl, uint32_t r)
{
	uint32_t live = r, cap = 16, n = 0, *vals;
	unsigned g;

	if (sl->nvals + r <= sl->capvals) {
		sl->nvals = (uint16_t)(sl->nvals + r);
		return sl->nvals - r;
	}
	for (g = 0; g < EQ_PCMAP_GRANS; g++)
		live += sl->grans[g] & EQ_PCMAP_SUB ? runs_of(sl->grans[g]) : 0;
	while (cap < 2 * live)
		cap *= 2;
	if (!(vals = malloc(cap * sizeof(*vals))))
		return -1;
	for (g = 0; g < EQ_PCMAP_GRANS; g++) {
		uint32_t e = sl->grans[g];

		if (!(e & EQ_PCMAP_SUB))
			continue;
		memcpy(&vals[n], &sl->vals[e & (EQ_PCMAP_VALS - 1)], runs_of(e) * sizeof(*vals));
		sl->grans[g] = (e & ~(EQ_PCMAP_VALS - 1)) | n;
		n += runs_of(e);
	}
	free(sl->vals);
	sl->vals = vals;
	sl->capvals = (uint16_t)cap;
	sl->nvals = (uint16_t)(n + r);
	return n;
}

/* A run of value v from byte at on, after runs[0, *r): one run with the
 * last when equal. */
static inline void cut_run(uint32_t *runs, uint32_t *r, uint32_t *starts, unsigned at,
			   uint32_t v)
{
	if (*r && runs[*r - 1] == v)
		return;
	*starts |= at ? 1u << (at - 1) : 0;
	runs[(*r)++] = v;
}

/* A granule from lo the range cuts (*e 0 or cut): value over [first,
 * last] where nothing is yet, kept as one value when that fills it, else
 * as runs (in place when there are no more of them than before). */
static int cut_fill(struct eq_pcmap_slot *sl, uint32_t *e, uint64_t lo, uint64_t first,
		    uint64_t last, uint32_t value)
{
	uint32_t byte[GRAN], runs[GRAN], starts = 0, r = 0;
	uint32_t was = *e ? (*e >> EQ_PCMAP_RUN_SHIFT) & (EQ_PCMAP_VALS - 1) : 0;
	const uint32_t *had = *e ? &sl->vals[*e & (EQ_PCMAP_VALS - 1)] : NULL;
	int64_t at;
	unsigned i, k = 0;

	if (!*e && first <= last) {
		/* an empty granule: value over bytes a to b, 0 around them */
		unsigned a = first > lo ? (unsigned)(first - lo) : 0;
		unsigned b = last < lo + (GRAN - 1) ? (unsigned)(last - lo) : GRAN - 1;

		if (a)
			runs[r++] = 0;
		runs[r++] = value;
		if (b < GRAN - 1)
			runs[r++] = 0;
		if (r == 1) {
			*e = value;
			return 0;
		}
		starts = (a ? 1u << (a - 1) : 0) | (b < GRAN - 1 ? 1u << b : 0);
		if ((at = vals_room(sl, r)) < 0)
			return -1;
		memcpy(&sl->vals[at], runs, r * sizeof(*runs));
		*e = EQ_PCMAP_SUB | starts << EQ_PCMAP_RUN_SHIFT | (uint32_t)at;
		return 0;
	}
	if (had && first <= last) {
		/* a cut granule: its runs, the empty ones' bytes a to b the
		 * value, equal neighbours one run */
		unsigned a = first > lo ? (unsigned)(first - lo) : 0;
		unsigned b = last < lo + (GRAN - 1) ? (unsigned)(last - lo) : GRAN - 1;
		unsigned s, t, j = 0, p, q;

		for (s = 0; s < GRAN; s = t + 1) {
			uint32_t v = had[j++], m = was >> s;

			t = m ? s + (unsigned)__builtin_ctz(m) : GRAN - 1;
			/* pieces [s, p), [p, q] (the value if v is 0), (q, t] */
			p = v || b < s || a > t ? t + 1 : a > s ? a : s;
			q = p > t ? t : b < t ? b : t;
			if (p > s)
				cut_run(runs, &r, &starts, s, v);
			if (p <= t) {
				cut_run(runs, &r, &starts, p, value);
				if (q < t)
					cut_run(runs, &r, &starts, q + 1, v);
			}
		}
	} else {
		for (i = 0; i < GRAN; i++) {
			k += i && (was >> (i - 1) & 1);
			byte[i] = had ? had[k] : 0;
			if (!byte[i] && lo + i >= first && lo + i <= last)
				byte[i] = value;
			if (!i || byte[i] != byte[i - 1]) {
				starts |= i ? 1u << (i - 1) : 0;
				runs[r++] = byte[i];
			}
		}
	}
	if (r == 1) {
		*e = runs[0];
		return 0;
	}
	if (*e && runs_of(*e) >= r)
		at = *e & (EQ_PCMAP_VALS - 1);
	else if ((at = vals_room(sl, r)) < 0)
		return -1;
	memcpy(&sl->vals[at], runs, r * sizeof(*runs));
	*e = EQ_PCMAP_SUB | starts << EQ_PCMAP_RUN_SHIFT | (uint32_t)at;
	return 0;
}

int eq_pcmap_fill(struct eq_pcmap *m, uint32_t space, uint64_t pc, uint64_t first,
		  uint64_t last, uint32_t value)
{
	uint64_t page = pc >> EQ_PCMAP_PAGE_SHIFT, base = page << EQ_PCMAP_PAGE_SHIFT;
	uint64_t top = base + ((1u << EQ_PCMAP_PAGE_SHIFT) - 1), g;
	struct eq_pcmap_slot *sl = pcmap_page(m, space, page);

	if (!sl)
		return -1;
	if (first < base)
		first = base;
	if (last > top)
		last = top;
	/* granules from first's to last's, both within the page */
	for (g = first >> EQ_PCMAP_GRAN_SHIFT; g <= last >> EQ_PCMAP_GRAN_SHIFT; g++) {
		uint64_t lo = g << EQ_PCMAP_GRAN_SHIFT, hi = lo + (GRAN - 1);
		uint32_t *e = &sl->grans[g & (EQ_PCMAP_GRANS - 1)];

		if (!*e && first <= lo && hi <= last)
			*e = value;
		else if ((!*e || (*e & EQ_PCMAP_SUB)) && cut_fill(sl, e, lo, first, last, value))
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
			return eq_pcmap_at(&m->slots[j], pc);
	return 0;
}

uint32_t eq_pcmap_miss(struct eq_pcmap *m, uint32_t space, uint64_t pc)
{
	uint32_t v = eq_pcmap_get_probe(m, space, pc);

	if (v)
		eq_pcmap_recent_put(m->pcs, pc, space, v);
	m->left -= m->left != 0;
	return v;
}

#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
const uint8_t eq_pcmap_ones8[256] = { B6(0), B6(1), B6(1), B6(2) };

/* The end of a trial: recent on while at least half the lookups found
 * their pc there. */
static void trial_end(struct eq_pcmap *m)
{
	if (2 * m->hits >= m->gets) {
		m->mode = EQ_PCMAP_MODE_ON;
		m->left = EQ_PCMAP_ON;
		m->recent = m->pcs;
		m->rmask = EQ_PCMAP_RECENT - 1;
	} else {
		m->mode = EQ_PCMAP_MODE_OFF;
		m->left = EQ_PCMAP_OFF;
		m->store = 0;
	}
}

void eq_pcmap_tune(struct eq_pcmap *m)
{
	const struct eq_pcmap_recent *n = &m->none;

	m->left = 1;
	if (m->mode != EQ_PCMAP_MODE_TRIAL) {
		/* every lookup a miss of m->none (of no space), stored there
		 * when it has a value, and here */
		m->mode = EQ_PCMAP_MODE_TRIAL;
		m->hits = m->gets = 0;
		m->recent = &m->none;
		m->rmask = 0;
		m->store = 1;
		m->none.space = 0;
		return;
	}
	/* (a pc without a value is in no entry) */
	if (n->space && eq_pcmap_recent_find(m->pcs, n->pc, n->space))
		m->hits++;
	else if (n->space)
		eq_pcmap_recent_put(m->pcs, n->pc, n->space, n->v);
	m->none.space = 0;
	if (++m->gets == EQ_PCMAP_TRIAL)
		trial_end(m);
}

int eq_pcmap_init(struct eq_pcmap *m)
{
	if (!m->pcs && !(m->pcs = calloc(EQ_PCMAP_RECENT, sizeof(*m->pcs))))
		return -1;
	m->mode = EQ_PCMAP_MODE_ON;
	m->left = EQ_PCMAP_ON;
	m->recent = m->pcs;
	m->rmask = EQ_PCMAP_RECENT - 1;
	m->store = 1;
	return m->slots ? 0 : pcmap_grow(m);
}

void eq_pcmap_free(struct eq_pcmap *m)
{
	size_t i;

	for (i = 0; m->slots && i <= m->mask; i++) {
		free(m->slots[i].grans);
		free(m->slots[i].vals);
	}
	free(m->slots);
	free(m->pcs);
	memset(m, 0, sizeof(*m));
}
