/*
 * builtin-sim.c - `eqprof sim`: run a scenario through the whole-system
 * simulator and write both recordings and the truth (docs/simulator.md).
 */
#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "progress.h"
#include "sim.h"
#include "sim_internal.h"
#include "sim_builtin.h"
#include "util/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Progress on a terminal: simulated time, rate, samples; at most 5 lines/s. */
static void show_progress(void *ctx, double t, double t_end, size_t samples)
{
	struct eq_progress *line = ctx;
	double el;

	if (!eq_progress_due(line))
		return;
	el = eq_progress_elapsed(line);
	eq_progress_show(line, "sim: %.1f of %.1f s simulated (%.0f%%), %.0f simulated s/s, %zu samples, %.1f s elapsed",
			 t, t_end, 100 * t / t_end, el > 0 ? t / el : 0, samples, el);
}

static int load(struct sim_scenario *sc, const char *arg, struct eq_error *err)
{
	const struct sim_builtin_scn *b;
	FILE *f = fopen(arg, "r");

	if (f) {
		fclose(f);
		return sim_scenario_load(sc, arg, err);
	}
	b = sim_builtin_find(arg);
	if (!b)
		return eq_fail(err, "%s: no such scenario file, and no built-in scenario of that name ('eqprof sim --list')", arg);
	return sim_scenario_parse(sc, b->text, b->len, b->label, err);
}

static void list(void)
{
	size_t i;

	for (i = 0; i < sim_builtin_count(); i++) {
		const struct sim_builtin_scn *b = sim_builtin_at(i);
		struct sim_scenario sc;
		struct eq_error e;

		if (sim_scenario_parse(&sc, b->text, b->len, b->label, &e) < 0) {
			printf("%-18s (broken: %s)\n", b->name, e.msg);
			continue;
		}
		printf("%-18s %6.1f s  %s\n", b->name, sim_scenario_duration(&sc), sc.description);
		sim_scenario_free(&sc);
	}
}

static int print_builtin(const char *name)
{
	const struct sim_builtin_scn *b = sim_builtin_find(name);

	if (!b) {
		eq_error_msg("no built-in scenario '%s' ('eqprof sim --list')", name);
		return 1;
	}
	fwrite(b->text, 1, b->len, stdout);
	return 0;
}

struct sim_args {
	const char *scenario, *out, *firmware;
	const char *sets[64];
	int nsets, quiet, all;
	const char *seed, *print;
	double currents[16];
	int ncurrents;
};

/* ---- the options ----------------------------------------------------------- */

#define SIM_RUN       EQ_MODE_MAIN
#define SIM_CALIBRATE 0x02u
#define SIM_DEFAULTS  0x04u
#define SIM_LIST      0x08u
#define SIM_PRINT     0x10u

static int opt_set(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct sim_args *a = opt->value;

	if (a->nsets == 64)
		return eq_fail(err, "at most 64 --set options");
	a->sets[a->nsets++] = arg;
	return 0;
}

static int opt_current(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct sim_args *a = opt->value;

	if (a->ncurrents == 16)
		return eq_fail(err, "at most 16 --current options");
	return eq_parse_quantity(arg, "A", "--current", &a->currents[a->ncurrents++], err);
}

static int opt_none(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return 0;
}

#define MODE_FLAG(l, m, h) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = (l), .cb = opt_none, .flags = EQ_OPT_NOARG | EQ_OPT_MODE, \
	  .defmode = (m), .help = (h) }

static const char sim_usage[] =
	"eqprof sim SCENARIO -o DIR [--seed N] [--set NAME=VALUE]... [--firmware ELF] [-q]\n"
	"eqprof sim --calibrate [--current I]... [--set NAME=VALUE]...\n"
	"eqprof sim --defaults [--all]\n"
	"eqprof sim --list\n"
	"eqprof sim --print NAME\n";

static const char sim_about[] =
	"SCENARIO is a scenario file or the name of a built-in one (--list).\n"
	"Writes DIR/energy.eqp, DIR/time.eqp, DIR/truth.json, DIR/truth-trace.csv.\n";

