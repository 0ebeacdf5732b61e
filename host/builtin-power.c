/*
 * builtin-power.c - `eqprof power`: summaries (seed 001 Table 4), traces,
 * histograms and region energy from one or more recordings.
 * docs/power.md is the user's reference.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "align/align.h"
#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "power_by.h"
#include "util/labels.h"
#include "file/eqp.h"
#include "file/outfile.h"
#include "power/plot.h"
#include "power/power.h"
#include "power/power_plot.h"
#include "report_common.h"
#include "util/units.h"

#define MAX_FILES 8
#define MAX_OUTS 4
#define MAX_REGIONS 32

struct power_args {
	int summary, markers, split_idle, log_y, mark_idle, runs;
	int verbose;               /* -v: a balanced board cross-check too */
	int quiet;                 /* -q: no notes */
	enum power_format fmt;
	enum power_basis basis;
	const char *output, *title;
	const char *traces[MAX_OUTS], *hists[MAX_OUTS];
	size_t ntraces, nhists;
	struct power_trace_opts trace;
	double bucket_w;
	struct power_region regions[MAX_REGIONS];
	size_t nregions;
	int width, height;
	char **files;
	size_t nfiles;
	const char *labels[MAX_FILES];  /* --label, in the files' order */
	size_t nlabels;
	const struct eqp_file *eqps[MAX_FILES]; /* the opened recordings */
	struct eq_range range;          /* --from/--to */
	unsigned per_decade;            /* --bucket N/decade: log histogram buckets */
	double battery_j;               /* --battery: capacity */
	const char *battery;
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eq_verror_msg(fmt, ap);
	va_end(ap);
	fputs("'eqprof power --help' lists the options\n", stderr);
	return 2;
}

static int parse_range(const char *text, const char *what, double *t0, double *t1,
		       struct eq_error *err)
{
	char *copy = strdup(text), *colon;
	int rc = -1;

	if (!copy)
		return eq_fail(err, "out of memory");
	colon = strchr(copy, ':');
	if (!colon) {
		eq_fail(err, "%s '%s': give START:END in seconds, e.g. 2:2.5 or 1500ms:2s", what, text);
		free(copy);
		return -1;
	}
	*colon = '\0';
	if (eq_parse_quantity(copy, "s", what, t0, err) < 0 ||
	    eq_parse_quantity(colon + 1, "s", what, t1, err) < 0)
		;
	else if (!(*t1 > *t0))
		eq_fail(err, "%s '%s': the end must come after the start", what, text);
	else
		rc = 0;
	free(copy);
	return rc;
}

static int parse_choice(const char *arg, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	return -1;
}

/* ---- the options ----------------------------------------------------------- */

#define POWER_MAIN EQ_MODE_MAIN
#define POWER_BY   0x2u            /* --by proc: builtin-power-by.c */
#define MAIN       .modes = POWER_MAIN
#define BY         .modes = POWER_BY

static struct power_args *args_of(const struct eq_option *opt)
{
	return opt->value;
}

static int opt_format(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	static const char *const fmts[] = { "table", "csv", "json" };
	int k = parse_choice(arg, fmts, 3);

	if (k < 0)
		return eq_fail(err, "--format '%s': use table, csv or json", arg);
	args_of(opt)->fmt = (enum power_format)k;
	return 0;
}

static int opt_source(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	static const char *const bases[] = { "auto", "samples", "board", "source" };
	int k = parse_choice(arg, bases, 4);

	if (k < 0)
		return eq_fail(err, "--source '%s': use auto, samples, board or source", arg);
	args_of(opt)->basis = k == 3 ? POWER_BASIS_SOURCE : (enum power_basis)k;
	return 0;
}

static int opt_window(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	unsigned long long n;

	if (eq_parse_uint(arg, "--window", 1000000, &n, err) < 0 || n == 0)
		return eq_fail(err, "--window '%s': give a number of intervals from 1 to 1000000", arg);
	args_of(opt)->trace.window = (unsigned)n;
	return 0;
}

