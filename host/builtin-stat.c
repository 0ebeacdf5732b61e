/*
 * builtin-stat.c - eqprof stat: the energy a command uses, perf stat's
 * shape for energy.
 *
 *   eqprof stat [-r N] [--baseline T] [--energy SOURCE]... [--poll TIME]
 *               [--settle TIME] [--sysfs DIR] [--format table|csv|json]
 *               [-o OUT] [-q] -- COMMAND [ARGS]...
 *
 * The energy sources (host/energy/) are read every --poll while the command
 * runs N times back to back.  Each run's energy per domain is the energy
 * between the reading just before the command starts and the reading just
 * after it ends, with bounds from the source's update granularity (a value
 * read was reached at the source's last update; analysis/energy/eseries.h).
 * An idle baseline measured for T before the runs gives each domain's idle
 * power, which is subtracted (energy net of idle = gross - P_idle x
 * duration) and shown.  Over the runs: mean, standard deviation (Welford)
 * and the 95% interval of the mean (Student's t).
 *
 * Sources that update rarely (a battery gauge) are read on after the last
 * run until they update again (--settle caps the wait), so the last run's
 * end lies between two known values.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "energy/energy.h"
#include "file/outfile.h"
#include "progress.h"
#include "profile/table.h"
#include "util/units.h"

extern char **environ;

#define MAX_SOURCES 8

struct stat_opts {
	unsigned runs;
	double baseline_s, poll_s, settle_s;
	const char *energy[MAX_SOURCES];
	size_t nenergy;
	const char *sysfs, *out;
	enum eq_format fmt;
	int quiet, verbose;
	char **argv;
};

/* One domain of one source, with what the runs gave. */
struct dom {
	struct energy_meter *m;
	size_t i;                 /* index in m */
	const struct es_domain *d;
	struct es_point base;     /* energy over the baseline */
	double base_w, base_w_lo, base_w_hi;
	struct es_point *run;     /* gross energy per run */
	double *net, *net_lo, *net_hi;
	struct es_welford w_net, w_gross, w_power;
	double update_s;          /* used for the bounds */
	char update_how[96];
	int coarse;               /* changes at fewer than half the readings */
	int frozen;               /* never changed over FROZEN_PERIODS update periods */
};

