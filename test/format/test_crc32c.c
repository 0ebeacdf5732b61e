/* test_crc32c.c - the chunk checksum: known values, and each x86-64
 * implementation the CPU has (carry-less folding on 512-bit registers;
 * on 256-bit registers beside crc32 streams; the crc32 instruction on
 * three streams) against the portable
 * table code at every alignment and length, every split, and on long
 * buffers.  The expected values come from the table code, which shares
 * nothing with the others but the polynomial. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file/crc32c.h"
#include "test/lib/xorshift.h"

static void known_values(void **state)
{
	static const unsigned char zeros[32];
	static const unsigned char ones[32] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};

	(void)state;
	/* The check value of the CRC catalogue, and RFC 3720's test patterns. */
	assert_int_equal(eq_crc32c(0, "123456789", 9), 0xe3069283);
	assert_int_equal(eq_crc32c_sw(0, "123456789", 9), 0xe3069283);
	assert_int_equal(eq_crc32c(0, zeros, 32), 0x8a9136aa);
	assert_int_equal(eq_crc32c(0, ones, 32), 0x62a8ab43);
	assert_int_equal(eq_crc32c(0, "", 0), 0);
}

static void hardware_matches_portable(void **state)
{
	unsigned char *buf = malloc(4096 + 8);
	size_t i, off, len;

	(void)state;
	srand(7);
	for (i = 0; i < 4096 + 8; i++)
		buf[i] = (unsigned char)rand();
	for (off = 0; off < 8; off++)
		for (len = 0; len < 4096; len += len < 64 ? 1 : 61)
			assert_int_equal(eq_crc32c(0, buf + off, len), eq_crc32c_sw(0, buf + off, len));
	free(buf);
}

/* The hardware code runs three streams over blocks of 3 x 256 and
 * 3 x 8192 bytes and joins them: every length around those blocks. */
static void three_streams_match_portable(void **state)
{
	static const size_t lens[] = { 767, 768, 769, 775, 776, 1536, 1543, 24575, 24576,
				       24577, 24583, 25344, 25351, 49152, 49919, 100003,
				       131080, 1 << 20 };
	size_t max = (1 << 20) + 8, i, off;
	unsigned char *buf = malloc(max);

	(void)state;
	srand(11);
	for (i = 0; i < max; i++)
		buf[i] = (unsigned char)rand();
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (off = 0; off < 8; off++) {
			uint32_t sw = eq_crc32c_sw(0, buf + off, lens[i]);

			assert_int_equal(eq_crc32c(0, buf + off, lens[i]), sw);
			/* and from a running CRC */
			assert_int_equal(eq_crc32c(eq_crc32c(0, buf, off), buf + off, lens[i]),
					 eq_crc32c_sw(0, buf, off + lens[i]));
		}
	free(buf);
}

static void composes_like_zlib(void **state)
{
	unsigned char buf[1000];
	size_t i, cut;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 31 + 7);
	for (cut = 0; cut <= sizeof(buf); cut += 37)
		assert_int_equal(eq_crc32c(eq_crc32c(0, buf, cut), buf + cut, sizeof(buf) - cut),
				 eq_crc32c(0, buf, sizeof(buf)));
}

/* The implementation a test checks, its state (main() lists only those
 * the CPU has). */
static const char *use(void **state)
{
	const char *name = *state;

	if (eq_crc32c_use(name) < 0)
		fail_msg("this CPU has no %s", name);
	return name;
}

static unsigned char *random_bytes(size_t n, unsigned seed)
{
	unsigned char *buf = malloc(n);
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;

	assert_non_null(buf);
	for (size_t i = 0; i < n; i++) {
		eq_xorshift64(&x);
		buf[i] = (unsigned char)(x >> 24);
	}
	return buf;
}

/* Every length 0..4096 at every alignment 0..63: the folding code takes
 * 128 bytes a step and hands the rest, and anything under 256 bytes, to
 * the crc32 instruction (three streams from 768 bytes), so this crosses
 * every boundary below the 24 KiB blocks of the fused loop.  The table's
 * value of each prefix is made from the previous one, a byte more. */
static void every_length_and_alignment(void **state)
{
	enum { MAX = 4096, ALIGN = 64 };
	unsigned char *buf = random_bytes(MAX + ALIGN, 3);
	const char *name = use(state);

	for (size_t off = 0; off < ALIGN; off++) {
		uint32_t sw = 0;

		for (size_t len = 0; len <= MAX; len++) {
			if (len)
				sw = eq_crc32c_sw(sw, buf + off + len - 1, 1);
			if (eq_crc32c(0, buf + off, len) != sw)
				fail_msg("%s: length %zu at offset %zu: %08x, the table says %08x",
					 name, len, off, eq_crc32c(0, buf + off, len), sw);
		}
	}
	free(buf);
}

/* crc(crc(0, a), b) == crc(0, ab) at every cut of buffers around the
 * folding sizes, and the running CRC enters the folding right. */
static void every_split(void **state)
{
	static const size_t lens[] = { 255, 256, 257, 383, 384, 1000, 1024, 2047 };
	unsigned char *buf = random_bytes(4096, 5);
	const char *name = use(state);

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint32_t whole = eq_crc32c_sw(0, buf + i, lens[i]);

		for (size_t cut = 0; cut <= lens[i]; cut++) {
			uint32_t a = eq_crc32c(0, buf + i, cut);

			if (eq_crc32c(a, buf + i + cut, lens[i] - cut) != whole)
				fail_msg("%s: %zu bytes cut at %zu", name, lens[i], cut);
		}
	}
	free(buf);
}

