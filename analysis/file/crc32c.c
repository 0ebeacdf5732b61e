/* crc32c.c - CRC-32C in hardware where the CPU has it; see crc32c.h. */
#include "file/crc32c.h"

#include <pthread.h>
#include <stdlib.h>
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

/*
 * Folding with carry-less multiplication (Gopal et al., "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ Instruction", Intel
 * 2009; the same scheme as Linux's crc32-pclmul and zlib-ng's
 * crc32_fold_pclmulqdq.c).  A 128-bit accumulator A stands for the data
 * folded so far; d bytes further on, A * x^(8d) mod P is congruent to
 * hi(A) * (x^(8d+64) mod P) + lo(A) * (x^(8d) mod P), each product of a
 * 64-bit half by a 32-bit constant fitting again in 128 bits, which is
 * xored into the data found there.  Several accumulators, d bytes apart,
 * run independently (pclmulqdq takes four cycles before its result can be
 * folded again); at the end they are folded into one and the crc32
 * instruction reduces those 128 bits to the CRC register.
 *
 * The bits are reflected: bit i of a little-endian 128-bit load is the
 * coefficient of x^(127-i), so the low qword is the high half, and a
 * reflected product comes out one degree short; a 32-bit constant held in
 * the low bits of its qword makes it 33 short, hence the exponents below.
 */
#include <immintrin.h>

#define FOLD_MAX 16 /* fold distances of 16 .. 16 * FOLD_MAX bytes */

static uint64_t fold_k[FOLD_MAX + 1][2];
static pthread_once_t fold_once = PTHREAD_ONCE_INIT;

/* Fusion (see fuse_block): blocks of 24 KiB, 18 KiB folded in 16 rounds
 * of 9 steps of 128 bytes, beside three crc32 streams of 2 KiB (16 rounds
 * of 128 bytes). */
#define FUSE_ROUNDS 16
#define FUSE_STEPS 9
#define FUSE_S (FUSE_ROUNDS * 128)
#define FUSE_V (FUSE_ROUNDS * FUSE_STEPS * 128)
#define FUSE_BLOCK (FUSE_V + 3 * FUSE_S)

static uint64_t k_fuse; /* x^(8 * FUSE_S - 33) mod P */

/* Above this, a buffer is taken to come from memory, where crc3 did
 * better: one call over 256 MB ran at 9.0-10.7 GB/s fused, 11.2-12.3 by
 * crc3; and report ran 4% slower over a 640 MB recording (0.28 s of CPU
 * against 0.27 in 5 of 5 runs), checking its chunks whole. */
#define FUSE_MAX_LEN (256 << 10)

/* x^n mod P, reflected like the CRC register (bit 31 is x^0). */
static uint32_t xpow(unsigned n)
{
	uint32_t c = 0x80000000u;

	while (n--)
		c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
	return c;
}

/* fold_k[m]: the constants that carry an accumulator 16 * m bytes on:
 * the low qword (high half) times x^(8d+64-33), the high one times
 * x^(8d-33). */
static void make_fold_k(void)
{
	for (unsigned m = 1; m <= FOLD_MAX; m++) {
		fold_k[m][0] = xpow(128 * m + 31);
		fold_k[m][1] = xpow(128 * m - 33);
	}
	k_fuse = xpow(8 * FUSE_S - 33);
}

#define TARGET_CLMUL __attribute__((target("avx,pclmul,sse4.2")))
#define TARGET_VCLMUL __attribute__((target("vpclmulqdq,avx2,pclmul,sse4.2")))

TARGET_CLMUL static inline __m128i k128(size_t bytes)
{
	return _mm_loadu_si128((const void *)fold_k[bytes / 16]);
}

TARGET_CLMUL static inline __m128i fold128(__m128i acc, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00),
			     _mm_clmulepi64_si128(acc, k, 0x11));
}

/* The CRC register of the 128 bits of acc: they are the last 16 bytes of
 * the message, the register having been xored into the first of them. */
