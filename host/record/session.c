/*
 * session.c - one recording's sources merged into the recorder, while the
 * command runs; see session.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/session.h"
#include "cmd.h"
#include "record/marks.h"
#include "record/module.h"
#include "record/perf.h"
#include "record/procs.h"
#include "record/trace.h"
#include "record/tree_filter.h"
#include "progress.h"
#include "util/grow.h"

/* Starts the command stopped at a pipe, so the counter exists before its exec. */
static pid_t spawn(char **argv, int *go_fd, int *exec_err_fd)
{
	int go[2], ee[2];
	pid_t pid;

	if (pipe(go) < 0 || pipe2(ee, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ee[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ee[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ee[1]);
	*go_fd = go[1];
	*exec_err_fd = ee[0];
	return pid;
}

static volatile sig_atomic_t stop_signal;

int record_stop_signal(void)
{
	return stop_signal;
}

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* SIGINT, SIGTERM and SIGHUP stop the recording: the command is ended and
 * the file finished, as perf does. */
void record_catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
/* ---- the sources ---------------------------------------------------------- */

static int hold_sample(void *ctx, const struct eq_sample *smp)
{
	struct record_sources *s = ctx;

	if (EQ_GROW(s->held, s->capheld, s->nheld + 1, 4096) < 0)
		return -1;
	s->held[s->nheld++] = *smp;
	return 0;
}

static void pass_lost(void *ctx, uint32_t source, uint64_t count)
{
	struct record_sources *s = ctx;

	s->sink.lost(s->sink.ctx, source, count);
}

/* Hands over the held samples up to the sideband's horizon; the rest wait. */
static int pass_held(struct record_sources *s, uint64_t horizon)
{
	size_t i, keep = 0;
	int rc = 0;

	for (i = 0; i < s->nheld && rc == 0; i++) {
		if (s->held[i].time > horizon)
			s->held[keep++] = s->held[i];
		else
			rc = s->sink.sample(s->sink.ctx, &s->held[i]);
	}
	s->nheld = keep;
	return rc;
}

/* The module's samples wait until perf has handed over its sideband records
 * up to their time, so that the fork of a new process is known before its
 * first sample is filtered, and an exec before the samples of the new
 * program. */
static int drain(struct record_sources *s, int timeout_ms, struct eq_error *err)
{
	struct eq_sink hold = { .ctx = s, .sample = hold_sample, .lost = pass_lost };

	if (s->trace && trace_recorder_drain(s->trace, s->rec, err) < 0)
		return -1;
	if (!s->mod)
		return perf_recorder_drain(s->perf, timeout_ms, &s->sink, err);
	if (module_recorder_drain(s->mod, timeout_ms, &hold, err) < 0 ||
	    perf_recorder_drain(s->perf, 0, &s->sink, err) < 0)
		return -1;
	return pass_held(s, perf_recorder_horizon(s->perf)) < 0 ?
	       eq_fail(err, "recording samples failed") : 0;
}

static int stop_sources(struct record_sources *s, struct eq_error *err)
{
	struct eq_sink hold = { .ctx = s, .sample = hold_sample, .lost = pass_lost };

	if (s->mod && module_recorder_stop(s->mod, &hold, err) < 0)
		return -1;
	if (perf_recorder_finish(s->perf, &s->sink, err) < 0 ||
	    trace_recorder_finish(s->trace, s->rec, err) < 0)
		return -1;
	return pass_held(s, UINT64_MAX) < 0 ? eq_fail(err, "recording samples failed") : 0;
}

void record_sources_close(struct record_sources *s)
{
	module_recorder_close(s->mod);
	perf_recorder_close(s->perf);
	record_energy_close(s->energy);
	trace_recorder_close(s->trace);
	tree_filter_free(s->filter);
	free(s->held);
	memset(s, 0, sizeof(*s));
}

/* The module is configured and started before anything else, so that the
 * recording's header can say what it samples. */
int record_open_module(const struct record_opts *o, struct record_sources *s, struct eq_error *err)
{
	struct module_open_opts mo = { .energy = o->energy, .hz = o->hz,
				       .jitter_pct = o->jitter, .gpio = o->gpio,
				       .ivshmem = o->ivshmem };

	s->mod = module_recorder_open(&mo, err);
	if (!s->mod)
		return -1;
	return module_recorder_start(s->mod, err);
}

/* -p: the threads of every process given, each process's main thread first
 * (a counter each); their number, or -1 with err. */
static int attach_threads(const struct record_opts *o, pid_t **all, struct eq_error *err)
{
	int n = 0, i;

	*all = NULL;
	for (i = 0; i < o->npids; i++) {
		pid_t *t, *grown;
		int k = record_threads_of(o->pids[i], &t, err);

		if (k < 0) {
			free(*all);
			return -1;
		}
		grown = realloc(*all, (size_t)(n + k) * sizeof(**all));
		if (!grown) {
			free(t);
			free(*all);
			return eq_fail(err, "out of memory");
		}
		memcpy(grown + n, t, (size_t)k * sizeof(*t));
		free(t);
		*all = grown;
		n += k;
	}
	return n;
}

/* perf: the samples themselves, or (with the module) the maps, names and
 * forks of the command's processes or of every process. */
static int open_perf(const struct record_opts *o, struct record_sources *s, struct recorder *rec,
		     pid_t pid, struct eq_error *err)
{
	struct perf_open_opts po = { .pid = o->all ? -1 : o->attach ? o->attach : pid, .hz = o->hz,
				     .jitter_pct = o->jitter, .seed = (unsigned)pid,
				     .flags = (o->callchain ? PERF_REC_CALLCHAIN : 0) |
					      (o->dwarf_stack ? PERF_REC_DWARF : 0),
				     .stack_size = o->dwarf_stack,
				     .user_only = !o->kernel,
				     .sideband = s->mod != NULL };

	pid_t *threads = NULL;

	s->sink = recorder_sink(rec);
	if (o->attach) {
		/* every thread it has now: a counter each (the kernel follows
		 * only the threads and children made after it is opened) */
		po.nthreads = attach_threads(o, &threads, err);
		if (po.nthreads < 0)
			return -1;
		po.threads = threads;
		po.seed = (unsigned)o->attach;
	}
	s->perf = perf_recorder_open_opts(&po, err);
	free(threads);
	if (!s->perf)
		return -1;
	/* what it mapped and what it is called: perf reports only what
	 * happens from now on */
	for (int i = 0; i < o->npids; i++)
		if (record_proc_snapshot(o->pids[i], &s->sink, err) < 0)
			return -1;
	{
		int offline, online = perf_recorder_cpus(s->perf, &offline);

		if (offline)
			eq_warn("%d of %d CPUs are offline and have no counter: work moved there later is not sampled",
				offline, online + offline);
	}
	if (s->mod && !o->all) {
		s->filter = tree_filter_new(pid, &s->sink);
		if (!s->filter)
			return eq_fail(err, "out of memory");
		s->sink = tree_filter_sink(s->filter);
	}
	/* Processes that exist already: perf reports only what happens next. */
	if (o->all && record_proc_snapshot(0, &s->sink, err) < 0)
		return -1;
	return 0;
}

/* Ends the command we started: SIGTERM, then SIGKILL after a grace period
 * in which its samples are still drained. */
static void end_command(pid_t pid, int *status, struct record_sources *src, struct eq_error *err)
{
	int i;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < 20; i++) {
		if (waitpid(pid, status, WNOHANG) != 0)
			return;
		drain(src, 100, err);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* The attached process has exited: gone, or a zombie its parent has not
 * reaped yet (state Z or X in /proc/PID/stat). */
static int attached_gone(pid_t pid)
{
	char path[64], buf[512], *close;
	FILE *f;
	size_t n;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	close = strrchr(buf, ')');  /* the name may hold spaces and parentheses */
	return close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

static int all_attached_gone(const struct record_opts *o)
{
	for (int i = 0; i < o->npids; i++)
		if (!attached_gone(o->pids[i]))
			return 0;
	return 1;
}

static int record_loop(const struct record_opts *o, struct recorder *rec,
		       struct record_sources *src, struct eq_error *err, int *status,
		       int *started, pid_t pid, int go, int eefd, struct record_marks *marks);

int record_run(const struct record_opts *o, struct recorder *rec, struct record_sources *src,
	       struct eq_error *err, int *status, int *started)
{
	int go = -1, eefd = -1, rc;
	struct record_marks marks = { .rd = -1, .wr = -1 };
	pid_t pid = 0;

	if (o->argv) {
		if (record_marks_open(&marks, err) < 0)
			return -1;
		pid = spawn(o->argv, &go, &eefd);
		record_marks_given(&marks);
		if (pid < 0) {
			int e = errno;

			record_marks_close(&marks);
			return eq_fail(err, "cannot start %s: %s", o->argv[0], strerror(e));
		}
	}
	rc = record_loop(o, rec, src, err, status, started, pid, go, eefd, &marks);
	record_marks_close(&marks);
	return rc;
}

static int record_loop(const struct record_opts *o, struct recorder *rec,
		       struct record_sources *src, struct eq_error *err, int *status,
		       int *started, pid_t pid, int go, int eefd, struct record_marks *marks)
{
	int e, rc = 0, done = 0;
	struct eq_progress line;
	double next_tick = 1.0, end = o->duration > 0 ? now_s() + o->duration : 0;

	if (open_perf(o, src, rec, pid, err) < 0) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	if (pid > 0) {
		if (write(go, "g", 1) != 1 || close(go) < 0)
			return eq_fail(err, "cannot release %s: %s", o->argv[0], strerror(errno));
		if (read(eefd, &e, sizeof(e)) == sizeof(e)) {
			waitpid(pid, NULL, 0);
			return eq_fail(err, "cannot run '%s': %s", o->argv[0], strerror(e));
		}
		close(eefd);
	}
	*started = 1;
	eq_progress_start(&line, o->quiet, 0.5);
	while (!done) {
		double t;

		if (pid > 0 && waitpid(pid, status, WNOHANG) != 0)
			break;
		if (o->attach && all_attached_gone(o)) {
			end_command(pid, status, src, err);  /* the attached processes are gone */
			break;
		}
		if (stop_signal || (end && now_s() >= end)) {
			end_command(pid, status, src, err);
			break;
		}
		if (drain(src, src->energy ? record_energy_due_ms(src->energy) : 100, err) < 0 ||
		    record_marks_drain(marks, rec, err) < 0 ||
		    (recorder_error(rec) && eq_fail(err, "%s", recorder_error(rec)))) {
			rc = -1;
			end_command(pid, status, src, err);
			break;
		}
		if (src->energy && record_energy_poll(src->energy, err) < 0) {
			struct eq_error ignored;

			src->energy_failed = 1;
			rc = -1;
			end_command(pid, status, src, &ignored);
			break;
		}
		t = eq_progress_elapsed(&line);
		if (t >= next_tick) {
			/* about once a second, what was recorded goes to the file */
			next_tick = t + 1.0;
			if ((src->energy && record_energy_write(src->energy, rec, err) < 0) ||
			    recorder_tick(rec, err) < 0) {
				rc = -1;
				end_command(pid, status, src, err);
				break;
			}
		}
		if (eq_progress_due(&line))
			eq_progress_show(&line, "eqprof record: %llu samples (%.0f/s, %.1f s)",
					 (unsigned long long)recorder_stats(rec)->samples,
					 recorder_stats(rec)->samples / t, t);
	}
	if (rc == 0)
		rc = record_marks_drain(marks, rec, err);
	if (rc == 0)
		rc = stop_sources(src, err);
	eq_progress_end(&line, 1);
	if (rc == 0 && marks->n && !o->quiet)
		eq_note("%llu marker%s from the command%s",
			(unsigned long long)marks->n, marks->n == 1 ? "" : "s",
			marks->truncated ? " (some cut to 255 bytes)" : "");
	if (rc == 0 && src->energy &&
	    record_energy_finish(src->energy, rec, stop_signal ? 0 : o->esettle, o->quiet, err) < 0) {
		src->energy_failed = 1;
		rc = -1;
	}
	return rc;
}

void record_describe(char *target, size_t size, char *extra, size_t xsize,
			    const struct record_opts *o, const struct record_sources *src)
{
	const struct module_recorder_stats *ms = src->mod ? module_recorder_stats(src->mod) : NULL;
	struct utsname u;
	size_t used;
	int i;

	if (uname(&u) == 0)
		snprintf(target, size, "%s %s %s (%s)", u.machine, u.sysname, u.release, u.nodename);
	used = (size_t)snprintf(extra, xsize, "tool=eqprof record %s%s\nsampler=%s%s\nscope=%s\n",
				o->energy ? "-e" : "-t", o->all ? " -a" : o->attach ? " -p" : "",
				ms ? "eqprof module: " : "perf cpu-clock", ms ? ms->source : "",
				o->all ? "system" : o->attach ? "pid" : "command");
	for (i = 0; i < o->npids && used < xsize; i++)
		used += (size_t)snprintf(extra + used, xsize - used, "%s%d%s", i ? "," : "attach=",
					 (int)o->pids[i], i + 1 < o->npids ? "" : "\n");
	if (used < xsize)
		used += (size_t)snprintf(extra + used, xsize - used, "kernel=%s\n",
					 o->kernel ? "included" : "excluded");
	if (used < xsize && !o->kernel && o->kernel_note[0])
		used += (size_t)snprintf(extra + used, xsize - used, "note=%s\n", o->kernel_note);
	if (used < xsize && (o->callchain || o->dwarf_stack))
		used += (size_t)snprintf(extra + used, xsize - used, o->dwarf_stack ?
					 "call_graph=dwarf,%u\n" : "call_graph=fp\n", o->dwarf_stack);
	if (o->esource && used < xsize)
		used += (size_t)snprintf(extra + used, xsize - used, "energy=%s\n", o->esource);
	if (ms && ms->threaded && used < xsize)
		used += (size_t)snprintf(extra + used, xsize - used,
					 "irq_context=threaded (no interrupted registers: pcs are the tasks' saved user pcs)\n");
	if (!o->argv || used + 1 >= xsize)
		return;
	used += (size_t)snprintf(extra + used, xsize - used, "command=");
	for (i = 0; o->argv[i] && used + 1 < xsize; i++)
		used += (size_t)snprintf(extra + used, xsize - used, "%s%s", i ? " " : "", o->argv[i]);
	if (used + 1 < xsize)
		snprintf(extra + used, xsize - used, "\n");
}


/* What the recording holds and what recording cost, the way seed 001 A.1.2
 * reports the collector's own share of the samples. */
void record_summary(FILE *out, const struct record_opts *o, const struct record_sources *src,
		    uint64_t samples, uint64_t lost)
{
	const struct module_recorder_stats *ms;

	if (o->dwarf_stack && src->perf) {
		struct perf_stack_stats ss;

		perf_recorder_stack_stats(src->perf, &ss);
		fprintf(out, "eqprof record: %llu user stack copies, %.1f MiB (%.0f bytes a sample)\n",
			(unsigned long long)ss.copies, ss.bytes / 1048576.0,
			ss.copies ? (double)ss.bytes / (double)ss.copies : 0.0);
		/* a full copy is common (the environment and auxv lie above
		 * main's frame; a short one ends at a page the process never
		 * touched), not a sign that callers were cut: report says how
		 * many stacks did end at the copy's end (issue 28) */
		if (ss.ring_shrunk && lost)
			fprintf(out, "eqprof record: the locked-memory limit allowed rings of %u KiB a CPU only: raise /proc/sys/kernel/perf_event_mlock_kb (or run as root), a lower -t, or a smaller --call-graph dwarf,SIZE loses fewer samples\n",
				ss.ring_kib);
		if (ss.bad)
			fprintf(out, "eqprof record: warning: %llu samples had malformed register or stack data and were kept without a stack\n",
				(unsigned long long)ss.bad);
	}
	if (!src->mod) {
		fprintf(out, "eqprof record: %llu samples (%llu lost) written to %s%s\n",
			(unsigned long long)samples, (unsigned long long)lost, o->out,
			stop_signal ? " (stopped by a signal; the command was ended)" : "");
		return;
	}
	ms = module_recorder_stats(src->mod);
	fprintf(out, "eqprof record: %llu samples in %.2f s (%.1f/s) from %s\n"
		"eqprof record: lost %llu (ring drops %llu, seq gaps %llu)\n",
		(unsigned long long)ms->samples, ms->seconds,
		ms->seconds > 0 ? ms->samples / ms->seconds : 0.0, ms->source,
		(unsigned long long)lost, (unsigned long long)ms->ring_dropped,
		(unsigned long long)ms->seq_gaps);
	if (ms->missed)
		fprintf(out, "eqprof record: %llu hrtimer periods passed with no interrupt (interrupts off, or the CPU was not running)\n",
			(unsigned long long)ms->missed);
	if (src->filter)
		fprintf(out, "eqprof record: %llu samples of other processes not kept (-a keeps them)\n",
			(unsigned long long)tree_filter_dropped(src->filter));
	if (ms->approx)
		fprintf(out, "eqprof record: %llu samples without interrupted registers (EQ_F_PC_APPROX)\n",
			(unsigned long long)ms->approx);
	fprintf(out, "eqprof record: the recorder's own share: %.2f%% (%llu samples)\n"
		"eqprof record: %llu samples (%llu lost) written to %s%s\n",
		ms->samples ? 100.0 * ms->own / ms->samples : 0.0, (unsigned long long)ms->own,
		(unsigned long long)samples, (unsigned long long)lost, o->out,
		stop_signal ? " (stopped by a signal; the command was ended)" : "");
}

