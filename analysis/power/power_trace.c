/*
 * power_trace.c - power against time (seed 001 Figures 6 and 7).
 *
 * Each point is one interval's power E/dt at the interval's end, or, with a
 * moving window of N intervals, the energy of the last N intervals over
 * their total time (a time-weighted mean, so short bursts are not
 * over-counted).  For plots, a long trace is reduced to at most max_points:
 * time is cut into columns and each column keeps its lowest and highest
 * point (and its lowest and highest idle point), so spikes and dips stay
 * visible however many intervals fall into one pixel.
 */
#include "power/power.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct window {
	unsigned n, fill, pos;
	double *dt, *e;
	double sum_dt, sum_e;
};

static int window_init(struct window *w, unsigned n, struct eq_error *err)
{
	memset(w, 0, sizeof(*w));
	w->n = n ? n : 1;
	w->dt = calloc(w->n, sizeof(double));
	w->e = calloc(w->n, sizeof(double));
	if (!w->dt || !w->e) {
		free(w->dt);
		free(w->e);
		return eq_fail(err, "--window %u: out of memory", n);
	}
	return 0;
}

static double window_push(struct window *w, const struct power_iv *iv)
{
	if (w->n == 1)
		return iv->energy_j / iv->dt;
	if (w->fill == w->n) {
		w->sum_dt -= w->dt[w->pos];
		w->sum_e -= w->e[w->pos];
	} else {
		w->fill++;
	}
	w->dt[w->pos] = iv->dt;
	w->e[w->pos] = iv->energy_j;
	w->sum_dt += iv->dt;
	w->sum_e += iv->energy_j;
	w->pos = (w->pos + 1) % w->n;
	if (w->pos == 0) {
		/* Recompute now and then so rounding never accumulates. */
		unsigned i;

		w->sum_dt = w->sum_e = 0;
		for (i = 0; i < w->fill; i++) {
			w->sum_dt += w->dt[i];
			w->sum_e += w->e[i];
		}
	}
	return w->sum_e / w->sum_dt;
}

static void window_free(struct window *w)
{
	free(w->dt);
	free(w->e);
}

/* Column reduction for plots. */
struct column {
	long idx;                  /* current column, -1 before the first point */
	int have[4];
	struct power_point p[4];   /* busy min, busy max, idle min, idle max */
};

static int emit_column(struct column *c, power_point_fn fn, void *ctx)
{
	struct power_point out[4];
	int i, j, n = 0;

	for (i = 0; i < 4; i++)
		if (c->have[i])
			out[n++] = c->p[i];
	/* Insertion sort by time: at most four points. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && out[j].t < out[j - 1].t; j--) {
			struct power_point tmp = out[j];

			out[j] = out[j - 1];
			out[j - 1] = tmp;
		}
	for (i = 0; i < n; i++)
		if ((i == 0 || out[i].t != out[i - 1].t) && fn(ctx, &out[i]) < 0)
			return -1;
	memset(c->have, 0, sizeof(c->have));
	return 0;
}

static void column_add(struct column *c, const struct power_point *p)
{
	int lo = p->idle > 0 ? 2 : 0;

	if (!c->have[lo] || p->power_w < c->p[lo].power_w) {
		c->p[lo] = *p;
		c->have[lo] = 1;
	}
	if (!c->have[lo + 1] || p->power_w > c->p[lo + 1].power_w) {
		c->p[lo + 1] = *p;
		c->have[lo + 1] = 1;
	}
}

double power_input_span(const struct power_input *in)
{
	struct power_iter it;
	struct power_iv iv;
	double t = 0;

	/* Cheap for the board; for samples one pass, only when decimating. */
	if (in->basis == POWER_BASIS_BOARD && in->nboard > 1)
		return (double)(in->board[in->nboard - 1].time - in->board[0].time) /
		       in->board_clock_hz;
	power_iter_init(&it, in);
	while (power_iter_next(&it, &iv))
		t = iv.t;
	return t;
}

