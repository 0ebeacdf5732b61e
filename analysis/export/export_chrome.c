/*
 * export_chrome.c - Chrome trace-event JSON ("JSON Object Format"), opened by
 * the Perfetto UI and chrome://tracing.
 *
 * The "power" process (POWER_PID): one counter event ("ph":"C", name
 *   "power", args {"W": P}) per power interval, at the interval's start, so
 *   the counter steps to E/dt for the time the interval lasted.
 * One process per recorded process (its pid, named by its exe) and one
 *   track per thread (its tid, named by the thread's name); idle is pid 0.
 *   Each sample is a slice ("ph":"X") ending at the sample, named by its
 *   procedure, with exe, module and source file in args (and the line when
 *   all its samples are on one).  A slice covers what the sample stands
 *   for: in an energy profile the time since the previous sample on its
 *   CPU (that quantum's interval), in a time profile at most one sampling
 *   period (a time-driven sampler sees no time that was not spent running:
 *   a sleep between two samples is not theirs).  Neighbouring samples of a
 *   thread in the same procedure whose slices touch are merged.  With call
 *   chains (record -g) a sample is a stack of nested slices, outermost
 *   caller first (a flame chart per thread): each level goes on while
 *   neighbouring samples agree on it and on every level above it.
 * Markers are global instant events ("ph":"i", "s":"g").
 * Times ("ts", "dur") are microseconds since the first sample.
 */
#include "profile/callgraph.h"
#include "export/export.h"
#include "profile/table.h"
#include "util/units.h"

#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPU_TRACKS 65536     /* eq_sample.cpu is 16 bits */
#define POWER_PID 2147483646     /* above any Linux pid (pid_max <= 2^22) */

/* One open slice of a thread: a level of its stack. */
struct level {
	const struct eq_loc *loc;
	double start_us;
	uint64_t samples;
	int mixed_lines;           /* its samples are on different source lines */
};

struct slice {                 /* a thread and its open slices */
	uint32_t pid, tid;
	const char *thread;        /* the thread's name */
	const char *exe_name;      /* its process's */
	double end_us;
	struct level *lv;          /* outermost first */
	size_t depth, cap;
};

struct chrome {
	FILE *out;
	int first;                 /* no event written yet */
	struct slice *open;        /* per thread: open addressing on (pid, tid) */
	size_t mask, nopen;
	double *prev_us;           /* per CPU, -1 before its first sample */
	double period_us;          /* time profile: the longest a slice stands for */
	const struct eq_loc **frames; /* with call chains: a sample's frames */
	size_t chunk_hint;
	char *ev;                  /* the event being made */
	size_t ev_len, ev_cap;
	int ev_failed;             /* out of memory for it */
};

/*
 * A slice event is made in c->ev and written in one piece: most of the
 * export's time went to printf's general number code and to stdio calls
 * of a few bytes each.
 */
static int ev_room(struct chrome *c, size_t n)
{
	if (c->ev_len + n > c->ev_cap) {
		size_t cap = (c->ev_len + n) * 2;
		char *b = realloc(c->ev, cap);

		if (!b)
			return -1;
		c->ev = b;
		c->ev_cap = cap;
	}
	return 0;
}

static void ev_put(struct chrome *c, const char *s, size_t n)
{
	if (ev_room(c, n) == 0) {
		memcpy(c->ev + c->ev_len, s, n);
		c->ev_len += n;
	} else {
		c->ev_failed = 1;
	}
}

#define EV_LIT(c, lit) ev_put(c, lit, sizeof(lit) - 1)

/* digits of n, right-aligned before end; returns where they start */
static char *u64_digits(char *end, uint64_t n)
{
	do
		*--end = (char)('0' + n % 10);
	while ((n /= 10));
	return end;
}

static void ev_u64(struct chrome *c, uint64_t n)
{
	char b[24], *p = u64_digits(b + sizeof(b), n);

	ev_put(c, p, (size_t)(b + sizeof(b) - p));
}

