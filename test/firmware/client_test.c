/*
 * client_test.c - the host's board client (host/board/client.c): the
 * record stream's accounting (seq gaps flagged and counted, BOOT messages
 * in order, 40-bit time unwrapped, bad frames counted), the checks of what
 * the board reports, and the immediate resend when the board says a
 * request arrived corrupt (over a real pty with the tty transport, the
 * board played by a child process).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/board/client.h"

static size_t frame(uint8_t type, uint8_t tag, struct fw_msg *m, uint8_t *out)
{
	m->type = type;
	m->tag = tag;
	return fw_frame_encode(m, out, FW_FRAME_WIRE_MAX);
}

static size_t record(uint32_t seq, uint64_t time, uint8_t *out)
{
	struct fw_msg m;

	memset(&m, 0, sizeof(m));
	m.u.rec = (struct fw_record){ .seq = seq, .time = time, .pulses = 64, .vbat_uv = 4070000 };
	return frame(FW_MSG_RECORD, 0, &m, out);
}

static void feed(struct board_client *c, const uint8_t *p, size_t n)
{
	struct eq_error err;

	assert_int_equal(board_feed(c, p, n, &err), 0);
}

static struct board_link fake_name = { .name = "test" };

static void test_stream_accounting(void **state)
{
	struct board_client c;
	struct board_event ev;
	uint8_t f[FW_FRAME_WIRE_MAX], garbage[40];
	struct fw_msg boot;
	const uint64_t wrap = (uint64_t)1 << 40;
	static const uint32_t seqs[] = { 0, 1, 2, 5, 6 };
	size_t i;

	(void)state;
	board_client_init(&c, &fake_name);
	for (i = 0; i < 5; i++)
		feed(&c, f, record(seqs[i], wrap - 300 + 100 * i, f)); /* the clock wraps at 2^40 */
	memset(garbage, 0x55, sizeof(garbage));
	garbage[sizeof(garbage) - 1] = 0;
	feed(&c, garbage, sizeof(garbage)); /* one frame that does not decode */
	memset(&boot, 0, sizeof(boot));
	boot.u.u8 = 8;
	feed(&c, f, frame(FW_MSG_BOOT, 0, &boot, f));
	feed(&c, f, record(0, 50, f));
	feed(&c, f, record(1, 150, f));
	assert_int_equal(c.bad_frames, 1);
	assert_int_equal(c.boots, 1);

	for (i = 0; i < 5; i++) {
		assert_int_equal(board_next_event(&c, &ev), 1);
		assert_int_equal(ev.type, BOARD_EV_RECORD);
		assert_int_equal(ev.rec.seq, seqs[i]);
		assert_true(ev.rec.time == wrap - 300 + 100 * i); /* unwrapped past 2^40 */
		assert_int_equal(ev.missing, i == 3 ? 2 : 0);
		assert_int_equal(!!(ev.rec.flags & FW_REC_F_DROPPED), i == 3);
	}
	assert_int_equal(board_next_event(&c, &ev), 1);
	assert_int_equal(ev.type, BOARD_EV_BOOT);
	assert_int_equal(ev.cause, 8);
	assert_string_equal(board_reset_cause(ev.cause), "watchdog");
	/* After a boot seq and the clock start again: no gap, no wrap. */
	assert_int_equal(board_next_event(&c, &ev), 1);
	assert_int_equal(ev.rec.seq, 0);
	assert_true(ev.rec.time == 50);
	assert_int_equal(ev.missing, 0);
	assert_false(ev.restarted);
	assert_int_equal(board_next_event(&c, &ev), 1);
	assert_int_equal(board_next_event(&c, &ev), 0);
	assert_int_equal(c.missing, 2);
	assert_int_equal(c.records, 7);

	/* seq going back with no BOOT is said, not counted as a loss. */
	feed(&c, f, record(0, 300, f));
	assert_int_equal(board_next_event(&c, &ev), 1);
	assert_true(ev.restarted);
	assert_int_equal(c.missing, 2);
	board_client_free(&c);
}

