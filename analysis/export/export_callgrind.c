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
 * No calls: samples carry the interrupted pc only, so costs are exclusive.
 */
#include "export.h"

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
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int export_callgrind(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	const char *ob = NULL, *fn = NULL, *home = NULL, *cur = NULL;
	struct loc_count *lc;
	uint64_t total;
	size_t i, n;

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
