/*
 * power_print.c - summaries and regions as a table (seed 001 Table 4 style),
 * CSV or JSON.  The JSON schema is documented in docs/power.md and stable.
 */
#include "power/power.h"
#include "profile/stats.h"
#include "profile/table.h"
#include "util/units.h"

#include <math.h>
#include <string.h>

static const char *mode_name(enum eqp_mode m)
{
	return m == EQP_MODE_ENERGY ? "energy" : "time";
}

static const char *basis_name(enum power_basis b)
{
	switch (b) {
	case POWER_BASIS_SAMPLES: return "samples";
	case POWER_BASIS_BOARD: return "board";
	case POWER_BASIS_SOURCE: return "source";
	default: return "none";
	}
}

/* A number, or null / empty when there is none (time-driven, no board). */
static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v);
	else
		fputs("null", out);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v);
}

static void table_qty(FILE *out, int width, double v, const char *unit)
{
	char buf[32];

	if (isfinite(v))
		fprintf(out, " %*s", width, eq_format_quantity(buf, sizeof(buf), v, unit));
	else
		fprintf(out, " %*s", width, "n/a");
}

static int skipped_any(const struct eqp_skipped *s)
{
	return s->chunks || s->bytes || s->truncated;
}

static void summary_table(FILE *out, const struct power_summary *s, size_t n)
{
	size_t i, w = 9;
	int notes = 0;

	for (i = 0; i < n; i++)
		if (strlen(s[i].name) > w)
			w = strlen(s[i].name);
	fprintf(out, "%-*s %-6s %10s %10s %8s %10s %10s %10s %10s %7s\n", (int)w,
		"recording", "mode", "duration", "samples", "lost", "avg freq",
		"quantum", "avg power", "energy", "idle %");
	for (i = 0; i < n; i++) {
		fprintf(out, "%-*s %-6s", (int)w, s[i].name, mode_name(s[i].mode));
		table_qty(out, 10, s[i].duration_s, "s");
		fprintf(out, " %10llu %8llu", (unsigned long long)s[i].samples,
			(unsigned long long)s[i].lost);
		table_qty(out, 10, s[i].freq_hz, "Hz");
		table_qty(out, 10, s[i].basis == POWER_BASIS_NONE ? NAN : s[i].quantum_j, "J");
		table_qty(out, 10, s[i].power_w, "W");
		table_qty(out, 10, s[i].energy_j, "J");
		fprintf(out, " %6.1f%s\n", s[i].idle_pct,
			s[i].basis == POWER_BASIS_BOARD ? "  (power from the board stream)" :
			s[i].basis == POWER_BASIS_SOURCE ? "  (power from the energy source read alongside)" : "");
		notes |= s[i].basis == POWER_BASIS_NONE;
	}
	for (i = 0; i < n; i++)
		notes |= skipped_any(&s[i].skipped);
	if (!notes)
		return;
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		char sk[160];

		if (s[i].basis == POWER_BASIS_NONE)
			fprintf(out, "%s: no power: %s\n", s[i].name, s[i].why_none);
		if (skipped_any(&s[i].skipped))
			fprintf(out, "%s: skipped (not in these figures): %s\n", s[i].name,
				eqp_skipped_line(&s[i].skipped, sk, sizeof(sk)));
	}
}

static void summary_csv(FILE *out, const struct power_summary *s, size_t n)
{
	size_t i;

	fprintf(out, "recording,mode,power_source,duration_s,samples,lost,freq_hz,"
		     "quantum_j,power_w,energy_j,idle_pct,note,skipped_chunks,skipped_bytes,"
		     "skipped_samples,truncated\n");
	for (i = 0; i < n; i++) {
		eq_csv_field(out, s[i].name);
		fprintf(out, ",%s,%s,%.9g,%llu,%llu,%.9g,", mode_name(s[i].mode),
			basis_name(s[i].basis), s[i].duration_s,
			(unsigned long long)s[i].samples, (unsigned long long)s[i].lost,
			s[i].freq_hz);
		csv_num(out, s[i].basis == POWER_BASIS_NONE ? NAN : s[i].quantum_j);
		fputc(',', out);
		csv_num(out, s[i].power_w);
		fputc(',', out);
		csv_num(out, s[i].energy_j);
		fprintf(out, ",%.4f,", s[i].idle_pct);
		if (s[i].why_none)
			eq_csv_field(out, s[i].why_none);
		fprintf(out, ",%llu,%llu,%llu,%d\n", (unsigned long long)s[i].skipped.chunks,
			(unsigned long long)s[i].skipped.bytes,
			(unsigned long long)s[i].skipped.samples, s[i].skipped.truncated);
	}
}