/* A JSON string, as eq_json_string() writes it. */
static void ev_json(struct chrome *c, const char *s)
{
	EV_LIT(c, "\"");
	while (*s) {
		size_t run = 0;
		char esc[8];

		while (s[run] && s[run] != '"' && s[run] != '\\' && (unsigned char)s[run] >= 0x20)
			run++;
		ev_put(c, s, run);
		s += run;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *s);
		else
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned char)*s);
		ev_put(c, esc, strlen(esc));
		s++;
	}
	EV_LIT(c, "\"");
}

static void ev_fixed3(struct chrome *c, double v)
{
	char b[EQ_FIXED3_SIZE];

	ev_put(c, b, eq_format_fixed3(b, v));
}

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
		char w[96];

		export_tick(x);
		c->ev_len = 0;
		if (c->first)
			EV_LIT(c, "\n{\"name\":\"power\",\"cat\":\"power\",\"ph\":\"C\",\"ts\":");
		else
			EV_LIT(c, ",\n{\"name\":\"power\",\"cat\":\"power\",\"ph\":\"C\",\"ts\":");
		c->first = 0;
		ev_fixed3(c, (iv.t - iv.dt) * 1e6);
		snprintf(w, sizeof(w), ",\"pid\":%d,\"tid\":0,\"args\":{\"W\":%.6g}}", POWER_PID,
			 iv.energy_j / iv.dt);
		ev_put(c, w, strlen(w));
		fwrite(c->ev, 1, c->ev_len, c->out);
	}
}

/* Closes the thread's levels from the innermost up to level `from`. */
static void close_levels(struct chrome *c, struct slice *s, size_t from)
{
	while (s->depth > from) {
		struct level *v = &s->lv[--s->depth];
		const struct eq_loc *l = v->loc;

		c->ev_len = 0;
		if (c->first)
			EV_LIT(c, "\n{\"name\":");
		else
			EV_LIT(c, ",\n{\"name\":");
		c->first = 0;
		ev_json(c, export_proc_name(l));
		EV_LIT(c, ",\"cat\":\"sample\",\"ph\":\"X\",\"ts\":");
		ev_fixed3(c, v->start_us);
		EV_LIT(c, ",\"dur\":");
		ev_fixed3(c, s->end_us - v->start_us);
		EV_LIT(c, ",\"pid\":");
		ev_u64(c, s->pid);
		EV_LIT(c, ",\"tid\":");
		ev_u64(c, s->tid);
		EV_LIT(c, ",\"args\":{\"exe\":");
		ev_json(c, l->exe ? l->exe : "[unknown]");
		EV_LIT(c, ",\"module\":");
		ev_json(c, l->module);
		if (l->file) {
			EV_LIT(c, ",\"file\":");
			ev_json(c, l->file);
			if (!v->mixed_lines && l->line) {
				EV_LIT(c, ",\"line\":");
				ev_u64(c, l->line);
			}
		}
		EV_LIT(c, ",\"samples\":");
		ev_u64(c, v->samples);
		EV_LIT(c, "}}");
		fwrite(c->ev, 1, c->ev_len, c->out);
	}
}

static int same_place(const struct eq_loc *a, const struct eq_loc *b)
{
	return !strcmp(export_proc_name(a), export_proc_name(b)) && a->module == b->module;
}

static size_t thread_hash(uint32_t pid, uint32_t tid)
{
	uint64_t h = ((uint64_t)pid << 32 | tid) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 24);
}

/* The open slice of a thread (made empty on first sight); NULL if out of memory. */
static struct slice *thread_slice(struct chrome *c, uint32_t pid, uint32_t tid)
{
	size_t j;

