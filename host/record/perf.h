/*
 * perf.h - time-driven sampling of one command through the kernel's
 * perf_event_open(2) cpu-clock timer: the fallback when no board is attached.
 *
 * The kernel takes a sample every `period` ns of CPU time of the command (and
 * of the threads and children it starts), with the interrupted user-space pc,
 * pid, tid, cpu and a CLOCK_MONOTONIC timestamp.  Memory maps and process
 * names come from the same ring (MMAP2 and COMM records), so nothing has to
 * be read from /proc after the command has exited; FORK records give a
 * child that forks without exec its parent's maps, and COMM records marked
 * as exec start a new address space.  Records of all CPUs' rings are handed
 * over in time order.  The period is re-drawn
 * within +-jitter after every drain, against aliasing with periodic work.
 */
#ifndef EQ_RECORD_PERF_H
#define EQ_RECORD_PERF_H

#include <stdint.h>
#include <sys/types.h>

#include "util/eq_error.h"
#include "eq_sample.h"
#include "record/recorder.h"

struct perf_recorder;

/* PERF_REC_CALLCHAIN: each sample carries its call chain, walked by the
 * kernel through frame pointers (PERF_SAMPLE_CALLCHAIN, `record -g`). */
#define PERF_REC_CALLCHAIN 0x1
/* PERF_REC_DWARF: each sample carries a copy of the user stack (stack_size
 * bytes from the stack pointer up) and the user registers
 * (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, `record --call-graph
 * dwarf`), unwound offline (analysis/symbols/unwind.h). */
#define PERF_REC_DWARF 0x2
/* The registers the DWARF unwinder needs are the recording machine's
 * (analysis/file/eqp_regs.h: every general register; on x86-64 not the
 * segment registers DS, ES, FS, GS, which the kernel refuses). */
#define PERF_REC_STACK_DEFAULT 8192

/* Samples `pid` (not yet exec'ed: the counter starts at its exec). */
struct perf_recorder *perf_recorder_open(pid_t pid, double hz, double jitter_pct,
					 unsigned seed, unsigned flags, struct eq_error *err);

struct perf_open_opts {
	pid_t pid;          /* the command (counting from its exec), or -1: every
			       process, the kernel and idle (needs root or
			       perf_event_paranoid <= 0) */
	double hz, jitter_pct;
	unsigned seed, flags;
	unsigned stack_size; /* PERF_REC_DWARF: bytes of user stack per sample
				(8 to 65528, a multiple of 8) */
	const pid_t *threads; /* -p: the attached processes' threads (threads[0] the first one's
				 main thread, o->pid the process), counted from now;
				 NULL for a command */
	int nthreads;
	int user_only;      /* 1: user space only (exclude_kernel) for a command;
			       0: its kernel samples too (perf_kernel_allowed()) */
	int sideband;       /* 1: no samples, only maps, names and forks, for
			       another sample source (the eqprof module) */
};
struct perf_recorder *perf_recorder_open_opts(const struct perf_open_opts *o,
					      struct eq_error *err);
/* Waits up to timeout_ms for data, then hands the records of every ring to
 * sink in time order, up to the time they are known to be complete (those
 * after it wait for the next drain). */
int perf_recorder_drain(struct perf_recorder *r, int timeout_ms,
			const struct eq_sink *sink, struct eq_error *err);
/* Records up to this time (CLOCK_MONOTONIC ns) have been handed over: what
 * another source saw up to then can be matched with them. */
uint64_t perf_recorder_horizon(const struct perf_recorder *r);
/* After the command is gone: hands over everything left. */
int perf_recorder_finish(struct perf_recorder *r, const struct eq_sink *sink,
			 struct eq_error *err);
/*
 * Whether this user may sample the kernel part of a command's run
 * (perf_event_paranoid 1 or lower, or root / CAP_PERFMON): tried with a
 * counter on the recorder itself.  1, or 0 with why (one line) in why.
 */
int perf_kernel_allowed(char *why, size_t size);

/* What the stack copies of PERF_REC_DWARF took. */
struct perf_stack_stats {
	uint64_t copies;   /* samples with a user stack copy */
	uint64_t bytes;    /* bytes of stack kept */
	uint64_t full;     /* copies that filled stack_size: deeper callers may be cut */
	uint64_t bad;      /* malformed register/stack parts (none expected) */
	unsigned size;     /* bytes asked for per sample */
	unsigned ring_kib; /* each CPU's ring */
	int ring_shrunk;   /* smaller than wanted: the locked-memory limit */
};
void perf_recorder_stack_stats(const struct perf_recorder *r, struct perf_stack_stats *st);
/* CPUs with a counter; *offline gets those the kernel knows but were offline. */
int perf_recorder_cpus(const struct perf_recorder *r, int *offline);
void perf_recorder_close(struct perf_recorder *r);

/*
 * Tries rate hz on this machine before anything runs: a busy loop of the
 * recorder's own thread sampled for ms of its CPU time.  *achieved gets the
 * samples per CPU-second the kernel took, *slowdown how many times slower
 * the loop ran while sampled.
 */
int perf_rate_probe(double hz, double ms, double *achieved, double *slowdown,
		    struct eq_error *err);

#endif
