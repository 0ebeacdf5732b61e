/*
 * power_range.c - a stretch of the interval stream: energy with the bounds
 * its ends leave open, average, peak, minimum and median power, idle and
 * the log histogram (power --from/--to; the numbers eqprof view shows for
 * a selection, which its page adds up from time buckets that
 * analysis/view builds with the same rules).
 */
#include "power/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/table.h"
#include "util/units.h"

/* The recording's samples in the range (range.h's rule, on the target clock). */
static void count_samples(const struct power_input *in, const struct eq_range *range,
			  double clock_hz, struct power_range *r)
{
	struct eq_tick_range tr;
	uint64_t t0 = UINT64_MAX;
	size_t c, i;

	eq_range_ticks(range, clock_hz, &tr);
	for (c = 0; c < in->nchunks; c++)
		for (i = 0; i < in->counts[c]; i++)
			if (in->chunks[c][i].time < t0)
				t0 = in->chunks[c][i].time;
	for (c = 0; c < in->nchunks; c++)
		for (i = 0; i < in->counts[c]; i++) {
			const struct eq_sample *s = &in->chunks[c][i];

			if (eq_tick_range_has(&tr, s->time - t0)) {
				r->samples++;
				r->idle_samples += (s->flags & EQ_F_IDLE) != 0;
			}
		}
}

/* One interval's part in the range. */
static void add_interval(struct power_range *r, const struct power_iv *iv)
{
	double a = iv->t - iv->dt, b = iv->t;
	double lo = a > r->t0 ? a : r->t0, hi = b < r->t1 ? b : r->t1;
	double p = iv->energy_j / iv->dt;

	if (hi > lo) {
		double part = iv->energy_j * (hi - lo) / iv->dt;

		r->energy_j += part;
		if (a >= r->t0 && b <= r->t1) {
			r->energy_lo_j += iv->energy_j;
			r->energy_hi_j += iv->energy_j;
		} else {
			r->energy_hi_j += iv->energy_j;  /* cut by an end: 0 to all of it */
		}
		if (a < r->from_s)
			r->from_s = a;
		if (b > r->to_s)
			r->to_s = b;
	}
	if (!(b > r->t0 && b <= r->t1))
		return;
	r->intervals++;
	if (!iv->idle_known)
		r->idle_known = 0;
	r->idle_intervals += iv->idle;
	if (!(p <= r->peak_w))
		r->peak_w = p;
	if (!(p >= r->min_w))
		r->min_w = p;
}

int power_range_measure(const struct power_input *in, const struct eq_range *range,
			double clock_hz, struct power_range *r, struct eq_error *err)
{
	struct power_iter it;
	struct power_iv iv;
	int k;

	memset(r, 0, sizeof(*r));
	r->peak_w = r->min_w = r->median_w = NAN;
	/* only samples can tell idle; the board and a source cannot */
	r->idle_known = in->basis == POWER_BASIS_SAMPLES;
	eq_range_edges(range, clock_hz, &r->t0, &r->t1);
	if (in->basis != POWER_BASIS_SAMPLES && in->basis != POWER_BASIS_BOARD &&
	    in->basis != POWER_BASIS_SOURCE)
		return eq_fail(err, "%s: no power in a range: %s", in->name, in->why_none);
	if (power_hist_init_log(&r->fine, POWER_FINE_PER_DECADE, err) < 0)
		return -1;
	r->from_s = INFINITY;
	r->to_s = -INFINITY;
	power_iter_init(&it, in);
	while (power_iter_next(&it, &iv)) {
		if (iv.t - iv.dt >= r->t1)
			break;
		add_interval(r, &iv);
		if (iv.t > r->t0 && iv.t <= r->t1 && power_hist_add(&r->fine, &iv, err) < 0) {
			power_range_free(r);
			return -1;
		}
	}
	if (!(r->to_s > r->from_s)) {
		power_range_free(r);
		return eq_fail(err, "%s: no power in the range --from/--to: it is outside the "
			       "recording (%s)", in->name, "power --summary gives its duration");
	}
	/* an open end, or one beyond the stream: the stretch the stream covers */
	r->from_s = r->t0 > r->from_s ? r->t0 : r->from_s;
	r->to_s = r->t1 < r->to_s ? r->t1 : r->to_s;
	r->duration_s = r->to_s - r->from_s;
	r->power_w = r->energy_j / r->duration_s;
	k = power_hist_median_bin(&r->fine);
	if (k >= 0)
		r->median_w = power_log_bin_centre(k, POWER_FINE_PER_DECADE);
	if (!r->idle_known)
		r->idle_intervals = 0;
	count_samples(in, range, clock_hz, r);
	return 0;
}

void power_range_free(struct power_range *r)
{
	power_hist_free(&r->fine);
}

/* "29.13 h" (or days past a week) */
static const char *life_text(char *buf, size_t size, double s)
{
	if (!(s > 0) || !isfinite(s))
		snprintf(buf, size, "n/a");
	else if (s >= 7 * 86400)
		snprintf(buf, size, "%.4g days", s / 86400);
	else
		snprintf(buf, size, "%.4g h", s / 3600);
	return buf;
}