TARGET_CLMUL static inline uint32_t reduce128(__m128i acc)
{
	uint64_t c = __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(acc));

	return (uint32_t)__builtin_ia32_crc32di(c, (uint64_t)_mm_extract_epi64(acc, 1));
}

TARGET_VCLMUL static inline __m256i k256(size_t bytes)
{
	return _mm256_broadcastsi128_si256(k128(bytes));
}

TARGET_VCLMUL static inline __m256i fold256(__m256i acc, __m256i k)
{
	return _mm256_xor_si256(_mm256_clmulepi64_epi128(acc, k, 0x00),
				_mm256_clmulepi64_epi128(acc, k, 0x11));
}

/* The same on 256-bit registers, two 128-bit lanes each: four
 * accumulators, 128 bytes a step.  c is the CRC register (not inverted). */
#define YACC 4
#define YSTEP (32 * YACC)

TARGET_VCLMUL static inline void ystart(__m256i acc[YACC], const unsigned char *p, uint32_t c)
{
#pragma GCC unroll 8
	for (int i = 0; i < YACC; i++)
		acc[i] = _mm256_loadu_si256((const void *)(p + 32 * i));
	acc[0] = _mm256_xor_si256(acc[0], _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)c)));
}

TARGET_VCLMUL static inline void ystep(__m256i acc[YACC], const unsigned char *p, __m256i k)
{
#pragma GCC unroll 8
	for (int i = 0; i < YACC; i++)
		acc[i] = _mm256_xor_si256(fold256(acc[i], k),
					  _mm256_loadu_si256((const void *)(p + 32 * i)));
}

/* The register after the last step's bytes. */
TARGET_VCLMUL static inline uint32_t yend(__m256i acc[YACC])
{
	__m256i r = acc[YACC - 1];

#pragma GCC unroll 8
	for (int i = 0; i < YACC - 1; i++)
		r = _mm256_xor_si256(r, fold256(acc[i], k256(32 * (YACC - 1 - i))));
	/* the low lane is 16 bytes before the high one */
	return reduce128(_mm_xor_si128(_mm256_extracti128_si256(r, 1),
				       fold128(_mm256_castsi256_si128(r), k128(16))));
}

/*
 * Fusion (as in Peter Cawley's corsix/fast-crc32): folding runs on the
 * vector units, the crc32 instruction on an integer one, so a loop doing
 * both over different parts of a block beats either alone.  Measured on a
 * Zen 3 guest (bench/crc, best of 300 runs): folding on four 256-bit
 * registers alone goes no faster than crc3, about 8 bytes a cycle (one
 * vpclmulqdq every other cycle; eight registers did no better), and the
 * two together about 10% faster, not the twice one would hope.  Of the
 * splits tried (folded : crc32 = 1:1, 1:3, 5:3, 3:1 in 8 rounds and 3:1
 * in 16), 3:1 in 16 rounds did best.  Blocks of 24 KiB, report's
 * sub-block: 18 KiB folded, three crc32 streams of 2 KiB; then the four
 * CRCs are joined, each shifted over the 2 KiB that follow it by one
 * multiplication by x^(8 * 2048) mod P.
 */

/* c * x^(8 * FUSE_S) mod P: the product of the two 32-bit polynomials
 * comes out 33 degrees short (reflection, see above) in 64 bits, and
 * crc32 of those 64 bits multiplies by x^32 and reduces. */
TARGET_CLMUL static inline uint32_t shift_clmul(uint32_t c, uint64_t k)
{
	__m128i t = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)c),
					 _mm_cvtsi64_si128((long long)k), 0);

	return (uint32_t)__builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(t));
}

/* 16 words on each of the three streams. */
TARGET_VCLMUL static inline void crc3_16(uint64_t c[3], const unsigned char *p)
{
	uint64_t w0, w1, w2;

#pragma GCC unroll 16
	for (int j = 0; j < 16; j++) {
		memcpy(&w0, p + 8 * j, 8);
		memcpy(&w1, p + FUSE_S + 8 * j, 8);
		memcpy(&w2, p + 2 * FUSE_S + 8 * j, 8);
		c[0] = __builtin_ia32_crc32di(c[0], w0);
		c[1] = __builtin_ia32_crc32di(c[1], w1);
		c[2] = __builtin_ia32_crc32di(c[2], w2);
	}
}

