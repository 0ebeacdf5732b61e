/*
 * builtin-report.c - eqprof report: the energy (or time) profile of a
 * recording by executable, module, procedure, line or instruction.
 *
 *   eqprof report [FILE.eqp...] [--by exe|module|proc|line|insn|pid|thread]
 *                 [--sort KEY,...] [--comm|--dso|--symbol NAME,...] [--per-thread]
 *                 [--exclude-idle] [--interval sampling|run-to-run]
 *                 [--format table|csv|json] [--symfs DIR] [-o OUT]
 *
 * Several recordings of the same work are pooled into one profile whose
 * run-to-run interval comes from the spread of their shares.
 */
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "file/eqp.h"
#include "file/outfile.h"
#include "profile/profile.h"
#include "report_common.h"
#include "report_energy.h"
#include "profile/table.h"
#include "profile/callgraph.h"
#include "symbols/symbolize.h"

struct cg_arg {
	const struct eq_callgraph *cg;
	struct eq_cg_print po;
};

static void print_cg(FILE *out, const void *arg)
{
	const struct cg_arg *a = arg;

	eq_callgraph_print(out, a->cg, &a->po);
}

/* Call trees fold under the terminal's width (on a terminal), else under
 * $COLUMNS when set, else stay whole. */
static int tree_width(const struct eq_report_opts *o)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");

	if ((!o->out || !strcmp(o->out, "-")) && isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col >= 40)
		return ws.ws_col;
	return c && atoi(c) >= 40 ? atoi(c) : 0;
}

/* The inclusive profile of a recording with call chains. */
static int report_children(const struct eq_report_opts *o, struct eq_loaded_profile *lp)
{
	struct eq_error err;
	struct eq_stacks *st;
	struct eq_callgraph *cg = NULL;
	struct cg_arg a;
	int rc = 1;

	st = eq_stacks_build_range(lp->file, lp->sym, o->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0,
				   &lp->range, &err);
	if (st)
		cg = eq_callgraph_build(st, &err);
	if (eq_report_inclusive_checked(o, lp) < 0)
		goto out;
	if (!cg) {
		eq_error_msg("%s", err.msg);
		goto out;
	}
	eq_callgraph_set_interval(cg, o->interval);
	a.cg = cg;
	a.po = (struct eq_cg_print){ .fmt = o->fmt, .source = o->files[0], .call_paths = o->call_graph,
				     .callees = o->call_graph_callees, .width = tree_width(o),
				     .percent_limit = o->percent_limit, .path_limit = 0.5 };
	if (eq_report_has_energy(lp, 1))  /* record -g --energy: joules per procedure too */
		rc = eq_report_energy_children(o, lp, print_cg, &a);
	else
		rc = eq_report_write(o, NULL, print_cg, &a);
out:
	eq_callgraph_free(cg);
	eq_stacks_free(st);
	return rc;
}

/* The recordings must be alike to be pooled. */
static int check_alike(const struct eq_loaded_profile *lp, const struct eq_report_opts *o)
{
	int i;

	for (i = 1; i < o->nfiles; i++)
		if (lp[i].profile->mode != lp[0].profile->mode) {
			eq_error_msg("%s is %s-driven but %s is %s-driven; "
				"pool recordings of one kind", o->files[i],
				lp[i].profile->mode == EQP_MODE_ENERGY ? "energy" : "time",
				o->files[0],
				lp[0].profile->mode == EQP_MODE_ENERGY ? "energy" : "time");
			return -1;
		}
	return 0;
}

/* --percent-limit: rows are ordered by samples, most first. */
static void limit_rows(struct eq_profile *p, double percent_limit)
{
	if (percent_limit > 0)
		while (p->nrows && 100.0 * p->rows[p->nrows - 1].share < percent_limit)
			p->nrows--;
}

/* One recording: the flat profile, or the inclusive one with call chains. */
static int report_one(const struct eq_report_opts *o, struct eq_loaded_profile *lp)
{
	int flat_only = o->keys.n || eq_filter_active(&o->filter);

	if (o->children == 1 && flat_only) {
		eq_error_msg("--children is by procedure; it cannot go with --sort "
			"or the --comm/--dso/--symbol filters (use --no-children)");
		return 2;
	}
	if (o->call_graph && flat_only) {
		eq_error_msg("--call-graph cannot go with --sort or the "
			"--comm/--dso/--symbol filters");
		return 2;
	}
	if (o->children == 1 && o->by != EQ_BY_PROC) {
		eq_error_msg("--children needs --by proc (call chains are of procedures)");
		return 2;
	}
	if (o->children == 1 && !eqp_has_callchains(lp->file)) {
		eq_error_msg("%s has no call chains; record with -g for them", o->files[0]);
		return 1;
	}
	if (o->call_graph && !eqp_has_callchains(lp->file)) {
		eq_error_msg("--call-graph: %s has no call chains; record with -g for them",
			o->files[0]);
		return 1;
	}
	if (o->by == EQ_BY_PROC && o->children != 0 && !flat_only && eqp_has_callchains(lp->file))
		return report_children(o, lp);
	if (!eqp_nsamples(lp->file) && o->fmt == EQ_FMT_TABLE)
		return eq_report_write(o, NULL, eq_report_print_board_log, lp);
	limit_rows(lp->profile, o->percent_limit);
	if (eq_report_has_energy(lp, 1))  /* record --energy: joules per row too */
		return eq_report_energy(o, lp, 1, lp->profile);
	return eq_report_write(o, lp->profile, NULL, NULL);
}

