/* addrindex.c - buckets over sorted addresses (addrindex.h). */
#include <stdlib.h>
#include <string.h>

#include "symbols/addrindex.h"

static uint64_t addr_at(const void *first, size_t stride, size_t i)
{
	uint64_t a;

	memcpy(&a, (const char *)first + i * stride, sizeof(a));
	return a;
}

void eq_addr_index_build(struct eq_addr_index *x, const void *first, size_t stride, size_t n)
{
	uint64_t span;
	size_t b, i = 0;
	unsigned shift = 0;

	memset(x, 0, sizeof(*x));
	if (n < EQ_ADDR_INDEX_MIN || n >= UINT32_MAX)
		return;
	x->base = addr_at(first, stride, 0);
	span = addr_at(first, stride, n - 1) - x->base;
	while (shift < 63 && (span >> shift) >= n)
		shift++;
	x->nb = (size_t)(span >> shift) + 1;
	x->at = malloc((x->nb + 1) * sizeof(*x->at));
	if (!x->at) {
		memset(x, 0, sizeof(*x));
		return;
	}
	x->shift = shift;
	for (b = 0; b < x->nb; b++) {
		while (i < n && addr_at(first, stride, i) < x->base + ((uint64_t)b << shift))
			i++;
		x->at[b] = (uint32_t)i;
	}
	x->at[x->nb] = (uint32_t)n;
}

void eq_addr_index_free(struct eq_addr_index *x)
{
	free(x->at);
	memset(x, 0, sizeof(*x));
}
