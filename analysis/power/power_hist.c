/*
 * power_hist.c - power histograms: the share of intervals per power bucket
 * (seed 001 Figures 9-11: "for y% of the samples the power during the
 * preceding interval was x W", in 50 mW buckets by default).
 */
#include "power/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A glitch (two samples nanoseconds apart) would ask for millions of
 * buckets; past this many, intervals are counted in the last bucket. */
#define HIST_MAX_BUCKETS 200000

int power_hist_init(struct power_hist *h, double bucket_w, struct eq_error *err)
{
	memset(h, 0, sizeof(*h));
	if (!(bucket_w > 0) || !isfinite(bucket_w))
		return eq_fail(err, "--bucket: the bucket width must be a positive power, e.g. 50mW");
	h->bucket_w = bucket_w;
	h->idle_known = 1;
	return 0;
}

static int grow(struct power_hist *h, size_t need, struct eq_error *err)
{
	size_t cap = h->cap ? h->cap : 64;
	uint64_t *a, *b;

	while (cap < need)
		cap *= 2;
	if (cap > HIST_MAX_BUCKETS)
		cap = HIST_MAX_BUCKETS;
	a = realloc(h->all, cap * sizeof(*a));
	if (!a)
		return eq_fail(err, "out of memory for %zu histogram buckets", cap);
	h->all = a;
	b = realloc(h->idle, cap * sizeof(*b));
	if (!b)
		return eq_fail(err, "out of memory for %zu histogram buckets", cap);
	h->idle = b;
	memset(h->all + h->cap, 0, (cap - h->cap) * sizeof(*a));
	memset(h->idle + h->cap, 0, (cap - h->cap) * sizeof(*b));
	h->cap = cap;
	return 0;
}

int power_hist_init_log(struct power_hist *h, unsigned per_decade, struct eq_error *err)
{
	memset(h, 0, sizeof(*h));
	if (per_decade < 1 || per_decade > POWER_FINE_PER_DECADE ||
	    POWER_FINE_PER_DECADE % per_decade)
		return eq_fail(err, "--bucket %u/decade: give 1, 2, 4, 8, 16, 32, 64 or 128 buckets "
			       "per decade", per_decade);
	h->per_decade = per_decade;
	h->idle_known = 1;
	return 0;
}

int power_log_bin(double power_w, unsigned per_decade)
{
	double k;
	int top = POWER_LOG_DECADES * (int)per_decade - 1;

	if (!(power_w > 1e-12))
		return 0;
	k = floor(log10(power_w) * per_decade) + 12.0 * per_decade;
	return k < 0 ? 0 : k > top ? top : (int)k;
}

double power_log_bin_edge(int bin, unsigned per_decade)
{
	return pow(10.0, (double)bin / per_decade - 12.0);
}

double power_log_bin_centre(int bin, unsigned per_decade)
{
	return pow(10.0, ((double)bin + 0.5) / per_decade - 12.0);
}

double power_hist_lo(const struct power_hist *h, size_t k)
{
	return h->per_decade ? power_log_bin_edge((int)k, h->per_decade) : (double)k * h->bucket_w;
}

double power_hist_hi(const struct power_hist *h, size_t k)
{
	return h->per_decade ? power_log_bin_edge((int)k + 1, h->per_decade) :
	       (double)(k + 1) * h->bucket_w;
}

int power_hist_add(struct power_hist *h, const struct power_iv *iv,
		   struct eq_error *err)
{
	double p = iv->energy_j / iv->dt;
	double kd = h->per_decade ? power_log_bin(p, h->per_decade) : floor(p / h->bucket_w);
	size_t k = kd >= HIST_MAX_BUCKETS - 1 ? HIST_MAX_BUCKETS - 1 : (size_t)(kd > 0 ? kd : 0);

	if (k >= h->cap && grow(h, k + 1, err) < 0)
		return -1;
	if (k >= h->nbuckets)
		h->nbuckets = k + 1;
	h->all[k]++;
	h->total++;
	if (!iv->idle_known)
		h->idle_known = 0;
	if (iv->idle) {
		h->idle[k]++;
		h->total_idle++;
	}
	return 0;
}

int power_hist_build(struct power_hist *h, const struct power_input *in,
		     struct eq_error *err)
{
	struct power_iter it;
	struct power_iv iv;

