/*
 * range.h - a stretch of a recording's time: `--from T --to T` of report,
 * compare, diff and power, and the range a viewer page selects.
 *
 * Times are seconds since the recording's first sample (power's board and
 * energy-source streams: since their own first record, as power always
 * counts them).  Each end is rounded to a whole tick of the recording's
 * clock, so that the same range typed twice, or printed by a viewer page and
 * typed back, selects exactly the same samples:
 *
 *   tick  = round(T x clock_hz)          (the recording's header clock)
 *   edge  = tick / clock_hz, a double    (what interval ends compare with)
 *
 * A sample at t seconds is in the range when FROM < t <= TO: the quantum an
 * energy-driven sample closes was spent before it, so a sample exactly at
 * FROM belongs to the stretch before.  The first sample (t = 0) is in every
 * range that starts at 0 or before.  A missing end is open.
 */
#ifndef EQ_RANGE_H
#define EQ_RANGE_H

#include <stdint.h>

#include "util/eq_error.h"

struct eq_range {
	int has_from, has_to;
	double from_s, to_s;       /* as given (seconds) */
};

/* 1 when some end was given. */
int eq_range_active(const struct eq_range *r);

/* --from / --to: T in seconds ("12.5", "12.5s", "1500ms"); which is
 * "--from" or "--to".  Checks TO > FROM once both are known. */
int eq_range_parse(struct eq_range *r, const char *which, const char *text,
		   struct eq_error *err);

/* The range in ticks of a clock: from = INT64_MIN / to = INT64_MAX when
 * open. */
struct eq_tick_range {
	int64_t from, to;
};
void eq_range_ticks(const struct eq_range *r, double clock_hz, struct eq_tick_range *t);

/* 1 when a sample rel ticks after the first sample is in the range. */
static inline int eq_tick_range_has(const struct eq_tick_range *t, uint64_t rel)
{
	int64_t r = rel > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rel;

	return (r > t->from || (r == 0 && t->from <= 0)) && r <= t->to;
}

/* The ends as seconds for interval times (doubles): tick / clock_hz, or
 * -inf / +inf when open. */
void eq_range_edges(const struct eq_range *r, double clock_hz, double *from_s, double *to_s);

/* Decimals that print a time of this clock to the tick ("%.*f"): 9 for ns. */
int eq_range_decimals(double clock_hz);

#endif
