/*
 * power_procs.c - `power --runs`: each procedure's energy in every run of
 * the same work, and its mean, SD and 95% interval over the runs (seed 004,
 * PowerKap: repeated runs with mean and standard deviation; here per
 * procedure too).  See power.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "energy/eprofile.h"
#include "power/power.h"
#include "profile/profile.h"
#include "profile/stats.h"
#include "symbols/symbolize.h"
#include "profile/table.h"
#include "util/units.h"
#include "util/grow.h"

/* Rows below this share of the mean total are summed into one line of the table. */
#define TABLE_MIN_SHARE 0.001

static struct power_proc_row *find_or_add(struct power_procs *pp, const char *name, const char *module)
{
	struct power_proc_row *r;
	size_t i;

	for (i = 0; i < pp->nrows; i++)
		if (!strcmp(pp->rows[i].name, name) && !strcmp(pp->rows[i].module, module))
			return &pp->rows[i];
	if (EQ_GROW(pp->rows, pp->cap_, pp->nrows + 1, 32) < 0)
		return NULL;
	r = &pp->rows[pp->nrows];
	memset(r, 0, sizeof(*r));
	r->name = strdup(name);
	r->module = strdup(module);
	r->v = calloc(pp->nruns, sizeof(*r->v));
	if (!r->name || !r->module || !r->v) {
		free(r->name);
		free(r->module);
		free(r->v);
		return NULL;
	}
	pp->nrows++;
	return r;
}

static int add(struct power_procs *pp, size_t run, const char *name, const char *module, double v,
	       struct eq_error *err)
{
	struct power_proc_row *r = find_or_add(pp, name, module);

	if (!r)
		return eq_fail(err, "power --runs: out of memory");
	r->v[run] += v;
	return 0;
}

/* One run's values: the energy source's first domain (record --energy), or
 * the samples' energy (energy-driven, known quantum), or their time. */
static int add_run(struct power_procs *pp, size_t run, const struct eqp_file *f, struct eq_error *err)
{
	struct eq_symbolizer *sym = eq_sym_new(f, NULL, err);
	struct eq_profile *p = NULL;
	struct ep_profile *ep = NULL;
	size_t i;
	int rc = -1;

	if (!sym)
		return -1;
	eq_sym_skip_lines(sym, 1);
	if (pp->kind == POWER_PROCS_SOURCE) {
		const struct ep_domain *d;

		ep = ep_build(f, sym, EQ_BY_PROC, 0, err);
		if (!ep)
			goto out;
		if (!ep->ndomains) {
			eq_fail(err, "%s: no energy domain", eqp_path(f));
			goto out;
		}
		d = &ep->domains[0];
		if (run == 0)
			snprintf(pp->source, sizeof(pp->source), "%.160s %.63s", d->spec, d->name);
		else if (strcmp(pp->domain_, d->name)) {
			eq_fail(err, "power --runs: %s's first energy domain is %s, the first recording's %s: "
				"give runs of the same source", eqp_path(f), d->name, pp->domain_);
			goto out;
		}
		snprintf(pp->domain_, sizeof(pp->domain_), "%s", d->name);
		for (i = 0; i < d->nrows; i++)
			if (add(pp, run, d->rows[i].name, d->rows[i].module, d->rows[i].joules, err) < 0)
				goto out;
	} else {
		p = eq_profile_build(f, sym, EQ_BY_PROC, 0, err);
		if (!p)
			goto out;
		for (i = 0; i < p->nrows; i++)
			if (add(pp, run, p->rows[i].name, p->rows[i].module,
				pp->kind == POWER_PROCS_SAMPLES_J ? (double)p->rows[i].samples * p->quantum_j
								  : (double)p->rows[i].samples * p->period_s,
				err) < 0)
				goto out;
	}
	rc = 0;
out:
	eq_profile_free(p);
	ep_free(ep);
	eq_sym_free(sym);
	return rc;
}

static int by_mean(const void *x, const void *y)
{
	const struct power_proc_row *a = x, *b = y;

	if (a->mean != b->mean)
		return a->mean < b->mean ? 1 : -1;
	return strcmp(a->name, b->name);
}