static int opt_bucket(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct power_args *a = args_of(opt);
	unsigned long long n;

	if (strstr(arg, "/decade")) {
		if (eq_parse_uint(arg, "--bucket", POWER_FINE_PER_DECADE, &n, err) == 0 ||
		    sscanf(arg, "%llu/decade", &n) != 1 || n < 1 || POWER_FINE_PER_DECADE % n)
			return eq_fail(err, "--bucket '%s': give N/decade with N one of 1, 2, 4, 8, "
				       "16, 32, 64, 128", arg);
		a->per_decade = (unsigned)n;
		return 0;
	}
	if (eq_parse_quantity(arg, "W", "--bucket", &a->bucket_w, err) < 0 || !(a->bucket_w > 0))
		return eq_fail(err, "--bucket '%s': give a positive power such as 50mW", arg);
	return 0;
}

static int opt_battery(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct power_args *a = args_of(opt);

	a->battery = arg;
	return eq_parse_capacity(arg, "--battery", &a->battery_j, err);
}

static int opt_close_up(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct power_args *a = args_of(opt);

	return parse_range(arg, "--range", &a->trace.t0, &a->trace.t1, err);
}

static int opt_region(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct power_args *a = args_of(opt);
	struct power_region *r = &a->regions[a->nregions];

	if (a->nregions == MAX_REGIONS)
		return eq_fail(err, "--region %s: at most 32 regions", arg);
	snprintf(r->label, sizeof(r->label), "%s", arg);
	if (parse_range(arg, "--region", &r->t0, &r->t1, err) < 0)
		return -1;
	a->nregions++;
	return 0;
}

static int opt_size(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct power_args *a = args_of(opt);

	if (sscanf(arg, "%dx%d", &a->width, &a->height) != 2 || a->width < 200 ||
	    a->height < 150 || a->width > 10000 || a->height > 10000)
		return eq_fail(err, "--size '%s': give WIDTHxHEIGHT in pixels, e.g. 1000x600", arg);
	return 0;
}

/* --trace, --hist: up to MAX_OUTS files each */
static int opt_out(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct power_args *a = args_of(opt);
	int trace = !strcmp(opt->long_name, "trace");
	size_t *n = trace ? &a->ntraces : &a->nhists;

	if (*n == MAX_OUTS)
		return eq_fail(err, "--%s %s: at most 4 %s outputs", opt->long_name, arg,
			       trace ? "trace" : "histogram");
	(trace ? a->traces : a->hists)[(*n)++] = arg;
	return 0;
}

static int opt_label(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct power_args *a = args_of(opt);

	if (a->nlabels == MAX_FILES)
		return eq_fail(err, "--label %s: at most 8 labels, one a recording", arg);
	if (!*arg)
		return eq_fail(err, "--label: give a name (an empty one names nothing)");
	a->labels[a->nlabels++] = arg;
	return 0;
}

static int opt_by(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	if (strcmp(arg, "proc"))
		return eq_fail(err, "--by: power by regression is per procedure: --by proc");
	return 0;
}

#define FLAG(l, field, v, h) \
	{ .type = EQ_OPTION_FLAG, .long_name = (l), .value = &a->field, .defval = (v), MAIN, \
	  .help = (h) }
#define CB(l, arg, h, f, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = (l), .value = a, .argh = (arg), .help = (h), \
	  .cb = (f), __VA_ARGS__ }

static const char power_usage[] =
	"eqprof power [options] FILE.eqp...\n"
	"eqprof power --by proc [options] FILE.eqp\n";

static const char power_footer[] =
	"docs/power.md has the details and the exact CSV/JSON columns.\n";

/* power's options into a (power --by proc's into by); the recordings named
 * are left in argv[0..n); n, or EQ_PARSE_HELP/ERROR. */
