// SPDX-License-Identifier: GPL-2.0
/*
 * The eqprof sampling module: parameters, per-CPU rings and
 * the /dev/eqprof character device.
 *
 * The device is mode 0600 because samples reveal kernel addresses.  One open
 * file at a time controls sampling (a second open gets -EBUSY): it configures
 * a session, starts and stops it, reads samples with read(2) and waits for
 * them with poll(2).  When that file is closed (also when its process dies)
 * a session it started is stopped, so the module stays usable.  A session
 * can also be started at load time (start=1), for boot-time profiling or to
 * fill the rings with no reader; it then runs until EQPROF_IOC_STOP or
 * unload.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "eqprof_dev.h"

static unsigned int ring_kb = 64;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb, "Per-CPU ring size in KiB (default 64, rounded down to a power of two samples)");

static unsigned int ring_bytes;
module_param(ring_bytes, uint, 0444);
MODULE_PARM_DESC(ring_bytes, "Per-CPU ring size in bytes; overrides ring_kb when set (tests)");

static char *gpio_chip = "";
module_param(gpio_chip, charp, 0444);
MODULE_PARM_DESC(gpio_chip, "Label of the GPIO chip the board's IRQ line is wired to");

static unsigned int gpio_line;
module_param(gpio_line, uint, 0444);
MODULE_PARM_DESC(gpio_line, "Offset of the board's IRQ line on that chip");

static char *gpio_edge = "rising";
module_param(gpio_edge, charp, 0444);
MODULE_PARM_DESC(gpio_edge, "Edge that marks a quantum: rising or falling");

static unsigned int hz = 1000;
module_param(hz, uint, 0444);
MODULE_PARM_DESC(hz, "Time-driven mean rate in Hz for start=1 (default 1000)");

static unsigned int jitter = 5;
module_param(jitter, uint, 0444);
MODULE_PARM_DESC(jitter, "Time-driven rate jitter, +- percent (default 5)");

static char *start = "";
module_param(start, charp, 0444);
MODULE_PARM_DESC(start, "Start sampling at load: \"energy\" (GPIO), \"ivshmem\" (doorbell) or \"time\" (hrtimers)");

static unsigned int wake_samples = 256;
module_param(wake_samples, uint, 0644);
MODULE_PARM_DESC(wake_samples, "Default: wake the reader after this many samples");

static unsigned int wake_ms = 100;
module_param(wake_ms, uint, 0644);
MODULE_PARM_DESC(wake_ms, "Default: wake the reader this long after its last read");

#define EQPROF_BOUNCE 128	/* samples copied to user space per step */

static struct eqprof_dev eqd;
static atomic_t eqprof_open_count = ATOMIC_INIT(0);
static struct file *eqprof_owner;	/* the open file that started the session */
static struct eq_sample *bounce;

static u64 eqprof_avail(struct eqprof_dev *d)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += eq_ring_count(&per_cpu_ptr(d->cpu, cpu)->ring);
	return n;
}

static void eqprof_wake(struct irq_work *w)
{
	struct eqprof_dev *d = container_of(w, struct eqprof_dev, wake_work);

	wake_up_interruptible(&d->wq);
}

static void eqprof_free_rings(struct eqprof_dev *d)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct eqprof_cpu *c = per_cpu_ptr(d->cpu, cpu);

		kvfree(c->slots);
		c->slots = NULL;
	}
}

/* Allocates (when the size changed) and empties every ring.  Stopped only. */
static int eqprof_reset_rings(struct eqprof_dev *d, u32 bytes)
{
	u32 n = bytes / sizeof(struct eq_sample);
	int cpu;

	if (n < 2)
		return -EINVAL;
	n = rounddown_pow_of_two(n);
	if (n != d->ring_samples) {
		eqprof_free_rings(d);
		d->ring_samples = 0;
		for_each_possible_cpu(cpu) {
			struct eqprof_cpu *c = per_cpu_ptr(d->cpu, cpu);

			c->slots = kvzalloc_node(array_size(n, sizeof(struct eq_sample)),
						 GFP_KERNEL, cpu_to_node(cpu));
			if (!c->slots) {
				eqprof_free_rings(d);
				return -ENOMEM;
			}
		}
		d->ring_samples = n;
	}
	for_each_possible_cpu(cpu) {
		struct eqprof_cpu *c = per_cpu_ptr(d->cpu, cpu);

		eq_ring_init(&c->ring, c->slots, n, 0);
		c->since_wake = 0;
		c->approx = 0;
		c->missed = 0;
	}
	return 0;
}