struct power_procs *power_procs_build(const struct eqp_file *const *f, const char *const *names,
				      size_t n, struct eq_error *err)
{
	struct power_procs *pp = calloc(1, sizeof(*pp));
	size_t i, r;
	int all_source = 1, all_energy = 1;

	if (!pp) {
		eq_fail(err, "power --runs: out of memory");
		return NULL;
	}
	pp->nruns = n;
	pp->names = names;
	for (i = 0; i < n; i++) {
		const struct eqp_meta *m = eqp_meta(f[i]);

		all_source &= m->mode == EQP_MODE_TIME && ep_has_energy(f[i]);
		all_energy &= m->mode == EQP_MODE_ENERGY && m->quantum_j > 0;
	}
	pp->kind = all_source ? POWER_PROCS_SOURCE : all_energy ? POWER_PROCS_SAMPLES_J : POWER_PROCS_TIME;
	pp->unit = pp->kind == POWER_PROCS_TIME ? "s" : "J";
	if (pp->kind == POWER_PROCS_SAMPLES_J)
		snprintf(pp->source, sizeof(pp->source), "energy-driven samples x quantum");
	else if (pp->kind == POWER_PROCS_TIME)
		snprintf(pp->source, sizeof(pp->source),
			 "time: not every recording has energy (record --energy, or energy-driven with a quantum)");
	for (i = 0; i < n; i++)
		if (add_run(pp, i, f[i], err) < 0) {
			power_procs_free(pp);
			return NULL;
		}
	for (r = 0; r < pp->nrows; r++) {
		struct power_proc_row *row = &pp->rows[r];
		double sum = 0, ss = 0;

		for (i = 0; i < n; i++)
			sum += row->v[i];
		row->mean = sum / (double)n;
		for (i = 0; i < n; i++)
			ss += (row->v[i] - row->mean) * (row->v[i] - row->mean);
		row->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
		row->ci95 = n > 1 ? eq_t95((unsigned)(n - 1)) * row->sd / sqrt((double)n) : NAN;
		pp->total_mean += row->mean;
	}
	qsort(pp->rows, pp->nrows, sizeof(*pp->rows), by_mean);
	return pp;
}

void power_procs_free(struct power_procs *pp)
{
	size_t i;

	if (!pp)
		return;
	for (i = 0; i < pp->nrows; i++) {
		free(pp->rows[i].name);
		free(pp->rows[i].module);
		free(pp->rows[i].v);
	}
	free(pp->rows);
	free(pp);
}

static void qty(FILE *out, double v, const char *unit)
{
	char buf[32];

	fprintf(out, " %10s", isfinite(v) ? eq_format_quantity(buf, sizeof(buf), v, unit) : "n/a");
}

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v);
	else
		fputs("null", out);
}

void power_procs_print(FILE *out, const struct power_procs *pp, enum power_format fmt)
{
	size_t i, r, hidden = 0;
	double hidden_mean = 0;

	if (fmt == POWER_FMT_JSON) {
		fprintf(out, "{\"unit\": \"%s\", \"source\": ", pp->unit);
		eq_json_string(out, pp->source);
		fputs(", \"runs\": [", out);
		for (i = 0; i < pp->nruns; i++) {
			fputs(i ? ", " : "", out);
			eq_json_string(out, pp->names[i]);
		}
		fputs("], \"rows\": [", out);
		for (r = 0; r < pp->nrows; r++) {
			const struct power_proc_row *row = &pp->rows[r];

			fputs(r ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
			eq_json_string(out, row->name);
			fputs(", \"module\": ", out);
			eq_json_string(out, row->module);
			fputs(", \"values\": [", out);
			for (i = 0; i < pp->nruns; i++) {
				fputs(i ? ", " : "", out);
				json_num(out, row->v[i]);
			}
			fputs("], \"mean\": ", out);
			json_num(out, row->mean);
			fputs(", \"sd\": ", out);
			json_num(out, row->sd);
			fputs(", \"ci95\": ", out);
			json_num(out, row->ci95);
			fputc('}', out);
		}
		fputs("]}", out);
		return;
	}
	fprintf(out, "\n# per procedure, %s (%s): each run, then the mean over the %zu runs, their SD and the\n"
		"# half-width of the 95%% interval of the mean (Student's t); a procedure missing from a run counts 0 there\n",
		pp->kind == POWER_PROCS_TIME ? "time" : "energy", pp->source, pp->nruns);
	for (i = 0; i < pp->nruns; i++) {
		char h[32];

		snprintf(h, sizeof(h), "run %zu", i + 1);
		fprintf(out, " %10s", h);
	}
	fprintf(out, " %10s %10s %10s  %-20s %s\n", "mean", "SD", "95% CI +-", "module", "proc");
	for (r = 0; r < pp->nrows; r++) {
		const struct power_proc_row *row = &pp->rows[r];

		if (pp->total_mean > 0 && row->mean < TABLE_MIN_SHARE * pp->total_mean) {
			hidden++;
			hidden_mean += row->mean;
			continue;
		}
		for (i = 0; i < pp->nruns; i++)
			qty(out, row->v[i], pp->unit);
		qty(out, row->mean, pp->unit);
		qty(out, row->sd, pp->unit);
		qty(out, row->ci95, pp->unit);
		fprintf(out, "  %-20s %s\n", row->module, row->name);
	}
	if (hidden) {
		char buf[32];

		fprintf(out, "# %zu procedure%s below 0.1%% of the mean total, together %s per run (all of them in --format json)\n",
			hidden, hidden == 1 ? "" : "s", eq_format_quantity(buf, sizeof(buf), hidden_mean, pp->unit));
	}
}
