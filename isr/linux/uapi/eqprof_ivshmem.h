/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * eqprof_ivshmem.h - the board's interrupt line as a QEMU ivshmem-doorbell
 * PCI device (the hardware-in-the-loop bridge, docs/hil.md).
 *
 * The bridge that runs the board firmware in simavr is the ivshmem server:
 * it owns the shared memory (the device's BAR 2) and the guest's interrupt
 * eventfd.  For every IRQ edge the firmware raises it increments `edges`,
 * then rings the doorbell (MSI-X vector 0).  The module's handler reads
 * `edges`: one new edge is one sample; more than one means edges merged
 * before the guest took the interrupt (an MSI pending twice is delivered
 * once), and the extra edges are counted as lost samples (seq gap and
 * EQ_F_LOST), so the target accounts for every edge the board raised.  The
 * handler then writes the count it accounted for to `taken`, while the
 * session runs.  While the module listens (`listening`, set before the
 * session counts the edges before it, cleared after the session ended) the
 * bridge rings for the next edge only once the guest took the last one, and
 * holds the board meanwhile: a host too slow or too busy to run board and
 * guest in real time slows both instead of merging interrupts.  An edge
 * that arrives after the session ended is left untaken: the bridge holds it
 * until it sees `listening` cleared, so its count of edges taken is the
 * session's.
 *
 * `phase` is not the module's business: the guest's workload writes the
 * phase it is in (through the PCI resource file resource2) and the bridge
 * gives the device the power of that phase.  All fields little-endian,
 * naturally aligned, each written by one side only.
 */
#ifndef _UAPI_EQPROF_IVSHMEM_H
#define _UAPI_EQPROF_IVSHMEM_H

#include <linux/types.h>

#define EQPROF_IVSHMEM_VENDOR	0x1af4	/* Red Hat, Inc. (QEMU's ivshmem) */
#define EQPROF_IVSHMEM_DEVICE	0x1110
#define EQPROF_IVSHMEM_MAGIC	0x4c485145	/* "EQHL" */
#define EQPROF_IVSHMEM_SIZE	4096	/* bytes of shared memory the bridge offers */

struct eqprof_ivshmem_shm {
	__u32 magic;		/* board side: EQPROF_IVSHMEM_MAGIC once it serves */
	__u32 version;		/* board side: 1 */
	__u64 edges;		/* board side: IRQ edges raised so far */
	__u32 phase;		/* guest workload: phase now running (0 = idle) */
	__u32 phase_writes;	/* guest workload: phase announcements so far */
	__u64 taken;		/* target: edges its handler accounted for */
	__u32 listening;	/* target: 1 while a session takes the interrupts */
	__u32 reserved32;
	__u64 reserved[3];
};

#endif /* _UAPI_EQPROF_IVSHMEM_H */
