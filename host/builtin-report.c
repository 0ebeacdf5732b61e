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
#include <getopt.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
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
	if (!cg) {
		fprintf(stderr, "eqprof report: %s\n", err.msg);
		goto out;
	}
	eq_callgraph_set_interval(cg, o->interval);
	a.cg = cg;
	a.po = (struct eq_cg_print){ .fmt = o->fmt, .source = o->files[0], .call_paths = o->call_graph,
				     .callees = o->call_graph_callees, .width = tree_width(o),
				     .percent_limit = o->percent_limit, .path_limit = 0.5 };
	if (eq_report_has_energy(lp, 1))  /* record -g --energy: joules per procedure too */
		rc = eq_report_energy_children("report", o, lp, print_cg, &a);
	else
		rc = eq_report_write("report", o, NULL, print_cg, &a);
out:
	eq_callgraph_free(cg);
	eq_stacks_free(st);
	return rc;
}

static const char usage_text[] =
	"usage: eqprof report [FILE.eqp...] [--by exe|module|proc|line|insn|pid|thread]\n"
	"                     [-s|--sort KEY,...] [--comm NAME,...] [--dso NAME,...]\n"
	"                     [--symbol NAME,...] [--percentage absolute|relative]\n"
	"                     [--per-thread] [--exclude-idle] [--interval sampling|run-to-run]\n"
	"                     [--from T] [--to T] [--region NAME]\n"
	"                     [--format table|csv|json] [--symfs DIR] [-o OUT] [-q]\n"
	"\n"
	"  FILE.eqp          the recording (default eqprof.eqp, what record writes)\n"
	"  --by G            group samples by exe, module, proc (default), line, insn,\n"
	"                    pid (process) or thread; by state (frequency and idle\n"
	"                    state), freq, cstate, cpu or mode (user/kernel/idle),\n"
	"                    alone or after exe, module, proc or pid: --by exe,state\n"
	"  -s, --sort KEYS   a row per combination of the keys, a column each (perf's\n"
	"                    --sort): comm, pid, tid, cpu, dso, sym, srcline, srcfile;\n"
	"                    e.g. --sort comm,dso,sym\n"
	"  --comm NAMES      only samples in these threads or processes (comma list;\n"
	"                    shell patterns allowed)\n"
	"  --dso NAMES       only samples in these modules (basename or path)\n"
	"  --symbol NAMES    only samples in these procedures\n"
	"  --percentage P    with filters, shares of all samples (absolute, default) or\n"
	"                    of the samples kept (relative)\n"
	"  --per-thread      a row per thread (--by thread; with --sort, tid first)\n"
	"  --exclude-idle    leave idle samples out and renormalize the shares\n"
	"  --from T, --to T  only the samples after T and up to T seconds since the\n"
	"                    first sample (\"12.5\", \"1500ms\"; what eqprof view selects)\n"
	"  --region NAME     only the samples from marker NAME to the next marker (a\n"
	"                    program marks with $EQPROF_MARKER_FD under eqprof record)\n"
	"  --interval I      what the 95% interval of a share covers:\n"
	"                      sampling    this run's share (default for one recording)\n"
	"                      run-to-run  what another run of the same work would give\n"
	"                                  (default for several recordings)\n"
	"  --format F        table (default), csv or json (schema in docs/guide.md)\n"
	"  --symfs DIR       find the target's binaries under DIR (its sysroot)\n"
	"  --no-build-id-check  use binaries even when their build-id differs\n"
	"  --children        with call chains (record -g): each procedure's energy with\n"
	"                    everything it called, beside its own (the default when the\n"
	"                    recording has call chains and --by is proc)\n"
	"  --no-children     the flat profile even when there are call chains\n"
	"  -G, --call-graph[=callee|caller]  with --children: under each procedure, the\n"
	"                    tree of who called it (callee, the default) or of what it\n"
	"                    called (caller), each branch with its share, as perf\n"
	"                    report draws them; lines cut at the terminal's width\n"
	"                    (or $COLUMNS)\n"
	"  --percent-limit P leave out rows below P % of the samples\n"
	"  -o OUT            write to OUT (atomically) instead of standard output\n"
	"  -q                no progress line (shown only on a terminal, for long runs)\n"
	"  -v                notes in full: why samples have no symbol, a balanced\n"
	"                    board cross-check\n"
	"  --attribute async device energy moved to the code that caused it (see\n"
	"                    eqprof report --attribute async --help)\n"
	"\n"
	"Several recordings of the same work are pooled: shares of all their samples,\n"
	"the run-to-run interval from the spread of the recordings' shares.\n";

