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
#include "util/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sim_act_power(const struct sim_scenario *sc, size_t act, size_t freq)
{
	if (act == SIM_ACT_ISR || act == sc->nacts)  /* the ISR, the recorder */
		return sc->isr_power[freq];
	return sc->procs[sc->acts[act].proc].power[freq];
}

/* ---- the CPU's segments, generated as a stream --------------------------- */

enum { G_PHASE, G_BUSY_START, G_BUSY, G_PHASE_END, G_DONE };

/* An asynchronous consumer's stretch of time on at one level. */
struct cons_iv {
	const struct sim_consumer *c;
	double a, e, level;
};

struct ev {
	double t, dp;
};

struct sim_tl_gen {
	const struct sim_scenario *sc;
	int sentinel_inf;
	/* segments */
	struct sim_rng r;
	int state;
	size_t phase;
	double pstart, t, end, stop, total, slice;
	/* steps */
	struct cons_iv *iv;
	size_t niv, cap_iv;
	double win;             /* start of the next window of consumer events */
	double level;           /* the power reached so far */
	struct ev *ev;
	size_t nev, cap_ev;
	/* steady levels (the devices'): their changes, sorted at the first
	 * window, taken in order */
	struct ev *lev;
	size_t nlev, cap_lev, lev_next;
	int lev_sorted;
};


static int seg_push(struct sim_timeline *tl, double t0, size_t act, size_t freq, float scale)
{
	struct sim_seg *last = tl->nsegs ? &tl->segs[tl->nsegs - 1] : NULL;

	if (last && last->act == act && last->freq == freq && last->scale == scale)
		return 0; /* same activity continues */
	if (EQ_GROW(tl->segs, tl->cap_segs, tl->nsegs + 2, 1024) < 0)
		return -1;
	tl->segs[tl->nsegs].t0 = t0;
	tl->segs[tl->nsegs].act = (uint32_t)act;
	tl->segs[tl->nsegs].freq = (uint16_t)freq;
	tl->segs[tl->nsegs].reserved = 0;
	tl->segs[tl->nsegs].scale = scale;
	tl->nsegs++;
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

/*
 * One step of the generator: busy and idle periods alternate with
 * exponential lengths, busy time is cut into slices (the same random
 * sequence whether generated whole or as a stream).
 */
static int gen_seg_step(struct sim_timeline *tl)
{
	struct sim_tl_gen *g = tl->gen;
	const struct sim_scenario *sc = g->sc;
	const struct sim_phase *ph = g->phase < sc->nphases ? &sc->phases[g->phase] : NULL;
	double len;
	size_t i;

	switch (g->state) {
	case G_PHASE:
		if (!ph) {
			g->state = G_DONE;
			return 0;
		}
		g->t = g->pstart;
		g->end = g->pstart + ph->duration;
		g->slice = ph->slice > 0 ? ph->slice : sc->p.slice;
		for (g->total = 0, i = 0; i < ph->nrun; i++)
			g->total += ph->run[i].weight;
		if (ph->idle_frac >= 1.0) {
			g->state = G_PHASE_END;
			return seg_push(tl, g->t, SIM_ACT_IDLE, ph->freq, 1.0f);
		}
		g->state = G_BUSY_START;
		return 0;
	case G_BUSY_START:
		if (g->t >= g->end) {
			g->state = G_PHASE_END;
			return 0;
		}
		len = ph->idle_frac > 0 ? sim_rng_exp(&g->r, ph->granularity * (1 - ph->idle_frac)) : g->end - g->t;
		g->stop = fmin(g->end, g->t + len);
		g->state = G_BUSY;
		return 0;
	case G_BUSY:
		if (g->t < g->stop) {
			if (seg_push(tl, g->t, pick(ph, g->total, &g->r), ph->freq, slice_scale(ph, &g->r)) < 0)
				return -1;
			g->t += fmax(sim_rng_exp(&g->r, g->slice), 1e-7);
			return 0;
		}
		g->t = g->stop;
		if (g->t >= g->end || ph->idle_frac <= 0) {
			g->state = G_PHASE_END;
			return 0;
		}
		if (seg_push(tl, g->t, SIM_ACT_IDLE, ph->freq, 1.0f) < 0)
			return -1;
		g->t += sim_rng_exp(&g->r, ph->granularity * ph->idle_frac);
		g->state = G_BUSY_START;
		return 0;
	case G_PHASE_END:
		g->pstart += ph->duration;
		g->phase++;
		g->state = G_PHASE;
		return 0;
	}
	return 0;
}

/* Generates until `want` segments are held (or the workload ends). */
static int gen_segs(struct sim_timeline *tl, size_t want)
{
	struct sim_tl_gen *g = tl->gen;

	while (!tl->segs_done && tl->nsegs < want) {
		if (gen_seg_step(tl) < 0)
			return -1;
		if (g->state == G_DONE) {
			if (EQ_GROW(tl->segs, tl->cap_segs, tl->nsegs + 1, 1024) < 0)
				return -1;
			tl->segs[tl->nsegs].t0 = tl->t_end;
			tl->segs[tl->nsegs].act = SIM_ACT_IDLE;
			tl->segs[tl->nsegs].freq = 0;
			tl->segs[tl->nsegs].reserved = 0;
			tl->segs[tl->nsegs].scale = 1.0f;
			tl->segs_done = 1;
		}
	}
	return 0;
}

/* ---- asynchronous consumers ------------------------------------------- */

static int iv_push(struct sim_tl_gen *g, const struct sim_consumer *c, double a, double e,
		   double level)
{
	if (e <= a || level <= 0)
		return 0;
	if (EQ_GROW(g->iv, g->cap_iv, g->niv + 1, 1024) < 0)
		return -1;
	g->iv[g->niv].c = c;
	g->iv[g->niv].a = a;
	g->iv[g->niv].e = e;
	g->iv[g->niv].level = level;
	g->niv++;
	return 0;
}

/* One consumer through all phases: when it is on, at which level (its
 * timeout included); a few intervals per phase at most. */
static int consumer_intervals(struct sim_tl_gen *g, size_t ci)
{
	const struct sim_scenario *sc = g->sc;
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
		if (on && iv_push(g, c, t, on_end, level) < 0)
			return -1;
		if (used && c->timeout > 0)
			awake_until = e + c->timeout;
		t = e;
	}
	return 0;
}

