/*
 * chunks.h - a recording's chunks found by walking their lengths, apart
 * from the reader, and a chunk's CRC made right after an edit, for the
 * cmocka tests of test/format that damage recordings in place.
 */
#ifndef EQ_TEST_CHUNKS_H
#define EQ_TEST_CHUNKS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "file/crc32c.h"

/* The byte offsets of buf's chunks of type (4 letters, "CHNS"), or of
 * every chunk when type is NULL, into off (at most max): how many. */
static inline size_t eq_test_chunks(const unsigned char *buf, size_t len, const char *type,
				    size_t *off, size_t max)
{
	size_t n = 0, at = 16;

	while (at + 16 <= len && n < max) {
		uint64_t l;

		memcpy(&l, buf + at + 8, 8);
		if (!type || !memcmp(buf + at, type, 4))
			off[n++] = at;
		at += 16 + (size_t)l + 4;
		at += (8 - at % 8) % 8;
	}
	return n;
}

/* The CRC of the chunk at byte off of buf made right for its bytes. */
static inline void eq_test_crc_fix(unsigned char *buf, size_t off)
{
	uint64_t len;
	uint32_t crc;

	memcpy(&len, buf + off + 8, 8);
	crc = eq_crc32c(eq_crc32c(0, buf + off, 16), buf + off + 16, (size_t)len);
	memcpy(buf + off + 16 + len, &crc, 4);
}

#endif
