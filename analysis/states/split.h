/*
 * split.h - profiles split by power state, CPU and mode (seed 003, SEProf):
 * `--by state`, `--by cpu`, `--by mode`, `--by freq`, `--by cstate` and
 * combinations with a granularity, `--by exe,state`, `--by proc,freq,mode`.
 *
 * A split profile is an ordinary eq_profile (tables, CSV, JSON, compare,
 * intervals from the time-ordered samples) whose rows are the pairs of a
 * row of the granularity and a label of the state the sample was taken in:
 * "App [206MHz C0]", "kernel_loop [59MHz]", "cpu1 user".  Its `by` is
 * EQ_BY_SPLIT | ... (profile.h, with the grammar of --by) and eq_by_name()
 * names it ("exe,state").
 */
#ifndef EQ_SPLIT_H
#define EQ_SPLIT_H

#include "util/eq_error.h"
#include "file/eqp.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"

struct eq_split_store;

/*
 * The profile of f by the composite `by` (flags as eq_profile_build).  The
 * rows point into *store, which must outlive the profile: free it with
 * eq_split_store_free after eq_profile_free.  A split by state, freq or
 * cstate needs the recording's power-state events (PSTA); without them the
 * error says what records them.
 */
struct eq_profile *eq_split_profile_build(const struct eqp_file *f, struct eq_symbolizer *s,
					  enum eq_by by, unsigned flags,
					  struct eq_split_store **store, struct eq_error *err);
void eq_split_store_free(struct eq_split_store *store);

#endif
