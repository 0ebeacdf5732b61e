/* grow.c - arrays that grow by doubling (grow.h). */
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

int eq_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t nc;
	void *p;

	if (need <= *cap && *arr)
		return 0;
	nc = *cap ? *cap : (first ? first : 1);
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -1;
		nc *= 2;
	}
	if (!elem || nc > SIZE_MAX / elem)
		return -1;
	p = realloc(*arr, nc * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = nc;
	return 0;
}
