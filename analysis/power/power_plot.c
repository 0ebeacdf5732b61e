/*
 * power_plot.c - gnuplot scripts for power traces and histograms.
 *
 * Data go to files in the plot's temporary directory (plot.h), one per
 * recording, and the script refers to them; the trace is reduced to a few
 * thousand columns first (power_trace_walk's max_points), so a plot of ten
 * million intervals is as quick to draw as one of ten thousand.
 */
#include "power/power_plot.h"
#include "power/plot.h"
#include "util/units.h"

#include <math.h>
#include <string.h>

#define TRACE_PLOT_POINTS 8000

static const char *const colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#17becf",
};
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

static void dims(const struct power_plot_opts *o, int *w, int *h)
{
	*w = o->width > 0 ? o->width : 1000;
	*h = o->height > 0 ? o->height : 600;
}

static void title_of(FILE *s, const char *what, const char *const *names, size_t n,
		     const char *given)
{
	char buf[512];
	size_t i, len;

	if (given) {
		fputs("set title ", s);
		plot_quote(s, given);
		fputs(" noenhanced\n", s);
		return;
	}
	len = (size_t)snprintf(buf, sizeof(buf), "%s: ", what);
	for (i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? (i + 1 == n ? " and " : ", ") : "", names[i]);
	fputs("set title ", s);
	plot_quote(s, buf);
	fputs(" noenhanced\n", s);
}

static int trace_point(void *ctx, const struct power_point *p)
{
	FILE *f = ctx;

	fprintf(f, "%.9g %.9g %d\n", p->t, p->power_w, p->idle);
	return ferror(f) ? -1 : 0;
}

static int trace_data(struct plot *pl, const struct power_input *in,
		      const struct power_trace_opts *t, char *path, size_t size,
		      struct eq_error *err)
{
	struct power_trace_opts o = *t;
	FILE *f = plot_data(pl, path, size, err);
	int rc;

	if (!f)
		return -1;
	o.max_points = TRACE_PLOT_POINTS;
	rc = power_trace_walk(in, &o, trace_point, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = eq_fail(err, "writing %s failed", path);
	return rc;
}

/* Envelope columns as steps: each column's values from its start to its
 * end; a blank line where columns are missing (no interval ended there). */
struct env_out {
	FILE *f;
	double last_t1;
};

static int env_point(void *ctx, const struct power_column *c)
{
	struct env_out *e = ctx;
	int i;

	if (e->last_t1 >= 0 && c->t0 > e->last_t1 + 1e-12 * (1 + fabs(c->t0)))
		fputc('\n', e->f);
	for (i = 0; i < 2; i++) {
		fprintf(e->f, "%.9g %.9g %.9g %.9g ", i ? c->t1 : c->t0, c->min_w, c->max_w,
			c->mean_w);
		if (isnan(c->idle_share))
			fputs("NaN\n", e->f);
		else
			fprintf(e->f, "%.6f\n", 100 * c->idle_share);
	}
	e->last_t1 = c->t1;
	return ferror(e->f) ? -1 : 0;
}

static int envelope_data(struct plot *pl, const struct power_input *in,
			 const struct power_trace_opts *t, size_t ncolumns, char *path,
			 size_t size, struct eq_error *err)
{
	struct env_out e = { .f = plot_data(pl, path, size, err), .last_t1 = -1 };
	int rc;

	if (!e.f)
		return -1;
	rc = power_envelope_walk(in, t, ncolumns, env_point, &e, err);
	if (fclose(e.f) != 0 && rc == 0)
		rc = eq_fail(err, "writing %s failed", path);
	return rc;
}

/* More than two intervals a pixel column: every interval drawn would be a
 * solid band; the envelope shows what is in it. */
static int wants_envelope(const struct power_input *const *in, size_t n,
			  const struct power_trace_opts *t, size_t ncolumns)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (power_trace_count(in[i], t) > 2 * (uint64_t)ncolumns)
			return 1;
	return 0;
}

/* The first recording's markers as dashed vertical lines, labelled at the
 * top (the program's phases, the simulator's, the board's stalls); those
 * outside a close-up are left out. */
