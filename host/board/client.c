/*
 * client.c - requests, replies and the event stream over a board link.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "cmd.h"
#include "counter.h"
#include "util/grow.h"

#define REPLY_TIMEOUT_MS 300  /* CAL_WRITE programs 24 EEPROM bytes: ~80 ms */
#define REPLY_TIMEOUT_MAX_MS 60000
#define TRIES 3
#define TIME_BITS 40

void board_client_init(struct board_client *c, struct board_link *l)
{
	const char *trace = getenv("EQPROF_BOARD_TRACE");
	const char *wait = getenv("EQPROF_BOARD_REPLY_MS");
	char *end;
	long ms;

	memset(c, 0, sizeof(*c));
	c->link = l;
	c->trace = trace && *trace && strcmp(trace, "0");
	c->trace_f = stderr;
	/* EQPROF_BOARD_TRACE=PATH: into a file, buffered (stderr costs a write
	 * per line, too slow for a record stream at full rate) */
	if (c->trace && strchr(trace, '/')) {
		c->trace_f = fopen(trace, "a");
		if (!c->trace_f) {
			eq_error_msg("EQPROF_BOARD_TRACE=%s: %s; tracing to stderr",
				trace, strerror(errno));
			c->trace_f = stderr;
		}
	}
	/* A slower link (a simulated board on a busy machine, a long USB
	 * chain) may need longer than a real board's 300 ms per try. */
	c->reply_ms = REPLY_TIMEOUT_MS;
	if (wait && *wait) {
		ms = strtol(wait, &end, 10);
		if (*end || ms < 10 || ms > REPLY_TIMEOUT_MAX_MS)
			eq_error_msg("EQPROF_BOARD_REPLY_MS='%s' is not 10 to %d "
				     "(milliseconds); waiting %d ms per try", wait,
				REPLY_TIMEOUT_MAX_MS, REPLY_TIMEOUT_MS);
		else
			c->reply_ms = (int)ms;
	}
	fw_deframer_init(&c->rx);
}

void board_client_free(struct board_client *c)
{
	free(c->evs);
	c->evs = NULL;
	if (c->trace_f && c->trace_f != stderr)
		fclose(c->trace_f);
	c->trace_f = NULL;
}

void board_client_relink(struct board_client *c, struct board_link *l)
{
	c->link = l;
	c->nreplies = 0;
	fw_deframer_init(&c->rx);
}

double board_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int keep_event(struct board_client *c, const struct board_event *ev)
{
	if (c->taken == c->nevs)
		c->taken = c->nevs = 0;
	if (EQ_GROW(c->evs, c->cap, c->nevs + 1, 1024) < 0)
		return -1;
	c->evs[c->nevs++] = *ev;
	return 0;
}

static int sort_message(struct board_client *c, const struct fw_msg *m, struct eq_error *err)
{
	struct board_event ev;

	if (c->trace) {
		if (m->type == FW_REP_ERR)
			fprintf(c->trace_f, "board: <- ERR tag %u: %s of %s (detail %u)\n", m->tag,
				fw_err_name(m->u.reply.code), fw_type_name(m->u.reply.req),
				m->u.reply.detail);
		else if (m->type == FW_MSG_RECORD) /* when it came: bench/board's latency */
			fprintf(c->trace_f, "board: <- RECORD seq %u at %.6f\n", m->u.rec.seq, board_now());
		else
			fprintf(c->trace_f, "board: <- %s tag %u\n", fw_type_name(m->type), m->tag);
	}
	memset(&ev, 0, sizeof(ev));
	switch (m->type) {
	case FW_MSG_RECORD:
		ev.type = BOARD_EV_RECORD;
		ev.rec = m->u.rec;
		break;
	case FW_MSG_BOOT:
		ev.type = BOARD_EV_BOOT;
		ev.cause = m->u.u8;
		c->boots++;
		break;
	default:
		if (c->nreplies == sizeof(c->replies) / sizeof(c->replies[0])) {
			memmove(c->replies, c->replies + 1, (c->nreplies - 1) * sizeof(*m));
			c->nreplies--;
		}
		c->replies[c->nreplies++] = *m;
		return 0;
	}
	if (keep_event(c, &ev) < 0)
		return eq_fail(err, "out of memory for board records");
	return 0;
}