TARGET_VCLMUL static uint32_t fuse_block(uint32_t c, const unsigned char *p)
{
	const unsigned char *s = p + FUSE_V;
	uint64_t sc[3] = { 0, 0, 0 };
	__m256i acc[YACC], k = k256(YSTEP);

	ystart(acc, p, c);
	for (int i = 0; i < FUSE_ROUNDS; i++, s += 128) {
		for (int j = i ? 0 : 1; j < FUSE_STEPS; j++) /* step 0 was ystart's */
			ystep(acc, p + (FUSE_STEPS * i + j) * YSTEP, k);
		crc3_16(sc, s);
	}
	c = shift_clmul(yend(acc), k_fuse) ^ (uint32_t)sc[0];
	c = shift_clmul(c, k_fuse) ^ (uint32_t)sc[1];
	return shift_clmul(c, k_fuse) ^ (uint32_t)sc[2];
}

TARGET_VCLMUL static uint32_t crc32c_vpclmul(uint32_t crc, const unsigned char *p, size_t len)
{
	uint32_t c = ~crc;
	__m256i acc[YACC], k;

	if (len < 2 * YSTEP || len > FUSE_MAX_LEN)
		return crc32c_sse42(crc, p, len);
	pthread_once(&fold_once, make_fold_k);
	for (; len >= FUSE_BLOCK; p += FUSE_BLOCK, len -= FUSE_BLOCK)
		c = fuse_block(c, p);
	if (len >= 2 * YSTEP) {
		ystart(acc, p, c);
		k = k256(YSTEP);
		for (p += YSTEP, len -= YSTEP; len >= YSTEP; p += YSTEP, len -= YSTEP)
			ystep(acc, p, k);
		c = yend(acc);
	}
	return crc32c_sse42(~c, p, len);
}

/*
 * The same folding on 512-bit registers where the CPU has AVX-512 and
 * VPCLMULQDQ (Zen 4, Ice Lake and later): four accumulators of four
 * 128-bit lanes, 256 bytes a step, each step's two products and the data
 * xored by one ternary-logic instruction.  On a Zen 4 guest (bench/crc,
 * best of 300 runs) 56-58 GB/s over 24 KiB in L1 where the fused 256-bit
 * loop gave 28-31 and crc3 27-29, and 22 GB/s from memory (one call over
 * 256 MB) against 13: unlike the fused loop it needs no limit on the
 * length.  Fusing crc32 streams beside it is untried.
 */
#define TARGET_ZCLMUL __attribute__((target("avx512f,vpclmulqdq,avx2,pclmul,sse4.2")))
#define ZACC 4
#define ZSTEP (64 * ZACC)

TARGET_ZCLMUL static inline __m512i k512(size_t bytes)
{
	return _mm512_broadcast_i32x4(k128(bytes));
}

TARGET_ZCLMUL static inline __m512i fold512_xor(__m512i acc, __m512i k, __m512i data)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, k, 0x00),
					 _mm512_clmulepi64_epi128(acc, k, 0x11), data, 0x96);
}

/* The register after the accumulators' bytes (the last 256 of them). */
TARGET_ZCLMUL static inline uint32_t zend(__m512i acc[ZACC])
{
	__m512i r = acc[ZACC - 1];
	__m128i l;

#pragma GCC unroll 8
	for (int i = 0; i < ZACC - 1; i++)
		r = fold512_xor(acc[i], k512(64 * (ZACC - 1 - i)), r);
	/* lane 0 is the earliest 16 bytes, lane 3 the last */
	l = _mm512_extracti32x4_epi32(r, 3);
	l = _mm_xor_si128(l, fold128(_mm512_extracti32x4_epi32(r, 2), k128(16)));
	l = _mm_xor_si128(l, fold128(_mm512_extracti32x4_epi32(r, 1), k128(32)));
	l = _mm_xor_si128(l, fold128(_mm512_castsi512_si128(r), k128(48)));
	return reduce128(l);
}

