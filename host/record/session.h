/*
 * session.h - one recording: the settings `eqprof record` parsed from its
 * options, and the sources that run while its command runs (perf's
 * util/record.h and the loop of its builtin-record.c).
 *
 * The eqprof module's samples, perf's samples or sideband records, the
 * tracepoints and an energy source are drained in turn and merged into one
 * recorder, in an order that keeps a fork known before its first sample.
 * The session talks to the user on stderr the way the command does (a
 * progress line, warnings, the summary); the drivers beneath it never print.
 */
#ifndef EQ_RECORD_SESSION_H
#define EQ_RECORD_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/eq_error.h"
#include "record/energy.h"
#include "record/recorder.h"

struct perf_recorder;
struct module_recorder;
struct tree_filter;
struct trace_recorder;

struct record_opts {
	double hz, jitter, duration;
	const char *out, *gpio;
	const char *esource, *sysfs;  /* --energy, --sysfs */
	double epoll, esettle;
	int quiet, energy, all, use_module, ivshmem;
	int callchain;        /* -g, --call-graph fp */
	unsigned dwarf_stack; /* --call-graph dwarf[,SIZE]: bytes of stack per sample, 0 = off */
	int all_user;         /* --all-user: no kernel samples even when permitted */
	pid_t attach;         /* -p PID[,PID...]: the first existing process, counted from now */
	pid_t pids[64];       /* -p: every process given (pids[0] == attach) */
	int npids;
	int kernel;           /* decided before recording: kernel samples are taken */
	char kernel_note[256];/* why they are not, when they are not */
	char **argv;          /* NULL: no command (-a) */
	unsigned events;      /* --events: tracepoint groups (TE_G_*) */
	int events_set;       /* given: else on with -a, off without */
	double quantum_j;     /* --quantum: the board's energy per interrupt (-e) */
};

/* The sample sources of one recording. */
struct record_sources {
	struct perf_recorder *perf;   /* perf cpu-clock samples, or the module's sideband */
	struct module_recorder *mod;  /* the eqprof module's samples */
	struct tree_filter *filter;   /* without -a: the command's process tree only */
	struct eq_sink sink;          /* where everything goes */
	struct eq_sample *held;       /* module samples held until the sideband is read */
	size_t nheld, capheld;
	struct record_energy *energy; /* --energy: the source read alongside */
	int energy_failed;            /* it could not be read: no recording is kept */
	struct trace_recorder *trace; /* --events: power states and device requests */
	struct recorder *rec;         /* where trace writes */
};

/* The module is configured and started before anything else, so that the
 * recording's header can say what it samples. */
int record_open_module(const struct record_opts *o, struct record_sources *s, struct eq_error *err);
/* Starts o->argv (if any), opens perf, and drains every source into rec
 * until the command ends, the attached processes are gone, --duration
 * passes or a stop signal comes.  *started is set once the command runs;
 * *status is its wait status. */
int record_run(const struct record_opts *o, struct recorder *rec, struct record_sources *src,
	       struct eq_error *err, int *status, int *started);
void record_sources_close(struct record_sources *s);

/* SIGINT, SIGTERM and SIGHUP stop the recording: the command is ended and
 * the file finished, as perf does.  record_stop_signal() says which came
 * (0: none). */
void record_catch_stop_signals(void);
int record_stop_signal(void);

/* The recording's header: the machine (target) and what was recorded how
 * (extra, "key=value" lines). */
void record_describe(char *target, size_t size, char *extra, size_t xsize,
		     const struct record_opts *o, const struct record_sources *src);
/* What the recording holds and what recording cost. */
void record_summary(FILE *out, const struct record_opts *o, const struct record_sources *src,
		    uint64_t samples, uint64_t lost);

#endif
