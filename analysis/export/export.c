/*
 * export.c - what the export formats share: the context (units per sample,
 * the samples, put in time order only for the formats that need it) and
 * counting samples per location.
 *
 * Locations come from the symbolizer's cache, one pointer per distinct
 * (pid, pc), so counting is a hash table keyed by pointer: memory follows the
 * number of distinct pcs, not of samples.
 */
#include "profile/callgraph.h"
#include "export/export.h"
#include "profile/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int export_format_parse(const char *text, enum export_format *f, struct eq_error *err)
{
	static const char *const names[] = { "callgrind", "pprof", "folded", "chrome", "csv" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(text, names[i])) {
			*f = (enum export_format)i;
			return 0;
		}
	return eq_fail(err, "--format '%s': use callgrind, pprof, folded, chrome or csv", text);
}

int export_ctx_init(struct export_ctx *x, const struct eqp_file *f,
		    struct eq_symbolizer *sym, int exclude_idle,
		    const char *creator, struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	double per;

	memset(x, 0, sizeof(*x));
	x->f = f;
	x->sym = sym;
	x->exclude_idle = exclude_idle;
	x->mode = m->mode;
	x->creator = creator;
	/* File order: only the formats that need time order sort (export_write). */
	if (power_input_from_file_unordered(&x->in, f, POWER_BASIS_AUTO, err) < 0)
		return -1;
	if (m->mode == EQP_MODE_ENERGY) {
		per = x->in.quantum_j * 1e9;
		x->unit_event = "Energy";
		x->unit_name = "nanojoules";
	} else {
		/* The same seconds per sample as `eqprof report`. */
		per = eq_profile_period_s(f) * 1e9;
		x->unit_event = "Time";
		x->unit_name = "nanoseconds";
	}
	/* Whole units: the formats want integers; 1 nJ in a 2.94 mJ quantum. */
	x->unit_per_sample = export_u64(per);
	return 0;
}

void export_ctx_free(struct export_ctx *x)
{
	power_input_free(&x->in);
}

int export_write(FILE *out, enum export_format fmt, struct export_ctx *x,
		 struct eq_error *err)
{
	int rc;

	/* The Chrome trace walks the samples twice: power, then slices. */
	x->progress_done = 0;
	x->progress_total = x->in.nsamples * (fmt == EXPORT_CHROME ? 2 : 1);
	/* The timeline and the per-sample CSV (each row's interval) walk the
	 * samples in time order; the profiles (callgrind, pprof, folded) count
	 * per location and stream the file as it is, however unordered. */
	if ((fmt == EXPORT_CHROME || fmt == EXPORT_CSV) && power_input_order(&x->in, err) < 0)
		return -1;
	switch (fmt) {
	case EXPORT_CALLGRIND: rc = export_callgrind(out, x, err); break;
	case EXPORT_PPROF: rc = export_pprof(out, x, err); break;
	case EXPORT_FOLDED: rc = export_folded(out, x, err); break;
	case EXPORT_CHROME: rc = export_chrome(out, x, err); break;
	case EXPORT_CSV: rc = export_csv(out, x, err); break;
	default: return eq_fail(err, "unknown export format %d", (int)fmt);
	}
	if (rc == 0 && x->progress)
		x->progress(x->progress_total, x->progress_total, x->progress_arg);
	return rc;
}

uint64_t export_u64(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709551615.0)   /* 2^64, the nearest double */
		return UINT64_MAX;
	return (uint64_t)nearbyint(v);
}

const char *export_proc_name(const struct eq_loc *l)
{
	if (l->kind == EQ_LOC_IDLE)
		return "[idle]";
	return l->proc ? l->proc : "[unknown]";
}

const char *export_file_name(const struct eq_loc *l)
{
	return l->file ? l->file : "???";
}

/* ---- counting per location ------------------------------------------------- */

struct loc_table {
	struct loc_count *slot;
	size_t cap, n;
};

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

static int table_grow(struct loc_table *t, struct eq_error *err)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	struct loc_count *s = calloc(cap, sizeof(*s));

	if (!s)
		return eq_fail(err, "out of memory counting %zu locations", t->n);
	for (i = 0; i < t->cap; i++) {
		size_t k;

		if (!t->slot[i].loc)
			continue;
		for (k = ptr_hash(t->slot[i].loc, cap); s[k].loc; k = (k + 1) & (cap - 1))
			;
		s[k] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	return 0;
}

