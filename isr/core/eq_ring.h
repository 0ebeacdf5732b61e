/* SPDX-License-Identifier: MIT */
/*
 * eq_ring.h - lock-free single-producer / single-consumer sample ring.
 *
 * The producer is the sampling interrupt handler (or a simulated one), the
 * consumer is whoever drains samples (the recorder, a kernel read(), a test
 * thread).  Exactly one context may push and exactly one may pop at a time.
 *
 * Rules the ring keeps, whatever happens:
 *   - eq_ring_push() never blocks and never allocates.
 *   - The ring assigns every pushed sample the next sequence number (the
 *     caller's seq field is overwritten), also when the sample is dropped
 *     because the ring is full: seq keeps advancing.
 *   - A drop is counted (eq_ring_dropped()) and the next sample that IS
 *     stored carries EQ_F_LOST, so the consumer sees a seq gap, a flag and a
 *     counter for every loss; nothing is lost silently.
 *
 * Memory: the caller owns both the struct eq_ring header and the slot array
 * (capacity * 32 bytes, capacity a power of two >= 2).  Nothing here calls
 * libc; struct copies may compile to memcpy, which every freestanding GCC
 * or clang environment provides (the kernel does; bare metal links one).
 *
 * Barriers: one header serves three worlds.
 *   __KERNEL__          smp_load_acquire / smp_store_release / READ_ONCE / WRITE_ONCE
 *   EQ_RING_BARE_METAL  volatile accesses plus EQ_RING_BARRIER(), which the
 *                       port defines (e.g. __DMB() on Cortex-M); default is a
 *                       compiler barrier, enough on a single core where the
 *                       producer is an ISR and the consumer the main loop.
 *   otherwise           C11-model __atomic builtins (GCC, clang): user space,
 *                       understood by ThreadSanitizer.
 *
 * Counters are 32-bit so that they are single loads and stores on 32-bit
 * microcontrollers; indices are free-running and compared modulo 2^32.
 */
#ifndef EQ_RING_H
#define EQ_RING_H

#include "eq_sample.h"

/* ---- barrier abstraction ---------------------------------------------- */

#if defined(__KERNEL__)
#include <linux/compiler.h>
#include <asm/barrier.h>
#define eq_load_acquire(p)      smp_load_acquire(p)
#define eq_store_release(p, v)  smp_store_release(p, v)
#define eq_load_relaxed(p)      READ_ONCE(*(p))
#define eq_store_relaxed(p, v)  WRITE_ONCE(*(p), v)
#elif defined(EQ_RING_BARE_METAL)
#ifndef EQ_RING_BARRIER
#define EQ_RING_BARRIER() __asm__ __volatile__("" ::: "memory")
#endif
static inline uint32_t eq_ring_vload_(const uint32_t *p)
{
	uint32_t v = *(const volatile uint32_t *)p;

	EQ_RING_BARRIER();
	return v;
}
#define eq_load_acquire(p)      eq_ring_vload_(p)
#define eq_store_release(p, v)  do { EQ_RING_BARRIER(); *(volatile uint32_t *)(p) = (v); } while (0)
#define eq_load_relaxed(p)      (*(const volatile uint32_t *)(p))
#define eq_store_relaxed(p, v)  (*(volatile uint32_t *)(p) = (v))
#else
#define eq_load_acquire(p)      __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define eq_store_release(p, v)  __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define eq_load_relaxed(p)      __atomic_load_n(p, __ATOMIC_RELAXED)
#define eq_store_relaxed(p, v)  __atomic_store_n(p, v, __ATOMIC_RELAXED)
#endif

/* ---- the ring ---------------------------------------------------------- */

#define EQ_RING_LINE 64 /* keep producer and consumer fields on separate cache lines */

struct eq_ring {
	/* Set once by eq_ring_init(), read-only afterwards. */
	struct eq_sample *slots;
	uint32_t mask;          /* capacity - 1 */
	uint8_t pad0_[EQ_RING_LINE - sizeof(void *) - sizeof(uint32_t)];

	/* Written by the producer only. */
	uint32_t head;          /* slots ever stored (free-running) */
	uint32_t next_seq;      /* sequence number of the next push */
	uint32_t dropped;       /* pushes refused because the ring was full */
	uint32_t lost_pending;  /* 1: flag the next stored sample EQ_F_LOST */
	uint8_t pad1_[EQ_RING_LINE - 4 * sizeof(uint32_t)];

