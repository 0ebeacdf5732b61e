/*
 * client.h - the board protocol (docs/protocol.md) over any transport:
 * requests with tags and retries, the record stream in order with the
 * board's BOOT messages, 40-bit timestamps unwrapped to 64 bits, and every
 * loss counted where it shows: frames that do not decode (bad_frames) and
 * seq gaps (the record after a gap carries FW_REC_F_DROPPED and says how
 * many records are missing before it).  The codec is the firmware's own
 * (firmware/portable/proto.h).
 */
#ifndef BOARD_CLIENT_H
#define BOARD_CLIENT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "proto.h"
#include "transport.h"

/* What the board sent that is not a reply, in the order it came. */
enum board_event_type {
	BOARD_EV_RECORD = 1,
	BOARD_EV_BOOT = 2,        /* the board reset: counting stopped, settings at defaults */
};

struct board_event {
	int type;
	struct fw_record rec;     /* RECORD: time unwrapped to 64 bits; FW_REC_F_DROPPED set
				     when records are missing before it */
	uint32_t missing;         /* RECORD: records missing just before this one (seq gap) */
	int restarted;            /* RECORD: seq went backwards with no BOOT seen */
	uint8_t cause;            /* BOOT: reset cause (MCUSR: 1 power-on, 2 external,
				     4 brown-out, 8 watchdog) */
};

struct board_client {
	struct board_link *link;
	struct fw_deframer rx;
	uint8_t tag;
	int reply_ms;             /* wait per try ($EQPROF_BOARD_REPLY_MS, default 300) */
	struct fw_msg replies[8];
	unsigned nreplies;
	struct board_event *evs;  /* received, not yet taken */
	size_t nevs, cap, taken;
	/* Stream state at the taking end (in order with BOOT messages). */
	uint64_t time_base;       /* unwrapping of the 40-bit record time */
	uint64_t last_time;
	int have_time;
	uint32_t next_seq;
	int have_seq;
	/* Counts since board_client_init(). */
	uint64_t bad_frames;      /* frames from the board that failed to decode */
	uint64_t records;         /* records taken */
	uint64_t missing;         /* records missing in seq gaps */
	unsigned boots;           /* BOOT messages received (the board reset) */
	double last_rx;           /* monotonic seconds when the last byte arrived; 0 = never */
	int trace;                /* $EQPROF_BOARD_TRACE: log every frame (to stderr, or to
				     the file it names when it has a '/') */
	FILE *trace_f;
};

void board_client_init(struct board_client *c, struct board_link *l);
void board_client_free(struct board_client *c);
/* The link opened again (the board back after an unplug): a half frame
 * and unclaimed replies from the old one are dropped, counts are kept. */
void board_client_relink(struct board_client *c, struct board_link *l);
/* Monotonic seconds (the clock last_rx is on). */
double board_now(void);
/* Reads what arrives within timeout_ms and sorts it; 0 or -1 (the link failed). */
int board_poll(struct board_client *c, int timeout_ms, struct eq_error *err);
/* Sorts bytes from the board as board_poll() does (the stream decoder, for
 * tests and fuzzing); 0 or -1 (out of memory). */
int board_feed(struct board_client *c, const uint8_t *buf, size_t n, struct eq_error *err);
/*
 * Sends req (tag chosen here) and waits for its reply, retrying twice on
 * silence, and at once when the board says the request arrived corrupt.  A
 * FW_REP_ERR reply fails with the board's reason in err.
 */
int board_request(struct board_client *c, struct fw_msg *req, struct fw_msg *reply,
		  struct eq_error *err);
/* Shorthand for requests with one integer argument; reply type checked. */
int board_simple(struct board_client *c, uint8_t type, uint32_t value, struct eq_error *err);
/* The same without waiting: sends req with a fresh tag (req->tag); 0 or -1. */
int board_send(struct board_client *c, struct fw_msg *req, struct eq_error *err);
/* 1 and *reply if the reply to the request of type req with tag came (a
 * reply of another type with that tag is not it); -1 if the board says the
 * request with that tag arrived corrupt (send it again); 0 if nothing yet. */
int board_reply(struct board_client *c, uint8_t tag, uint8_t req, struct fw_msg *reply);
/* Oldest event not yet taken; 1 if *ev was filled. */
int board_next_event(struct board_client *c, struct board_event *ev);
/* Oldest record not yet taken (BOOT messages skipped); 1 if *r was filled. */
int board_take_record(struct board_client *c, struct fw_record *r);
/* The record stream starts again (START, or a reset seen otherwise than by
 * a BOOT message): forget the seq and time of the last record. */
void board_restart_stream(struct board_client *c);
/* START was answered: the board numbers its records from 0, so records
 * missing before the first one that arrives are counted too. */
void board_start_stream(struct board_client *c);

/* Values from the board that would make a recording meaningless (a clock or
 * E_min of 0, a nominal voltage below 1 mV) refused, naming the field. */
int board_check_info(const struct board_client *c, const struct fw_info *in,
		     struct eq_error *err);
int board_check_cal(const struct board_client *c, const struct fw_cal *cal,
		    struct eq_error *err);
/* The settings of a STATUS: quantum 1..FW_QUANTUM_MAX pulses, jitter at
 * most FW_JITTER_MAX_PCT, voltage compensation 0 or 1. */
int board_check_status(const struct board_client *c, const struct fw_status *st,
		       struct eq_error *err);

/* "power-on", "external reset", "brown-out", "watchdog", or "unknown". */
const char *board_reset_cause(uint8_t mcusr);

#endif