/* sim's options into a; the mode, or 0 after --help, or -1 after an error. */
static int parse_args(int argc, char **argv, struct sim_args *a)
{
	const struct eq_option options[] = {
		OPT_ARG("SCENARIO", "a scenario file or a built-in scenario's name"),
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &a->out,
		  .argh = "DIR", .modes = SIM_RUN, .complete = EQ_COMPLETE_DIR,
		  .help = "output folder (created if missing)" },
		{ .type = EQ_OPTION_STRING, .long_name = "seed", .value = &a->seed, .argh = "N",
		  .modes = SIM_RUN, .help = "random seed of the run (default: the scenario's, else 1)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "set", .value = a, .argh = "NAME=VALUE",
		  .cb = opt_set, .flags = EQ_OPT_REPEAT, .modes = SIM_RUN | SIM_CALIBRATE,
		  .help = "override a parameter, e.g. --set quantum_pulses=2" },
		{ .type = EQ_OPTION_STRING, .long_name = "firmware", .value = &a->firmware,
		  .argh = "ELF", .modes = SIM_RUN, .complete = EQ_COMPLETE_FILE,
		  .help = "count pulses with the board firmware running in simavr" },
		OPT_QUIET(&a->quiet, "no summary line"),
		OPT_VERBOSE(NULL, "notes in full"),
		OPT_GROUP("Other uses:"),
		MODE_FLAG("calibrate", SIM_CALIBRATE,
			  "measure E_min through the simulated front end as the\n"
			  "paper's Table 1 does (steady test currents, default\n"
			  "70, 170 and 300 mA); prints e_min_high for --set"),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "current", .value = a, .argh = "I",
		  .cb = opt_current, .flags = EQ_OPT_REPEAT, .modes = SIM_CALIBRATE,
		  .help = "with --calibrate: a test current (e.g. 170mA)" },
		MODE_FLAG("defaults", SIM_DEFAULTS,
			  "print the default parameters (board.values names)"),
		{ .type = EQ_OPTION_FLAG, .long_name = "all", .value = &a->all, .defval = 1,
		  .modes = SIM_DEFAULTS, .help = "with --defaults: the simulator's own parameters too" },
		MODE_FLAG("list", SIM_LIST, "list the built-in scenarios"),
		{ .type = EQ_OPTION_STRING, .long_name = "print", .value = &a->print, .argh = "NAME",
		  .flags = EQ_OPT_MODE, .defmode = SIM_PRINT,
		  .help = "print a built-in scenario (a starting point for yours)" },
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "sim", .usage = sim_usage, .about = sim_about, .options = options,
		.mode_names = { NULL, "--calibrate", "--defaults", "--list", "--print" },
	};
	unsigned mode;
	int n;

	memset(a, 0, sizeof(*a));
	n = eq_parse_options(&cmd, argc, argv, &mode);
	if (n < 0)
		return n == EQ_PARSE_HELP ? 0 : -1;
	if (mode != SIM_RUN && n)
		return eq_usage_error(&cmd, mode, "'%s': %s takes no scenario", argv[0],
				      cmd.mode_names[mode == SIM_CALIBRATE ? 1 : mode == SIM_DEFAULTS ? 2 :
						     mode == SIM_LIST ? 3 : 4]), -1;
	if (mode != SIM_RUN)
		return (int)mode;
	if (n > 1)
		return eq_usage_error(&cmd, mode, "one scenario at a time ('%s' is extra)", argv[1]), -1;
	if (!n || !a->out)
		return eq_usage_error(&cmd, mode, "%s", !n ? "no scenario given" :
				      "no output folder (-o DIR)"), -1;
	a->scenario = argv[0];
	return (int)mode;
}

static int apply_overrides(struct sim_scenario *sc, const struct sim_args *a,
			   struct eq_error *err)
{
	char buf[64];
	int i;

	if (a->seed) {
		snprintf(buf, sizeof(buf), "seed=%s", a->seed);
		if (sim_scenario_set(sc, buf, err) < 0)
			return eq_fail_prefix(err, "--seed");
	}
	for (i = 0; i < a->nsets; i++)
		if (sim_scenario_set(sc, a->sets[i], err) < 0)
			return eq_fail_prefix(err, "--set %s", a->sets[i]);
	return sim_check_feasible(sc, err);
}

