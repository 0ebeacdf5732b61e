/*
 * slices.c - the samples of a --from/--to range (range.h), in time order,
 * for eq_profile_build: slices of the file's chunks when the file is in
 * time order, else one sorted copy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/agg.h"

uint64_t eq_samples_t0(const struct eqp_file *f)
{
	uint64_t t0 = UINT64_MAX;
	size_t c, i, n;

	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++)
			if (smp[i].time < t0)
				t0 = smp[i].time;
	}
	return t0 == UINT64_MAX ? 0 : t0;
}

void eq_range_slices_free(struct range_slices *rs)
{
	free(rs->v);
	free(rs->copy);
	memset(rs, 0, sizeof(*rs));
}

static int cmp_sample_time(const void *x, const void *y)
{
	const struct eq_sample *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* First index of smp[0..n) whose sample is not before the range (in), or
 * not in it any more (!in); smp in time order. */
static size_t range_bound(const struct eq_sample *smp, size_t n, uint64_t t0,
			  const struct eq_tick_range *tr, int past_end)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t rel = smp[mid].time - t0;
		int64_t r = rel > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rel;
		int ahead = past_end ? r > tr->to : (r > tr->from || (r == 0 && tr->from <= 0));

		if (ahead)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int eq_range_slices(const struct eqp_file *f, const struct eq_range *r, struct range_slices *rs)
{
	const struct eqp_meta *m = eqp_meta(f);
	size_t nc = eqp_nsample_chunks(f), c, i, n, k = 0;
	uint64_t t0 = eq_samples_t0(f), prev = 0;
	struct eq_tick_range tr;
	int ordered = 1;

	eq_range_ticks(r, m->clock_hz > 0 ? m->clock_hz : 1e9, &tr);
	for (c = 0; c < nc && ordered; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++) {
			if (smp[i].time < prev) {
				ordered = 0;
				break;
			}
			prev = smp[i].time;
		}
	}
	rs->v = calloc(nc ? nc : 1, sizeof(*rs->v));
	if (!rs->v)
		return -1;
	if (ordered) {
		for (c = 0; c < nc; c++) {
			const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);
			size_t lo, hi;

			if (!smp)
				continue;
			lo = range_bound(smp, n, t0, &tr, 0);
			hi = range_bound(smp, n, t0, &tr, 1);
			if (hi > lo) {
				rs->v[rs->n++] = (struct range_slice){ smp + lo, hi - lo };
				rs->total += hi - lo;
			}
		}
		return 0;
	}
	/* several rings drained one after the other: the range's samples sorted */
	for (c = 0; c < nc; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++)
			rs->total += eq_tick_range_has(&tr, smp[i].time - t0);
	}
	rs->copy = malloc((rs->total ? rs->total : 1) * sizeof(*rs->copy));
	if (!rs->copy)
		return -1;
	for (c = 0; c < nc; c++) {
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++)
			if (eq_tick_range_has(&tr, smp[i].time - t0))
				rs->copy[k++] = smp[i];
	}
	qsort(rs->copy, k, sizeof(*rs->copy), cmp_sample_time);
	rs->v[0] = (struct range_slice){ rs->copy, k };
	rs->n = 1;
	return 0;
}
