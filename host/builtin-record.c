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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cmd.h"
#include "cortexm/cmrec.h"
#include "parse-options.h"
#include "file/eqp.h"
#include "file/eqp_regs.h"
#include "record/kallsyms.h"
#include "record/module.h"
#include "record/energy.h"
#include "record/perf.h"
#include "record/session.h"
#include "record/trace.h"
#include "record/recorder.h"
#include "util/units.h"

/* eqprof-record (host/record/module.mk) records the machine it runs on
 * only: the Cortex-M target recorder is left out of it. */
#pragma weak cmd_record_cortexm

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
	if (!eqp_regs_native())
		return eq_fail(err, "--call-graph dwarf: eqprof knows no user registers of this machine's architecture (x86-64, aarch64 and 32-bit ARM have them); use --call-graph fp");
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

/* ---- the options ----------------------------------------------------------- */

#define REC_LINUX   EQ_MODE_MAIN  /* this machine */
#define REC_CORTEXM 0x2u          /* --target cortexm */

static struct record_opts *opts_of(const struct eq_option *opt)
{
	return opt->value;
}

/* -t [HZ]: the next word is the rate when it can only be meant as one. */
static int rate_follows(const char *w, struct eq_error *err)
{
	if (looks_numeric(w))
		return 1;
	if (w[0] != '-' && !is_command(w))
		return eq_fail(err, "-t %s: not a rate (4000, 4k, 4kHz), and no command '%s' found in PATH",
			       w, w);
	return 0;
}

static int opt_rate(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return arg ? parse_rate(arg, &opts_of(opt)->hz, err) : 0;
}

static int opt_g(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	opts_of(opt)->callchain = 1;
	opts_of(opt)->dwarf_stack = 0;
	return 0;
}

static int opt_call_graph(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return parse_call_graph(arg, opts_of(opt), err);
}

static int opt_pids(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return parse_pids(arg, opts_of(opt), err);
}

static int opt_events(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct record_opts *o = opts_of(opt);

	o->events_set = 1;
	if (!arg) {
		o->events = 0;  /* --no-events */
		return 0;
	}
	return trace_parse_groups(arg, &o->events, err);
}

/* --energy-every 1ms to 10s, --energy-settle 0 to 1h */
static int opt_energy_time(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	int every = !strcmp(opt->long_name, "energy-every");
	double *v = opt->value;
	char what[32];

	snprintf(what, sizeof(what), "--%s", opt->long_name);
	if (eq_parse_quantity(arg, "s", what, v, err) < 0)
		return -1;
	if (every ? !(*v >= 1e-3 && *v <= 10) : !(*v >= 0 && *v <= 3600))
		return eq_fail(err, "%s %s: give %s", what, arg, every ? "1ms to 10s" : "0 to 1h");
	return 0;
}

static int opt_jitter(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	double *v = opt->value;
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%")))
		return eq_fail(err, "--jitter %s: not a percentage", arg);
	if (!(*v >= 0 && *v < 50))
		return eq_fail(err, "--jitter %s: must be 0 to 49 %%", arg);
	return 0;
}

static int opt_target(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	if (strcmp(arg, "cortexm"))
		return eq_fail(err, "--target %s: the targets are cortexm (and, without --target, this "
			       "Linux machine)", arg);
	return 0;
}

static int opt_baud(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	unsigned long long u;

	if (eq_parse_uint(arg, "--baud", 20000000, &u, err) < 0)
		return -1;
	*(unsigned *)opt->value = (unsigned)u;
	return 0;
}

static int opt_idle(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return eq_parse_quantity(arg, "s", "--idle", opt->value, err);
}

#define LINUX_CB(s, l, v, a, h, f) \
	{ .type = EQ_OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .cb = (f), .modes = REC_LINUX }
#define CORTEXM_STRING(l, v, a, h) \
	{ .type = EQ_OPTION_STRING, .long_name = (l), .value = (v), .argh = (a), .help = (h), \
	  .modes = REC_CORTEXM, .complete = EQ_COMPLETE_FILE }

static const char record_usage[] =
	"eqprof record [-e | -t [HZ]] [-a | -p PID[,PID...]] [options] [--] COMMAND [ARGS]...\n"
	"eqprof record -a [options] --duration T\n"
	"eqprof record --target cortexm --port SPEC --elf APP.elf [options]\n";