#define REPORT_MAIN   EQ_MODE_MAIN
#define REPORT_ATTRIB 0x2u           /* --attribute async */
#define MAIN          .modes = REPORT_MAIN

static int opt_attribute(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	if (strcmp(arg, "async"))
		return eq_fail(err, "--attribute: the one attribution is 'async' (device energy to its causes)");
	return 0;
}

/* -G, --call-graph[=callee|caller] (the value attached only, as perf's) */
static int opt_call_graph(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_report_opts *o = opt->value;

	o->call_graph = 1;
	o->call_graph_callees = 0;
	if (arg && !strcmp(arg, "caller"))
		o->call_graph_callees = 1;
	else if (arg && strcmp(arg, "callee"))
		return eq_fail(err, "--call-graph: give caller (the tree of what each procedure "
			       "called) or callee (of who called it, the default)");
	return 0;
}

static const char report_usage[] =
	"eqprof report [options] [FILE.eqp...]\n"
	"eqprof report --attribute async [options] [FILE.eqp]\n";

static const char report_footer[] =
	"Several recordings of the same work are pooled: shares of all their samples,\n"
	"the run-to-run interval from the spread of the recordings' shares.\n";

/* report's options into o (--device-model's files into models): the
 * recordings named are left in argv[0..n); n, or EQ_PARSE_HELP/ERROR. */
static int parse_report_options(int argc, char **argv, struct eq_report_opts *o,
				struct eq_paths *models, unsigned *mode)
{
	const struct eq_option options[] = {
		OPT_ARG("FILE.eqp", "the recording (default " EQ_DEFAULT_RECORDING ", what record writes)"),
		EQ_ROPT_BY(o, "group samples by exe, module, proc (default), line, insn,\n"
			      "pid (process) or thread; by state (frequency and idle\n"
			      "state), freq, cstate, cpu or mode (user/kernel/idle),\n"
			      "alone or after exe, module, proc or pid: --by exe,state"),
		EQ_ROPT_SORT(o, "a row per combination of the keys, a column each (perf's\n"
				"--sort): comm, pid, tid, cpu, dso, sym, srcline, srcfile;\n"
				"e.g. --sort comm,dso,sym", MAIN),
		EQ_ROPT_FILTER(o, "comm", "comms", "only samples in these threads or processes (comma list;\n"
						   "shell patterns allowed)", MAIN),
		EQ_ROPT_FILTER(o, "dso", "dsos", "only samples in these modules (basename or path)", MAIN),
		EQ_ROPT_FILTER(o, "symbol", "symbols", "only samples in these procedures", MAIN),
		EQ_ROPT_PERCENTAGE(o, "with filters, shares of all samples (absolute, default) or\n"
				      "of the samples kept (relative)", MAIN),
		{ .type = EQ_OPTION_FLAG, .long_name = "per-thread", .value = &o->per_thread,
		  .defval = 1, MAIN, .help = "a row per thread (--by thread; with --sort, tid first)" },
		{ .type = EQ_OPTION_FLAG, .long_name = "exclude-idle", .value = &o->exclude_idle,
		  .defval = 1, MAIN, .help = "leave idle samples out and renormalize the shares" },
		EQ_ROPT_RANGE(o, "from", "only the samples after T seconds since the first sample\n"
					 "(\"12.5\", \"1500ms\"; what eqprof view selects)", MAIN),
		EQ_ROPT_RANGE(o, "to", "only the samples up to T seconds since the first sample", MAIN),
		EQ_ROPT_REGION(o, MAIN),
		EQ_ROPT_INTERVAL(o, "what the 95% interval of a share covers:\n"
				    "  sampling    this run's share (default for one recording)\n"
				    "  run-to-run  what another run of the same work would give\n"
				    "              (default for several recordings)", MAIN),
		EQ_OPT_FORMAT(&o->fmt, "table (default), csv or json (schema in docs/guide.md)"),
		EQ_OPT_SYMFS(&o->symfs, "find the target's binaries under DIR (its sysroot)"),
		{ .type = EQ_OPTION_FLAG, .long_name = "no-build-id-check",
		  .value = &o->no_build_id_check, .defval = 1, MAIN,
		  .help = "use binaries even when their build-id differs" },
		{ .type = EQ_OPTION_FLAG, .long_name = "children", .value = &o->children, .defval = 1,
		  MAIN, .help = "with call chains (record -g): each procedure's energy with\n"
				"everything it called, beside its own (the default when the\n"
				"recording has call chains and --by is proc)" },
		{ .type = EQ_OPTION_FLAG, .long_name = "no-children", .value = &o->children,
		  .defval = 0, MAIN, .help = "the flat profile even when there are call chains" },
		{ .type = EQ_OPTION_CALLBACK, .short_name = 'G', .long_name = "call-graph", .value = o,
		  .argh = "callee|caller", .cb = opt_call_graph, .flags = EQ_OPT_OPTARG, MAIN,
		  .complete = "callee caller",
		  .help = "with --children: under each procedure, the tree of who called\n"
			  "it (callee, the default) or of what it called (caller), each\n"
			  "branch with its share, as perf report draws them; lines cut at\n"
			  "the terminal's width (or $COLUMNS)" },
		EQ_ROPT_PERCENT_LIMIT(o, "leave out rows below P % of the samples", MAIN),
		EQ_OPT_OUTPUT(&o->out, "write to OUT (atomically) instead of standard output"),
		EQ_ROPT_JOBS(o, "read the samples on N threads (default 1; 0: every online\n"
				"CPU, fewer for a recording of few samples); the same\n"
				"output whatever N", MAIN),
		OPT_QUIET(&o->quiet, "no progress line (shown only on a terminal, for long runs)"),
		OPT_VERBOSE(&o->verbose, "notes in full: why samples have no symbol, a balanced\n"
					 "board cross-check"),
		OPT_GROUP("Device energy moved to the code that caused it (seed 000, eprof):"),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "attribute", .argh = "async",
		  .cb = opt_attribute, .flags = EQ_OPT_MODE, .defmode = REPORT_ATTRIB,
		  .complete = "async",
		  .help = "device energy (radio, disk) moved from the samples that landed\n"
			  "in it to the code whose requests caused it, tails to the last\n"
			  "request (eprof's rule: whole samples, the remainder carried\n"
			  "forward); one recording, --by exe (default), pid or proc" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "device-model", .value = models,
		  .argh = "FILE", .cb = eq_opt_path, .flags = EQ_OPT_REPEAT, .modes = REPORT_ATTRIB,
		  .complete = EQ_COMPLETE_FILE,
		  .help = "lines 'NAME active POWER tail TIME POWER idle POWER';\n"
			  "default: the models the recording carries" },
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "report", .usage = report_usage, .options = options, .footer = report_footer,
		.mode_names = { NULL, "--attribute async" },
	};
	int n;

	eq_report_opts_init(o);
	n = eq_parse_options(&cmd, argc, argv, mode);
	if (n < 0)
		return n;
	if (*mode == REPORT_ATTRIB && n > 1)
		return eq_usage_error(&cmd, *mode, "--attribute async takes one recording"), EQ_PARSE_ERROR;
	return eq_report_args(&cmd, n, argv, 0, o) ? EQ_PARSE_ERROR : n;
}

