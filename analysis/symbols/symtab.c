/*
 * symtab.c - sorted index over an embedded symbol table.
 *
 * The reader hands tables as they were written; we sort our own array of
 * pointers so a table written out of order still resolves correctly.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/addrindex.h"
#include "symbols/names.h"
#include "symbols/symtab.h"

#define LAST_SIZELESS_REACH (1u << 20)

struct eq_symtab_index {
	size_t n;
	const struct eqp_symbol **syms;  /* sorted by addr */
	uint64_t *addrs;                 /* syms[i]->addr: searched without
					    a miss a step for each symbol */
	struct eq_addr_index idx;        /* over addrs (addrindex.h) */
};

static int by_addr(const void *a, const void *b)
{
	const struct eqp_symbol *x = *(const struct eqp_symbol *const *)a;
	const struct eqp_symbol *y = *(const struct eqp_symbol *const *)b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases: the lookup takes the last of equal addresses, so put the
	 * best name (names.h) last. */
	return -eq_name_alias_cmp(x->size, EQ_BIND_UNKNOWN, x->name,
				  y->size, EQ_BIND_UNKNOWN, y->name);
}

struct eq_symtab_index *eq_symtab_index_new(const struct eqp_symtab *t)
{
	struct eq_symtab_index *x;
	size_t i;

	if (!t->nsyms)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->syms = malloc(t->nsyms * sizeof(*x->syms));
	x->addrs = malloc(t->nsyms * sizeof(*x->addrs));
	if (!x->syms || !x->addrs) {
		eq_symtab_index_free(x);
		return NULL;
	}
	for (i = 0; i < t->nsyms; i++)
		x->syms[i] = &t->syms[i];
	x->n = t->nsyms;
	qsort(x->syms, x->n, sizeof(*x->syms), by_addr);
	for (i = 0; i < x->n; i++)
		x->addrs[i] = x->syms[i]->addr;
	eq_addr_index_build(&x->idx, x->addrs, sizeof(*x->addrs), x->n);
	return x;
}

void eq_symtab_index_free(struct eq_symtab_index *x)
{
	if (!x)
		return;
	free(x->syms);
	free(x->addrs);
	eq_addr_index_free(&x->idx);
	free(x);
}

/* The index of the first symbol above addr (x->n: none): among all of
 * them, or among the addrs of addr's bucket (addrindex.h), the first
 * above it being at most the bucket's end.  The halves are chosen without
 * a branch: which half holds a pc met for the first time is a coin toss at
 * every step, and a report by line asks once for each of tens of
 * thousands of line extents. */
static size_t first_above(const struct eq_symtab_index *x, uint64_t addr)
{
	const uint64_t *a = x->addrs;
	size_t base = 0, n = x->n, hi;

	if (x->idx.at) {
		eq_addr_index_bucket(&x->idx, addr, &base, &hi);
		n = hi - base;
	}
	if (!n)
		return base;
	while (n > 1) {
		size_t half = n / 2;

		base += (size_t)(a[base + half] <= addr) * half;
		n -= half;
	}
	return base + (a[base] <= addr);
}

const struct eqp_symbol *eq_symtab_index_find(const struct eq_symtab_index *x, uint64_t addr)
{
	size_t lo = first_above(x, addr);
	const struct eqp_symbol *s;

	if (lo == 0)
		return NULL;
	s = x->syms[lo - 1];
	if (s->size)
		return addr - s->addr < s->size ? s : NULL;
	if (lo < x->n)
		return s;              /* sizeless: up to the next symbol */
	return addr - s->addr < LAST_SIZELESS_REACH ? s : NULL;
}

/* addr + len - 1, or the top of the address space when that is beyond it
 * (len > 0). */
static uint64_t end_incl(uint64_t addr, uint64_t len)
{
	return len - 1 > UINT64_MAX - addr ? UINT64_MAX : addr + (len - 1);
}

const struct eqp_symbol *eq_symtab_index_extent(const struct eq_symtab_index *x, uint64_t addr,
						uint64_t *first, uint64_t *last)
{
	size_t lo = first_above(x, addr);
	const struct eqp_symbol *s;
	uint64_t next_last, end;

	/* every address up to the next symbol has the same last symbol */
	next_last = lo < x->n ? x->addrs[lo] - 1 : UINT64_MAX;
	*last = next_last;
	if (lo == 0) {
		*first = 0;
		return NULL;
	}
	s = x->syms[lo - 1];
	/* what it covers: its size, up to the next, or the last's reach */
	end = s->size ? end_incl(s->addr, s->size) :
	      lo < x->n ? next_last : end_incl(s->addr, LAST_SIZELESS_REACH);
	if (addr <= end) {
		*first = s->addr;
		*last = end < next_last ? end : next_last;
		return s;
	}
	*first = end + 1;
	return NULL;
}

const struct eqp_symbol *eq_symtab_index_before(const struct eq_symtab_index *x, uint64_t addr)
{
	size_t lo = first_above(x, addr);

	return lo ? x->syms[lo - 1] : NULL;
}
