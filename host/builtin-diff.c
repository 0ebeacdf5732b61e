/*
 * builtin-diff.c - eqprof diff: did my change save energy?
 *
 *   eqprof diff A.eqp B.eqp [options]
 *   eqprof diff A1.eqp A2.eqp... vs B1.eqp B2.eqp... [options]
 *
 * Each side's recordings are pooled (their spread gives the run-to-run
 * variances); the rows, the test and the output are analysis/profile/diff.h's.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "diff.h"
#include "report_common.h"

static const char usage_text[] =
	"usage: eqprof diff A.eqp B.eqp [options]\n"
	"       eqprof diff A1.eqp A2.eqp... vs B1.eqp B2.eqp... [options]\n"
	"\n"
	"Each row's energy per run before (A) and after (B) a change, the change B - A\n"
	"with its 95% interval, and whether it is significant; the same for the total.\n"
	"Give each side several recordings of the same work (separated by 'vs') for\n"
	"an interval on the total and run-to-run variances from their spread.\n"
	"\n"
	"  --by G            rows by exe, module, proc (default), line, insn, pid, thread\n"
	"  -s, --sort KEYS   rows by sort keys instead (comm,pid,tid,cpu,dso,sym,...)\n"
	"  --comm/--dso/--symbol NAMES  only these samples (as in report)\n"
	"  --exclude-idle    leave idle samples out (of rows and totals)\n"
	"  --per-row         flag each row at 95% (expect 5% of unchanged rows flagged)\n"
	"                    instead of family-wise 5% (Holm: no unchanged row flagged\n"
	"                    in 95% of diffs; the default)\n"
	"  --interval I      design effects: run-to-run (default) or sampling (two\n"
	"                    samplings of one run)\n"
	"  --percent-limit P leave out rows below P %% on both sides (still tested)\n"
	"  --format F        table (default), csv or json (schema in docs/guide.md)\n"
	"  --symfs DIR, --no-build-id-check, -o OUT, -q  as in report\n";

/* "a.eqp" or "a.eqp and 2 more" */
static void side_name(char *buf, size_t n, const char *const *files, int nf)
{
	if (nf == 1)
		snprintf(buf, n, "%s", files[0]);
	else
		snprintf(buf, n, "%s and %d more", files[0], nf - 1);
}

struct print_arg {
	const struct eq_diff *d;
	enum eq_format fmt;
	const char *sa, *sb;
	double limit;
};

static void print_diff(FILE *out, const void *arg)
{
	const struct print_arg *a = arg;

	eq_diff_print(out, a->d, a->fmt, a->sa, a->sb, a->limit);
}

int cmd_diff(int argc, char **argv)
{
	struct eq_report_opts o;
	struct eq_loaded_profile lp[EQ_REPORT_MAX_FILES];
	struct eq_profile *profs[EQ_REPORT_MAX_FILES], *pool[2] = { NULL, NULL };
	const char *files[EQ_REPORT_MAX_FILES];
	struct eq_diff *d = NULL;
	struct eq_error err;
	char sa[4200], sb[4200];
	int rc, i, n = 0, nf = 0, split = -1, na, nb;

	rc = eq_report_parse_args("diff", usage_text, argc, argv, 0, &o);
	if (rc != EQ_ARGS_OK)
		return rc == EQ_ARGS_HELP ? 0 : 2;
	if (o.children == 1 || o.call_graph) {
		fputs("eqprof diff: --children and --call-graph are report's; diff compares flat profiles\n",
		      stderr);
		return 2;
	}
	for (i = 0; i < o.nfiles; i++) {
		if (!strcmp(o.files[i], "vs")) {
			if (split >= 0) {
				fputs("eqprof diff: 'vs' given twice; give A's recordings, vs, B's\n", stderr);
				return 2;
			}
			split = nf;
			continue;
		}
		files[nf++] = o.files[i];
	}
	if (split < 0)
		split = nf == 2 ? 1 : -1;
	if (o.default_file || split <= 0 || split >= nf) {
		fprintf(stderr, "eqprof diff: give two recordings (A.eqp B.eqp), or several on each side "
			"separated by 'vs' (A1.eqp A2.eqp vs B1.eqp B2.eqp)%s\n%s",
			nf > 2 && split < 0 ? "; with more than two, 'vs' says where B starts" : "",
			usage_text);
		return 2;
	}
	na = split;
	nb = nf - split;
	for (i = 0; i < nf; i++)
		o.files[i] = files[i];
	o.nfiles = nf;
	if (!o.interval_given)
		o.interval = EQ_IV_RUN;
	rc = 1;
	for (n = 0; n < nf; n++) {
		if (eq_report_load("diff", files[n], &o, &lp[n]))
			goto out;
		profs[n] = lp[n].profile;
		if (profs[n]->mode != profs[0]->mode) {
			fprintf(stderr, "eqprof diff: %s is %s-driven but %s is %s-driven; diff recordings "
				"of one kind\n", files[n],
				profs[n]->mode == EQP_MODE_ENERGY ? "energy" : "time", files[0],
				profs[0]->mode == EQP_MODE_ENERGY ? "energy" : "time");
			n++;
			goto out;
		}
	}
	if (eq_report_check_filter("diff", &o, lp, n))
		goto out;
	for (i = 0; i < 2; i++) {
		struct eq_profile *const *v = i ? profs + na : profs;
		int k = i ? nb : na;

		if (k == 1)
			continue;
		pool[i] = eq_profile_pool(v, (size_t)k, &err);
		if (!pool[i]) {
			fprintf(stderr, "eqprof diff: %s\n", err.msg);
			goto out;
		}
	}
	d = eq_diff_build(profs, (size_t)na, pool[0] ? pool[0] : profs[0],
			  profs + na, (size_t)nb, pool[1] ? pool[1] : profs[na],
			  o.interval, o.per_row, &err);
	if (!d) {
		fprintf(stderr, "eqprof diff: %s\n", err.msg);
		goto out;
	}
	side_name(sa, sizeof(sa), files, na);
	side_name(sb, sizeof(sb), files + na, nb);
	{
		struct print_arg pa = { d, o.fmt, sa, sb, o.percent_limit };

		rc = eq_report_write("diff", &o, NULL, print_diff, &pa);
	}
out:
	eq_diff_free(d);
	eq_profile_free(pool[0]);
	eq_profile_free(pool[1]);
	for (i = 0; i < n; i++)
		eq_report_unload(&lp[i]);
	return rc;
}