int board_feed(struct board_client *c, const uint8_t *buf, size_t n, struct eq_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct fw_msg m;
		int r = fw_deframer_push(&c->rx, buf[i], &m);

		if (r < 0) {
			c->bad_frames++;
			if (c->trace)
				fprintf(c->trace_f, "board: <- bad frame: %s\n", fw_err_name(r));
		} else if (r > 0 && sort_message(c, &m, err) < 0) {
			return -1;
		}
	}
	return 0;
}

int board_poll(struct board_client *c, int timeout_ms, struct eq_error *err)
{
	uint8_t buf[512];
	int n = c->link->ops->read(c->link, buf, sizeof(buf), timeout_ms, err);

	if (n < 0)
		return -1;
	if (n > 0)
		c->last_rx = board_now();
	return board_feed(c, buf, (size_t)n, err);
}

/*
 * Whether rep can be the answer to a request of type req: tags alone are
 * not enough, since a reply the board sent late to another eqprof (whose
 * tags began where ours do) may still be on its way.
 */
static int answers(const struct fw_msg *rep, uint8_t req)
{
	switch (rep->type) {
	case FW_REP_OK:
	case FW_REP_ERR:
		return rep->u.reply.req == req;
	case FW_REP_INFO:
		return req == FW_REQ_INFO;
	case FW_REP_STATUS:
		return req == FW_REQ_STATUS;
	case FW_REP_CAL:
		return req == FW_REQ_CAL_READ;
	}
	return 0;
}

static int take_reply(struct board_client *c, uint8_t tag, uint8_t req, struct fw_msg *reply)
{
	unsigned i;

	for (i = 0; i < c->nreplies; i++) {
		if (c->replies[i].tag != tag || !answers(&c->replies[i], req))
			continue;
		*reply = c->replies[i];
		memmove(c->replies + i, c->replies + i + 1, (c->nreplies - i - 1) * sizeof(*reply));
		c->nreplies--;
		return 1;
	}
	return 0;
}

/* An error reply to a frame that failed its CRC, whose tag as received (the
 * reply's detail) is `tag`: our request arrived corrupt. */
static int take_corrupt_echo(struct board_client *c, uint8_t tag)
{
	unsigned i;

	for (i = 0; i < c->nreplies; i++) {
		const struct fw_msg *m = &c->replies[i];

		if (m->tag != 0 || m->type != FW_REP_ERR || m->u.reply.code != FW_ERR_CRC ||
		    m->u.reply.detail != tag)
			continue;
		memmove(c->replies + i, c->replies + i + 1, (c->nreplies - i - 1) * sizeof(*m));
		c->nreplies--;
		return 1;
	}
	return 0;
}

int board_reply(struct board_client *c, uint8_t tag, uint8_t req, struct fw_msg *reply)
{
	if (take_reply(c, tag, req, reply))
		return 1;
	return take_corrupt_echo(c, tag) ? -1 : 0;
}

/* Forgets what came for an earlier request with this tag: a reply that
 * arrived after its request was given up (sent again under a new tag) is
 * stale, and must not answer the request that reuses the tag 255 requests
 * later (board log's STATUS every 0.5 s took a two-minute-old STATUS for
 * "counters back at zero" after a stall under load). */
static void drop_tag(struct board_client *c, uint8_t tag)
{
	unsigned i = 0;

	while (i < c->nreplies) {
		const struct fw_msg *m = &c->replies[i];

		if (m->tag == tag || (m->tag == 0 && m->type == FW_REP_ERR &&
				      m->u.reply.code == FW_ERR_CRC && m->u.reply.detail == tag)) {
			memmove(c->replies + i, c->replies + i + 1, (c->nreplies - i - 1) * sizeof(*m));
			c->nreplies--;
		} else {
			i++;
		}
	}
}