static void plot_markers(FILE *s, const struct power_input *in, const struct power_trace_opts *t)
{
	size_t i;

	for (i = 0; i < in->nmarkers && i < 200; i++) {
		double x = power_rel_time(in, in->markers[i]->time);

		if (t->t1 > t->t0 && (x < t->t0 || x > t->t1))
			continue;
		fprintf(s, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lw 1 "
			"lc rgb '#555555' front\nset label ", x, x);
		plot_quote(s, in->markers[i]->label);
		fprintf(s, " at %.9g, graph 0.98 rotate by 90 right offset 0.6,0 "
			"font ',8' tc rgb '#555555' front noenhanced\n", x);
	}
}

static void trace_axes(FILE *s, const struct power_trace_opts *t,
		       const struct power_plot_opts *o)
{
	fputs("set grid\nset key below noenhanced\nset xlabel 'time since the first sample (s)'\n", s);
	if (t->window > 1)
		fprintf(s, "set ylabel 'power, mean over %u intervals (W)'\n", t->window);
	else
		fputs("set ylabel 'power per interval E_q / {/Symbol D}t (W)'\n", s);
	if (o->log_y)
		fputs("set logscale y\n", s);
	else
		fputs("set yrange [0:*]\n", s);
	if (t->t1 > t->t0)
		fprintf(s, "set xrange [%.9g:%.9g]\n", t->t0, t->t1);
}

/* Each recording's band from the lowest to the highest interval power of
 * each pixel column and its mean power (a line); below, where the samples
 * tell idle, the idle share of each column's time in a strip of its own. */
static void plot_envelope(FILE *s, const struct power_input *const *in,
			  const char *const *names, const char (*path)[320], size_t n,
			  const struct power_trace_opts *t, const struct power_plot_opts *o,
			  int w, int h)
{
	double line, key, strip_b, strip_t;
	int idle = 0;
	size_t i;

	for (i = 0; i < n; i++)
		idle |= o->mark_idle && in[i]->basis == POWER_BASIS_SAMPLES;
	title_of(s, t->t1 > t->t0 ? "Power vs time (part, envelope per pixel column)" :
		 "Power vs time (envelope per pixel column)", names, n, o->title);
	trace_axes(s, t, o);
	if (t->window > 1)
		fprintf(s, "set ylabel 'power, mean over %u intervals (W)'\n", t->window);
	/* in fractions of the height: a line of text, the key's rows (both
	 * entries of a recording side by side when wide enough) under the
	 * idle strip (its tics and label), the strip (a fifth) */
	line = 20.0 / (double)(h > 100 ? h : 100);
	key = (double)n * (w >= 800 ? 1 : 2) * line + 0.01;
	strip_b = key + 2.6 * line;
	strip_t = strip_b + 0.2 * (1 - strip_b);
	fputs("set autoscale xfix\n", s);
	plot_markers(s, in[0], t);
	if (idle) /* the key under the idle strip, at the bottom as in plain traces */
		fprintf(s, "set key at screen 0.5, screen 0.01 center bottom horizontal\n"
			"set multiplot\nset lmargin 11\nset rmargin 3\n"
			"set tmargin at screen %.4f\nset bmargin at screen %.4f\n"
			"set xlabel ' '\nset format x ''\n", 1 - 2 * line, strip_t + line);
	fputs("plot ", s);
	for (i = 0; i < n; i++) {
		const char *c = colors[i % NCOLORS];

		plot_quote(s, path[i]);
		fprintf(s, " using 1:2:3 with filledcurves fs transparent solid 0.35 noborder "
			"lc rgb '%s' title ", c);
		plot_quote(s, names[i]);
		fputs(" . ' (lowest..highest)', \\\n  ", s);
		plot_quote(s, path[i]);
		fprintf(s, " using 1:4 with lines lw 1.5 lc rgb '%s' title ", c);
		plot_quote(s, names[i]);
		fputs(" . ' mean'", s);
		fputs(i + 1 < n ? ", \\\n  " : "\n", s);
	}
	if (!idle)
		return;
	fprintf(s, "unset title\nunset arrow\nunset label\nset tmargin at screen %.4f\n"
		"set bmargin at screen %.4f\n", strip_t, strip_b);
	fputs("set format x '%g'\nset xlabel 'time since the first sample (s)'\n"
	      "unset logscale y\nset yrange [0:100]\nset ytics 0,50,100\n"
	      "set ylabel 'idle (% of time)'\nunset key\nplot ", s);
	for (i = 0; i < n; i++) {
		if (in[i]->basis != POWER_BASIS_SAMPLES)
			continue;
		plot_quote(s, path[i]);
		fprintf(s, " using 1:(0):5 with filledcurves fs transparent solid 0.35 noborder "
			"lc rgb '%s' notitle, \\\n  ", n > 1 ? colors[i % NCOLORS] : "#ff7f0e");
	}
	fputs("1/0 notitle\nunset multiplot\n", s);
}

