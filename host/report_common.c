/*
 * report_common.c - options, loading and output shared by report and compare.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "align.h"
#include "outfile.h"
#include "report_common.h"
#include "split.h"
#include "progress.h"

static int bad(const char *cmd, const char *usage, const char *msg)
{
	fprintf(stderr, "eqprof %s: %s\n%s", cmd, msg, usage);
	return EQ_ARGS_BAD;
}

int eq_report_parse_args(const char *cmd, const char *usage, int argc, char **argv,
			 int nfiles, struct eq_report_opts *o)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "exclude-idle", no_argument, NULL, 'x' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "no-build-id-check", no_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ "children", no_argument, NULL, 'C' },
		{ "no-children", no_argument, NULL, 'N' },
		{ "call-graph", no_argument, NULL, 'G' },
		{ "percent-limit", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct eq_error err;
	int c, n = 0;
	char *end;

	memset(o, 0, sizeof(*o));
	o->by = EQ_BY_PROC;
	o->fmt = EQ_FMT_TABLE;
	o->children = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'q': o->quiet = 1; break;
		case 'b':
			if (eq_by_parse_split(optarg, &o->by, &err))
				return bad(cmd, usage, err.msg);
			break;
		case 'f':
			if (eq_format_parse(optarg, &o->fmt, &err))
				return bad(cmd, usage, err.msg);
			break;
		case 'x': o->exclude_idle = 1; break;
		case 'S': o->symfs = optarg; break;
		case 'B': o->no_build_id_check = 1; break;
		case 'o': o->out = optarg; break;
		case 'C': o->children = 1; break;
		case 'N': o->children = 0; break;
		case 'G': o->call_graph = 1; break;
		case 'P':
			o->percent_limit = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%")) || !(o->percent_limit >= 0 && o->percent_limit <= 100))
				return bad(cmd, usage, "--percent-limit: give a percentage from 0 to 100");
			break;
		case 'I':
			if (eq_interval_parse(optarg, &o->interval, &err))
				return bad(cmd, usage, err.msg);
			o->interval_given = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return EQ_ARGS_HELP;
		default:
			fputs(usage, stderr);
			return EQ_ARGS_BAD;
		}
	}
	for (; optind < argc; optind++) {
		if (n == (nfiles ? nfiles : EQ_REPORT_MAX_FILES))
			return bad(cmd, usage, "too many recordings given");
		o->files[n++] = argv[optind];
	}
	if (n == 0 && nfiles <= 1) {
		/* as perf report reads perf.data: what `eqprof record` wrote */
		o->files[0] = EQ_DEFAULT_RECORDING;
		o->default_file = 1;
		n = 1;
	}
	o->nfiles = n;
	if (n < nfiles)
		return bad(cmd, usage, "give two recordings: TIME.eqp ENERGY.eqp");
	return EQ_ARGS_OK;
}

struct report_progress {
	const char *cmd;
	struct eq_progress line;
};

/* Twice a second; nothing at all when the profile is done within half a second. */
static void show_progress(uint64_t done, uint64_t total, void *arg)
{
	struct report_progress *rp = arg;

	eq_progress_samples(&rp->line, rp->cmd, done, total);
}

int eq_report_load(const char *cmd, const char *path, const struct eq_report_opts *o,
		   struct eq_loaded_profile *lp)
{
	struct eq_sym_options so = { .symfs = o->symfs,
				     .check_build_id = !o->no_build_id_check };
	struct eq_error err;
	size_t i;

	memset(lp, 0, sizeof(*lp));
	lp->file = eqp_open(path, &err);
	if (!lp->file) {
		fprintf(stderr, "eqprof %s: %s\n", cmd, err.msg);
		if (o->default_file)
			fprintf(stderr, "eqprof %s: no recording was named, so %s was read (what 'eqprof record' writes); give FILE.eqp\n",
				cmd, path);
		return -1;
	}
	if (eqp_warning(lp->file))
		fprintf(stderr, "eqprof %s: warning: %s\n", cmd, eqp_warning(lp->file));
	eq_align_check_file(stderr, cmd, lp->file);
	lp->sym = eq_sym_new(lp->file, &so, &err);
	if (lp->sym)
		eq_sym_skip_lines(lp->sym, o->by != EQ_BY_LINE);
	if (lp->sym) {
		struct report_progress pr = { .cmd = cmd };

		eq_progress_start(&pr.line, o->quiet, 0.5);
		if ((unsigned)o->by & EQ_BY_SPLIT) /* --by exe,state...: analysis/states */
			lp->profile = eq_split_profile_build(lp->file, lp->sym, o->by,
							     o->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0,
							     &lp->split, &err);
		else
			lp->profile = eq_profile_build_progress(lp->file, lp->sym, o->by,
								o->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0,
								pr.line.enabled ? show_progress : NULL, &pr, &err);
	}
	if (!lp->profile) {
		fprintf(stderr, "eqprof %s: %s\n", cmd, err.msg);
		eq_report_unload(lp);
		return -1;
	}
	eq_profile_set_interval(lp->profile, o->interval);
	for (i = 0; i < eq_sym_nwarnings(lp->sym); i++)
		fprintf(stderr, "eqprof %s: warning: %s\n", cmd, eq_sym_warning(lp->sym, i));
	return 0;
}

void eq_report_unload(struct eq_loaded_profile *lp)
{
	eq_profile_free(lp->profile);
	eq_split_store_free(lp->split);
	eq_sym_free(lp->sym);
	if (lp->file)
		eqp_close(lp->file);
	memset(lp, 0, sizeof(*lp));
}

int eq_report_write(const char *cmd, const struct eq_report_opts *o,
		    const struct eq_profile *p,
		    void (*print)(FILE *out, const void *arg), const void *arg)
{
	struct eq_outfile out;
	struct eq_error err;
	char source[4096];

	if (o->nfiles > 1)
		snprintf(source, sizeof(source), "%s and %d more recording%s (pooled)", o->files[0],
			 o->nfiles - 1, o->nfiles > 2 ? "s" : "");
	else
		snprintf(source, sizeof(source), "%s", o->files[0]);
	if (eq_output_not_input(o->out, o->files, (size_t)o->nfiles, &err) ||
	    eq_outfile_open(&out, o->out ? o->out : "-", &err)) {
		fprintf(stderr, "eqprof %s: %s\n", cmd, err.msg);
		return 1;
	}
	if (print)
		print(out.fp, arg);
	else
		eq_profile_print(out.fp, p, o->fmt, source);
	if (eq_outfile_commit(&out, &err)) {
		fprintf(stderr, "eqprof %s: %s\n", cmd, err.msg);
		return 1;
	}
	return 0;
}