	/* Written by the consumer only. */
	uint32_t tail;          /* slots ever taken (free-running) */
	uint8_t pad2_[EQ_RING_LINE - sizeof(uint32_t)];
};

/* Bytes of slot memory a ring of `capacity` samples needs. */
#define EQ_RING_SLOT_BYTES(capacity) ((capacity) * (uint32_t)sizeof(struct eq_sample))

/*
 * Prepares r over `slots`, which holds `capacity` samples (a power of two,
 * at least 2) and must stay valid while the ring is used.  first_seq is the
 * sequence number of the first push (normally 0).  Returns 0, or -1 when
 * capacity is not a power of two >= 2 or slots is NULL.  Call before either
 * side runs.
 */
static inline int eq_ring_init(struct eq_ring *r, void *slots, uint32_t capacity,
			       uint32_t first_seq)
{
	if (!slots || capacity < 2 || (capacity & (capacity - 1)) != 0)
		return -1;
	r->slots = (struct eq_sample *)slots;
	r->mask = capacity - 1;
	r->head = 0;
	r->next_seq = first_seq;
	r->dropped = 0;
	r->lost_pending = 0;
	r->tail = 0;
	return 0;
}

static inline uint32_t eq_ring_capacity(const struct eq_ring *r)
{
	return r->mask + 1;
}

/*
 * Producer: stores a copy of *s with seq set by the ring.  Returns 1 when
 * stored, 0 when the ring was full (the drop is counted, seq still
 * advances, the next stored sample gets EQ_F_LOST).  Safe in interrupt
 * context: a bounded number of instructions, no locks.
 */
static inline int eq_ring_push(struct eq_ring *r, const struct eq_sample *s)
{
	uint32_t head = r->head;                 /* only we write it */
	uint32_t tail = eq_load_acquire(&r->tail);
	uint32_t seq = r->next_seq;
	struct eq_sample *slot;

	r->next_seq = seq + 1;
	if (head - tail > r->mask) {
		eq_store_relaxed(&r->dropped, r->dropped + 1);
		r->lost_pending = 1;
		return 0;
	}
	slot = &r->slots[head & r->mask];
	*slot = *s;
	slot->seq = seq;
	if (r->lost_pending) {
		slot->flags |= EQ_F_LOST;
		r->lost_pending = 0;
	}
	/* Publish the slot's contents before the new head. */
	eq_store_release(&r->head, head + 1);
	return 1;
}

/*
 * Producer: counts n interrupts that were taken too late to be sampled one
 * by one (e.g. doorbells that merged before the handler ran) as losses, the
 * way a full ring counts its drops: seq advances by n, the drops are
 * counted and the next stored sample gets EQ_F_LOST.
 */
static inline void eq_ring_lose(struct eq_ring *r, uint32_t n)
{
	if (!n)
		return;
	r->next_seq += n;
	eq_store_relaxed(&r->dropped, r->dropped + n);
	r->lost_pending = 1;
}

/*
 * Consumer: moves up to max samples, oldest first, into out.  Returns how
 * many (0 when empty).  Never blocks.
 */
static inline uint32_t eq_ring_pop_batch(struct eq_ring *r, struct eq_sample *out,
					 uint32_t max)
{
	uint32_t tail = r->tail;                 /* only we write it */
	uint32_t head = eq_load_acquire(&r->head);
	uint32_t avail = head - tail;
	uint32_t n = avail < max ? avail : max;
	uint32_t i;

	for (i = 0; i < n; i++)
		out[i] = r->slots[(tail + i) & r->mask];
	/* Hand the slots back only after they were read. */
	eq_store_release(&r->tail, tail + n);
	return n;
}

/* Consumer (or anyone, as a snapshot): samples waiting in the ring. */
static inline uint32_t eq_ring_count(const struct eq_ring *r)
{
	return eq_load_acquire(&r->head) - eq_load_acquire(&r->tail);
}

/* Anyone: pushes refused so far because the ring was full (wraps at 2^32). */
static inline uint32_t eq_ring_dropped(const struct eq_ring *r)
{
	return eq_load_relaxed(&r->dropped);
}

#endif /* EQ_RING_H */
