/*
 * trace.h - power states and device requests of the whole machine,
 * from Linux tracepoints (trace_events.h) through perf_event_open(2):
 * PERF_TYPE_TRACEPOINT counters, one per CPU and event, system-wide, with
 * the raw record, the task current at the event, its user pc and a
 * CLOCK_MONOTONIC time (the clock of perf's and the eqprof module's
 * samples).  What they say goes to the recording as PSTA and DREQ chunks.
 *
 * Needs tracefs (/sys/kernel/tracing or /sys/kernel/debug/tracing) and root
 * or CAP_PERFMON (perf_event_paranoid -1 for others).  When an event cannot
 * be logged, the recording goes on without it: trace_recorder_note() says
 * once which and why, and the header's events_missing line keeps it.
 */
#ifndef EQ_RECORD_TRACE_H
#define EQ_RECORD_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "record/recorder.h"
#include "record/trace_events.h"

struct trace_recorder;

/* Opens the events of groups (TE_G_*), counting from now.  NULL only when
 * out of memory; events that could not be opened are left out, noted. */
struct trace_recorder *trace_recorder_open(unsigned groups);
/* Number of events being logged (0: none could be opened). */
int trace_recorder_nevents(const struct trace_recorder *t);
/* One line: which events are not logged and why; "" when all are. */
const char *trace_recorder_note(const struct trace_recorder *t);
/* Header lines (events=, events_missing=, device:N=NAME) appended to buf of
 * size (NUL-terminated); the bytes added. */
size_t trace_recorder_meta(const struct trace_recorder *t, char *buf, size_t size);
/* Reads every CPU's ring and writes what is complete to rec. */
int trace_recorder_drain(struct trace_recorder *t, struct recorder *rec, struct eq_error *err);
/* Last drain and write; requests still in flight are counted. */
int trace_recorder_finish(struct trace_recorder *t, struct recorder *rec, struct eq_error *err);
void trace_recorder_summary(const struct trace_recorder *t, FILE *out);
const struct te_pair_stats *trace_recorder_stats(const struct trace_recorder *t,
						 uint64_t *lost);
void trace_recorder_close(struct trace_recorder *t);

/* "power,block,net" (or "all", "none") -> TE_G_* bits. */
int trace_parse_groups(const char *list, unsigned *groups, struct eq_error *err);

#endif
