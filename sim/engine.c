/*
 * engine.c - one simulated run: the device's power over time drives the
 * front end, whose pulses drive the counter stage, whose IRQ edges (and the
 * ticks of a jittered timer) interrupt the CPU after a latency; the sampling
 * ISR records the interrupted pc into the ring of isr/core (eq_ring.h), which
 * a recorder drains periodically.  The ISR runs for isr_cycles at the
 * current clock and draws isr_power meanwhile.  It delays the workload
 * rather than deleting any of it: the timeline is in workload time, and
 * `lag` (real minus workload time) grows while the ISR interrupts busy code
 * and is paid back by the next idle period, which shrinks by it (a decoder
 * still finishes its frames; what the profiler costs comes out of idle).
 * A run that has no idle left to absorb the lag ends later.  An interrupt
 * arriving while the ISR runs waits for it, and a second edge of the same
 * source while one is pending is merged into it (an edge-triggered
 * interrupt latch holds one request).
 *
 * The two samplings are two runs of the same workload (same timeline, so
 * the same seed for it) with separate perturbations (latency, pc, timer,
 * front-end noise and jitter): each recording sees only its own ISR.
 * `sampling shared` runs both in one execution instead.
 *
 * Time advances from event to event; between events power is constant, so
 * the truth (energy and time per activity, the power trace) is integrated
 * exactly, and the front end finds its pulses in closed form.
 */
#include "sim_internal.h"
#include "counter_stage.h"
#include "eq_ring.h"
#include "states.h"
#include "devices.h"
#include "util/grow.h"

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
	int isr_other;          /* the running handler is another source's (blind spot) */
	int dvfs;               /* the stall is a frequency switch (isr_end: its end) */
	int dvfs_due;           /* a frequency switch waits for the CPU */
	double rec_cycles;      /* CPU cycles the recorder still has to run */
	double pending_other;   /* a pending request of the other sources, or INFINITY */
	double next_other;      /* next request of the other sources (periodic) */
	double irqoff_end;      /* end of the interrupt-disabled region */
	double next_irqoff;     /* start of the next one */
	struct sim_rng rng_off;
	double next_tick, next_drain, next_bin;
	size_t seg, step, bin;
	double w_end;           /* end of the workload, in workload time */
	double lag;             /* real time minus workload time (ISR debt not yet paid by idle) */
	size_t cap_trace;
	int src_on[NSRC];       /* the interrupt sources of this run */
	/* writing while simulating (opt->stream): the recordings of the
	 * sources, and those that take this run's board stream */
	struct eqp_writer *out[NSRC], *bout[NSRC];
	struct sim_stream *stream;
	struct eqp_board_rec bbuf[1024];
	size_t nbbuf;
	struct eq_error *err;
};

static int flush_board(struct engine *en)
{
	int src;

	for (src = 0; src < NSRC && en->nbbuf; src++)
		if (en->bout[src] && eqp_add_board_records(en->bout[src], en->bbuf, en->nbbuf, en->err) < 0)
			return -1;
	en->nbbuf = 0;
	return 0;
}

static int push_board(struct engine *en, const struct counter_edge *e)
{
	struct sim_result *r = en->res;
	double ticks = (double)e->ticks * (1 + r->p.board_ppm * 1e-6); /* the board's crystal */
	struct eqp_board_rec *b;

	if (en->bout[0] || en->bout[1]) {
		if (en->nbbuf == sizeof(en->bbuf) / sizeof(en->bbuf[0]) && flush_board(en) < 0)
			return -1;
		b = &en->bbuf[en->nbbuf++];
		r->nboard++;
		goto fill;
	}
	if (EQ_GROW(r->board, r->cap_board, r->nboard + 1, 4096) < 0)
		return eq_fail(en->err, "simulator: out of memory");
	b = &r->board[r->nboard++];
fill:
	memset(b, 0, sizeof(*b));
	b->time = (uint64_t)llround(ticks);
	b->seq = e->seq;
	b->pulses = e->pulses;
	b->vbat_uv = e->vbat_uv;
	b->flags = e->flags;
	return 0;
}