static const char record_about[] =
	"Runs COMMAND (or watches the machine with -a, or processes with -p) and\n"
	"writes its samples to a recording for report, annotate and export.\n";

/* What the table cannot say: the options that exclude each other, and the
 * command that each mode needs or refuses; n is how many arguments remain. */
static int check_record_options(const struct eq_command *cmd, unsigned mode, int n, char **argv,
				const struct record_opts *o, const struct cm_rec_opts *cm)
{
	if (mode == REC_CORTEXM) {
		if (n)
			return eq_usage_error(cmd, mode, "%s: a Cortex-M target runs on its own: "
					      "give no command", argv[0]), EQ_PARSE_ERROR;
		if (!cm->port)
			return eq_usage_error(cmd, mode, "--port is missing: where does the target's "
					      "drain send its frames? (tty:/dev/ttyUSB0, unix:PATH, "
					      "file:PATH)"), EQ_PARSE_ERROR;
		return 0;
	}
	if (o->attach && (o->all || o->energy))
		return eq_usage_error(cmd, mode, "-p: %s", o->all
			? "-a records every process already; give one of -p and -a"
			: "energy-driven recording (-e) takes the module's samples of every process: record -e -a and report --comm, or -t -p"),
		       EQ_PARSE_ERROR;
	if (n == 0 && !o->all && !o->attach)
		return eq_usage_error(cmd, mode, "no command given (only -a and -p record without "
				      "one)"), EQ_PARSE_ERROR;
	return n;
}

/* How this machine is sampled: -e or -t, which processes, call chains. */
static size_t sampling_options(struct eq_option *t, struct record_opts *o)
{
	const struct eq_option opts[] = {
		{ .type = EQ_OPTION_FLAG, .short_name = 'e', .value = &o->energy, .defval = 1,
		  .modes = REC_LINUX,
		  .help = "energy-driven: one sample per quantum of the board, from the\n"
			  "eqprof kernel module (docs/target-linux.md)" },
		{ .type = EQ_OPTION_CALLBACK, .short_name = 't', .value = o, .argh = "HZ",
		  .flags = EQ_OPT_OPTARG, .takes_next = rate_follows, .cb = opt_rate,
		  .modes = REC_LINUX,
		  .help = "time-driven at HZ (default 1000Hz; 4000, 4k, 4kHz): the module's\n"
			  "hrtimers when it is loaded, else perf's cpu-clock of COMMAND's\n"
			  "CPU time" },
		{ .type = EQ_OPTION_FLAG, .short_name = 'a', .value = &o->all, .defval = 1,
		  .modes = REC_LINUX,
		  .help = "the whole system (every process, the kernel, idle) for\n"
			  "COMMAND's run or --duration" },
		{ .type = EQ_OPTION_CALLBACK, .short_name = 'p', .long_name = "pid", .value = o,
		  .argh = "PID[,PID...]", .cb = opt_pids, .modes = REC_LINUX,
		  .help = "attach to running processes and their threads (and the\n"
			  "children and threads they make from now) until all have\n"
			  "exited, --duration, Ctrl-C, or COMMAND (run, not sampled) ends" },
		OPT_CALLBACK(0, "duration", &o->duration, "T",
			     "stop after T (e.g. 10s); ends COMMAND if it still runs", eq_opt_seconds),
		LINUX_CB(0, "jitter", &o->jitter, "PCT", "rate drawn within +-PCT % (default 5)",
			 opt_jitter),
		{ .type = EQ_OPTION_STRING, .long_name = "gpio", .value = &o->gpio,
		  .argh = "CHIP:LINE", .modes = REC_LINUX,
		  .help = "the board's line for -e (default: the module's parameters)" },
		{ .type = EQ_OPTION_FLAG, .long_name = "ivshmem", .value = &o->ivshmem, .defval = 1,
		  .modes = REC_LINUX,
		  .help = "-e from the board behind a QEMU ivshmem doorbell (docs/hil.md)" },
		{ .type = EQ_OPTION_CALLBACK, .short_name = 'g', .value = o, .cb = opt_g,
		  .flags = EQ_OPT_NOARG, .modes = REC_LINUX,
		  .help = "record each sample's call chain by frame pointers (perf only;\n"
			  "the same as --call-graph fp)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "call-graph", .value = o,
		  .argh = "fp|dwarf[,SIZE]", .cb = opt_call_graph, .modes = REC_LINUX,
		  .complete = "fp dwarf",
		  .help = "fp: call chains by frame pointers (-g); dwarf: copy SIZE\n"
			  "bytes of user stack (default 8192, at most 65528) and the\n"
			  "registers with each sample, unwound offline from the DWARF CFI\n"
			  "(code built without frame pointers; perf only)" },
	};

	memcpy(t, opts, sizeof(opts));
	return sizeof(opts) / sizeof(opts[0]);
}

