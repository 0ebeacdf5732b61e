/*
 * procs.h - what exists before the recording starts: perf reports only
 * the maps, names and forks that happen once its counters are open, so the
 * processes already running are read from /proc.
 */
#ifndef EQ_RECORD_PROCS_H
#define EQ_RECORD_PROCS_H

#include <stddef.h>
#include <sys/types.h>

#include "util/eq_error.h"
#include "record/recorder.h"

/* Hands the names and maps of every process now running (pid 0: all) to
 * sink, as perf does for processes that existed before the recording. */
int record_proc_snapshot(pid_t pid, const struct eq_sink *sink, struct eq_error *err);
/* The threads of process pid now (/proc/PID/task), the main thread first,
 * malloc'd into *tids; their number, or -1 with err (no such process). */
int record_threads_of(pid_t pid, pid_t **tids, struct eq_error *err);
/* The whole of a /proc file (whose size stat does not tell), NUL-terminated
 * (*len excludes the NUL), malloc'd; NULL when it cannot be read. */
char *record_slurp(const char *path, size_t *len);

#endif
