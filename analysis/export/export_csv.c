/*
 * export_csv.c - every sample, in time order, with where it was and the
 * power of the interval it ends.
 *
 * Columns: time_s (since the first sample), pc (hex), pid, tid, cpu, flags,
 * exe, module, proc, file, line, interval_s, energy_j, power_w, and with
 * call chains (record -g) stack: the frames outermost first, joined by ';'
 * and named as in folded stacks (the leaf alone when a sample has no chain).
 * interval_s is the time since the previous sample; energy_j the energy the
 * sample stands for (one quantum, more after lost samples); power_w their
 * ratio.  Time-driven samples carry no energy: those columns stay empty.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/callgraph.h"
#include "export/export.h"
#include "profile/table.h"

static void stack_field(FILE *out, struct export_ctx *x, const struct eq_sample *s,
			const struct eq_loc **frames, size_t *hint)
{
	size_t c = *hint, i, depth, k;
	int chain;
	char b[600];

	if (export_find_sample(&x->in, s, &c, &i))
		return;
	*hint = c;
	depth = eq_sample_frames(x->f, x->sym, c, i, s, frames, &chain);
	for (k = depth; k-- > 0;) {
		const char *n = eq_folded_frame_name(frames[k], b, sizeof(b));

		/* the folded format's escaping: no ';' inside a name */
		for (; *n; n++) {
			if (*n == '"')
				fputc('"', out);  /* CSV: a quote doubled */
			fputc(*n == ';' ? ':' : *n, out);
		}
		if (k)
			fputc(';', out);
	}
}

static void loc_fields(FILE *out, const struct eq_loc *l)
{
	eq_csv_field(out, l->exe ? l->exe : "[unknown]");
	fputc(',', out);
	eq_csv_field(out, l->module);
	fputc(',', out);
	eq_csv_field(out, export_proc_name(l));
	fputc(',', out);
	if (l->file)
		eq_csv_field(out, l->file);
	fputc(',', out);
	if (l->line)
		fprintf(out, "%u", l->line);
}

static uint32_t quanta_of(const struct eq_sample *s, const struct eq_sample *prev)
{
	if (prev && (s->flags & EQ_F_LOST) && s->seq - prev->seq > 1 &&
	    s->seq - prev->seq < (1u << 24))
		return s->seq - prev->seq;
	return 1;
}

int export_csv(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	const struct eq_sample *s, *prev = NULL;
	int energy = x->mode == EQP_MODE_ENERGY && x->in.quantum_j > 0;
	struct power_iter it;
	uint64_t t0 = 0;
	int chains = eqp_has_callchains(x->f);
	const struct eq_loc **frames = NULL;
	size_t hint = 0;

	if (chains && !(frames = malloc((1 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*frames))))
		return eq_fail(err, "out of memory");
	fprintf(out, "time_s,pc,pid,tid,cpu,flags,exe,module,proc,file,line,interval_s,energy_j,"
		"power_w%s\n", chains ? ",stack" : "");
	power_iter_init(&it, &x->in);
	while ((s = power_iter_sample(&it))) {
		const struct eq_loc *l = eq_sym_lookup(x->sym, s);
		double dt = prev ? (double)(s->time - prev->time) / x->in.clock_hz : 0;
		double e = x->in.quantum_j * quanta_of(s, prev);

		export_tick(x);
		if (!prev)
			t0 = s->time;
		if (!(x->exclude_idle && l->kind == EQ_LOC_IDLE)) {
			fprintf(out, "%.9f,0x%llx,%u,%u,%u,0x%x,", (double)(s->time - t0) / x->in.clock_hz,
				(unsigned long long)s->pc, s->pid, s->tid, s->cpu, s->flags);
			loc_fields(out, l);
			fputc(',', out);
			if (prev)
				fprintf(out, "%.9f", dt);
			fputc(',', out);
			if (energy)
				fprintf(out, "%.9g", e);
			fputc(',', out);
			if (energy && dt > 0)
				fprintf(out, "%.9g", e / dt);
			if (chains) {
				/* names with a comma or quote: the whole field quoted */
				fputs(",\"", out);
				stack_field(out, x, s, frames, &hint);
				fputc('"', out);
			}
			fputc('\n', out);
		}
		prev = s;
	}
	free(frames);
	return ferror(out) ? eq_fail(err, "writing the sample CSV failed") : 0;
}
