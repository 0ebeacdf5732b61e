/*
 * engine.c - one simulated run: the device's power over time drives the
 * front end, whose pulses drive the counter stage, whose IRQ edges (and the
 * ticks of a jittered timer) interrupt the CPU after a latency; the sampling
 * ISR records the interrupted pc into the ring of isr/core (eq_ring.h), which
 * a recorder drains periodically.  The ISR runs for isr_cycles at the
 * current clock and draws isr_power meanwhile, stealing that time from the
 * workload; an interrupt arriving while the ISR runs waits for it, and a
 * second edge of the same source while one is pending is merged into it
 * (an edge-triggered interrupt latch holds one request).
 *
 * Time advances from event to event; between events power is constant, so
 * the truth (energy and time per activity, the power trace) is integrated
 * exactly, and the front end finds its pulses in closed form.
 */
#include "sim_internal.h"
#include "counter_stage.h"
#include "eq_ring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SRC_ENERGY = 0, SRC_TIME = 1, NSRC = 2 };

struct engine {
	const struct sim_scenario *sc;
	const struct sim_params *p;  /* = &res->p: the parameters in effect */
	struct sim_result *res;
	struct sim_timeline tl;
	struct sim_frontend fe;
	struct counter_stage *cs;
	struct sim_rng rng_irq, rng_pc, rng_timer;
	struct eq_ring ring[NSRC];
	struct eq_sample *slots[NSRC], *drainbuf;
	double pending[NSRC];   /* arrival of the pending IRQ per source, or INFINITY */
	uint64_t merged[NSRC];
	double isr_end;         /* end of the running ISR; <= t when none runs */
	double next_tick, next_drain, next_bin;
	size_t seg, step, bin;
	double t_end;
};

static int push_board(struct sim_result *r, const struct counter_edge *e)
{
	struct eqp_board_rec *b;

	if (r->nboard == r->cap_board) {
		size_t nc = r->cap_board ? 2 * r->cap_board : 4096;
		void *p = realloc(r->board, nc * sizeof(*r->board));

		if (!p)
			return -1;
		r->board = p;
		r->cap_board = nc;
	}
	b = &r->board[r->nboard++];
	memset(b, 0, sizeof(*b));
	b->time = e->ticks;
	b->seq = e->seq;
	b->pulses = e->pulses;
	b->vbat_uv = e->vbat_uv;
	b->flags = e->flags;
	return 0;
}

static double latency(struct engine *en)
{
	return en->p->irq_lat_min +
	       (en->p->irq_lat_max - en->p->irq_lat_min) * sim_rng_uniform(&en->rng_irq);
}

/* An interrupt request reaches the CPU at t. */
static void raise_irq(struct engine *en, int src, double t)
{
	if (en->pending[src] < INFINITY)
		en->merged[src]++;
	else
		en->pending[src] = t;
}

static int handle_edges(struct engine *en, const struct counter_edge *e, int n, double now)
{
	int i;

	for (i = 0; i < n; i++) {
		en->res->quanta++;
		en->res->pulses_in_quanta += e[i].pulses;
		if (push_board(en->res, &e[i]) < 0)
			return -1;
		raise_irq(en, SRC_ENERGY, fmax(e[i].t, now) + latency(en));
	}
	return 0;
}

/* What the interrupted instruction was: pid, tid, pc and flags. */
static void fill_sample(struct engine *en, struct eq_sample *s, size_t act, double t)
{
	const struct sim_scenario *sc = en->sc;
	const struct sim_proc *pr = &sc->procs[sc->acts[act].proc];
	const struct sim_module *m = &sc->modules[pr->module];
	uint64_t ninsn = pr->size / en->p->insn_bytes, base = 0, insn;

	memset(s, 0, sizeof(*s));
	s->time = (uint64_t)llround(t * 1e9);
	insn = ninsn ? (uint64_t)(sim_rng_uniform(&en->rng_pc) * ninsn) : 0;
	/* A.2: the pc saved is that of the instruction fetched after the one
	 * executing; at a procedure's end that is the next procedure. */
	insn += en->p->skew_insns;
	if (act == SIM_ACT_IDLE) {
		s->flags = EQ_F_IDLE | EQ_F_KERNEL;
	} else {
		const struct sim_process *proc = &sc->processes[sc->acts[act].process];
		size_t k;

		s->pid = proc->pid;
		s->tid = sc->acts[act].tid;
		if (m->kernel)
			s->flags = EQ_F_KERNEL;
		else
			for (k = 0; k < proc->nmaps; k++)
				if (proc->maps[k].module == pr->module)
					base = proc->maps[k].base;
	}
	s->pc = base + pr->addr + insn * en->p->insn_bytes;
}