struct stat_run {
	double t0, t1;
	int status;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* ---- the options ----------------------------------------------------------- */

static int opt_runs(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	unsigned long long n;

	if (eq_parse_uint(arg, "-r", 100000, &n, err) < 0 || n < 1)
		return eq_fail(err, "-r takes a number of runs, 1 to 100000");
	*(unsigned *)opt->value = (unsigned)n;
	return 0;
}

/* --baseline 0 to 1h, --poll 100us to 10s, --settle any time */
static int opt_time(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	double *v = opt->value;
	char what[32];

	snprintf(what, sizeof(what), "--%s", opt->long_name);
	if (eq_parse_quantity(arg, "s", what, v, err) < 0)
		return -1;
	if (!strcmp(opt->long_name, "baseline") && !(*v >= 0 && *v <= 3600))
		return eq_fail(err, "--baseline takes 0 to 1h");
	if (!strcmp(opt->long_name, "poll") && !(*v >= 1e-4 && *v <= 10))
		return eq_fail(err, "--poll takes 100us to 10s");
	return 0;
}

static int opt_energy(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct stat_opts *o = opt->value;

	if (o->nenergy == MAX_SOURCES)
		return eq_fail(err, "at most %d --energy sources", MAX_SOURCES);
	o->energy[o->nenergy++] = arg;
	return 0;
}

static int opt_format(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return eq_format_parse(arg, opt->value, err);
}

static int parse_opts(int argc, char **argv, struct stat_opts *o)
{
	const struct eq_option options[] = {
		{ .type = EQ_OPTION_CALLBACK, .short_name = 'r', .long_name = "repeat",
		  .value = &o->runs, .argh = "N", .cb = opt_runs,
		  .help = "run COMMAND N times (default 1)" },
		OPT_CALLBACK(0, "baseline", &o->baseline_s, "T",
			     "measure the idle power for T before the runs and subtract it\n"
			     "(e.g. 5s; default none)", opt_time),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "energy", .value = o, .argh = "SRC",
		  .cb = opt_energy, .flags = EQ_OPT_REPEAT, .complete = "rapl rapl:perf battery hwmon board",
		  .help = "read SRC (rapl, rapl:perf, battery, hwmon, board, or one domain\n"
			  "as 'eqprof sources' names it); repeatable; default: the first of\n"
			  "rapl, battery, hwmon that can be read" },
		OPT_CALLBACK(0, "poll", &o->poll_s, "TIME", "read the sources every TIME (default 10ms)",
			     opt_time),
		OPT_CALLBACK(0, "settle", &o->settle_s, "TIME",
			     "wait at most TIME after the runs for slow sources to update\n"
			     "(default 60s)", opt_time),
		{ .type = EQ_OPTION_STRING, .long_name = "sysfs", .value = &o->sysfs, .argh = "DIR",
		  .complete = EQ_COMPLETE_DIR,
		  .help = "read sysfs under DIR instead of /sys (also $EQPROF_SYSFS)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "format", .value = &o->fmt, .argh = "F",
		  .cb = opt_format, .complete = "table csv json",
		  .help = "table (default), csv or json (schema in docs/energy-sources.md)" },
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &o->out,
		  .argh = "OUT", .complete = EQ_COMPLETE_FILE,
		  .help = "write the result to OUT (atomically) instead of standard error" },
		OPT_QUIET(&o->quiet, "no progress line"),
		OPT_VERBOSE(&o->verbose, "notes in full"),
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "stat", .options = options, .flags = EQ_PARSE_STOP_AT_ARG,
		.usage = "eqprof stat [options] [--] COMMAND [ARGS]...\n",
		.about = "Energy per domain of COMMAND, run N times: per-run values, mean, standard\n"
			 "deviation and 95% interval, net of the idle power measured before the runs.\n",
	};
	int n;

	memset(o, 0, sizeof(*o));
	o->runs = 1;
	o->poll_s = 0.01;
	o->settle_s = 60;
	n = eq_parse_options(&cmd, argc, argv, NULL);
	if (n == EQ_PARSE_HELP)
		exit(0);
	if (n < 0)
		return 2;
	if (n == 0)
		return eq_usage_error(&cmd, 0, "no command given (eqprof stat [OPTIONS] -- COMMAND)");
	argv[n] = NULL;
	o->argv = argv;
	return 0;
}

/* ---- reading ---------------------------------------------------------- */

struct meters {
	struct energy_meter *m[MAX_SOURCES];
	size_t n;
};

static int read_all(struct meters *ms, double *t, struct eq_error *err)
{
	size_t i;
	double ti;

	*t = 0;
	for (i = 0; i < ms->n; i++) {
		if (energy_meter_read(ms->m[i], &ti, err) < 0)
			return -1;
		if (i == 0)
			*t = ti;
	}
	return 0;
}

static void nap(double s)
{
	energy_nap(s, &stop_signal);
}

/* How long after an edge (a run's start or end) one more reading brackets
 * it: a counter's value is at most one update period U old; a power
 * sensor's integral needs readings up to 2U later (eseries.h).  Sources
 * that update less often than every 50 ms are bracketed by their next
 * change instead. */
static double edge_delay(const struct meters *ms)
{
	double u = 1e-3;
	size_t i, j;

	for (i = 0; i < ms->n; i++)
		for (j = 0; j < ms->m[i]->src.ndomains; j++) {
			const struct es_domain *d = &ms->m[i]->src.domains[j];
			double x = d->type == ES_POWER ? 2.2 * d->update_s : d->update_s;

			if (d->update_s <= 0.05 && x > u)
				u = x;
		}
	return u;
}

/* Polls until the command ends; 0, or -1 with err set (the command is
 * killed then). */
