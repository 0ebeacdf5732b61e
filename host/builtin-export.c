/*
 * builtin-export.c - `eqprof export`: a recording in the formats of the
 * viewers people already use (export.h; docs/export.md has the mappings).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "progress.h"
#include "file/eqp.h"
#include "export/export.h"
#include "file/outfile.h"
#include "symbols/symbolize.h"

static const char usage_text[] =
"usage: eqprof export FILE.eqp --format callgrind|pprof|folded|chrome|csv -o OUT\n"
"                     [--exclude-idle] [--symfs DIR] [--no-build-id-check] [-q]\n"
"\n"
"  callgrind  callgrind.out for callgrind_annotate / KCachegrind: energy (nJ) and\n"
"             samples per instruction and source line\n"
"  pprof      gzipped profile.proto for `pprof`: samples/count, energy/nanojoules\n"
"  folded     exe;module;proc COUNT lines for flamegraph.pl, speedscope, inferno\n"
"  chrome     trace-event JSON for the Perfetto UI: power counter and samples\n"
"  csv        every sample resolved, with its interval's power\n"
"  -o OUT     the file to write (atomically); '-' for standard output\n"
"  -q         no progress line (shown only on a terminal, for long exports)\n";

struct export_args {
	const char *file, *out, *symfs;
	enum export_format fmt;
	int have_fmt, exclude_idle, no_build_id_check, quiet;
};

static int usage_error(const char *msg)
{
	fprintf(stderr, "eqprof export: %s\n'eqprof export --help' lists the options\n", msg);
	return 2;
}

static int parse_args(struct export_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "exclude-idle", no_argument, NULL, 'x' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "no-build-id-check", no_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct eq_error err;
	int c;

	memset(a, 0, sizeof(*a));
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:hq", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (export_format_parse(optarg, &a->fmt, &err) < 0)
				return usage_error(err.msg);
			a->have_fmt = 1;
			break;
		case 'o': a->out = optarg; break;
		case 'x': a->exclude_idle = 1; break;
		case 'S': a->symfs = optarg; break;
		case 'B': a->no_build_id_check = 1; break;
		case 'q': a->quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default: return 2;
		}
	}
	if (optind + 1 != argc)
		return usage_error(optind == argc ? "which recording? give FILE.eqp" :
				   "give exactly one recording");
	a->file = argv[optind];
	if (!a->have_fmt)
		return usage_error("--format is required: callgrind, pprof, folded, chrome or csv");
	if (!a->out)
		return usage_error("-o OUT is required ('-' for standard output)");
	return 0;
}

static int write_export(const struct export_args *a, struct export_ctx *x,
			struct eq_error *err)
{
	struct eq_outfile o;

	if (eq_output_not_input(a->out, &a->file, 1, err) < 0 ||
	    eq_outfile_open(&o, a->out, err) < 0)
		return -1;
	if (export_write(o.fp, a->fmt, x, err) < 0) {
		eq_outfile_discard(&o);
		return -1;
	}
	return eq_outfile_commit(&o, err);
}

static void show_progress(uint64_t done, uint64_t total, void *arg)
{
	eq_progress_samples(arg, "export", done, total);
}

int cmd_export(int argc, char **argv)
{
	struct export_args a;
	struct eq_sym_options so = { 0 };
	struct export_ctx x;
	struct eq_progress line;
	struct eq_error err;
	struct eqp_file *f;
	struct eq_symbolizer *sym = NULL;
	int rc = parse_args(&a, argc, argv);
	size_t i;

	if (rc)
		return rc == 1 ? 0 : rc;
	f = eqp_open(a.file, &err);
	if (!f || eqp_require_samples(f, &err) < 0) {
		fprintf(stderr, "eqprof export: %s\n", err.msg);
		if (f)
			eqp_close(f);
		return 1;
	}
	if (eqp_warning(f))
		fprintf(stderr, "eqprof export: warning: %s\n", eqp_warning(f));
	so.symfs = a.symfs;
	so.check_build_id = !a.no_build_id_check;
	sym = eq_sym_new(f, &so, &err);
	rc = 1;
	if (sym && export_ctx_init(&x, f, sym, a.exclude_idle, "eqprof " EQPROF_VERSION, &err) == 0) {
		eq_progress_start(&line, a.quiet, 0.5);
		if (line.enabled) {
			x.progress = show_progress;
			x.progress_arg = &line;
		}
		rc = write_export(&a, &x, &err) < 0;
		eq_progress_end(&line, 1);
		export_ctx_free(&x);
	}
	if (rc)
		fprintf(stderr, "eqprof export: %s\n", err.msg);
	for (i = 0; sym && i < eq_sym_nwarnings(sym); i++)
		fprintf(stderr, "eqprof export: warning: %s\n", eq_sym_warning(sym, i));
	eq_sym_free(sym);
	eqp_close(f);
	return rc;
}
