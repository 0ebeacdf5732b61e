/*
 * ring_freestanding.c - the ring as a bare-metal program would use it: an
 * ISR pushes, the main loop drains.  ring-freestanding.sh compiles this
 * without a C library for a Cortex-M3 and for the host and checks that the
 * objects need nothing from outside (no libc, no allocation).
 */
#include "eq_ring.h"

static struct eq_sample slots[64];
static struct eq_ring ring;

int sampling_isr(const struct eq_sample *s)
{
	return eq_ring_push(&ring, s);
}

unsigned int drain(struct eq_sample *out, unsigned int n)
{
	return eq_ring_pop_batch(&ring, out, n);
}

unsigned int dropped(void)
{
	return eq_ring_dropped(&ring);
}

int ring_setup(void)
{
	return eq_ring_init(&ring, slots, 64, 0);
}