static double cpu_hz(const struct engine *en)
{
	size_t k = en->seg < en->tl.nsegs ? en->seg : en->tl.nsegs - 1;

	return en->sc->freqs[en->tl.segs[k].freq].hz;
}

/* Edge to the first ISR instruction: a fixed part plus cycles of the core
 * at its current clock (slower at a lower frequency). */
static double latency(struct engine *en)
{
	double u = sim_rng_uniform(&en->rng_irq);

	return en->p->irq_lat_min + (en->p->irq_lat_max - en->p->irq_lat_min) * u +
	       (en->p->irq_lat_cyc_min + (en->p->irq_lat_cyc_max - en->p->irq_lat_cyc_min) * u) /
	       cpu_hz(en);
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
		if (push_board(en, &e[i]) < 0)
			return -1;
		if (en->src_on[SRC_ENERGY])
			raise_irq(en, SRC_ENERGY, fmax(e[i].t, now) + latency(en));
	}
	return 0;
}

/*
 * Which instruction of a procedure of n runs: code spends pc_hot_share of
 * its time in a loop of pc_hot_span of it (in the middle of the
 * procedure), the rest spread over the other instructions; uniform when
 * pc_hot_share is 0.
 */
static uint64_t pick_insn(struct engine *en, uint64_t n)
{
	double u = sim_rng_uniform(&en->rng_pc), h = en->p->pc_hot_share;
	uint64_t lo, len;

	if (n == 0)
		return 0;
	len = (uint64_t)llround(en->p->pc_hot_span * (double)n);
	if (h <= 0 || len == 0 || len >= n)
		return (uint64_t)(u * n) < n ? (uint64_t)(u * n) : n - 1;
	lo = (n - len) / 2;
	if (u < h) {
		uint64_t k = (uint64_t)(u / h * len);

		return lo + (k < len ? k : len - 1);
	} else {
		uint64_t k = (uint64_t)((u - h) / (1 - h) * (n - len));

		k = k < n - len ? k : n - len - 1;
		return k < lo ? k : k + len;
	}
}

/* The attribution skew in instructions: fixed, or uniform in a range. */
static uint64_t skew(struct engine *en)
{
	uint32_t a = en->p->skew_insns, b = en->p->skew_insns_max;

	if (b <= a)
		return a;
	return a + (uint64_t)(sim_rng_uniform(&en->rng_pc) * (b - a + 1)) % (b - a + 1);
}

/* What the interrupted instruction was: pid, tid, pc and flags. */
static void fill_sample(struct engine *en, struct eq_sample *s, size_t act, double t)
{
	const struct sim_scenario *sc = en->sc;
	const struct sim_proc *pr;
	const struct sim_module *m;
	uint64_t ninsn, base = 0, insn;

	memset(s, 0, sizeof(*s));
	s->time = sim_target_ns(en->p, t);
	if (act == sc->nacts) { /* the recorder */
		ninsn = SIM_RECORDER_SIZE / en->p->insn_bytes;
		insn = pick_insn(en, ninsn) + skew(en);
		s->pid = s->tid = SIM_RECORDER_PID;
		s->pc = SIM_RECORDER_BASE + SIM_RECORDER_ADDR + insn * en->p->insn_bytes;
		return;
	}
	pr = &sc->procs[sc->acts[act].proc];
	m = &sc->modules[pr->module];
	ninsn = pr->size / en->p->insn_bytes;
	insn = pick_insn(en, ninsn);
	/* A.2: the pc saved is that of the instruction fetched after the one
	 * executing (or a few: skew_insns..skew_insns_max); at a procedure's
	 * end that is the next procedure. */
	insn += skew(en);
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

	fill_sample(en, &s, en->rec_cycles > 0 ? en->sc->nacts : sg->act, t);
	if (src == SRC_ENERGY)
		s.flags |= EQ_F_ENERGY;
	eq_ring_push(&en->ring[src], &s);
	if (en->irqoff_end > en->pending[src])
		en->res->irqoff_deferred++;  /* it waited for interrupts to be enabled */
	en->pending[src] = INFINITY;
	en->isr_end = t + en->p->isr_cycles / en->sc->freqs[sg->freq].hz;
	en->isr_other = 0;
	en->dvfs = 0;
}

