/*
 * builtin-record.c - eqprof record: run a command and write a recording.
 *
 *   eqprof record -t [HZ] [--jitter PCT] [-o OUT.eqp] [-q] -- COMMAND [ARGS]...
 *
 * Time-driven sampling needs nothing but the kernel (perf_event_open's
 * cpu-clock; see record_perf.h).  Energy-driven sampling (-e) needs the
 * board's interrupt delivered to the target's eqprof ISR, which this build
 * does not include: -e says so instead of pretending.
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

#include "builtin.h"
#include "progress.h"
#include "eqp.h"
#include "record_perf.h"
#include "recorder.h"
#include "symbolize.h"
#include "units.h"

struct record_opts {
	double hz, jitter;
	int callchain;
	const char *out;
	int quiet;
	char **argv;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: eqprof record -t [HZ] [--jitter PCT] [-o OUT.eqp] [-q] -- COMMAND [ARGS]...\n"
		"       eqprof record -e ...   (energy-driven: needs the board and the target ISR)\n\n"
		"  -t [HZ]        time-driven sampling of COMMAND's CPU time (default 1000Hz)\n"
		"  --jitter PCT   re-draw the period within +-PCT %% after every drain (default 5)\n"
		"  -g, --call-graph fp  record each sample's call chain (frame pointers)\n"
		"  -o OUT.eqp     output recording (default eqprof.eqp)\n"
		"  -q             no progress line\n");
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	struct eq_error err;
	int i;

	*o = (struct record_opts){ .hz = 1000, .jitter = 5, .out = "eqprof.eqp" };
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-e")) {
			fprintf(stderr, "eqprof record: energy-driven recording (-e) needs the board's IRQ wired to the target and the eqprof ISR there, which this build does not include; use -t for time-driven sampling, or 'eqprof sim' for a simulated energy-driven run\n");
			return 1;
		} else if (!strcmp(argv[i], "-t")) {
			if (i + 1 < argc && argv[i + 1][0] != '-' &&
			    eq_parse_quantity(argv[i + 1], "Hz", "-t", &o->hz, &err) == 0)
				i++;
		} else if (!strcmp(argv[i], "-g") ||
			   (!strcmp(argv[i], "--call-graph") && i + 1 < argc && !strcmp(argv[i + 1], "fp") && ++i)) {
			o->callchain = 1;
		} else if (!strcmp(argv[i], "--call-graph")) {
			fprintf(stderr, "eqprof record: --call-graph %s: this build unwinds with frame pointers only: use -g or --call-graph fp (build the program with -fno-omit-frame-pointer)\n",
				i + 1 < argc ? argv[i + 1] : "(missing)");
			return 2;
		} else if (!strcmp(argv[i], "--jitter") && i + 1 < argc) {
			char *end;

			o->jitter = strtod(argv[++i], &end);
			if (end == argv[i] || (*end && strcmp(end, "%"))) {
				eq_fail(&err, "--jitter: '%s' is not a percentage", argv[i]);
				goto bad;
			}
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			o->out = argv[++i];
		} else if (!strcmp(argv[i], "-q")) {
			o->quiet = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "eqprof record: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "eqprof record: no command given after '--'\n");
		usage(stderr);
		return 2;
	}
	if (!(o->hz > 0 && o->hz <= 100000) || !(o->jitter >= 0 && o->jitter < 50)) {
		fprintf(stderr, "eqprof record: -t must be 1Hz..100kHz and --jitter 0..49 %%\n");
		return 2;
	}
	o->argv = argv + i + 1;
	return 0;
bad:
	fprintf(stderr, "eqprof record: %s\n", err.msg);
	return 2;
}

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

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* SIGINT, SIGTERM and SIGHUP stop the recording: the command is ended and
 * the file finished, as perf does. */
static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Ends the command we started: SIGTERM, then SIGKILL after a grace period
 * in which its samples are still drained. */