/* eqprof sim --calibrate: Table 1's experiment on the simulated board. */
static int calibrate(const struct sim_args *a)
{
	static const double def_currents[] = { 0.07, 0.17, 0.30 };
	struct sim_params p;
	struct sim_calibration c;
	struct eq_error err;
	double currents[16], sum = 0;
	int i, n = a->ncurrents;

	sim_params_default(&p);
	for (i = 0; i < a->nsets; i++)
		if (sim_params_set(&p, a->sets[i], &err) < 0) {
			eq_fail_prefix(&err, "--set %s", a->sets[i]);
			goto fail;
		}
	memcpy(currents, a->currents, sizeof(currents));
	if (!n)
		for (; n < 3; n++)
			currents[n] = def_currents[n];
	printf("# E_min = pulse period x test current x %.3f V (vb_nominal), 2 s per current\n",
	       p.vb_nominal);
	for (i = 0; i < n; i++) {
		if (sim_calibrate_e_min(&p, currents[i], 2.0, &c, &err) < 0)
			goto fail;
		printf("current %.6g A: %llu pulses, period %.6g s, E_min %.6g J\n", c.current_a,
		       (unsigned long long)c.pulses, c.period_s, c.e_min_high_j);
		sum += c.e_min_high_j;
	}
	printf("e_min_high %.7g\n", sum / n);
	return 0;
fail:
	eq_error_msg("%s", err.msg);
	return 1;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_options opt = { 0 };
	struct sim_scenario sc;
	struct sim_result res;
	struct sim_args a;
	struct eq_error err;
	struct timespec t0, t1;
	struct eq_progress prog = { 0 };
	double wall;
	int mode;

	mode = parse_args(argc, argv, &a);
	if (mode <= 0)
		return mode ? 2 : 0;
	if (mode == SIM_CALIBRATE)
		return calibrate(&a);
	if (mode == SIM_DEFAULTS) {
		sim_params_print_defaults(stdout, !a.all);
		return 0;
	}
	if (mode == SIM_LIST) {
		list();
		return 0;
	}
	if (mode == SIM_PRINT)
		return print_builtin(a.print);
	if (load(&sc, a.scenario, &err) < 0) {
		eq_error_msg("%s", err.msg);
		return 1;
	}
	if (apply_overrides(&sc, &a, &err) < 0)
		goto fail;
	opt.firmware_elf = a.firmware;
	opt.quiet = a.quiet;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	eq_progress_start(&prog, a.quiet, 0.2);
	if (prog.enabled) {
		opt.progress = show_progress;
		opt.progress_ctx = &prog;
	}
	/* the recordings are written as the run goes (call chains too): memory
	 * stays flat in the scenario's length */
	if (sim_stream_open(&sc, a.out, a.firmware ? "simavr" : "builtin", &opt.stream, &err) < 0)
		goto fail;
	if (sim_run(&sc, &opt, &res, &err) < 0) {
		sim_stream_abort(opt.stream);
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	eq_progress_end(&prog, 0);
	if (opt.stream ? sim_stream_finish(opt.stream, &sc, &res, &err) < 0
		       : sim_write_outputs(&sc, &res, a.out, &err) < 0) {
		sim_result_free(&res);
		goto fail;
	}
	wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (!a.quiet)
		printf("eqprof sim: %s: %.1f s simulated in %.2f s (counter: %s); %.4g W true average; "
		       "%zu energy samples, %zu time samples, %llu lost; wrote %s/{energy.eqp,time.eqp,truth.json}\n",
		       sc.name, res.duration, wall, res.counter_name, res.energy_j / res.duration,
		       res.nenergy, res.ntimed,
		       (unsigned long long)(res.lost_energy + res.lost_timed), a.out);
	sim_result_free(&res);
	sim_scenario_free(&sc);
	return 0;
fail:
	eq_progress_end(&prog, 0);
	eq_error_msg("%s", err.msg);
	sim_scenario_free(&sc);
	return 1;
}