/* After START the board numbers its records from 0: records lost before the
 * first one that arrives are counted (they were not, before
 * board_start_stream(): the first record set the count's origin). */
static void test_lost_after_start(void **state)
{
	struct board_client c;
	struct board_event ev;
	uint8_t f[FW_FRAME_WIRE_MAX];

	(void)state;
	board_client_init(&c, &fake_name);
	board_start_stream(&c);
	feed(&c, f, record(3, 1000, f)); /* seq 0, 1, 2 lost on the link */
	feed(&c, f, record(4, 1100, f));
	assert_int_equal(board_next_event(&c, &ev), 1);
	assert_int_equal(ev.missing, 3);
	assert_true(ev.rec.flags & FW_REC_F_DROPPED);
	assert_int_equal(board_next_event(&c, &ev), 1);
	assert_int_equal(ev.missing, 0);
	assert_int_equal(c.missing, 3);
	/* A stream restarted otherwise (a reset seen by STATUS) has no origin. */
	board_restart_stream(&c);
	feed(&c, f, record(7, 2000, f));
	assert_int_equal(board_next_event(&c, &ev), 1);
	assert_int_equal(ev.missing, 0);
	board_client_free(&c);
}

/* A reply is the answer to a request by its tag and its type: a reply the
 * board sent late to an earlier eqprof, with the same tag, is not taken for
 * it (board info printed another reply's fields as STATUS before). */
static void test_reply_type(void **state)
{
	struct board_client c;
	struct fw_msg m, rep;
	uint8_t f[FW_FRAME_WIRE_MAX];

	(void)state;
	board_client_init(&c, &fake_name);
	memset(&m, 0, sizeof(m));
	m.u.info.mcu_hz = 16000000;
	feed(&c, f, frame(FW_REP_INFO, 7, &m, f));   /* stale: INFO with tag 7 */
	assert_int_equal(board_reply(&c, 7, FW_REQ_STATUS, &rep), 0);
	memset(&m, 0, sizeof(m));
	m.u.reply.req = FW_REQ_STOP;
	feed(&c, f, frame(FW_REP_OK, 7, &m, f));     /* stale: OK to a STOP */
	assert_int_equal(board_reply(&c, 7, FW_REQ_START, &rep), 0);
	memset(&m, 0, sizeof(m));
	m.u.status.quantum_pulses = 64;
	feed(&c, f, frame(FW_REP_STATUS, 7, &m, f));
	assert_int_equal(board_reply(&c, 7, FW_REQ_STATUS, &rep), 1);
	assert_int_equal(rep.type, FW_REP_STATUS);
	assert_int_equal(rep.u.status.quantum_pulses, 64);
	assert_int_equal(board_reply(&c, 7, FW_REQ_INFO, &rep), 1); /* still there for INFO */
	board_client_free(&c);
}

static void test_checks(void **state)
{
	struct board_client c;
	struct fw_info in = { .proto = FW_PROTO_VERSION, .mcu_hz = 16000000, .tick_hz = 2000000,
			      .baud = 1000000, .name = "eqfw atmega328p" };
	struct fw_cal cal = { .adc_uv_per_lsb_q8 = 3909574, .vb_nominal_uv = 4070000,
			      .e_min_pj = 46120000 };
	struct eq_error err;

	(void)state;
	board_client_init(&c, &fake_name);
	assert_int_equal(board_check_info(&c, &in, &err), 0);
	assert_int_equal(board_check_cal(&c, &cal, &err), 0);
	in.tick_hz = 0;
	assert_int_equal(board_check_info(&c, &in, &err), -1);
	assert_non_null(strstr(err.msg, "timestamp clock of 0 Hz"));
	in.tick_hz = 32000000; /* faster than the MCU: impossible */
	assert_int_equal(board_check_info(&c, &in, &err), -1);
	in.tick_hz = 2000000;
	in.mcu_hz = 0;
	assert_int_equal(board_check_info(&c, &in, &err), -1);
	assert_non_null(strstr(err.msg, "MCU clock of 0 Hz"));
	in.mcu_hz = 16000000;
	in.proto = 9;
	assert_int_equal(board_check_info(&c, &in, &err), -1);
	assert_non_null(strstr(err.msg, "protocol 9"));
	cal.e_min_pj = 0;
	assert_int_equal(board_check_cal(&c, &cal, &err), -1);
	assert_non_null(strstr(err.msg, "E_min = 0 J"));
	cal.e_min_pj = 46120000;
	cal.vb_nominal_uv = 999;
	assert_int_equal(board_check_cal(&c, &cal, &err), -1);
	assert_non_null(strstr(err.msg, "nominal battery voltage of 999 uV"));
	board_client_free(&c);
}

