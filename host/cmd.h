/*
 * cmd.h - how a command talks to its user on stderr: every line starts
 * with the command's name ("eqprof report: ..."), as git's and perf's do,
 * and -q / -v (which every command takes) set how much is said.
 *
 *   eq_error_msg  a failure (the command then exits non-zero)
 *   eq_warn       "warning: ...": something is probably wrong, said even
 *                 under -q
 *   eq_note       something worth knowing when all went well; not under -q
 *   eq_info       details asked for with -v
 */
#ifndef EQ_CMD_H
#define EQ_CMD_H

#include <stdarg.h>

/* -1 after -q, 0 by default, 1 and more per -v. */
extern int eq_verbosity;

/* The command's name in messages ("report", "power"); main sets it. */
void eq_set_command(const char *name);
const char *eq_command(void);

void eq_error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* eq_error_msg for a caller's own variadic function */
void eq_verror_msg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void eq_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void eq_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void eq_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
