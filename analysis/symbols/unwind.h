/*
 * unwind.h - call chains from the user stack copies of `record --call-graph
 * dwarf` (USTK chunks), unwound offline with libdwfl's CFI unwinder over the
 * files the recording's maps name (unwind.c).  Most callers want
 * eq_sym_callchain() (symbolize.h), which uses this when a sample has a
 * stack copy and no recorded chain.
 */
#ifndef EQ_UNWIND_H
#define EQ_UNWIND_H

#include <stdint.h>

#include "eq_sample.h"
#include "file/eqp.h"

struct eq_symbolizer;
struct eq_unwinder;

struct eq_unwind_stats {
	uint64_t samples;     /* stack copies given */
	uint64_t unwound;     /* of those, with at least one caller found */
	uint64_t failed;      /* no caller: no CFI for the pc, or the copy ended first */
	uint64_t no_modules;  /* no file of the address space could be opened here */
	uint64_t unsupported; /* registers of another architecture or ABI */
	uint64_t outside;     /* reads outside the stack copy and the files (a frame
				 deeper than the copy: record with a larger SIZE) */
	uint64_t cut;         /* stacks whose unwinding stopped at the copy's end:
				 a caller's frame lies above what was copied */
};

struct eq_unwinder *eq_unwinder_new(struct eq_symbolizer *s);
void eq_unwinder_free(struct eq_unwinder *u);
/* The return addresses of smp's callers, innermost first (as CHNS user
 * frames: the sample's own pc is not repeated; an exact pc, such as the
 * user pc of a kernel sample, is stored + 1); returns how many, at most max. */
unsigned eq_unwind(struct eq_unwinder *u, const struct eq_sample *smp,
		   const struct eqp_ustack *st, uint64_t *frames, unsigned max);
const struct eq_unwind_stats *eq_unwind_stats(const struct eq_unwinder *u);

#endif