int power_plot_trace(const char *out, const struct power_input *const *in, size_t n,
		     const struct power_trace_opts *t, const struct power_plot_opts *o,
		     struct eq_error *err)
{
	return power_plot_trace_to(NULL, out, in, n, t, o, err);
}

int power_plot_trace_to(struct eq_outfile *dst, const char *out,
			const struct power_input *const *in, size_t n,
			const struct power_trace_opts *t, const struct power_plot_opts *o,
			struct eq_error *err)
{
	struct plot pl;
	char path[8][320];
	const char *names[8];
	size_t i;
	int w, h, env, rc = 0;

	if (n > 8)
		return eq_fail(err, "%s: at most 8 recordings in one trace plot", out);
	if (plot_begin(&pl, err) < 0)
		return -1;
	dims(o, &w, &h);
	env = wants_envelope(in, n, t, (size_t)w);
	for (i = 0; i < n && rc == 0; i++) {
		names[i] = in[i]->name;
		rc = env ? envelope_data(&pl, in[i], t, (size_t)w, path[i], sizeof(path[i]), err) :
		     trace_data(&pl, in[i], t, path[i], sizeof(path[i]), err);
	}
	if (rc == 0 && env) {
		plot_envelope(pl.script, in, names, (const char (*)[320])path, n, t, o, w, h);
		rc = dst ? plot_render_to(&pl, dst, out, w, h, err) : plot_render(&pl, out, w, h, err);
	} else if (rc == 0) {
		FILE *s = pl.script;

		title_of(s, t->t1 > t->t0 ? "Power vs time (close-up)" : "Power vs time",
			 names, n, o->title);
		trace_axes(s, t, o);
		plot_markers(s, in[0], t);
		fputs("plot ", s);
		for (i = 0; i < n; i++) {
			fputs(i ? ", \\\n  " : "", s);
			plot_quote(s, path[i]);
			fprintf(s, " using 1:2 with fsteps lw 1 lc rgb '%s' title ",
				colors[i % NCOLORS]);
			plot_quote(s, names[i]);
			if (o->mark_idle && in[i]->basis == POWER_BASIS_SAMPLES) {
				fputs(", \\\n  ", s);
				plot_quote(s, path[i]);
				fputs(" using 1:($3 == 1 ? $2 : 1/0) with points "
				      "pt 7 ps 0.35 lc rgb '#ff7f0e' title ", s);
				plot_quote(s, n > 1 ? names[i] : "idle intervals");
				if (n > 1)
					fputs(" . ' idle'", s);
			}
		}
		fputc('\n', s);
		rc = dst ? plot_render_to(&pl, dst, out, w, h, err) : plot_render(&pl, out, w, h, err);
	}
	plot_end(&pl);
	return rc;
}

/* Highest bucket worth showing: 99.9 % of every histogram's intervals lie
 * below it, so one glitch does not squash the plot into its left edge. */
static size_t hist_hi(const struct power_hist *h, size_t n)
{
	size_t i, k, hi = 1;

	for (i = 0; i < n; i++) {
		uint64_t sum = 0;

		for (k = 0; k < h[i].nbuckets; k++) {
			sum += h[i].all[k];
			if ((double)sum >= 0.999 * (double)h[i].total)
				break;
		}
		if (k + 2 > hi)
			hi = k + 2;
	}
	return hi;
}