/* The ISR of source src starts at t with the CPU in activity act. */
static void run_isr(struct engine *en, int src, double t)
{
	const struct sim_seg *sg = &en->tl.segs[en->seg];
	struct eq_sample s;

	fill_sample(en, &s, sg->act, t);
	if (src == SRC_ENERGY)
		s.flags |= EQ_F_ENERGY;
	eq_ring_push(&en->ring[src], &s);
	en->pending[src] = INFINITY;
	en->isr_end = t + en->p->isr_cycles / en->sc->freqs[sg->freq].hz;
}

static int append(struct eq_sample **v, size_t *n, size_t *cap, const struct eq_sample *s,
		  size_t k)
{
	if (*n + k > *cap) {
		size_t nc = *cap ? *cap : 4096;
		void *p;

		while (nc < *n + k)
			nc *= 2;
		p = realloc(*v, nc * sizeof(**v));
		if (!p)
			return -1;
		*v = p;
		*cap = nc;
	}
	memcpy(*v + *n, s, k * sizeof(*s));
	*n += k;
	return 0;
}

/* The recorder wakes up and empties both rings. */
static int drain(struct engine *en)
{
	struct sim_result *r = en->res;
	uint32_t k, cap = en->p->ring_samples;

	while ((k = eq_ring_pop_batch(&en->ring[SRC_ENERGY], en->drainbuf, cap)) > 0)
		if (append(&r->energy, &r->nenergy, &r->cap_energy, en->drainbuf, k) < 0)
			return -1;
	while ((k = eq_ring_pop_batch(&en->ring[SRC_TIME], en->drainbuf, cap)) > 0)
		if (append(&r->timed, &r->ntimed, &r->cap_timed, en->drainbuf, k) < 0)
			return -1;
	return 0;
}

static double next_tick_after(struct engine *en, double t)
{
	double period = 1.0 / en->p->time_hz, j = en->p->time_jitter_pct / 100.0;

	return t + period * (1 + j * (2 * sim_rng_uniform(&en->rng_timer) - 1));
}

/* Everything due at time t, in a fixed order. */
static int events_at(struct engine *en, double t)
{
	int src, first;

	while (en->tl.segs[en->seg + 1].t0 <= t && en->seg + 1 < en->tl.nsegs)
		en->seg++;
	while (en->tl.steps[en->step + 1].t0 <= t && en->step + 1 < en->tl.nsteps)
		en->step++;
	while (en->next_bin <= t) {
		en->bin++;
		en->next_bin = (en->bin + 1) * en->res->trace_bin;
	}
	if (en->next_tick <= t) {
		raise_irq(en, SRC_TIME, t + latency(en));
		en->next_tick = next_tick_after(en, en->next_tick);
	}
	if (en->next_drain <= t) {
		if (drain(en) < 0)
			return -1;
		en->next_drain += en->p->drain_period;
	}
	if (en->isr_end <= t) {
		first = en->pending[SRC_ENERGY] <= en->pending[SRC_TIME] ? SRC_ENERGY : SRC_TIME;
		for (src = first; src < first + NSRC; src++)
			if (en->isr_end <= t && en->pending[src % NSRC] <= t)
				run_isr(en, src % NSRC, t);
	}
	return 0;
}

static double next_event(const struct engine *en, double t)
{
	double b = en->t_end;

	b = fmin(b, en->tl.segs[en->seg + 1].t0);
	b = fmin(b, en->tl.steps[en->step + 1].t0);
	b = fmin(b, en->next_tick);
	b = fmin(b, en->next_drain);
	b = fmin(b, en->next_bin);
	if (en->isr_end > t)
		b = fmin(b, en->isr_end);
	else
		b = fmin(b, fmin(en->pending[SRC_ENERGY], en->pending[SRC_TIME]));
	return b;
}

