/*
 * export_folded.c - folded stacks ("frame;frame;frame COUNT" per line), the
 * input of flamegraph.pl, speedscope and inferno.
 *
 * A recording with call chains (record -g) gives real stacks:
 * exe;outermost caller;...;leaf, one line per distinct stack.  Without
 * them a stack is exe;module;proc: the flame graph's first level is the
 * process, then its modules, then their procedures.  COUNT is the number of samples: in an energy-driven
 * recording each is one quantum, so widths are shares of energy.  ';' in a
 * name becomes ':' (it separates frames).
 */
#include "export/export.h"
#include "profile/callgraph.h"

#include <stdlib.h>
#include <string.h>

/* A recording with call chains: one line per distinct call stack,
 * exe;outermost caller;...;leaf (callgraph.h). */
static int folded_stacks(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	struct eq_stacks *st = eq_stacks_build(x->f, x->sym,
					       x->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0, err);
	int rc;

	if (!st)
		return -1;
	rc = eq_stacks_write_folded(out, st, err);
	eq_stacks_free(st);
	return rc;
}

int export_folded(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	struct loc_count *lc;
	struct eq_folded *fo;
	uint64_t total;
	size_t i, n;

	if (eqp_has_callchains(x->f))
		return folded_stacks(out, x, err);
	if (export_count_locs(x, &lc, &n, &total, err) < 0)
		return -1;
	fo = calloc(n ? n : 1, sizeof(*fo));
	if (!fo) {
		free(lc);
		return eq_fail(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct eq_loc *l = lc[i].loc;
		size_t len = 0, cap = 0;

		fo[i].samples = lc[i].samples;
		if (eq_folded_put(&fo[i].key, &len, &cap, l->exe ? l->exe : "[unknown]", 0) ||
		    eq_folded_put(&fo[i].key, &len, &cap, l->module_base ? l->module_base : l->module, 1) ||
		    eq_folded_put(&fo[i].key, &len, &cap, export_proc_name(l), 1)) {
			eq_folded_free(fo, i + 1);
			free(lc);
			return eq_fail(err, "out of memory");
		}
	}
	free(lc);
	return eq_folded_write(out, fo, n, err);
}
