/*
 * tasks.h - the processes and threads of a recording over time, as perf
 * tracks them: which address space a process had at a given moment, what it
 * was called, and what each of its threads was called.
 *
 * A process's MAPS chunks carry the time its address space began (0: before
 * the recording; an exec or a fork later), so an exec in place retires the
 * old mappings at the exec's time: a sample is looked up in the space its
 * process had when it was taken, never simply the last one.  A recorder
 * rewrites a growing map with the same time, so of chunks with equal times
 * the last is used.  A sample older than every space of its process (older
 * recordings stamped maps with their capture time) uses the first.
 *
 * Process names are COMM chunks with tid 0 or tid = pid; a space is called
 * by the last such name given during its life, else the last given before
 * it (a forked child's inherited name).  Thread names are COMM chunks with
 * another tid: a thread that named itself (pthread_setname_np, prctl).
 */
#ifndef EQ_TASKS_H
#define EQ_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "file/eqp.h"

struct eq_intern;

/* One address space of a process: from its exec (or fork) to the next. */
struct eq_space {
	uint32_t pid;
	uint32_t who;                  /* 1, 2, ...: one number per space */
	uint64_t start;                /* target clock when it began */
	const struct eqp_maps *maps;   /* its memory map, NULL if none was captured */
	const char *exe;               /* process name (interned), NULL if none */
	void *user;                    /* the caller's, NULL until set */
};

struct eq_tasks;

/* Indexes every MAPS and COMM chunk of f (which must outlive the index);
 * names are interned in strings.  NULL when out of memory. */
struct eq_tasks *eq_tasks_new(const struct eqp_file *f, struct eq_intern *strings);
/* Calls release(space->user) for every space whose user is set, then frees. */
void eq_tasks_free(struct eq_tasks *t, void (*release)(void *user));

/* 1 when some process had more than one address space (an exec, or a pid
 * used twice): then (pid, pc) no longer names one place. */
int eq_tasks_multi(const struct eq_tasks *t);

/* The space pid had at time; a pid the recording has no chunk for gets one
 * empty space (made on first sight).  NULL only when out of memory. */
struct eq_space *eq_tasks_space(struct eq_tasks *t, uint32_t pid, uint64_t time);

/* The name thread tid of pid gave itself, or NULL (it has its process's). */
const char *eq_tasks_thread_name(const struct eq_tasks *t, uint32_t pid, uint32_t tid);

#endif
