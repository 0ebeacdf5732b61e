// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the eqprof module: delivers `count` interrupts on Linux
 * IRQ `irq` at `hz` from a hard hrtimer pinned to CPU `cpu`, the way a GPIO
 * controller's chained handler delivers the interrupts of its lines:
 * generic_handle_irq() in hard interrupt context, so the handler sees the
 * registers of the code the timer interrupted.  `fired` counts them.
 */
#include <linux/hrtimer.h>
#include <linux/irq.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/smp.h>

static unsigned int irq;
module_param(irq, uint, 0444);
MODULE_PARM_DESC(irq, "Linux IRQ number to fire");

static unsigned int count = 100;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "Interrupts to deliver");

static unsigned int hz = 1000;
module_param(hz, uint, 0444);
MODULE_PARM_DESC(hz, "Rate in Hz");

static unsigned int cpu;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "CPU the interrupts arrive on");

static unsigned int fired;
module_param(fired, uint, 0444);
MODULE_PARM_DESC(fired, "Interrupts delivered so far");

static struct hrtimer edge_timer;

static enum hrtimer_restart edge_fn(struct hrtimer *t)
{
	if (fired >= count)
		return HRTIMER_NORESTART;
	generic_handle_irq(irq);
	WRITE_ONCE(fired, fired + 1);
	hrtimer_forward_now(t, ns_to_ktime(NSEC_PER_SEC / hz));
	return HRTIMER_RESTART;
}

static void edge_start(void *unused)
{
	hrtimer_start(&edge_timer, ns_to_ktime(NSEC_PER_SEC / hz), HRTIMER_MODE_REL_PINNED_HARD);
}

static int __init eqedge_init(void)
{
	if (!irq || !hz || !cpu_online(cpu))
		return -EINVAL;
	hrtimer_init(&edge_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	edge_timer.function = edge_fn;
	return smp_call_function_single(cpu, edge_start, NULL, 1);
}

static void __exit eqedge_exit(void)
{
	hrtimer_cancel(&edge_timer);
}

module_init(eqedge_init);
module_exit(eqedge_exit);
MODULE_DESCRIPTION("eqprof test: interrupts from a hard hrtimer");
MODULE_LICENSE("GPL");
