/*
 * builtin-report-attrib.c - `eqprof report --attribute async`: the energy
 * profile with device energy moved from the samples that happened to run to
 * the code whose requests caused it (seed 000, eprof; analysis/attrib).
 * docs/guide.md is the user's reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/attrib.h"
#include "builtin.h"
#include "cmd.h"
#include "report_common.h"

#define MAX_MODELS 64

struct print_arg {
	const struct eq_attrib *a;
	const char *source;
	enum eq_format fmt;
};

static void print_attrib(FILE *out, const void *arg)
{
	const struct print_arg *p = arg;

	eq_attrib_print(out, p->a, p->source, p->fmt);
}

/* o: report's options (its table has --attribute's too); models: the
 * --device-model files. */
int cmd_report_attribute(const struct eq_report_opts *o, const struct eq_paths *models)
{
	static struct eq_devmodel model[MAX_MODELS];
	enum eq_by by = o->by_given ? o->by : EQ_BY_EXE;
	const char *file = o->files[0];
	size_t nmodels = 0, i;
	struct eq_error err;
	struct eq_one one;
	struct eq_attrib *a = NULL;
	int rc = 1;

	if (by != EQ_BY_EXE && by != EQ_BY_PID && by != EQ_BY_PROC) {
		eq_error_msg("--attribute async groups by exe, pid or proc\n"
			"'eqprof report --attribute async --help' lists its options");
		return 2;
	}
	for (i = 0; i < models->n; i++)
		if (eq_devmodel_read(models->v[i], model, MAX_MODELS, &nmodels, &err) < 0) {
			eq_error_msg("%s", err.msg);
			return 1;
		}
	eq_one_init(&one);
	one.fmt = o->fmt;
	one.out = o->out;
	one.so.symfs = o->symfs;
	if (eq_one_open(&one, file) == 0) {
		a = eq_attrib_build(one.f, one.s, by, model, nmodels, &err);
		if (!a) {
			eq_error_msg("%s", err.msg);
		} else {
			struct print_arg pa = { a, file, one.fmt };

			rc = eq_one_write(&one, print_attrib, &pa);
		}
	}
	eq_attrib_free(a);
	eq_one_close(&one);
	return rc;
}
