/*
 * fmtnum.c - "%.Nf", "%.Ng" and "%llu" without printf, byte for byte
 * (fmtnum.h says how; test/analysis/test_fmtnum.c holds them against
 * snprintf over millions of numbers and every kind of tie).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmtnum.h"

#ifndef __SIZEOF_INT128__
/* No 128-bit integers (32-bit targets, such as the armhf recorder, which
 * prints few numbers): printf itself. */
size_t eq_fmt_u64(char *buf, uint64_t v)
{
	return (size_t)snprintf(buf, 21, "%llu", (unsigned long long)v);
}

size_t eq_fmt_fixed(char *buf, double v, int prec)
{
	return (size_t)snprintf(buf, EQ_FMTNUM_SIZE, "%.*f", prec, v);
}

size_t eq_fmt_g(char *buf, double v, int prec)
{
	return (size_t)snprintf(buf, EQ_FMTNUM_SIZE, "%.*g", prec, v);
}
#else
__extension__ typedef unsigned __int128 u128;

/* 10^0 .. 10^19 */
static const uint64_t pow10_64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* Integers below 2^126 throughout: 2 r < 2^127 never overflows. */
#define LIMIT_BITS 126

static int bits128(u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;

	return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

static u128 pow10_128(int j)
{
	return j < 20 ? pow10_64[j] : (u128)pow10_64[19] * pow10_64[j - 19];
}

/* |v| = m 2^e (v finite). */
static void split(double v, uint64_t *m, int *e)
{
	uint64_t bits;
	int be;

	memcpy(&bits, &v, sizeof(bits));
	be = (int)(bits >> 52 & 0x7ff);
	*m = bits & ((1ull << 52) - 1);
	if (be) {
		*m |= 1ull << 52;
		*e = be - 1075;
	} else {
		*e = -1074;
	}
}

/*
 * m 2^e 10^k, rounded to an integer into *q: to nearest with ties to even
 * (round) or down (!round).  -1 if the integers would not fit (k above 21
 * or below -37, or a quotient of 2^64 or more).
 */
static int scaled(uint64_t m, int e, int k, int round, uint64_t *q_out)
{
	u128 num = m, den = 1, quo, rem;

	if (k >= 0 && k <= 3 && e < 0 && e > -64) {
		/* the usual case (%.2f, %.4g of 1..999): m 10^k < 2^63, in 64 bits */
		uint64_t n = m * pow10_64[k], q = n >> -e, r = n & ((1ull << -e) - 1);
		uint64_t half = 1ull << (-e - 1);

		if (round && (r > half || (r == half && (q & 1))))
			q++;
		*q_out = q;
		return 0;
	}
	if (k > 21 || k < -37)
		return -1;
	if (k > 0)
		num *= pow10_128(k);          /* < 2^53 10^21 < 2^123 */
	if (k < 0)
		den = pow10_128(-k);          /* <= 10^37 < 2^123 */
	if (e > 0) {
		if (bits128(num) + e > LIMIT_BITS)
			return -1;
		num <<= e;
	} else if (e < 0) {
		if (bits128(den) - e > LIMIT_BITS) {
			/* den >= 2^126 > 2 num (num < 2^123 here: e < 0):
			 * below one half, 0 either way */
			*q_out = 0;
			return 0;
		}
		den <<= -e;
	}
	if (k >= 0) {
		/* den = 2^-e: shifts */
		int s = e < 0 ? -e : 0;

		quo = s ? num >> s : num;
		rem = s ? num & (den - 1) : 0;
	} else {
		quo = num / den;
		rem = num % den;
	}
	if (round && (2 * rem > den || (2 * rem == den && (quo & 1))))
		quo++;
	if (quo >> 64)
		return -1;
	*q_out = (uint64_t)quo;
	return 0;
}

/* The digits of n, at least `min` of them (zeros before), ending at end;
 * returns where they start. */
static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static char *digits_back(char *end, uint64_t n, int min)
{
	char *p = end;

	/* two at a time while at least two are wanted */
	while (n >= 100 || min >= 2) {
		unsigned d = (unsigned)(n % 100);

		p -= 2;
		p[0] = two_digits[2 * d];
		p[1] = two_digits[2 * d + 1];
		n /= 100;
		min -= 2;
		if (!n && min <= 0)
			return p;
	}
	do {
		*--p = (char)('0' + n % 10);
		n /= 10;
		min--;
	} while (n || min > 0);
	return p;
}

/* The digits p..end, after v's sign, into buf: their length. */
static size_t put_signed(char *buf, char *p, const char *end, double v)
{
	size_t len;

	if (signbit(v))
		*--p = '-';
	len = (size_t)(end - p);
	memcpy(buf, p, len);
	buf[len] = '\0';
	return len;
}

size_t eq_fmt_u64(char *buf, uint64_t v)
{
	char b[24], *p = digits_back(b + sizeof(b), v, 1);
	size_t len = (size_t)(b + sizeof(b) - p);

	memcpy(buf, p, len);
	buf[len] = '\0';
	return len;
}

size_t eq_fmt_fixed(char *buf, double v, int prec)
{
	char b[48], *end = b + sizeof(b), *p;
	uint64_t m, q;
	int e;

	if (!isfinite(v) || prec < 0 || prec > 19)
		goto slow;
	split(v, &m, &e);
	if (scaled(m, e, prec, 1, &q))
		goto slow;
	p = end;
	if (prec) {
		p = digits_back(p, q % pow10_64[prec], prec);
		*--p = '.';
		q /= pow10_64[prec];
	}
	p = digits_back(p, q, 1);
	return put_signed(buf, p, end, v);
slow:
	return (size_t)snprintf(buf, EQ_FMTNUM_SIZE, "%.*f", prec, v);
}

/* 10^0 .. 10^22: exact doubles */
static const double pow10_dbl[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* floor(log10(a)), a = m 2^e > 0, into *x; -1 out of scaled's range. */
static int decimal_exponent(double a, uint64_t m, int e, int *x)
{
	/* 2^b <= a < 2^(b+1): log10(a) is within 0.302 of b log10(2), and the
	 * guess one below or above at most: exact comparisons decide (the
	 * powers 10^0..10^22 are doubles; below 1, a 10^-g >= 1 in integers) */
	int b = e + 63 - __builtin_clzll(m), g = (int)floor(b * 0.30102999566398120), tries;
	uint64_t f;

	for (tries = 0; tries < 4; tries++) {
		int ge, lt;

		if (g >= 0 && g < 22) {
			ge = a >= pow10_dbl[g];
			lt = a < pow10_dbl[g + 1];
		} else {
			if (scaled(m, e, -g, 0, &f))
				return -1;
			ge = f >= 1;
			lt = f < 10;
		}
		if (!ge)
			g--;
		else if (!lt)
			g++;
		else {
			*x = g;
			return 0;
		}
	}
	return -1;
}

size_t eq_fmt_g(char *buf, double v, int prec)
{
	char b[64], *end = b + sizeof(b), *p;
	uint64_t m, s;
	int e, p10, x, k;

	p10 = prec == 0 ? 1 : prec;
	if (!isfinite(v) || v == 0 || prec < 0 || p10 > 15)
		goto slow;
	split(v, &m, &e);
	if (decimal_exponent(fabs(v), m, e, &x))
		goto slow;
	/* the P significant digits: S = round(|v| 10^(P-1-X)); rounding up to
	 * 10^P makes the exponent X + 1 (C11 7.21.6.1: the exponent %e would
	 * print decides the style) */
	k = p10 - 1 - x;
	if (scaled(m, e, k, 1, &s))
		goto slow;
	if (s == pow10_64[p10]) {
		s /= 10;
		x++;
	}
	if (x < -4 || x >= p10) {
		/* d.ddde+XX, trailing zeros of the fraction dropped */
		char ex[8], *q = digits_back(ex + sizeof(ex), (uint64_t)(x < 0 ? -x : x), 2);

		*--q = x < 0 ? '-' : '+';
		*--q = 'e';
		p = end - (ex + sizeof(ex) - q);
		memcpy(p, q, (size_t)(ex + sizeof(ex) - q));
		while (s % 10 == 0 && s >= 10) {
			s /= 10;
			p10--;
		}
		if (p10 > 1) {
			p = digits_back(p, s % pow10_64[p10 - 1], p10 - 1);
			*--p = '.';
		}
		p = digits_back(p, s / pow10_64[p10 - 1], 1);
	} else {
		/* fixed with P-1-X decimals (up to P+3 < 19), trailing zeros
		 * of the fraction dropped, and the point if nothing is left */
		int f = p10 - 1 - x;

		p = end;
		while (f > 0 && s % 10 == 0) {
			s /= 10;
			f--;
		}
		if (f > 0) {
			p = digits_back(p, s % pow10_64[f], f);
			*--p = '.';
			s /= pow10_64[f];
		}
		p = digits_back(p, s, 1);
	}
	return put_signed(buf, p, end, v);
slow:
	return (size_t)snprintf(buf, EQ_FMTNUM_SIZE, "%.*g", prec, v);
}
#endif
