/*
 * test_board_client.c - the board client's reply matching (host/board/client.c):
 * a reply that arrives after its request was given up never answers the
 * request that reuses its tag 255 requests later.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "client.h"

static int sink_write(struct board_link *l, const uint8_t *buf, size_t n, struct eq_error *err)
{
	(void)l;
	(void)buf;
	(void)err;
	return (int)n;
}

static int sink_read(struct board_link *l, uint8_t *buf, size_t n, int timeout_ms,
		     struct eq_error *err)
{
	(void)l;
	(void)buf;
	(void)n;
	(void)timeout_ms;
	(void)err;
	return 0;
}

static void sink_close(struct board_link *l)
{
	(void)l;
}

static const struct board_link_ops sink_ops = { sink_read, sink_write, sink_close };

/* The board's STATUS reply to tag, counting quanta, as bytes on the wire. */
static void feed_status(struct board_client *c, uint8_t tag, uint32_t quanta)
{
	struct fw_msg m;
	uint8_t frame[FW_FRAME_WIRE_MAX];
	struct eq_error err;
	size_t n;

	memset(&m, 0, sizeof(m));
	m.type = FW_REP_STATUS;
	m.tag = tag;
	m.u.status.running = 1;
	m.u.status.quanta = quanta;
	n = fw_frame_encode(&m, frame, sizeof(frame));   /* delimiter included */
	assert_true(n > 0);
	assert_int_equal(board_feed(c, frame, n, &err), 0);
}

static void stale_reply_is_not_taken_for_a_reused_tag(void **state)
{
	struct board_link link = { &sink_ops, "test", 0 };
	struct board_client c;
	struct fw_msg req, rep;
	struct eq_error err;
	uint8_t first;
	int i;

	(void)state;
	board_client_init(&c, &link);
	fw_msg_request(&req, FW_REQ_STATUS, 0);
	assert_true(board_send(&c, &req, &err) >= 0);
	first = req.tag;
	/* no reply in time: sent again under a new tag, which is answered */
	assert_true(board_send(&c, &req, &err) >= 0);
	feed_status(&c, req.tag, 100);
	assert_int_equal(board_reply(&c, req.tag, FW_REQ_STATUS, &rep), 1);
	assert_int_equal(rep.u.status.quanta, 100);
	/* the first request's reply comes late, and nobody takes it */
	feed_status(&c, first, 99);
	/* 253 requests later the tag comes round again (tags run 1..255) */
	for (i = 0; i < 253; i++) {
		assert_true(board_send(&c, &req, &err) >= 0);
		feed_status(&c, req.tag, 101 + (uint32_t)i);
		assert_int_equal(board_reply(&c, req.tag, FW_REQ_STATUS, &rep), 1);
	}
	assert_true(board_send(&c, &req, &err) >= 0);
	assert_int_equal(req.tag, first);
	/* not answered yet: the stale reply is not this request's */
	assert_int_equal(board_reply(&c, req.tag, FW_REQ_STATUS, &rep), 0);
	feed_status(&c, req.tag, 400);
	assert_int_equal(board_reply(&c, req.tag, FW_REQ_STATUS, &rep), 1);
	assert_int_equal(rep.u.status.quanta, 400);
	board_client_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stale_reply_is_not_taken_for_a_reused_tag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
