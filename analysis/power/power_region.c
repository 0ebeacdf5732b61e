/*
 * power_region.c - energy, time and average power between two timestamps or
 * between consecutive markers of a recording.
 *
 * Within an interval the power is taken as constant (that is all energy-
 * driven sampling knows), so an interval straddling an edge of the region
 * counts with the part of its energy that falls inside.
 */
#include "power/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int power_region_measure(const struct power_input *in, struct power_region *r,
			 struct eq_error *err)
{
	struct power_iter it;
	struct power_iv iv;

	if (in->basis != POWER_BASIS_SAMPLES && in->basis != POWER_BASIS_BOARD &&
	    in->basis != POWER_BASIS_SOURCE)
		return eq_fail(err, "%s: no region energy: %s", in->name, in->why_none);
	if (!(r->t1 > r->t0))
		return eq_fail(err, "%s: region %s: the end (%gs) must come after the start (%gs)",
			       in->name, r->label, r->t1, r->t0);
	r->energy_j = 0;
	r->samples = 0;
	power_iter_init(&it, in);
	while (power_iter_next(&it, &iv)) {
		double a = iv.t - iv.dt, b = iv.t;
		double lo = a > r->t0 ? a : r->t0, hi = b < r->t1 ? b : r->t1;

		if (a >= r->t1)
			break;
		if (hi > lo)
			r->energy_j += iv.energy_j * (hi - lo) / iv.dt;
		if (b > r->t0 && b <= r->t1)
			r->samples++;
	}
	r->time_s = r->t1 - r->t0;
	r->power_w = r->energy_j / r->time_s;
	return 0;
}

int power_regions_from_markers(const struct power_input *in,
			       struct power_region **out, size_t *n,
			       struct eq_error *err)
{
	struct power_region *r;
	double end;
	size_t i, k;

	*out = NULL;
	*n = 0;
	if (in->nmarkers == 0)
		return eq_fail(err, "%s: --markers: the recording has no markers", in->name);
	r = calloc(in->nmarkers, sizeof(*r));
	if (!r)
		return eq_fail(err, "%s: out of memory", in->name);
	end = power_input_span(in);
	for (i = k = 0; i < in->nmarkers; i++) {
		const struct eqp_marker *a = in->markers[i];
		const struct eqp_marker *b = i + 1 < in->nmarkers ? in->markers[i + 1] : NULL;

		r[k].t0 = power_rel_time(in, a->time);
		if (b) {
			snprintf(r[k].label, sizeof(r[k].label), "%s .. %s", a->label, b->label);
			r[k].t1 = power_rel_time(in, b->time);
		} else {
			/* A phase that started at the last marker runs to the end. */
			if (end <= r[k].t0)
				break;
			snprintf(r[k].label, sizeof(r[k].label), "%s .. end of recording", a->label);
			r[k].t1 = end;
		}
		if (power_region_measure(in, &r[k], err) < 0) {
			free(r);
			return eq_fail_prefix(err, "markers %zu and %zu", i, i + 1);
		}
		k++;
	}
	*out = r;
	*n = k;
	return 0;
}
