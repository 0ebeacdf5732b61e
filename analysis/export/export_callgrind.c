/*
 * export_callgrind.c - the callgrind profile format (valgrind's
 * docs/callgrind-format), read by callgrind_annotate and KCachegrind.
 *
 * positions: instr line   the instruction is the pc's offset in its module
 *                         file (pc - map start + map offset), the line its
 *                         DWARF source line (0 when unknown)
 * events: Energy_nJ Samples  energy in nanojoules (time-driven: Time_ns)
 * ob= module path, fl= the procedure's own source file ("???" unknown),
 * fn= procedure; a cost line whose source line is in another file (code
 * inlined from a header or another function) is preceded by fi=FILE, and
 * fe=FILE returns to the procedure's own, so one function stays one block
 * whatever it inlined.
 * With call chains (record -g): a call edge per call site and callee,
 * after the call site's own cost line:
 *   cob=, cfi=, cfn=   the callee's module, file and procedure
 *   calls=N ENTRY 0    N: samples that went through this call (a sampled
 *                      profile knows no call counts), ENTRY: the callee's
 *                      entry offset
 *   SITE LINE COST     the call instruction (return address - 1) and the
 *                      inclusive cost of the samples below it
 * Without call chains costs are exclusive (self) only.
 */
#include "profile/callgraph.h"
#include "export/export.h"

#include <stdlib.h>
#include <string.h>

/* callgrind names run to the end of the line: keep them on one line. */
static void name_line(FILE *out, const char *key, const char *name)
{
	fputs(key, out);
	for (; *name; name++)
		fputc(*name == '\n' || *name == '\r' ? ' ' : *name, out);
	fputc('\n', out);
}

static void header(FILE *out, const struct export_ctx *x, uint64_t total)
{
	const struct eqp_meta *m = eqp_meta(x->f);
	uint64_t cost = total * x->unit_per_sample;
	char sk[160];

	fprintf(out, "# callgrind format\nversion: 1\ncreator: %s\n", x->creator);
	fprintf(out, "cmd: %s\npart: 1\n", eqp_path(x->f));
	if (x->mode == EQP_MODE_ENERGY)
		fprintf(out, "desc: Recording: energy-driven, %llu nJ per sample\n",
			(unsigned long long)x->unit_per_sample);
	else
		fprintf(out, "desc: Recording: time-driven, %llu ns per sample\n",
			(unsigned long long)x->unit_per_sample);
	if (m->target && *m->target)
		name_line(out, "desc: Target: ", m->target);
	if (x->in.skipped.chunks || x->in.skipped.bytes || x->in.skipped.truncated)
		fprintf(out, "desc: Skipped: %s\n",
			eqp_skipped_line(&x->in.skipped, sk, sizeof(sk)));
	/* The unit goes into the event name: callgrind_annotate refuses the
	 * format's "event:" long-name lines. */
	fprintf(out, "positions: instr line\nevents: %s Samples\n",
		x->mode == EQP_MODE_ENERGY ? "Energy_nJ" : "Time_ns");
	fprintf(out, "summary: %llu %llu\ntotals: %llu %llu\n\n",
		(unsigned long long)cost, (unsigned long long)total,
		(unsigned long long)cost, (unsigned long long)total);
}

/* By module, procedure, then offset: a function's lines together. */
static int by_module_proc(const void *a, const void *b)
{
	const struct eq_loc *x = ((const struct loc_count *)a)->loc;
	const struct eq_loc *y = ((const struct loc_count *)b)->loc;
	int c;

	if ((c = strcmp(x->module ? x->module : "", y->module ? y->module : "")) != 0)
		return c;
	if ((c = strcmp(export_proc_name(x), export_proc_name(y))) != 0)
		return c;
	if (x->module_off != y->module_off)
		return x->module_off < y->module_off ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* the rest (a pid's address spaces around an exec) in the order they
	 * were met: qsort is not stable, and their addresses vary by run */
	return export_loc_count_cmp(a, b);
}

/* ---- with call chains ------------------------------------------------------ */

struct cg_loc {
	const struct eq_loc *loc;
	uint64_t seen;              /* as its struct loc_count's */
	uint64_t self;
	size_t edge0, nedges;       /* its edges in the sorted edge array */
};

struct cg_edge {
	size_t caller;              /* index in the sorted cg_loc array */
	const struct eq_loc *callee; /* a frame of the callee (its name, module) */
	uint64_t samples;
};

static int by_loc_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct cg_loc *)a)->loc;
	uintptr_t y = (uintptr_t)((const struct cg_loc *)b)->loc;

	return (x > y) - (x < y);
}