static void end_command(pid_t pid, int *status, struct perf_recorder *pr,
			const struct eq_sink *sink, struct eq_error *err)
{
	int i;

	kill(pid, SIGTERM);
	for (i = 0; i < 20; i++) {
		if (waitpid(pid, status, WNOHANG) != 0)
			return;
		perf_recorder_drain(pr, 100, sink, err);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
}

static int run(const struct record_opts *o, struct recorder *rec, struct eq_error *err,
	       int *status, int *started)
{
	struct eq_sink sink = recorder_sink(rec);
	int go, eefd, e, rc = 0;
	struct eq_progress line;
	struct perf_recorder *pr;
	double next_tick = 1.0;
	pid_t pid = spawn(o->argv, &go, &eefd);

	if (pid < 0)
		return eq_fail(err, "cannot start %s: %s", o->argv[0], strerror(errno));
	pr = perf_recorder_open(pid, o->hz, o->jitter, (unsigned)pid,
				o->callchain ? PERF_REC_CALLCHAIN : 0, err);
	if (!pr) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (write(go, "g", 1) != 1 || close(go) < 0)
		return eq_fail(err, "cannot release %s: %s", o->argv[0], strerror(errno));
	if (read(eefd, &e, sizeof(e)) == sizeof(e)) {
		waitpid(pid, NULL, 0);
		perf_recorder_close(pr);
		return eq_fail(err, "cannot run '%s': %s", o->argv[0], strerror(e));
	}
	close(eefd);
	*started = 1;
	eq_progress_start(&line, o->quiet, 0.5);
	while (waitpid(pid, status, WNOHANG) == 0) {
		double t;

		if (stop_signal) {
			end_command(pid, status, pr, &sink, err);
			break;
		}
		if (perf_recorder_drain(pr, 100, &sink, err) < 0 ||
		    (recorder_error(rec) && eq_fail(err, "%s", recorder_error(rec)))) {
			rc = -1;
			end_command(pid, status, pr, &sink, err);
			break;
		}
		t = eq_progress_elapsed(&line);
		if (t >= next_tick) {
			/* about once a second, what was recorded goes to the file */
			next_tick = t + 1.0;
			if (recorder_tick(rec, err) < 0) {
				rc = -1;
				end_command(pid, status, pr, &sink, err);
				break;
			}
		}
		if (eq_progress_due(&line))
			eq_progress_show(&line, "eqprof record: %llu samples (%.0f/s, %.1f s)",
					 (unsigned long long)recorder_stats(rec)->samples,
					 recorder_stats(rec)->samples / t, t);
	}
	if (rc == 0)
		rc = perf_recorder_finish(pr, &sink, err);
	perf_recorder_close(pr);
	eq_progress_end(&line, 1);
	return rc;
}

static void describe_target(char *target, size_t size, char *extra, size_t xsize,
			    char **argv)
{
	struct utsname u;
	size_t used;
	int i;

	if (uname(&u) == 0)
		snprintf(target, size, "%s %s %s (%s)", u.machine, u.sysname, u.release, u.nodename);
	used = (size_t)snprintf(extra, xsize, "tool=eqprof record -t\ncommand=");
	for (i = 0; argv[i] && used + 1 < xsize; i++)
		used += (size_t)snprintf(extra + used, xsize - used, "%s%s", i ? " " : "", argv[i]);
	if (used + 1 < xsize)
		snprintf(extra + used, xsize - used, "\n");
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct eq_error err = { "" };
	struct recorder *rec;
	const struct recorder_stats *st;
	static char extra[65536];
	char target[512] = "";
	struct timespec wall;
	int rc = parse_opts(argc, argv, &o), status = 0, started = 0;
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9 };

	if (rc)
		return rc;
	describe_target(target, sizeof(target), extra, sizeof(extra), o.argv);
	clock_gettime(CLOCK_REALTIME, &wall);
	meta.nominal_hz = o.hz;
	meta.target = target;
	meta.extra = extra;
	meta.start_unix_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
	/* The file exists before the command starts: an unwritable output is
	 * found at once, and a recorder killed later leaves what it recorded. */
	rec = recorder_open(o.out, &meta, &err);
	if (!rec)
		goto fail;
	catch_stop_signals();
	rc = run(&o, rec, &err, &status, &started);
	st = recorder_stats(rec);
	if (rc < 0 && !started) {
		recorder_discard(rec); /* the command never ran: nothing to keep */
		goto fail;
	}
	if (rc < 0) {
		fprintf(stderr, "eqprof record: %s\n", err.msg);
		fprintf(stderr, "eqprof record: finishing the recording with what was recorded\n");
	}
	{
		uint64_t samples = st->samples, lost = st->lost;
		char *file = strdup(recorder_file(rec));

		if (recorder_commit(rec, &err) < 0) {
			fprintf(stderr, "eqprof record: %s\n", err.msg);
			if (file)
				fprintf(stderr, "eqprof record: the unfinished recording is %s\n", file);
			free(file);
			return 1;
		}
		free(file);
		if (!o.quiet)
			fprintf(stderr, "eqprof record: %llu samples (%llu lost) written to %s%s\n",
				(unsigned long long)samples, (unsigned long long)lost, o.out,
				stop_signal ? " (stopped by a signal; the command was ended)" : "");
	}
	if (rc < 0)
		return 1;
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "eqprof record: %s exited with status %d\n", o.argv[0], WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status) && !stop_signal) {
		fprintf(stderr, "eqprof record: %s was killed by signal %d\n", o.argv[0], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return stop_signal ? 128 + stop_signal : 0;
fail:
	fprintf(stderr, "eqprof record: %s\n", err.msg);
	return 1;
}
