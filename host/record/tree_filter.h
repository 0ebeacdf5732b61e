/*
 * tree_filter.h - keeping the samples of one process tree: the eqprof
 * module samples the whole machine, and `eqprof record COMMAND` (without
 * -a) keeps only COMMAND and what it starts.
 */
#ifndef EQ_RECORD_TREE_FILTER_H
#define EQ_RECORD_TREE_FILTER_H

#include <stdint.h>
#include <sys/types.h>

#include "record/recorder.h"

/*
 * Keeps only the samples of a process tree: wraps `down` so that samples of
 * processes other than `root` and its descendants (learnt from the fork
 * records that pass through the same sink) are counted, not recorded.
 */
struct tree_filter;
struct tree_filter *tree_filter_new(pid_t root, const struct eq_sink *down);
struct eq_sink tree_filter_sink(struct tree_filter *f);
uint64_t tree_filter_dropped(const struct tree_filter *f);
void tree_filter_free(struct tree_filter *f);

#endif