static int by_cg_module_proc(const void *a, const void *b)
{
	struct loc_count x = { ((const struct cg_loc *)a)->loc, 0, ((const struct cg_loc *)a)->seen };
	struct loc_count y = { ((const struct cg_loc *)b)->loc, 0, ((const struct cg_loc *)b)->seen };

	return by_module_proc(&x, &y);
}

static int by_edge(const void *a, const void *b)
{
	const struct cg_edge *x = a, *y = b;
	int c;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if ((c = strcmp(x->callee->module, y->callee->module)) != 0)
		return c;
	return strcmp(export_proc_name(x->callee), export_proc_name(y->callee));
}

static const char *home_file(struct export_ctx *x, const struct eq_loc *l)
{
	const char *home = eq_sym_proc_file(x->sym, l);

	return home ? home : export_file_name(l);
}

static uint64_t entry_of(const struct eq_loc *l)
{
	return l->kind == EQ_LOC_RESOLVED && l->proc_off <= l->module_off ?
	       l->module_off - l->proc_off : l->module_off;
}

/* Self counts into v, caller-callee edges into e (sorted by caller, equal ones
 * merged, each caller's first edge and count in v). */
static void cg_count(const struct eq_stacks *st, struct cg_loc *v, const struct cg_loc *byp,
		       size_t n, struct cg_edge *e)
{
	size_t ne = 0, i, j, k;

	for (i = 0; i < st->nstacks; i++) {
		const struct eq_stack *sk = &st->stacks[i];

		for (k = 0; k < sk->depth; k++) {
			struct cg_loc key = { .loc = sk->frames[k] };
			const struct cg_loc *f = bsearch(&key, byp, n, sizeof(*byp), by_loc_ptr);

			if (!f)
				continue;
			if (k == 0)
				v[f->edge0].self += sk->samples;
			else
				e[ne++] = (struct cg_edge){ f->edge0, sk->frames[k - 1], sk->samples };
		}
	}
	if (ne)
		qsort(e, ne, sizeof(*e), by_edge);
	/* merge equal (caller, callee) edges */
	for (i = 0, j = 0; i < ne; i++) {
		if (j && e[j - 1].caller == e[i].caller && !by_edge(&e[j - 1], &e[i]))
			e[j - 1].samples += e[i].samples;
		else
			e[j++] = e[i];
	}
	ne = j;
	for (i = 0; i < ne; i++) {
		if (!v[e[i].caller].nedges)
			v[e[i].caller].edge0 = i;
		v[e[i].caller].nedges++;
	}
}

/* The callgrind body: per location its ob/fl/fn/fi lines, self cost and calls. */
static void cg_write(FILE *out, struct export_ctx *x, const struct cg_loc *v, size_t n,
		     const struct cg_edge *e)
{
	const char *ob = NULL, *fn = NULL, *home = NULL, *cur = NULL;
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct eq_loc *l = v[i].loc;
		const char *proc = export_proc_name(l), *file = export_file_name(l);
		int new_ob = !ob || strcmp(ob, l->module) != 0;

		if (new_ob)
			name_line(out, "ob=", l->module);
		if (new_ob || strcmp(fn, proc) != 0) {
			home = home_file(x, l);
			name_line(out, "fl=", home);
			name_line(out, "fn=", proc);
			cur = home;
		}
		if (strcmp(cur, file) != 0) {
			name_line(out, strcmp(file, home) ? "fi=" : "fe=", file);
			cur = file;
		}
		ob = l->module;
		fn = proc;
		if (v[i].self)
			fprintf(out, "0x%llx %u %llu %llu\n", (unsigned long long)l->module_off, l->line,
				(unsigned long long)(v[i].self * x->unit_per_sample),
				(unsigned long long)v[i].self);
		for (k = v[i].edge0; k < v[i].edge0 + v[i].nedges; k++) {
			const struct eq_loc *c = e[k].callee;

			name_line(out, "cob=", c->module);
			name_line(out, "cfi=", home_file(x, c));
			name_line(out, "cfn=", export_proc_name(c));
			fprintf(out, "calls=%llu 0x%llx 0\n", (unsigned long long)e[k].samples,
				(unsigned long long)entry_of(c));
			fprintf(out, "0x%llx %u %llu %llu\n", (unsigned long long)l->module_off, l->line,
				(unsigned long long)(e[k].samples * x->unit_per_sample),
				(unsigned long long)e[k].samples);
		}
	}
}

