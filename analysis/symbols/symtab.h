/*
 * symtab.h - address lookup in a symbol table embedded in a recording
 * (kallsyms, simulated programs, modules whose ELF is not on this machine).
 */
#ifndef EQ_SYMTAB_H
#define EQ_SYMTAB_H

#include <stdint.h>

#include "file/eqp.h"

struct eq_symtab_index;

/* Indexes t (which must outlive the index); NULL if out of memory or empty. */
struct eq_symtab_index *eq_symtab_index_new(const struct eqp_symtab *t);
void eq_symtab_index_free(struct eq_symtab_index *x);

/*
 * The symbol covering addr: the last one starting at or below it, if its
 * size reaches addr (size 0 means "up to the next symbol"; the last sizeless
 * symbol covers nothing beyond itself plus 1 MiB, so stray pcs far past the
 * end stay unresolved).  NULL if none.
 */
const struct eqp_symbol *eq_symtab_index_find(const struct eq_symtab_index *x, uint64_t addr);

/*
 * eq_symtab_index_find(x, addr), and in [*first, *last] (inclusive: an
 * extent may end at the top of the address space) addresses around addr
 * for all of which eq_symtab_index_find gives that same answer.
 */
const struct eqp_symbol *eq_symtab_index_extent(const struct eq_symtab_index *x, uint64_t addr,
						uint64_t *first, uint64_t *last);

/* The last symbol starting at or below addr, whatever its size; NULL if none. */
const struct eqp_symbol *eq_symtab_index_before(const struct eq_symtab_index *x, uint64_t addr);

#endif