static void print_table_one(FILE *out, const struct power_range *r, const char *name,
			    double battery_j, const char *battery_text)
{
	char a[32], b[32], c[32];

	fprintf(out, "# %s: ", name);
	if (isfinite(r->t0) && r->t0 > 0)
		fprintf(out, "after %.9g s", r->t0);
	else
		fputs("from the start", out);
	if (isfinite(r->t1))
		fprintf(out, " up to %.9g s", r->t1);
	fputs(" (--from/--to)\n", out);
	fprintf(out, "duration      %s\n", eq_format_quantity(a, sizeof(a), r->duration_s, "s"));
	fprintf(out, "samples       %llu (%llu idle)\n", (unsigned long long)r->samples,
		(unsigned long long)r->idle_samples);
	fprintf(out, "intervals     %llu", (unsigned long long)r->intervals);
	if (r->idle_known)
		fprintf(out, " (%llu idle)", (unsigned long long)r->idle_intervals);
	fputc('\n', out);
	fprintf(out, "energy        %s  [%s, %s]\n", eq_format_quantity(a, sizeof(a), r->energy_j, "J"),
		eq_format_quantity(b, sizeof(b), r->energy_lo_j, "J"),
		eq_format_quantity(c, sizeof(c), r->energy_hi_j, "J"));
	fprintf(out, "avg power     %s\n", eq_format_quantity(a, sizeof(a), r->power_w, "W"));
	fprintf(out, "peak power    %s\n", eq_format_quantity(a, sizeof(a), r->peak_w, "W"));
	fprintf(out, "min power     %s\n", eq_format_quantity(a, sizeof(a), r->min_w, "W"));
	fprintf(out, "median power  %s\n", eq_format_quantity_sig(a, sizeof(a), r->median_w, "W", 3));
	if (battery_j > 0)
		fprintf(out, "battery life  %s at %s\n", life_text(a, sizeof(a), battery_j / r->power_w),
			battery_text);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, ",%.9g", v);
	else
		fputc(',', out);
}

void power_range_print(FILE *out, const struct power_range *r, const char *const *names,
		       size_t n, double battery_j, const char *battery_text, enum power_format fmt)
{
	size_t i;

	if (fmt == POWER_FMT_TABLE) {
		for (i = 0; i < n; i++) {
			if (i)
				fputc('\n', out);
			print_table_one(out, &r[i], names[i], battery_j, battery_text);
		}
		fputs("# energy [bounds]: the intervals the ends cut count in proportion; the bounds\n"
		      "#   hold whatever the power did inside them.  Peak, min, median: of the\n"
		      "#   intervals ending in the range (median to 1/128 decade)\n", out);
		return;
	}
	if (fmt == POWER_FMT_CSV) {
		fputs("recording,from_s,to_s,duration_s,samples,idle_samples,intervals,idle_intervals,"
		      "energy_j,energy_lo_j,energy_hi_j,power_w,peak_w,min_w,median_w,battery_life_s\n", out);
		for (i = 0; i < n; i++) {
			fputs(names[i], out);
			csv_num(out, r[i].from_s);
			csv_num(out, r[i].to_s);
			csv_num(out, r[i].duration_s);
			fprintf(out, ",%llu,%llu,%llu,", (unsigned long long)r[i].samples,
				(unsigned long long)r[i].idle_samples, (unsigned long long)r[i].intervals);
			if (r[i].idle_known)
				fprintf(out, "%llu", (unsigned long long)r[i].idle_intervals);
			csv_num(out, r[i].energy_j);
			csv_num(out, r[i].energy_lo_j);
			csv_num(out, r[i].energy_hi_j);
			csv_num(out, r[i].power_w);
			csv_num(out, r[i].peak_w);
			csv_num(out, r[i].min_w);
			csv_num(out, r[i].median_w);
			csv_num(out, battery_j > 0 ? battery_j / r[i].power_w : NAN);
			fputc('\n', out);
		}
		return;
	}
	fputs("{\"ranges\": [", out);
	for (i = 0; i < n; i++) {
		fprintf(out, "%s\n {\"recording\": ", i ? "," : "");
		eq_json_string(out, names[i]);
		fprintf(out, ", \"from_s\": %.17g, \"to_s\": %.17g, \"duration_s\": %.17g, "
			"\"samples\": %llu, \"idle_samples\": %llu, \"intervals\": %llu, "
			"\"idle_intervals\": ", r[i].from_s, r[i].to_s, r[i].duration_s,
			(unsigned long long)r[i].samples, (unsigned long long)r[i].idle_samples,
			(unsigned long long)r[i].intervals);
		if (r[i].idle_known)
			fprintf(out, "%llu", (unsigned long long)r[i].idle_intervals);
		else
			fputs("null", out);
		fprintf(out, ", \"energy_j\": %.17g, \"energy_lo_j\": %.17g, \"energy_hi_j\": %.17g, "
			"\"power_w\": %.17g", r[i].energy_j, r[i].energy_lo_j, r[i].energy_hi_j,
			r[i].power_w);
		fputs(", \"peak_w\": ", out);
		isfinite(r[i].peak_w) ? fprintf(out, "%.17g", r[i].peak_w) : fputs("null", out);
		fputs(", \"min_w\": ", out);
		isfinite(r[i].min_w) ? fprintf(out, "%.17g", r[i].min_w) : fputs("null", out);
		fputs(", \"median_w\": ", out);
		isfinite(r[i].median_w) ? fprintf(out, "%.17g", r[i].median_w) : fputs("null", out);
		if (battery_j > 0)
			fprintf(out, ", \"battery_j\": %.17g, \"battery_life_s\": %.17g", battery_j,
				battery_j / r[i].power_w);
		fputc('}', out);
	}
	fputs("]}\n", out);
}
