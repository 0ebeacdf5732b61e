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
	int w, h, rc = 0;

	if (n > 8)
		return eq_fail(err, "%s: at most 8 recordings in one trace plot", out);
	if (plot_begin(&pl, err) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		names[i] = in[i]->name;
		rc = trace_data(&pl, in[i], t, path[i], sizeof(path[i]), err);
	}
	if (rc == 0) {
		FILE *s = pl.script;

		title_of(s, t->t1 > t->t0 ? "Power vs time (close-up)" : "Power vs time",
			 names, n, o->title);
		trace_axes(s, t, o);
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
		dims(o, &w, &h);
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
