/* grow.c - arrays that grow by doubling (grow.h). */
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

size_t eq_grow_cap(size_t cap, size_t need, size_t elem, size_t first)
{
	size_t nc = cap ? cap : (first ? first : 1);

	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return 0;
		nc *= 2;
	}
	return elem && nc <= SIZE_MAX / elem ? nc : 0;
}

int eq_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t nc;
	void *p;

	if (need <= *cap && *arr)
		return 0;
	if (!(nc = eq_grow_cap(*cap, need, elem, first)))
		return -1;
	p = realloc(*arr, nc * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = nc;
	return 0;
}
