/*
 * compare.c - join a time and an energy profile row by row.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/compare.h"
#include "util/units.h"

#include <math.h>
#include "profile/stats.h"

static int same_row(const struct eq_row *r, const char *name, const char *module)
{
	return !strcmp(r->name, name) && !strcmp(r->module, module);
}

static int by_time_share(const void *x, const void *y)
{
	const struct eq_cmp_row *a = x, *b = y;
	int c;

	if (a->time_samples != b->time_samples)
		return a->time_samples > b->time_samples ? -1 : 1;
	if (a->energy_samples != b->energy_samples)
		return a->energy_samples > b->energy_samples ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module, b->module);
}

/* Index of (name, module) among e's rows, via a sorted view would be faster;
 * profiles have at most thousands of rows, so a hash is not worth it here:
 * we sort both sides by name and merge. */
int eq_row_by_name(const void *x, const void *y)
{
	const struct eq_row *a = *(const struct eq_row *const *)x;
	const struct eq_row *b = *(const struct eq_row *const *)y;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->module, b->module);
}

const struct eq_row **eq_rows_by_name(const struct eq_profile *p)
{
	const struct eq_row **v = malloc((p->nrows ? p->nrows : 1) * sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < p->nrows; i++)
		v[i] = &p->rows[i];
	qsort(v, p->nrows, sizeof(*v), eq_row_by_name);
	return v;
}

/* A row's design effect and degrees of freedom under iv; a row missing from
 * a profile has a count of 0 there: the binomial floor. */
double eq_row_deff(const struct eq_row *r, enum eq_interval iv, unsigned *df)
{
	*df = r && iv == EQ_IV_RUN ? r->df_run : 0;
	if (!r)
		return 1;
	return iv == EQ_IV_RUN ? r->deff_run : r->deff_sampling;
}

static void fill(struct eq_cmp_row *r, const struct eq_row *t, const struct eq_row *e,
		 uint64_t tn, uint64_t en, enum eq_interval iv)
{
	double de, dt;
	unsigned dfe, dft;

	const struct eq_row *any = t ? t : e;

	memset(r, 0, sizeof(*r));
	r->name = any->name;
	r->module = any->module;
	r->fields = any->fields;
	r->energy_j = NAN;
	r->time_samples = t ? t->samples : 0;
	r->energy_samples = e ? e->samples : 0;
	r->time_share = tn ? (double)r->time_samples / (double)tn : 0;
	r->energy_share = en ? (double)r->energy_samples / (double)en : 0;
	r->difference = r->energy_share - r->time_share;
	de = eq_row_deff(e, iv, &dfe);
	dt = eq_row_deff(t, iv, &dft);
	r->significant = eq_shares_differ((double)r->energy_samples, (double)en, de, dfe,
					  (double)r->time_samples, (double)tn, dt, dft, &r->z);
}

struct eq_comparison *eq_compare(const struct eq_profile *t, const struct eq_profile *e,
				 const char *time_source, const char *energy_source,
				 enum eq_interval iv)
{
	struct eq_comparison *c = calloc(1, sizeof(*c));
	const struct eq_row **tv = eq_rows_by_name(t), **ev = eq_rows_by_name(e);
	size_t i = 0, j = 0;

	if (!c || !tv || !ev ||
	    !(c->rows = calloc(t->nrows + e->nrows + 1, sizeof(*c->rows)))) {
		free(tv);
		free(ev);
		eq_comparison_free(c);
		return NULL;
	}
	c->by = t->by;
	c->keys = t->keys;
	c->filtered = t->filtered || e->filtered;
	c->filter_relative = t->filter_relative;
	c->time_filtered = t->filtered_samples;
	c->energy_filtered = e->filtered_samples;
	c->exclude_idle = t->exclude_idle;
	c->time_source = time_source;
	c->energy_source = energy_source;
	c->time_total = t->total_samples;
	c->energy_total = e->total_samples;
	c->interval = iv;
	c->time_runs = t->recordings > 1 ? t->recordings : 1;
	c->energy_runs = e->recordings > 1 ? e->recordings : 1;
	c->time_skipped = t->skipped;
	c->energy_skipped = e->skipped;
	while (i < t->nrows || j < e->nrows) {
		int d = i == t->nrows ? 1 : j == e->nrows ? -1 : eq_row_by_name(&tv[i], &ev[j]);

		if (d == 0 && same_row(tv[i], ev[j]->name, ev[j]->module))
			fill(&c->rows[c->nrows++], tv[i++], ev[j++], c->time_total, c->energy_total, iv);
		else if (d < 0)
			fill(&c->rows[c->nrows++], tv[i++], NULL, c->time_total, c->energy_total, iv);
		else
			fill(&c->rows[c->nrows++], NULL, ev[j++], c->time_total, c->energy_total, iv);
	}
	free(tv);
	free(ev);
	qsort(c->rows, c->nrows, sizeof(*c->rows), by_time_share);
	return c;
}