static int ev_push(struct sim_tl_gen *g, double t, double dp, double w0, double w1)
{
	if (t < w0 || t >= w1)
		return 0; /* another window's */
	if (EQ_GROW(g->ev, g->cap_ev, g->nev + 1, 1024) < 0)
		return -1;
	g->ev[g->nev].t = t;
	g->ev[g->nev].dp = dp;
	g->nev++;
	return 0;
}

/* The changes of one interval inside [w0, w1): steadily, or in refresh
 * bursts of level/duty for duty*period of every period (phase-locked to
 * t = 0). */
static int iv_events(struct sim_tl_gen *g, const struct cons_iv *v, double w0, double w1)
{
	const struct sim_consumer *c = v->c;
	double k, on_a, on_b, peak;

	if (v->e < w0 || v->a >= w1)
		return 0;
	if (c->period <= 0 || c->duty >= 1)
		return ev_push(g, v->a, v->level, w0, w1) || ev_push(g, v->e, -v->level, w0, w1);
	peak = v->level / c->duty;
	for (k = fmax(floor(v->a / c->period), floor(w0 / c->period) - 1);
	     k * c->period < fmin(v->e, w1); k++) {
		on_a = fmax(v->a, k * c->period);
		on_b = fmin(v->e, k * c->period + c->duty * c->period);
		if (on_b > on_a && (ev_push(g, on_a, peak, w0, w1) || ev_push(g, on_b, -peak, w0, w1)))
			return -1;
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

#define STEP_WINDOW 1.0 /* s of consumer events generated at a time */

/* The next window of consumer events, turned into steps. */
static int gen_step_window(struct sim_timeline *tl)
{
	struct sim_tl_gen *g = tl->gen;
	double w0 = g->win, w1 = fmin(g->win + STEP_WINDOW, tl->t_end), base = g->sc->base_power;
	size_t i;

	if (w0 >= tl->t_end) {
		if (EQ_GROW(tl->steps, tl->cap_steps, tl->nsteps + 1, 1024) < 0)
			return -1;
		tl->steps[tl->nsteps].t0 = g->sentinel_inf ? INFINITY : tl->t_end;
		tl->steps[tl->nsteps].power = 0;
		tl->steps_done = 1;
		return 0;
	}
	g->nev = 0;
	for (i = 0; i < g->niv; i++)
		if (iv_events(g, &g->iv[i], w0, w1) < 0)
			return -1;
	if (!g->lev_sorted) {
		if (g->nlev)
			qsort(g->lev, g->nlev, sizeof(*g->lev), cmp_ev);
		g->lev_sorted = 1;
	}
	for (; g->lev_next < g->nlev && g->lev[g->lev_next].t < w1; g->lev_next++)
		if (ev_push(g, g->lev[g->lev_next].t, g->lev[g->lev_next].dp, w0, w1) < 0)
			return -1;
	if (g->nev)
		qsort(g->ev, g->nev, sizeof(*g->ev), cmp_ev);
	if (EQ_GROW(tl->steps, tl->cap_steps, tl->nsteps + g->nev + 2, 1024) < 0)
		return -1;
	for (i = 0; i < g->nev; i++) {
		struct sim_step *last = &tl->steps[tl->nsteps - 1];

		g->level += g->ev[i].dp;
		if (g->ev[i].t <= last->t0) {
			last->power = g->level;   /* same instant: merge */
		} else {
			last = &tl->steps[tl->nsteps++];
			last->t0 = g->ev[i].t;
			last->power = g->level;
		}
		/* rounding of many +x -x: keep exact zeros exact */
		if (fabs(last->power - base) < 1e-12)
			last->power = g->level = base;
	}
	g->win = w1;
	return 0;
}

static int gen_steps(struct sim_timeline *tl, size_t want)
{
	while (!tl->steps_done && tl->nsteps < want)
		if (gen_step_window(tl) < 0)
			return -1;
	return 0;
}

/* ---- the timeline ------------------------------------------------------ */

static int tl_start(const struct sim_scenario *sc, struct sim_timeline *tl, int sentinel_inf)
{
	struct sim_tl_gen *g;
	size_t i;

	memset(tl, 0, sizeof(*tl));
	g = tl->gen = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	g->sc = sc;
	g->sentinel_inf = sentinel_inf;
	sim_rng_seed(&g->r, sc->p.seed, 1);
	g->state = G_PHASE;
	for (i = 0; i < sc->nphases; i++)
		tl->t_end += sc->phases[i].duration;
	for (i = 0; i < sc->nconsumers; i++)
		if (consumer_intervals(g, i) < 0)
			return -1;
	/* the first step: base power (events at 0 merge into it) */
	if (EQ_GROW(tl->steps, tl->cap_steps, 2, 1024) < 0)
		return -1;
	tl->steps[0].t0 = 0;
	tl->steps[0].power = g->level = sc->base_power;
	tl->nsteps = 1;
	return 0;
}

/*
 * A steady level added to the power over [a, e), before anything is
 * generated: it becomes events of the step windows like a consumer's, so
 * the steps stay one stream with one owner of their array.
 */
int sim_timeline_add_level(struct sim_timeline *tl, double a, double e, double power)
{
	struct sim_tl_gen *g = tl->gen;

	if (tl->nsteps != 1 || g->win > 0 || g->lev_sorted)
		return -1; /* only before the first window */
	if (!(e > a) || !(power > 0))
		return 0;
	if (EQ_GROW(g->lev, g->cap_lev, g->nlev + 2, 1024) < 0)
		return -1;
	g->lev[g->nlev++] = (struct ev){ a, power };
	g->lev[g->nlev++] = (struct ev){ e, -power };
	return 0;
}

int sim_timeline_open(const struct sim_scenario *sc, struct sim_timeline *tl,
		      struct eq_error *err)
{
	if (tl_start(sc, tl, 1) < 0) {
		sim_timeline_free(tl);
		return eq_fail(err, "%s: out of memory starting the workload", sc->path);
	}
	return 0;
}

int sim_timeline_build(const struct sim_scenario *sc, struct sim_timeline *tl,
		       struct eq_error *err)
{
	if (tl_start(sc, tl, 0) < 0 || gen_segs(tl, SIZE_MAX) < 0 || gen_steps(tl, SIZE_MAX) < 0) {
		sim_timeline_free(tl);
		return eq_fail(err, "%s: out of memory building the workload timeline", sc->path);
	}
	return 0;
}

#define TL_CHUNK 65536 /* entries generated at a time */

/* Drops the entries before *k - 1 of an array of n (+ sentinel) entries. */
static void drop_before(void *v, size_t size, size_t *n, int done, size_t *k)
{
	size_t drop = *k > 1 ? *k - 1 : 0;

	if (drop < TL_CHUNK)
		return; /* not worth moving yet */
	memmove(v, (char *)v + drop * size, (*n - drop + (done ? 1 : 0)) * size);
	*n -= drop;
	*k -= drop;
}

int sim_timeline_need_seg(struct sim_timeline *tl, size_t *k, size_t ahead)
{
	if (*k + ahead < tl->nsegs || tl->segs_done)
		return 0;
	drop_before(tl->segs, sizeof(*tl->segs), &tl->nsegs, tl->segs_done, k);
	return gen_segs(tl, *k + ahead + TL_CHUNK);
}

int sim_timeline_need_step(struct sim_timeline *tl, size_t *k, size_t ahead)
{
	if (*k + ahead < tl->nsteps || tl->steps_done)
		return 0;
	drop_before(tl->steps, sizeof(*tl->steps), &tl->nsteps, tl->steps_done, k);
	return gen_steps(tl, *k + ahead + 1);
}

void sim_timeline_free(struct sim_timeline *tl)
{
	if (tl->gen) {
		free(tl->gen->iv);
		free(tl->gen->ev);
		free(tl->gen->lev);
		free(tl->gen);
	}
	free(tl->segs);
	free(tl->steps);
	memset(tl, 0, sizeof(*tl));
}