/* What else is recorded beside the samples: an energy source, the kernel,
 * tracepoints. */
static size_t source_options(struct eq_option *t, struct record_opts *o)
{
	const struct eq_option opts[] = {
		{ .type = EQ_OPTION_STRING, .long_name = "energy", .value = &o->esource,
		  .argh = "SRC", .modes = REC_LINUX, .complete = "auto rapl battery hwmon",
		  .help = "with -t: read the energy source SRC (rapl, battery, hwmon, a\n"
			  "domain as 'eqprof sources' names it, or auto) alongside the\n"
			  "samples; report then gives joules per procedure\n"
			  "(docs/energy-sources.md)" },
		LINUX_CB(0, "energy-every", &o->epoll, "T", "read it every T (default 10ms)",
			 opt_energy_time),
		LINUX_CB(0, "energy-settle", &o->esettle, "T",
			 "after the command, wait at most T for a slow source\n"
			 "(a battery gauge) to update (default 60s)", opt_energy_time),
		{ .type = EQ_OPTION_STRING, .long_name = "sysfs", .value = &o->sysfs, .argh = "DIR",
		  .modes = REC_LINUX, .complete = EQ_COMPLETE_DIR,
		  .help = "read the source's sysfs under DIR (also $EQPROF_SYSFS)" },
		{ .type = EQ_OPTION_FLAG, .long_name = "all-user", .value = &o->all_user, .defval = 1,
		  .modes = REC_LINUX,
		  .help = "user space only (the kernel is sampled too when permitted:\n"
			  "root, or perf_event_paranoid 1 or lower)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "events", .value = o, .argh = "LIST",
		  .cb = opt_events, .modes = REC_LINUX, .complete = "power block net all none",
		  .help = "log the tracepoints of LIST (power, block, net, all, none) as\n"
			  "power states and device requests of the whole machine\n"
			  "(report --by state, report --attribute async); default: all\n"
			  "with -a, none otherwise; needs root or CAP_PERFMON and\n"
			  "tracefs (docs/target-linux.md)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "no-events", .value = o, .cb = opt_events,
		  .flags = EQ_OPT_NOARG, .modes = REC_LINUX,
		  .help = "log none (same as --events none)" },
	};

	memcpy(t, opts, sizeof(opts));
	return sizeof(opts) / sizeof(opts[0]);
}

/* The recording's joules and name; -q and -v. */
static size_t output_options(struct eq_option *t, struct record_opts *o)
{
	const struct eq_option opts[] = {
		OPT_CALLBACK(0, "quantum", &o->quantum_j, "E",
			     "with -e (or a Cortex-M target's board): the board's energy per\n"
			     "interrupt (e.g. 46uJ, from 'eqprof board info'), so the\n"
			     "recording holds joules", eq_opt_joules),
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &o->out,
		  .argh = "OUT.eqp", .complete = EQ_COMPLETE_FILE,
		  .help = "output recording (default " EQ_DEFAULT_RECORDING ")" },
		OPT_QUIET(&o->quiet, "no progress line and no summary"),
		OPT_VERBOSE(NULL, "notes in full"),
	};

	memcpy(t, opts, sizeof(opts));
	return sizeof(opts) / sizeof(opts[0]);
}

