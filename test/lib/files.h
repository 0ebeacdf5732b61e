/*
 * files.h - whole files in and out of memory for the cmocka tests that
 * damage recordings a byte at a time (test/format).  Include after
 * <cmocka.h>: a file that cannot be read or written fails the test.
 */
#ifndef EQ_TEST_FILES_H
#define EQ_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of the file at path (free() them); their number into *len. */
static inline unsigned char *eq_test_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc(n > 0 ? (size_t)n : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* len bytes of buf written to path. */
static inline void eq_test_spit(const char *path, const unsigned char *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

#endif
