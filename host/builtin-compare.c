/*
 * builtin-compare.c - eqprof compare: where time and energy part ways.
 *
 *   eqprof compare TIME.eqp ENERGY.eqp [--by G] [--exclude-idle]
 *                  [--interval sampling|run-to-run]
 *                  [--format table|csv|json] [--symfs DIR] [-o OUT]
 *
 * Two recordings of separate runs differ by more than their sampling: the
 * test uses run-to-run variances, unless both recordings say they are two
 * samplings of one run (the simulator writes both from one execution).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "compare.h"
#include "eprofile.h"
#include "power.h"
#include "report_common.h"
#include "report_energy.h"

static const char usage_text[] =
	"usage: eqprof compare TIME.eqp ENERGY.eqp [--by exe|module|proc|line|insn|state|exe,state...]\n"
	"                      [--exclude-idle] [--format table|csv|json] [--symfs DIR] [-o OUT] [-q]\n"
	"\n"
	"Time share and energy share of every row side by side, their difference and\n"
	"whether it is significant at 95%; ordered by time share.\n"
	"\n"
	"  --interval I      variances of the test: run-to-run (two separate runs; the\n"
	"                    default) or sampling (two samplings of one run; the default\n"
	"                    when both recordings come from one simulated run)\n";

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

static int check_modes(const struct eq_loaded_profile *t, const struct eq_loaded_profile *e,
		       const struct eq_report_opts *o)
{
	if (eqp_meta(t->file)->mode != EQP_MODE_TIME) {
		fprintf(stderr, "eqprof compare: %s is not a time-driven recording; "
			"give the time-driven one first: compare TIME.eqp ENERGY.eqp\n", o->files[0]);
		return -1;
	}
	if (eqp_meta(e->file)->mode != EQP_MODE_ENERGY) {
		fprintf(stderr, "eqprof compare: %s is not an energy-driven recording; "
			"give the energy-driven one second: compare TIME.eqp ENERGY.eqp\n", o->files[1]);
		return -1;
	}
	return 0;
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
		fprintf(stderr, "eqprof compare: note: %s has energy readings, but joules per row are given "
			"--by exe, module, proc or line without --sort; compared without them\n", o->files[0]);
		return 0;
	}
	*ep = ep_build(t->file, t->sym, o->by, o->exclude_idle, &err);
	if (!*ep) {
		fprintf(stderr, "eqprof compare: %s\n", err.msg);
		return -1;
	}
	for (i = 0; i < (*ep)->ndomains; i++)
		if (eq_comparison_add_domain(c, (*ep)->domains[i].name, row_joules, &(*ep)->domains[i]) < 0) {
			fprintf(stderr, "eqprof compare: %s: more than %d energy domains, or out of memory\n",
				o->files[0], EQ_CMP_MAX_DOMAINS);
			return -1;
		}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct eq_loaded_profile t, e;
	struct eq_report_opts o;
	struct print_arg pa;
	int rc;

	rc = eq_report_parse_args("compare", usage_text, argc, argv, 2, &o);
	if (rc != EQ_ARGS_OK)
		return rc == EQ_ARGS_HELP ? 0 : 2;
	if (eq_report_load("compare", o.files[0], &o, &t))
		return 1;
	if (eq_report_load("compare", o.files[1], &o, &e)) {
		eq_report_unload(&t);
		return 1;
	}
	rc = 1;
	struct eq_loaded_profile both[2] = { t, e };

	if (check_modes(&t, &e, &o) == 0 && eq_report_check_filter("compare", &o, both, 2) == 0) {
		if (!o.interval_given)
			o.interval = same_run(t.file, e.file) ? EQ_IV_SAMPLING : EQ_IV_RUN;
		pa.c = eq_compare(t.profile, e.profile, o.files[0], o.files[1], o.interval);
		pa.fmt = o.fmt;
		if (!pa.c) {
			fputs("eqprof compare: out of memory\n", stderr);
		} else {
			struct ep_profile *ep = NULL;

			add_power((struct eq_comparison *)pa.c, &t, &e);
			eq_comparison_set_quantum((struct eq_comparison *)pa.c, eqp_meta(e.file)->quantum_j);
			if (add_source_joules((struct eq_comparison *)pa.c, &t, &o, &ep) == 0)
				rc = eq_report_write("compare", &o, NULL, print_cmp, &pa);
			ep_free(ep);
		}
		eq_comparison_free((struct eq_comparison *)pa.c);
	}
	eq_report_unload(&e);
	eq_report_unload(&t);
	return rc;
}
