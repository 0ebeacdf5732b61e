/*
 * workload.c - turns a scenario's phases into what the device does over
 * time: a list of CPU segments (which activity, at which frequency) and the
 * piecewise-constant power of everything else (base power plus the
 * asynchronous consumers: LCD refresh, backlight, audio codec with its
 * power-down timeout, radio).
 *
 * The CPU alternates busy and idle periods whose lengths are exponential
 * with means granularity*(1-idle) and granularity*idle, so idle takes the
 * phase's idle fraction of the time on average; busy periods are cut into
 * slices (exponential, mean `slice`), each running one procedure drawn with
 * the run lines' weights.  The exact outcome is measured, not assumed: the
 * truth comes from integrating what was generated.
 */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sim_act_power(const struct sim_scenario *sc, size_t act, size_t freq)
{
	if (act == SIM_ACT_ISR || act == sc->nacts)  /* the ISR, the recorder */
		return sc->isr_power[freq];
	return sc->procs[sc->acts[act].proc].power[freq];
}

struct segbuf {
	struct sim_seg *v;
	size_t n, cap;
};

static int seg_push(struct segbuf *b, double t0, size_t act, size_t freq, float scale)
{
	if (b->n && b->v[b->n - 1].act == act && b->v[b->n - 1].freq == freq &&
	    b->v[b->n - 1].scale == scale)
		return 0; /* same activity continues */
	if (b->n + 1 >= b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 4096;
		struct sim_seg *p = realloc(b->v, nc * sizeof(*p));

		if (!p)
			return -1;
		b->v = p;
		b->cap = nc;
	}
	b->v[b->n].t0 = t0;
	b->v[b->n].act = (uint32_t)act;
	b->v[b->n].freq = (uint16_t)freq;
	b->v[b->n].reserved = 0;
	b->v[b->n].scale = scale;
	b->n++;
	return 0;
}

static size_t pick(const struct sim_phase *ph, double total, struct sim_rng *r)
{
	double x = sim_rng_uniform(r) * total;
	size_t i;

	for (i = 0; i + 1 < ph->nrun; i++) {
		if (x < ph->run[i].weight)
			break;
		x -= ph->run[i].weight;
	}
	return ph->run[i].activity;
}

/* A busy slice's power relative to its procedure's: 1, or normal with the
 * phase's spread, kept within [0.2, 1.8] so power stays positive and the
 * supply check (1.8 x the procedure's) holds. */
static float slice_scale(const struct sim_phase *ph, struct sim_rng *r)
{
	double x;

	if (ph->power_spread <= 0)
		return 1.0f;
	x = 1 + ph->power_spread * sim_rng_normal(r);
	return (float)fmin(fmax(x, 0.2), 1.8);
}

static int build_phase(const struct sim_phase *ph, double t0, double slice,
		       struct segbuf *b, struct sim_rng *r)
{
	double t = t0, end = t0 + ph->duration, total = 0, len, stop;
	size_t i;

	for (i = 0; i < ph->nrun; i++)
		total += ph->run[i].weight;
	if (ph->idle_frac >= 1.0)
		return seg_push(b, t, SIM_ACT_IDLE, ph->freq, 1.0f);
	while (t < end) {
		/* busy period */
		len = ph->idle_frac > 0 ? sim_rng_exp(r, ph->granularity * (1 - ph->idle_frac)) : end - t;
		stop = fmin(end, t + len);
		while (t < stop) {
			if (seg_push(b, t, pick(ph, total, r), ph->freq, slice_scale(ph, r)) < 0)
				return -1;
			t += fmax(sim_rng_exp(r, slice), 1e-7);
		}
		t = stop;
		if (t >= end || ph->idle_frac <= 0)
			break;
		/* idle period */
		if (seg_push(b, t, SIM_ACT_IDLE, ph->freq, 1.0f) < 0)
			return -1;
		t += sim_rng_exp(r, ph->granularity * ph->idle_frac);
	}
	return 0;
}

/* ---- asynchronous consumers ------------------------------------------- */

struct ev {
	double t, dp;
};

struct evbuf {
	struct ev *v;
	size_t n, cap;
};

static int ev_push(struct evbuf *b, double t, double dp)
{
	if (b->n == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 4096;
		struct ev *p = realloc(b->v, nc * sizeof(*p));

		if (!p)
			return -1;
		b->v = p;
		b->cap = nc;
	}
	b->v[b->n].t = t;
	b->v[b->n].dp = dp;
	b->n++;
	return 0;
}

/* The consumer draws `level` over [a, b): steadily, or in refresh bursts of
 * level/duty for duty*period of every period (phase-locked to t = 0). */
