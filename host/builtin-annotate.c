/*
 * builtin-annotate.c - eqprof annotate: energy (or time) per instruction and
 * per source line of one procedure, beside its disassembly.
 *
 *   eqprof annotate [FILE.eqp] SYMBOL [--dso MODULE] [--format table|csv|json]
 *                   [--no-source] [--symfs DIR] [--no-build-id-check] [-o OUT]
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "annotate/annotate.h"
#include "builtin.h"
#include "file/eqp.h"
#include "file/outfile.h"
#include "symbols/symbolize.h"
#include "profile/table.h"

static const char usage_text[] =
	"usage: eqprof annotate [FILE.eqp] SYMBOL [--dso MODULE] [--format table|csv|json]\n"
	"                       [--no-source] [--symfs DIR] [--no-build-id-check] [-o OUT]\n"
	"\n"
	"  FILE.eqp          the recording (default eqprof.eqp, as record writes)\n"
	"  SYMBOL            the procedure, as 'eqprof report --by proc' names it\n"
	"  --dso MODULE      only the procedure of that module (path or basename)\n"
	"  --format F        table (default), csv or json (schema in docs/guide.md)\n"
	"  --no-source       do not print source text beside the line numbers\n"
	"  --symfs DIR       find the target's binaries under DIR (its sysroot)\n"
	"  --no-build-id-check  use binaries even when their build-id differs\n"
	"  -o OUT            write to OUT (atomically) instead of standard output\n";

static int usage_error(const char *msg)
{
	fprintf(stderr, "eqprof annotate: %s\n%s", msg, usage_text);
	return 2;
}

int cmd_annotate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dso", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-source", no_argument, NULL, 'n' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "no-build-id-check", no_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct eq_sym_options so = { .check_build_id = 1 };
	const char *file = "eqprof.eqp", *symbol = NULL, *dso = NULL, *out = "-";
	enum eq_format fmt = EQ_FMT_TABLE;
	struct eq_annotation *a = NULL;
	struct eq_symbolizer *s = NULL;
	struct eqp_file *f = NULL;
	struct eq_outfile o;
	struct eq_error err;
	int c, show_source = 1, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dso = optarg; break;
		case 'f':
			if (eq_format_parse(optarg, &fmt, &err))
				return usage_error(err.msg);
			break;
		case 'n': show_source = 0; break;
		case 'S': so.symfs = optarg; break;
		case 'B': so.check_build_id = 0; break;
		case 'o': out = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (argc - optind == 2) {
		file = argv[optind];
		symbol = argv[optind + 1];
	} else if (argc - optind == 1) {
		struct stat st;

		if (stat(argv[optind], &st) == 0 && S_ISREG(st.st_mode))
			return usage_error("which procedure? give SYMBOL after the recording");
		symbol = argv[optind];
	} else {
		return usage_error(argc == optind ? "which procedure? give SYMBOL" :
				   "too many arguments: give [FILE.eqp] SYMBOL");
	}
	f = eqp_open(file, &err);
	if (!f || eqp_require_samples(f, &err) < 0)
		goto fail;
	if (eqp_warning(f))
		fprintf(stderr, "eqprof annotate: warning: %s\n", eqp_warning(f));
	s = eq_sym_new(f, &so, &err);
	if (!s)
		goto fail;
	a = eq_annotate(f, s, symbol, dso, &err);
	if (!a)
		goto fail;
	for (size_t i = 0; i < eq_sym_nwarnings(s); i++)
		fprintf(stderr, "eqprof annotate: warning: %s\n", eq_sym_warning(s, i));
	if (eq_output_not_input(out, &file, 1, &err) < 0 || eq_outfile_open(&o, out, &err) < 0)
		goto fail;
	eq_annotation_print(o.fp, a, fmt, file, show_source);
	if (eq_outfile_commit(&o, &err) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "eqprof annotate: %s\n", err.msg);
done:
	eq_annotation_free(a);
	eq_sym_free(s);
	eqp_close(f);
	return rc;
}