int power_trace_walk(const struct power_input *in, const struct power_trace_opts *o,
		     power_point_fn fn, void *ctx, struct eq_error *err)
{
	int ranged = o->t1 > o->t0;
	double lo = ranged ? o->t0 : 0, hi = ranged ? o->t1 : 0, width = 0;
	struct power_iter it;
	struct power_iv iv;
	struct window w;
	struct column col = { .idx = -1 };
	int rc = 0;

	if (in->basis != POWER_BASIS_SAMPLES && in->basis != POWER_BASIS_BOARD &&
	    in->basis != POWER_BASIS_SOURCE)
		return eq_fail(err, "%s: no power trace: %s", in->name, in->why_none);
	if (o->max_points) {
		if (!ranged)
			hi = power_input_span(in);
		/* Two points per column at least. */
		width = (hi - lo) / (double)(o->max_points / 4 ? o->max_points / 4 : 1);
	}
	if (window_init(&w, o->window, err) < 0)
		return -1;
	power_iter_init(&it, in);
	while (rc == 0 && power_iter_next(&it, &iv)) {
		struct power_point p;

		p.power_w = window_push(&w, &iv);
		p.t = iv.t;
		p.idle = iv.idle_known ? iv.idle : -1;
		if (ranged && (iv.t < o->t0 || iv.t > o->t1))
			continue;
		if (width <= 0) {
			rc = fn(ctx, &p);
			continue;
		}
		/* Times are finite for any sane clock; an absurd one (1e-310 Hz)
		 * makes them infinite and the column NaN: the last column then,
		 * never an out-of-range cast. */
		double q = floor((iv.t - lo) / width);
		long idx = q >= 0 && q < (double)LONG_MAX ? (long)q : q < 0 ? 0 : LONG_MAX;

		if (idx != col.idx && col.idx >= 0)
			rc = emit_column(&col, fn, ctx);
		col.idx = idx;
		column_add(&col, &p);
	}
	if (rc == 0 && col.idx >= 0)
		rc = emit_column(&col, fn, ctx);
	window_free(&w);
	if (rc < 0)
		return eq_fail(err, "%s: writing the trace failed (disk full?)", in->name);
	return 0;
}

uint64_t power_trace_count(const struct power_input *in, const struct power_trace_opts *o)
{
	int ranged = o->t1 > o->t0;
	struct power_iter it;
	struct power_iv iv;
	uint64_t n = 0;

	if (!ranged && in->basis == POWER_BASIS_BOARD && in->nboard)
		return in->nboard - 1;
	power_iter_init(&it, in);
	while (power_iter_next(&it, &iv))
		n += !ranged || (iv.t >= o->t0 && iv.t <= o->t1);
	return n;
}

struct env_acc {
	struct power_column c;
	double time, e, idle_time, known_time;
};

static int env_emit(struct env_acc *a, power_column_fn fn, void *ctx)
{
	if (!a->c.intervals)
		return 0;
	a->c.mean_w = a->e / a->time;
	a->c.idle_share = a->known_time > 0 ? a->idle_time / a->known_time : NAN;
	return fn(ctx, &a->c);
}

static void env_add(struct env_acc *a, const struct power_iv *iv, double p)
{
	if (!a->c.intervals || p < a->c.min_w)
		a->c.min_w = p;
	if (!a->c.intervals || p > a->c.max_w)
		a->c.max_w = p;
	a->c.intervals++;
	a->time += iv->dt;
	a->e += iv->energy_j;
	if (iv->idle_known) {
		a->known_time += iv->dt;
		if (iv->idle)
			a->idle_time += iv->dt;
	}
}