	if (2 * (c->nopen + 1) > c->mask) {
		size_t mask = c->mask ? 2 * c->mask + 1 : 255, i;
		struct slice *n = calloc(mask + 1, sizeof(*n));

		if (!n)
			return NULL;
		for (i = 0; c->open && i <= c->mask; i++) {
			if (!c->open[i].thread)
				continue;
			for (j = thread_hash(c->open[i].pid, c->open[i].tid) & mask; n[j].thread;
			     j = (j + 1) & mask)
				;
			n[j] = c->open[i];
		}
		free(c->open);
		c->open = n;
		c->mask = mask;
	}
	for (j = thread_hash(pid, tid) & c->mask; c->open[j].thread; j = (j + 1) & c->mask)
		if (c->open[j].pid == pid && c->open[j].tid == tid)
			return &c->open[j];
	c->open[j] = (struct slice){ .pid = pid, .tid = tid };
	c->nopen++;
	return &c->open[j];
}

static int add_sample(struct chrome *c, const struct export_ctx *x,
		      const struct eq_sample *smp, double t_us)
{
	const struct eq_loc *l = eq_sym_lookup(x->sym, smp);
	int idle = l->kind == EQ_LOC_IDLE;
	uint32_t pid = idle ? 0 : smp->pid, tid = idle ? 0 : smp->tid;
	struct slice *s = thread_slice(c, pid, tid);
	double start = c->prev_us[smp->cpu] >= 0 ? c->prev_us[smp->cpu] : t_us;
	const struct eq_loc *one[1] = { l }, **f = one;
	size_t d = 1, common = 0, j, ci;
	int chain;

	if (!s)
		return -1;
	/* the sample's frames, leaf first */
	if (c->frames && export_find_sample(&x->in, smp, &c->chunk_hint, &ci) == 0) {
		d = eq_sample_frames(x->f, x->sym, c->chunk_hint, ci, smp, c->frames, &chain);
		f = c->frames;
	}
	if (!s->thread) {
		s->thread = eq_sym_thread_name(x->sym, smp);
		s->exe_name = idle ? "[idle]" : l->exe ? l->exe : "[unknown]";
		if (!s->thread)
			return -1;
	}
	c->prev_us[smp->cpu] = t_us;
	if (c->period_us > 0 && t_us - start > c->period_us)
		start = t_us - c->period_us;
	if (x->exclude_idle && idle) {
		close_levels(c, s, 0);
		return 0;
	}
	/* The slices touch (a time profile's period is jittered: within half
	 * a period): the levels the stacks share from the outermost go on. */
	if (s->depth && start <= s->end_us + 1e-3 + c->period_us / 2)
		while (common < s->depth && common < d && same_place(s->lv[common].loc, f[d - 1 - common]))
			common++;
	close_levels(c, s, common);
	if (d > s->cap) {
		struct level *n = realloc(s->lv, d * sizeof(*n));

		if (!n)
			return -1;
		s->lv = n;
		s->cap = d;
	}
	for (j = 0; j < common; j++) {
		const struct eq_loc *fj = f[d - 1 - j];

		s->lv[j].samples++;
		s->lv[j].mixed_lines |= s->lv[j].loc->line != fj->line || s->lv[j].loc->file != fj->file;
	}
	for (j = common; j < d; j++)
		s->lv[j] = (struct level){ .loc = f[d - 1 - j], .start_us = start, .samples = 1 };
	s->depth = d;
	s->end_us = t_us;
	return 0;
}