static const struct eqprof_source *eqprof_source_of(u32 id)
{
	switch (id) {
	case EQPROF_SRC_GPIO:
		return &eqprof_gpio_source;
	case EQPROF_SRC_HRTIMER:
		return &eqprof_hrtimer_source;
	case EQPROF_SRC_IVSHMEM:
		return &eqprof_ivshmem_source;
	default:
		return NULL;
	}
}

/* Fills in what the caller left to the module parameters. */
static int eqprof_set_config(struct eqprof_dev *d, const struct eqprof_config *in)
{
	struct eqprof_config c = *in;

	if (!eqprof_source_of(c.source))
		return -EINVAL;
	if (!c.ring_bytes)
		c.ring_bytes = ring_bytes ? ring_bytes : ring_kb * 1024;
	if (c.ring_bytes < 2 * sizeof(struct eq_sample) || c.ring_bytes > (64U << 20))
		return -EINVAL;
	if (!c.wake_samples)
		c.wake_samples = wake_samples ? wake_samples : 1;
	if (!c.wake_ms)
		c.wake_ms = wake_ms ? wake_ms : 1;
	c.gpio_chip[EQPROF_NAME_LEN - 1] = '\0';
	if (!c.gpio_chip[0]) {
		strscpy(c.gpio_chip, gpio_chip, sizeof(c.gpio_chip));
		c.gpio_line = gpio_line;
	}
	if (!c.gpio_edge)
		c.gpio_edge = strcmp(gpio_edge, "falling") ? 1 : 2;
	if (c.source == EQPROF_SRC_GPIO && !c.gpio_chip[0]) {
		pr_err("eqprof: energy-driven sampling needs the GPIO chip the board is wired to (gpio_chip=LABEL gpio_line=N)\n");
		return -EINVAL;
	}
	d->cfg = c;
	return 0;
}

static int eqprof_start(struct eqprof_dev *d)
{
	const struct eqprof_source *src = eqprof_source_of(d->cfg.source);
	int ret;

	lockdep_assert_held(&d->lock);
	if (d->running)
		return -EBUSY;
	if (!src)
		return -EINVAL;
	ret = eqprof_reset_rings(d, d->cfg.ring_bytes);
	if (ret)
		return ret;
	d->src = src;
	d->flags = src->flags;
	d->wake_samples = d->cfg.wake_samples;
	d->read = 0;
	d->irq = 0;
	d->irq_threaded = false;
	d->first_seq = 0;
	d->source_name[0] = '\0';
	d->start_ns = ktime_get_ns();
	d->stop_ns = 0;
	d->last_read = jiffies;
	d->wake_deadline = d->last_read + msecs_to_jiffies(d->cfg.wake_ms);
	/* Rings ready before any handler can see running. */
	smp_store_release(&d->running, true);
	ret = src->start(d, &d->cfg);
	if (ret) {
		WRITE_ONCE(d->running, false);
		d->src = NULL;
		return ret;
	}
	pr_info("eqprof: sampling started: %s, %u samples per CPU ring\n",
		d->source_name, d->ring_samples);
	return 0;
}

static void eqprof_stop(struct eqprof_dev *d)
{
	lockdep_assert_held(&d->lock);
	if (!d->running)
		return;
	WRITE_ONCE(d->running, false);
	d->src->stop(d);	/* no handler runs after this */
	irq_work_sync(&d->wake_work);
	d->stop_ns = ktime_get_ns();
	wake_up_interruptible(&d->wq);
}

static void eqprof_get_stats(struct eqprof_dev *d, struct eqprof_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		struct eqprof_cpu *c = per_cpu_ptr(d->cpu, cpu);

		if (!d->ring_samples)
			break;
		/* pairs with the handler's release of head (eq_ring_push) */
		st->samples += smp_load_acquire(&c->ring.head);
		st->dropped += eq_ring_dropped(&c->ring);
		st->approx += READ_ONCE(c->approx);
		st->missed += READ_ONCE(c->missed);
	}
	st->read = d->read;
	st->start_ns = d->start_ns;
	st->stop_ns = d->stop_ns;
	st->running = READ_ONCE(d->running);
	st->source = d->cfg.source;
	st->nr_cpus = num_possible_cpus();
	st->ring_samples = d->ring_samples;
	st->irq = d->irq > 0 ? d->irq : 0;
	st->irq_threaded = d->irq_threaded;
	st->first_seq = d->first_seq;
	st->hz_milli = d->cfg.hz_milli;
	st->jitter_pct = d->cfg.jitter_pct;
	strscpy(st->source_name, d->source_name, sizeof(st->source_name));
}

