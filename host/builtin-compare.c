/*
 * builtin-compare.c - eqprof compare: where time and energy part ways.
 *
 *   eqprof compare [options] TIME.eqp ENERGY.eqp
 *   eqprof compare [options] T1.eqp T2.eqp... vs E1.eqp E2.eqp...
 *
 * Two recordings of separate runs differ by more than their sampling: the
 * test uses run-to-run variances, unless both recordings say they are two
 * samplings of one run (the simulator writes both from one execution).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "profile/compare.h"
#include "energy/eprofile.h"
#include "power/power.h"
#include "report_common.h"
#include "report_energy.h"

static const char compare_usage[] =
	"eqprof compare [options] TIME.eqp ENERGY.eqp\n"
	"eqprof compare [options] T1.eqp T2.eqp... vs E1.eqp E2.eqp...\n";

static const char compare_about[] =
	"Time share and energy share of every row side by side, their difference and\n"
	"whether it is significant at 95%; ordered by time share.  Several\n"
	"recordings of repeated runs on a side (time-driven before 'vs', energy-driven\n"
	"after) are pooled: shares of all their samples, joules per run, and the\n"
	"test's variances from the spread between the runs.\n";

/* compare's options into o; the recordings named (and 'vs') are left in
 * argv[0..n); n, or EQ_PARSE_HELP/ERROR. */
static int parse_compare_options(int argc, char **argv, struct eq_report_opts *o)
{
	const struct eq_option options[] = {
		EQ_ROPT_BY(o, "rows by exe, module, proc (default), line, insn, pid or\n"
			      "thread, or split by state as in report (--by exe,state)"),
		EQ_ROPT_TWO_SIDES(o),
		{ .type = EQ_OPTION_FLAG, .long_name = "exclude-idle", .value = &o->exclude_idle,
		  .defval = 1, .help = "leave idle samples out and renormalize the shares" },
		EQ_ROPT_INTERVAL(o, "variances of the test: run-to-run (two separate runs; the\n"
				    "default) or sampling (two samplings of one run; the default\n"
				    "when both recordings come from one simulated run)"),
		EQ_ROPT_FILES_OUT(o),
		OPT_QUIET(&o->quiet, "no progress line and no note on pooled runs"),
		OPT_VERBOSE(&o->verbose, "notes in full: why samples have no symbol, a balanced\n"
					 "board cross-check"),
		OPT_END(),
	};
	const struct eq_command cmd = { .name = "compare", .usage = compare_usage,
					.about = compare_about, .options = options };
	int n;

	eq_report_opts_init(o);
	n = eq_parse_options(&cmd, argc, argv, NULL);
	if (n < 0)
		return n;
	return eq_report_args(&cmd, n, argv, 0, o) ? EQ_PARSE_ERROR : n;
}

/* Both recordings written from one simulated execution (eqprof sim). */
static int same_run(const struct eqp_file *a, const struct eqp_file *b)
{
	static const char *const keys[] = { "simulator", "scenario", "scenario_file", "seed" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *x = eqp_meta_get(a, keys[i]), *y = eqp_meta_get(b, keys[i]);

		if (!x || !y || strcmp(x, y))
			return 0;
	}
	return 1;
}

struct print_arg {
	const struct eq_comparison *c;
	enum eq_format fmt;
};

static void print_cmp(FILE *out, const void *arg)
{
	const struct print_arg *a = arg;

	eq_comparison_print(out, a->c, a->fmt);
}

/* Time-driven recordings before 'vs', energy-driven ones after. */
static int check_mode(const struct eq_loaded_profile *p, const struct eq_report_opts *o, int i,
		      int time_side)
{
	enum eqp_mode want = time_side ? EQP_MODE_TIME : EQP_MODE_ENERGY;

	if (eqp_meta(p->file)->mode == want)
		return 0;
	eq_error_msg("%s is not %s recording; give the time-driven recording%s "
		"first, then the energy-driven one%s: compare TIME.eqp ENERGY.eqp, or T1.eqp T2.eqp "
		"vs E1.eqp E2.eqp", o->files[i], time_side ? "a time-driven" : "an energy-driven",
		"(s)", "(s)");
	return -1;
}

/* Average power per row needs a known quantum; without one, rows just have no power. */
static void add_power(struct eq_comparison *c, const struct eq_loaded_profile *t,
		      const struct eq_loaded_profile *e)
{
	struct power_row_ctx pctx;
	struct eq_error err;

	if (power_row_context(t->file, e->file, &pctx, &err) == 0)
		eq_comparison_set_power(c, &pctx);
}

static double row_joules(const void *arg, const char *name, const char *module)
{
	const struct ep_domain *d = arg;
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (!d->rows[i].unsampled && !strcmp(d->rows[i].name, name) &&
		    !strcmp(d->rows[i].module, module))
			return d->rows[i].joules;
	return NAN;
}

/* The time recording was read with an energy source (record -t --energy):
 * each row's joules per domain beside the shares.  *ep is what they point
 * into; 0, or -1 after a message. */
