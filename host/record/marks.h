/*
 * marks.h - markers from the program being recorded (issue 28 item 12).
 *
 * `eqprof record -- CMD` gives CMD a datagram socket in EQPROF_MARKER_FD:
 * every write to it is one marker, its text the bytes written (a trailing
 * newline dropped), at the moment the kernel queued it (SO_TIMESTAMPNS,
 * brought to the samples' CLOCK_MONOTONIC).  A write that begins "@NS "
 * gives its own time: NS nanoseconds of CLOCK_MONOTONIC, taken by the
 * program.  No privilege is needed: the socket is the command's alone.
 *
 *   echo phase-1 >&$EQPROF_MARKER_FD          # a shell script
 *   dprintf(fd, "phase-1")                    # C, fd = atoi(getenv(...))
 *
 * A marker names the stretch from it to the next one: `eqprof report
 * --region NAME`, `power --markers`, and the Chrome trace's instant events.
 */
#ifndef EQ_RECORD_MARKS_H
#define EQ_RECORD_MARKS_H

#include <stdint.h>

#include "record/recorder.h"
#include "util/eq_error.h"

#define EQ_MARKER_ENV "EQPROF_MARKER_FD"

struct record_marks {
	int rd, wr;                /* the recorder's end; the command's (-1 once given) */
	uint64_t n;                /* markers written */
	uint64_t truncated;        /* longer than a marker may be */
};

/* The socket pair; EQPROF_MARKER_FD set in the environment the command
 * inherits (record_marks_given() unsets it and closes our copy). */
int record_marks_open(struct record_marks *m, struct eq_error *err);
void record_marks_given(struct record_marks *m);
/* Every marker queued so far into rec. */
int record_marks_drain(struct record_marks *m, struct recorder *rec, struct eq_error *err);
void record_marks_close(struct record_marks *m);

#endif