static int eqprof_get_cpu_stats(struct eqprof_dev *d, struct eqprof_cpu_stats *st)
{
	u32 cpu = st->cpu;
	struct eqprof_cpu *c;

	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	c = per_cpu_ptr(d->cpu, cpu);
	memset(st, 0, sizeof(*st));
	st->cpu = cpu;
	st->online = cpu_online(cpu);
	if (d->ring_samples) {
		/* pairs with the handler's release of head (eq_ring_push) */
		st->samples = smp_load_acquire(&c->ring.head);
		st->dropped = eq_ring_dropped(&c->ring);
		st->missed = READ_ONCE(c->missed);
		st->next_seq = READ_ONCE(c->ring.next_seq);
	}
	return 0;
}

static long eqprof_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct eqprof_dev *d = &eqd;
	void __user *uarg = (void __user *)arg;
	struct eqprof_config cfg;
	struct eqprof_stats st;
	struct eqprof_cpu_stats cst;
	long ret = 0;

	switch (cmd) {
	case EQPROF_IOC_CONFIG:
		if (copy_from_user(&cfg, uarg, sizeof(cfg)))
			return -EFAULT;
		mutex_lock(&d->lock);
		ret = d->running ? -EBUSY : eqprof_set_config(d, &cfg);
		mutex_unlock(&d->lock);
		return ret;
	case EQPROF_IOC_START:
		mutex_lock(&d->lock);
		ret = eqprof_start(d);
		if (!ret)
			eqprof_owner = f;
		mutex_unlock(&d->lock);
		return ret;
	case EQPROF_IOC_STOP:
		mutex_lock(&d->lock);
		eqprof_stop(d);
		eqprof_owner = NULL;
		mutex_unlock(&d->lock);
		return 0;
	case EQPROF_IOC_STATS:
		mutex_lock(&d->lock);
		eqprof_get_stats(d, &st);
		mutex_unlock(&d->lock);
		return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
	case EQPROF_IOC_CPU_STATS:
		if (copy_from_user(&cst, uarg, sizeof(cst)))
			return -EFAULT;
		mutex_lock(&d->lock);
		ret = eqprof_get_cpu_stats(d, &cst);
		mutex_unlock(&d->lock);
		if (!ret && copy_to_user(uarg, &cst, sizeof(cst)))
			ret = -EFAULT;
		return ret;
	default:
		return -ENOTTY;
	}
}

/* Moves up to max samples from the rings to buf.  d->lock held. */
static ssize_t eqprof_drain(struct eqprof_dev *d, char __user *buf, size_t max)
{
	size_t done = 0;
	int cpu;

	if (!d->ring_samples)
		return 0;
	for_each_possible_cpu(cpu) {
		struct eq_ring *r = &per_cpu_ptr(d->cpu, cpu)->ring;

		while (done < max) {
			u32 want = min_t(size_t, max - done, EQPROF_BOUNCE);
			u32 n = eq_ring_pop_batch(r, bounce, want);

			if (!n)
				break;
			if (copy_to_user(buf + done * sizeof(*bounce), bounce, n * sizeof(*bounce)))
				return -EFAULT;
			done += n;
		}
	}
	d->read += done;
	d->last_read = jiffies;
	WRITE_ONCE(d->wake_deadline, d->last_read + msecs_to_jiffies(d->cfg.wake_ms));
	return done * sizeof(*bounce);
}

static bool eqprof_ready(struct eqprof_dev *d)
{
	u64 n = eqprof_avail(d);

	if (!READ_ONCE(d->running))
		return true;
	return n >= d->wake_samples ||
	       (n && time_after_eq(jiffies, d->last_read + msecs_to_jiffies(d->cfg.wake_ms)));
}

/*
 * Returns whole samples: at least one, as soon as wake_samples are waiting
 * or wake_ms after the last read; 0 once the session is stopped and every
 * sample was read.
 */