TARGET_ZCLMUL static uint32_t crc32c_avx512(uint32_t crc, const unsigned char *p, size_t len)
{
	uint32_t c = ~crc;
	__m512i acc[ZACC], k;

	if (len < 2 * ZSTEP)
		return crc32c_sse42(crc, p, len);
	pthread_once(&fold_once, make_fold_k);
#pragma GCC unroll 8
	for (int i = 0; i < ZACC; i++)
		acc[i] = _mm512_loadu_si512((const void *)(p + 64 * i));
	acc[0] = _mm512_xor_si512(acc[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)c)));
	k = k512(ZSTEP);
	for (p += ZSTEP, len -= ZSTEP; len >= ZSTEP; p += ZSTEP, len -= ZSTEP) {
#pragma GCC unroll 8
		for (int i = 0; i < ZACC; i++)
			acc[i] = fold512_xor(acc[i], k, _mm512_loadu_si512((const void *)(p + 64 * i)));
	}
	c = zend(acc);
	return crc32c_sse42(~c, p, len);
}

/* The implementations, best first; the first the CPU has is used, unless
 * EQPROF_CRC32C names another (read once) or a test picks one. */
typedef uint32_t crc_fn(uint32_t crc, const unsigned char *p, size_t len);

static uint32_t crc32c_table(uint32_t crc, const unsigned char *p, size_t len)
{
	return eq_crc32c_sw(crc, p, len);
}

static const struct impl {
	const char *name;
	crc_fn *fn;
} impls[] = {
	{ "avx512", crc32c_avx512 },
	{ "vpclmulqdq", crc32c_vpclmul },
	{ "sse4.2", crc32c_sse42 },
	{ "table", crc32c_table },
};
#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

static int cpu_has(const struct impl *im)
{
	/* __builtin_cpu_supports wants literal names */
	if (im->fn == crc32c_avx512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq") &&
		       __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
		       __builtin_cpu_supports("sse4.2");
	if (im->fn == crc32c_vpclmul)
		return __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.2");
	if (im->fn == crc32c_sse42)
		return __builtin_cpu_supports("sse4.2");
	return 1;
}

static const struct impl *chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

/* The implementation called name, if this CPU has it. */
static const struct impl *find(const char *name)
{
	for (size_t i = 0; i < N_IMPLS; i++)
		if (!strcmp(impls[i].name, name))
			return cpu_has(&impls[i]) ? &impls[i] : NULL;
	return NULL;
}

static void choose(void)
{
	const char *want = getenv("EQPROF_CRC32C");

	if (want && (chosen = find(want)))
		return;
	for (size_t i = 0; !chosen; i++)
		if (cpu_has(&impls[i]))
			chosen = &impls[i];
}

int eq_crc32c_use(const char *name)
{
	const struct impl *im = find(name);

	pthread_once(&chosen_once, choose);
	if (!im)
		return -1;
	chosen = im;
	return 0;
}

const char *eq_crc32c_impl(void)
{
	pthread_once(&chosen_once, choose);
	return chosen->name;
}

uint32_t eq_crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&chosen_once, choose);
	return chosen->fn(crc, buf, len);
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

const char *eq_crc32c_impl(void)
{
	return "crc32c";
}
#else
uint32_t eq_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return eq_crc32c_sw(crc, buf, len);
}

const char *eq_crc32c_impl(void)
{
	return "table";
}
#endif

#if !defined(__x86_64__) || !(defined(__GNUC__) || defined(__clang__))
/* One implementation only: nothing else to pick. */
int eq_crc32c_use(const char *name)
{
	return strcmp(name, eq_crc32c_impl()) ? -1 : 0;
}
#endif
