/*
 * builtin-report-attrib.c - `eqprof report --attribute async`: the energy
 * profile with device energy moved from the samples that happened to run to
 * the code whose requests caused it (seed 000, eprof; analysis/attrib).
 * docs/guide.md is the user's reference.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/attrib.h"
#include "builtin.h"
#include "report_common.h"

#define MAX_MODELS 64

static const char usage_text[] =
"usage: eqprof report FILE.eqp --attribute async [--by exe|pid|proc]\n"
"                     [--device-model FILE]... [--format table|csv|json] [-o OUT] [--symfs DIR]\n"
"\n"
"Device energy (radio, disk) moved from the samples that landed in it to the\n"
"code whose requests caused it, tails to the last request (eprof's rule:\n"
"whole samples, the remainder carried forward).\n"
"\n"
"  --device-model FILE  lines 'NAME active POWER tail TIME POWER idle POWER';\n"
"                       default: the models the recording carries\n";

static int usage(const char *msg)
{
	fprintf(stderr, "eqprof report: %s\n'eqprof report --attribute async --help' lists the options\n", msg);
	return 2;
}

struct print_arg {
	const struct eq_attrib *a;
	const char *source;
	enum eq_format fmt;
};

static void print_attrib(FILE *out, const void *arg)
{
	const struct print_arg *p = arg;

	eq_attrib_print(out, p->a, p->source, p->fmt);
}

int cmd_report_attribute(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "attribute", required_argument, NULL, 'a' },
		{ "by", required_argument, NULL, 'b' },
		{ "device-model", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		EQ_ONE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static struct eq_devmodel models[MAX_MODELS];
	enum eq_by by = EQ_BY_EXE;
	const char *file;
	size_t nmodels = 0;
	struct eq_error err;
	struct eq_one one;
	struct eq_attrib *a = NULL;
	int c, rc = 1;

	eq_one_init(&one);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		int taken = eq_one_option(&one, c, optarg, &err);

		if (taken < 0)
			return usage(err.msg);
		if (taken)
			continue;
		switch (c) {
		case 'a':
			if (strcmp(optarg, "async"))
				return usage("--attribute: the one attribution is 'async' (device energy to its causes)");
			break;
		case 'b':
			if (eq_by_parse(optarg, &by, &err))
				return usage(err.msg);
			if (by != EQ_BY_EXE && by != EQ_BY_PID && by != EQ_BY_PROC)
				return usage("--attribute async groups by exe, pid or proc");
			break;
		case 'm':
			if (eq_devmodel_read(optarg, models, MAX_MODELS, &nmodels, &err) < 0) {
				fprintf(stderr, "eqprof report: %s\n", err.msg);
				return 1;
			}
			break;
		case 'q': break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc - 1)
		return usage("--attribute async takes one recording");
	file = optind < argc ? argv[optind] : "eqprof.eqp";
	if (eq_one_open("report", &one, file) == 0) {
		a = eq_attrib_build(one.f, one.s, by, models, nmodels, &err);
		if (!a) {
			fprintf(stderr, "eqprof report: %s\n", err.msg);
		} else {
			struct print_arg pa = { a, file, one.fmt };

			rc = eq_one_write("report", &one, print_attrib, &pa);
		}
	}
	eq_attrib_free(a);
	eq_one_close(&one);
	return rc;
}
