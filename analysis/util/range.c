/* range.c - --from/--to time ranges; see range.h. */
#include "util/range.h"

#include <math.h>
#include <string.h>

#include "util/units.h"

int eq_range_active(const struct eq_range *r)
{
	return r && (r->has_from || r->has_to);
}

int eq_range_parse(struct eq_range *r, const char *which, const char *text,
		   struct eq_error *err)
{
	double v;

	if (eq_parse_quantity(text, "s", which, &v, err) < 0)
		return -1;
	if (fabs(v) > 1e9)
		return eq_fail(err, "%s %s: give seconds since the first sample (at most 1e9 s)",
			       which, text);
	if (!strcmp(which, "--from")) {
		r->has_from = 1;
		r->from_s = v;
	} else {
		r->has_to = 1;
		r->to_s = v;
	}
	if (r->has_from && r->has_to && !(r->to_s > r->from_s))
		return eq_fail(err, "--from %g s --to %g s: the end must come after the start",
			       r->from_s, r->to_s);
	return 0;
}

static int64_t to_tick(double s, double clock_hz)
{
	double t = round(s * clock_hz);

	if (t >= 9.2e18)
		return INT64_MAX - 1;
	if (t <= -9.2e18)
		return INT64_MIN + 1;
	return (int64_t)t;
}

void eq_range_ticks(const struct eq_range *r, double clock_hz, struct eq_tick_range *t)
{
	t->from = r && r->has_from ? to_tick(r->from_s, clock_hz) : INT64_MIN;
	t->to = r && r->has_to ? to_tick(r->to_s, clock_hz) : INT64_MAX;
}

void eq_range_edges(const struct eq_range *r, double clock_hz, double *from_s, double *to_s)
{
	struct eq_tick_range t;

	eq_range_ticks(r, clock_hz, &t);
	*from_s = t.from == INT64_MIN ? -INFINITY : (double)t.from / clock_hz;
	*to_s = t.to == INT64_MAX ? INFINITY : (double)t.to / clock_hz;
}

int eq_range_decimals(double clock_hz)
{
	/* 10^-d <= one tick: the printed time is within half a tick */
	int d = 0;
	double p = 1;

	while (d < 12 && p < clock_hz * (1 - 1e-12)) {
		p *= 10;
		d++;
	}
	return d;
}