/* Earlier start first; equal starts in table order (stable for one file). */
static int by_start(const void *a, const void *b)
{
	const struct slice *x = *(const struct slice *const *)a, *y = *(const struct slice *const *)b;

	if (x->lv[0].start_us != y->lv[0].start_us)
		return x->lv[0].start_us < y->lv[0].start_us ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int sample_slices(struct chrome *c, struct export_ctx *x)
{
	struct power_iter it;
	const struct eq_sample *smp;
	struct slice **left;
	uint64_t t0 = 0;
	int have_t0 = 0;
	size_t i, n = 0;

	power_iter_init(&it, &x->in);
	while ((smp = power_iter_sample(&it))) {
		export_tick(x);
		if (!have_t0) {
			t0 = smp->time;
			have_t0 = 1;
		}
		if (add_sample(c, x, smp, (double)(smp->time - t0) / x->in.clock_hz * 1e6) < 0)
			return -1;
	}
	/* the slices still open, in time order: sorted once (one a thread),
	 * not a scan of every thread for each (quadratic in threads) */
	for (i = 0; c->open && i <= c->mask; i++)
		if (c->open[i].depth)
			n++;
	if (n) {
		if (!(left = malloc(n * sizeof(*left))))
			return -1;
		for (i = 0, n = 0; i <= c->mask; i++)
			if (c->open[i].depth)
				left[n++] = &c->open[i];
		qsort(left, n, sizeof(*left), by_start);
		for (i = 0; i < n; i++)
			close_levels(c, left[i], 0);
		free(left);
	}
	for (i = 0; c->open && i <= c->mask; i++) {
		free(c->open[i].lv);
		c->open[i].lv = NULL;
	}
	return 0;
}

static void markers(struct chrome *c, const struct export_ctx *x)
{
	size_t i;

	for (i = 0; i < x->in.nmarkers; i++) {
		event_sep(c);
		fputs("{\"name\":", c->out);
		eq_json_string(c->out, x->in.markers[i]->label);
		fprintf(c->out, ",\"cat\":\"marker\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,"
				"\"pid\":%d,\"tid\":0}",
			power_rel_time(&x->in, x->in.markers[i]->time) * 1e6, POWER_PID);
	}
}

static int by_pid_tid(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Each process named by its exe, each thread by its own name. */
static void track_names(struct chrome *c)
{
	size_t i, n = 0;

	for (i = 0; c->open && i <= c->mask; i++)
		if (c->open[i].thread)
			c->open[n++] = c->open[i];
	if (n)
		qsort(c->open, n, sizeof(*c->open), by_pid_tid);
	for (i = 0; i < n; i++) {
		const struct slice *s = &c->open[i];

		if (!i || s->pid != c->open[i - 1].pid)
			metadata(c, (int)s->pid, 0, "process_name",
				 s->pid == 0 ? "[idle]" : s->exe_name);
		metadata(c, (int)s->pid, (int)s->tid, "thread_name", s->thread);
	}
}

int export_chrome(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	struct chrome c = { .out = out, .first = 1 };
	char title[300];
	unsigned cpu;
	int rc;

	c.prev_us = malloc(MAX_CPU_TRACKS * sizeof(*c.prev_us));
	if (eqp_has_callchains(x->f))
		c.frames = malloc((1 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*c.frames));
	if (!c.prev_us || (eqp_has_callchains(x->f) && !c.frames)) {
		free(c.prev_us);
		free(c.frames);
		return eq_fail(err, "out of memory");
	}
	for (cpu = 0; cpu < MAX_CPU_TRACKS; cpu++)
		c.prev_us[cpu] = -1;
	if (x->mode == EQP_MODE_TIME)
		c.period_us = eq_profile_period_s(x->f) * 1e6;
	/* one thread writes: stdio need not lock for each call */
	__fsetlocking(out, FSETLOCKING_BYCALLER);
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"recording\":", out);
	eq_json_string(out, x->in.name);
	fprintf(out, ",\"creator\":\"%s\",\"mode\":\"%s\",\"skipped\":", x->creator,
		x->mode == EQP_MODE_ENERGY ? "energy" : "time");
	eqp_skipped_json(out, &x->in.skipped);
	fputs("},\"traceEvents\":[", out);
	snprintf(title, sizeof(title), "power (%s)", x->in.name);
	metadata(&c, POWER_PID, 0, "process_name", title);
	power_counters(&c, x);
	markers(&c, x);
	rc = sample_slices(&c, x);
	if (rc == 0)
		track_names(&c);
	fputs("\n]}\n", out);
	if (rc < 0)  /* out of memory midway: the levels of every thread */
		for (size_t i = 0; c.open && i <= c.mask; i++)
			free(c.open[i].lv);
	free(c.open);
	free(c.prev_us);
	free(c.frames);
	free(c.ev);
	if (rc < 0 || c.ev_failed)
		return eq_fail(err, "out of memory for the threads' tracks");
	return ferror(out) ? eq_fail(err, "writing the Chrome trace failed") : 0;
}
