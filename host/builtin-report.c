/*
 * builtin-report.c - eqprof report: the energy (or time) profile of a
 * recording by executable, module, procedure, line or instruction.
 *
 *   eqprof report [FILE.eqp] [--by exe|module|proc|line|insn|pid|thread] [--exclude-idle]
 *                 [--format table|csv|json] [--symfs DIR] [-o OUT]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "eqp.h"
#include "outfile.h"
#include "profile.h"
#include "report_common.h"
#include "table.h"
#include "callgraph.h"
#include "symbolize.h"

struct cg_arg {
	const struct eq_callgraph *cg;
	struct eq_cg_print po;
};

static void print_cg(FILE *out, const void *arg)
{
	const struct cg_arg *a = arg;

	eq_callgraph_print(out, a->cg, &a->po);
}

/* The inclusive profile of a recording with call chains. */
static int report_children(const struct eq_report_opts *o, struct eq_loaded_profile *lp)
{
	struct eq_error err;
	struct eq_stacks *st;
	struct eq_callgraph *cg = NULL;
	struct cg_arg a;
	int rc = 1;

	st = eq_stacks_build(lp->file, lp->sym, o->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0, &err);
	if (st)
		cg = eq_callgraph_build(st, &err);
	if (!cg) {
		fprintf(stderr, "eqprof report: %s\n", err.msg);
		goto out;
	}
	a.cg = cg;
	a.po = (struct eq_cg_print){ .fmt = o->fmt, .source = o->files[0], .call_paths = o->call_graph,
				     .percent_limit = o->percent_limit, .path_limit = 0.5 };
	rc = eq_report_write("report", o, NULL, print_cg, &a);
out:
	eq_callgraph_free(cg);
	eq_stacks_free(st);
	return rc;
}

static const char usage_text[] =
	"usage: eqprof report [FILE.eqp] [--by exe|module|proc|line|insn|pid|thread]\n"
	"                     [--exclude-idle] [--format table|csv|json] [--symfs DIR] [-o OUT] [-q]\n"
	"\n"
	"  FILE.eqp          the recording (default eqprof.eqp, what record writes)\n"
	"  --by G            group samples by exe, module, proc (default), line, insn,\n"
	"                    pid (process) or thread\n"
	"  --exclude-idle    leave idle samples out and renormalize the shares\n"
	"  --format F        table (default), csv or json (schema in docs/guide.md)\n"
	"  --symfs DIR       find the target's binaries under DIR (its sysroot)\n"
	"  --no-build-id-check  use binaries even when their build-id differs\n"
	"  --children        with call chains (record -g): each procedure's energy with\n"
	"                    everything it called, beside its own (the default when the\n"
	"                    recording has call chains and --by is proc)\n"
	"  --no-children     the flat profile even when there are call chains\n"
	"  --call-graph      with --children: the call paths that lead to each procedure\n"
	"  --percent-limit P leave out rows below P %% of the samples\n"
	"  -o OUT            write to OUT (atomically) instead of standard output\n"
	"  -q                no progress line (shown only on a terminal, for long runs)\n";

int cmd_report(int argc, char **argv)
{
	struct eq_report_opts o;
	struct eq_loaded_profile lp;
	int rc;

	rc = eq_report_parse_args("report", usage_text, argc, argv, 1, &o);
	if (rc != EQ_ARGS_OK)
		return rc == EQ_ARGS_HELP ? 0 : 2;
	if (eq_report_load("report", o.files[0], &o, &lp))
		return 1;
	if (o.children == 1 && o.by != EQ_BY_PROC) {
		fprintf(stderr, "eqprof report: --children needs --by proc (call chains are of procedures)\n");
		eq_report_unload(&lp);
		return 2;
	}
	if (o.children == 1 && !eqp_has_callchains(lp.file)) {
		fprintf(stderr, "eqprof report: %s has no call chains; record with -g for them\n", o.files[0]);
		eq_report_unload(&lp);
		return 1;
	}
	if (o.call_graph && !eqp_has_callchains(lp.file)) {
		fprintf(stderr, "eqprof report: --call-graph: %s has no call chains; record with -g for them\n",
			o.files[0]);
		eq_report_unload(&lp);
		return 1;
	}
	if (o.by == EQ_BY_PROC && o.children != 0 && eqp_has_callchains(lp.file)) {
		rc = report_children(&o, &lp);
		eq_report_unload(&lp);
		return rc;
	}
	if (o.percent_limit > 0)
		while (lp.profile->nrows &&
		       100.0 * lp.profile->rows[lp.profile->nrows - 1].share < o.percent_limit)
			lp.profile->nrows--;
	rc = eq_report_write("report", &o, lp.profile, NULL, NULL);
	eq_report_unload(&lp);
	return rc;
}
