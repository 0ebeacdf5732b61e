/*
 * fmtnum.h - printf's "%.Nf", "%.Ng" and "%llu" of one number, byte for
 * byte, without printf, for the outputs that write them by the thousand
 * (a report's rows).
 *
 * glibc prints the exact binary value of a double rounded to the asked
 * digits, ties to even (round-to-nearest, the mode eqprof never changes).
 * These do the same with exact integer arithmetic: v = m 2^e with m < 2^53
 * is scaled by 10^k as the quotient of two integers below 2^126 (128-bit),
 * rounded on the remainder.  Numbers outside that range (and NaN,
 * infinities, zero for %g, precisions they do not cover) go to snprintf
 * itself: the bytes are printf's in every case.
 */
#ifndef EQ_FMTNUM_H
#define EQ_FMTNUM_H

#include <stddef.h>
#include <stdint.h>

/* Room for any of them: the largest double has 309 digits before the point. */
#define EQ_FMTNUM_SIZE 352

/* snprintf(buf, EQ_FMTNUM_SIZE, "%.*f", prec, v); returns the length. */
size_t eq_fmt_fixed(char *buf, double v, int prec);

/* snprintf(buf, EQ_FMTNUM_SIZE, "%.*g", prec, v); returns the length. */
size_t eq_fmt_g(char *buf, double v, int prec);

/* snprintf(buf, 21, "%llu", v); returns the length. */
size_t eq_fmt_u64(char *buf, uint64_t v);

#endif