void eq_comparison_set_quantum(struct eq_comparison *c, double quantum_j)
{
	size_t i;

	if (!(quantum_j > 0) || !isfinite(quantum_j))
		return;
	for (i = 0; i < c->nrows; i++)
		c->rows[i].energy_j = (double)c->rows[i].energy_samples * quantum_j;
	c->has_energy_j = 1;
}

int eq_comparison_add_domain(struct eq_comparison *c, const char *domain,
			     double (*joules)(const void *arg, const char *name, const char *module),
			     const void *arg)
{
	size_t i, k = c->ndomains;

	if (k == EQ_CMP_MAX_DOMAINS)
		return -1;
	if (!c->source_j_) {
		c->source_j_ = calloc((c->nrows ? c->nrows : 1) * EQ_CMP_MAX_DOMAINS, sizeof(double));
		if (!c->source_j_)
			return -1;
	}
	for (i = 0; i < c->nrows; i++) {
		c->rows[i].source_j = c->source_j_ + i * EQ_CMP_MAX_DOMAINS;
		c->rows[i].source_j[k] = joules(arg, c->rows[i].name, c->rows[i].module);
	}
	c->domain[k] = domain;
	c->ndomains++;
	return 0;
}

void eq_comparison_free(struct eq_comparison *c)
{
	if (!c)
		return;
	free(c->source_j_);
	free(c->rows);
	free(c);
}

static void skipped_line(FILE *out, const char *source, const struct eqp_skipped *s)
{
	char sk[160];

	if (s->chunks || s->bytes || s->truncated)
		fprintf(out, "# skipped in %s (not compared): %s\n", source,
			eqp_skipped_line(s, sk, sizeof(sk)));
}

/* What the rows are: "by proc", or "sorted by comm,dso,sym" (--sort). */
static const char *grouping(const struct eq_comparison *c, char *buf, size_t size)
{
	size_t len;
	unsigned k;

	if (!c->keys.n) {
		snprintf(buf, size, "by %s", eq_by_name(c->by));
		return buf;
	}
	len = (size_t)snprintf(buf, size, "sorted by ");
	for (k = 0; k < c->keys.n && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? "," : "",
					eq_key_name(c->keys.k[k]));
	return buf;
}

/* The width of key k's column: its name or its longest value. */
static int key_width(const struct eq_comparison *c, unsigned k)
{
	size_t w = strlen(eq_key_name(c->keys.k[k])), i;

	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].fields && c->rows[i].fields[k] && strlen(c->rows[i].fields[k]) > w)
			w = strlen(c->rows[i].fields[k]);
	return w > 60 ? 60 : (int)w;
}

/* A joules column: 12 wide, "n/a" when the row has none. */
static void print_j(FILE *out, double j)
{
	char buf[32];

	if (isfinite(j))
		eq_format_quantity(buf, sizeof(buf), j, "J");
	else
		snprintf(buf, sizeof(buf), "n/a");
	fprintf(out, " %12s", buf);
}

