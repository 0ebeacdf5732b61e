/*
 * hilclock.h - the bridge's clock in the shared memory (sim/hil/hilbridge.c).
 *
 * The bridge writes the host's CLOCK_MONOTONIC, in ns, at this offset of
 * the ivshmem region, every turn of its loop (tens of microseconds apart).
 * A guest program that maps the region (the PCI resource file resource2)
 * reads it between two readings of its own clock: the host clock minus the
 * guest's is then known to within the bridge's turn, which is how
 * bench/board relates a record's arrival in the guest to the moment the
 * board made its quantum on the host.  Outside the module's layout
 * (isr/linux/uapi/eqprof_ivshmem.h), which it does not concern.
 */
#ifndef HILCLOCK_H
#define HILCLOCK_H

#define HILCLOCK_OFFSET 2048      /* u64, little-endian, 8-byte aligned */

#endif