static int parse_power_options(int argc, char **argv, struct power_args *a,
			       struct power_by_args *by, unsigned *mode)
{
	const struct eq_option options[] = {
		{ .type = EQ_OPTION_ARG, .argh = "FILE.eqp", MAIN,
		  .help = "recordings (several: one row, trace or histogram each)" },
		FLAG("summary", summary, 1, "duration, samples, average frequency and power, energy,\n"
					    "idle and lost samples; one row per file (the default)"),
		FLAG("runs", runs, 1, "the files are repeated runs of the same work: the summary\n"
				      "adds the mean over the runs of duration, power and energy,\n"
				      "their SD and the 95% interval of the mean, and each\n"
				      "procedure's energy per run with its mean, SD and interval"),
		CB("format", "F", "table (default), csv or json", opt_format,
		   .complete = "table csv json"),
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output",
		  .value = &a->output, .argh = "OUT", .complete = EQ_COMPLETE_FILE,
		  .help = "write the summary and regions (--by proc: the fit) there\n"
			  "(atomically) instead of standard output" },
		CB("trace", "OUT", "power per interval (E_q / dt) against time: .csv (data), or\n"
				   "a plot: .png, .svg, .pdf, .jpg", opt_out, MAIN,
		   .flags = EQ_OPT_REPEAT, .complete = EQ_COMPLETE_FILE),
		CB("window", "N", "moving window over N intervals (default 1)", opt_window, MAIN),
		CB("range", "T0:T1", "close-up, seconds since the first sample (\"2:2.5\", \"1500ms:2s\")",
		   opt_close_up, MAIN),
		FLAG("log", log_y, 1, "logarithmic power axis (plots)"),
		FLAG("linear", log_y, 0, "linear power axis (plots; the default)"),
		FLAG("no-idle-marks", mark_idle, 0, "no marks of idle stretches on the trace"),
		CB("hist", "OUT", "percentage of samples per power bucket; several files overlay",
		   opt_out, MAIN, .flags = EQ_OPT_REPEAT, .complete = EQ_COMPLETE_FILE),
		CB("bucket", "W", "histogram bucket width (default 50mW), or N/decade: N\n"
				  "logarithmic buckets per decade (1, 2, 4, ... 128)", opt_bucket, MAIN),
		FLAG("split-idle", split_idle, 1, "histogram of idle and busy samples apart"),
		CB("region", "T0:T1", "energy, time and average power between two times",
		   opt_region, MAIN, .flags = EQ_OPT_REPEAT),
		FLAG("markers", markers, 1, "the same between each pair of consecutive markers"),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "from", .value = &a->range, .argh = "T",
		  .cb = eq_ropt_range, MAIN,
		  .help = "a stretch of the run (seconds since the first sample): its\n"
			  "energy with bounds, average, peak, minimum and median power\n"
			  "instead of the summary; --trace and --hist of it only (the\n"
			  "numbers eqprof view shows for a selection)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "to", .value = &a->range, .argh = "T",
		  .cb = eq_ropt_range, MAIN, .help = "the stretch's end (with --from, or alone)" },
		CB("battery", "C", "with --from/--to: the battery life at the range's average\n"
				   "power for capacity C (20Wh, 55kJ, 3000mAh@3.85V)", opt_battery, MAIN),
		CB("label", "NAME", "what names the recording in rows, legends and CSV columns,\n"
				    "once per file in their order (default: the shortest end of\n"
				    "each path that tells the files apart)", opt_label, MAIN,
		   .flags = EQ_OPT_REPEAT),
		CB("source", "S", "where power comes from: energy-driven samples, the board\n"
				  "stream, or the energy source read alongside time-driven\n"
				  "samples (record -t --energy; its first domain) (default:\n"
				  "samples if energy-driven, else the board, else the source)",
		   opt_source, MAIN, .complete = "auto samples board source"),
		{ .type = EQ_OPTION_STRING, .long_name = "title", .value = &a->title, .argh = "TEXT",
		  MAIN, .help = "the plots' title" },
		CB("size", "WxH", "the plots' size in pixels (e.g. 1000x600)", opt_size, MAIN),
		OPT_QUIET(&a->quiet, "no notes (warnings are still said)"),
		OPT_VERBOSE(&a->verbose, "notes in full (a balanced board cross-check is said only then)"),
		OPT_GROUP("Power per procedure by regression (seed 002):"),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "by", .argh = "proc", .cb = opt_by,
		  .flags = EQ_OPT_MODE, .defmode = POWER_BY, .complete = "proc",
		  .help = "the device's power while each procedure runs, by weighted\n"
			  "least squares of the energy of intervals on the procedures'\n"
			  "times in them (from time-driven samples), with 95% intervals\n"
			  "and collinearity warnings; one recording (docs/power.md)" },
		POWER_BY_OPTIONS(by),
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "power", .usage = power_usage, .options = options, .footer = power_footer,
		.mode_names = { NULL, "--by proc" },
	};

	memset(a, 0, sizeof(*a));
	a->trace.window = 1;
	a->bucket_w = 0.050;
	a->mark_idle = 1;
	a->output = "-";
	power_by_init(by);
	return eq_parse_options(&cmd, argc, argv, mode);
}