static int run_once(const struct stat_opts *o, struct meters *ms, struct stat_run *r,
		    double after_edge, struct eq_error *err)
{
	pid_t pid;
	int e, st;
	double t, next;

	if (read_all(ms, &r->t0, err) < 0)
		return -1;
	e = posix_spawnp(&pid, o->argv[0], NULL, NULL, o->argv, environ);
	if (e)
		return eq_fail(err, "cannot run '%s': %s", o->argv[0], strerror(e));
	next = energy_now() + after_edge;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return eq_fail(err, "waitpid: %s", strerror(errno));
		if (stop_signal) {
			kill(pid, SIGTERM);
			waitpid(pid, &st, 0);
			return eq_fail(err, "stopped by signal %d", (int)stop_signal);
		}
		t = energy_now();
		if (t >= next) {
			if (read_all(ms, &t, err) < 0) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				return -1;
			}
			next = t + o->poll_s;
		}
		nap(fmin(next - energy_now(), 0.002));
	}
	if (read_all(ms, &r->t1, err) < 0)
		return -1;
	r->status = st;
	/* one reading an update period later brackets the end from above */
	nap(after_edge);
	return read_all(ms, &t, err);
}

/*
 * A counter that has not changed once in 100 of its nominal update periods
 * (RAPL: 1 ms) counts nothing (a domain the hardware does not feed: uncore
 * without a GPU, dram on some parts): waiting for it to update is useless,
 * and calling it a rarely updating source is wrong.
 */
#define FROZEN_PERIODS 100

static int frozen(const struct energy_meter *m, size_t j)
{
	const struct es_track *tr = &m->tracks[j];
	double u = m->src.domains[j].update_s;

	return u > 0 && tr->readings > 2 && tr->changes == 0 &&
	       tr->t_prev - tr->t_first >= fmax(FROZEN_PERIODS * u, 0.1);
}

/* Coarse sources: reads on until every one of them changed after t_end. */
static int settle(const struct stat_opts *o, struct meters *ms, double t_end, struct eq_error *err,
		  struct eq_progress *line)
{
	double deadline = energy_now() + o->settle_s, t;
	size_t i, j;

	for (;;) {
		int waiting = 0;
		const char *who = NULL;

		for (i = 0; i < ms->n; i++)
			for (j = 0; j < ms->m[i]->src.ndomains; j++)
				if (!frozen(ms->m[i], j) &&
				    !energy_meter_covers(ms->m[i], j, t_end)) {
					waiting = 1;
					who = ms->m[i]->src.domains[j].name;
				}
		if (!waiting || stop_signal || energy_now() >= deadline)
			return 0;
		if (eq_progress_due(line))
			eq_progress_show(line, "eqprof stat: waiting for %s to update (at most %.0f s more)",
					 who, deadline - energy_now());
		nap(o->poll_s);
		if (read_all(ms, &t, err) < 0)
			return -1;
	}
}

/* ---- results ------------------------------------------------------------ */

static int compute(struct dom *d, size_t nd, const struct stat_opts *o, const struct stat_run *runs,
		   unsigned nruns, double base_t0, double base_t1, struct eq_error *err)
{
	size_t k;
	unsigned r;

	for (k = 0; k < nd; k++) {
		struct dom *x = &d[k];
		const struct es_series *s = &x->m->series[x->i];
		const struct es_track *tr = &x->m->tracks[x->i];

		x->update_s = s->update_s;
		if (x->d->update_s > 0)
			energy_fmt(x->update_how, sizeof(x->update_how), "%s", x->d->update_how);
		else
			es_track_update_s(tr, x->update_how, sizeof(x->update_how));
		x->frozen = frozen(x->m, x->i);
		x->coarse = tr->readings > 2 && tr->changes * 2 <= tr->readings - 1 &&
			    s->type != ES_POWER && !x->frozen;
		x->base_w = x->base_w_lo = x->base_w_hi = 0;
		if (o->baseline_s > 0) {
			double dt = base_t1 - base_t0;

			if (es_energy_between(s, base_t0, base_t1, &x->base, err) < 0)
				return -1;
			x->base_w = x->base.e / dt;
			x->base_w_lo = x->base.lo / dt;
			x->base_w_hi = x->base.hi / dt;
		}
		x->run = calloc(nruns, sizeof(*x->run));
		x->net = calloc(nruns, sizeof(double));
		x->net_lo = calloc(nruns, sizeof(double));
		x->net_hi = calloc(nruns, sizeof(double));
		if (!x->run || !x->net || !x->net_lo || !x->net_hi)
			return eq_fail(err, "out of memory");
		for (r = 0; r < nruns; r++) {
			double dur = runs[r].t1 - runs[r].t0;

			if (es_energy_between(s, runs[r].t0, runs[r].t1, &x->run[r], err) < 0)
				return -1;
			/* no change for FROZEN_PERIODS update periods after the end:
			 * the value read is current, up to one count not shown yet */
			if (x->frozen)
				x->run[r].hi = x->run[r].e + x->d->resolution;
			x->net[r] = x->run[r].e - x->base_w * dur;
			x->net_lo[r] = x->run[r].lo - x->base_w_hi * dur;
			x->net_hi[r] = x->run[r].hi - x->base_w_lo * dur;
			es_welford_add(&x->w_net, x->net[r]);
			es_welford_add(&x->w_gross, x->run[r].e);
			es_welford_add(&x->w_power, x->run[r].e / dur);
		}
	}
	return 0;
}