static int callgrind_stacks(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	struct eq_stacks *st = eq_stacks_build(x->f, x->sym,
					       x->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0, err);
	struct loc_count *lc = NULL;
	struct cg_loc *v = NULL, *byp = NULL;
	struct cg_edge *e = NULL;
	size_t n = 0, nemax = 0, i;
	int rc = -1;

	if (!st || export_stack_locs(st, &lc, &n, err) < 0)
		goto out;
	for (i = 0; i < st->nstacks; i++)
		nemax += st->stacks[i].depth - 1;
	v = calloc(n ? n : 1, sizeof(*v));
	byp = calloc(n ? n : 1, sizeof(*byp));
	e = calloc(nemax ? nemax : 1, sizeof(*e));
	if (!v || !byp || !e) {
		eq_fail(err, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		v[i].loc = lc[i].loc;
		v[i].seen = lc[i].seen;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_cg_module_proc);
	/* byp: by pointer, edge0 holding the index in v */
	for (i = 0; i < n; i++)
		byp[i] = (struct cg_loc){ .loc = v[i].loc, .edge0 = i };
	if (n)
		qsort(byp, n, sizeof(*byp), by_loc_ptr);
	cg_count(st, v, byp, n, e);
	header(out, x, st->total_samples);
	cg_write(out, x, v, n, e);
	rc = ferror(out) ? eq_fail(err, "writing the callgrind profile failed") : 0;
out:
	free(v);
	free(byp);
	free(e);
	free(lc);
	eq_stacks_free(st);
	return rc;
}

int export_callgrind(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	const char *ob = NULL, *fn = NULL, *home = NULL, *cur = NULL;
	struct loc_count *lc;
	uint64_t total;
	size_t i, n;

	if (eqp_has_callchains(x->f))
		return callgrind_stacks(out, x, err);
	if (export_count_locs(x, &lc, &n, &total, err) < 0)
		return -1;
	if (n)
		qsort(lc, n, sizeof(*lc), by_module_proc);
	header(out, x, total);
	for (i = 0; i < n; i++) {
		const struct eq_loc *l = lc[i].loc;
		const char *proc = export_proc_name(l), *file = export_file_name(l);
		int new_ob = !ob || strcmp(ob, l->module) != 0;

		if (new_ob)
			name_line(out, "ob=", l->module);
		if (new_ob || strcmp(fn, proc) != 0) {
			/* the function's own file: where its entry is */
			home = eq_sym_proc_file(x->sym, l);
			if (!home)
				home = file;
			name_line(out, "fl=", home);
			name_line(out, "fn=", proc);
			cur = home;
		}
		if (strcmp(cur, file) != 0) {
			name_line(out, strcmp(file, home) ? "fi=" : "fe=", file);
			cur = file;
		}
		ob = l->module;
		fn = proc;
		fprintf(out, "0x%llx %u %llu %llu\n", (unsigned long long)l->module_off,
			l->line, (unsigned long long)(lc[i].samples * x->unit_per_sample),
			(unsigned long long)lc[i].samples);
	}
	free(lc);
	return ferror(out) ? eq_fail(err, "writing the callgrind profile failed") : 0;
}