/* A bare-metal Cortex-M target instead of this machine. */
static size_t cortexm_options(struct eq_option *t, struct cm_rec_opts *cm)
{
	const struct eq_option opts[] = {
		OPT_GROUP("A bare-metal Cortex-M target (docs/target-cortexm.md):"),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "target", .argh = "cortexm",
		  .cb = opt_target, .flags = EQ_OPT_MODE, .defmode = REC_CORTEXM,
		  .complete = "cortexm",
		  .help = "record a Cortex-M application (isr/cortexm) through its drain\n"
			  "instead of this machine" },
		CORTEXM_STRING("port", &cm->port, "SPEC",
			       "where the target's drain sends its frames:\n"
			       "tty:/dev/ttyUSB0 (its UART through a USB serial adapter),\n"
			       "unix:PATH (a socket, e.g. QEMU's -chardev socket,server=on),\n"
			       "file:PATH (a semihosting file or a capture; read as it grows)"),
		CORTEXM_STRING("elf", &cm->elf, "APP.elf",
			       "the application as linked: symbols, handler names, callers"),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "baud", .value = &cm->baud, .argh = "N",
		  .cb = opt_baud, .modes = REC_CORTEXM,
		  .help = "tty and ftdi ports (default 115200)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "idle", .value = &cm->idle_s, .argh = "T",
		  .cb = opt_idle, .modes = REC_CORTEXM,
		  .help = "file: stop after T without new bytes (default 2s)" },
	};

	memcpy(t, opts, sizeof(opts));
	return sizeof(opts) / sizeof(opts[0]);
}

/* record's options, one table in --help's order; o gets this machine's,
 * cm a Cortex-M target's. */
static int parse_record_options(int argc, char **argv, struct record_opts *o,
				struct cm_rec_opts *cm, unsigned *mode)
{
	struct eq_option options[64]; /* 27 and the end */
	size_t k = 0;
	const struct eq_command cmd = {
		.name = "record", .usage = record_usage, .about = record_about, .options = options,
		.flags = EQ_PARSE_STOP_AT_ARG, .mode_names = { NULL, "--target cortexm" },
	};
	int n;

	k += sampling_options(options + k, o);
	k += source_options(options + k, o);
	k += output_options(options + k, o);
	k += cortexm_options(options + k, cm);
	options[k] = (struct eq_option)OPT_END();
	n = eq_parse_options(&cmd, argc, argv, mode);
	if (n < 0)
		return n;
	return check_record_options(&cmd, *mode, n, argv, o, cm);
}

static int parse_opts(int argc, char **argv, struct record_opts *o, struct cm_rec_opts *cm,
		      unsigned *mode)
{
	int n;

	*o = (struct record_opts){ .hz = 1000, .jitter = 5, .out = EQ_DEFAULT_RECORDING,
				   .epoll = 0.01, .esettle = 60 };
	*cm = (struct cm_rec_opts){ .baud = 115200, .idle_s = 2 };
	n = parse_record_options(argc, argv, o, cm, mode);
	if (n < 0)
		return EQ_PARSE_STATUS(n) == 0 ? -1 : 2;
	if (*mode == REC_CORTEXM) {
		cm->out = o->out;
		cm->duration = o->duration;
		cm->quantum_j = o->quantum_j;
		cm->quiet = o->quiet;
		return 0;
	}
	o->argv = n ? argv : NULL;
	if (o->argv)
		o->argv[n] = NULL;
	if (!o->events_set)
		o->events = o->all ? TE_G_ALL : 0;
	if (o->quantum_j > 0 && !o->energy) {
		eq_error_msg("--quantum goes with -e: time-driven samples carry no energy");
		return 2;
	}
	/* call chains come from perf only: -t -g uses perf even with the module */
	o->use_module = o->energy || (!o->callchain && !o->dwarf_stack && !o->attach &&
				      module_recorder_available(NULL));
	if (o->energy && o->esource) {
		eq_error_msg("--energy %s goes with -t: energy-driven samples (-e) already carry the board's energy, one quantum each",
			o->esource);
		return 2;
	}
	if (o->energy && (o->callchain || o->dwarf_stack)) {
		eq_error_msg("%s: the eqprof module records no call chains; record -e without it",
			o->callchain ? "-g" : "--call-graph dwarf");
		return 2;
	}
	return 0;
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
	eq_warn("-t %s: this machine took %s (%.0f%% of it) while sampling a busy loop, which ran %.1f times slower; shares stay unbiased, but fewer samples come and the program is disturbed: a lower -t is kinder",
		eq_format_quantity(want, sizeof(want), o->hz, "Hz"),
		eq_format_quantity(got, sizeof(got), achieved, "Hz"), 100 * achieved / o->hz,
		slowdown);
}

