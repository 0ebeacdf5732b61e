/*
 * builtin-power-by.c - `eqprof power --by proc`: the device's power while
 * each procedure runs, fitted by regression over the board's intervals
 * (seed 002; analysis/regress).  docs/power.md is the user's reference.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/attrib.h"
#include "builtin.h"
#include "regress/regress.h"
#include "report_common.h"

static const char usage_text[] =
"usage: eqprof power --by proc FILE.eqp [--primes MIN:MAX] [--seed N] [--min-share P]\n"
"                    [--domain NAME] [--device-model FILE] [--format table|csv|json]\n"
"                    [-o OUT] [--symfs DIR]\n"
"\n"
"The device's power while each procedure runs, by weighted least squares of\n"
"the energy of intervals on the procedures' times in them (from time-driven\n"
"samples), with 95% intervals and collinearity warnings (condition number,\n"
"variance inflation).  The output says where the energy came from.\n"
"\n"
"  FILE.eqp         time-driven samples with the energy of intervals on their clock:\n"
"                   - the board's stream: eqprof sim's time.eqp, or\n"
"                     'eqprof merge TIME.eqp BOARD.eqp --edges EDGES.eqp' of a\n"
"                     record -t run while record -e -a took the board's interrupts;\n"
"                   - an energy source's readings: record -t --energy SOURCE\n"
"                     (RAPL, battery, hwmon; docs/energy-sources.md)\n"
"  --primes A:B     interval lengths: random primes in [A, B] of the board's\n"
"                   quanta or of the source's updates (7:61)\n"
"  --domain NAME    the energy source's domain to fit (its name, kind or source:\n"
"                   package-0, psys, dram, BAT0); default: the board's stream when\n"
"                   the recording has one, else psys, else package, else the first\n"
"  --seed N         of the random interval lengths (1)\n"
"  --min-share P    procedures with less of the samples are fitted as one\n"
"                   [other] column (0.5%)\n"
"  --device-model F recordings with device requests: each device state's power\n"
"                   is fitted too; F gives the tail times (else the recording's)\n"
"  --format F       table (default), csv or json (docs/power.md lists the fields)\n"
"  -o OUT           write there (atomically) instead of standard output\n"
"  --symfs DIR      look the recorded files up under DIR (a target's root)\n";

static int usage(const char *msg)
{
	fprintf(stderr, "eqprof power: %s\n'eqprof power --by proc --help' lists the options\n", msg);
	return 2;
}

struct print_arg {
	const struct eq_regress *r;
	const char *source;
	enum eq_format fmt;
};

static void print_fit(FILE *out, const void *arg)
{
	const struct print_arg *p = arg;

	eq_regress_print(out, p->r, p->source, p->fmt);
}

int cmd_power_by(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "primes", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "min-share", required_argument, NULL, 'm' },
		{ "device-model", required_argument, NULL, 'd' },
		{ "domain", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		EQ_ONE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static struct eq_devmodel models[64];
	struct eq_regress_opts o;
	struct eq_one one;
	struct eq_error err;
	struct eq_regress *r = NULL;
	int c, rc = 1;
	char *end;

	eq_regress_opts_default(&o);
	eq_one_init(&one);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		int taken = eq_one_option(&one, c, optarg, &err);

		if (taken < 0)
			return usage(err.msg);
		if (taken)
			continue;
		switch (c) {
		case 'b':
			if (strcmp(optarg, "proc"))
				return usage("--by: power by regression is per procedure: --by proc");
			break;
		case 'p':
			o.min_prime = (unsigned)strtoul(optarg, &end, 10);
			if (*end != ':' || (o.max_prime = (unsigned)strtoul(end + 1, &end, 10), *end) ||
			    o.min_prime < 2 || o.max_prime < o.min_prime || o.max_prime > 10000)
				return usage("--primes: give MIN:MAX, 2 <= MIN <= MAX <= 10000 (e.g. 7:61)");
			break;
		case 's':
			o.seed = strtoull(optarg, &end, 10);
			if (*end || end == optarg)
				return usage("--seed: give a whole number");
			break;
		case 'm':
			o.min_share = strtod(optarg, &end) / 100;
			if (end == optarg || (*end && strcmp(end, "%")) || !(o.min_share >= 0 && o.min_share < 1))
				return usage("--min-share: give a percentage from 0 to 100");
			break;
		case 'd':
			if (eq_devmodel_read(optarg, models, 64, &o.nmodels, &err) < 0) {
				fprintf(stderr, "eqprof power: %s\n", err.msg);
				return 1;
			}
			o.models = models;
			break;
		case 'D': o.domain = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return usage("--by proc takes one recording");
	if (eq_one_open("power", &one, argv[optind]) == 0) {
		r = eq_regress_fit(one.f, one.s, &o, &err);
		if (!r) {
			fprintf(stderr, "eqprof power: %s\n", err.msg);
		} else {
			struct print_arg pa = { r, argv[optind], one.fmt };

			rc = eq_one_write("power", &one, print_fit, &pa);
			if (rc == 0 && r->warning[0] && one.out)
				fprintf(stderr, "eqprof power: warning: %s\n", r->warning);
		}
	}
	eq_regress_free(r);
	eq_one_close(&one);
	return rc;
}
