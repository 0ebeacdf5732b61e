/*
 * bigarr.h - large arrays in few page faults: the report's batch log, its
 * index, hash tables and rows (issue 30: tens of thousands of minor faults,
 * a quarter of --by line's CPU time, were these arrays' 4 KiB pages).
 *
 * An array of 256 KiB or more is its own mapping, aligned to and a multiple
 * of 2 MiB, advised MADV_HUGEPAGE: where transparent huge pages are on
 * (always, or madvise as Debian ships), 512 pages fault in at once; where
 * they are off it is an ordinary anonymous mapping, touched pages only.
 * It grows by moving its pages (mremap), never copying or touching them
 * again; its new pages are zero.  Smaller arrays are malloc's.
 *
 *	if (EQ_BIG_GROW(t->v, t->cap, t->n + 1, 1024) < 0)
 *		return eq_fail(err, "out of memory");
 *	...
 *	eq_big_free(t->v);
 *
 * Every array from here is freed by eq_big_free, never free (nor realloc).
 */
#ifndef EQ_BIGARR_H
#define EQ_BIGARR_H

#include <stddef.h>

/* Under AddressSanitizer every array is malloc's, so that its redzones
 * catch an index past the end (a mapping has none). */
#if defined(__SANITIZE_ADDRESS__)
#define EQ_BIG_MAPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EQ_BIG_MAPS 0
#endif
#endif
#ifndef EQ_BIG_MAPS
#define EQ_BIG_MAPS 1
#endif

/* n elements of elem bytes, all zero; NULL when out of memory or the size
 * overflows.  n 0 is one element. */
void *eq_big_calloc(size_t n, size_t elem);

/* The same, the contents undefined. */
void *eq_big_malloc(size_t n, size_t elem);

/*
 * eq_grow (grow.h) for these arrays: room for need (at least 1) elements
 * in *arr of capacity *cap, doubling from first; the capacity may come out
 * larger than a doubling (to the mapping's end).  0, or -1 with *arr and
 * *cap as they were.  The old elements are kept; the new ones are zero
 * when zero, else undefined.  *arr NULL (with *cap 0) starts an array.
 */
int eq_big_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first, int zero);

#define EQ_BIG_GROW(arr, cap, need, first) \
	eq_big_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)), (first), 0)
/* The same, the new elements zero. */
#define EQ_BIG_GROW0(arr, cap, need, first) \
	eq_big_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)), (first), 1)

/* Frees an array of these (NULL: nothing). */
void eq_big_free(void *p);

/* Bytes an array from here holds from p on (at least what was asked: a
 * mapping's room to its end), so that a caller making blocks of its own
 * can fill the mapping it is given. */
size_t eq_big_room(const void *p);

/* Bytes an array's own mapping spans (0: it is malloc's); for the tests. */
size_t eq_big_mapped(const void *p);

#endif