/* The board's side of one exchange: reads a request frame from fd. */
static int read_request(int fd, struct fw_msg *m)
{
	struct fw_deframer d;
	uint8_t b;
	int r;

	fw_deframer_init(&d);
	while (read(fd, &b, 1) == 1)
		if ((r = fw_deframer_push(&d, b, m)) != 0)
			return r;
	return -1;
}

/* The board answers `corrupt` requests with "arrived corrupt" (ERR tag 0,
 * CRC mismatch, the tag as detail), then one with an INFO reply. */
static void play_board(int fd, int corrupt)
{
	struct fw_msg req, rep;
	uint8_t f[FW_FRAME_WIRE_MAX];
	size_t n;

	for (; corrupt > 0; corrupt--) {
		if (read_request(fd, &req) != 1)
			_exit(1);
		memset(&rep, 0, sizeof(rep));
		rep.u.reply.req = req.type;
		rep.u.reply.code = FW_ERR_CRC;
		rep.u.reply.detail = req.tag;
		n = frame(FW_REP_ERR, 0, &rep, f);
		if (write(fd, f, n) != (ssize_t)n)
			_exit(2);
	}
	if (read_request(fd, &req) != 1 || req.type != FW_REQ_INFO)
		_exit(0); /* the client gave up */
	memset(&rep, 0, sizeof(rep));
	rep.u.info = (struct fw_info){ .proto = FW_PROTO_VERSION, .mcu_hz = 1, .tick_hz = 1,
				       .baud = 1, .name = "test board" };
	n = frame(FW_REP_INFO, req.tag, &rep, f);
	_exit(write(fd, f, n) == (ssize_t)n ? 0 : 3);
}

/* One INFO request against a board that says it arrived corrupt `corrupt`
 * times; returns board_request()'s result. */
static int exchange(int corrupt, struct fw_msg *req, struct fw_msg *rep, struct eq_error *err)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY), status, rc;
	struct board_link *l;
	struct board_client c;
	pid_t pid;

	assert_true(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
	l = board_tty_open(ptsname(master), 1000000, err);
	assert_non_null(l);
	pid = fork();
	if (pid == 0) {
		int fd;

		/* Only the master: the pty must read as closed once the client closes. */
		for (fd = 3; fd < 256; fd++)
			if (fd != master)
				close(fd);
		play_board(master, corrupt);
	}
	board_client_init(&c, l);
	fw_msg_request(req, FW_REQ_INFO, 0);
	rc = board_request(&c, req, rep, err);
	board_client_free(&c);
	board_link_close(l);
	close(master);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return rc;
}

/* The board's echo of a corrupt request's tag makes the client resend at
 * once; three in a row fail with that reason (a client that ignored the
 * echo would wait out each try and report silence instead). */
static void test_corrupt_request_resent(void **state)
{
	struct fw_msg req, rep;
	struct eq_error err;

	(void)state;
	assert_int_equal(exchange(1, &req, &rep, &err), 0);
	assert_int_equal(rep.type, FW_REP_INFO);
	assert_string_equal(rep.u.info.name, "test board");
	assert_int_equal(req.tag, 2); /* the second try got the answer */
	assert_int_equal(exchange(3, &req, &rep, &err), -1);
	assert_non_null(strstr(err.msg, "INFO arrived corrupt at the board 3 times"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_accounting),
		cmocka_unit_test(test_lost_after_start),
		cmocka_unit_test(test_reply_type),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_corrupt_request_resent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
