/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the eqprof sampling module.
 *
 * One handler, eqprof_sample(), turns a sampling interrupt into a struct
 * eq_sample in the interrupted CPU's ring (isr/core/eq_ring.h, the ring the
 * host tests exercise).  Where interrupts come from is a source: a GPIO line
 * driven by the energy counter board, or per-CPU hrtimers.  A new source
 * (a PCI doorbell, an NMI) is one more struct eqprof_source; note that a
 * source which can interrupt another one on the same CPU (an NMI) needs
 * rings of its own, because each ring has exactly one producer.
 */
#ifndef EQPROF_DEV_H
#define EQPROF_DEV_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "eq_ring.h"
#include "uapi/eqprof.h"

struct eqprof_dev;

struct eqprof_source {
	const char *name;
	u16 flags;		/* EQ_F_ENERGY for energy-driven sources */
	/* Process context, d->lock held, d->running already set. */
	int (*start)(struct eqprof_dev *d, const struct eqprof_config *cfg);
	/* Process context, d->lock held; no handler runs after it returns. */
	void (*stop)(struct eqprof_dev *d);
};

extern const struct eqprof_source eqprof_gpio_source;
extern const struct eqprof_source eqprof_hrtimer_source;
extern const struct eqprof_source eqprof_ivshmem_source;

/* One per possible CPU. */
struct eqprof_cpu {
	struct eq_ring ring;
	struct hrtimer timer;	/* time-driven source */
	u64 period_ns;		/* hrtimer: mean period */
	u32 rng;		/* hrtimer: jitter state */
	u32 since_wake;		/* samples since the reader was last woken */
	u64 approx;		/* samples without interrupted registers */
	u64 missed;		/* hrtimer overruns */
	void *slots;
};

struct eqprof_dev {
	struct mutex lock;	/* configuration, start/stop, draining */
	bool running;		/* read by handlers with READ_ONCE() */
	u16 flags;		/* flags of the running source */
	const struct eqprof_source *src;
	struct eqprof_config cfg;
	struct eqprof_cpu __percpu *cpu;
	u32 ring_samples;
	u32 wake_samples;
	u64 read;
	u64 start_ns, stop_ns;
	unsigned long last_read;	/* jiffies */
	unsigned long wake_deadline;	/* jiffies: wake a reader with samples waiting */
	wait_queue_head_t wq;
	struct irq_work wake_work;
	/* gpio source */
	struct gpio_desc *gpio;
	int irq;
	bool irq_threaded;
	u32 first_seq;		/* seq the rings start at (set by the source's start) */
	char source_name[64];
};

void eqprof_sample(struct eqprof_dev *d, struct pt_regs *regs);

#endif /* EQPROF_DEV_H */