int board_send(struct board_client *c, struct fw_msg *req, struct eq_error *err)
{
	uint8_t frame[1 + FW_FRAME_WIRE_MAX];
	size_t n;

	/* Tags run 1..255: 0 is the board's own (records, BOOT, errors). */
	if (++c->tag == 0)
		c->tag = 1;
	req->tag = c->tag;
	drop_tag(c, req->tag);
	/* A delimiter first: whatever half frame the board holds (line noise,
	 * a request cut off) ends there instead of swallowing this one. */
	frame[0] = 0;
	n = fw_frame_encode(req, frame + 1, sizeof(frame) - 1);
	if (!n)
		return eq_fail(err, "cannot encode %s", fw_type_name(req->type));
	n++;
	if (c->trace)
		fprintf(c->trace_f, "board: -> %s tag %u\n", fw_type_name(req->type), req->tag);
	return c->link->ops->write(c->link, frame, n, err);
}

int board_request(struct board_client *c, struct fw_msg *req, struct fw_msg *reply,
		  struct eq_error *err)
{
	double start;
	int try, got = 0;

	for (try = 0; try < TRIES; try++) {
		if (board_send(c, req, err) < 0)
			return c->link->gone ? eq_fail_prefix(err, "the board went away as eqprof sent "
							     "it %s", fw_type_name(req->type)) : -1;
		/* Real time: a reply trickling in wakes the poll once per byte. */
		for (start = board_now(); board_now() - start < c->reply_ms / 1e3;) {
			if (board_poll(c, 10, err) < 0)
				return c->link->gone ? eq_fail_prefix(err, "the board went away while "
								     "eqprof waited for its reply to %s",
								     fw_type_name(req->type)) : -1;
			got = board_reply(c, req->tag, req->type, reply);
			if (got)
				break;
		}
		if (got < 0) {
			if (c->trace)
				fprintf(c->trace_f, "board: %s tag %u arrived corrupt: sending it again\n",
					fw_type_name(req->type), req->tag);
			continue;
		}
		if (!got)
			continue;
		if (reply->type == FW_REP_ERR)
			return eq_fail(err, "%s: the board refused %s: %s", c->link->name,
				       fw_type_name(req->type), fw_err_name(reply->u.reply.code));
		return 0;
	}
	if (got < 0)
		return eq_fail(err, "%s: %s arrived corrupt at the board %d times (a noisy link? "
			       "check the USB cable)", c->link->name, fw_type_name(req->type), TRIES);
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

void board_restart_stream(struct board_client *c)
{
	c->have_seq = 0;
	c->have_time = 0;
	c->time_base = 0;
	c->last_time = 0;
}

void board_start_stream(struct board_client *c)
{
	board_restart_stream(c);
	c->next_seq = 0;
	c->have_seq = 1;
}

/* A record as it is taken: time unwrapped, seq gap counted and flagged. */
static void account_record(struct board_client *c, struct board_event *ev)
{
	struct fw_record *r = &ev->rec;
	uint64_t t = r->time;

	/* The board's clock wraps every 2^40 ticks (6.4 days at 2 MHz). */
	if (c->have_time && t + c->time_base < c->last_time)
		c->time_base += (uint64_t)1 << TIME_BITS;
	c->last_time = t + c->time_base;
	c->have_time = 1;
	r->time = c->last_time;
	if (c->have_seq && r->seq > c->next_seq) {
		ev->missing = r->seq - c->next_seq;
		r->flags |= FW_REC_F_DROPPED;
		c->missing += ev->missing;
	} else if (c->have_seq && r->seq < c->next_seq) {
		ev->restarted = 1;
	}
	c->next_seq = r->seq + 1;
	c->have_seq = 1;
	c->records++;
}

int board_next_event(struct board_client *c, struct board_event *ev)
{
	if (c->taken == c->nevs)
		return 0;
	*ev = c->evs[c->taken++];
	if (ev->type == BOARD_EV_RECORD)
		account_record(c, ev);
	else
		board_restart_stream(c); /* a new boot: seq and clock start again */
	return 1;
}

int board_take_record(struct board_client *c, struct fw_record *r)
{
	struct board_event ev;

	while (board_next_event(c, &ev)) {
		if (ev.type == BOARD_EV_RECORD) {
			*r = ev.rec;
			return 1;
		}
	}
	return 0;
}

int board_check_info(const struct board_client *c, const struct fw_info *in,
		     struct eq_error *err)
{
	const char *what = NULL;

