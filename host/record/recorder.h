/*
 * recorder.h - the recording being written while samples arrive.
 *
 * Every sample source of `eqprof record` (perf's cpu-clock, the eqprof kernel
 * module, energy sources) hands what it sees to one recorder through the
 * same sink; the recorder writes it to the .eqp file as it comes, durably:
 *
 *  - the file is OUT.tmp.PID until recorder_commit() renames it to OUT
 *    (eqp writer's recording mode), so a recorder killed at any moment
 *    leaves a readable, unfinished recording with everything but the last
 *    chunk (at most about a second of samples, EQP_SAMPLES_PER_CHUNK each);
 *  - process names (COMM) are written when seen, memory maps (MAPS) within
 *    a second of a change, each mapped file's build-id (BIDS) when the file
 *    is first seen, ring losses (LOST) as they are reported;
 *  - a process that forks without exec inherits its parent's maps and name;
 *    an exec starts a new address space (its maps chunk carries the time);
 *  - a thread that names itself keeps its name (a COMM chunk with its tid),
 *    and threads it creates start with that name, as the kernel does;
 *  - the kernel's vdso symbols and bytes (a "[vdso]" SYMT and IMAG chunk)
 *    when it opens, and
 *    each process's JIT map /tmp/perf-PID.map when it commits.
 *
 * Sources call the eq_sink functions from one thread.
 */
#ifndef EQ_RECORDER_H
#define EQ_RECORDER_H

#include <stdint.h>

#include "util/eq_error.h"
#include "eq_sample.h"
#include "file/eqp.h"

/* What a source hands over as it drains its ring. */
struct eq_sink {
	void *ctx;
	int (*sample)(void *ctx, const struct eq_sample *s);
	/* a sample with its call chain (callers of s->pc, innermost first) */
	int (*sample_chain)(void *ctx, const struct eq_sample *s, const struct eqp_callchain *cc);
	/* one line of /proc/PID/maps text, '\n'-terminated */
	int (*mmap)(void *ctx, uint32_t pid, uint64_t time, const char *maps_line);
	/* a task's name; exec = 1 when it comes from an exec (new address space) */
	int (*comm)(void *ctx, uint32_t pid, uint32_t tid, uint64_t time, const char *name,
		    int exec);
	/* a new process (pid != ppid) or thread (pid == ppid), made by thread
	 * ptid of process ppid */
	int (*fork)(void *ctx, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid,
		    uint64_t time);
	/* samples the source's ring had to drop */
	void (*lost)(void *ctx, uint32_t source, uint64_t count);
	/* a sample with its user stack copy (u NULL: none) and maybe its chain */
	int (*sample_stack)(void *ctx, const struct eq_sample *s, const struct eqp_callchain *cc,
			    const struct eqp_ustack *u);
};

struct recorder;

struct recorder_stats {
	uint64_t samples, lost, processes, maps_chunks, files;
	uint64_t chains;      /* samples with a call chain */
	uint64_t ustacks;     /* samples with a user stack copy */
	uint64_t jit_maps, jit_bad;  /* /tmp/perf-PID.map files embedded, unreadable */
};

/* Creates OUT.tmp.PID and writes the header; fails before anything runs
 * when OUT cannot be written. */
struct recorder *recorder_open(const char *out, const struct eqp_meta *meta,
			       struct eq_error *err);
/* The sink that feeds this recorder. */
struct eq_sink recorder_sink(struct recorder *r);
/* Writes what is pending (maps, losses, samples in hand); call about once a
 * second.  Fails when the disk does. */
int recorder_tick(struct recorder *r, struct eq_error *err);
/* Embeds a symbol table (SYMT chunk) now: the target kernel's, for one. */
int recorder_add_symtab(struct recorder *r, const struct eqp_symtab *t, struct eq_error *err);
/* An energy source read alongside the samples (ESRC and ERDG chunks). */
int recorder_add_energy_domain(struct recorder *r, const struct eqp_edomain *d,
			       struct eq_error *err);
int recorder_add_energy_readings(struct recorder *r, const struct eqp_ereading *rd, size_t n,
				 struct eq_error *err);
/* Power-state changes (PSTA) and device requests (DREQ), from the
 * tracepoints (trace.h). */
int recorder_add_pstates(struct recorder *r, const struct eqp_pstate *ps, size_t n,
			  struct eq_error *err);
int recorder_add_devreqs(struct recorder *r, const struct eqp_devreq *rq, size_t n,
			 struct eq_error *err);
/* The kernel pcs the samples and chains so far hold (chain frames as
 * return address - 1), sorted, malloc'd; 0, or -1 when they could not be
 * kept (out of memory: every kernel symbol is needed). */
/* A marker (MARK chunk) at time (the samples' clock). */
int recorder_add_marker(struct recorder *r, uint64_t time, const char *label,
			struct eq_error *err);
int recorder_kernel_pcs(struct recorder *r, uint64_t **pcs, size_t *n);
/* Finishes the file and renames it to OUT; frees r. */
int recorder_commit(struct recorder *r, struct eq_error *err);
/* Removes the unfinished file (nothing worth keeping was recorded); frees r. */
void recorder_discard(struct recorder *r);
/* The name being written now. */
const char *recorder_file(const struct recorder *r);
const struct recorder_stats *recorder_stats(const struct recorder *r);
/* The first error a sink callback hit, if any (callbacks return -1). */
const char *recorder_error(const struct recorder *r);

#endif