/* Another source's handler (the OS tick): interrupts off while it runs. */
static void run_other(struct engine *en, double t)
{
	en->pending_other = INFINITY;
	en->isr_end = t + en->p->irq_other_cycles / cpu_hz(en);
	en->isr_other = 1;
	en->dvfs = 0;
	en->res->irq_other_count++;
}

static int append(struct eq_sample **v, size_t *n, size_t *cap, const struct eq_sample *s,
		  size_t k)
{
	if (EQ_GROW(*v, *cap, *n + k, 4096) < 0)
		return -1;
	memcpy(*v + *n, s, k * sizeof(*s));
	*n += k;
	return 0;
}

/* The recorder wakes up and empties both rings. */
static int drain(struct engine *en)
{
	struct sim_result *r = en->res;
	uint32_t k, cap = en->p->ring_samples;
	uint64_t total = 0;

	while ((k = eq_ring_pop_batch(&en->ring[SRC_ENERGY], en->drainbuf, cap)) > 0) {
		if (en->out[SRC_ENERGY]) {
			if (sim_stream_add_samples(en->stream, 1, en->drainbuf, k, en->err) < 0)
				return -1;
			r->nenergy += k;
		} else if (append(&r->energy, &r->nenergy, &r->cap_energy, en->drainbuf, k) < 0) {
			return eq_fail(en->err, "simulator: out of memory");
		}
		total += k;
	}
	while ((k = eq_ring_pop_batch(&en->ring[SRC_TIME], en->drainbuf, cap)) > 0) {
		if (en->out[SRC_TIME]) {
			if (sim_stream_add_samples(en->stream, 0, en->drainbuf, k, en->err) < 0)
				return -1;
			r->ntimed += k;
		} else if (append(&r->timed, &r->ntimed, &r->cap_timed, en->drainbuf, k) < 0) {
			return eq_fail(en->err, "simulator: out of memory");
		}
		total += k;
	}
	/* the recorder runs now: a process like any other (sampled, delaying
	 * busy work) for its fixed cost plus a cost per sample */
	en->rec_cycles += en->p->drain_cycles + en->p->drain_cycles_per_sample * (double)total;
	r->drains++;
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

	/* the workload's segments end at their workload time plus the lag;
	 * an idle period pays back what it can of the lag by ending as planned */
	for (;;) {
		/* the timeline is a stream: the next segment is generated when needed */
		if (sim_timeline_need_seg(&en->tl, &en->seg, 1) < 0)
			return eq_fail(en->err, "simulator: out of memory generating the workload");
		if (!(en->seg < en->tl.nsegs && en->tl.segs[en->seg + 1].t0 + en->lag <= t))
			break;
		en->seg++;
		if (sim_timeline_need_seg(&en->tl, &en->seg, 1) < 0)
			return eq_fail(en->err, "simulator: out of memory generating the workload");
		if (en->seg < en->tl.nsegs && en->tl.segs[en->seg].freq != en->tl.segs[en->seg - 1].freq &&
		    en->p->dvfs_time > 0)
			en->dvfs_due = 1;
		if (en->seg < en->tl.nsegs && en->tl.segs[en->seg].act == SIM_ACT_IDLE && en->lag > 0)
			en->lag -= fmin(en->lag, en->tl.segs[en->seg + 1].t0 - en->tl.segs[en->seg].t0);
	}
	for (;;) {
		if (sim_timeline_need_step(&en->tl, &en->step, 1) < 0)
			return eq_fail(en->err, "simulator: out of memory generating the consumers' power");
		if (!(en->step + 1 < en->tl.nsteps && en->tl.steps[en->step + 1].t0 <= t))
			break;
		en->step++;
	}
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
	if (en->next_other <= t) {
		if (en->pending_other < INFINITY)
			en->res->irq_other_merged++;
		else
			en->pending_other = t + latency(en);
		en->next_other += 1.0 / en->p->irq_other_hz;
	}
	if (en->next_irqoff <= t) {
		if (en->isr_end <= t)
			en->irqoff_end = fmax(en->irqoff_end, t + en->p->irqoff_cycles / cpu_hz(en));
		en->next_irqoff = t + sim_rng_exp(&en->rng_off, 1.0 / en->p->irqoff_hz);
	}
	if (en->isr_end <= t && en->dvfs_due) {
		/* the PLL relocks: the core stalls, interrupts wait */
		en->dvfs_due = 0;
		en->isr_end = t + en->p->dvfs_time;
		en->isr_other = 0;
		en->dvfs = 1;
		en->res->dvfs_switches++;
	}
	if (en->isr_end <= t && en->irqoff_end <= t) {
		/* the earliest request is served first */
		first = -1;
		for (src = 0; src < NSRC; src++)
			if (en->pending[src] <= t && (first < 0 || en->pending[src] < en->pending[first]))
				first = src;
		if (en->pending_other <= t && (first < 0 || en->pending_other < en->pending[first]))
			run_other(en, t);
		else if (first >= 0)
			run_isr(en, first, t);
	}
	return 0;
}

