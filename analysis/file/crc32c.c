/* crc32c.c - CRC-32C in hardware where the CPU has it; see crc32c.h. */
#include "file/crc32c.h"

#include <pthread.h>
#include <string.h>

#define POLY 0x82f63b78u /* Castagnoli, reflected */

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
	uint32_t c;
	int n, k;

	for (n = 0; n < 256; n++) {
		c = (uint32_t)n;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[0][n] = c;
	}
	for (n = 0; n < 256; n++)
		for (k = 1; k < 8; k++)
			table[k][n] = (table[k - 1][n] >> 8) ^ table[0][table[k - 1][n] & 0xff];
}

/* Slicing-by-8: eight table lookups per 8 bytes. */
uint32_t eq_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = ~crc;
	uint64_t w;

	pthread_once(&table_once, make_table);
	while (len && ((uintptr_t)p & 7)) {
		c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
		len--;
	}
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8); /* little-endian, like the file */
		w ^= c;
		c = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		    table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		    table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		    table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
	}
	while (len--)
		c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * The crc32 instruction takes three cycles but starts one a cycle: three
 * independent streams over three adjacent blocks keep it busy, three times
 * the speed of one stream.  The blocks' CRCs are then joined: the CRC of A
 * followed by B is the CRC of A shifted over len(B) zero bytes, xor the CRC
 * of B started from 0 (the register before the final inversion, which a
 * shift commutes with: CRCs are linear over GF(2)).  A shift over a fixed
 * length is a 32x32 bit matrix, applied a byte at a time through four
 * tables.
 */
#define BLOCK_LONG 8192
#define BLOCK_SHORT 256

static uint32_t shift_long[4][256], shift_short[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

/* mat times vec over GF(2): the columns of mat whose bit is set in vec. */
static uint32_t gf2_times(const uint32_t mat[32], uint32_t vec)
{
	uint32_t sum = 0;

	for (int i = 0; vec; vec >>= 1, i++)
		if (vec & 1)
			sum ^= mat[i];
	return sum;
}

/* The operator that runs a CRC register over len zero bytes, as four
 * tables of a byte each. */
static void make_shift(uint32_t tab[4][256], size_t len)
{
	uint32_t op[32], sq[32];
	int i, k;

	/* one zero bit: the register shifts right, the polynomial comes in
	 * when the bit shifted out was set */
	op[0] = POLY;
	for (i = 1; i < 32; i++)
		op[i] = 1u << (i - 1);
	/* square up to 8 * len bits (len is a power of two) */
	for (size_t bits = 1; bits < 8 * len; bits *= 2) {
		for (i = 0; i < 32; i++)
			sq[i] = gf2_times(op, op[i]);
		memcpy(op, sq, sizeof(op));
	}
	for (k = 0; k < 4; k++)
		for (i = 0; i < 256; i++)
			tab[k][i] = gf2_times(op, (uint32_t)i << (8 * k));
}

static void make_shifts(void)
{
	make_shift(shift_long, BLOCK_LONG);
	make_shift(shift_short, BLOCK_SHORT);
}

static inline uint32_t shift(uint32_t tab[4][256], uint32_t c)
{
	return tab[0][c & 0xff] ^ tab[1][(c >> 8) & 0xff] ^ tab[2][(c >> 16) & 0xff] ^
	       tab[3][c >> 24];
}

__attribute__((target("sse4.2")))
static inline uint64_t crc3(uint64_t c, const unsigned char *p, size_t block,
			    uint32_t tab[4][256])
{
	uint64_t c1 = 0, c2 = 0, w0, w1, w2;
	const unsigned char *end = p + block;

	for (; p < end; p += 8) {
		memcpy(&w0, p, 8);
		memcpy(&w1, p + block, 8);
		memcpy(&w2, p + 2 * block, 8);
		c = __builtin_ia32_crc32di(c, w0);
		c1 = __builtin_ia32_crc32di(c1, w1);
		c2 = __builtin_ia32_crc32di(c2, w2);
	}
	c = shift(tab, (uint32_t)c) ^ (uint32_t)c1;
	return shift(tab, (uint32_t)c) ^ (uint32_t)c2;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = ~crc, w;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
	if (len >= 3 * BLOCK_SHORT)
		pthread_once(&shift_once, make_shifts);
	for (; len >= 3 * BLOCK_LONG; p += 3 * BLOCK_LONG, len -= 3 * BLOCK_LONG)
		c = crc3(c, p, BLOCK_LONG, shift_long);
	for (; len >= 3 * BLOCK_SHORT; p += 3 * BLOCK_SHORT, len -= 3 * BLOCK_SHORT)
		c = crc3(c, p, BLOCK_SHORT, shift_short);
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

uint32_t eq_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_sse42(crc, buf, len);
	return eq_crc32c_sw(crc, buf, len);
}
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

uint32_t eq_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = ~crc;
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		c = __crc32cd(c, w);
	}
	while (len--)
		c = __crc32cb(c, *p++);
	return ~c;
}
#else
uint32_t eq_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return eq_crc32c_sw(crc, buf, len);
}
#endif