/* A quantity for people: rounding noise below a nanounit is 0. */
static const char *q(char *buf, unsigned size, double v, const char *unit)
{
	return eq_format_quantity(buf, size, fabs(v) < 1e-9 ? 0 : v, unit);
}

static void pct(FILE *out, double half, double mean)
{
	if (isfinite(half) && fabs(mean) > 1e-9)
		fprintf(out, " (%.1f%%)", 100 * half / fabs(mean));
}

static void print_table(FILE *out, const struct stat_opts *o, const struct meters *ms,
			const struct dom *d, size_t nd, const struct stat_run *runs, unsigned nruns,
			const struct es_welford *wdur, double base_dt)
{
	char a[32], b[32], c[32], e[32];
	size_t k, i;
	unsigned r;
	int j;

	fprintf(out, "\n Energy of '");
	for (j = 0; o->argv[j]; j++)
		fprintf(out, "%s%s", j ? " " : "", o->argv[j]);
	fprintf(out, "' (%u run%s%s):\n", nruns, nruns == 1 ? "" : "s",
		nruns < o->runs ? ", stopped early" : "");
	for (i = 0; i < ms->n; i++)
		fprintf(out, "   source %s: %zu domain%s%s%s%s%s\n", ms->m[i]->src.spec,
			ms->m[i]->src.ndomains, ms->m[i]->src.ndomains == 1 ? "" : "s",
			ms->m[i]->src.note[0] ? "; " : "", ms->m[i]->src.note,
			ms->m[i]->src.warning[0] ? "; " : "", ms->m[i]->src.warning);
	if (o->baseline_s > 0) {
		fprintf(out, "\n idle baseline over %.3f s before the runs (subtracted below):\n", base_dt);
		for (k = 0; k < nd; k++)
			fprintf(out, "   %-24s %12s  [%s, %s]\n", d[k].d->name,
				q(a, sizeof(a), d[k].base_w, "W"),
				q(b, sizeof(b), d[k].base_w_lo, "W"),
				isfinite(d[k].base_w_hi) ? q(c, sizeof(c), d[k].base_w_hi, "W") : "?");
	}
	fprintf(out, "\n %-24s %12s %12s %22s %12s %12s\n", "per run", o->baseline_s > 0 ? "net energy" :
		"energy", "sd", "95% CI of the mean", "gross", "power");
	for (k = 0; k < nd; k++) {
		const struct dom *x = &d[k];
		double half = es_welford_ci95(&x->w_net);

		fprintf(out, "   %-22s %12s %12s   +- %-10s", x->d->name,
			q(a, sizeof(a), x->w_net.mean, "J"),
			nruns > 1 ? q(b, sizeof(b), es_welford_sd(&x->w_net), "J") : "-",
			nruns > 1 ? q(c, sizeof(c), half, "J") : "-");
		pct(out, half, x->w_net.mean);
		fprintf(out, "  %12s %12s\n", q(e, sizeof(e), x->w_gross.mean, "J"),
			q(b, sizeof(b), x->w_power.mean, "W"));
	}
	fprintf(out, "   %-22s %12s %12s   +- %-10s", "duration",
		q(a, sizeof(a), wdur->mean, "s"),
		nruns > 1 ? q(b, sizeof(b), es_welford_sd(wdur), "s") : "-",
		nruns > 1 ? q(c, sizeof(c), es_welford_ci95(wdur), "s") : "-");
	pct(out, es_welford_ci95(wdur), wdur->mean);
	fprintf(out, "\n\n runs (energy [bounds from the sources' update granularity]):\n   %-4s %-11s",
		"run", "duration");
	for (k = 0; k < nd; k++)
		fprintf(out, " %-30s", d[k].d->name);
	fputc('\n', out);
	for (r = 0; r < nruns; r++) {
		fprintf(out, "   %-4u %-11s", r + 1,
			q(a, sizeof(a), runs[r].t1 - runs[r].t0, "s"));
		for (k = 0; k < nd; k++) {
			char cell[96];

			energy_fmt(cell, sizeof(cell), "%s [%s, %s]",
				   q(a, sizeof(a), d[k].net[r], "J"),
				   q(b, sizeof(b), d[k].net_lo[r], "J"),
				   isfinite(d[k].net_hi[r]) ?
				   q(c, sizeof(c), d[k].net_hi[r], "J") : "?");
			fprintf(out, " %-30s", cell);
		}
		fputc('\n', out);
	}
	fprintf(out, "\n");
	for (k = 0; k < nd; k++) {
		const struct dom *x = &d[k];

		if (x->frozen) {
			fprintf(out, " note: %s did not change in %llu readings over %.3g s although it "
				"updates every %s (%s): it counted nothing (a domain the hardware does not "
				"feed reads so)\n", x->d->name, (unsigned long long)x->m->tracks[x->i].readings,
				x->m->tracks[x->i].t_prev - x->m->tracks[x->i].t_first,
				q(a, sizeof(a), x->d->update_s, "s"), x->d->update_how);
			continue;
		}
		if (x->coarse)
			fprintf(out, " note: %s updates rarely (%s%s%s): a run's energy is known only "
				"between the bounds; longer runs and more of them (-r) narrow the mean\n",
				x->d->name, x->update_s > 0 ? q(a, sizeof(a), x->update_s, "s") : "",
				x->update_s > 0 ? ", " : "", x->update_how);
		for (r = 0; r < nruns; r++)
			if (!isfinite(x->net_hi[r])) {
				fprintf(out, " note: %s did not update after run %u within --settle %.0f s: "
					"its energy has no upper bound\n", x->d->name, r + 1, o->settle_s);
				break;
			}
	}
}

