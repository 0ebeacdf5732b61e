/*
 * progress.h - the progress line long-running commands show on a terminal.
 *
 * One line on standard error, rewritten in place at most every `every`
 * seconds, only when standard error is a terminal and the user did not ask
 * for quiet (-q); a command that finishes quickly never shows it.  Each
 * command says what it counts; this keeps the when and the where.
 */
#ifndef EQ_PROGRESS_H
#define EQ_PROGRESS_H

#include <stdint.h>

struct eq_progress {
	int enabled;       /* a terminal and not -q */
	int shown;         /* something is on the line */
	double every;      /* seconds between updates */
	double start, last;
};

void eq_progress_start(struct eq_progress *p, int quiet, double every);
/* Seconds since eq_progress_start(). */
double eq_progress_elapsed(const struct eq_progress *p);
/* 1 when enabled and an update is due (and marks it done), else 0. */
int eq_progress_due(struct eq_progress *p);
/* Rewrites the line with the text. */
void eq_progress_show(struct eq_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Ends the line: keeps it (keep = 1, adds a newline) or erases it. */
void eq_progress_end(struct eq_progress *p, int keep);

/* For commands that walk a recording's samples (report, compare, export):
 * "eqprof CMD: 41.9M of 100.0M samples (24.1M/s, 1.7 s)" when due, and the
 * final count once done == total if anything was shown. */
void eq_progress_samples(struct eq_progress *p, const char *cmd, uint64_t done,
			 uint64_t total);

#endif
