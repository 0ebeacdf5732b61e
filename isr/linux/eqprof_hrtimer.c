// SPDX-License-Identifier: GPL-2.0
/*
 * Time-driven source: one hard hrtimer per CPU.
 *
 * Each expiry takes a sample through the same handler as the board's
 * interrupt (so time and energy profiles are comparable sample for sample)
 * and draws the next period from a rate uniform within +-jitter of the mean,
 * as seed 001's time-driven sampler did (A.2: 283-310 Hz and 328-367 Hz).
 * Periods that pass without an interrupt (the CPU had interrupts off, or a
 * virtual CPU was not scheduled) are counted as missed, not hidden.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>

#include "eqprof_dev.h"

static struct eqprof_dev *timer_dev;

/* xorshift32: cheap, no locks, good enough to break phase locking */
static u32 eqprof_rand(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* A period whose rate is uniform in [hz * (1 - j), hz * (1 + j)]. */
static u64 eqprof_period(struct eqprof_dev *d, struct eqprof_cpu *c)
{
	u64 mhz = d->cfg.hz_milli;
	u64 span = div_u64(mhz * d->cfg.jitter_pct, 100);
	u64 rate = mhz - span;

	if (span)
		rate += div64_u64((u64)eqprof_rand(&c->rng) * 2 * span, U32_MAX);
	if (!rate)
		rate = 1;
	return div64_u64(1000000000000ULL, rate);
}

static enum hrtimer_restart eqprof_timer_fn(struct hrtimer *t)
{
	struct eqprof_cpu *c = container_of(t, struct eqprof_cpu, timer);
	struct eqprof_dev *d = timer_dev;
	u64 overruns;

	eqprof_sample(d, get_irq_regs());
	if (!READ_ONCE(d->running))
		return HRTIMER_NORESTART;
	overruns = hrtimer_forward_now(t, ns_to_ktime(eqprof_period(d, c)));
	if (overruns > 1)
		c->missed += overruns - 1;
	return HRTIMER_RESTART;
}

static void eqprof_timer_init(struct hrtimer *t)
{
#ifdef EQPROF_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, eqprof_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	t->function = eqprof_timer_fn;
#endif
}

/* Runs on each CPU (IPI): arms that CPU's timer. */
static void eqprof_timer_start_cpu(void *arg)
{
	struct eqprof_dev *d = arg;
	struct eqprof_cpu *c = this_cpu_ptr(d->cpu);

	c->rng = (u32)ktime_get_ns() ^ (smp_processor_id() * 2654435761U) ^ 1;
	hrtimer_start(&c->timer, ns_to_ktime(eqprof_period(d, c)),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int eqprof_timer_start(struct eqprof_dev *d, const struct eqprof_config *cfg)
{
	int cpu;

	if (!cfg->hz_milli || cfg->hz_milli > 100000000 || cfg->jitter_pct > 50)
		return -EINVAL;
	timer_dev = d;
	for_each_possible_cpu(cpu)
		eqprof_timer_init(&per_cpu_ptr(d->cpu, cpu)->timer);
	snprintf(d->source_name, sizeof(d->source_name), "hrtimer %u.%03u Hz +-%u%%",
		 cfg->hz_milli / 1000, cfg->hz_milli % 1000, cfg->jitter_pct);
	cpus_read_lock();
	on_each_cpu(eqprof_timer_start_cpu, d, 1);
	cpus_read_unlock();
	return 0;
}

static void eqprof_timer_stop(struct eqprof_dev *d)
{
	int cpu;

	/* d->running is already clear: a running callback will not re-arm. */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(d->cpu, cpu)->timer);
}

const struct eqprof_source eqprof_hrtimer_source = {
	.name = "hrtimer",
	.flags = 0,
	.start = eqprof_timer_start,
	.stop = eqprof_timer_stop,
};
