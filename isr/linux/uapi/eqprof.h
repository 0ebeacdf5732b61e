/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * eqprof.h - the /dev/eqprof interface of the eqprof sampling module.
 *
 * Shared by the kernel module (isr/linux) and the recorder
 * (host/record/module.c).  Samples are read(2) from the device as an array
 * of struct eq_sample (isr/core/eq_sample.h, 32 bytes each).
 *
 * A session: EQPROF_IOC_CONFIG (while stopped), EQPROF_IOC_START, read and
 * poll until done, EQPROF_IOC_STOP, read the rest until read() returns 0,
 * EQPROF_IOC_STATS and EQPROF_IOC_CPU_STATS for the counts.  Closing the
 * device stops a session that this open file started.
 */
#ifndef _UAPI_EQPROF_H
#define _UAPI_EQPROF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EQPROF_DEVICE "/dev/eqprof"

/* Where sampling interrupts come from. */
#define EQPROF_SRC_GPIO		1	/* energy-driven: the board's edge on a GPIO line */
#define EQPROF_SRC_HRTIMER	2	/* time-driven: per-CPU jittered hrtimers */
#define EQPROF_SRC_IVSHMEM	3	/* energy-driven: the board via a QEMU ivshmem doorbell */

#define EQPROF_NAME_LEN		32

struct eqprof_config {
	__u32 source;		/* EQPROF_SRC_* */
	__u32 hz_milli;		/* hrtimer: mean rate in mHz (300000 = 300 Hz) */
	__u32 jitter_pct;	/* hrtimer: rate drawn within +-jitter_pct % */
	__u32 ring_bytes;	/* per-CPU ring size; 0 = the ring_kb parameter */
	__u32 wake_samples;	/* poll/read ready after this many samples; 0 = default */
	__u32 wake_ms;		/* ... or this long after the last read; 0 = default */
	__u32 gpio_line;	/* gpio: line offset on the chip */
	__u32 gpio_edge;	/* gpio: 1 rising, 2 falling; 0 = the parameter */
	char gpio_chip[EQPROF_NAME_LEN]; /* gpio: chip label; "" = the parameter */
	__u32 reserved[8];	/* zero */
};

struct eqprof_stats {
	__u64 samples;		/* stored in the rings */
	__u64 dropped;		/* refused because a ring was full (counted, flagged) */
	__u64 approx;		/* of the stored: no interrupted registers (EQ_F_PC_APPROX) */
	__u64 missed;		/* hrtimer: periods that passed with no interrupt (overruns) */
	__u64 read;		/* handed to readers */
	__u64 start_ns;		/* ktime_get_ns() at start */
	__u64 stop_ns;		/* ktime_get_ns() at stop; 0 while running */
	__u32 running;		/* 1 while a session runs */
	__u32 source;		/* EQPROF_SRC_* of the last session */
	__u32 nr_cpus;		/* rings (possible CPUs) */
	__u32 ring_samples;	/* capacity of each ring */
	__u32 irq;		/* gpio: the Linux IRQ number */
	__u32 irq_threaded;	/* gpio: 1 when the IRQ is delivered in a thread */
	__u32 hz_milli;
	__u32 jitter_pct;
	char source_name[64];	/* e.g. "gpio eqsim:3 rising hardirq" */
	__u32 first_seq;	/* seq of the first interrupt (ivshmem: its board quantum) */
	__u32 reserved[7];
};

struct eqprof_cpu_stats {
	__u32 cpu;		/* in: the ring (CPU) to report on */
	__u32 online;
	__u64 samples;		/* stored */
	__u64 dropped;		/* refused (ring full) */
	__u64 missed;		/* hrtimer overruns */
	__u32 next_seq;		/* sequence number of the next interrupt */
	__u32 reserved[7];
};

#define EQPROF_IOC_MAGIC	0xE9
#define EQPROF_IOC_CONFIG	_IOW(EQPROF_IOC_MAGIC, 1, struct eqprof_config)
#define EQPROF_IOC_START	_IO(EQPROF_IOC_MAGIC, 2)
#define EQPROF_IOC_STOP		_IO(EQPROF_IOC_MAGIC, 3)
#define EQPROF_IOC_STATS	_IOR(EQPROF_IOC_MAGIC, 4, struct eqprof_stats)
#define EQPROF_IOC_CPU_STATS	_IOWR(EQPROF_IOC_MAGIC, 5, struct eqprof_cpu_stats)

#endif /* _UAPI_EQPROF_H */