/* Cuts across the fused blocks of 24 KiB: in the middle of the folded
 * part, of each crc32 stream, and around the block's end. */
static void long_splits(void **state)
{
	enum { LEN = 2 * 24576 + 333 };
	unsigned char *buf = random_bytes(LEN, 9);
	const char *name = use(state);
	uint32_t whole = eq_crc32c_sw(0, buf, LEN);

	for (size_t cut = 0; cut <= LEN; cut += cut < 256 || LEN - cut < 256 ? 1 : 97) {
		uint32_t a = eq_crc32c(0, buf, cut);

		if (eq_crc32c(a, buf + cut, LEN - cut) != whole)
			fail_msg("%s: %d bytes cut at %zu", name, LEN, cut);
	}
	free(buf);
}

/* Long buffers: the sub-blocks report feeds (3 x 8192 bytes), lengths
 * around them that are no multiple of 16, 32 or 64, and a few MiB, at
 * several alignments and from a running CRC. */
static void long_buffers(void **state)
{
	static const size_t lens[] = { 24576, 24577, 24591, 24607, 24639, 24703, 49152, 49153,
				       100003, 131080, 262143, (4 << 20) + 77 };
	size_t max = (4 << 20) + 77 + 64;
	unsigned char *buf = random_bytes(max, 7);
	const char *name = use(state);

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t off = 0; off < 64; off += 13) {
			uint32_t sw = eq_crc32c_sw(0, buf + off, lens[i]);
			uint32_t head = eq_crc32c(0, buf, off);

			if (eq_crc32c(0, buf + off, lens[i]) != sw)
				fail_msg("%s: %zu bytes at offset %zu", name, lens[i], off);
			assert_int_equal(eq_crc32c(head, buf + off, lens[i]),
					 eq_crc32c_sw(0, buf, off + lens[i]));
		}
	free(buf);
}

/* What eq_crc32c chose before any test picked one, and this program. */
static const char *initial;
static char self[4096];

/* EQPROF_CRC32C, read once, forces an implementation: this program run
 * again with it set (--impl prints what it chose at start). */
static void environment_picks(void **state)
{
#if defined(__x86_64__)
	const char *want = "table";   /* never the default there */
#else
	const char *want = initial;
#endif
	char cmd[4300], got[64] = "";
	FILE *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "EQPROF_CRC32C=%s '%s' --impl", want, self);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(got, sizeof(got), p))
		got[0] = 0;
	assert_int_equal(pclose(p), 0);
	got[strcspn(got, "\n")] = 0;
	assert_string_equal(got, want);
}

static void names(void **state)
{
	(void)state;
	assert_int_equal(eq_crc32c_use("no such code"), -1);
#if defined(__x86_64__)
	assert_int_equal(eq_crc32c_use("table"), 0);
	assert_string_equal(eq_crc32c_impl(), "table");
#else
	/* one implementation elsewhere: only itself to pick */
	assert_int_equal(eq_crc32c_use(eq_crc32c_impl()), 0);
#endif
}

#define ONE(name, test) { name ": " #test, test, NULL, NULL, (void *)(name) }
#define EACH_IMPL(name)                                  \
	ONE(name, every_length_and_alignment), ONE(name, every_split), \
	ONE(name, long_splits), ONE(name, long_buffers)

#if defined(__x86_64__)
static const struct CMUnitTest avx512_tests[] = { EACH_IMPL("avx512") };
static const struct CMUnitTest vpclmulqdq_tests[] = { EACH_IMPL("vpclmulqdq") };
static const struct CMUnitTest sse42_tests[] = { EACH_IMPL("sse4.2") };
#endif

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		const struct CMUnitTest *tests;
		size_t n;
	} impls[] = {
#if defined(__x86_64__)
		{ "avx512", avx512_tests, sizeof(avx512_tests) / sizeof(avx512_tests[0]) },
		{ "vpclmulqdq", vpclmulqdq_tests, sizeof(vpclmulqdq_tests) / sizeof(vpclmulqdq_tests[0]) },
		{ "sse4.2", sse42_tests, sizeof(sse42_tests) / sizeof(sse42_tests[0]) },
#endif
		{ NULL, NULL, 0 }
	};
	struct CMUnitTest tests[32] = {
		cmocka_unit_test(known_values),
		cmocka_unit_test(hardware_matches_portable),
		cmocka_unit_test(three_streams_match_portable),
		cmocka_unit_test(composes_like_zlib),
		cmocka_unit_test(environment_picks),
		cmocka_unit_test(names),
	};
	size_t n = 6, i;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	initial = eq_crc32c_impl();
	if (argc == 2 && !strcmp(argv[1], "--impl")) {
		puts(initial);
		return 0;
	}
	if (len <= 0)
		return 1;
	self[len] = 0;
	/* each implementation this CPU has, against the table code */
	for (i = 0; impls[i].name; i++) {
		if (eq_crc32c_use(impls[i].name) < 0) {
			printf("# this CPU has no %s: its tests are not run\n", impls[i].name);
			continue;
		}
		memcpy(tests + n, impls[i].tests, impls[i].n * sizeof(*tests));
		n += impls[i].n;
	}
	eq_crc32c_use(initial);
	return _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
}
