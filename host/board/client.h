/*
 * client.h - the board protocol (docs/protocol.md) over any transport:
 * requests with tags and retries, the record stream, 40-bit timestamps
 * unwrapped to 64 bits.  The codec is the firmware's own
 * (firmware/portable/proto.h).
 */
#ifndef BOARD_CLIENT_H
#define BOARD_CLIENT_H

#include <stddef.h>

#include "proto.h"
#include "transport.h"

struct board_client {
	struct board_link *link;
	struct fw_deframer rx;
	uint8_t tag;
	struct fw_msg replies[8];
	unsigned nreplies;
	struct fw_record *recs;   /* received, not yet taken */
	size_t nrecs, cap, taken;
	uint64_t time_base;       /* unwrapping of the 40-bit record time */
	uint64_t last_time;
	unsigned bad_frames;      /* frames from the board that failed to decode */
	unsigned boots;           /* BOOT messages seen (the board reset) */
	int trace;                /* $EQPROF_BOARD_TRACE: log every frame to stderr */
};

void board_client_init(struct board_client *c, struct board_link *l);
void board_client_free(struct board_client *c);
/* Reads what arrives within timeout_ms and sorts it; 0 or -1. */
int board_poll(struct board_client *c, int timeout_ms, struct eq_error *err);
/*
 * Sends req (tag chosen here) and waits for its reply, retrying twice on
 * silence.  A FW_REP_ERR reply fails with the board's reason in err.
 */
int board_request(struct board_client *c, struct fw_msg *req, struct fw_msg *reply,
		  struct eq_error *err);
/* Shorthand for requests with one integer argument; reply type checked. */
int board_simple(struct board_client *c, uint8_t type, uint32_t value, struct eq_error *err);
/* Oldest record not yet taken (time unwrapped to 64 bits); 1 if *r was filled. */
int board_take_record(struct board_client *c, struct fw_record *r);

#endif
