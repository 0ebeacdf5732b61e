/*
 * power_plot.h - power traces and histograms as PNG or SVG through gnuplot
 * (plot.h), one or several recordings per plot.
 */
#ifndef EQ_POWER_PLOT_H
#define EQ_POWER_PLOT_H

#include "power/power.h"

struct power_plot_opts {
	const char *title;         /* NULL: made from the recordings' names */
	int log_y;                 /* logarithmic power axis */
	int mark_idle;             /* trace: idle intervals as points */
	int split_idle;            /* histogram: idle and busy intervals apart */
	int width, height;         /* pixels; 0: 1000 x 600 */
};

/* Trace of each input (Figures 6, 7); several inputs are overlaid. */
int power_plot_trace(const char *out, const struct power_input *const *in, size_t n,
		     const struct power_trace_opts *t, const struct power_plot_opts *o,
		     struct eq_error *err);
/* The same, into an output the caller opened and commits (several
 * outputs of one command, all or nothing). */
struct eq_outfile;
int power_plot_trace_to(struct eq_outfile *dst, const char *out,
			const struct power_input *const *in, size_t n,
			const struct power_trace_opts *t, const struct power_plot_opts *o,
			struct eq_error *err);
int power_plot_hist_to(struct eq_outfile *dst, const char *out, const struct power_hist *h,
		       const char *const *names, size_t n,
		       const struct power_plot_opts *o, struct eq_error *err);

/* Histograms overlaid on one plot (Figures 9-11). */
int power_plot_hist(const char *out, const struct power_hist *h,
		    const char *const *names, size_t n,
		    const struct power_plot_opts *o, struct eq_error *err);

#endif
