/*
 * eqp_merge.h - one recording from a target's samples and a board's stream
 * (`eqprof merge`, docs/hil.md; the layout is docs/format.md's).
 */
#ifndef EQP_MERGE_H
#define EQP_MERGE_H

#include "file/eqp.h"

/*
 * Writes `out`: the recording `target` with `extra` ("key=value\n" lines)
 * added to its header, and the board chunks (BINF, BREC, BEND) of the board
 * log `board` after its own.  Both inputs are read whole and checked first;
 * a target that already holds board records is refused.  quantum_j > 0
 * sets the recording's quantum when the target did not know it (the board
 * does: E_min x N).
 */
int eqp_merge(const char *target, const char *board, const char *extra, double quantum_j,
	      const char *out, struct eq_error *err);

#endif
