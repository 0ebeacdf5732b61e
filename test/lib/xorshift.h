/*
 * xorshift.h - the pseudo-random numbers of the tests and benches:
 * Marsaglia's xorshift64 with shifts 13, 7 and 17 ("Xorshift RNGs",
 * Journal of Statistical Software 8(14), 2003).  A state of 0 stays 0:
 * seed with anything else.  Each test keeps its own seed, so its
 * sequences are the ones it was written against.
 */
#ifndef EQ_TEST_XORSHIFT_H
#define EQ_TEST_XORSHIFT_H

#include <stdint.h>

/* The next number of state *x (which it advances). */
static inline uint64_t eq_xorshift64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#endif
