/*
 * eseries.c - raw readings to cumulative energy, with update granularity;
 * see eseries.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy/eseries.h"
#include "profile/stats.h"

const char *es_type_name(enum es_type t)
{
	switch (t) {
	case ES_COUNTER: return "counter";
	case ES_STORE: return "store";
	case ES_POWER: return "power";
	}
	return "?";
}

void es_track_init(struct es_track *k, const struct es_domain *d)
{
	memset(k, 0, sizeof(*k));
	k->d = d;
}

static int bad(struct es_track *k, struct eq_error *err, const char *fmt, double a, double b,
	       double dt)
{
	char what[256];

	snprintf(what, sizeof(what), fmt, a, b, dt);
	return eq_fail(err, "%s (%s): %s; nothing was measured", k->d->name, k->d->path, what);
}

int es_track_add(struct es_track *k, double t, double raw, int *changed, struct eq_error *err)
{
	const struct es_domain *d = k->d;
	double used = 0, dt = t - k->t_prev;

	*changed = 1;
	if (!isfinite(raw) || raw < 0)
		return eq_fail(err, "%s (%s): read %g, which is not %s; nothing was measured",
			       d->name, d->path, raw,
			       d->type == ES_POWER ? "a power" : "an energy");
	if (d->type == ES_COUNTER && d->range > 0 && raw > d->range)
		return eq_fail(err, "%s (%s): read %.6f J, above the counter's range of %.6f J "
			       "(max_energy_range_uj); nothing was measured",
			       d->name, d->path, raw, d->range);
	if (!k->have) {
		k->have = 1;
		k->t_first = k->t_prev = k->t_change = t;
		k->raw_prev = raw;
		k->readings = 1;
		return 0;
	}
	if (!(dt >= 0))
		return eq_fail(err, "%s: readings out of time order", d->name);
	switch (d->type) {
	case ES_COUNTER:
		used = raw - k->raw_prev;
		if (used < 0) {
			/* A wrap-around: the counter passed its range and restarted
			 * at 0.  Only plausible when less than half the range was
			 * used since the last reading (read at least twice per wrap). */
			if (d->range > 0 && k->raw_prev - raw > d->range / 2) {
				used += d->range;
				k->wraps++;
			} else {
				return bad(k, err, d->range > 0 ?
					   "the counter went backwards from %.6f J to %.6f J in %.3f s, "
					   "which no wrap-around explains" :
					   "the counter went backwards from %.6f J to %.6f J in %.3f s "
					   "(it has no wrap-around)", k->raw_prev, raw, dt);
			}
		}
		break;
	case ES_STORE:
		used = k->raw_prev - raw;
		if (used < 0)
			return bad(k, err, "the stored energy rose from %.3f J to %.3f J in %.3f s: "
				   "it is being charged, and a charging battery's gauge does not "
				   "measure what this machine uses (unplug the charger)",
				   k->raw_prev, raw, dt);
		break;
	case ES_POWER:
		/* the value moved from raw_prev to raw somewhere in between */
		used = (raw + k->raw_prev) / 2 * dt;
		break;
	}
	k->energy += used;
	k->readings++;
	*changed = raw != k->raw_prev;
	if (*changed) {
		double step = fabs(raw - k->raw_prev);

		if (d->type == ES_COUNTER && used < step)
			step = used;  /* across a wrap-around */
		if (step > 0 && (k->min_step == 0 || step < k->min_step))
			k->min_step = step;
		if (k->changes) {
			k->spacing[k->spacing_pos] = t - k->t_change;
			k->spacing_pos = (k->spacing_pos + 1) % 64;
			if (k->nspacing < 64)
				k->nspacing++;
		}
		k->changes++;
		k->t_change = t;
	}
	k->t_prev = t;
	k->raw_prev = raw;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double es_track_update_s(const struct es_track *k, char *how, size_t howsize)
{
	double v[64], med;
	unsigned n = k->nspacing;

	if (how && howsize)
		how[0] = '\0';
	if (k->readings < 3)
		return 0;
	if (k->changes * 2 > k->readings - 1) {
		if (how)
			snprintf(how, howsize, "changes at every read (%.1f ms apart)",
				 1e3 * (k->t_prev - k->t_first) / (double)(k->readings - 1));
		return 0;
	}
	if (n < 1) {
		if (how)
			snprintf(how, howsize, "changed %llu times in %.1f s: at least %.1f s",
				 (unsigned long long)k->changes, k->t_prev - k->t_first,
				 k->changes ? (k->t_prev - k->t_first) / (double)k->changes :
				 k->t_prev - k->t_first);
		return 0;
	}
	memcpy(v, k->spacing, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (how)
		snprintf(how, howsize, "detected from %u changes", n + 1);
	return med;
}

int es_series_add(struct es_series *s, double t, double e, double raw, int changed,
		  struct eq_error *err)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		double *nt = realloc(s->t, cap * sizeof(double));
		double *ne = nt ? realloc(s->e, cap * sizeof(double)) : NULL;
		double *nr = ne ? realloc(s->raw, cap * sizeof(double)) : NULL;
		uint8_t *nc = nr ? realloc(s->changed, cap) : NULL;

		if (nt)
			s->t = nt;
		if (ne)
			s->e = ne;
		if (nr)
			s->raw = nr;
		if (nc)
			s->changed = nc;
		if (!nc)
			return eq_fail(err, "out of memory for %zu energy readings", cap);
		s->cap = cap;
	}
	s->t[s->n] = t;
	s->e[s->n] = e;
	s->raw[s->n] = raw;
	s->changed[s->n] = s->n == 0 ? 1 : (uint8_t)(changed != 0);
	s->n++;
	return 0;
}

