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
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "profile/diff.h"
#include "energy/ediff.h"
#include "report_common.h"
#include "report_energy.h"

static const char diff_usage[] =
	"eqprof diff [options] A.eqp B.eqp\n"
	"eqprof diff [options] A1.eqp A2.eqp... vs B1.eqp B2.eqp...\n";

static const char diff_about[] =
	"Each row's energy per run before (A) and after (B) a change, the change B - A\n"
	"with its 95% interval, and whether it is significant; the same for the total.\n"
	"Give each side several recordings of the same work (separated by 'vs') for\n"
	"an interval on the total and run-to-run variances from their spread.\n";

/* diff's options into o; the recordings named (and 'vs') are left in
 * argv[0..n); n, or EQ_PARSE_HELP/ERROR. */
static int parse_diff_options(int argc, char **argv, struct eq_report_opts *o)
{
	const struct eq_option options[] = {
		EQ_ROPT_BY(o, "rows by exe, module, proc (default), line, insn, pid, thread"),
		EQ_ROPT_TWO_SIDES(o),
		{ .type = EQ_OPTION_FLAG, .long_name = "exclude-idle", .value = &o->exclude_idle,
		  .defval = 1, .help = "leave idle samples out (of rows and totals)" },
		{ .type = EQ_OPTION_FLAG, .long_name = "per-row", .value = &o->per_row, .defval = 1,
		  .help = "flag each row at 95% (expect 5% of unchanged rows flagged)\n"
			  "instead of family-wise 5% (Holm: no unchanged row flagged\n"
			  "in 95% of diffs; the default)" },
		EQ_ROPT_INTERVAL(o, "design effects: run-to-run (default) or sampling (two\n"
				    "samplings of one run)"),
		EQ_ROPT_PERCENT_LIMIT(o, "leave out rows below P % on both sides (still tested)"),
		EQ_ROPT_FILES_OUT(o),
		OPT_QUIET(&o->quiet, "no progress line"),
		OPT_VERBOSE(&o->verbose, "notes in full: why samples have no symbol, a balanced\n"
					 "board cross-check"),
		OPT_END(),
	};
	const struct eq_command cmd = { .name = "diff", .usage = diff_usage, .about = diff_about,
					.options = options };
	int n;

	eq_report_opts_init(o);
	n = eq_parse_options(&cmd, argc, argv, NULL);
	if (n < 0)
		return n;
	return eq_report_args(&cmd, n, argv, 0, o) ? EQ_PARSE_ERROR : n;
}

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
	const struct ep_diff *ed;  /* record --energy on every recording: joules too */
};

static void diff_json(FILE *out, const void *arg)
{
	const struct print_arg *a = arg;

	eq_diff_print(out, a->d, EQ_FMT_JSON, a->sa, a->sb, a->limit);
}

static void ediff_json(FILE *out, const void *arg)
{
	ep_diff_print_json(out, arg);
}

static void print_diff(FILE *out, const void *arg)
{
	const struct print_arg *a = arg;

	if (!a->ed || a->fmt == EQ_FMT_CSV) {
		eq_diff_print(out, a->d, a->fmt, a->sa, a->sb, a->limit);
		return;
	}
	if (a->fmt == EQ_FMT_TABLE) {
		eq_diff_print(out, a->d, a->fmt, a->sa, a->sb, a->limit);
		ep_diff_print_table(out, a->ed, a->limit);
		return;
	}
	/* JSON: the diff's object with "energy" added */
	eq_json_add_member(out, diff_json, a, "energy", ediff_json, a->ed);
}

/* Every recording was read with an energy source: their joules per row
 * (ep[0..n)), or 0 when not (nothing to add), -1 after a message. */
static int energy_profiles(const struct eq_report_opts *o, struct eq_loaded_profile *lp, int n,
			   struct ep_profile **ep)
{
	struct eq_error err;
	int i;

