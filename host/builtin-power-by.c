/*
 * builtin-power-by.c - `eqprof power --by proc`: the device's power while
 * each procedure runs, fitted by regression over the board's intervals
 * (seed 002; analysis/regress).  docs/power.md is the user's reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/attrib.h"
#include "builtin.h"
#include "cmd.h"
#include "power_by.h"
#include "regress/regress.h"
#include "report_common.h"

struct print_arg {
	const struct eq_regress *r;
	const char *source;
	enum eq_format fmt;
};

static void print_fit(FILE *out, const void *arg)
{
	const struct print_arg *p = arg;

	eq_regress_print(out, p->r, p->source, p->fmt);
}

void power_by_init(struct power_by_args *by)
{
	memset(by, 0, sizeof(*by));
	eq_regress_opts_default(&by->ro);
}

int power_by_opt_primes(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_regress_opts *o = opt->value;
	char *end;

	o->min_prime = (unsigned)strtoul(arg, &end, 10);
	if (*end != ':' || (o->max_prime = (unsigned)strtoul(end + 1, &end, 10), *end) ||
	    o->min_prime < 2 || o->max_prime < o->min_prime || o->max_prime > 10000)
		return eq_fail(err, "--primes: give MIN:MAX, 2 <= MIN <= MAX <= 10000 (e.g. 7:61)");
	return 0;
}

int power_by_opt_seed(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_regress_opts *o = opt->value;
	char *end;

	o->seed = strtoull(arg, &end, 10);
	if (*end || end == arg)
		return eq_fail(err, "--seed: give a whole number");
	return 0;
}

int power_by_opt_min_share(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_regress_opts *o = opt->value;
	char *end;

	o->min_share = strtod(arg, &end) / 100;
	if (end == arg || (*end && strcmp(end, "%")) || !(o->min_share >= 0 && o->min_share < 1))
		return eq_fail(err, "--min-share: give a percentage from 0 to 100");
	return 0;
}

int cmd_power_by(const struct power_by_args *by, const char *file, enum eq_format fmt,
		 const char *out)
{
	static struct eq_devmodel models[64];
	struct eq_regress_opts o = by->ro;
	struct eq_one one;
	struct eq_error err;
	struct eq_regress *r = NULL;
	size_t i;
	int rc = 1;

	for (i = 0; i < by->models.n; i++) {
		if (eq_devmodel_read(by->models.v[i], models, 64, &o.nmodels, &err) < 0) {
			eq_error_msg("%s", err.msg);
			return 1;
		}
		o.models = models;
	}
	eq_one_init(&one);
	one.fmt = fmt;
	one.out = out;
	one.so.symfs = by->symfs;
	if (eq_one_open(&one, file) == 0) {
		r = eq_regress_fit(one.f, one.s, &o, &err);
		if (!r) {
			eq_error_msg("%s", err.msg);
		} else {
			struct print_arg pa = { r, file, one.fmt };

			rc = eq_one_write(&one, print_fit, &pa);
			if (rc == 0 && r->warning[0] && one.out)
				eq_warn("%s", r->warning);
		}
	}
	eq_regress_free(r);
	eq_one_close(&one);
	return rc;
}