static int emit_on(struct evbuf *b, const struct sim_consumer *c, double a, double e,
		   double level)
{
	double k, on_a, on_b, peak;

	if (e <= a || level <= 0)
		return 0;
	if (c->period <= 0 || c->duty >= 1)
		return ev_push(b, a, level) || ev_push(b, e, -level);
	peak = level / c->duty;
	for (k = floor(a / c->period); k * c->period < e; k++) {
		on_a = fmax(a, k * c->period);
		on_b = fmin(e, k * c->period + c->duty * c->period);
		if (on_b > on_a && (ev_push(b, on_a, peak) || ev_push(b, on_b, -peak)))
			return -1;
	}
	return 0;
}

/* One consumer through all phases: its level, on/off and its timeout. */
static int consumer_events(const struct sim_scenario *sc, size_t ci, struct evbuf *b)
{
	const struct sim_consumer *c = &sc->consumers[ci];
	double level = c->power, t = 0, awake_until, on_end;
	int on = c->on, used;
	size_t ph, k;

	awake_until = c->timeout > 0 ? c->timeout : INFINITY;
	for (ph = 0; ph < sc->nphases; ph++) {
		const struct sim_phase *p = &sc->phases[ph];
		double e = t + p->duration;

		used = 0;
		for (k = 0; k < p->nchanges; k++) {
			const struct sim_cons_change *ch = &p->changes[k];

			if (ch->consumer != ci)
				continue;
			switch (ch->action) {
			case SIM_CONS_SET: level = ch->power; on = 1; break;
			case SIM_CONS_ON: on = 1; break;
			case SIM_CONS_OFF: on = 0; break;
			case SIM_CONS_USE: used = 1; on = 1; break;
			}
		}
		if (used && c->timeout > 0)
			awake_until = INFINITY;
		/* a consumer switched on again by a phase is awake from its start */
		on_end = (c->timeout > 0 && !used) ? fmin(e, awake_until) : e;
		if (on && emit_on(b, c, t, on_end, level) < 0)
			return -1;
		if (used && c->timeout > 0)
			awake_until = e + c->timeout;
		t = e;
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int build_steps(const struct sim_scenario *sc, struct sim_timeline *tl)
{
	struct evbuf b = { 0 };
	double p = sc->base_power;
	size_t i, n = 0;

	for (i = 0; i < sc->nconsumers; i++)
		if (consumer_events(sc, i, &b) < 0)
			goto oom;
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), cmp_ev);
	tl->steps = malloc((b.n + 2) * sizeof(*tl->steps));
	if (!tl->steps)
		goto oom;
	tl->steps[n].t0 = 0;
	tl->steps[n].power = p;
	for (i = 0; i < b.n; i++) {
		p += b.v[i].dp;
		if (b.v[i].t >= tl->t_end)
			break;
		if (b.v[i].t <= tl->steps[n].t0)
			tl->steps[n].power = p;   /* same instant: merge */
		else {
			n++;
			tl->steps[n].t0 = b.v[i].t;
			tl->steps[n].power = p;
		}
		/* rounding of many +x -x: keep exact zeros exact */
		if (fabs(tl->steps[n].power - sc->base_power) < 1e-12)
			tl->steps[n].power = sc->base_power;
	}
	tl->nsteps = n + 1;
	tl->steps[tl->nsteps].t0 = tl->t_end;
	tl->steps[tl->nsteps].power = 0;
	free(b.v);
	return 0;
oom:
	free(b.v);
	return -1;
}

int sim_timeline_build(const struct sim_scenario *sc, struct sim_timeline *tl,
		       struct eq_error *err)
{
	struct segbuf b = { 0 };
	struct sim_rng r;
	double t = 0;
	size_t i;

	memset(tl, 0, sizeof(*tl));
	sim_rng_seed(&r, sc->p.seed, 1);
	for (i = 0; i < sc->nphases; i++) {
		if (build_phase(&sc->phases[i], t, sc->phases[i].slice > 0 ? sc->phases[i].slice : sc->p.slice,
				&b, &r) < 0)
			goto oom;
		t += sc->phases[i].duration;
	}
	tl->t_end = t;
	/* sentinel */
	if (b.n + 1 >= b.cap) {
		struct sim_seg *p = realloc(b.v, (b.n + 2) * sizeof(*p));

		if (!p)
			goto oom;
		b.v = p;
	}
	b.v[b.n].t0 = t;
	b.v[b.n].act = SIM_ACT_IDLE;
	b.v[b.n].freq = 0;
	b.v[b.n].reserved = 0;
	b.v[b.n].scale = 1.0f;
	tl->segs = b.v;
	tl->nsegs = b.n;
	if (build_steps(sc, tl) < 0) {
		sim_timeline_free(tl);
		return eq_fail(err, "%s: out of memory building the consumers' power", sc->path);
	}
	return 0;
oom:
	free(b.v);
	return eq_fail(err, "%s: out of memory building the workload timeline", sc->path);
}

void sim_timeline_free(struct sim_timeline *tl)
{
	free(tl->segs);
	free(tl->steps);
	memset(tl, 0, sizeof(*tl));
}
