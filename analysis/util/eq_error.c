/* eq_error.c - filling struct eq_error; see eq_error.h. */
#include "util/eq_error.h"

#include <stdio.h>
#include <string.h>

int eq_vfail(struct eq_error *err, const char *fmt, va_list ap)
{
	if (err)
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return -1;
}

int eq_fail(struct eq_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eq_vfail(err, fmt, ap);
	va_end(ap);
	return -1;
}

int eq_fail_prefix(struct eq_error *err, const char *fmt, ...)
{
	char prefix[512], old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* Truncation is acceptable: the message stays a readable prefix. */
	if (snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old) < 0)
		memcpy(err->msg, old, sizeof(old));
	return -1;
}
