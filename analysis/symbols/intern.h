/*
 * intern.h - string interning: equal strings become the same pointer, so
 * aggregation can compare and hash names by address.  Strings live until
 * eq_intern_free().
 */
#ifndef EQ_INTERN_H
#define EQ_INTERN_H

#include <stddef.h>

struct eq_intern;

struct eq_intern *eq_intern_new(void);
void eq_intern_free(struct eq_intern *t);
/* The one copy of s (len bytes, need not be NUL-terminated); NULL if out of memory. */
const char *eq_intern_n(struct eq_intern *t, const char *s, size_t len);
const char *eq_intern(struct eq_intern *t, const char *s);
/* A copy of s (len bytes) kept as long as t, but not interned: neither
 * found by eq_intern nor the same pointer as an equal string.  For names
 * made unique by a key of their own (rows by line), where a hash of each
 * would cost more than the name.  NULL if out of memory. */
const char *eq_intern_copy(struct eq_intern *t, const char *s, size_t len);
/* printf into the table. */
const char *eq_internf(struct eq_intern *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
