/*
 * tap.h - TAP output for test programs that are not cmocka suites (the
 * simavr harnesses): "ok N - what" / "not ok N - what", then the plan.
 * One test program includes it once; the state is its own.
 */
#ifndef EQ_TEST_TAP_H
#define EQ_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failures;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	tap_failures += !cond;
}

/* Prints the plan; the program's exit status: 0 when every check passed. */
static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}

#endif