static void print_table(FILE *out, const struct eq_comparison *c)
{
	char by[160];
	int w[EQ_KEYS_MAX];
	unsigned k;
	size_t i;

	fprintf(out, "# time profile %s (%llu samples) against energy profile %s (%llu samples), %s%s\n",
		c->time_source, (unsigned long long)c->time_total, c->energy_source,
		(unsigned long long)c->energy_total, grouping(c, by, sizeof(by)),
		c->exclude_idle ? ", idle excluded" : "");
	if (c->filtered)
		fprintf(out, "# filtered: %llu time and %llu energy samples left out; shares are of %s\n",
			(unsigned long long)c->time_filtered, (unsigned long long)c->energy_filtered,
			c->filter_relative ? "the samples kept (--percentage relative)" :
			"all samples (--percentage absolute)");
	skipped_line(out, c->time_source, &c->time_skipped);
	skipped_line(out, c->energy_source, &c->energy_skipped);
	fprintf(out, "%8s %8s %9s %4s%s", "time", "energy", "diff", "sig",
		c->has_power ? "  avg power" : "");
	if (c->has_energy_j)
		fprintf(out, " %12s", "joules");
	for (k = 0; k < c->ndomains; k++)
		fprintf(out, " %12.12s", c->domain[k]);
	fputc(' ', out);
	if (c->keys.n) {
		for (k = 0; k < c->keys.n; k++) {
			w[k] = key_width(c, k);
			fprintf(out, " %-*s", k + 1 < c->keys.n ? w[k] : 0, eq_key_name(c->keys.k[k]));
		}
		fputc('\n', out);
	} else {
		fprintf(out, eq_by_module_column(c->by) ? " %-20s %s\n" : "%.0s %s\n", "module",
			eq_by_name(c->by));
	}
	for (i = 0; i < c->nrows; i++) {
		const struct eq_cmp_row *r = &c->rows[i];
		char pw[32] = "";

		if (c->has_power && isfinite(r->power_w))
			eq_format_quantity(pw, sizeof(pw), r->power_w, "W");
		else if (c->has_power)
			snprintf(pw, sizeof(pw), "n/a");
		fprintf(out, "%7.2f%% %7.2f%% %+8.2f%% %4s%*s%s", 100 * r->time_share,
			100 * r->energy_share, 100 * r->difference, r->significant ? "*" : "",
			c->has_power ? 11 : 0, pw, "");
		if (c->has_energy_j)
			print_j(out, r->energy_j);
		for (k = 0; k < c->ndomains; k++)
			print_j(out, r->source_j ? r->source_j[k] : NAN);
		fputc(' ', out);
		if (!c->keys.n || !r->fields) {
			fprintf(out, eq_by_module_column(c->by) ? " %-20s %s\n" : "%.0s %s\n", r->module,
				r->name);
			continue;
		}
		for (k = 0; k < c->keys.n; k++)
			fprintf(out, " %-*s", k + 1 < c->keys.n ? w[k] : 0,
				r->fields[k] ? r->fields[k] : "");
		fputc('\n', out);
	}
	fputs("# diff = energy share - time share; * = different at 95% (two-proportion score test\n", out);
	if (c->interval == EQ_IV_RUN && (c->time_runs > 1 || c->energy_runs > 1))
		fprintf(out, "#   with run-to-run variances: from the spread between the %u time-driven and "
			"the %u energy-driven runs)\n", c->time_runs, c->energy_runs);
	else if (c->interval == EQ_IV_RUN)
		fputs("#   with run-to-run variances: two separate runs, batch means)\n", out);
	else
		fputs("#   with sampling variances: two samplings of one run)\n", out);
	if (c->has_power)
		fputs("# avg power = row's energy samples x quantum / (row's time samples x seconds per time sample)\n",
		      out);
	if (c->has_energy_j && c->energy_runs > 1)
		fprintf(out, "# joules = per run: row's energy samples x quantum / %u runs\n", c->energy_runs);
	else if (c->has_energy_j)
		fputs("# joules = row's energy samples x quantum (the energy-driven recording)\n", out);
	if (c->ndomains)
		fprintf(out, "# %s: the row's joules in the time-driven recording's energy source (record --energy; report gives their intervals)\n",
			c->ndomains > 1 ? "domain columns" : "domain column");
}

static void print_csv(FILE *out, const struct eq_comparison *c)
{
	size_t i;

	unsigned k;

	fputs("name,module,time_samples,time_share,energy_samples,energy_share,difference,z,significant,power_w",
	      out);
	fputs(",energy_j", out);
	for (k = 0; k < c->ndomains; k++) {  /* record --energy: a column per domain */
		char col[96];

		snprintf(col, sizeof(col), "joules_%s", c->domain[k]);
		fputc(',', out);
		eq_csv_field(out, col);
	}
	for (k = 0; k < c->keys.n; k++)  /* --sort: a column per key after these */
		fprintf(out, ",%s", eq_key_name(c->keys.k[k]));
	fputc('\n', out);
	for (i = 0; i < c->nrows; i++) {
		const struct eq_cmp_row *r = &c->rows[i];

		eq_csv_field(out, r->name);
		fputc(',', out);
		eq_csv_field(out, r->module);
		fprintf(out, ",%llu,%.8f,%llu,%.8f,%.8f,%.4f,%d,",
			(unsigned long long)r->time_samples, r->time_share,
			(unsigned long long)r->energy_samples, r->energy_share, r->difference,
			r->z, r->significant);
		if (c->has_power && isfinite(r->power_w))
			fprintf(out, "%.6g", r->power_w);
		fputc(',', out);
		if (isfinite(r->energy_j))
			fprintf(out, "%.9g", r->energy_j);
		for (k = 0; k < c->ndomains; k++) {
			fputc(',', out);
			if (r->source_j && isfinite(r->source_j[k]))
				fprintf(out, "%.9g", r->source_j[k]);
		}
		for (k = 0; k < c->keys.n; k++) {
			fputc(',', out);
			eq_csv_field(out, r->fields && r->fields[k] ? r->fields[k] : "");
		}
		fputc('\n', out);
	}
}