static void summary_json_one(FILE *out, const struct power_summary *si)
{
	fputs("{\"recording\": ", out);
	eq_json_string(out, si->name);
	fprintf(out, ", \"mode\": \"%s\", \"power_source\": \"%s\", \"duration_s\": ",
		mode_name(si->mode), basis_name(si->basis));
	json_num(out, si->duration_s);
	fprintf(out, ", \"samples\": %llu, \"lost\": %llu, \"freq_hz\": ",
		(unsigned long long)si->samples, (unsigned long long)si->lost);
	json_num(out, si->freq_hz);
	fputs(", \"quantum_j\": ", out);
	json_num(out, si->basis == POWER_BASIS_NONE ? NAN : si->quantum_j);
	fputs(", \"power_w\": ", out);
	json_num(out, si->power_w);
	fputs(", \"energy_j\": ", out);
	json_num(out, si->energy_j);
	fputs(", \"idle_pct\": ", out);
	json_num(out, si->idle_pct);
	fputs(", \"note\": ", out);
	if (si->why_none)
		eq_json_string(out, si->why_none);
	else
		fputs("null", out);
	fputs(", \"skipped\": ", out);
	eqp_skipped_json(out, &si->skipped);
	fputc('}', out);
}

static void summary_json(FILE *out, const struct power_summary *s, size_t n)
{
	size_t i;

	fprintf(out, "{\"recordings\": [");
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		summary_json_one(out, &s[i]);
	}
	fprintf(out, "\n]}\n");
}

void power_runs_stat(const struct power_summary *s, size_t n, int which,
		     struct power_runs_stat *o)
{
	double sum = 0, ss = 0;
	size_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < n; i++) {
		double v = which == POWER_RUNS_DURATION ? s[i].duration_s :
			   which == POWER_RUNS_POWER ? s[i].power_w : s[i].energy_j;

		if (!isfinite(v))
			continue;
		o->n++;
		sum += v;
	}
	o->mean = o->n ? sum / o->n : NAN;
	for (i = 0; i < n; i++) {
		double v = which == POWER_RUNS_DURATION ? s[i].duration_s :
			   which == POWER_RUNS_POWER ? s[i].power_w : s[i].energy_j;

		if (isfinite(v))
			ss += (v - o->mean) * (v - o->mean);
	}
	o->sd = o->n > 1 ? sqrt(ss / (o->n - 1)) : NAN;
	o->ci95 = o->n > 1 ? eq_t95(o->n - 1) * o->sd / sqrt((double)o->n) : NAN;
}

static const char *const runs_keys[POWER_RUNS_N] = { "duration_s", "power_w", "energy_j" };

void power_summary_print_runs(FILE *out, const struct power_summary *s, size_t n,
			      enum power_format fmt)
{
	struct power_runs_stat st[POWER_RUNS_N];
	size_t i, w = 9;
	int k;

