/*
 * builtin-record.c - eqprof record: run a command and write a recording.
 *
 *   eqprof record (-e | -t [HZ]) [-a] [--duration T] [--jitter PCT] [--gpio CHIP:LINE]
 *                 [-g | --call-graph fp|dwarf[,SIZE]]
 *                 [--energy SOURCE] [-o OUT.eqp] [-q] [-- COMMAND [ARGS]...]
 *
 * Energy-driven sampling (-e) reads the eqprof kernel module's samples of
 * the board's interrupt (record/module.h).  Time-driven sampling (-t) uses
 * the module's hrtimers when it is loaded (the same handler as -e, so the
 * profiles compare sample for sample) and perf_event_open's cpu-clock
 * otherwise (record/perf.h), and says which.  With the module, maps, names
 * and forks come from perf's sideband records; -a records every process, the
 * kernel and idle, for the command's run or --duration.  With -t, --energy
 * SOURCE reads an energy source (RAPL, a battery gauge, an hwmon sensor)
 * alongside the samples (record/energy.h), so report can charge each
 * interval's energy to its samples.
 */
#include <ctype.h>
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
#include "record/kallsyms.h"
#include "record/module.h"
#include "record/procs.h"
#include "record/energy.h"
#include "record/perf.h"
#include "record/trace.h"
#include "record/recorder.h"
#include "record/tree_filter.h"
#include "symbolize.h"
#include "units.h"
#include "grow.h"

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
struct sources {
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

static void usage(FILE *out)
{
	fprintf(out,
		"usage: eqprof record (-e | -t [HZ]) [-a] [--duration T] [--jitter PCT] [--gpio CHIP:LINE]\n"
		"                     [--energy SOURCE] [-o OUT.eqp] [-q] [[--] COMMAND [ARGS]...]\n\n"
		"  -e             energy-driven: one sample per quantum of the board, from the\n"
		"                 eqprof kernel module (docs/target-linux.md)\n"
		"  -t [HZ]        time-driven at HZ (default 1000Hz; 4000, 4k, 4kHz): the module's hrtimers when\n"
		"                 it is loaded, else perf's cpu-clock of COMMAND's CPU time\n"
		"  -a             the whole system (every process, the kernel, idle) for\n"
		"                 COMMAND's run or --duration\n"
		"  --duration T   stop after T (e.g. 10s); ends COMMAND if it still runs\n"
		"  --jitter PCT   rate drawn within +-PCT %% (default 5)\n"
		"  --gpio CHIP:LINE  the board's line for -e (default: the module's parameters)\n"
		"  --ivshmem      -e from the board behind a QEMU ivshmem doorbell (docs/hil.md)\n"
		"  -g, --call-graph fp  record each sample's call chain (frame pointers; perf only)\n"
		"  --call-graph dwarf[,SIZE]  copy SIZE bytes of user stack (default 8192, at most\n"
		"                 65528) and the registers with each sample, unwound offline from\n"
		"                 the DWARF CFI (code built without frame pointers; perf only)\n"
		"  --energy SRC   with -t: read the energy source SRC (rapl, battery, hwmon, a\n"
		"                 domain as 'eqprof sources' names it, or auto) alongside the\n"
		"                 samples; report then gives joules per procedure\n"
		"                 (docs/energy-sources.md)\n"
		"  --energy-every T  read it every T (default 10ms)\n"
		"  --energy-settle T  after the command, wait at most T for a slow source\n"
		"                 (a battery gauge) to update (default 60s)\n"
		"  --sysfs DIR    read the source's sysfs under DIR (also $EQPROF_SYSFS)\n"
		"  --all-user     user space only (the kernel is sampled too when permitted:\n"
		"                 root, or perf_event_paranoid 1 or lower)\n"
		"  -p PID[,PID...]  attach to running processes and their threads (and the\n"
		"                 children and threads they make from now) until all have\n"
		"                 exited, --duration, Ctrl-C, or COMMAND (run, not sampled) ends\n"
		"  --events LIST  log the tracepoints of LIST (power, block, net, all, none) as\n"
		"                 power states and device requests of the whole machine\n"
		"                 (report --by state, report --attribute async); default: all\n"
		"                 with -a, none otherwise; needs root or CAP_PERFMON and\n"
		"                 tracefs (docs/target-linux.md)\n"
		"  --no-events    log none (same as --events none)\n"
		"  --quantum E    with -e: the board's energy per interrupt (e.g. 46uJ, from\n"
		"                 'eqprof board info'), so the recording holds joules\n"
		"  -o OUT.eqp     output recording (default eqprof.eqp)\n"
		"  -q             no progress line and no summary\n"
		"  --target cortexm ...  a bare-metal Cortex-M target instead (eqprof record\n"
		"                 --target cortexm --help; docs/target-cortexm.md)\n");
}

/* -p 12,34: processes by id, as perf takes them; each must exist. */
static int parse_pids(const char *text, struct record_opts *o, struct eq_error *err)
{
	const char *p = text;

	o->npids = 0;
	do {
		char *end;
		long v;
		int j;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || errno || v <= 0 || v > 0x3fffffff || *p == '+' ||
		    *p == '-' || *p == ' ')
			return eq_fail(err, "-p %s: not a process id (a number above 0, or a comma list: -p 12,34)",
				       text);
		for (j = 0; j < o->npids; j++)
			if (o->pids[j] == (pid_t)v)
				return eq_fail(err, "-p %s: process %ld is given twice", text, v);
		if (o->npids == (int)(sizeof(o->pids) / sizeof(o->pids[0])))
			return eq_fail(err, "-p %s: more than %zu processes; record them with -a and report --comm",
				       text, sizeof(o->pids) / sizeof(o->pids[0]));
		if (kill((pid_t)v, 0) < 0 && errno == ESRCH)
			return eq_fail(err, "-p %s: no such process %ld", text, v);
		o->pids[o->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return eq_fail(err, "-p %s: not a process id (a number above 0, or a comma list: -p 12,34)",
				       text);
	} while (*p);
	o->attach = o->pids[0];
	return 0;
}

/* A word after -t that can only be meant as a rate. */
static int looks_numeric(const char *w)
{
	return isdigit((unsigned char)w[0]) ||
	       (strchr("+-.", w[0]) && w[0] && (isdigit((unsigned char)w[1]) || w[1] == '.'));
}

/* 1 when execvp() would find w. */
static int is_command(const char *w)
{
	const char *path = getenv("PATH"), *p, *colon;
	char file[4096];

	if (strchr(w, '/'))
		return access(w, X_OK) == 0;
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *colon ? colon + 1 : colon) {
		colon = strchrnul(p, ':');
		snprintf(file, sizeof(file), "%.*s/%s", (int)(colon - p), p, w);
		if (access(file, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* The rate the kernel samples at most (kernel.perf_event_max_sample_rate). */
static double max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	double v = 0;

	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0 ? v : 100000;
}

/* -t's value: 4000, 4k, 4kHz; errors name -t and the value. */
static int parse_rate(const char *w, double *hz, struct eq_error *err)
{
	char buf[64];
	size_t n = strlen(w);
	double max = max_sample_rate();

	if (n && n + 3 < sizeof(buf) && strchr("kKM", w[n - 1])) {
		snprintf(buf, sizeof(buf), "%sHz", w);
		if (buf[n - 1] == 'K')
			buf[n - 1] = 'k';
	} else {
		snprintf(buf, sizeof(buf), "%s", w);
	}
	if (eq_parse_quantity(buf, "Hz", "-t", hz, err) < 0)
		return eq_fail(err, "-t %s: not a rate; give samples per second of CPU time, as 4000, 4k or 4kHz",
			       w);
	if (!(*hz > 0))
		return eq_fail(err, "-t %s: the rate must be above 0 Hz", w);
	if (*hz > max)
		return eq_fail(err, "-t %s: above %.0f Hz, the most this kernel samples at "
			       "(/proc/sys/kernel/perf_event_max_sample_rate)", w, max);
	return 0;
}

/* --call-graph's value: fp, or dwarf with an optional stack size. */
static int parse_call_graph(const char *v, struct record_opts *o, struct eq_error *err)
{
	char *end;
	unsigned long n;

	if (!v || !*v)
		return eq_fail(err, "--call-graph needs a mode: fp (frame pointers) or dwarf[,SIZE] (stack copies)");
	if (!strcmp(v, "fp")) {
		o->callchain = 1;
		o->dwarf_stack = 0;
		return 0;
	}
	if (strncmp(v, "dwarf", 5) || (v[5] && v[5] != ','))
		return eq_fail(err, "--call-graph %s: unknown mode; use fp (frame pointers) or dwarf[,SIZE] (stack copies unwound with DWARF CFI)%s",
			       v, !strcmp(v, "lbr") ? " (LBR needs an Intel PMU, which eqprof does not use)" : "");
	o->callchain = 0;
	o->dwarf_stack = PERF_REC_STACK_DEFAULT;
	if (!v[5])
		return 0;
	errno = 0;
	n = strtoul(v + 6, &end, 0);
	if (end == v + 6 || *end || errno || v[6] == '-')
		return eq_fail(err, "--call-graph %s: '%s' is not a stack size in bytes (8 to %u, e.g. dwarf,16384)",
			       v, v + 6, EQP_MAX_USTACK);
	if (n < 8 || n > EQP_MAX_USTACK)
		return eq_fail(err, "--call-graph %s: the stack size must be 8 to %u bytes (the kernel's limit)",
			       v, EQP_MAX_USTACK);
	o->dwarf_stack = (unsigned)(n + 7) / 8 * 8; /* the kernel copies whole u64s */
	return 0;
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	struct eq_error err;
	int i;

	*o = (struct record_opts){ .hz = 1000, .jitter = 5, .out = "eqprof.eqp", .epoll = 0.01,
				   .esettle = 60 };
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][0] != '-')
			break;          /* the command, without "--", as perf takes it */
		if (!strcmp(argv[i], "-e")) {
			o->energy = 1;
		} else if (!strcmp(argv[i], "-a")) {
			o->all = 1;
		} else if (!strcmp(argv[i], "--duration") && i + 1 < argc) {
			if (eq_parse_quantity(argv[++i], "s", "--duration", &o->duration, &err) < 0)
				goto bad;
			if (!(o->duration > 0)) {
				eq_fail(&err, "--duration %s: must be more than 0", argv[i]);
				goto bad;
			}
		} else if (!strcmp(argv[i], "--energy") && i + 1 < argc) {
			o->esource = argv[++i];
		} else if (!strcmp(argv[i], "--sysfs") && i + 1 < argc) {
			o->sysfs = argv[++i];
		} else if ((!strcmp(argv[i], "--energy-every") || !strcmp(argv[i], "--energy-settle")) &&
			   i + 1 < argc) {
			int every = !strcmp(argv[i], "--energy-every");
			double *v = every ? &o->epoll : &o->esettle;

			if (eq_parse_quantity(argv[i + 1], "s", argv[i], v, &err) < 0)
				goto bad;
			if (every ? !(*v >= 1e-3 && *v <= 10) : !(*v >= 0 && *v <= 3600)) {
				eq_fail(&err, "%s %s: give %s", argv[i], argv[i + 1],
					every ? "1ms to 10s" : "0 to 1h");
				goto bad;
			}
			i++;
		} else if (!strcmp(argv[i], "--gpio") && i + 1 < argc) {
			o->gpio = argv[++i];
		} else if (!strcmp(argv[i], "--ivshmem")) {
			o->ivshmem = 1;
		} else if (!strcmp(argv[i], "-t")) {
			const char *v = i + 1 < argc ? argv[i + 1] : NULL;

			if (v && looks_numeric(v)) {
				if (parse_rate(v, &o->hz, &err) < 0)
					goto bad;
				i++;
			} else if (v && v[0] != '-' && !is_command(v)) {
				eq_fail(&err, "-t %s: not a rate (4000, 4k, 4kHz), and no command '%s' found in PATH",
					v, v);
				goto bad;
			}
		} else if (!strcmp(argv[i], "-g")) {
			o->callchain = 1;
			o->dwarf_stack = 0;
		} else if (!strcmp(argv[i], "--call-graph") || !strncmp(argv[i], "--call-graph=", 13)) {
			const char *v = argv[i][12] == '=' ? argv[i] + 13 : i + 1 < argc ? argv[++i] : NULL;

			if (parse_call_graph(v, o, &err) < 0)
				goto bad;
		} else if (!strcmp(argv[i], "--jitter") && i + 1 < argc) {
			char *end;

			o->jitter = strtod(argv[++i], &end);
			if (end == argv[i] || (*end && strcmp(end, "%"))) {
				eq_fail(&err, "--jitter %s: not a percentage", argv[i]);
				goto bad;
			}
			if (!(o->jitter >= 0 && o->jitter < 50)) {
				eq_fail(&err, "--jitter %s: must be 0 to 49 %%", argv[i]);
				goto bad;
			}
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			o->out = argv[++i];
		} else if ((!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pid")) && i + 1 < argc) {
			if (parse_pids(argv[++i], o, &err) < 0)
				goto bad;
		} else if (!strcmp(argv[i], "--events") && i + 1 < argc) {
			if (trace_parse_groups(argv[++i], &o->events, &err) < 0)
				goto bad;
			o->events_set = 1;
		} else if (!strcmp(argv[i], "--no-events")) {
			o->events = 0;
			o->events_set = 1;
		} else if (!strcmp(argv[i], "--quantum") && i + 1 < argc) {
			if (eq_parse_quantity(argv[++i], "J", "--quantum", &o->quantum_j, &err) < 0)
				goto bad;
			if (!(o->quantum_j > 0)) {
				eq_fail(&err, "--quantum %s: must be more than 0", argv[i]);
				goto bad;
			}
		} else if (!strcmp(argv[i], "--all-user")) {
			o->all_user = 1;
		} else if (!strcmp(argv[i], "-q")) {
			o->quiet = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			exit(0);
		} else {
			if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--jitter") ||
			    !strcmp(argv[i], "--energy") || !strcmp(argv[i], "--sysfs") ||
			    !strcmp(argv[i], "--energy-every") || !strcmp(argv[i], "--energy-settle") ||
			    !strcmp(argv[i], "-p") || !strcmp(argv[i], "--pid") || !strcmp(argv[i], "--duration") ||
			    !strcmp(argv[i], "--events") || !strcmp(argv[i], "--quantum"))
				fprintf(stderr, "eqprof record: %s needs a value\n", argv[i]);
			else
				fprintf(stderr, "eqprof record: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (o->attach && (o->all || o->energy)) {
		fprintf(stderr, "eqprof record: -p: %s\n", o->all
			? "-a records every process already; give one of -p and -a"
			: "energy-driven recording (-e) takes the module's samples of every process: record -e -a and report --comm, or -t -p");
		return 2;
	}
	if (i >= argc && !o->all && !o->attach) {
		fprintf(stderr, "eqprof record: no command given (only -a and -p record without one)\n");
		usage(stderr);
		return 2;
	}
	o->argv = i < argc ? argv + i : NULL;
	if (!o->events_set)
		o->events = o->all ? TE_G_ALL : 0;
	if (o->quantum_j > 0 && !o->energy) {
		fprintf(stderr, "eqprof record: --quantum goes with -e: time-driven samples carry no energy\n");
		return 2;
	}
	/* call chains come from perf only: -t -g uses perf even with the module */
	o->use_module = o->energy || (!o->callchain && !o->dwarf_stack && !o->attach &&
				      module_recorder_available(NULL));
	if (o->energy && o->esource) {
		fprintf(stderr, "eqprof record: --energy %s goes with -t: energy-driven samples (-e) already carry the board's energy, one quantum each\n",
			o->esource);
		return 2;
	}
	if (o->energy && (o->callchain || o->dwarf_stack)) {
		fprintf(stderr, "eqprof record: %s: the eqprof module records no call chains; record -e without it\n",
			o->callchain ? "-g" : "--call-graph dwarf");
		return 2;
	}
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

/* ---- the sources ---------------------------------------------------------- */

static int hold_sample(void *ctx, const struct eq_sample *smp)
{
	struct sources *s = ctx;

	if (EQ_GROW(s->held, s->capheld, s->nheld + 1, 4096) < 0)
		return -1;
	s->held[s->nheld++] = *smp;
	return 0;
}

static void pass_lost(void *ctx, uint32_t source, uint64_t count)
{
	struct sources *s = ctx;

	s->sink.lost(s->sink.ctx, source, count);
}

/* Hands over the held samples up to the sideband's horizon; the rest wait. */
static int pass_held(struct sources *s, uint64_t horizon)
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
static int drain(struct sources *s, int timeout_ms, struct eq_error *err)
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

static int stop_sources(struct sources *s, struct eq_error *err)
{
	struct eq_sink hold = { .ctx = s, .sample = hold_sample, .lost = pass_lost };

	if (s->mod && module_recorder_stop(s->mod, &hold, err) < 0)
		return -1;
	if (perf_recorder_finish(s->perf, &s->sink, err) < 0 ||
	    trace_recorder_finish(s->trace, s->rec, err) < 0)
		return -1;
	return pass_held(s, UINT64_MAX) < 0 ? eq_fail(err, "recording samples failed") : 0;
}

static void close_sources(struct sources *s)
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
static int open_module(const struct record_opts *o, struct sources *s, struct eq_error *err)
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
static int open_perf(const struct record_opts *o, struct sources *s, struct recorder *rec,
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
			fprintf(stderr, "eqprof record: warning: %d of %d CPUs are offline and have no counter: work moved there later is not sampled\n",
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
static void end_command(pid_t pid, int *status, struct sources *src, struct eq_error *err)
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

static int run(const struct record_opts *o, struct recorder *rec, struct sources *src,
	       struct eq_error *err, int *status, int *started)
{
	int go = -1, eefd = -1, e, rc = 0, done = 0;
	struct eq_progress line;
	double next_tick = 1.0, end = o->duration > 0 ? now_s() + o->duration : 0;
	pid_t pid = 0;

	if (o->argv) {
		pid = spawn(o->argv, &go, &eefd);
		if (pid < 0)
			return eq_fail(err, "cannot start %s: %s", o->argv[0], strerror(errno));
	}
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
		rc = stop_sources(src, err);
	eq_progress_end(&line, 1);
	if (rc == 0 && src->energy &&
	    record_energy_finish(src->energy, rec, stop_signal ? 0 : o->esettle, o->quiet, err) < 0) {
		src->energy_failed = 1;
		rc = -1;
	}
	return rc;
}

/*
 * A high rate is tried on this machine first (50-100 ms of the recorder's
 * own CPU time; rates below 5 kHz are what perf uses by default and are
 * not tried): when the kernel cannot deliver it or the program would run
 * much slower, the user hears it before the command starts.
 */
#define PROBE_FROM_HZ 5000
static void check_rate(const struct record_opts *o)
{
	double achieved, slowdown, ms = 500 / o->hz * 1000;
	struct eq_error err;
	char want[32], got[32];

	if (o->hz < PROBE_FROM_HZ)
		return;
	if (ms < 50)
		ms = 50;
	if (perf_rate_probe(o->hz, ms, &achieved, &slowdown, &err) < 0)
		return; /* the recording itself will say what is wrong */
	if (achieved >= 0.8 * o->hz && slowdown <= 1.5)
		return;
	fprintf(stderr, "eqprof record: warning: -t %s: this machine took %s (%.0f%% of it) while sampling a busy loop, which ran %.1f times slower; shares stay unbiased, but fewer samples come and the program is disturbed: a lower -t is kinder\n",
		eq_format_quantity(want, sizeof(want), o->hz, "Hz"),
		eq_format_quantity(got, sizeof(got), achieved, "Hz"), 100 * achieved / o->hz,
		slowdown);
}

static void describe_target(char *target, size_t size, char *extra, size_t xsize,
			    const struct record_opts *o, const struct sources *src)
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
static void summary(const struct record_opts *o, const struct sources *src,
		    uint64_t samples, uint64_t lost)
{
	const struct module_recorder_stats *ms;

	if (o->dwarf_stack && src->perf) {
		struct perf_stack_stats ss;

		perf_recorder_stack_stats(src->perf, &ss);
		fprintf(stderr, "eqprof record: %llu user stack copies, %.1f MiB (%.0f bytes a sample)\n",
			(unsigned long long)ss.copies, ss.bytes / 1048576.0,
			ss.copies ? (double)ss.bytes / (double)ss.copies : 0.0);
		if (ss.full)
			fprintf(stderr, "eqprof record: %llu copies (%.1f%%) filled all %u bytes: callers deeper than that are cut off (a larger --call-graph dwarf,SIZE keeps them)\n",
				(unsigned long long)ss.full, 100.0 * (double)ss.full / (double)(ss.copies ? ss.copies : 1),
				ss.size);
		if (ss.ring_shrunk && lost)
			fprintf(stderr, "eqprof record: the locked-memory limit allowed rings of %u KiB a CPU only: raise /proc/sys/kernel/perf_event_mlock_kb (or run as root), a lower -t, or a smaller --call-graph dwarf,SIZE loses fewer samples\n",
				ss.ring_kib);
		if (ss.bad)
			fprintf(stderr, "eqprof record: warning: %llu samples had malformed register or stack data and were kept without a stack\n",
				(unsigned long long)ss.bad);
	}
	if (!src->mod) {
		fprintf(stderr, "eqprof record: %llu samples (%llu lost) written to %s%s\n",
			(unsigned long long)samples, (unsigned long long)lost, o->out,
			stop_signal ? " (stopped by a signal; the command was ended)" : "");
		return;
	}
	ms = module_recorder_stats(src->mod);
	fprintf(stderr, "eqprof record: %llu samples in %.2f s (%.1f/s) from %s\n"
		"eqprof record: lost %llu (ring drops %llu, seq gaps %llu)\n",
		(unsigned long long)ms->samples, ms->seconds,
		ms->seconds > 0 ? ms->samples / ms->seconds : 0.0, ms->source,
		(unsigned long long)lost, (unsigned long long)ms->ring_dropped,
		(unsigned long long)ms->seq_gaps);
	if (ms->missed)
		fprintf(stderr, "eqprof record: %llu hrtimer periods passed with no interrupt (interrupts off, or the CPU was not running)\n",
			(unsigned long long)ms->missed);
	if (src->filter)
		fprintf(stderr, "eqprof record: %llu samples of other processes not kept (-a keeps them)\n",
			(unsigned long long)tree_filter_dropped(src->filter));
	if (ms->approx)
		fprintf(stderr, "eqprof record: %llu samples without interrupted registers (EQ_F_PC_APPROX)\n",
			(unsigned long long)ms->approx);
	fprintf(stderr, "eqprof record: the recorder's own share: %.2f%% (%llu samples)\n"
		"eqprof record: %llu samples (%llu lost) written to %s%s\n",
		ms->samples ? 100.0 * ms->own / ms->samples : 0.0, (unsigned long long)ms->own,
		(unsigned long long)samples, (unsigned long long)lost, o->out,
		stop_signal ? " (stopped by a signal; the command was ended)" : "");
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct eq_error err = { "" };
	struct recorder *rec;
	struct sources src = { 0 };
	const struct recorder_stats *st;
	static char extra[65536];
	char target[512] = "";
	struct timespec wall;
	int rc, status = 0, started = 0, i;
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9 };

	/* another target than this machine (docs/target-cortexm.md) */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--target"))
			return cmd_record_cortexm(argc, argv);
	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (o.energy && !module_recorder_available(NULL)) {
		fprintf(stderr, "eqprof record: energy-driven recording (-e) needs the board's interrupt wired to a GPIO of this machine and the eqprof module loaded: %s does not exist (docs/target-linux.md); use -t for time-driven sampling, or 'eqprof sim' for a simulated energy-driven run\n",
			"/dev/eqprof");
		return 1;
	}
	if (o.esource) {
		src.energy = record_energy_open(o.esource, o.sysfs, o.epoll, &err);
		if (!src.energy)
			goto fail;
	}
	if (o.use_module && open_module(&o, &src, &err) < 0) {
		if (o.energy)
			goto fail;
		/* -t: the module is there but not ours to use; perf will do */
		fprintf(stderr, "eqprof record: not using the eqprof module: %s\n", err.msg);
		module_recorder_close(src.mod);
		src.mod = NULL;
		o.use_module = 0;
	}
	if (!o.quiet && !o.energy)
		fprintf(stderr, "eqprof record: time-driven through %s\n", o.use_module
			? "the eqprof module's hrtimers (/dev/eqprof)"
			: !module_recorder_available(NULL) ? "perf's cpu-clock (the eqprof module is not loaded)"
			: o.callchain || o.dwarf_stack ? "perf's cpu-clock (call chains come from perf, not from the eqprof module)"
			: o.attach ? "perf's cpu-clock (-p attaches through perf, not through the eqprof module)"
			: "perf's cpu-clock");
	if (!o.use_module)
		check_rate(&o);  /* perf's cpu-clock: can this machine give the rate? */
	/* The kernel's share of the command's run, when this user may see it
	 * (the module and -a sample it anyway). */
	if (o.use_module || o.all) {
		o.kernel = 1;
	} else if (o.all_user) {
		snprintf(o.kernel_note, sizeof(o.kernel_note),
			 "kernel samples excluded: recorded with --all-user");
	} else if (perf_kernel_allowed(o.kernel_note, sizeof(o.kernel_note))) {
		o.kernel = 1;
	} else if (!o.quiet) {
		fprintf(stderr, "eqprof record: %s\n", o.kernel_note);
	}
	if (o.events) {
		/* before the header: it names the devices and what is not logged */
		src.trace = trace_recorder_open(o.events);
		if (!src.trace) {
			eq_fail(&err, "out of memory");
			goto fail;
		}
		if (trace_recorder_note(src.trace)[0])
			fprintf(stderr, "eqprof record: not logging %s\n", trace_recorder_note(src.trace));
	}
	describe_target(target, sizeof(target), extra, sizeof(extra), &o, &src);
	if (src.trace)
		trace_recorder_meta(src.trace, extra + strlen(extra), sizeof(extra) - strlen(extra));
	clock_gettime(CLOCK_REALTIME, &wall);
	meta.mode = o.energy ? EQP_MODE_ENERGY : EQP_MODE_TIME;
	meta.nominal_hz = o.energy ? 0 : o.hz;
	meta.quantum_j = o.quantum_j;
	meta.target = target;
	meta.extra = extra;
	meta.start_unix_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
	/* The file exists before the command starts: an unwritable output is
	 * found at once, and a recorder killed later leaves what it recorded. */
	rec = recorder_open(o.out, &meta, &err);
	if (!rec)
		goto fail;
	src.rec = rec;
	if (src.energy && record_energy_start(src.energy, rec, &err) < 0) {
		recorder_discard(rec);  /* a source that cannot be read: no output */
		goto fail;
	}
	catch_stop_signals();
	rc = run(&o, rec, &src, &err, &status, &started);
	st = recorder_stats(rec);
	if (rc < 0 && src.energy_failed) {
		/* readings that are not energy would give wrong joules: the
		 * recording is not kept (the message says what to fix) */
		recorder_discard(rec);
		goto fail;
	}
	if (rc < 0 && !started) {
		recorder_discard(rec); /* the command never ran: nothing to keep */
		goto fail;
	}
	if (rc < 0) {
		fprintf(stderr, "eqprof record: %s\n", err.msg);
		fprintf(stderr, "eqprof record: finishing the recording with what was recorded\n");
	}
	/* Kernel samples symbolize through the kernel's own symbol table. */
	if ((src.mod || o.all || o.kernel) && record_kernel_symbols(rec, &err) < 0)
		fprintf(stderr, "eqprof record: warning: %s\n", err.msg);
	{
		uint64_t samples = st->samples, lost = st->lost;
		char *file = strdup(recorder_file(rec));

		if (recorder_commit(rec, &err) < 0) {
			fprintf(stderr, "eqprof record: %s\n", err.msg);
			if (file)
				fprintf(stderr, "eqprof record: the unfinished recording is %s\n", file);
			free(file);
			close_sources(&src);
			return 1;
		}
		free(file);
		if (!o.quiet)
			summary(&o, &src, samples, lost);
	}
	if (src.energy && !o.quiet)
		record_energy_summary(src.energy, stderr);
	if (src.trace && !o.quiet)
		trace_recorder_summary(src.trace, stderr);
	close_sources(&src);
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
	/* an attached process is recorded until Ctrl-C: that is success */
	if (o.attach && !o.argv && (stop_signal == SIGINT || stop_signal == SIGTERM))
		return 0;
	return stop_signal ? 128 + stop_signal : 0;
fail:
	close_sources(&src);
	fprintf(stderr, "eqprof record: %s\n", err.msg);
	return 1;
}