static int table_add(struct loc_table *t, const struct eq_loc *l, struct eq_error *err)
{
	size_t k;

	if ((t->n + 1) * 2 > t->cap && table_grow(t, err) < 0)
		return -1;
	for (k = ptr_hash(l, t->cap); t->slot[k].loc; k = (k + 1) & (t->cap - 1))
		if (t->slot[k].loc == l) {
			t->slot[k].samples++;
			return 0;
		}
	t->slot[k].loc = l;
	t->slot[k].samples = 1;
	t->slot[k].seen = t->n++;
	return 0;
}

static int strcmp_null(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

int export_loc_count_cmp(const void *a, const void *b)
{
	const struct eq_loc *x = ((const struct loc_count *)a)->loc;
	const struct eq_loc *y = ((const struct loc_count *)b)->loc;
	int c;

	if ((c = strcmp_null(x->module, y->module)) != 0)
		return c;
	if ((c = strcmp_null(x->file, y->file)) != 0)
		return c;
	if ((c = strcmp(export_proc_name(x), export_proc_name(y))) != 0)
		return c;
	if (x->module_off != y->module_off)
		return x->module_off < y->module_off ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* one pid's address spaces before and after an exec: the same file
	 * and offset are two locations; their order is the order they were
	 * first met, not their addresses' (which differ from run to run) */
	if ((c = strcmp_null(x->exe, y->exe)) != 0)
		return c;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (((const struct loc_count *)a)->seen != ((const struct loc_count *)b)->seen)
		return ((const struct loc_count *)a)->seen < ((const struct loc_count *)b)->seen ? -1 : 1;
	return 0;
}

int export_count_locs(struct export_ctx *x, struct loc_count **out, size_t *n,
		      uint64_t *total, struct eq_error *err)
{
	struct loc_table t = { 0 };
	size_t c, i, k = 0;

	*total = 0;
	for (c = 0; c < x->in.nchunks; c++)
		for (i = 0; i < x->in.counts[c]; i++) {
			const struct eq_loc *l = eq_sym_lookup(x->sym, &x->in.chunks[c][i]);

			export_tick(x);
			if (x->exclude_idle && l->kind == EQ_LOC_IDLE)
				continue;
			if (table_add(&t, l, err) < 0) {
				free(t.slot);
				return -1;
			}
			(*total)++;
		}
	/* Compact the table into a sorted array. */
	for (i = 0; i < t.cap; i++)
		if (t.slot[i].loc)
			t.slot[k++] = t.slot[i];
	if (k)  /* t.slot is NULL when no sample was counted */
		qsort(t.slot, k, sizeof(*t.slot), export_loc_count_cmp);
	*out = t.slot;
	*n = k;
	return 0;
}

int export_stack_locs(const struct eq_stacks *st, struct loc_count **out, size_t *n,
		      struct eq_error *err)
{
	struct loc_table t = { 0 };
	size_t i, j, k = 0;

	for (i = 0; i < st->nstacks; i++)
		for (j = 0; j < st->stacks[i].depth; j++)
			if (table_add(&t, st->stacks[i].frames[j], err) < 0) {
				free(t.slot);
				return -1;
			}
	for (i = 0; i < t.cap; i++)
		if (t.slot[i].loc)
			t.slot[k++] = t.slot[i];
	if (k)
		qsort(t.slot, k, sizeof(*t.slot), export_loc_count_cmp);
	*out = t.slot;
	*n = k;
	return 0;
}

int export_find_sample(const struct power_input *in, const struct eq_sample *s, size_t *c,
		       size_t *i)
{
	uintptr_t p = (uintptr_t)s;
	size_t k;

	for (k = 0; k < in->nchunks; k++) {
		size_t j = (*c + k) % in->nchunks;  /* most often the chunk of the last one */
		uintptr_t b = (uintptr_t)in->chunks[j];

		if (in->chunks[j] && p >= b && p < b + in->counts[j] * sizeof(*s)) {
			*c = j;
			*i = (p - b) / sizeof(*s);
			return 0;
		}
	}
	return -1;
}