/* Says how time-driven samples are taken, checks perf's rate, and decides
 * whether the kernel is sampled (o->kernel, or why not in o->kernel_note). */
static void record_sampling(struct record_opts *o)
{
	if (!o->quiet && !o->energy)
		eq_note("time-driven through %s", o->use_module
			? "the eqprof module's hrtimers (/dev/eqprof)"
			: !module_recorder_available(NULL) ? "perf's cpu-clock (the eqprof module is not loaded)"
			: o->callchain || o->dwarf_stack ? "perf's cpu-clock (call chains come from perf, not from the eqprof module)"
			: o->attach ? "perf's cpu-clock (-p attaches through perf, not through the eqprof module)"
			: "perf's cpu-clock");
	if (!o->use_module)
		check_rate(o);  /* perf's cpu-clock: can this machine give the rate? */
	/* The kernel's share of the command's run, when this user may see it
	 * (the module and -a sample it anyway). */
	if (o->use_module || o->all) {
		o->kernel = 1;
	} else if (o->all_user) {
		snprintf(o->kernel_note, sizeof(o->kernel_note),
			 "kernel samples excluded: recorded with --all-user");
	} else if (perf_kernel_allowed(o->kernel_note, sizeof(o->kernel_note))) {
		o->kernel = 1;
	} else if (!o->quiet) {
		eq_note("%s", o->kernel_note);
	}
}

/* The command's exit status, or the signal that stopped the recording. */
static int record_exit(const struct record_opts *o, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		eq_error_msg("%s exited with status %d", o->argv[0], WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status) && !record_stop_signal()) {
		eq_error_msg("%s was killed by signal %d", o->argv[0], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	/* an attached process is recorded until Ctrl-C: that is success */
	if (o->attach && !o->argv && (record_stop_signal() == SIGINT || record_stop_signal() == SIGTERM))
		return 0;
	return record_stop_signal() ? 128 + record_stop_signal() : 0;
}

/* The recording made whole (or where the unfinished one is), and its summary. */
static int record_commit(struct recorder *rec, const struct record_opts *o,
			 const struct record_sources *src, struct eq_error *err)
{
	const struct recorder_stats *st = recorder_stats(rec);
	uint64_t samples = st->samples, lost = st->lost;
	char *file = strdup(recorder_file(rec));

	if (recorder_commit(rec, err) < 0) {
		eq_error_msg("%s", err->msg);
		if (file)
			eq_error_msg("the unfinished recording is %s", file);
		free(file);
		return -1;
	}
	free(file);
	if (!o->quiet)
		record_summary(stderr, o, src, samples, lost);
	return 0;
}

/* The energy source of --energy, opened; a warning for the domains it lacks. */
static int record_energy_source(const struct record_opts *o, struct record_sources *src,
				struct eq_error *err)
{
	src->energy = record_energy_open(o->esource, o->sysfs, o->epoll, err);
	if (!src->energy)
		return -1;
	/* not hidden by -q: the recording lacks these domains */
	if (record_energy_warning(src->energy)[0])
		eq_warn("--energy %s: %s; the recording lacks "
			"them (name the domains to read to make this an error)", o->esource,
			record_energy_warning(src->energy));
	return 0;
}

/* The header's description of the recording, started now. */
static void record_meta(struct eqp_meta *meta, const struct record_opts *o, const char *target,
			const char *extra)
{
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	meta->mode = o->energy ? EQP_MODE_ENERGY : EQP_MODE_TIME;
	meta->nominal_hz = o->energy ? 0 : o->hz;
	meta->quantum_j = o->quantum_j;
	meta->target = target;
	meta->extra = extra;
	meta->start_unix_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
}

/* The sources opened before the header names them: --energy's, the
 * module's (perf's when -t finds the module not ours to use), how the
 * time-driven samples are taken, and the tracepoints of --events. */
static int record_open_sources(struct record_opts *o, struct record_sources *src,
			       struct eq_error *err)
{
	if (o->esource && record_energy_source(o, src, err) < 0)
		return -1;
	if (o->use_module && record_open_module(o, src, err) < 0) {
		if (o->energy)
			return -1;
		/* -t: the module is there but not ours to use; perf will do */
		eq_error_msg("not using the eqprof module: %s", err->msg);
		module_recorder_close(src->mod);
		src->mod = NULL;
		o->use_module = 0;
	}
	record_sampling(o);
	if (o->events) {
		/* before the header: it names the devices and what is not logged */
		src->trace = trace_recorder_open(o->events);
		if (!src->trace)
			return eq_fail(err, "out of memory");
		if (trace_recorder_note(src->trace)[0])
			eq_error_msg("not logging %s", trace_recorder_note(src->trace));
	}
	return 0;
}

/* The recording's file with its header, and --energy's readings started.
 * The file exists before the command starts: an unwritable output is
 * found at once, and a recorder killed later leaves what it recorded. */
static struct recorder *record_create(const struct record_opts *o, struct record_sources *src,
				      struct eq_error *err)
{
	static char extra[65536];
	char target[512] = "";
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9 };
	struct recorder *rec;

	record_describe(target, sizeof(target), extra, sizeof(extra), o, src);
	if (src->trace)
		trace_recorder_meta(src->trace, extra + strlen(extra), sizeof(extra) - strlen(extra));
	record_meta(&meta, o, target, extra);
	rec = recorder_open(o->out, &meta, err);
	if (!rec)
		return NULL;
	src->rec = rec;
	if (src->energy && record_energy_start(src->energy, rec, err) < 0) {
		recorder_discard(rec);  /* a source that cannot be read: no output */
		return NULL;
	}
	return rec;
}