/* The recordings must be alike to be pooled. */
static int check_alike(const struct eq_loaded_profile *lp, const struct eq_report_opts *o)
{
	int i;

	for (i = 1; i < o->nfiles; i++)
		if (lp[i].profile->mode != lp[0].profile->mode) {
			fprintf(stderr, "eqprof report: %s is %s-driven but %s is %s-driven; "
				"pool recordings of one kind\n", o->files[i],
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
		fprintf(stderr, "eqprof report: --children is by procedure; it cannot go with --sort "
			"or the --comm/--dso/--symbol filters (use --no-children)\n");
		return 2;
	}
	if (o->call_graph && flat_only) {
		fprintf(stderr, "eqprof report: --call-graph cannot go with --sort or the "
			"--comm/--dso/--symbol filters\n");
		return 2;
	}
	if (o->children == 1 && o->by != EQ_BY_PROC) {
		fprintf(stderr, "eqprof report: --children needs --by proc (call chains are of procedures)\n");
		return 2;
	}
	if (o->children == 1 && !eqp_has_callchains(lp->file)) {
		fprintf(stderr, "eqprof report: %s has no call chains; record with -g for them\n", o->files[0]);
		return 1;
	}
	if (o->call_graph && !eqp_has_callchains(lp->file)) {
		fprintf(stderr, "eqprof report: --call-graph: %s has no call chains; record with -g for them\n",
			o->files[0]);
		return 1;
	}
	if (o->by == EQ_BY_PROC && o->children != 0 && !flat_only && eqp_has_callchains(lp->file))
		return report_children(o, lp);
	limit_rows(lp->profile, o->percent_limit);
	if (eq_report_has_energy(lp, 1))  /* record --energy: joules per row too */
		return eq_report_energy("report", o, lp, 1, lp->profile);
	return eq_report_write("report", o, lp->profile, NULL, NULL);
}

int cmd_report(int argc, char **argv)
{
	struct eq_report_opts o;
	struct eq_loaded_profile lp[EQ_REPORT_MAX_FILES];
	struct eq_profile *profs[EQ_REPORT_MAX_FILES], *pooled = NULL;
	struct eq_error err;
	int rc, i, n = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--attribute") || !strncmp(argv[i], "--attribute=", 12))
			return cmd_report_attribute(argc, argv); /* builtin-report-attrib.c */
	rc = eq_report_parse_args("report", usage_text, argc, argv, 0, &o);
	if (rc != EQ_ARGS_OK)
		return rc == EQ_ARGS_HELP ? 0 : 2;
	if (!o.interval_given && o.nfiles > 1)
		o.interval = EQ_IV_RUN;
	if (o.nfiles > 1 && (o.children == 1 || o.call_graph)) {
		fputs("eqprof report: --children and --call-graph take one recording\n", stderr);
		return 2;
	}
	rc = 1;
	for (n = 0; n < o.nfiles; n++) {
		if (eq_report_load("report", o.files[n], &o, &lp[n]))
			goto out;
		profs[n] = lp[n].profile;
	}
	if (eq_report_check_filter("report", &o, lp, n))
		goto out;
	if (o.nfiles == 1) {
		rc = report_one(&o, &lp[0]);
		goto out;
	}
	if (check_alike(lp, &o))
		goto out;
	pooled = eq_profile_pool(profs, (size_t)o.nfiles, &err);
	if (!pooled) {
		fprintf(stderr, "eqprof report: %s\n", err.msg);
		goto out;
	}
	eq_profile_set_interval(pooled, o.interval);
	pooled->verbose = o.verbose;
	limit_rows(pooled, o.percent_limit);
	if (eq_report_has_energy(lp, o.nfiles))
		rc = eq_report_energy("report", &o, lp, o.nfiles, pooled);
	else
		rc = eq_report_write("report", &o, pooled, NULL, NULL);
out:
	eq_profile_free(pooled);
	for (i = 0; i < n; i++)
		eq_report_unload(&lp[i]);
	return rc;
}
