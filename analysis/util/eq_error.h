/*
 * eq_error.h - how eqprof's libraries report failures.
 *
 * A function that can fail takes a struct eq_error * and returns -1 (or NULL)
 * after filling it with one line that says what failed, where (file, line,
 * field, chunk and byte offset, device) and, where it helps, what to do.
 * The caller decides whether and how to print it; libraries never exit.
 */
#ifndef EQ_ERROR_H
#define EQ_ERROR_H

#include <stdarg.h>

struct eq_error {
	char msg[1024];
};

/* Sets err->msg (err may be NULL); always returns -1 so "return eq_fail(...)" reads well. */
int eq_fail(struct eq_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int eq_vfail(struct eq_error *err, const char *fmt, va_list ap);

/* Prefixes context to an existing message: "reading foo.eqp: <old message>". */
int eq_fail_prefix(struct eq_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
