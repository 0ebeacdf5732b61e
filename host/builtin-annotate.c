/*
 * builtin-annotate.c - eqprof annotate: energy (or time) per instruction and
 * per source line of one procedure, beside its disassembly.
 *
 *   eqprof annotate [options] [FILE.eqp] SYMBOL
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "annotate/annotate.h"
#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "file/eqp.h"
#include "file/outfile.h"
#include "symbols/symbolize.h"
#include "profile/table.h"

static int opt_no_build_id(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	((struct eq_sym_options *)opt->value)->check_build_id = 0;
	return 0;
}

static int opt_format(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return eq_format_parse(arg, opt->value, err);
}

int cmd_annotate(int argc, char **argv)
{
	struct eq_sym_options so = { .check_build_id = 1 };
	const char *file = EQ_DEFAULT_RECORDING, *symbol = NULL, *dso = NULL, *out = "-";
	enum eq_format fmt = EQ_FMT_TABLE;
	struct eq_annotation *a = NULL;
	struct eq_symbolizer *s = NULL;
	struct eqp_file *f = NULL;
	struct eq_outfile o;
	struct eq_error err;
	int show_source = 1, rc = 1;

	const struct eq_option options[] = {
		OPT_ARG("FILE.eqp", "the recording (default " EQ_DEFAULT_RECORDING ", as record writes)"),
		OPT_ARG("SYMBOL", "the procedure, as 'eqprof report --by proc' names it"),
		{ .type = EQ_OPTION_STRING, .long_name = "dso", .value = &dso, .argh = "MODULE",
		  .help = "only the procedure of that module (path or basename)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "format", .value = &fmt, .argh = "F",
		  .cb = opt_format, .complete = "table csv json",
		  .help = "table (default), csv or json (schema in docs/guide.md)" },
		OPT_SET_INT(0, "no-source", &show_source, 0,
			    "do not print source text beside the line numbers"),
		{ .type = EQ_OPTION_STRING, .long_name = "symfs", .value = &so.symfs, .argh = "DIR",
		  .complete = EQ_COMPLETE_DIR,
		  .help = "find the target's binaries under DIR (its sysroot)" },
		OPT_CALLBACK_NOARG(0, "no-build-id-check", &so,
				   "use binaries even when their build-id differs", opt_no_build_id),
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &out,
		  .argh = "OUT", .complete = EQ_COMPLETE_FILE,
		  .help = "write to OUT (atomically) instead of standard output" },
		OPT_QUIET(NULL, "no notes (warnings are still said)"),
		OPT_VERBOSE(NULL, "notes in full"),
		OPT_END(),
	};
	const struct eq_command cmd = { .name = "annotate", .options = options,
					.usage = "eqprof annotate [options] [FILE.eqp] SYMBOL\n" };
	int n = eq_parse_options(&cmd, argc, argv, NULL);

	if (n < 0)
		return EQ_PARSE_STATUS(n);
	if (n == 2) {
		file = argv[0];
		symbol = argv[1];
	} else if (n == 1) {
		struct stat st;

		if (stat(argv[0], &st) == 0 && S_ISREG(st.st_mode))
			return eq_usage_error(&cmd, 0, "which procedure? give SYMBOL after the recording");
		symbol = argv[0];
	} else {
		return eq_usage_error(&cmd, 0, "%s", n == 0 ? "which procedure? give SYMBOL" :
				      "too many arguments: give [FILE.eqp] SYMBOL");
	}
	f = eqp_open(file, &err);
	if (!f || eqp_require_samples(f, &err) < 0)
		goto fail;
	if (eqp_warning(f))
		eq_warn("%s", eqp_warning(f));
	s = eq_sym_new(f, &so, &err);
	if (!s)
		goto fail;
	a = eq_annotate(f, s, symbol, dso, &err);
	if (!a)
		goto fail;
	for (size_t i = 0; i < eq_sym_nwarnings(s); i++)
		eq_warn("%s", eq_sym_warning(s, i));
	if (eq_output_not_input(out, &file, 1, &err) < 0 || eq_outfile_open(&o, out, &err) < 0)
		goto fail;
	eq_annotation_print(o.fp, a, fmt, file, show_source);
	if (eq_outfile_commit(&o, &err) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	eq_error_msg("%s", err.msg);
done:
	eq_annotation_free(a);
	eq_sym_free(s);
	eqp_close(f);
	return rc;
}