int power_envelope_walk(const struct power_input *in, const struct power_trace_opts *o,
			size_t ncolumns, power_column_fn fn, void *ctx, struct eq_error *err)
{
	int ranged = o->t1 > o->t0;
	double lo = ranged ? o->t0 : 0, hi, width;
	struct power_iter it;
	struct power_iv iv;
	struct window w;
	struct env_acc a;
	long idx = -1;
	int rc = 0;

	if (in->basis != POWER_BASIS_SAMPLES && in->basis != POWER_BASIS_BOARD &&
	    in->basis != POWER_BASIS_SOURCE)
		return eq_fail(err, "%s: no power trace: %s", in->name, in->why_none);
	if (!ncolumns)
		return eq_fail(err, "%s: an envelope of 0 columns", in->name);
	hi = ranged ? o->t1 : power_input_span(in);
	width = hi > lo ? (hi - lo) / (double)ncolumns : 1;
	if (window_init(&w, o->window, err) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	power_iter_init(&it, in);
	while (rc == 0 && power_iter_next(&it, &iv)) {
		double p = window_push(&w, &iv), q;
		long k;

		if (ranged && (iv.t < o->t0 || iv.t > o->t1))
			continue;
		q = floor((iv.t - lo) / width);
		/* the last interval ends at hi: the last column holds it */
		k = q < 0 ? 0 : q >= (double)ncolumns ? (long)ncolumns - 1 : (long)q;
		if (k != idx) {
			rc = env_emit(&a, fn, ctx);
			memset(&a, 0, sizeof(a));
			a.c.t0 = lo + (double)k * width;
			a.c.t1 = lo + (double)(k + 1) * width;
			idx = k;
		}
		env_add(&a, &iv, p);
	}
	if (rc == 0)
		rc = env_emit(&a, fn, ctx);
	window_free(&w);
	if (rc < 0)
		return eq_fail(err, "%s: writing the trace failed (disk full?)", in->name);
	return 0;
}

/*
 * A non-negative number with a fixed number of decimals, like printf's
 * "%.*f" (rounded as v * 10^decimals rounds, which can differ from printf
 * in the last digit only for values within an ulp of a halfway point), but
 * several times faster: a trace of ten million intervals is mostly number
 * formatting.  Falls back to snprintf for what 64-bit fixed point cannot
 * hold.  buf needs 32 bytes for the fast path; returns the length written.
 */
size_t power_fmt_fixed(char *buf, size_t size, double v, int decimals)
{
	static const double scale[10] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	char digits[32];
	uint64_t x, ip, fp;
	size_t n = 0, k;
	int i;

	if (decimals < 1 || decimals > 9 || !(v >= 0) || v * scale[decimals] >= 9e18 ||
	    size < 32) {
		int len = snprintf(buf, size, "%.*f", decimals, v);

		return len < 0 ? 0 : (size_t)len < size ? (size_t)len : size - 1;
	}
	x = (uint64_t)llround(v * scale[decimals]);
	ip = x / (uint64_t)scale[decimals];
	fp = x % (uint64_t)scale[decimals];
	do {
		digits[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	for (k = 0; k < n; k++)
		buf[k] = digits[n - 1 - k];
	buf[n++] = '.';
	for (i = decimals - 1; i >= 0; i--) {
		buf[n + (size_t)i] = (char)('0' + fp % 10);
		fp /= 10;
	}
	n += (size_t)decimals;
	buf[n] = '\0';
	return n;
}

static int csv_point(void *ctx, const struct power_point *p)
{
	FILE *out = ctx;
	char line[128];
	size_t n = power_fmt_fixed(line, 60, p->t, 9);

	line[n++] = ',';
	n += power_fmt_fixed(line + n, 60, p->power_w, 6);
	line[n++] = ',';
	if (p->idle >= 0)
		line[n++] = p->idle ? '1' : '0';
	line[n++] = '\n';
	return fwrite(line, 1, n, out) == n ? 0 : -1;
}

int power_trace_write_csv(FILE *out, const struct power_input *in,
			  const struct power_trace_opts *o, struct eq_error *err)
{
	fprintf(out, "time_s,power_w,idle\n");
	return power_trace_walk(in, o, csv_point, out, err);
}