/* After the options: the recordings and the options taken together. */
static int check_args(struct power_args *a, int n, char **argv)
{
	a->files = argv;
	a->nfiles = (size_t)n;
	if (a->nfiles == 0)
		return usage_error("%s", "give at least one recording (FILE.eqp)");
	if (a->nfiles > MAX_FILES)
		return usage_error("%s", "at most 8 recordings at once");
	if (a->nlabels && a->nlabels != a->nfiles)
		return usage_error("%zu --label for %zu recording%s: give one a recording, in their order",
				   a->nlabels, a->nfiles, a->nfiles == 1 ? "" : "s");
	if (!a->nlabels)
		eq_path_labels((const char *const *)a->files, a->nfiles, a->labels);
	if (!a->ntraces && !a->nhists && !a->nregions && !a->markers)
		a->summary = 1;
	if (eq_range_active(&a->range)) {
		if (a->runs || a->nregions || a->markers)
			return usage_error("%s", "--from/--to measure one stretch: leave out --runs, "
						 "--region and --markers (or use --region T0:T1 alone)");
		if (a->trace.t1 > a->trace.t0)
			return usage_error("%s", "--range and --from/--to both pick the stretch: give one");
	} else if (a->battery) {
		return usage_error("%s", "--battery needs --from/--to (use --from 0 for the whole run)");
	}
	/* -o is where the summary and regions go; traces and histograms name
	 * their own files.  Given with nothing to put in it, say so. */
	if (strcmp(a->output, "-") != 0 && !a->summary && !a->nregions && !a->markers)
		return usage_error("-o %s: only the summary and regions are written there; "
				   "--trace and --hist name their own files (add --summary, or "
				   "leave -o out)", a->output);
	if (a->summary && (a->nregions || a->markers) && a->fmt == POWER_FMT_JSON)
		return usage_error("%s", "--format json prints one document: ask for --summary "
					 "and regions in two runs");
	return 0;
}

/* ---- the outputs ------------------------------------------------------------ */

struct runs_arg {
	const struct power_summary *s;
	size_t n;
	enum power_format fmt;
};

static void runs_json(FILE *out, const void *arg)
{
	const struct runs_arg *r = arg;

	power_summary_print_runs(out, r->s, r->n, r->fmt);
}

static void procs_json(FILE *out, const void *arg)
{
	power_procs_print(out, arg, POWER_FMT_JSON);
}

/* --runs: the summary with the runs' statistics, then per procedure (table
 * and JSON; the CSV stays one table). */
static int print_runs(const struct power_args *a, const struct power_summary *s, FILE *out,
		      struct eq_error *err)
{
	struct power_procs *pp = NULL;
	int rc;

	if (a->fmt != POWER_FMT_CSV) {
		pp = power_procs_build(a->eqps, a->nlabels ? a->labels : (const char *const *)a->files,
				       a->nfiles, err);
		if (!pp)
			return -1;
	}
	if (a->fmt != POWER_FMT_JSON) {
		power_summary_print_runs(out, s, a->nfiles, a->fmt);
		if (pp)
			power_procs_print(out, pp, a->fmt);
		power_procs_free(pp);
		return 0;
	}
	/* the summary's object with "procedures" added */
	{
		struct runs_arg ra = { s, a->nfiles, a->fmt };

		rc = eq_json_add_member(out, runs_json, &ra, "procedures", procs_json, pp);
	}
	if (rc < 0) {
		power_procs_free(pp);
		return eq_fail(err, "out of memory");
	}
	power_procs_free(pp);
	return 0;
}

