// SPDX-License-Identifier: MIT
/*
 * eqcm_libc.c - the three C library functions the protocol codec and
 * struct copies may need, for applications that link no C library.  Weak:
 * an application's own (newlib's, picolibc's) take precedence.
 */
#include <stddef.h>

__weak void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

__weak void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

__weak size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}