static void print_csv(FILE *out, const struct stat_opts *o, const struct dom *d, size_t nd,
		      const struct stat_run *runs, unsigned nruns, const struct es_welford *wdur)
{
	size_t k;
	unsigned r;

	(void)o;
	fprintf(out, "run,domain,kind,source,duration_s,energy_j,energy_lo_j,energy_hi_j,baseline_w,"
		"net_j,net_lo_j,net_hi_j,power_w,sd_net_j,ci95_net_j\n");
	for (k = 0; k < nd; k++) {
		const struct dom *x = &d[k];

		for (r = 0; r < nruns; r++) {
			double dur = runs[r].t1 - runs[r].t0;

			fprintf(out, "%u,", r + 1);
			eq_csv_field(out, x->d->name);
			fprintf(out, ",%s,", x->d->kind);
			eq_csv_field(out, x->m->src.spec);
			fprintf(out, ",%.9f,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,,\n", dur,
				x->run[r].e, x->run[r].lo, x->run[r].hi, x->base_w, x->net[r],
				x->net_lo[r], x->net_hi[r], x->run[r].e / dur);
		}
		fprintf(out, "mean,");
		eq_csv_field(out, x->d->name);
		fprintf(out, ",%s,", x->d->kind);
		eq_csv_field(out, x->m->src.spec);
		fprintf(out, ",%.9f,%.9g,,,%.9g,%.9g,,,%.9g,", wdur->mean, x->w_gross.mean, x->base_w,
			x->w_net.mean, x->w_power.mean);
		if (nruns > 1)
			fprintf(out, "%.9g,%.9g", es_welford_sd(&x->w_net), es_welford_ci95(&x->w_net));
		else
			fputc(',', out);
		fputc('\n', out);
	}
}

