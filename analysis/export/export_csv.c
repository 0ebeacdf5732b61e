/*
 * export_csv.c - every sample, in time order, with where it was and the
 * power of the interval it ends.
 *
 * Columns: time_s (since the first sample), pc (hex), pid, tid, cpu, flags,
 * exe, module, proc, file, line, interval_s, energy_j, power_w.
 * interval_s is the time since the previous sample; energy_j the energy the
 * sample stands for (one quantum, more after lost samples); power_w their
 * ratio.  Time-driven samples carry no energy: those columns stay empty.
 */
#include "export.h"
#include "table.h"

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

	fputs("time_s,pc,pid,tid,cpu,flags,exe,module,proc,file,line,interval_s,energy_j,power_w\n",
	      out);
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
			fputc('\n', out);
		}
		prev = s;
	}
	return ferror(out) ? eq_fail(err, "writing the sample CSV failed") : 0;
}
