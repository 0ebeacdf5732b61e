/*
 * log.h - `eqprof board log`: the board's record stream into a recording
 * that survives whatever happens to the link.
 *
 * The file is written as the records arrive (the writer's recording mode:
 * OUT.tmp.PID until the end, every chunk pushed to the kernel at once,
 * records at least four times a second), so a pulled cable, a stalled or
 * dead board, SIGTERM or SIGKILL leave everything up to the last chunk
 * readable.  Every loss is counted where it shows and written down: seq
 * gaps (the record after one is flagged DROPPED; LOST chunks as they are
 * found), frames that did not decode, records the board itself dropped and
 * LATE quanta with no record (its STATUS, asked about twice a second).  A
 * board reset (BOOT message, counters back at zero, settings back at their
 * defaults) ends a segment; the log then configures the board again and
 * goes on as a new segment, or stops (on_reset_stop).  Silence longer than
 * the stall timeout is warned about as it happens and marked in the file.
 * A board unplugged from USB ends the log (t->unplugged), or with
 * o->wait is waited for: back with its count going on (its power stayed:
 * the records sent meanwhile are a counted seq gap in the same segment),
 * or restarted (its power went with the cable: a new segment, the time it
 * was away marked).  docs/firmware.md ("Logging", "When the cable is
 * pulled") and docs/format.md (BINF, BEND) say more.
 */
#ifndef BOARD_LOG_H
#define BOARD_LOG_H

#include <signal.h>
#include <stdint.h>

#include "client.h"

struct board_log_opts {
	const char *out;
	double seconds;           /* stop after this long; 0 = no limit */
	uint64_t count;           /* stop after this many records; 0 = no limit */
	uint32_t seed;            /* START's PRNG seed; 0 = the board's own */
	double stall_timeout;     /* seconds of silence that make a stall */
	int on_reset_stop;        /* 1: a board reset ends the log; 0: go on as a new segment */
	int quiet;                /* no progress line and no closing summary */
	int wait;                 /* the board unplugged: wait for it and go on */
	unsigned baud;            /* the link's, to open it again after an unplug */
	const char *command;      /* for the header */
	/* Set by the caller's signal handlers: 1 stop cleanly (STOP, STATUS,
	 * commit); 2 or more stop now (commit what is in hand). */
	volatile sig_atomic_t *stop;
};

struct board_log_totals {
	uint64_t records, missing, dropped, bad_frames, quanta, late, late_unrecorded;
	uint64_t stalls;
	unsigned segments, resets;
	unsigned unplugs;         /* times the board went from USB */
	double away_s;            /* seconds it was away, all told */
	int unplugged;            /* the log ended with the board unplugged */
	int reason;               /* EQP_BOARD_END_* of the last segment */
	int committed;            /* the recording is in place under its name */
};

/*
 * Logs until the duration, the count, a stop request, a reset (with
 * on_reset_stop), an unplug (without o->wait) or a failure.  Whatever was
 * received is committed under o->out even when the log ends in a failure
 * (-1, err says what happened and t->committed says whether the file is
 * there).  After an unplug c->link is the link opened again (the caller
 * closes c->link, not the one it passed in).
 */
int board_log(struct board_client *c, const struct board_log_opts *o,
	      struct board_log_totals *t, struct eq_error *err);

#endif