	if (in->proto != FW_PROTO_VERSION)
		return eq_fail(err, "%s: the board speaks protocol %u, eqprof %u (update the firmware: "
			       "docs/firmware.md)", c->link->name, in->proto, FW_PROTO_VERSION);
	if (in->mcu_hz == 0)
		what = "MCU clock";
	else if (in->tick_hz == 0 || in->tick_hz > in->mcu_hz)
		what = "timestamp clock";
	else if (in->baud == 0)
		what = "baud rate";
	if (what)
		return eq_fail(err, "%s: INFO from the board gives a %s of %u Hz: not usable (firmware "
			       "\"%s\"; is this an eqprof board?)", c->link->name, what,
			       what[0] == 'M' ? in->mcu_hz : what[0] == 't' ? in->tick_hz : in->baud,
			       in->name);
	return 0;
}

int board_check_cal(const struct board_client *c, const struct fw_cal *cal,
		    struct eq_error *err)
{
	if (cal->e_min_pj == 0)
		return eq_fail(err, "%s: the board's calibration gives E_min = 0 J: energy would be "
			       "lost; set it with `eqprof board calibrate --e-min 46.12uJ`", c->link->name);
	if (cal->vb_nominal_uv < 1000)
		return eq_fail(err, "%s: the board's calibration gives a nominal battery voltage of %u uV "
			       "(below 1 mV); set it with `eqprof board calibrate --vb-nominal 4.07V`",
			       c->link->name, cal->vb_nominal_uv);
	if (cal->adc_uv_per_lsb_q8 == 0)
		return eq_fail(err, "%s: the board's calibration gives an ADC gain of 0: recalibrate with "
			       "`eqprof board calibrate --measured VOLTS`", c->link->name);
	return 0;
}

int board_check_status(const struct board_client *c, const struct fw_status *st,
		       struct eq_error *err)
{
	if (st->quantum_pulses < 1 || st->quantum_pulses > FW_QUANTUM_MAX)
		return eq_fail(err, "%s: STATUS from the board gives a quantum of %u pulses (1 to %lu "
			       "possible): not usable; reset the board or set it with `eqprof board "
			       "config --quantum N`", c->link->name, st->quantum_pulses,
			       (unsigned long)FW_QUANTUM_MAX);
	if (st->jitter_pct > FW_JITTER_MAX_PCT)
		return eq_fail(err, "%s: STATUS from the board gives a jitter of +-%u%% (at most %d%% "
			       "possible): not usable; set it with `eqprof board config --jitter PCT`",
			       c->link->name, st->jitter_pct, FW_JITTER_MAX_PCT);
	if (st->vcomp > 1)
		return eq_fail(err, "%s: STATUS from the board gives voltage compensation %u (0 or 1 "
			       "possible): not usable", c->link->name, st->vcomp);
	return 0;
}

const char *board_reset_cause(uint8_t mcusr)
{
	if (mcusr & 0x08)
		return "watchdog";
	if (mcusr & 0x04)
		return "brown-out";
	if (mcusr & 0x02)
		return "external reset";
	if (mcusr & 0x01)
		return "power-on";
	return "unknown cause";
}
