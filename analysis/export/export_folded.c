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

struct stack {
	char *key;
	uint64_t samples;
};

static void append_frame(char *dst, size_t size, size_t *len, const char *name, int last)
{
	for (; *name && *len + 2 < size; name++)
		dst[(*len)++] = *name == ';' ? ':' : (*name == '\n' ? ' ' : *name);
	if (!last && *len + 2 < size)
		dst[(*len)++] = ';';
	dst[*len] = '\0';
}

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct stack *)a)->key, ((const struct stack *)b)->key);
}

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
	struct stack *st;
	uint64_t total;
	size_t i, n, k;
	char key[1024];

	if (eqp_has_callchains(x->f))
		return folded_stacks(out, x, err);
	if (export_count_locs(x, &lc, &n, &total, err) < 0)
		return -1;
	st = calloc(n ? n : 1, sizeof(*st));
	if (!st) {
		free(lc);
		return eq_fail(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct eq_loc *l = lc[i].loc;
		size_t len = 0;

		append_frame(key, sizeof(key), &len, l->exe ? l->exe : "[unknown]", 0);
		append_frame(key, sizeof(key), &len, l->module_base ? l->module_base : l->module, 0);
		append_frame(key, sizeof(key), &len, export_proc_name(l), 1);
		st[i].key = strdup(key);
		st[i].samples = lc[i].samples;
		if (!st[i].key) {
			n = i;
			goto oom;
		}
	}
	qsort(st, n, sizeof(*st), cmp_stack);
	for (i = 0; i < n; i = k) {
		uint64_t sum = 0;

		for (k = i; k < n && !strcmp(st[k].key, st[i].key); k++)
			sum += st[k].samples;
		fprintf(out, "%s %llu\n", st[i].key, (unsigned long long)sum);
	}
	for (i = 0; i < n; i++)
		free(st[i].key);
	free(st);
	free(lc);
	return ferror(out) ? eq_fail(err, "writing the folded stacks failed") : 0;
oom:
	for (i = 0; i < n; i++)
		free(st[i].key);
	free(st);
	free(lc);
	return eq_fail(err, "out of memory");
}