static void json_num(FILE *out, const char *key, double v)
{
	fprintf(out, ", \"%s\": ", key);
	eq_json_number(out, v);
}

static void print_json(FILE *out, const struct stat_opts *o, const struct meters *ms,
		       const struct dom *d, size_t nd, const struct stat_run *runs, unsigned nruns,
		       const struct es_welford *wdur, double base_t0, double base_t1)
{
	size_t k, i;
	unsigned r;
	int j;

	fprintf(out, "{\"command\": [");
	for (j = 0; o->argv[j]; j++) {
		fprintf(out, "%s", j ? ", " : "");
		eq_json_string(out, o->argv[j]);
	}
	fprintf(out, "], \"runs_asked\": %u, \"runs\": %u", o->runs, nruns);
	json_num(out, "baseline_s", o->baseline_s > 0 ? base_t1 - base_t0 : 0);
	json_num(out, "baseline_t0", o->baseline_s > 0 ? base_t0 : NAN);
	fprintf(out, ", \"sources\": [");
	for (i = 0; i < ms->n; i++) {
		fprintf(out, "%s{\"spec\": ", i ? ", " : "");
		eq_json_string(out, ms->m[i]->src.spec);
		fprintf(out, ", \"driver\": \"%s\", \"note\": ", ms->m[i]->src.drv->name);
		eq_json_string(out, ms->m[i]->src.note);
		fprintf(out, ", \"left_out\": ");
		eq_json_string(out, ms->m[i]->src.warning);
		fprintf(out, "}");
	}
	fprintf(out, "],\n \"run\": [");
	for (r = 0; r < nruns; r++) {
		fprintf(out, "%s{\"t0\": %.9f, \"t1\": %.9f, \"duration_s\": %.9f, \"exit\": %d}",
			r ? ", " : "", runs[r].t0, runs[r].t1, runs[r].t1 - runs[r].t0,
			WIFEXITED(runs[r].status) ? WEXITSTATUS(runs[r].status) : -1);
	}
	fprintf(out, "]");
	json_num(out, "duration_mean_s", wdur->mean);
	json_num(out, "duration_sd_s", es_welford_sd(wdur));
	json_num(out, "duration_ci95_s", es_welford_ci95(wdur));
	fprintf(out, ",\n \"domains\": [");
	for (k = 0; k < nd; k++) {
		const struct dom *x = &d[k];
		const struct es_track *tr = &x->m->tracks[x->i];

		fprintf(out, "%s\n  {\"name\": ", k ? "," : "");
		eq_json_string(out, x->d->name);
		fprintf(out, ", \"kind\": \"%s\", \"source\": ", x->d->kind);
		eq_json_string(out, x->m->src.spec);
		fprintf(out, ", \"type\": \"%s\", \"path\": ", es_type_name(x->d->type));
		eq_json_string(out, x->d->path);
		json_num(out, "resolution", x->d->resolution);
		json_num(out, "update_s", x->update_s > 0 ? x->update_s : NAN);
		fprintf(out, ", \"update_how\": ");
		eq_json_string(out, x->update_how);
		fprintf(out, ", \"readings\": %llu, \"changes\": %llu, \"wraps\": %llu, \"counted_nothing\": %s",
			(unsigned long long)tr->readings, (unsigned long long)tr->changes,
			(unsigned long long)tr->wraps, x->frozen ? "true" : "false");
		json_num(out, "baseline_w", x->base_w);
		json_num(out, "baseline_w_lo", x->base_w_lo);
		json_num(out, "baseline_w_hi", x->base_w_hi);
		fprintf(out, ",\n   \"runs\": [");
		for (r = 0; r < nruns; r++) {
			fprintf(out, "%s{\"energy_j\": ", r ? ", " : "");
			eq_json_number(out, x->run[r].e);
			json_num(out, "lo_j", x->run[r].lo);
			json_num(out, "hi_j", x->run[r].hi);
			json_num(out, "net_j", x->net[r]);
			json_num(out, "net_lo_j", x->net_lo[r]);
			json_num(out, "net_hi_j", x->net_hi[r]);
			json_num(out, "power_w", x->run[r].e / (runs[r].t1 - runs[r].t0));
			fprintf(out, "}");
		}
		fprintf(out, "]");
		json_num(out, "mean_net_j", x->w_net.mean);
		json_num(out, "sd_net_j", es_welford_sd(&x->w_net));
		json_num(out, "ci95_net_j", es_welford_ci95(&x->w_net));
		json_num(out, "mean_energy_j", x->w_gross.mean);
		json_num(out, "mean_power_w", x->w_power.mean);
		fprintf(out, "}");
	}
	fprintf(out, "\n ]}\n");
}