	if (in->basis != POWER_BASIS_SAMPLES && in->basis != POWER_BASIS_BOARD &&
	    in->basis != POWER_BASIS_SOURCE)
		return eq_fail(err, "%s: no power histogram: %s", in->name, in->why_none);
	power_iter_init(&it, in);
	while (power_iter_next(&it, &iv))
		if (power_hist_add(h, &iv, err) < 0)
			return -1;
	if (h->total == 0)
		return eq_fail(err, "%s: no intervals (fewer than two samples)", in->name);
	return 0;
}

int power_hist_build_range(struct power_hist *h, const struct power_input *in,
			   double t0, double t1, struct eq_error *err)
{
	struct power_iter it;
	struct power_iv iv;

	if (in->basis != POWER_BASIS_SAMPLES && in->basis != POWER_BASIS_BOARD &&
	    in->basis != POWER_BASIS_SOURCE)
		return eq_fail(err, "%s: no power histogram: %s", in->name, in->why_none);
	power_iter_init(&it, in);
	while (power_iter_next(&it, &iv)) {
		if (iv.t - iv.dt >= t1)
			break;
		if (iv.t > t0 && iv.t <= t1 && power_hist_add(h, &iv, err) < 0)
			return -1;
	}
	if (h->total == 0)
		return eq_fail(err, "%s: no interval ends in the range --from/--to", in->name);
	return 0;
}

int power_hist_median_bin(const struct power_hist *h)
{
	uint64_t want = (h->total + 1) / 2, cum = 0;
	size_t k;

	for (k = 0; k < h->nbuckets; k++) {
		cum += h->all[k];
		if (cum >= want && h->total)
			return (int)k;
	}
	return -1;
}

void power_hist_free(struct power_hist *h)
{
	free(h->all);
	free(h->idle);
	memset(h, 0, sizeof(*h));
}

static uint64_t count_of(const struct power_hist *h, size_t k, int which)
{
	if (k >= h->nbuckets)
		return 0;
	if (which == POWER_HIST_IDLE)
		return h->idle[k];
	if (which == POWER_HIST_BUSY)
		return h->all[k] - h->idle[k];
	return h->all[k];
}

double power_hist_pct(const struct power_hist *h, size_t k, int which)
{
	if (h->total == 0)
		return 0;
	return 100.0 * (double)count_of(h, k, which) / (double)h->total;
}

size_t power_hist_peak(const struct power_hist *h, int which)
{
	size_t k, best = 0;

	for (k = 1; k < h->nbuckets; k++)
		if (count_of(h, k, which) > count_of(h, best, which))
			best = k;
	return best;
}

/* The buckets worth printing: from the first to the last non-empty one. */
static void used_range(const struct power_hist *h, size_t n, size_t *lo, size_t *hi)
{
	size_t i, k;

	*lo = SIZE_MAX;
	*hi = 0;
	for (i = 0; i < n; i++)
		for (k = 0; k < h[i].nbuckets; k++)
			if (h[i].all[k]) {
				if (k < *lo)
					*lo = k;
				if (k + 1 > *hi)
					*hi = k + 1;
			}
	if (*lo == SIZE_MAX)
		*lo = 0;
}

int power_hist_write_csv(FILE *out, const struct power_hist *h,
			 const char *const *names, size_t n, int split_idle)
{
	size_t i, k, lo, hi;
	double w = h[0].bucket_w;

	fprintf(out, "bucket_lo_w,bucket_hi_w");
	for (i = 0; i < n; i++) {
		if (split_idle)
			fprintf(out, ",%s idle pct,%s busy pct", names[i], names[i]);
		else
			fprintf(out, ",%s pct", names[i]);
	}
	fputc('\n', out);
	used_range(h, n, &lo, &hi);
	(void)w;
	for (k = lo; k < hi; k++) {
		fprintf(out, "%.6g,%.6g", power_hist_lo(&h[0], k), power_hist_hi(&h[0], k));
		for (i = 0; i < n; i++) {
			if (split_idle)
				fprintf(out, ",%.6f,%.6f", power_hist_pct(&h[i], k, POWER_HIST_IDLE),
					power_hist_pct(&h[i], k, POWER_HIST_BUSY));
			else
				fprintf(out, ",%.6f", power_hist_pct(&h[i], k, POWER_HIST_ALL));
		}
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}