static double next_event(const struct engine *en, double t)
{
	double b = INFINITY;

	/* while the ISR or the recorder interrupts busy code, the workload
	 * stands still */
	if (!((en->isr_end > t || en->rec_cycles > 0) && en->tl.segs[en->seg].act != SIM_ACT_IDLE))
		b = fmin(b, en->tl.segs[en->seg + 1].t0 + en->lag);
	if (en->isr_end <= t && en->rec_cycles > 0)
		b = fmin(b, t + en->rec_cycles / cpu_hz(en));
	b = fmin(b, en->tl.steps[en->step + 1].t0);
	b = fmin(b, en->next_tick);
	b = fmin(b, en->next_drain);
	b = fmin(b, en->next_bin);
	b = fmin(b, fmin(en->next_other, en->next_irqoff));
	if (en->isr_end > t)
		b = fmin(b, en->isr_end);
	else if (en->irqoff_end > t)
		b = fmin(b, en->irqoff_end);
	else
		b = fmin(b, fmin(fmin(en->pending[SRC_ENERGY], en->pending[SRC_TIME]), en->pending_other));
	return b;
}

static int trace_add(struct engine *en, double e)
{
	struct sim_result *r = en->res;

	if (en->bin >= en->cap_trace) {
		size_t nc = en->cap_trace * 2 > en->bin + 1 ? en->cap_trace * 2 : en->bin + 1;
		double *p = realloc(r->trace_w, (nc + 1) * sizeof(*p));

		if (!p)
			return -1;
		memset(p + en->cap_trace, 0, (nc + 1 - en->cap_trace) * sizeof(*p));
		r->trace_w = p;
		en->cap_trace = nc;
	}
	r->trace_w[en->bin] += e;
	return 0;
}

/* Constant nominal power *power over [t, b): front end, counter, truth.
 * Returns the end actually reached (earlier than b when an edge asks for
 * the CPU), and in *power what the device drew at its terminal voltage
 * (power_vsens), the power every truth integrates. */