static ssize_t eqprof_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	struct eqprof_dev *d = &eqd;
	size_t max = len / sizeof(struct eq_sample);
	ssize_t ret;

	if (!max)
		return -EINVAL;
	for (;;) {
		mutex_lock(&d->lock);
		ret = eqprof_drain(d, buf, max);
		mutex_unlock(&d->lock);
		if (ret || !READ_ONCE(d->running))
			return ret;
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible_timeout(d->wq, eqprof_ready(d),
						     msecs_to_jiffies(d->cfg.wake_ms)) < 0)
			return -ERESTARTSYS;
	}
}

static __poll_t eqprof_poll(struct file *f, poll_table *wait)
{
	struct eqprof_dev *d = &eqd;

	poll_wait(f, &d->wq, wait);
	if (!READ_ONCE(d->running))
		return eqprof_avail(d) ? EPOLLIN | EPOLLRDNORM : EPOLLHUP;
	return eqprof_ready(d) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int eqprof_open(struct inode *inode, struct file *f)
{
	if (atomic_cmpxchg(&eqprof_open_count, 0, 1))
		return -EBUSY;
	return 0;
}

static int eqprof_release(struct inode *inode, struct file *f)
{
	struct eqprof_dev *d = &eqd;

	mutex_lock(&d->lock);
	if (eqprof_owner == f) {
		eqprof_stop(d);
		eqprof_owner = NULL;
	}
	mutex_unlock(&d->lock);
	atomic_set(&eqprof_open_count, 0);
	return 0;
}

static const struct file_operations eqprof_fops = {
	.owner = THIS_MODULE,
	.open = eqprof_open,
	.release = eqprof_release,
	.read = eqprof_read,
	.poll = eqprof_poll,
	.unlocked_ioctl = eqprof_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice eqprof_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "eqprof",
	.fops = &eqprof_fops,
	.mode = 0600,
};

static int __init eqprof_init(void)
{
	struct eqprof_dev *d = &eqd;
	struct eqprof_config cfg = { 0 };
	int ret;

	mutex_init(&d->lock);
	init_waitqueue_head(&d->wq);
	init_irq_work(&d->wake_work, eqprof_wake);
	d->cpu = alloc_percpu(struct eqprof_cpu);
	bounce = kmalloc_array(EQPROF_BOUNCE, sizeof(*bounce), GFP_KERNEL);
	if (!d->cpu || !bounce) {
		ret = -ENOMEM;
		goto fail;
	}
	cfg.source = !strcmp(start, "energy") ? EQPROF_SRC_GPIO :
		     !strcmp(start, "ivshmem") ? EQPROF_SRC_IVSHMEM : EQPROF_SRC_HRTIMER;
	cfg.hz_milli = hz * 1000;
	cfg.jitter_pct = jitter;
	ret = eqprof_set_config(d, &cfg);
	if (ret && start[0])
		goto fail;
	mutex_lock(&d->lock);
	ret = eqprof_reset_rings(d, d->cfg.ring_bytes);
	if (!ret && (!strcmp(start, "energy") || !strcmp(start, "ivshmem") ||
		     !strcmp(start, "time")))
		ret = eqprof_start(d);
	else if (!ret && start[0])
		ret = -EINVAL;
	mutex_unlock(&d->lock);
	if (ret)
		goto fail;
	ret = misc_register(&eqprof_misc);
	if (ret)
		goto stop;
	return 0;

stop:
	mutex_lock(&d->lock);
	eqprof_stop(d);
	mutex_unlock(&d->lock);
fail:
	if (d->cpu)
		eqprof_free_rings(d);
	free_percpu(d->cpu);
	kfree(bounce);
	return ret;
}

static void __exit eqprof_exit(void)
{
	struct eqprof_dev *d = &eqd;
	struct eqprof_stats st;

	misc_deregister(&eqprof_misc);
	mutex_lock(&d->lock);
	eqprof_stop(d);
	eqprof_get_stats(d, &st);
	mutex_unlock(&d->lock);
	if (st.samples || st.dropped)
		pr_info("eqprof: unloaded: %llu samples stored, %llu dropped, %llu read\n",
			st.samples, st.dropped, st.read);
	eqprof_free_rings(d);
	free_percpu(d->cpu);
	kfree(bounce);
}

module_init(eqprof_init);
module_exit(eqprof_exit);

MODULE_DESCRIPTION("eqprof: energy- and time-driven statistical sampling");
MODULE_AUTHOR("The eqprof authors");
MODULE_LICENSE("GPL");