static void free_doms(struct dom *d, size_t nd)
{
	size_t k;

	for (k = 0; k < nd; k++) {
		free(d[k].run);
		free(d[k].net);
		free(d[k].net_lo);
		free(d[k].net_hi);
	}
	free(d);
}

static int open_meters(const struct stat_opts *o, const struct energy_env *env, struct meters *ms,
		       struct eq_error *err)
{
	size_t i;

	ms->n = 0;
	if (!o->nenergy) {
		ms->m[0] = energy_meter_open_auto(env, err);
		if (!ms->m[0])
			return -1;
		ms->n = 1;
		return 0;
	}
	for (i = 0; i < o->nenergy; i++) {
		ms->m[i] = energy_meter_open(o->energy[i], env, err);
		if (!ms->m[i])
			return -1;
		ms->n++;
	}
	return 0;
}

/* The command o->runs times (fewer after a signal), each run's duration in
 * wdur; -1 when one could not run or failed. */
/* The idle baseline: the meters read for o->baseline_s from base_t0 (or until
 * a signal), its end in *base_t1. */
static int stat_baseline(const struct stat_opts *o, struct meters *ms, double base_t0,
			 double *base_t1, struct eq_progress *line, struct eq_error *err)
{
	double t, end = base_t0 + o->baseline_s;

	while ((t = energy_now()) < end && !stop_signal) {
		nap(fmin(o->poll_s, end - t));
		if (read_all(ms, &t, err) < 0)
			return -1;
		if (eq_progress_due(line))
			eq_progress_show(line, "eqprof stat: idle baseline, %.0f s left", end - t);
	}
	return read_all(ms, base_t1, err);
}

static int stat_runs(const struct stat_opts *o, struct meters *ms, struct stat_run *runs,
		     double after_edge, struct es_welford *wdur, unsigned *done,
		     struct eq_progress *line, struct eq_error *err)
{
	unsigned r;

	for (r = 0; r < o->runs && !stop_signal; r++) {
		if (eq_progress_due(line))
			eq_progress_show(line, "eqprof stat: run %u of %u", r + 1, o->runs);
		if (run_once(o, ms, &runs[r], after_edge, err) < 0) {
			if (stop_signal)
				break;
			return -1;
		}
		if (!WIFEXITED(runs[r].status) || WEXITSTATUS(runs[r].status)) {
			if (WIFSIGNALED(runs[r].status))
				eq_fail(err, "run %u: '%s' was killed by signal %d; a failed run is not "
					"the work to measure, so nothing is reported", r + 1, o->argv[0],
					WTERMSIG(runs[r].status));
			else
				eq_fail(err, "run %u: '%s' exited with status %d; a failed run is not "
					"the work to measure, so nothing is reported", r + 1, o->argv[0],
					WEXITSTATUS(runs[r].status));
			return -1;
		}
		es_welford_add(wdur, runs[r].t1 - runs[r].t0);
		(*done)++;
	}
	return 0;
}

/* One dom per domain of every meter, in the meters' order; NULL when out of memory. */
static struct dom *stat_doms(const struct meters *ms, size_t nd)
{
	struct dom *d = calloc(nd, sizeof(*d));
	size_t i, j;