static int add_source_joules(struct eq_comparison *c, const struct eq_loaded_profile *t,
			     const struct eq_report_opts *o, struct ep_profile **ep)
{
	struct eq_error err;
	size_t i;

	*ep = NULL;
	if (!eq_report_has_energy(t, 1))
		return 0;
	if (o->keys.n || (o->by != EQ_BY_EXE && o->by != EQ_BY_MODULE && o->by != EQ_BY_PROC &&
			  o->by != EQ_BY_LINE)) {
		eq_error_msg("note: %s has energy readings, but joules per row are given "
			"--by exe, module, proc or line without --sort; compared without them", o->files[0]);
		return 0;
	}
	*ep = ep_build(t->file, t->sym, o->by, o->exclude_idle, &err);
	if (!*ep) {
		eq_error_msg("%s", err.msg);
		return -1;
	}
	for (i = 0; i < (*ep)->ndomains; i++)
		if (eq_comparison_add_domain(c, (*ep)->domains[i].name, row_joules, &(*ep)->domains[i]) < 0) {
			eq_error_msg("%s: more than %d energy domains, or out of memory",
				o->files[0], EQ_CMP_MAX_DOMAINS);
			return -1;
		}
	return 0;
}

static void side_name(char *buf, size_t n, const char *const *files, int nf)
{
	if (nf == 1)
		snprintf(buf, n, "%s", files[0]);
	else
		snprintf(buf, n, "%s and %d more (%d runs)", files[0], nf - 1, nf);
}

/* compare T.eqp E.eqp, or T1... vs E1...: the files in order, and where
 * the energy-driven side starts; -1 after a message. */
static int split_sides(struct eq_report_opts *o)
{
	return eq_report_split_vs(o,
				  "give the time-driven recordings, vs, the energy-driven ones",
				  "give two recordings, a time-driven and an energy-driven one "
				  "(TIME.eqp ENERGY.eqp), or several of each separated by 'vs' "
				  "(T1.eqp T2.eqp vs E1.eqp E2.eqp)",
				  "; with more than two, 'vs' says where the energy-driven ones start");
}

int cmd_compare(int argc, char **argv)
{
	struct eq_loaded_profile lp[EQ_REPORT_MAX_FILES];
	struct eq_profile *profs[EQ_REPORT_MAX_FILES], *pool[2] = { NULL, NULL };
	const struct eq_profile *side[2];
	struct eq_report_opts o;
	struct print_arg pa = { NULL, EQ_FMT_TABLE };
	struct ep_profile *ep = NULL;
	struct eq_error err;
	char st[4200], se[4200];
	int rc, i, n = 0, nt, ne;

	rc = parse_compare_options(argc, argv, &o);
	if (rc < 0)
		return EQ_PARSE_STATUS(rc);
	nt = split_sides(&o);
	if (nt < 0)
		return 2;
	ne = o.nfiles - nt;
	rc = 1;
	for (n = 0; n < o.nfiles; n++) {
		if (eq_report_load(o.files[n], &o, &lp[n]))
			goto out;
		profs[n] = lp[n].profile;
	}
	for (i = 0; i < n; i++)
		if (check_mode(&lp[i], &o, i, i < nt) < 0)
			goto out;
	if (eq_report_check_filter(&o, lp, n))
		goto out;
	for (i = 0; i < 2; i++) {
		struct eq_profile *const *v = i ? profs + nt : profs;
		int k = i ? ne : nt;

		side[i] = v[0];
		if (k == 1)
			continue;
		pool[i] = eq_profile_pool(v, (size_t)k, &err);
		if (!pool[i]) {
			eq_error_msg("%s", err.msg);
			goto out;
		}
		side[i] = pool[i];
	}
	if (!o.interval_given)
		o.interval = nt == 1 && ne == 1 && same_run(lp[0].file, lp[1].file) ? EQ_IV_SAMPLING : EQ_IV_RUN;
	side_name(st, sizeof(st), o.files, nt);
	side_name(se, sizeof(se), o.files + nt, ne);
	pa.c = eq_compare(side[0], side[1], st, se, o.interval);
	pa.fmt = o.fmt;
	if (!pa.c) {
		eq_error_msg("out of memory");
		goto out;
	}
	if (nt == 1 && ne == 1) {
		add_power((struct eq_comparison *)pa.c, &lp[0], &lp[1]);
		eq_comparison_set_quantum((struct eq_comparison *)pa.c, eqp_meta(lp[1].file)->quantum_j);
		if (add_source_joules((struct eq_comparison *)pa.c, &lp[0], &o, &ep) < 0)
			goto out;
	} else {
		/* pooled energy samples over ne runs: joules per run */
		eq_comparison_set_quantum((struct eq_comparison *)pa.c, eqp_meta(lp[nt].file)->quantum_j / ne);
		eq_note("%d time-driven and %d energy-driven runs pooled; joules "
			"are per run; rows have no average power (it needs one run of each)", nt, ne);
	}
	rc = eq_report_write(&o, NULL, print_cmp, &pa);
out:
	ep_free(ep);
	eq_comparison_free((struct eq_comparison *)pa.c);
	eq_profile_free(pool[0]);
	eq_profile_free(pool[1]);
	for (i = 0; i < n; i++)
		eq_report_unload(&lp[i]);
	return rc;
}