	if (!eq_report_has_energy(lp, n))
		return 0;
	if (o->keys.n || eq_filter_active(&o->filter) ||
	    (o->by != EQ_BY_EXE && o->by != EQ_BY_MODULE && o->by != EQ_BY_PROC && o->by != EQ_BY_LINE)) {
		eq_error_msg("note: the recordings have energy readings, but joules per row are given "
			     "--by exe, module, proc or line without --sort or filters; compared without them");
		return 0;
	}
	for (i = 0; i < n; i++) {
		ep[i] = ep_build(lp[i].file, lp[i].sym, o->by, o->exclude_idle, &err);
		if (!ep[i]) {
			eq_error_msg("%s", err.msg);
			return -1;
		}
	}
	return 1;
}

/* Splits the recordings at 'vs' (or two without it) into A's and B's;
 * returns where B starts, or -1 after saying what is wrong. */
static int diff_sides(struct eq_report_opts *o)
{
	return eq_report_split_vs(o, "give A's recordings, vs, B's",
				  "give two recordings (A.eqp B.eqp), or several on each side "
				  "separated by 'vs' (A1.eqp A2.eqp vs B1.eqp B2.eqp)",
				  "; with more than two, 'vs' says where B starts");
}

int cmd_diff(int argc, char **argv)
{
	struct eq_report_opts o;
	struct eq_loaded_profile lp[EQ_REPORT_MAX_FILES];
	struct eq_profile *profs[EQ_REPORT_MAX_FILES], *pool[2] = { NULL, NULL };
	const char *const *files = o.files;
	struct eq_diff *d = NULL;
	struct ep_profile *ep[EQ_REPORT_MAX_FILES] = { 0 };
	struct ep_diff *ed = NULL;
	struct eq_error err;
	char sa[4200], sb[4200];
	int rc, i, n = 0, nf = 0, split, na, nb;

	rc = parse_diff_options(argc, argv, &o);
	if (rc < 0)
		return EQ_PARSE_STATUS(rc);
	split = diff_sides(&o);
	if (split < 0)
		return 2;
	nf = o.nfiles;
	na = split;
	nb = nf - split;
	if (!o.interval_given)
		o.interval = EQ_IV_RUN;
	rc = 1;
	for (n = 0; n < nf; n++) {
		if (eq_report_load(files[n], &o, &lp[n]))
			goto out;
		profs[n] = lp[n].profile;
		if (profs[n]->mode != profs[0]->mode) {
			eq_error_msg("%s is %s-driven but %s is %s-driven; diff recordings "
				"of one kind", files[n],
				profs[n]->mode == EQP_MODE_ENERGY ? "energy" : "time", files[0],
				profs[0]->mode == EQP_MODE_ENERGY ? "energy" : "time");
			n++;
			goto out;
		}
	}
	if (eq_report_check_filter(&o, lp, n))
		goto out;
	for (i = 0; i < 2; i++) {
		struct eq_profile *const *v = i ? profs + na : profs;
		int k = i ? nb : na;

		if (k == 1)
			continue;
		pool[i] = eq_profile_pool(v, (size_t)k, &err);
		if (!pool[i]) {
			eq_error_msg("%s", err.msg);
			goto out;
		}
	}
	d = eq_diff_build(profs, (size_t)na, pool[0] ? pool[0] : profs[0],
			  profs + na, (size_t)nb, pool[1] ? pool[1] : profs[na],
			  o.interval, o.per_row, &err);
	if (!d) {
		eq_error_msg("%s", err.msg);
		goto out;
	}
	side_name(sa, sizeof(sa), files, na);
	side_name(sb, sizeof(sb), files + na, nb);
	rc = energy_profiles(&o, lp, n, ep);
	if (rc < 0 || (rc == 1 && !(ed = ep_diff_build(ep, (size_t)na, ep + na, (size_t)nb, &err)))) {
		if (rc == 1)
			eq_error_msg("%s", err.msg);
		rc = 1;
		goto out;
	}
	{
		struct print_arg pa = { d, o.fmt, sa, sb, o.percent_limit, ed };

		rc = eq_report_write(&o, NULL, print_diff, &pa);
	}
out:
	ep_diff_free(ed);
	for (i = 0; i < n; i++)
		ep_free(ep[i]);
	eq_diff_free(d);
	eq_profile_free(pool[0]);
	eq_profile_free(pool[1]);
	for (i = 0; i < n; i++)
		eq_report_unload(&lp[i]);
	return rc;
}