/* Constant power P over [t, b): front end, counter, truth.  Returns the end
 * actually reached (earlier than b when an edge asks for the CPU). */
static int run_piece(struct engine *en, double t, double b, size_t act, double power,
		     double *reached, struct eq_error *err)
{
	struct counter_edge edges[8];
	double vb, cur, im, tt = t, tp, dt;
	int n;

	sim_frontend_operating_point(&en->fe, power, &vb, &cur);
	im = sim_frontend_mirror(&en->fe, cur);
	while ((tp = sim_frontend_advance(&en->fe, tt, b, im)) >= 0) {
		n = counter_stage_pulse(en->cs, tp, vb, edges, 8, err);
		if (n < 0 || handle_edges(en, edges, n, tp) < 0)
			return n < 0 ? -1 : eq_fail(err, "simulator: out of memory");
		tt = tp;
		if (en->isr_end <= tt && en->pending[SRC_ENERGY] < b)
			b = fmax(en->pending[SRC_ENERGY], tt);
	}
	dt = b - t;
	en->res->acts[act].energy_j += power * dt;
	en->res->acts[act].time_s += dt;
	en->res->energy_j += power * dt;
	en->res->vb_energy_weighted += vb * power * dt;
	en->res->device_charge += cur * dt;
	en->res->vb_min = fmin(en->res->vb_min, vb);
	en->res->vb_max = fmax(en->res->vb_max, vb);
	if (en->bin < en->res->ntrace)
		en->res->trace_w[en->bin] += power * dt;
	if (act == SIM_ACT_ISR) {
		en->res->isr_time_s += dt;
		en->res->isr_energy_j += power * dt;
	}
	*reached = b;
	return 0;
}

static int loop(struct engine *en, const struct sim_options *opt, struct eq_error *err)
{
	double t = 0, b;
	unsigned long iter = 0;

	while (t < en->t_end) {
		const struct sim_seg *sg;
		size_t act;
		double power;

		if (events_at(en, t) < 0)
			return eq_fail(err, "simulator: out of memory");
		b = next_event(en, t);
		sg = &en->tl.segs[en->seg];
		act = en->isr_end > t ? SIM_ACT_ISR : sg->act;
		power = en->tl.steps[en->step].power + sim_act_power(en->sc, act, sg->freq) *
			(act == SIM_ACT_ISR ? 1.0 : sg->scale);
		if (b <= t) /* an event at t that did not move on: guard against stalls */
			b = nextafter(t, INFINITY);
		if (run_piece(en, t, b, act, power, &t, err) < 0)
			return -1;
		if (opt && opt->progress && (++iter & 0xffff) == 0)
			opt->progress(opt->progress_ctx, t, en->t_end,
				      en->res->nenergy + en->res->ntimed);
	}
	return 0;
}

static int engine_open(struct engine *en, const struct sim_scenario *sc,
		       const struct sim_options *opt, struct sim_result *res,
		       struct eq_error *err)
{
	const struct sim_params *p = &res->p;
	struct counter_stage_config cc = {
		.quantum_pulses = p->quantum_pulses, .jitter_pct = p->jitter_pct,
		.vcomp = p->vcomp, .vb_nominal = p->vb_nominal,
		.mcu_clock = p->mcu_clock, .seed = p->seed,
	};
	int src;