int cmd_report(int argc, char **argv)
{
	struct eq_report_opts o;
	struct eq_paths models = { .n = 0 };
	struct eq_loaded_profile lp[EQ_REPORT_MAX_FILES];
	struct eq_profile *profs[EQ_REPORT_MAX_FILES], *pooled = NULL;
	struct eq_error err;
	unsigned mode;
	int rc, i, n = 0;

	rc = parse_report_options(argc, argv, &o, &models, &mode);
	if (rc < 0)
		return EQ_PARSE_STATUS(rc);
	if (mode == REPORT_ATTRIB)
		return cmd_report_attribute(&o, &models); /* builtin-report-attrib.c */
	if (!o.interval_given && o.nfiles > 1)
		o.interval = EQ_IV_RUN;
	if (o.nfiles > 1 && (o.children == 1 || o.call_graph)) {
		eq_error_msg("--children and --call-graph take one recording");
		return 2;
	}
	rc = 1;
	/* one recording's inclusive profile (report_one): made from its
	 * stacks, whose pass checks each chunk as it reads it */
	o.inclusive = o.nfiles == 1 && o.by == EQ_BY_PROC && o.children != 0 &&
		      !o.keys.n && !eq_filter_active(&o.filter);
	for (n = 0; n < o.nfiles; n++) {
		if (eq_report_load(o.files[n], &o, &lp[n]))
			goto out;
		profs[n] = lp[n].profile;
	}
	if (eq_report_check_filter(&o, lp, n))
		goto out;
	if (o.nfiles == 1) {
		rc = report_one(&o, &lp[0]);
		goto out;
	}
	if (check_alike(lp, &o))
		goto out;
	pooled = eq_profile_pool(profs, (size_t)o.nfiles, &err);
	if (!pooled) {
		eq_error_msg("%s", err.msg);
		goto out;
	}
	eq_profile_set_interval(pooled, o.interval);
	pooled->verbose = o.verbose;
	limit_rows(pooled, o.percent_limit);
	if (eq_report_has_energy(lp, o.nfiles))
		rc = eq_report_energy(&o, lp, o.nfiles, pooled);
	else
		rc = eq_report_write(&o, pooled, NULL, NULL);
out:
	eq_profile_free(pooled);
	for (i = 0; i < n; i++)
		eq_report_unload(&lp[i]);
	return rc;
}