	for (k = 0; k < POWER_RUNS_N; k++)
		power_runs_stat(s, n, k, &st[k]);
	if (fmt == POWER_FMT_JSON) {
		fprintf(out, "{\"recordings\": [");
		for (i = 0; i < n; i++) {
			fputs(i ? ",\n  " : "\n  ", out);
			summary_json_one(out, &s[i]);
		}
		fprintf(out, "\n],\n \"runs\": {\"n\": %zu", n);
		for (k = 0; k < POWER_RUNS_N; k++) {
			fprintf(out, ", \"%s\": {\"n\": %u, \"mean\": ", runs_keys[k], st[k].n);
			json_num(out, st[k].mean);
			fputs(", \"sd\": ", out);
			json_num(out, st[k].sd);
			fputs(", \"ci95\": ", out);
			json_num(out, st[k].ci95);
			fputc('}', out);
		}
		fputs("}}\n", out);
		return;
	}
	if (fmt == POWER_FMT_CSV) {
		static const char *const what[3] = { "mean", "sd", "ci95" };
		int j;

		summary_csv(out, s, n);
		/* the same columns: duration, power and energy filled */
		for (j = 0; j < 3; j++) {
			double v[POWER_RUNS_N];

			for (k = 0; k < POWER_RUNS_N; k++)
				v[k] = j == 0 ? st[k].mean : j == 1 ? st[k].sd : st[k].ci95;
			fprintf(out, "%s,,,", what[j]);
			csv_num(out, v[POWER_RUNS_DURATION]);
			fputs(",,,,,", out);
			csv_num(out, v[POWER_RUNS_POWER]);
			fputc(',', out);
			csv_num(out, v[POWER_RUNS_ENERGY]);
			fputs(",,,,,,\n", out);
		}
		return;
	}
	summary_table(out, s, n);
	for (i = 0; i < n; i++)
		if (strlen(s[i].name) > w)
			w = strlen(s[i].name);
	fprintf(out, "\n%-*s %-6s", (int)w, "mean", "");
	table_qty(out, 10, st[POWER_RUNS_DURATION].mean, "s");
	fprintf(out, " %10s %8s %10s %10s", "", "", "", "");
	table_qty(out, 10, st[POWER_RUNS_POWER].mean, "W");
	table_qty(out, 10, st[POWER_RUNS_ENERGY].mean, "J");
	fprintf(out, "\n%-*s %-6s", (int)w, "SD", "");
	table_qty(out, 10, st[POWER_RUNS_DURATION].sd, "s");
	fprintf(out, " %10s %8s %10s %10s", "", "", "", "");
	table_qty(out, 10, st[POWER_RUNS_POWER].sd, "W");
	table_qty(out, 10, st[POWER_RUNS_ENERGY].sd, "J");
	fprintf(out, "\n%-*s %-6s", (int)w, "95% CI +-", "");
	table_qty(out, 10, st[POWER_RUNS_DURATION].ci95, "s");
	fprintf(out, " %10s %8s %10s %10s", "", "", "", "");
	table_qty(out, 10, st[POWER_RUNS_POWER].ci95, "W");
	table_qty(out, 10, st[POWER_RUNS_ENERGY].ci95, "J");
	fprintf(out, "\n(%zu runs: mean, standard deviation and half-width of the 95%% interval of the mean)\n", n);
}

void power_summary_print(FILE *out, const struct power_summary *s, size_t n,
			 enum power_format fmt)
{
	if (fmt == POWER_FMT_CSV)
		summary_csv(out, s, n);
	else if (fmt == POWER_FMT_JSON)
		summary_json(out, s, n);
	else
		summary_table(out, s, n);
}

void power_region_print(FILE *out, const struct power_region *r, size_t n,
			enum power_format fmt)
{
	size_t i;

	if (fmt == POWER_FMT_CSV)
		fprintf(out, "region,t0_s,t1_s,time_s,energy_j,power_w,samples\n");
	else if (fmt == POWER_FMT_JSON)
		fprintf(out, "{\"regions\": [");
	else
		fprintf(out, "%-32s %10s %10s %10s %10s %10s %8s\n", "region", "from",
			"to", "time", "energy", "avg power", "samples");
	for (i = 0; i < n; i++) {
		if (fmt == POWER_FMT_CSV) {
			eq_csv_field(out, r[i].label);
			fprintf(out, ",%.9g,%.9g,%.9g,%.9g,%.9g,%llu\n", r[i].t0, r[i].t1,
				r[i].time_s, r[i].energy_j, r[i].power_w,
				(unsigned long long)r[i].samples);
		} else if (fmt == POWER_FMT_JSON) {
			fprintf(out, "%s\n  {\"region\": ", i ? "," : "");
			eq_json_string(out, r[i].label);
			fprintf(out, ", \"t0_s\": %.9g, \"t1_s\": %.9g, \"time_s\": %.9g, "
				     "\"energy_j\": %.9g, \"power_w\": %.9g, \"samples\": %llu}",
				r[i].t0, r[i].t1, r[i].time_s, r[i].energy_j, r[i].power_w,
				(unsigned long long)r[i].samples);
		} else {
			fprintf(out, "%-32s", r[i].label);
			table_qty(out, 10, r[i].t0, "s");
			table_qty(out, 10, r[i].t1, "s");
			table_qty(out, 10, r[i].time_s, "s");
			table_qty(out, 10, r[i].energy_j, "J");
			table_qty(out, 10, r[i].power_w, "W");
			fprintf(out, " %8llu\n", (unsigned long long)r[i].samples);
		}
	}
	if (fmt == POWER_FMT_JSON)
		fprintf(out, "\n]}\n");
}