	if (!d)
		return NULL;
	for (i = 0, nd = 0; i < ms->n; i++)
		for (j = 0; j < ms->m[i]->src.ndomains; j++, nd++) {
			d[nd].m = ms->m[i];
			d[nd].i = j;
			d[nd].d = &ms->m[i]->src.domains[j];
		}
	return d;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	struct energy_env env;
	struct meters ms = { .n = 0 };
	struct stat_run *runs = NULL;
	struct dom *d = NULL;
	struct es_welford wdur = { 0 };
	struct eq_error err = { "" };
	struct eq_progress line;
	struct eq_outfile out;
	struct sigaction sa;
	FILE *fp;
	size_t nd = 0, i;
	unsigned done = 0;
	double base_t0 = 0, base_t1 = 0, after_edge;
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc;
	rc = 1;
	eq_progress_start(&line, o.quiet, 0.5);
	energy_env_init(&env, o.sysfs);
	if (open_meters(&o, &env, &ms, &err) < 0)
		goto fail;
	/* not hidden by -q: the results lack these domains */
	for (i = 0; i < ms.n; i++)
		if (ms.m[i]->src.warning[0])
			eq_warn("--energy %s: %s; the results lack them "
				"(name the domains to read to make this an error)", ms.m[i]->src.spec,
				ms.m[i]->src.warning);
	/* The output is checked before anything runs. */
	if (o.out && eq_output_not_input(o.out, NULL, 0, &err) < 0)
		goto fail;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	after_edge = edge_delay(&ms);
	if (read_all(&ms, &base_t0, &err) < 0)
		goto fail;
	if (o.baseline_s > 0 && stat_baseline(&o, &ms, base_t0, &base_t1, &line, &err) < 0)
		goto fail;
	runs = calloc(o.runs, sizeof(*runs));
	if (!runs) {
		eq_fail(&err, "out of memory");
		goto fail;
	}
	if (stat_runs(&o, &ms, runs, after_edge, &wdur, &done, &line, &err) < 0)
		goto fail;
	if (!done) {
		eq_fail(&err, "stopped by signal %d before a run finished; nothing to report",
			(int)stop_signal);
		goto fail;
	}
	if (stop_signal && !o.quiet)
		eq_note("stopped by a signal after %u of %u runs; reporting those",
			done, o.runs);
	for (i = 0; i < ms.n; i++)
		energy_meter_settle(ms.m[i]);
	if (settle(&o, &ms, runs[done - 1].t1, &err, &line) < 0)
		goto fail;
	eq_progress_end(&line, 0);
	for (i = 0; i < ms.n; i++) {
		energy_meter_settle(ms.m[i]);
		nd += ms.m[i]->src.ndomains;
	}
	d = stat_doms(&ms, nd);
	if (!d) {
		eq_fail(&err, "out of memory");
		goto fail;
	}
	if (compute(d, nd, &o, runs, done, base_t0, base_t1, &err) < 0)
		goto fail;
	/* like perf stat: without -o the result goes to standard error, after
	 * the command's own output */
	if (o.out && eq_outfile_open(&out, o.out, &err) < 0)
		goto fail;
	fp = o.out ? out.fp : stderr;
	if (o.fmt == EQ_FMT_JSON)
		print_json(fp, &o, &ms, d, nd, runs, done, &wdur, base_t0, base_t1);
	else if (o.fmt == EQ_FMT_CSV)
		print_csv(fp, &o, d, nd, runs, done, &wdur);
	else
		print_table(fp, &o, &ms, d, nd, runs, done, &wdur, base_t1 - base_t0);
	if (o.out && eq_outfile_commit(&out, &err) < 0)
		goto fail;
	rc = stop_signal ? 128 + stop_signal : 0;
	goto done;
fail:
	eq_progress_end(&line, 0);
	eq_error_msg("%s", err.msg);
done:
	free_doms(d, nd);
	free(runs);
	for (i = 0; i < ms.n; i++)
		energy_meter_close(ms.m[i]);
	return rc;
}
