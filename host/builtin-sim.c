/*
 * builtin-sim.c - `eqprof sim`: run a scenario through the whole-system
 * simulator and write both recordings and the truth (docs/simulator.md).
 */
#include "builtin.h"
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

static void usage(FILE *out)
{
	fprintf(out,
		"usage: eqprof sim SCENARIO -o DIR [--seed N] [--set NAME=VALUE]...\n"
		"                  [--firmware ELF] [-q]\n"
		"       eqprof sim --calibrate [--current I]... [--set NAME=VALUE]...\n"
		"       eqprof sim --defaults [--all]\n"
		"       eqprof sim --list\n"
		"       eqprof sim --print NAME\n\n"
		"SCENARIO is a scenario file or the name of a built-in one (--list).\n"
		"Writes DIR/energy.eqp, DIR/time.eqp, DIR/truth.json, DIR/truth-trace.csv.\n\n"
		"  -o DIR            output folder (created if missing)\n"
		"  --seed N          random seed of the run (default: the scenario's, else 1)\n"
		"  --set NAME=VALUE  override a parameter, e.g. --set quantum_pulses=2\n"
		"  --firmware ELF    count pulses with the board firmware running in simavr\n"
		"  --calibrate       measure E_min through the simulated front end as the\n"
		"                    paper's Table 1 does (steady test currents, default\n"
		"                    70, 170 and 300 mA); prints e_min_high for --set\n"
		"  --defaults        print the default parameters (board.values names);\n"
		"                    --all adds the simulator's own\n"
		"  --list            list the built-in scenarios\n"
		"  --print NAME      print a built-in scenario (a starting point for yours)\n"
		"  -q                no summary line\n");
}

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
		fprintf(stderr, "eqprof sim: no built-in scenario '%s' ('eqprof sim --list')\n", name);
		return 1;
	}
	fwrite(b->text, 1, b->len, stdout);
	return 0;
}

struct sim_args {
	const char *scenario, *out, *firmware;
	const char *sets[64];
	int nsets, quiet;
	const char *seed;
};

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-o") || !strcmp(o, "--seed") || !strcmp(o, "--set") ||
		    !strcmp(o, "--firmware")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "eqprof sim: %s needs a value\n", o);
				return -1;
			}
			if (!strcmp(o, "-o"))
				a->out = argv[++i];
			else if (!strcmp(o, "--seed"))
				a->seed = argv[++i];
			else if (!strcmp(o, "--firmware"))
				a->firmware = argv[++i];
			else if (a->nsets < 64)
				a->sets[a->nsets++] = argv[++i];
			else {
				fprintf(stderr, "eqprof sim: at most 64 --set options\n");
				return -1;
			}
		} else if (!strcmp(o, "-q")) {
			a->quiet = 1;
		} else if (o[0] == '-' && o[1]) {
			fprintf(stderr, "eqprof sim: unknown option %s\n", o);
			return -1;
		} else if (!a->scenario) {
			a->scenario = o;
		} else {
			fprintf(stderr, "eqprof sim: one scenario at a time ('%s' is extra)\n", o);
			return -1;
		}
	}
	if (!a->scenario || !a->out) {
		fprintf(stderr, "eqprof sim: %s\n", !a->scenario ? "no scenario given" : "no output folder (-o DIR)");
		return -1;
	}
	return 0;
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
static int calibrate(int argc, char **argv)
{
	static const double def_currents[] = { 0.07, 0.17, 0.30 };
	struct sim_params p;
	struct sim_calibration c;
	struct eq_error err;
	double currents[16], sum = 0, d;
	int i, n = 0;

	sim_params_default(&p);
	for (i = 2; i < argc; i++) {
		if (i + 1 >= argc) {
			fprintf(stderr, "eqprof sim: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--current")) {
			if (n == 16) {
				fprintf(stderr, "eqprof sim: at most 16 --current options\n");
				return 2;
			}
			if (eq_parse_quantity(argv[++i], "A", "--current", &d, &err) < 0)
				goto fail;
			currents[n++] = d;
		} else if (!strcmp(argv[i], "--set")) {
			if (sim_params_set(&p, argv[++i], &err) < 0) {
				eq_fail_prefix(&err, "--set %s", argv[i]);
				goto fail;
			}
		} else {
			fprintf(stderr, "eqprof sim: --calibrate takes --current and --set, not %s\n", argv[i]);
			return 2;
		}
	}
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
	fprintf(stderr, "eqprof sim: %s\n", err.msg);
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

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--calibrate"))
		return calibrate(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "--defaults")) {
		sim_params_print_defaults(stdout, !(argc >= 3 && !strcmp(argv[2], "--all")));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		list();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--print"))
		return print_builtin(argv[2]);
	if (parse_args(argc, argv, &a) < 0) {
		usage(stderr);
		return 2;
	}
	if (load(&sc, a.scenario, &err) < 0) {
		fprintf(stderr, "eqprof sim: %s\n", err.msg);
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
	fprintf(stderr, "eqprof sim: %s\n", err.msg);
	sim_scenario_free(&sc);
	return 1;
}