/* After the run (rc its result): the kernel's symbols, the recording
 * committed, the sources' summaries; the exit status. */
static int record_finish(struct recorder *rec, const struct record_opts *o,
			 struct record_sources *src, int rc, int status, struct eq_error *err)
{
	if (rc < 0) {
		eq_error_msg("%s", err->msg);
		eq_error_msg("finishing the recording with what was recorded");
	}
	/* Kernel samples symbolize through the kernel's own symbol table. */
	if ((src->mod || o->all || o->kernel) && record_kernel_symbols(rec, err) < 0)
		eq_warn("%s", err->msg);
	if (record_commit(rec, o, src, err) < 0) {
		record_sources_close(src);
		return 1;
	}
	if (src->energy && !o->quiet)
		record_energy_summary(src->energy, stderr);
	if (src->trace && !o->quiet)
		trace_recorder_summary(src->trace, stderr);
	record_sources_close(src);
	if (rc < 0)
		return 1;
	return record_exit(o, status);
}

/* --target cortexm: another target than this machine (docs/target-cortexm.md) */
static int record_other_target(struct cm_rec_opts *cm, int argc, char **argv)
{
	if (!cmd_record_cortexm) {
		eq_error_msg("--target is not in eqprof-record (it records this machine); record a Cortex-M target with the workstation's eqprof");
		return 2;
	}
	return cmd_record_cortexm(cm, argc, argv);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct eq_error err = { "" };
	struct recorder *rec;
	struct record_sources src = { 0 };
	int rc, status = 0, started = 0;
	struct cm_rec_opts cm;
	unsigned mode;

	rc = parse_opts(argc, argv, &o, &cm, &mode);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (mode == REC_CORTEXM)
		return record_other_target(&cm, argc, argv);
	if (o.energy && !module_recorder_available(NULL)) {
		eq_error_msg("energy-driven recording (-e) needs the board's interrupt wired to a GPIO of this machine and the eqprof module loaded: %s does not exist (docs/target-linux.md); use -t for time-driven sampling, or 'eqprof sim' for a simulated energy-driven run",
			"/dev/eqprof");
		return 1;
	}
	if (record_open_sources(&o, &src, &err) < 0)
		goto fail;
	rec = record_create(&o, &src, &err);
	if (!rec)
		goto fail;
	record_catch_stop_signals();
	rc = record_run(&o, rec, &src, &err, &status, &started);
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
	return record_finish(rec, &o, &src, rc, status, &err);
fail:
	record_sources_close(&src);
	eq_error_msg("%s", err.msg);
	return 1;
}
