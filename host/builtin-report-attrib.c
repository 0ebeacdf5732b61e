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

#include "attrib.h"
#include "builtin.h"
#include "eqp.h"
#include "outfile.h"
#include "symbolize.h"
#include "table.h"

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

int cmd_report_attribute(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "attribute", required_argument, NULL, 'a' },
		{ "by", required_argument, NULL, 'b' },
		{ "device-model", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct eq_devmodel models[MAX_MODELS];
	struct eq_sym_options so = { .check_build_id = 1 };
	enum eq_format fmt = EQ_FMT_TABLE;
	enum eq_by by = EQ_BY_EXE;
	const char *out = NULL, *file;
	size_t nmodels = 0;
	struct eq_error err;
	struct eqp_file *f = NULL;
	struct eq_symbolizer *s = NULL;
	struct eq_attrib *a = NULL;
	struct eq_outfile of;
	int c, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
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
		case 'f':
			if (eq_format_parse(optarg, &fmt, &err))
				return usage(err.msg);
			break;
		case 'o': out = optarg; break;
		case 'S': so.symfs = optarg; break;
		case 'q': break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc - 1)
		return usage("--attribute async takes one recording");
	file = optind < argc ? argv[optind] : "eqprof.eqp";
	f = eqp_open(file, &err);
	if (!f) {
		fprintf(stderr, "eqprof report: %s\n", err.msg);
		return 1;
	}
	if (eqp_warning(f))
		fprintf(stderr, "eqprof report: warning: %s\n", eqp_warning(f));
	s = eq_sym_new(f, &so, &err);
	if (s) {
		eq_sym_skip_lines(s, 1);
		a = eq_attrib_build(f, s, by, models, nmodels, &err);
	}
	if (!a) {
		fprintf(stderr, "eqprof report: %s\n", err.msg);
		goto done;
	}
	if (eq_output_not_input(out, &file, 1, &err) || eq_outfile_open(&of, out ? out : "-", &err)) {
		fprintf(stderr, "eqprof report: %s\n", err.msg);
		goto done;
	}
	eq_attrib_print(of.fp, a, file, fmt);
	if (eq_outfile_commit(&of, &err)) {
		fprintf(stderr, "eqprof report: %s\n", err.msg);
		goto done;
	}
	rc = 0;
done:
	eq_attrib_free(a);
	eq_sym_free(s);
	if (f)
		eqp_close(f);
	return rc;
}
