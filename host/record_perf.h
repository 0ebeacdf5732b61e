/*
 * record_perf.h - time-driven sampling of one command through the kernel's
 * perf_event_open(2) cpu-clock timer: the fallback when no board is attached.
 *
 * The kernel takes a sample every `period` ns of CPU time of the command (and
 * of the threads and children it starts), with the interrupted user-space pc,
 * pid, tid, cpu and a CLOCK_MONOTONIC timestamp.  Memory maps and process
 * names come from the same ring (MMAP2 and COMM records), so nothing has to
 * be read from /proc after the command has exited.  The period is re-drawn
 * within +-jitter after every drain, against aliasing with periodic work.
 */
#ifndef EQ_RECORD_PERF_H
#define EQ_RECORD_PERF_H

#include <stdint.h>
#include <sys/types.h>

#include "eq_error.h"
#include "eq_sample.h"

struct perf_recorder;

/* What the recorder hands over as it drains the kernel's ring. */
struct perf_sink {
	void *ctx;
	int (*sample)(void *ctx, const struct eq_sample *s);
	int (*mmap)(void *ctx, uint32_t pid, const char *maps_line);
	int (*comm)(void *ctx, uint32_t pid, uint64_t time, const char *name);
	void (*lost)(void *ctx, uint64_t count);
};

/* Samples `pid` (not yet exec'ed: the counter starts at its exec). */
struct perf_recorder *perf_recorder_open(pid_t pid, double hz, double jitter_pct,
					 unsigned seed, struct eq_error *err);
/* Waits up to timeout_ms for data, then hands everything in the ring to sink. */
int perf_recorder_drain(struct perf_recorder *r, int timeout_ms,
			const struct perf_sink *sink, struct eq_error *err);
void perf_recorder_close(struct perf_recorder *r);

#endif
