/*
 * addrindex.h - private to analysis/symbols: buckets over a sorted array of
 * addresses, so that a search reads the few entries of one bucket instead
 * of a dozen levels of halves, each a cache miss when the addresses asked
 * for come in random order (a report's first sight of each pc, issue 30).
 * A compile unit's line records (elfmod.c) and a symbol table (symtab.c)
 * are indexed alike.
 */
#ifndef EQ_SYMBOLS_ADDRINDEX_H
#define EQ_SYMBOLS_ADDRINDEX_H

#include <stddef.h>
#include <stdint.h>

/* Arrays shorter than this are searched by halves, without an index. */
#define EQ_ADDR_INDEX_MIN 64

struct eq_addr_index {
	uint32_t *at;            /* at[b]: the first entry at or above
				    base + (b << shift), b <= nb (at[nb] = n);
				    NULL: no index */
	uint64_t base;           /* the first entry's address */
	size_t nb;               /* buckets, no more than entries */
	unsigned shift;
};

/*
 * x over n addresses sorted in ascending order, the i-th the uint64_t at
 * (const char *)first + i * stride.  No index (x->at NULL) below
 * EQ_ADDR_INDEX_MIN entries, from 2^32, or when out of memory: the caller
 * searches all of them then.
 */
void eq_addr_index_build(struct eq_addr_index *x, const void *first, size_t stride, size_t n);
void eq_addr_index_free(struct eq_addr_index *x);

/*
 * The entries [*lo, *hi) of a's bucket in x (x->at set): those before *lo
 * are below a, those from *hi on above it.  Below the first address both
 * are 0, above the last bucket both are n.
 */
static inline void eq_addr_index_bucket(const struct eq_addr_index *x, uint64_t a, size_t *lo,
					size_t *hi)
{
	uint64_t b;

	if (a < x->base) {
		*lo = *hi = 0;
		return;
	}
	b = (a - x->base) >> x->shift;
	if (b >= x->nb) {
		*lo = *hi = x->at[x->nb];
		return;
	}
	*lo = x->at[b];
	*hi = x->at[b + 1];
}

#endif
