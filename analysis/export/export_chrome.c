/*
 * export_chrome.c - Chrome trace-event JSON ("JSON Object Format"), opened by
 * the Perfetto UI and chrome://tracing.
 *
 * pid 1 "power": one counter event ("ph":"C", name "power", args {"W": P})
 *   per power interval, at the interval's start, so the counter steps to
 *   E/dt for the time the interval lasted.
 * pid 2 "samples": one track per CPU; each sample is a slice ("ph":"X")
 *   from the previous sample on that CPU to it, named by its procedure,
 *   with exe, module and source file in args (and the line when all its
 *   samples are on one); neighbouring samples in the same procedure and
 *   process are merged into one slice.
 * Markers are global instant events ("ph":"i", "s":"g").
 * Times ("ts", "dur") are microseconds since the first sample.
 */
#include "export.h"
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPU_TRACKS 1024

struct slice {
	const struct eq_loc *loc;  /* NULL: no open slice */
	double start_us, end_us;
	uint64_t samples;
	int mixed_lines;           /* its samples are on different source lines */
};

struct chrome {
	FILE *out;
	int first;                 /* no event written yet */
	struct slice *open;        /* per CPU */
	double *prev_us;           /* per CPU, -1 before its first sample */
};

static void event_sep(struct chrome *c)
{
	fputs(c->first ? "\n" : ",\n", c->out);
	c->first = 0;
}

static void metadata(struct chrome *c, int pid, int tid, const char *what,
		     const char *name)
{
	event_sep(c);
	fprintf(c->out, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		what, pid, tid);
	eq_json_string(c->out, name);
	fputs("}}", c->out);
}

static void power_counters(struct chrome *c, struct export_ctx *x)
{
	struct power_iter it;
	struct power_iv iv;

	power_iter_init(&it, &x->in);
	while (power_iter_next(&it, &iv)) {
		export_tick(x);
		event_sep(c);
		fprintf(c->out, "{\"name\":\"power\",\"cat\":\"power\",\"ph\":\"C\",\"ts\":%.3f,"
				"\"pid\":1,\"tid\":0,\"args\":{\"W\":%.6g}}",
			(iv.t - iv.dt) * 1e6, iv.energy_j / iv.dt);
	}
}

static void close_slice(struct chrome *c, unsigned cpu)
{
	struct slice *s = &c->open[cpu];
	const struct eq_loc *l = s->loc;
	char line[32];

	if (!l)
		return;
	event_sep(c);
	fputs("{\"name\":", c->out);
	eq_json_string(c->out, export_proc_name(l));
	fprintf(c->out, ",\"cat\":\"sample\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
			"\"pid\":2,\"tid\":%u,\"args\":{\"exe\":",
		s->start_us, s->end_us - s->start_us, cpu);
	eq_json_string(c->out, l->exe ? l->exe : "[unknown]");
	fputs(",\"module\":", c->out);
	eq_json_string(c->out, l->module);
	if (l->file) {
		fputs(",\"file\":", c->out);
		eq_json_string(c->out, l->file);
		snprintf(line, sizeof(line), "%u", l->line);
		if (!s->mixed_lines && l->line)
			fprintf(c->out, ",\"line\":%s", line);
	}
	fprintf(c->out, ",\"samples\":%llu}}", (unsigned long long)s->samples);
	s->loc = NULL;
}

static void add_sample(struct chrome *c, const struct export_ctx *x,
		       const struct eq_sample *smp, double t_us)
{
	unsigned cpu = smp->cpu < MAX_CPU_TRACKS ? smp->cpu : MAX_CPU_TRACKS - 1;
	const struct eq_loc *l = eq_sym_lookup(x->sym, smp);
	struct slice *s = &c->open[cpu];
	double start = c->prev_us[cpu] >= 0 ? c->prev_us[cpu] : t_us;

	c->prev_us[cpu] = t_us;
	if (x->exclude_idle && l->kind == EQ_LOC_IDLE) {
		close_slice(c, cpu);
		return;
	}
	/* Same procedure, same process: the slice goes on. */
	if (s->loc && s->loc->pid == l->pid &&
	    !strcmp(export_proc_name(s->loc), export_proc_name(l)) &&
	    s->loc->module == l->module) {
		s->end_us = t_us;
		s->samples++;
		s->mixed_lines |= s->loc->line != l->line || s->loc->file != l->file;
		return;
	}
	close_slice(c, cpu);
	s->loc = l;
	s->start_us = start;
	s->end_us = t_us;
	s->samples = 1;
	s->mixed_lines = 0;
}

static void sample_slices(struct chrome *c, struct export_ctx *x)
{
	struct power_iter it;
	const struct eq_sample *smp;
	uint64_t t0 = 0;
	int have_t0 = 0;
	unsigned cpu;

	power_iter_init(&it, &x->in);
	while ((smp = power_iter_sample(&it))) {
		export_tick(x);
		if (!have_t0) {
			t0 = smp->time;
			have_t0 = 1;
		}
		add_sample(c, x, smp, (double)(smp->time - t0) / x->in.clock_hz * 1e6);
	}
	for (cpu = 0; cpu < MAX_CPU_TRACKS; cpu++)
		close_slice(c, cpu);
}

static void markers(struct chrome *c, const struct export_ctx *x)
{
	size_t i;

	for (i = 0; i < x->in.nmarkers; i++) {
		event_sep(c);
		fputs("{\"name\":", c->out);
		eq_json_string(c->out, x->in.markers[i]->label);
		fprintf(c->out, ",\"cat\":\"marker\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,"
				"\"pid\":1,\"tid\":0}",
			power_rel_time(&x->in, x->in.markers[i]->time) * 1e6);
	}
}

static void cpu_names(struct chrome *c)
{
	char name[32];
	unsigned cpu;

	for (cpu = 0; cpu < MAX_CPU_TRACKS; cpu++)
		if (c->prev_us[cpu] >= 0) {
			snprintf(name, sizeof(name), "CPU %u", cpu);
			metadata(c, 2, (int)cpu, "thread_name", name);
		}
}

int export_chrome(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	struct chrome c = { out, 1, NULL, NULL };
	char title[300];
	unsigned cpu;

	c.open = calloc(MAX_CPU_TRACKS, sizeof(*c.open));
	c.prev_us = malloc(MAX_CPU_TRACKS * sizeof(*c.prev_us));
	if (!c.open || !c.prev_us) {
		free(c.open);
		free(c.prev_us);
		return eq_fail(err, "out of memory");
	}
	for (cpu = 0; cpu < MAX_CPU_TRACKS; cpu++)
		c.prev_us[cpu] = -1;
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"recording\":", out);
	eq_json_string(out, x->in.name);
	fprintf(out, ",\"creator\":\"%s\",\"mode\":\"%s\"},\"traceEvents\":[", x->creator,
		x->mode == EQP_MODE_ENERGY ? "energy" : "time");
	snprintf(title, sizeof(title), "power (%s)", x->in.name);
	metadata(&c, 1, 0, "process_name", title);
	snprintf(title, sizeof(title), "samples (%s)", x->in.name);
	metadata(&c, 2, 0, "process_name", title);
	power_counters(&c, x);
	markers(&c, x);
	sample_slices(&c, x);
	cpu_names(&c);
	fputs("\n]}\n", out);
	free(c.open);
	free(c.prev_us);
	return ferror(out) ? eq_fail(err, "writing the Chrome trace failed") : 0;
}