/* The first bucket any histogram uses (log buckets start far below). */
static size_t hist_lo(const struct power_hist *h, size_t n)
{
	size_t i, k, lo = SIZE_MAX;

	for (i = 0; i < n; i++)
		for (k = 0; k < h[i].nbuckets && k < lo; k++)
			if (h[i].all[k]) {
				lo = k;
				break;
			}
	return lo == SIZE_MAX ? 0 : lo;
}

static int hist_data(struct plot *pl, const struct power_hist *h, char *path,
		     size_t size, struct eq_error *err)
{
	FILE *f = plot_data(pl, path, size, err);
	size_t k;

	if (!f)
		return -1;
	for (k = 0; k < h->nbuckets; k++)
		fprintf(f, "%.9g %.6f %.6f %.6f\n",
			h->per_decade ? sqrt(power_hist_lo(h, k) * power_hist_hi(h, k)) :
			(k + 0.5) * h->bucket_w,
			power_hist_pct(h, k, POWER_HIST_ALL),
			power_hist_pct(h, k, POWER_HIST_IDLE),
			power_hist_pct(h, k, POWER_HIST_BUSY));
	if (fclose(f) != 0)
		return eq_fail(err, "writing %s failed", path);
	return 0;
}

static void hist_series(FILE *s, const char *path, const char *name, size_t i,
			int split, int first)
{
	const char *c = colors[i % NCOLORS];

	fputs(first ? "" : ", \\\n  ", s);
	plot_quote(s, path);
	if (!split) {
		fprintf(s, " using 1:2 with histeps lw 2 lc rgb '%s' title ", c);
		plot_quote(s, name);
		return;
	}
	fprintf(s, " using 1:4 with histeps lw 2 lc rgb '%s' title ", c);
	plot_quote(s, name);
	fputs(" . ' busy'", s);
	fputs(", \\\n  ", s);
	plot_quote(s, path);
	fprintf(s, " using 1:3 with histeps lw 2 dt 2 lc rgb '%s' title ", c);
	plot_quote(s, name);
	fputs(" . ' idle'", s);
}

int power_plot_hist(const char *out, const struct power_hist *h,
		    const char *const *names, size_t n,
		    const struct power_plot_opts *o, struct eq_error *err)
{
	return power_plot_hist_to(NULL, out, h, names, n, o, err);
}

int power_plot_hist_to(struct eq_outfile *dst, const char *out, const struct power_hist *h,
		       const char *const *names, size_t n,
		       const struct power_plot_opts *o, struct eq_error *err)
{
	struct plot pl;
	char path[8][320], bucket[32];
	size_t i;
	int w, ht, rc = 0;

	if (n > 8)
		return eq_fail(err, "%s: at most 8 recordings in one histogram plot", out);
	if (plot_begin(&pl, err) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++)
		rc = hist_data(&pl, &h[i], path[i], sizeof(path[i]), err);
	if (rc == 0) {
		FILE *s = pl.script;

		title_of(s, "Power histogram", names, n, o->title);
		if (h[0].per_decade) {
			size_t lo = hist_lo(h, n);

			snprintf(bucket, sizeof(bucket), "%u per decade", h[0].per_decade);
			fprintf(s, "set logscale x\nset xrange [%.9g:%.9g]\n", power_hist_lo(&h[0], lo),
				power_hist_lo(&h[0], hist_hi(h, n)));
		} else {
			eq_format_quantity(bucket, sizeof(bucket), h[0].bucket_w, "W");
			fprintf(s, "set xrange [0:%.9g]\n", hist_hi(h, n) * h[0].bucket_w);
		}
		fprintf(s, "set grid\nset key below noenhanced\n"
			   "set xlabel 'average power in the interval before the sample (W), %s buckets'\n"
			   "set ylabel 'samples (%%)'\nset yrange [0:*]\n", bucket);
		if (o->log_y)
			fputs("set logscale y\nset yrange [0.01:*]\n", s);
		fputs("plot ", s);
		for (i = 0; i < n; i++)
			hist_series(s, path[i], names[i], i, o->split_idle, i == 0);
		fputc('\n', s);
		dims(o, &w, &ht);
		rc = dst ? plot_render_to(&pl, dst, out, w, ht, err) : plot_render(&pl, out, w, ht, err);
	}
	plot_end(&pl);
	return rc;
}