static int run_piece(struct engine *en, double t, double b, size_t act, double *power_io,
		     double *reached, struct eq_error *err)
{
	struct counter_edge edges[8];
	double vb, cur, im, tt = t, tp, dt, power;
	int n;

	sim_frontend_operating_point(&en->fe, *power_io, &vb, &cur);
	power = *power_io = vb * cur;  /* what the device draws at this terminal voltage */
	im = sim_frontend_mirror(&en->fe, cur);
	while ((tp = sim_frontend_advance(&en->fe, tt, b, im)) >= 0) {
		n = counter_stage_pulse(en->cs, tp, vb, edges, 8, err);
		if (n < 0 || handle_edges(en, edges, n, tp) < 0)
			return -1;
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
	if (trace_add(en, power * dt) < 0)
		return eq_fail(err, "simulator: out of memory");
	if (act == en->sc->nacts) {
		en->res->recorder_time_s += dt;
		en->res->recorder_energy_j += power * dt;
	}
	if (act == SIM_ACT_ISR && en->dvfs) {
		en->res->dvfs_time_s += dt;
		en->res->dvfs_energy_j += power * dt;
	} else if (act == SIM_ACT_ISR && en->isr_other) {
		en->res->irq_other_time_s += dt;
		en->res->irq_other_energy_j += power * dt;
	} else if (act == SIM_ACT_ISR) {
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

	for (;;) {
		const struct sim_seg *sg;
		size_t act;
		double power, t0 = t;

		if (events_at(en, t) < 0)
			return -1;
		if (en->seg >= en->tl.nsegs)
			break; /* the workload is done */
		b = next_event(en, t);
		sg = &en->tl.segs[en->seg];
		act = en->isr_end > t ? SIM_ACT_ISR : en->rec_cycles > 0 ? en->sc->nacts : sg->act;
		if (act == SIM_ACT_ISR && en->dvfs)
			power = en->tl.steps[en->step].power + en->p->dvfs_power;
		else
			power = en->tl.steps[en->step].power + sim_act_power(en->sc, act, sg->freq) *
				(act == SIM_ACT_ISR || act == en->sc->nacts ? 1.0 : sg->scale);
		if (b <= t) /* an event at t that did not move on: guard against stalls */
			b = nextafter(t, INFINITY);
		/* the workload's CPU state (the ISR and the OS's handlers run
		 * inside it; the recorder is a process: the CPU leaves idle for
		 * it, as a kernel's cpu_idle tracepoint says) */
		if (sim_states_track(en->res, en->sc, sg->freq,
				     sg->act == SIM_ACT_IDLE && act != en->sc->nacts, t) < 0)
			return eq_fail(err, "simulator: out of memory");
		if (run_piece(en, t, b, act, &power, &t, err) < 0)
			return -1;
		if (act == en->sc->nacts) {
			en->rec_cycles -= (t - t0) * en->sc->freqs[sg->freq].hz;
			if (en->rec_cycles < 1e-6)
				en->rec_cycles = 0;
		}
		if ((act == SIM_ACT_ISR || act == en->sc->nacts) && sg->act != SIM_ACT_IDLE) {
			en->lag += t - t0;  /* the interrupted work waits */
			if (en->lag > 10 * en->w_end + 1)
				return eq_fail(err, "%s: the sampling ISR (isr_cycles %.0f) leaves the workload no time: by %.3g s of its %.3g s it is %.3g s late (an interrupt storm); raise quantum_pulses or lower isr_cycles",
					       en->sc->path, en->p->isr_cycles, t - en->lag,
					       en->w_end, en->lag);
		}
		/* the ISR and the OS's handlers run in the workload's state (no
		 * sample lands in them: the samples around them are in it); the
		 * recorder is code the samples see running (C0) */
		if (sim_states_account(en->res, en->sc, act, sg->freq,
				       sg->act == SIM_ACT_IDLE && act != en->sc->nacts, power, t - t0) < 0 ||
		    sim_devices_account(en->res, en->sc, act, t0, t - t0) < 0)
			return eq_fail(err, "simulator: out of memory");
		if (opt && opt->progress && (++iter & 0xffff) == 0)
			opt->progress(opt->progress_ctx, t, en->w_end,
				      en->res->nenergy + en->res->ntimed);
	}
	en->res->duration = t;
	return 0;
}

static int engine_open(struct engine *en, const struct sim_scenario *sc,
		       const struct sim_options *opt, struct sim_result *res,
		       const int *src_on, struct eq_error *err)
{
	const struct sim_params *p = &res->p;
	struct counter_stage_config cc = {
		.quantum_pulses = p->quantum_pulses, .jitter_pct = p->jitter_pct,
		.vcomp = p->vcomp, .vb_nominal = p->vb_nominal,
		.mcu_clock = p->mcu_clock, .seed = p->seed,
		/* the board's 2.5 V reference sets both the 555's thresholds
		 * (vx = 1.5 v_ref) and AREF */
		.adc_vref = p->vx / 1.5,
	};
	int src;

	memset(en, 0, sizeof(*en));
	en->err = err;
	en->sc = sc;
	en->p = p;
	en->res = res;
	/* a stream: memory stays flat in the scenario's length; the consumers
	 * run on real time, their last level lasting past the workload's
	 * planned end when the ISR made the run longer */
	if (sim_timeline_open(sc, &en->tl, err) < 0)
		return -1;
	if (sim_devices_apply(sc, &en->tl, err) < 0) /* devices' power: sim/devices.c */
		return -1;
	en->w_end = en->tl.t_end;
	for (src = 0; src < NSRC; src++) {
		en->src_on[src] = src_on[src];
		/* writing while simulating: each source's recording takes its
		 * samples and the board stream of the run it is in */
		if (opt && opt->stream && src_on[src])
			en->out[src] = en->bout[src] = sim_stream_writer(opt->stream, src == SRC_ENERGY);
	}
	en->stream = opt ? opt->stream : NULL;
	sim_frontend_init(&en->fe, p);
	sim_rng_seed(&en->rng_irq, p->seed, 3);
	sim_rng_seed(&en->rng_pc, p->seed, 4);
	sim_rng_seed(&en->rng_timer, p->seed, 5);
	sim_rng_seed(&en->rng_off, p->seed, 7);
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
	res->trace_bin = p->trace_bin > 0 ? p->trace_bin : fmax(en->w_end / 2000, 1e-4);
	en->cap_trace = (size_t)ceil(en->w_end / res->trace_bin) + 1;
	if (en->cap_trace > 10000000)
		return eq_fail(err, "trace_bin %g s gives over 10 million bins; raise it", res->trace_bin);
	res->trace_w = calloc(en->cap_trace + 1, sizeof(double));
	res->acts = calloc(SIM_NACTS(sc), sizeof(*res->acts));
	if (!en->drainbuf || !res->trace_w || !res->acts)
		return eq_fail(err, "simulator: out of memory");
	res->vb_min = INFINITY;
	res->vb_max = -INFINITY;
	res->quantum_j = p->quantum_pulses * p->e_min;
	en->next_tick = src_on[SRC_TIME] ? 1.0 / p->time_hz * sim_rng_uniform(&en->rng_timer) : INFINITY;
	en->next_drain = p->drain_period;
	en->pending_other = INFINITY;
	en->next_other = p->irq_other_hz > 0 && p->irq_other_cycles > 0 ?
		sim_rng_uniform(&en->rng_off) / p->irq_other_hz : INFINITY;
	en->next_irqoff = p->irqoff_hz > 0 && p->irqoff_cycles > 0 ?
		sim_rng_exp(&en->rng_off, 1.0 / p->irqoff_hz) : INFINITY;
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

/* One simulated execution with the interrupt sources src_on; seed_xor
 * changes every random choice but the workload's (a second run). */
static int run_once(const struct sim_scenario *sc, const struct sim_options *opt,
		    struct sim_result *res, const int *src_on, uint64_t seed_xor,
		    struct eq_error *err)
{
	struct engine en;
	struct counter_edge edges[64];
	size_t i;
	int n, rc;

	memset(res, 0, sizeof(*res));
	sim_params_effective(&sc->p, &res->p);
	res->p.seed ^= seed_xor;
	rc = engine_open(&en, sc, opt, res, src_on, err);
	if (rc == 0)
		rc = loop(&en, opt, err);
	if (rc == 0) {
		/* edges the stage still holds (simavr): board records only */
		n = counter_stage_finish(en.cs, res->duration, edges, 64, err);
		if (n < 0)
			rc = -1;
		for (i = 0; rc == 0 && i < (size_t)n; i++)
			if (push_board(&en, &edges[i]) < 0)
				rc = -1;
	}
	if (rc == 0 && (drain(&en) < 0 || flush_board(&en) < 0))
		rc = -1;
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
		res->ntrace = (size_t)ceil(res->duration / res->trace_bin);
		if (res->ntrace > en.cap_trace)
			res->ntrace = en.cap_trace;
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

/* The time-driven run's perturbation differs from the energy-driven one's. */
#define SIM_SECOND_RUN_SEED 0x7157c0ffee5eedull

int sim_run(const struct sim_scenario *sc, const struct sim_options *opt,
	    struct sim_result *res, struct eq_error *err)
{
	static const int both[NSRC] = { 1, 1 }, energy[NSRC] = { 1, 0 }, timed[NSRC] = { 0, 1 };
	struct sim_result tr;
	struct sim_run_truth *t = &res->time_run;

	if (sc->p.sampling_shared) {
		if (run_once(sc, opt, res, both, 0, err) < 0)
			return -1;
		t->acts = malloc(SIM_NACTS(sc) * sizeof(*t->acts));
		if (!t->acts) {
			sim_result_free(res);
			return eq_fail(err, "simulator: out of memory");
		}
		memcpy(t->acts, res->acts, SIM_NACTS(sc) * sizeof(*t->acts));
		t->duration = res->duration;
		t->energy_j = res->energy_j;
		t->isr_time_s = res->isr_time_s;
		t->isr_energy_j = res->isr_energy_j;
		t->irq_other_time_s = res->irq_other_time_s;
		t->irq_other_energy_j = res->irq_other_energy_j;
		return 0;
	}
	if (run_once(sc, opt, res, energy, 0, err) < 0)
		return -1;
	if (run_once(sc, opt, &tr, timed, SIM_SECOND_RUN_SEED, err) < 0) {
		sim_result_free(res);
		return -1;
	}
	res->separate = 1;
	res->timed = tr.timed;
	res->ntimed = tr.ntimed;
	res->cap_timed = tr.cap_timed;
	res->lost_timed = tr.lost_timed;
	res->merged_timed = tr.merged_timed;
	t->acts = tr.acts;
	t->duration = tr.duration;
	t->energy_j = tr.energy_j;
	t->isr_time_s = tr.isr_time_s;
	t->isr_energy_j = tr.isr_energy_j;
	t->irq_other_time_s = tr.irq_other_time_s;
	t->irq_other_energy_j = tr.irq_other_energy_j;
	t->board = tr.board;
	t->nboard = tr.nboard;
	t->state_acts = tr.state_acts; /* power states: sim/states.c */
	t->cpu_states = tr.cpu_states;
	tr.cpu_states = NULL;
	t->device_landed_j = tr.device_landed_j;
	tr.device_landed_j = NULL;
	t->pstates = tr.pstates;
	t->npstates = tr.npstates;
	tr.timed = NULL;
	tr.acts = NULL;
	tr.board = NULL;
	tr.state_acts = NULL;
	tr.pstates = NULL;
	sim_result_free(&tr);
	return 0;
}

void sim_result_free(struct sim_result *res)
{
	free(res->energy);
	free(res->timed);
	free(res->board);
	free(res->acts);
	free(res->trace_w);
	free(res->time_run.acts);
	free(res->time_run.board);
	free(res->state_acts);
	free(res->pstates);
	free(res->time_run.state_acts);
	free(res->cpu_states);
	free(res->time_run.cpu_states);
	free(res->time_run.pstates);
	free(res->device_landed_j);
	free(res->time_run.device_landed_j);
	memset(res, 0, sizeof(*res));
}