/* --from/--to: the range of every file instead of the summary. */
static int print_ranges(const struct power_args *a, struct power_input *in,
			FILE *out, struct eq_error *err)
{
	struct power_range r[MAX_FILES];
	const char *names[MAX_FILES];
	size_t i, done;
	int rc = 0;

	for (done = 0; done < a->nfiles; done++) {
		names[done] = in[done].name;
		if (power_range_measure(&in[done], &a->range, eqp_meta(a->eqps[done])->clock_hz > 0 ?
					eqp_meta(a->eqps[done])->clock_hz : 1e9, &r[done], err) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc == 0)
		power_range_print(out, r, names, a->nfiles, a->battery_j, a->battery, a->fmt);
	for (i = 0; i < done; i++)
		power_range_free(&r[i]);
	return rc;
}

static int print_summaries(const struct power_args *a, struct power_input *in,
			   FILE *out, struct eq_error *err)
{
	struct power_summary s[MAX_FILES];
	size_t i;

	if (eq_range_active(&a->range))
		return print_ranges(a, in, out, err);
	for (i = 0; i < a->nfiles; i++)
		if (power_summarize(&in[i], &s[i], err) < 0)
			return -1;
	if (a->runs)
		return print_runs(a, s, out, err);
	else
		power_summary_print(out, s, a->nfiles, a->fmt);
	for (i = 0; i < a->nfiles; i++)
		if (s[i].basis == POWER_BASIS_NONE && out != stderr && a->fmt != POWER_FMT_TABLE)
			eq_error_msg("%s: no power: %s", s[i].name, s[i].why_none);
	return 0;
}

/* Regions of every file, asked by time and by markers, printed as one list. */
static int print_regions(const struct power_args *a, struct power_input *in,
			 FILE *out, struct eq_error *err)
{
	struct power_region *all = NULL, *mk = NULL, *grown;
	size_t i, j, n = 0, nmk = 0;
	int rc = -1;

	for (i = 0; i < a->nfiles; i++) {
		if (a->markers && power_regions_from_markers(&in[i], &mk, &nmk, err) < 0)
			goto out;
		grown = realloc(all, (n + a->nregions + nmk + 1) * sizeof(*all));
		if (!grown) {
			eq_fail(err, "out of memory");
			goto out;
		}
		all = grown;
		for (j = 0; j < a->nregions; j++) {
			all[n] = a->regions[j];
			if (power_region_measure(&in[i], &all[n], err) < 0)
				goto out;
			n++;
		}
		for (j = 0; j < nmk; j++)
			all[n++] = mk[j];
		if (a->nfiles > 1)
			for (j = n - a->nregions - nmk; j < n; j++) {
				char tmp[sizeof(all[j].label)];

				snprintf(tmp, sizeof(tmp), "%s", all[j].label);
				snprintf(all[j].label, sizeof(all[j].label), "%.40s %.80s",
					 in[i].name, tmp);
			}
		free(mk);
		mk = NULL;
		nmk = 0;
	}
	power_region_print(out, all, n, a->fmt);
	rc = 0;
out:
	free(mk);
	free(all);
	return rc;
}

struct csv_ctx {
	FILE *out;
	const char *name;
};

static int csv_multi_point(void *ctx, const struct power_point *p)
{
	struct csv_ctx *c = ctx;

	fprintf(c->out, "%s,%.9f,%.6f,", c->name, p->t, p->power_w);
	if (p->idle >= 0)
		fprintf(c->out, "%d", p->idle);
	fputc('\n', c->out);
	return ferror(c->out) ? -1 : 0;
}

static int write_trace_csv(struct eq_outfile *o, const struct power_args *a,
			   struct power_input *in, struct eq_error *err)
{
	size_t i;
	int rc = 0;

	if (a->nfiles == 1) {
		rc = power_trace_write_csv(o->fp, &in[0], &a->trace, err);
	} else {
		fprintf(o->fp, "recording,time_s,power_w,idle\n");
		for (i = 0; i < a->nfiles && rc == 0; i++) {
			struct csv_ctx c = { o->fp, in[i].name };

			rc = power_trace_walk(&in[i], &a->trace, csv_multi_point, &c, err);
		}
	}
	return rc;
}

static void plot_opts(const struct power_args *a, struct power_plot_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->title = a->title;
	po->log_y = a->log_y;
	po->mark_idle = a->mark_idle;
	po->split_idle = a->split_idle;
	po->width = a->width;
	po->height = a->height;
}

static int write_traces(const struct power_args *a, struct power_input *in,
			struct eq_outfile *outs, struct eq_error *err)
{
	const struct power_input *ptr[MAX_FILES];
	struct power_plot_opts po;
	size_t i;

	if (eq_range_active(&a->range)) {
		/* the first recording's clock rounds the ends (range.h) */
		double hz = eqp_meta(a->eqps[0])->clock_hz > 0 ? eqp_meta(a->eqps[0])->clock_hz : 1e9;
		struct power_args *w = (struct power_args *)a;

		eq_range_edges(&a->range, hz, &w->trace.t0, &w->trace.t1);
		if (!isfinite(w->trace.t0))
			w->trace.t0 = 0;
		if (!isfinite(w->trace.t1))
			w->trace.t1 = 1e18;
	}
	plot_opts(a, &po);
	for (i = 0; i < a->nfiles; i++)
		ptr[i] = &in[i];
	for (i = 0; i < a->ntraces; i++) {
		int rc = plot_kind_of(a->traces[i]) == PLOT_NONE ?
			 write_trace_csv(&outs[i], a, in, err) :
			 power_plot_trace_to(&outs[i], a->traces[i], ptr, a->nfiles, &a->trace,
					     &po, err);

		if (rc < 0)
			return -1;
	}
	return 0;
}

static int write_hist_csv(struct eq_outfile *o, const struct power_hist *h,
			  const char *const *names, size_t n, int split,
			  struct eq_error *err)
{
	if (power_hist_write_csv(o->fp, h, names, n, split) < 0)
		return eq_fail(err, "writing %s failed", o->path ? o->path : "standard output");
	return 0;
}

static int write_hists(const struct power_args *a, struct power_input *in,
		       struct eq_outfile *outs, struct eq_error *err)
{
	struct power_hist h[MAX_FILES];
	const char *names[MAX_FILES];
	struct power_plot_opts po;
	size_t i, built = 0;
	int rc = 0;

	plot_opts(a, &po);
	for (i = 0; i < a->nfiles && rc == 0; i++, built++) {
		names[i] = in[i].name;
		rc = a->per_decade ? power_hist_init_log(&h[i], a->per_decade, err) :
		     power_hist_init(&h[i], a->bucket_w, err);
		if (rc == 0 && eq_range_active(&a->range)) {
			double t0, t1;

			eq_range_edges(&a->range, eqp_meta(a->eqps[i])->clock_hz > 0 ?
				       eqp_meta(a->eqps[i])->clock_hz : 1e9, &t0, &t1);
			rc = power_hist_build_range(&h[i], &in[i], t0, t1, err);
		} else if (rc == 0) {
			rc = power_hist_build(&h[i], &in[i], err);
		}
		if (rc == 0 && a->split_idle && !h[i].idle_known)
			rc = eq_fail(err, "%s: --split-idle: the board stream cannot tell idle "
				     "intervals; use energy-driven samples", in[i].name);
	}
	for (i = 0; i < a->nhists && rc == 0; i++)
		rc = plot_kind_of(a->hists[i]) == PLOT_NONE ?
		     write_hist_csv(&outs[i], h, names, a->nfiles, a->split_idle, err) :
		     power_plot_hist_to(&outs[i], a->hists[i], h, names, a->nfiles, &po, err);
	for (i = 0; i < built; i++)
		power_hist_free(&h[i]);
	return rc;
}

/* Every output is opened before anything is written and committed only
 * when all are complete: `--trace ok.csv --hist /bad/h.csv` leaves no
 * ok.csv behind. */
static int run(const struct power_args *a, struct power_input *in, struct eq_error *err)
{
	static struct eq_outfile outs[1 + 2 * MAX_OUTS];
	struct eq_outfile *all[1 + 2 * MAX_OUTS];
	const char *names[1 + 2 * MAX_OUTS];
	size_t i, n = 0, first_trace, first_hist;
	int rc = 0, text = a->summary || a->nregions || a->markers;

	if (text)
		names[n++] = a->output;
	first_trace = n;
	for (i = 0; i < a->ntraces; i++)
		names[n++] = a->traces[i];
	first_hist = n;
	for (i = 0; i < a->nhists; i++)
		names[n++] = a->hists[i];
	for (i = 0; i < n; i++) {
		if (eq_output_not_input(names[i], (const char *const *)a->files, a->nfiles, err) < 0 ||
		    (i >= first_trace && plot_check_output(names[i], i >= first_hist ? "--hist" : "--trace",
							    err) < 0) ||
		    eq_outfile_open(&outs[i], names[i], err) < 0) {
			while (i--)
				eq_outfile_discard(&outs[i]);
			return -1;
		}
		all[i] = &outs[i];
	}
	if (text) {
		FILE *fp = outs[0].fp;

		if (a->summary)
			rc = print_summaries(a, in, fp, err);
		if (rc == 0 && a->summary && (a->nregions || a->markers) && a->fmt == POWER_FMT_TABLE)
			fputc('\n', fp);
		if (rc == 0 && (a->nregions || a->markers))
			rc = print_regions(a, in, fp, err);
	}
	if (rc == 0 && a->ntraces)
		rc = write_traces(a, in, outs + first_trace, err);
	if (rc == 0 && a->nhists)
		rc = write_hists(a, in, outs + first_hist, err);
	if (rc < 0) {
		for (i = 0; i < n; i++)
			eq_outfile_discard(&outs[i]);
		return -1;
	}
	return eq_outfile_commit_all(all, n, err);
}

int cmd_power(int argc, char **argv)
{
	static struct power_args a;
	static struct power_by_args by;
	struct eqp_file *f[MAX_FILES] = { 0 };
	struct power_input in[MAX_FILES];
	struct eq_error err;
	size_t i, opened = 0;
	unsigned mode;
	int rc, n;

	n = parse_power_options(argc, argv, &a, &by, &mode);
	if (n < 0)
		return EQ_PARSE_STATUS(n);
	if (mode == POWER_BY) {
		/* power per procedure: builtin-power-by.c */
		if (n != 1)
			return eq_usage_error(&(struct eq_command){ .name = "power",
								    .mode_names = { NULL, "--by proc" } },
					      POWER_BY, "--by proc takes one recording");
		return cmd_power_by(&by, argv[0], (enum eq_format)a.fmt,
				    strcmp(a.output, "-") ? a.output : NULL);
	}
	rc = check_args(&a, n, argv);
	if (rc)
		return rc;
	for (i = 0; i < a.nfiles; i++, opened++) {
		f[i] = eqp_open(a.files[i], &err);
		/* without samples, only the board's stream can give power */
		if (f[i] && !eqp_nboard_records(f[i]) && eqp_require_samples(f[i], &err) < 0) {
			eq_error_msg("%s", err.msg);
			eqp_close(f[i]);
			rc = 1;
			break;
		}
		if (!f[i] || power_input_from_file(&in[i], f[i], a.basis, &err) < 0) {
			eq_error_msg("%s", err.msg);
			if (f[i])
				eqp_close(f[i]);
			rc = 1;
			break;
		}
		a.eqps[i] = f[i];
		in[i].name = a.labels[i];
		if (eqp_warning(f[i]))
			eq_warn("%s", eqp_warning(f[i]));
		eq_align_check_file(stderr, "power", f[i], a.verbose);
	}
	if (rc == 0 && run(&a, in, &err) < 0) {
		eq_error_msg("%s", err.msg);
		rc = 1;
	}
	for (i = 0; i < opened; i++) {
		power_input_free(&in[i]);
		eqp_close(f[i]);
	}
	return rc;
}
