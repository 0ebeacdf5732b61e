/*
 * cmd.c - messages of the running command; see cmd.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cmd.h"

int eq_verbosity;
static const char *command;

void eq_set_command(const char *name)
{
	command = name;
}

const char *eq_command(void)
{
	return command;
}

static void say(const char *kind, const char *fmt, va_list ap)
{
	if (command)
		fprintf(stderr, "eqprof %s: %s", command, kind);
	else
		fprintf(stderr, "eqprof: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void eq_error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void eq_verror_msg(const char *fmt, va_list ap)
{
	say("", fmt, ap);
}

void eq_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

void eq_note(const char *fmt, ...)
{
	va_list ap;

	if (eq_verbosity < 0)
		return;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void eq_info(const char *fmt, ...)
{
	va_list ap;

	if (eq_verbosity < 1)
		return;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}