static void print_json(FILE *out, const struct eq_comparison *c)
{
	unsigned k;
	size_t i;

	fprintf(out, "{\"by\": \"%s\", \"exclude_idle\": %s, \"interval\": \"%s\", \"time_file\": ",
		eq_by_name(c->by), c->exclude_idle ? "true" : "false", eq_interval_name(c->interval));
	eq_json_string(out, c->time_source);
	fputs(", \"energy_file\": ", out);
	eq_json_string(out, c->energy_source);
	fprintf(out, ", \"time_runs\": %u, \"energy_runs\": %u, \"time_total_samples\": %llu, "
		"\"energy_total_samples\": %llu, \"time_skipped\": ", c->time_runs, c->energy_runs,
		(unsigned long long)c->time_total, (unsigned long long)c->energy_total);
	eqp_skipped_json(out, &c->time_skipped);
	fputs(", \"energy_skipped\": ", out);
	eqp_skipped_json(out, &c->energy_skipped);
	if (c->keys.n) {
		fputs(", \"sort\": [", out);
		for (k = 0; k < c->keys.n; k++)
			fprintf(out, "%s\"%s\"", k ? ", " : "", eq_key_name(c->keys.k[k]));
		fputc(']', out);
	}
	if (c->ndomains) {
		fputs(", \"source_domains\": [", out);
		for (k = 0; k < c->ndomains; k++) {
			fputs(k ? ", " : "", out);
			eq_json_string(out, c->domain[k]);
		}
		fputc(']', out);
	}
	if (c->filtered)
		fprintf(out, ", \"time_filtered_samples\": %llu, \"energy_filtered_samples\": %llu",
			(unsigned long long)c->time_filtered, (unsigned long long)c->energy_filtered);
	fputs(",\n \"rows\": [", out);
	for (i = 0; i < c->nrows; i++) {
		const struct eq_cmp_row *r = &c->rows[i];

		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		eq_json_string(out, r->name);
		fputs(", \"module\": ", out);
		eq_json_string(out, r->module);
		fprintf(out, ", \"time_samples\": %llu, \"time_share\": ",
			(unsigned long long)r->time_samples);
		eq_json_number(out, r->time_share);
		fprintf(out, ", \"energy_samples\": %llu, \"energy_share\": ",
			(unsigned long long)r->energy_samples);
		eq_json_number(out, r->energy_share);
		fputs(", \"difference\": ", out);
		eq_json_number(out, r->difference);
		fputs(", \"z\": ", out);
		eq_json_number(out, r->z);
		fprintf(out, ", \"significant\": %s, \"power_w\": ", r->significant ? "true" : "false");
		eq_json_number(out, c->has_power ? r->power_w : NAN);
		fputs(", \"energy_j\": ", out);
		eq_json_number(out, r->energy_j);
		for (k = 0; k < c->ndomains; k++) {
			fputs(k ? ", " : ", \"source_j\": {", out);
			eq_json_string(out, c->domain[k]);
			fputs(": ", out);
			eq_json_number(out, r->source_j ? r->source_j[k] : NAN);
		}
		if (c->ndomains)
			fputc('}', out);
		for (k = 0; k < c->keys.n; k++) {
			fputs(k ? ", " : ", \"keys\": {", out);
			fprintf(out, "\"%s\": ", eq_key_name(c->keys.k[k]));
			eq_json_string(out, r->fields && r->fields[k] ? r->fields[k] : "");
		}
		fputs(c->keys.n ? "}}" : "}", out);
	}
	fputs(c->nrows ? "\n ]}\n" : "]}\n", out);
}

void eq_comparison_print(FILE *out, const struct eq_comparison *c, enum eq_format fmt)
{
	if (fmt == EQ_FMT_CSV)
		print_csv(out, c);
	else if (fmt == EQ_FMT_JSON)
		print_json(out, c);
	else
		print_table(out, c);
}
