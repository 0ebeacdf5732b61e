/*
 * power_region.c - energy, time and average power between two timestamps or
 * between consecutive markers of a recording.
 *
 * Within an interval the power is taken as constant (that is all energy-
 * driven sampling knows), so an interval straddling an edge of the region
 * counts with the part of its energy that falls inside.
 */
#include "power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int power_region_measure(const struct power_input *in, struct power_region *r,
			 struct eq_error *err)
{
	struct power_iter it;
	struct power_iv iv;

	if (in->basis != POWER_BASIS_SAMPLES && in->basis != POWER_BASIS_BOARD)
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
	size_t i;

	*out = NULL;
	*n = 0;
	if (in->nmarkers < 2)
		return eq_fail(err, "%s: --markers: the recording has %zu marker(s); regions need at least two",
			       in->name, in->nmarkers);
	r = calloc(in->nmarkers - 1, sizeof(*r));
	if (!r)
		return eq_fail(err, "%s: out of memory", in->name);
	for (i = 0; i + 1 < in->nmarkers; i++) {
		const struct eqp_marker *a = in->markers[i], *b = in->markers[i + 1];

		snprintf(r[i].label, sizeof(r[i].label), "%s .. %s", a->label, b->label);
		r[i].t0 = power_rel_time(in, a->time);
		r[i].t1 = power_rel_time(in, b->time);
		if (power_region_measure(in, &r[i], err) < 0) {
			free(r);
			return eq_fail_prefix(err, "markers %zu and %zu", i, i + 1);
		}
	}
	*out = r;
	*n = in->nmarkers - 1;
	return 0;
}