	memset(en, 0, sizeof(*en));
	en->sc = sc;
	en->p = p;
	en->res = res;
	if (sim_timeline_build(sc, &en->tl, err) < 0)
		return -1;
	en->t_end = en->tl.t_end;
	sim_frontend_init(&en->fe, p);
	sim_rng_seed(&en->rng_irq, p->seed, 3);
	sim_rng_seed(&en->rng_pc, p->seed, 4);
	sim_rng_seed(&en->rng_timer, p->seed, 5);
	if (opt && opt->firmware_elf) {
		if (!counter_stage_simavr_open)
			return eq_fail(err, "--firmware: this eqprof was built without the simavr counter stage (sim/counter_simavr.c); install simavr and rebuild");
		en->cs = counter_stage_simavr_open(opt->firmware_elf, &cc, err);
	} else {
		en->cs = counter_stage_builtin_open(&cc, err);
	}
	if (!en->cs)
		return -1;
	res->counter_name = en->cs->ops->name;
	for (src = 0; src < NSRC; src++) {
		en->slots[src] = malloc(EQ_RING_SLOT_BYTES(p->ring_samples));
		if (!en->slots[src] || eq_ring_init(&en->ring[src], en->slots[src], p->ring_samples, 0) < 0)
			return eq_fail(err, "simulator: cannot allocate a ring of %u samples", p->ring_samples);
		en->pending[src] = INFINITY;
	}
	en->drainbuf = malloc(EQ_RING_SLOT_BYTES(p->ring_samples));
	res->duration = en->t_end;
	res->trace_bin = p->trace_bin > 0 ? p->trace_bin : fmax(en->t_end / 2000, 1e-4);
	res->ntrace = (size_t)ceil(en->t_end / res->trace_bin);
	if (res->ntrace > 10000000)
		return eq_fail(err, "trace_bin %g s gives over 10 million bins; raise it", res->trace_bin);
	res->trace_w = calloc(res->ntrace + 1, sizeof(double));
	res->acts = calloc(sc->nacts, sizeof(*res->acts));
	if (!en->drainbuf || !res->trace_w || !res->acts)
		return eq_fail(err, "simulator: out of memory");
	res->vb_min = INFINITY;
	res->vb_max = -INFINITY;
	res->quantum_j = p->quantum_pulses * p->e_min;
	en->next_tick = 1.0 / p->time_hz * sim_rng_uniform(&en->rng_timer);
	en->next_drain = p->drain_period;
	en->next_bin = res->trace_bin;
	return 0;
}

static void engine_close(struct engine *en)
{
	int src;

	counter_stage_close(en->cs);
	for (src = 0; src < NSRC; src++)
		free(en->slots[src]);
	free(en->drainbuf);
	sim_timeline_free(&en->tl);
}

int sim_run(const struct sim_scenario *sc, const struct sim_options *opt,
	    struct sim_result *res, struct eq_error *err)
{
	struct engine en;
	struct counter_edge edges[64];
	size_t i;
	int n, rc;

	memset(res, 0, sizeof(*res));
	sim_params_effective(&sc->p, &res->p);
	rc = engine_open(&en, sc, opt, res, err);
	if (rc == 0)
		rc = loop(&en, opt, err);
	if (rc == 0) {
		/* edges the stage still holds (simavr): board records only */
		n = counter_stage_finish(en.cs, en.t_end, edges, 64, err);
		if (n < 0)
			rc = -1;
		for (i = 0; rc == 0 && i < (size_t)n; i++)
			if (push_board(res, &edges[i]) < 0)
				rc = eq_fail(err, "simulator: out of memory");
	}
	if (rc == 0 && drain(&en) < 0)
		rc = eq_fail(err, "simulator: out of memory");
	if (rc == 0) {
		res->lost_energy = eq_ring_dropped(&en.ring[SRC_ENERGY]) + en.merged[SRC_ENERGY];
		res->lost_timed = eq_ring_dropped(&en.ring[SRC_TIME]) + en.merged[SRC_TIME];
		res->merged_energy = en.merged[SRC_ENERGY];
		res->merged_timed = en.merged[SRC_TIME];
		res->pulses = en.fe.pulses;
		res->mirror_charge = en.fe.charge_in;
		res->pulse_charge_lost = en.fe.charge_lost;
		if (res->energy_j > 0)
			res->vb_energy_weighted /= res->energy_j;
		for (i = 0; i < res->ntrace; i++) {
			double w = fmin(res->trace_bin, res->duration - i * res->trace_bin);

			res->trace_w[i] = w > 0 ? res->trace_w[i] / w : 0;
		}
	}
	engine_close(&en);
	if (rc < 0)
		sim_result_free(res);
	return rc;
}

void sim_result_free(struct sim_result *res)
{
	free(res->energy);
	free(res->timed);
	free(res->board);
	free(res->acts);
	free(res->trace_w);
	memset(res, 0, sizeof(*res));
}