void es_series_free(struct es_series *s)
{
	free(s->t);
	free(s->e);
	free(s->raw);
	free(s->changed);
	memset(s, 0, sizeof(*s));
}

/* Last index with t[j] <= t. */
static size_t find(const struct es_series *s, double t)
{
	size_t lo = 0, hi = s->n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;

		if (s->t[mid] <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* When the value first read at index i was most likely reached: within the
 * last update period before it, and after the previous reading. */
static double update_instant(const struct es_series *s, size_t i)
{
	double gap;

	if (i == 0)
		return s->t[0];
	gap = s->t[i] - s->t[i - 1];
	if (s->update_s > 0 && s->update_s < gap)
		gap = s->update_s;
	return s->t[i] - gap / 2;
}

/* The integral of the power values shown up to time x (trapezoids between
 * readings; past the last reading, the last value held). */
static double power_integral(const struct es_series *s, double x)
{
	size_t j;

	if (x <= s->t[0])
		return 0;
	if (x >= s->t[s->n - 1])
		return s->e[s->n - 1] + s->raw[s->n - 1] * (x - s->t[s->n - 1]);
	j = find(s, x);
	{
		double dt = s->t[j + 1] - s->t[j], f = (x - s->t[j]) / dt;
		/* the value shown moves from raw[j] to raw[j+1] across the gap */
		double pw = s->raw[j] + (s->raw[j + 1] - s->raw[j]) * f / 2;

		return s->e[j] + pw * (x - s->t[j]);
	}
}

int es_energy_at(const struct es_series *s, double t, struct es_point *p,
		 struct eq_error *err)
{
	size_t j, a, b;

	if (s->n == 0 || t < s->t[0] || t > s->t[s->n - 1] + 1e-9)
		return eq_fail(err, "no energy reading covers t = %.6f s", t);
	j = find(s, t);
	if (s->type == ES_POWER) {
		/* The value shown from an update u_k to the next, U later, is
		 * the sensor's average over the U before u_k: the integral I of
		 * the values shown reaches E(u_k - U) at u_k.  With t in
		 * (u_k - U, u_k], E(t) lies between I(u_k) >= I(t) and
		 * I(u_k + U) <= I(t + 2U); I(t + U) is the middle. */
		double u = s->update_s > 0 ? s->update_s :
			   s->n > 1 ? (s->t[s->n - 1] - s->t[0]) / (double)(s->n - 1) : 0;

		p->e = power_integral(s, t + u);
		p->lo = power_integral(s, t);
		p->hi = power_integral(s, t + 2 * u);
		return 0;
	}
	for (a = j; a > 0 && !s->changed[a]; a--)
		;
	for (b = j + 1; b < s->n && !s->changed[b]; b++)
		;
	p->lo = s->e[a];
	if (b >= s->n) {
		/* No update after t yet: only a lower bound. */
		p->e = s->e[a];
		p->hi = INFINITY;
		return 0;
	}
	{
		double ua = update_instant(s, a), ub = update_instant(s, b), f;

		f = ub > ua ? (t - ua) / (ub - ua) : 1;
		f = f < 0 ? 0 : f > 1 ? 1 : f;
		p->e = s->e[a] + (s->e[b] - s->e[a]) * f;
		p->hi = s->e[b];
	}
	return 0;
}

int es_energy_between(const struct es_series *s, double t0, double t1,
		      struct es_point *p, struct eq_error *err)
{
	struct es_point a, b;

	if (es_energy_at(s, t0, &a, err) < 0 || es_energy_at(s, t1, &b, err) < 0)
		return -1;
	p->e = b.e - a.e;
	p->lo = fmax(0, b.lo - a.hi);
	p->hi = b.hi - a.lo;
	if (p->e < p->lo)
		p->e = p->lo;
	if (p->e > p->hi)
		p->e = p->hi;
	return 0;
}

void es_welford_add(struct es_welford *w, double x)
{
	double d = x - w->mean;

	w->n++;
	w->mean += d / (double)w->n;
	w->m2 += d * (x - w->mean);
}

double es_welford_sd(const struct es_welford *w)
{
	return w->n < 2 ? NAN : sqrt(w->m2 / (double)(w->n - 1));
}

double es_welford_ci95(const struct es_welford *w)
{
	if (w->n < 2)
		return NAN;
	return eq_t95((unsigned)(w->n - 1)) * es_welford_sd(w) / sqrt((double)w->n);
}
