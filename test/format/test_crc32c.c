/* test_crc32c.c - the chunk checksum: known values, hardware against the
 * portable code at every alignment and length (three streams on long
 * buffers), and composition. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "file/crc32c.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_values),
		cmocka_unit_test(hardware_matches_portable),
		cmocka_unit_test(three_streams_match_portable),
		cmocka_unit_test(composes_like_zlib),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
