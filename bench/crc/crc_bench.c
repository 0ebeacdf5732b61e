/*
 * crc_bench.c - how fast eq_crc32c() checksums, for each implementation the
 * CPU has (issue 30: report checks a CRC-32C over every chunk it reads).
 * Prints GB/s, the best of several runs (the machine is shared: the best
 * run is the one least disturbed), for
 *   - 24 KiB pieces of one buffer, in L1 (report's sub-blocks, prefetched);
 *   - 24 KiB pieces walking 384 KiB, in L2;
 *   - 24 KiB pieces walking 256 MB, and one call over 256 MB, from memory.
 * Never fails on time.
 *
 *   crc_bench [RUNS]           (default 300; a tenth of them over 256 MB)
 *   crc_bench --bytes N IMPL   checksum N bytes in 24 KiB pieces once with
 *                              IMPL, for counting instructions (crc.sh)
 *
 * valgrind's CPU has neither vpclmulqdq nor AVX-512, so callgrind cannot
 * count that code; count it in `objdump -d build/bench/crc_bench`:
 * function crc32c_vpclmul, a round of the fused loop (1,536 bytes) was 241
 * instructions with gcc 12 -O2, 0.157 a byte (the join of each 24 KiB block
 * adds some 40); function crc32c_avx512, a step of its loop (256 bytes) 15
 * instructions, 0.059 a byte (eight vpclmulqdq, four vpternlogq).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "file/crc32c.h"
#include "test/lib/xorshift.h"

#define PIECE (24 << 10)
#define L2_SPAN (384 << 10)
#define BIG ((size_t)256 << 20)

/* timed; "table" (about 1 GB/s) only by --bytes */
static const char *const impls[] = { "avx512", "vpclmulqdq", "sse4.2" };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* total bytes (whole pieces of piece bytes) walking span bytes of buf
 * over and over; the CRCs are chained so that no call can be skipped. */
static uint32_t hash(const unsigned char *buf, size_t span, size_t piece, size_t total)
{
	uint32_t c = 0;

	for (size_t done = 0, at = 0; done + piece <= total; done += piece) {
		c = eq_crc32c(c, buf + at, piece);
		at = at + 2 * piece > span ? 0 : at + piece;
	}
	return c;
}

#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

/* The cases: 24 KiB pieces of one buffer (L1), of 384 KiB (L2), 4 MiB a
 * run, runs times over (short runs: the best of many finds the moments
 * when no other process shared the core); 24 KiB pieces of 256 MB and one
 * call over 256 MB (from memory), a tenth as many runs. */
static const struct {
	size_t span, piece, total;
	int runs_div;
} cases[] = { { PIECE, PIECE, 4 << 20, 1 },
	      { L2_SPAN, PIECE, 4 << 20, 1 },
	      { BIG, PIECE, BIG, 10 },
	      { BIG, BIG, BIG, 10 } };
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* GB/s, the best of runs for each implementation and case; the
 * implementations take turns within each run, so that a busy spell of the
 * machine slows them alike. */
static void rates(const unsigned char *buf, int runs, double gbs[][N_CASES], uint32_t *crc)
{
	double best[N_IMPLS][N_CASES];

	for (size_t i = 0; i < N_IMPLS; i++)
		for (size_t c = 0; c < N_CASES; c++)
			best[i][c] = 1e30;
	for (size_t c = 0; c < N_CASES; c++)
		for (int r = 0; r < runs / cases[c].runs_div + 1; r++)
			for (size_t i = 0; i < N_IMPLS; i++) {
				double t;

				if (eq_crc32c_use(impls[i]) < 0)
					continue;
				t = now();
				*crc += hash(buf, cases[c].span, cases[c].piece, cases[c].total);
				t = now() - t;
				if (t < best[i][c])
					best[i][c] = t;
			}
	for (size_t i = 0; i < N_IMPLS; i++)
		for (size_t c = 0; c < N_CASES; c++)
			gbs[i][c] = best[i][c] < 1e30 ?
				cases[c].total / cases[c].piece * cases[c].piece / best[i][c] / 1e9 : 0;
}

static unsigned char *make_buf(size_t n)
{
	unsigned char *buf = malloc(n);
	uint64_t x = 88172645463325252ull;

	if (!buf) {
		fprintf(stderr, "crc_bench: out of memory for %zu bytes\n", n);
		exit(1);
	}
	for (size_t i = 0; i < n; i += 8) {
		eq_xorshift64(&x);
		memcpy(buf + i, &x, 8);
	}
	return buf;
}

static int count_mode(size_t bytes, const char *impl)
{
	unsigned char *buf = make_buf(L2_SPAN);

	if (eq_crc32c_use(impl) < 0) {
		fprintf(stderr, "crc_bench: this CPU has no %s\n", impl);
		return 1;
	}
	printf("%08x\n", hash(buf, L2_SPAN, PIECE, bytes));
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 300;
	double gbs[N_IMPLS][N_CASES];
	const char *dflt = eq_crc32c_impl();
	unsigned char *buf;
	uint32_t crc = 0;

	if (argc == 4 && !strcmp(argv[1], "--bytes"))
		return count_mode(strtoull(argv[2], NULL, 0), argv[3]);
	if (runs < 1)
		runs = 1;
	buf = make_buf(BIG);
	rates(buf, runs, gbs, &crc);
	printf("eq_crc32c GB/s, best of %d runs (default here: %s; checksum %08x)\n", runs, dflt,
	       crc);
	printf("%-11s %12s %12s %12s %12s\n", "code", "24K in L1", "24K in L2", "24K of 256M",
	       "256 MB");
	for (size_t i = 0; i < N_IMPLS; i++)
		if (gbs[i][0] > 0)
			printf("%-11s %12.2f %12.2f %12.2f %12.2f\n", impls[i], gbs[i][0], gbs[i][1],
			       gbs[i][2], gbs[i][3]);
		else
			printf("%-11s (not on this CPU)\n", impls[i]);
	free(buf);
	return 0;
}
