/*
 * builtin-power.c - `eqprof power`: summaries (seed 001 Table 4), traces,
 * histograms and region energy from one or more recordings.
 * docs/power.md is the user's reference.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "align/align.h"
#include "builtin.h"
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

static const char usage_text[] =
"usage: eqprof power FILE.eqp... [--summary] [--runs] [--format table|csv|json] [-o OUT]\n"
"                    [--trace OUT.csv|png|svg|pdf|jpg] [--window N] [--range T0:T1]\n"
"                    [--log] [--no-idle-marks] [--hist OUT.csv|png|svg|pdf|jpg]\n"
"                    [--bucket 50mW]\n"
"                    [--split-idle] [--region T0:T1]... [--markers]\n"
"                    [--from T] [--to T] [--battery 20Wh]\n"
"                    [--source auto|samples|board] [--title TEXT] [--size WxH]\n"
"                    [--label NAME]...\n"
"       eqprof power --by proc FILE.eqp ...   power per procedure by regression\n"
"\n"
"  --runs           the files are repeated runs of the same work: the summary\n"
"                   adds the mean over the runs of duration, power and energy,\n"
"                   their SD and the 95% interval of the mean, and each\n"
"                   procedure's energy per run with its mean, SD and interval\n"
"  --summary        duration, samples, average frequency and power, energy,\n"
"                   idle and lost samples; one row per file (the default)\n"
"  --trace OUT      power per interval (E_q / dt) against time: .csv (data), or\n"
"                   a plot: .png, .svg, .pdf, .jpg\n"
"  --window N       moving window over N intervals (default 1)\n"
"  --range T0:T1    close-up, seconds since the first sample (\"2:2.5\", \"1500ms:2s\")\n"
"  --log            logarithmic power axis (plots)\n"
"  --hist OUT       percentage of samples per power bucket; several files overlay\n"
"  --bucket W       histogram bucket width (default 50mW), or N/decade: N\n"
"                   logarithmic buckets per decade (1, 2, 4, ... 128)\n"
"  --split-idle     histogram of idle and busy samples apart\n"
"  --region T0:T1   energy, time and average power between two times\n"
"  --markers        the same between each pair of consecutive markers\n"
"  --from T, --to T a stretch of the run (seconds since the first sample): its\n"
"                   energy with bounds, average, peak, minimum and median power\n"
"                   instead of the summary; --trace and --hist of it only (the\n"
"                   numbers eqprof view shows for a selection)\n"
"  --battery C      with --from/--to: the battery life at the range's average\n"
"                   power for capacity C (20Wh, 55kJ, 3000mAh@3.85V)\n"
"  -v               notes in full (a balanced board cross-check is said only then)\n"
"  --label NAME     what names the recording in rows, legends and CSV columns,\n"
"                   once per file in their order (default: the shortest end of\n"
"                   each path that tells the files apart)\n"
"  --source S       where power comes from: energy-driven samples, the board\n"
"                   stream, or the energy source read alongside time-driven\n"
"                   samples (record -t --energy; its first domain) (default:\n"
"                   samples if energy-driven, else the board, else the source)\n"
"docs/power.md has the details and the exact CSV/JSON columns.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "eqprof power: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n'eqprof power --help' lists the options\n");
	return 2;
}

static int parse_range(const char *text, const char *what, double *t0, double *t1)
{
	struct eq_error err;
	char *copy = strdup(text), *colon;
	int rc = -1;

	if (!copy)
		return -1;
	colon = strchr(copy, ':');
	if (!colon) {
		fprintf(stderr, "eqprof power: %s '%s': give START:END in seconds, e.g. 2:2.5 or 1500ms:2s\n",
			what, text);
		free(copy);
		return -1;
	}
	*colon = '\0';
	if (eq_parse_quantity(copy, "s", what, t0, &err) < 0 ||
	    eq_parse_quantity(colon + 1, "s", what, t1, &err) < 0)
		fprintf(stderr, "eqprof power: %s\n", err.msg);
	else if (!(*t1 > *t0))
		fprintf(stderr, "eqprof power: %s '%s': the end must come after the start\n",
			what, text);
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

static int parse_value(struct power_args *a, int c, const char *arg)
{
	static const char *const fmts[] = { "table", "csv", "json" };
	static const char *const bases[] = { "auto", "samples", "board", "source" };
	struct eq_error err;
	unsigned long long n;
	int k;

	switch (c) {
	case 'f':
		if ((k = parse_choice(arg, fmts, 3)) < 0)
			return usage_error("--format '%s': use table, csv or json", arg);
		a->fmt = (enum power_format)k;
		return 0;
	case 'S':
		if ((k = parse_choice(arg, bases, 4)) < 0)
			return usage_error("--source '%s': use auto, samples, board or source", arg);
		a->basis = k == 3 ? POWER_BASIS_SOURCE : (enum power_basis)k;
		return 0;
	case 'w':
		if (eq_parse_uint(arg, "--window", 1000000, &n, &err) < 0 || n == 0)
			return usage_error("--window '%s': give a number of intervals from 1 to 1000000", arg);
		a->trace.window = (unsigned)n;
		return 0;
	case 'b':
		if (strstr(arg, "/decade")) {
			if (eq_parse_uint(arg, "--bucket", POWER_FINE_PER_DECADE, &n, &err) == 0 ||
			    sscanf(arg, "%llu/decade", &n) != 1 || n < 1 ||
			    POWER_FINE_PER_DECADE % n)
				return usage_error("--bucket '%s': give N/decade with N one of 1, 2, 4, 8, "
						   "16, 32, 64, 128", arg);
			a->per_decade = (unsigned)n;
			return 0;
		}
		if (eq_parse_quantity(arg, "W", "--bucket", &a->bucket_w, &err) < 0 ||
		    !(a->bucket_w > 0))
			return usage_error("--bucket '%s': give a positive power such as 50mW", arg);
		return 0;
	case 'F': case 'U':
		if (eq_range_parse(&a->range, c == 'F' ? "--from" : "--to", arg, &err) < 0)
			return usage_error("%s", err.msg);
		return 0;
	case 'B':
		if (eq_parse_capacity(arg, "--battery", &a->battery_j, &err) < 0)
			return usage_error("%s", err.msg);
		a->battery = arg;
		return 0;
	case 'R':
		return parse_range(arg, "--range", &a->trace.t0, &a->trace.t1) < 0 ? 2 : 0;
	case 'g':
		if (a->nregions == MAX_REGIONS)
			return usage_error("--region %s: at most 32 regions", arg);
		snprintf(a->regions[a->nregions].label, sizeof(a->regions[0].label), "%s", arg);
		if (parse_range(arg, "--region", &a->regions[a->nregions].t0,
				&a->regions[a->nregions].t1) < 0)
			return 2;
		a->nregions++;
		return 0;
	case 'z':
		if (sscanf(arg, "%dx%d", &a->width, &a->height) != 2 || a->width < 200 ||
		    a->height < 150 || a->width > 10000 || a->height > 10000)
			return usage_error("--size '%s': give WIDTHxHEIGHT in pixels, e.g. 1000x600", arg);
		return 0;
	}
	return usage_error("unexpected option %s", arg);
}

static int parse_args(struct power_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "runs", no_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "trace", required_argument, NULL, 't' },
		{ "window", required_argument, NULL, 'w' },
		{ "range", required_argument, NULL, 'R' },
		{ "log", no_argument, NULL, 'L' },
		{ "linear", no_argument, NULL, 'l' },
		{ "no-idle-marks", no_argument, NULL, 'I' },
		{ "hist", required_argument, NULL, 'H' },
		{ "bucket", required_argument, NULL, 'b' },
		{ "split-idle", no_argument, NULL, 'i' },
		{ "region", required_argument, NULL, 'g' },
		{ "markers", no_argument, NULL, 'm' },
		{ "source", required_argument, NULL, 'S' },
		{ "title", required_argument, NULL, 'T' },
		{ "size", required_argument, NULL, 'z' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'U' },
		{ "battery", required_argument, NULL, 'B' },
		{ "label", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->trace.window = 1;
	a->bucket_w = 0.050;
	a->mark_idle = 1;
	a->output = "-";
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:hv", opts, NULL)) != -1) {
		switch (c) {
		case 's': a->summary = 1; break;
		case 'r': a->runs = 1; break;
		case 'v': a->verbose = 1; break;
		case 'o': a->output = optarg; break;
		case 'L': a->log_y = 1; break;
		case 'l': a->log_y = 0; break;
		case 'I': a->mark_idle = 0; break;
		case 'i': a->split_idle = 1; break;
		case 'm': a->markers = 1; break;
		case 'T': a->title = optarg; break;
		case 'h': fputs(usage_text, stdout); return 1;
		case 't':
			if (a->ntraces == MAX_OUTS)
				return usage_error("--trace %s: at most 4 trace outputs", optarg);
			a->traces[a->ntraces++] = optarg;
			break;
		case 'N':
			if (a->nlabels == MAX_FILES)
				return usage_error("--label %s: at most 8 labels, one a recording", optarg);
			if (!*optarg)
				return usage_error("%s", "--label: give a name (an empty one names nothing)");
			a->labels[a->nlabels++] = optarg;
			break;
		case 'H':
			if (a->nhists == MAX_OUTS)
				return usage_error("--hist %s: at most 4 histogram outputs", optarg);
			a->hists[a->nhists++] = optarg;
			break;
		case '?': return 2;
		default:
			if ((rc = parse_value(a, c, optarg)) != 0)
				return rc;
		}
	}
	a->files = argv + optind;
	a->nfiles = (size_t)(argc - optind);
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
			fprintf(stderr, "eqprof power: %s: no power: %s\n", s[i].name, s[i].why_none);
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
	struct eqp_file *f[MAX_FILES] = { 0 };
	struct power_input in[MAX_FILES];
	struct eq_error err;
	size_t i, opened = 0;
	int rc;

	for (rc = 1; rc < argc && strcmp(argv[rc], "--"); rc++)
		if (!strcmp(argv[rc], "--by") || !strncmp(argv[rc], "--by=", 5))
			return cmd_power_by(argc, argv); /* power per procedure: builtin-power-by.c */
	rc = parse_args(&a, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	for (i = 0; i < a.nfiles; i++, opened++) {
		f[i] = eqp_open(a.files[i], &err);
		/* without samples, only the board's stream can give power */
		if (f[i] && !eqp_nboard_records(f[i]) && eqp_require_samples(f[i], &err) < 0) {
			fprintf(stderr, "eqprof power: %s\n", err.msg);
			eqp_close(f[i]);
			rc = 1;
			break;
		}
		if (!f[i] || power_input_from_file(&in[i], f[i], a.basis, &err) < 0) {
			fprintf(stderr, "eqprof power: %s\n", err.msg);
			if (f[i])
				eqp_close(f[i]);
			rc = 1;
			break;
		}
		a.eqps[i] = f[i];
		in[i].name = a.labels[i];
		if (eqp_warning(f[i]))
			fprintf(stderr, "eqprof power: warning: %s\n", eqp_warning(f[i]));
		eq_align_check_file(stderr, "power", f[i], a.verbose);
	}
	if (rc == 0 && run(&a, in, &err) < 0) {
		fprintf(stderr, "eqprof power: %s\n", err.msg);
		rc = 1;
	}
	for (i = 0; i < opened; i++) {
		power_input_free(&in[i]);
		eqp_close(f[i]);
	}
	return rc;
}
