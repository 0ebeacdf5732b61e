/*
 * client.c - requests, replies and records over a board link.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"

#define REPLY_TIMEOUT_MS 300  /* CAL_WRITE programs 24 EEPROM bytes: ~80 ms */
#define TRIES 3
#define TIME_BITS 40

void board_client_init(struct board_client *c, struct board_link *l)
{
	memset(c, 0, sizeof(*c));
	c->link = l;
	c->trace = getenv("EQPROF_BOARD_TRACE") != NULL;
	fw_deframer_init(&c->rx);
}

void board_client_free(struct board_client *c)
{
	free(c->recs);
	c->recs = NULL;
}

static int keep_record(struct board_client *c, const struct fw_record *r)
{
	struct fw_record *slot;
	uint64_t t = r->time;

	/* The board's clock wraps every 2^40 ticks (6.4 days at 2 MHz). */
	if (c->nrecs + c->taken > 0 && t + c->time_base < c->last_time)
		c->time_base += (uint64_t)1 << TIME_BITS;
	c->last_time = t + c->time_base;
	if (c->taken == c->nrecs)
		c->taken = c->nrecs = 0;
	if (c->nrecs == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct fw_record *p = realloc(c->recs, cap * sizeof(*p));

		if (!p)
			return -1;
		c->recs = p;
		c->cap = cap;
	}
	slot = &c->recs[c->nrecs++];
	*slot = *r;
	slot->time = c->last_time;
	return 0;
}

static void sort_message(struct board_client *c, const struct fw_msg *m, struct eq_error *err)
{
	if (c->trace)
		fprintf(stderr, "board: <- %s tag %u\n", fw_type_name(m->type), m->tag);
	switch (m->type) {
	case FW_MSG_RECORD:
		if (keep_record(c, &m->u.rec) < 0)
			eq_fail(err, "out of memory for board records");
		return;
	case FW_MSG_BOOT:
		c->boots++;
		return;
	}
	if (c->nreplies == sizeof(c->replies) / sizeof(c->replies[0])) {
		memmove(c->replies, c->replies + 1, (c->nreplies - 1) * sizeof(*m));
		c->nreplies--;
	}
	c->replies[c->nreplies++] = *m;
}

int board_poll(struct board_client *c, int timeout_ms, struct eq_error *err)
{
	uint8_t buf[512];
	int n, i;

	n = c->link->ops->read(c->link, buf, sizeof(buf), timeout_ms, err);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct fw_msg m;
		int r = fw_deframer_push(&c->rx, buf[i], &m);

		if (r < 0) {
			c->bad_frames++;
			if (c->trace)
				fprintf(stderr, "board: <- bad frame: %s\n", fw_err_name(r));
		}
		else if (r > 0)
			sort_message(c, &m, err);
	}
	return 0;
}

static int take_reply(struct board_client *c, uint8_t tag, struct fw_msg *reply)
{
	unsigned i;

	for (i = 0; i < c->nreplies; i++) {
		if (c->replies[i].tag != tag)
			continue;
		*reply = c->replies[i];
		memmove(c->replies + i, c->replies + i + 1, (c->nreplies - i - 1) * sizeof(*reply));
		c->nreplies--;
		return 1;
	}
	return 0;
}

static int send_msg(struct board_client *c, const struct fw_msg *m, struct eq_error *err)
{
	uint8_t frame[FW_FRAME_WIRE_MAX];
	size_t n = fw_frame_encode(m, frame, sizeof(frame));

	if (!n)
		return eq_fail(err, "cannot encode %s", fw_type_name(m->type));
	if (c->trace)
		fprintf(stderr, "board: -> %s tag %u\n", fw_type_name(m->type), m->tag);
	return c->link->ops->write(c->link, frame, n, err);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int board_request(struct board_client *c, struct fw_msg *req, struct fw_msg *reply,
		  struct eq_error *err)
{
	double start;
	int try;

	for (try = 0; try < TRIES; try++) {
		if (++c->tag == 0)
			c->tag = 1;
		req->tag = c->tag;
		if (send_msg(c, req, err) < 0)
			return -1;
		/* Real time: a reply trickling in wakes the poll once per byte. */
		for (start = now_ms(); now_ms() - start < REPLY_TIMEOUT_MS;) {
			if (board_poll(c, 10, err) < 0)
				return -1;
			if (!take_reply(c, req->tag, reply))
				continue;
			if (reply->type == FW_REP_ERR)
				return eq_fail(err, "%s: the board refused %s: %s", c->link->name,
					       fw_type_name(req->type), fw_err_name(reply->u.reply.code));
			return 0;
		}
	}
	return eq_fail(err, "%s: no reply to %s after %d tries (is the board's firmware "
		       "running? `eqprof board info` checks the link)", c->link->name,
		       fw_type_name(req->type), TRIES);
}

int board_simple(struct board_client *c, uint8_t type, uint32_t value, struct eq_error *err)
{
	struct fw_msg req, rep;

	fw_msg_request(&req, type, value);
	if (board_request(c, &req, &rep, err) < 0)
		return -1;
	if (rep.type != FW_REP_OK)
		return eq_fail(err, "%s: unexpected %s reply to %s", c->link->name,
			       fw_type_name(rep.type), fw_type_name(type));
	return 0;
}

int board_take_record(struct board_client *c, struct fw_record *r)
{
	if (c->taken == c->nrecs)
		return 0;
	*r = c->recs[c->taken++];
	return 1;
}
