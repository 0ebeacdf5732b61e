/*
 * grow.h - arrays that grow by doubling, one copy of the idiom.
 *
 *	if (EQ_GROW(t->rows, t->cap, t->n + 1, 256) < 0)
 *		return eq_fail(err, "out of memory");
 *	t->rows[t->n++] = row;
 */
#ifndef EQ_GROW_H
#define EQ_GROW_H

#include <stddef.h>

/*
 * Makes room for need (at least 1) elements of elem bytes in *arr, whose
 * capacity is *cap: the capacity doubles, from first when it is 0, until
 * need fits.  0, or -1 when out of memory or the size would overflow;
 * then *arr and *cap are as they were.  New elements are not cleared.
 */
int eq_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first);

/* The capacity eq_grow makes for need elements of elem bytes from cap (0:
 * from first): cap when need fits, else cap doubled until it does; 0 when
 * the bytes would overflow. */
size_t eq_grow_cap(size_t cap, size_t need, size_t elem, size_t first);

/* arr: a pointer lvalue; cap: a size_t lvalue. */
#define EQ_GROW(arr, cap, need, first) \
	eq_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)), (first))

#endif
