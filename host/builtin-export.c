/*
 * builtin-export.c - `eqprof export`: a recording in the formats of the
 * viewers people already use (export.h; docs/export.md has the mappings).
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "progress.h"
#include "file/eqp.h"
#include "export/export.h"
#include "file/outfile.h"
#include "symbols/symbolize.h"

struct export_args {
	const char *file, *out, *symfs;
	enum export_format fmt;
	int have_fmt, exclude_idle, no_build_id_check, quiet, verbose;
};

static int opt_format(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct export_args *a = opt->value;

	a->have_fmt = 1;
	return export_format_parse(arg, &a->fmt, err);
}

static int parse_args(struct export_args *a, int argc, char **argv)
{
	const struct eq_option options[] = {
		OPT_ARG("FILE.eqp", "the recording"),
		{ .type = EQ_OPTION_CALLBACK, .short_name = 'f', .long_name = "format", .value = a,
		  .argh = "F", .cb = opt_format, .complete = "callgrind pprof folded chrome csv",
		  .help = "callgrind  callgrind.out for callgrind_annotate / KCachegrind:\n"
			  "           energy (nJ) and samples per instruction and source line\n"
			  "pprof      gzipped profile.proto for `pprof`: samples/count,\n"
			  "           energy/nanojoules\n"
			  "folded     exe;module;proc COUNT lines for flamegraph.pl, speedscope,\n"
			  "           inferno\n"
			  "chrome     trace-event JSON for the Perfetto UI: power counter and\n"
			  "           samples\n"
			  "csv        every sample resolved, with its interval's power" },
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &a->out,
		  .argh = "OUT", .complete = EQ_COMPLETE_FILE,
		  .help = "the file to write (atomically); '-' for standard output" },
		OPT_FLAG(0, "exclude-idle", &a->exclude_idle, "leave idle samples out"),
		{ .type = EQ_OPTION_STRING, .long_name = "symfs", .value = &a->symfs, .argh = "DIR",
		  .complete = EQ_COMPLETE_DIR,
		  .help = "find the target's binaries under DIR (its sysroot)" },
		OPT_FLAG(0, "no-build-id-check", &a->no_build_id_check,
			 "use binaries even when their build-id differs"),
		OPT_QUIET(&a->quiet, "no progress line (shown only on a terminal, for long exports)"),
		OPT_VERBOSE(&a->verbose, "notes in full"),
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "export", .options = options,
		.usage = "eqprof export FILE.eqp --format callgrind|pprof|folded|chrome|csv -o OUT [options]\n",
	};
	int n;

	memset(a, 0, sizeof(*a));
	n = eq_parse_options(&cmd, argc, argv, NULL);
	if (n < 0)
		return n == EQ_PARSE_HELP ? 1 : 2;
	if (n != 1)
		return eq_usage_error(&cmd, 0, "%s", n == 0 ? "which recording? give FILE.eqp" :
				      "give exactly one recording");
	a->file = argv[0];
	if (!a->have_fmt)
		return eq_usage_error(&cmd, 0, "--format is required: callgrind, pprof, folded, chrome or csv");
	if (!a->out)
		return eq_usage_error(&cmd, 0, "-o OUT is required ('-' for standard output)");
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
		eq_error_msg("%s", err.msg);
		if (f)
			eqp_close(f);
		return 1;
	}
	if (eqp_warning(f))
		eq_warn("%s", eqp_warning(f));
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
		eq_error_msg("%s", err.msg);
	for (i = 0; sym && i < eq_sym_nwarnings(sym); i++)
		eq_warn("%s", eq_sym_warning(sym, i));
	eq_sym_free(sym);
	eqp_close(f);
	return rc;
}
