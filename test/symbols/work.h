/*
 * work.h - what the test workloads share: a loop that runs for a given
 * amount of the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID, so how
 * fast the CPU is never matters).  The time is no reference for a share:
 * it does not count what a cpu-clock profiler samples (interrupt work
 * charged to the task, the clock reads around each step); the tests hold
 * shares to perf's on the same run (perfcmp.py).
 */
#ifndef WORK_H
#define WORK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t work_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Calls step() until ms of this thread's CPU time have gone; returns the
 * CPU time spent inside step() (the loop's own bookkeeping is outside). */
static inline uint64_t work_for(void (*step)(void), double ms)
{
	uint64_t start = work_cpu_ns(), in = 0, t0, t1;

	do {
		t0 = work_cpu_ns();
		step();
		t1 = work_cpu_ns();
		in += t1 - t0;
	} while (t1 - start < (uint64_t)(ms * 1e6));
	return in;
}

#endif
