// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling handler: one interrupt, one sample.
 *
 * Runs in hard interrupt context (or, for a GPIO controller that can only
 * deliver nested threaded interrupts, in that thread).  It does no lookups:
 * the pc, the process and thread ids, the CPU, the time and three facts
 * (kernel or user, idle, energy or time) go into this CPU's ring, and the
 * recorder resolves modules and symbols offline.
 */
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <asm/irq_regs.h>

#include "eqprof_dev.h"

/*
 * @regs: the interrupted registers (get_irq_regs() in a hard interrupt), or
 * NULL when the handler runs where they are not known: then the pc is the
 * task's saved user pc and the sample says EQ_F_PC_APPROX.
 */
void eqprof_sample(struct eqprof_dev *d, struct pt_regs *regs)
{
	struct task_struct *tsk = current;
	struct eqprof_cpu *c;
	struct eq_sample s;
	unsigned long irqflags;

	/* The ring has one producer per CPU: keep a threaded caller on it. */
	local_irq_save(irqflags);
	if (!READ_ONCE(d->running))
		goto out;
	c = this_cpu_ptr(d->cpu);
	s.time = ktime_get_ns();
	s.pid = task_tgid_nr(tsk);
	s.tid = task_pid_nr(tsk);
	s.seq = 0;		/* set by the ring */
	s.cpu = (u16)smp_processor_id();
	s.flags = d->flags;
	if (is_idle_task(tsk)) {
		s.flags |= EQ_F_IDLE;
		s.pid = 0;
		s.tid = 0;
	}
	if (regs) {
		s.pc = instruction_pointer(regs);
		if (!user_mode(regs))
			s.flags |= EQ_F_KERNEL;
	} else if (tsk->mm && !(tsk->flags & PF_KTHREAD)) {
		s.pc = instruction_pointer(task_pt_regs(tsk));
		s.flags |= EQ_F_PC_APPROX;
		c->approx++;
	} else {
		s.pc = 0;
		s.flags |= EQ_F_KERNEL | EQ_F_PC_APPROX;
		c->approx++;
	}
	eq_ring_push(&c->ring, &s);
	/*
	 * Wake the reader every wake_samples samples, or at the first sample
	 * after wake_ms without a read: poll(2) then returns.
	 */
	if (++c->since_wake >= READ_ONCE(d->wake_samples) ||
	    time_after(jiffies, READ_ONCE(d->wake_deadline))) {
		c->since_wake = 0;
		/* racy between CPUs, but any of the values will do */
		WRITE_ONCE(d->wake_deadline, jiffies + msecs_to_jiffies(d->cfg.wake_ms));
		irq_work_queue(&d->wake_work);
	}
out:
	local_irq_restore(irqflags);
}
