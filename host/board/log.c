/*
 * log.c - `eqprof board log` (see log.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "file/eqp.h"
#include "log.h"
#include "progress.h"
#include "usb.h"

#define WRITE_EVERY_S  0.25   /* records go to the file at least this often */
#define STATUS_EVERY_S 0.5    /* STATUS while logging (counters, resets, liveness) */
#define STATUS_RETRY_S 0.3    /* a STATUS unanswered this long is sent again */
#define DRAIN_QUIET_S  0.1    /* after STOP: records still queued on the board */
#define BUF_RECORDS    1024
#define REOPEN_EVERY_S 0.2    /* --wait: looking for the board that left */
#define REOPEN_SAY_S   2.0    /* back on USB but not to be opened this long: said */

/* One segment: from START to the end of the log or to a board reset. */
struct segment {
	struct eqp_board_info info;
	struct eqp_board_end end;
	struct fw_status st;      /* its last STATUS */
	int have_st;
	uint32_t last_seq;
	int have_seq;
	uint64_t late_flags;      /* records flagged LATE */
	uint64_t lost_written;    /* records missing already in a LOST chunk */
	uint64_t bad0;            /* the client's bad frames when it began */
	uint64_t last_time;       /* file time of the last record (board ticks + offset) */
	double last_time_host;    /* when that record was taken; else when the segment began */
};

struct logger {
	struct board_client *c;
	const struct board_log_opts *o;
	struct board_log_totals *t;
	struct eqp_writer *w;
	struct fw_info info;
	struct fw_cal cal;
	uint16_t width_ns;
	struct segment seg;
	struct eqp_board_rec buf[BUF_RECORDS];
	size_t nbuf;
	int status_out;           /* a STATUS is on its way */
	uint8_t status_tag;
	double status_sent, next_status;
	int stalled;
	double stall_from, alive_from;
	int open;                 /* a segment is open (its BINF written, no BEND yet) */
	int stopping;             /* the end was asked for: a reset now ends the log */
	char serial[64];          /* the board's USB serial number, to find it after an unplug */
	int via_tty;              /* it was opened through its tty (else libftdi1) */
	struct eq_progress line;
};

static double ticks_per_s(const struct logger *L)
{
	return L->info.tick_hz;
}

/* The file time (board ticks plus the segment's offset) of host time h. */
static uint64_t file_time_at(const struct logger *L, double h)
{
	double d = (h - L->seg.last_time_host) * ticks_per_s(L);

	return L->seg.last_time + (d > 0 ? (uint64_t)d : 0);
}

static void warn(struct logger *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Warnings go out whatever -q says: they are what the user must know. */
static void warn(struct logger *L, const char *fmt, ...)
{
	va_list ap;

	eq_progress_end(&L->line, 0);
	va_start(ap, fmt);
	eq_verror_msg(fmt, ap);
	va_end(ap);
}

static int write_records(struct logger *L, struct eq_error *err)
{
	struct segment *s = &L->seg;

	if (L->nbuf && eqp_add_board_records(L->w, L->buf, L->nbuf, err) < 0)
		return -1;
	L->nbuf = 0;
	if (s->end.missing > s->lost_written) {
		if (eqp_add_lost(L->w, s->info.segment, s->end.missing - s->lost_written, err) < 0)
			return -1;
		s->lost_written = s->end.missing;
	}
	return 0;
}

static int mark(struct logger *L, double host_t, const char *label, struct eq_error *err)
{
	if (write_records(L, err) < 0)
		return -1;
	return eqp_add_marker(L->w, file_time_at(L, host_t), label, err);
}

static int take_record(struct logger *L, const struct board_event *ev, struct eq_error *err)
{
	struct segment *s = &L->seg;
	struct eqp_board_rec *r;

	if (ev->restarted)
		warn(L, "record numbers restarted (seq %u after %u) with no reset seen: was the board "
		     "started again by someone else?", ev->rec.seq, s->last_seq);
	if (L->nbuf == BUF_RECORDS && write_records(L, err) < 0)
		return -1;
	r = &L->buf[L->nbuf++];
	*r = (struct eqp_board_rec){ .time = ev->rec.time + s->info.time_offset, .seq = ev->rec.seq,
				     .pulses = ev->rec.pulses, .vbat_uv = ev->rec.vbat_uv,
				     .flags = ev->rec.flags };
	s->end.records++;
	s->end.missing += ev->missing;
	s->late_flags += (ev->rec.flags & FW_REC_F_LATE) != 0;
	s->last_seq = ev->rec.seq;
	s->have_seq = 1;
	s->last_time = r->time;
	s->last_time_host = board_now();
	L->t->records++;
	return 0;
}

/* The counts of a segment that ends now, from its records and last STATUS. */
static int end_segment(struct logger *L, int reason, struct eq_error *err)
{
	struct segment *s = &L->seg;
	struct eqp_board_end *e = &s->end;
	struct board_log_totals *t = L->t;
	uint64_t sent = s->have_seq ? (uint64_t)s->last_seq + 1 : 0;

	e->segment = s->info.segment;
	e->reason = (uint32_t)reason;
	e->bad_frames = L->c->bad_frames - s->bad0;
	/* The record numbers prove the board counted at least `sent` quanta. */
	e->quanta = sent;
	if (s->have_st) {
		/* Quanta the board counted after the last record we got. */
		if (s->st.quanta > sent) {
			e->missing += s->st.quanta - sent;
			e->quanta = s->st.quanta;
		}
		e->dropped = s->st.dropped;
		e->late = s->st.late;
		e->late_unrecorded = s->st.late > s->late_flags ? s->st.late - s->late_flags : 0;
		e->board_rx_errors = s->st.rx_errors;
	}
	L->open = 0;
	if (write_records(L, err) < 0 || eqp_add_board_end(L->w, e, err) < 0)
		return -1;
	t->missing += e->missing;
	t->dropped += e->dropped;
	t->bad_frames += e->bad_frames;
	t->quanta += e->quanta;
	t->late += e->late;
	t->late_unrecorded += e->late_unrecorded;
	t->stalls += e->stalls;
	t->reason = reason;
	return 0;
}

static int begin_segment(struct logger *L, uint32_t number, uint8_t cause, uint64_t offset,
			 struct eq_error *err)
{
	struct segment *s = &L->seg;
	struct eqp_board_info info = s->info;

	memset(s, 0, sizeof(*s));
	s->info = info;
	s->info.segment = number;
	s->info.boot_cause = cause;
	s->info.time_offset = offset;
	s->bad0 = L->c->bad_frames;
	s->last_time = offset;
	s->last_time_host = L->alive_from = board_now();
	L->status_out = 0;
	L->next_status = L->alive_from + STATUS_EVERY_S;
	L->t->segments++;
	L->open = 1;
	return eqp_add_board_info(L->w, &s->info, err);
}

/* The board's settings as its STATUS gives them (what the segment ran with). */
static void settings_from(struct logger *L, const struct fw_status *st)
{
	L->seg.info.quantum_pulses = st->quantum_pulses;
	L->seg.info.jitter_pct = st->jitter_pct;
	L->seg.info.vcomp = st->vcomp;
	L->width_ns = st->width_ns;
}

/* Sets the board up as the log began and starts it counting. */
static int configure_and_start(struct logger *L, struct eq_error *err)
{
	const struct eqp_board_info *i = &L->seg.info;
	struct board_client *c = L->c;

	if (board_simple(c, FW_REQ_SET_QUANTUM, i->quantum_pulses, err) < 0 ||
	    board_simple(c, FW_REQ_SET_JITTER, i->jitter_pct, err) < 0 ||
	    board_simple(c, FW_REQ_SET_VCOMP, i->vcomp, err) < 0 ||
	    board_simple(c, FW_REQ_SET_WIDTH, L->width_ns, err) < 0 ||
	    board_simple(c, FW_REQ_START, L->o->seed, err) < 0)
		return -1;
	board_start_stream(c);
	return 0;
}

/*
 * The board reset (how: "a BOOT message", "its STATUS"): end the segment,
 * name the reset, and go on as a new segment unless told to stop.
 * 0 going on, 1 stopping, -1 failed.
 */
static int on_reset(struct logger *L, uint8_t cause, const char *how, struct eq_error *err)
{
	double now = board_now();
	uint64_t at = file_time_at(L, now);
	uint32_t next = L->seg.info.segment + 1;
	char label[128];

	L->t->resets++;
	if (end_segment(L, EQP_BOARD_END_RESET, err) < 0)
		return -1;
	int stop = L->o->on_reset_stop || L->stopping;

	snprintf(label, sizeof(label), "board reset (%s): %s", board_reset_cause(cause),
		 stop ? "log stopped" : "segment follows");
	if (eqp_add_marker(L->w, at, label, err) < 0)
		return -1;
	warn(L, "the board reset (%s, seen by %s) %.1f s into the log: counting stopped and its "
	     "settings went back to the defaults; segment %u ends with %llu records%s",
	     board_reset_cause(cause), how, now - L->line.start, L->seg.info.segment,
	     (unsigned long long)L->seg.end.records,
	     L->stopping ? "" : stop ? "; stopping (--on-reset stop)" :
	     "; configuring it again and going on as a new segment (--on-reset stop to stop instead)");
	if (stop)
		return 1;
	if (configure_and_start(L, err) < 0)
		return eq_fail_prefix(err, "setting the board up again after its reset");
	return begin_segment(L, next, cause, at, err);
}

/* A STATUS while counting: keep its counters; a reset shows in it too. */
static int check_status(struct logger *L, const struct fw_status *st, struct eq_error *err)
{
	struct segment *s = &L->seg;
	const char *what = NULL;

	if (!st->running)
		what = "its STATUS (not counting)";
	else if (s->have_st && st->quanta < s->st.quanta)
		what = "its STATUS (counters back at zero)";
	else if (st->quantum_pulses != s->info.quantum_pulses || st->jitter_pct != s->info.jitter_pct ||
		 st->vcomp != s->info.vcomp || st->width_ns != L->width_ns)
		what = "its STATUS (settings changed)";
	if (what)
		return on_reset(L, 0, what, err);
	s->st = *st;
	s->have_st = 1;
	return 0;
}

/* STATUS twice a second without waiting for it; 0, 1 (stop: a reset), -1. */
static int poll_status(struct logger *L, double now, struct eq_error *err)
{
	struct fw_msg req, rep;
	int r;

	if (!L->status_out && now < L->next_status)
		return 0;
	if (L->status_out) {
		r = board_reply(L->c, L->status_tag, FW_REQ_STATUS, &rep);
		if (r > 0) {
			L->status_out = 0;
			L->next_status = now + STATUS_EVERY_S;
			return rep.type == FW_REP_STATUS ? check_status(L, &rep.u.status, err) : 0;
		}
		if (r == 0 && now - L->status_sent < STATUS_RETRY_S)
			return 0;
	}
	fw_msg_request(&req, FW_REQ_STATUS, 0);
	if (board_send(L->c, &req, err) < 0)
		return -1;
	L->status_out = 1;
	L->status_tag = req.tag;
	L->status_sent = now;
	return 0;
}

/* Silence longer than the stall timeout: said at once, marked when it ends. */
static int watch_stall(struct logger *L, double now, int ending, struct eq_error *err)
{
	struct segment *s = &L->seg;
	double quiet_from = L->c->last_rx > L->alive_from ? L->c->last_rx : L->alive_from;
	double len;
	char label[64];

	if (!L->stalled) {
		if (now - quiet_from <= L->o->stall_timeout)
			return 0;
		L->stalled = 1;
		L->stall_from = quiet_from;
		warn(L, "no data from the board for %.1f s: the board or the link is stalled%s",
		     now - quiet_from, ending ? "" : " (still waiting; --stall-timeout sets when "
		     "this is said)");
	}
	if (!ending && L->c->last_rx <= L->stall_from)
		return 0;
	len = (ending ? now : L->c->last_rx) - L->stall_from;
	L->stalled = 0;
	s->end.stalls++;
	s->end.stall_s += len;
	snprintf(label, sizeof(label), "board silent %.1f s", len);
	if (!ending)
		warn(L, "the board answered again after %.1f s of silence", len);
	return mark(L, L->stall_from, label, err);
}

static int drain(struct logger *L, double quiet, int keep, struct eq_error *err);

/* ---- unplugged -------------------------------------------------------------- */

/* The board's USB serial number (from the port, or its tty's USB device),
 * to find it again after an unplug; "" when it is not a USB board. */
static void note_serial(struct logger *L)
{
	const char *name = L->c->link->name;
	struct board_usb b;
	struct eq_error e;

	L->via_tty = !strncmp(name, "tty:", 4);
	if (!strncmp(name, "ftdi:", 5) && strcmp(name + 5, "(first)"))
		snprintf(L->serial, sizeof(L->serial), "%s", name + 5);
	else if (L->via_tty && board_usb_find(NULL, name + 4, &b, &e) > 0)
		snprintf(L->serial, sizeof(L->serial), "%s", b.serial);
}

/* The board back on USB, opened as before (its tty may have a new name):
 * 1 (the client has the new link), 0 not yet (*why: what stands in the way). */
static int reopen(struct logger *L, struct eq_error *why)
{
	struct board_usb b;
	struct board_link *l;
	char spec[128];

	if (board_usb_find(L->serial, NULL, &b, why) <= 0)
		return 0;
	if (L->via_tty && !b.tty[0]) {
		eq_fail(why, "the board is back on USB, with no tty yet (ftdi_sio not bound)");
		return 0;
	}
	if (L->via_tty)
		snprintf(spec, sizeof(spec), "tty:%s", b.tty);
	else
		snprintf(spec, sizeof(spec), "ftdi:%s", L->serial);
	l = board_link_open(spec, L->o->baud, why);
	if (!l)
		return 0;
	board_client_relink(L->c, l);
	return 1;
}

/* Waits for the board to come back; 1 back, 0 the log was stopped meanwhile. */
static int wait_back(struct logger *L, double from)
{
	const struct board_log_opts *o = L->o;
	struct timespec nap = { 0, (long)(REOPEN_EVERY_S * 1e9) };
	struct eq_error why;
	int said = 0;

	why.msg[0] = 0;
	while (!*o->stop && !(o->seconds > 0 && board_now() - L->line.start >= o->seconds)) {
		if (reopen(L, &why))
			return 1;
		if (!said && why.msg[0] && board_now() - from > REOPEN_SAY_S) {
			warn(L, "still waiting: %s", why.msg);
			said = 1;
		}
		if (eq_progress_due(&L->line))
			eq_progress_show(&L->line, "eqprof board log: waiting for board %s to come back "
					 "(away %.0f s), %llu quanta so far", L->serial, board_now() - from,
					 (unsigned long long)L->t->records);
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* The board is back and counts as before: same segment, the records it sent
 * while away are a seq gap (counted as missing when the next one comes). */
static int went_on(struct logger *L, const struct fw_status *st, double away, struct eq_error *err)
{
	char label[96];

	warn(L, "the board is back after %.1f s on %s and kept counting (its power stayed on): "
	     "segment %u goes on; the records it sent while away are missing and counted", away,
	     L->c->link->name, L->seg.info.segment);
	L->seg.st = *st;
	L->seg.have_st = 1;
	L->alive_from = board_now();
	L->status_out = 0;
	L->next_status = L->alive_from + STATUS_EVERY_S;
	snprintf(label, sizeof(label), "board back after %.1f s: it kept counting", away);
	return mark(L, L->alive_from, label, err);
}

/* The board is back restarted (its power went with the cable): the segment
 * ends, the board is set up again, a new segment begins at the host's
 * estimate of the board time now. */
static int restarted(struct logger *L, const struct fw_status *st, double away,
		     struct eq_error *err)
{
	double now = board_now();
	uint64_t at = file_time_at(L, now);
	uint32_t next = L->seg.info.segment + 1;
	char label[128];

	warn(L, "the board is back after %.1f s on %s and had restarted (its power went with the "
	     "cable): segment %u ends with %llu records, nothing was counted while it was away; "
	     "setting it up again as segment %u", away, L->c->link->name, L->seg.info.segment,
	     (unsigned long long)L->seg.end.records, next);
	if (end_segment(L, EQP_BOARD_END_LINK, err) < 0)
		return -1;
	snprintf(label, sizeof(label), "board away %.1f s, restarted: segment %u follows", away, next);
	if (eqp_add_marker(L->w, at, label, err) < 0)
		return -1;
	if ((st->running && board_simple(L->c, FW_REQ_STOP, 0, err) < 0) ||
	    drain(L, DRAIN_QUIET_S, 0, err) < 0 || configure_and_start(L, err) < 0)
		return eq_fail_prefix(err, "setting the board up again after it came back");
	return begin_segment(L, next, 0, at, err);
}

/*
 * The board left USB (the cable pulled): marked in the file.  Without
 * --wait (or a board whose serial number is unknown) the log ends: 1.
 * With it, the board is waited for and the log goes on: 0; 1 if the log
 * was stopped before it came back; -1 failed.  The link is closed while
 * the board is away (c->link NULL).
 */
static int on_unplug(struct logger *L, struct eq_error *err)
{
	struct board_client *c = L->c;
	struct segment *s = &L->seg;
	double from = board_now(), away;
	struct fw_msg req, rep;
	char name[128];

	snprintf(name, sizeof(name), "%s", c->link->name);
	c->link->gone = 1;
	L->t->unplugs++;
	if (mark(L, from, "board unplugged", err) < 0)
		return -1;
	warn(L, "the board was unplugged (%s went away) %.1f s into the log, after %llu records "
	     "in segment %u%s", name, from - L->line.start, (unsigned long long)s->end.records,
	     s->info.segment, !L->o->wait ? "" : L->serial[0] ?
	     "; waiting for it to come back (--wait; Ctrl-C stops)" :
	     "; --wait cannot find it again (its USB serial number is unknown)");
	if (!L->o->wait || !L->serial[0]) {
		L->t->unplugged = 1;
		eq_fail(err, "the board was unplugged (%s went away)", name);
		return 1;
	}
	board_link_close(c->link);
	c->link = NULL;
	if (!wait_back(L, from)) {
		L->t->unplugged = 1;
		L->t->away_s += board_now() - from;
		return 1;
	}
	away = board_now() - from;
	L->t->away_s += away;
	fw_msg_request(&req, FW_REQ_STATUS, 0);
	if (board_request(c, &req, &rep, err) < 0)
		return eq_fail_prefix(err, "the board came back");
	if (rep.u.status.running && rep.u.status.quanta >= s->st.quanta &&
	    (!s->have_seq || rep.u.status.quanta > s->last_seq) &&
	    rep.u.status.quantum_pulses == s->info.quantum_pulses &&
	    rep.u.status.jitter_pct == s->info.jitter_pct && rep.u.status.vcomp == s->info.vcomp &&
	    rep.u.status.width_ns == L->width_ns)
		return went_on(L, &rep.u.status, away, err);
	return restarted(L, &rep.u.status, away, err);
}

static int take_events(struct logger *L, struct eq_error *err)
{
	struct board_event ev;
	int r;

	while (board_next_event(L->c, &ev)) {
		if (ev.type == BOARD_EV_BOOT) {
			r = on_reset(L, ev.cause, "a BOOT message", err);
			if (r)
				return r;
		} else if (take_record(L, &ev, err) < 0) {
			return -1;
		}
	}
	return 0;
}

/* Reads whatever arrives until `quiet` seconds of silence (at most 1 s),
 * keeping it (records of the log) or not (left over from before it). */
static int drain(struct logger *L, double quiet, int keep, struct eq_error *err)
{
	double start = board_now();
	struct board_event ev;
	int r;

	while (board_now() - (L->c->last_rx > start ? L->c->last_rx : start) < quiet &&
	       board_now() - start < 1.0) {
		if (board_poll(L->c, 10, err) < 0)
			return -1;
		if (keep && (r = take_events(L, err)) != 0)
			return r;
		while (!keep && board_next_event(L->c, &ev))
			;
	}
	return 0;
}

/*
 * The end as asked: STOP, the records still queued, a last STATUS for the
 * board's own counts.  The board not answering ends the segment as SILENT
 * (-1, err set); the file is kept either way.
 */
static int stop_board(struct logger *L, int *reason, struct eq_error *err)
{
	struct fw_msg req, rep;
	int r;

	L->stopping = 1;
	if (board_simple(L->c, FW_REQ_STOP, 0, err) < 0) {
		*reason = EQP_BOARD_END_SILENT;
		return -1;
	}
	if ((r = drain(L, DRAIN_QUIET_S, 1, err)) != 0) {
		*reason = EQP_BOARD_END_LINK;
		return r;
	}
	fw_msg_request(&req, FW_REQ_STATUS, 0);
	if (board_request(L->c, &req, &rep, err) < 0) {
		*reason = EQP_BOARD_END_SILENT;
		return -1;
	}
	if (rep.u.status.quanta >= L->seg.st.quanta) {
		L->seg.st = rep.u.status;
		L->seg.have_st = 1;
	}
	if ((r = drain(L, DRAIN_QUIET_S, 1, err)) < 0)
		*reason = EQP_BOARD_END_LINK;
	return r;
}

static int open_recording(struct logger *L, struct eq_error *err)
{
	char extra[512];
	struct eqp_meta meta = {
		.mode = EQP_MODE_ENERGY, .clock_hz = L->info.tick_hz,
		.quantum_j = L->seg.info.quantum_pulses * L->seg.info.e_min_j,
		.start_unix_ns = (int64_t)time(NULL) * 1000000000LL,
		.target = "energy-counter board", .extra = extra,
	};

	snprintf(extra, sizeof(extra), "source=eqprof board log\nport=%s\nfirmware=%s %u.%u\n"
		 "irq_width_ns=%u\nseed=%u\nstall_timeout=%g\non_reset=%s\n%s%s%s",
		 L->c->link->name, L->info.name, L->info.fw_major, L->info.fw_minor, L->width_ns,
		 L->o->seed, L->o->stall_timeout, L->o->on_reset_stop ? "stop" : "continue",
		 L->o->command ? "command=" : "", L->o->command ? L->o->command : "",
		 L->o->command ? "\n" : "");
	L->w = eqp_create_flags(L->o->out, &meta, EQP_W_RECORDING, err);
	if (!L->w)
		return -1;
	if (!L->o->quiet)
		eq_error_msg("logging to %s (renamed to %s at the end)",
			eqp_writer_file(L->w), L->o->out);
	return 0;
}

/* INFO, calibration and settings; a board left counting is stopped first. */
static int prepare(struct logger *L, struct eq_error *err)
{
	struct board_client *c = L->c;
	struct fw_msg req, rep;

	fw_msg_request(&req, FW_REQ_INFO, 0);
	if (board_request(c, &req, &rep, err) < 0 || board_check_info(c, &rep.u.info, err) < 0)
		return -1;
	L->info = rep.u.info;
	fw_msg_request(&req, FW_REQ_CAL_READ, 0);
	if (board_request(c, &req, &rep, err) < 0 || board_check_cal(c, &rep.u.cal, err) < 0)
		return -1;
	L->cal = rep.u.cal;
	fw_msg_request(&req, FW_REQ_STATUS, 0);
	if (board_request(c, &req, &rep, err) < 0 || board_check_status(c, &rep.u.status, err) < 0)
		return -1;
	if (rep.u.status.running) {
		if (board_simple(c, FW_REQ_STOP, 0, err) < 0 || drain(L, DRAIN_QUIET_S, 0, err) < 0)
			return -1;
	}
	settings_from(L, &rep.u.status);
	L->seg.info.clock_hz = L->info.tick_hz;
	L->seg.info.e_min_j = L->cal.e_min_pj * 1e-12;
	L->seg.info.vb_nominal_v = L->cal.vb_nominal_uv * 1e-6;
	L->seg.info.firmware = L->info.name;
	return 0;
}

/*
 * The link failed (err says how): the board unplugged, and back (0, going
 * on) or not (1: *reason and *rc set to end the log, err saying why), or
 * the link failed with the board still there (1), or worse (-1).
 */
static int link_failed(struct logger *L, int *reason, int *rc, struct eq_error *err)
{
	struct board_link *l = L->c->link;
	/* A USB board's link that says its device went away is unplugged,
	 * whatever USB lists this instant; a pty or a built-in UART is not
	 * USB's to tell (-1). */
	int present = board_usb_present(l->name), r;

	if (present > 0 && l->gone)
		present = 0;
	if (present == 0) {
		r = on_unplug(L, err);
		if (r <= 0)
			return r; /* back (the log goes on as it was), or worse */
	} else if (present > 0) {
		eq_fail_prefix(err, "the board is still on USB, the link failed");
	}
	*reason = EQP_BOARD_END_LINK;
	*rc = present == 0 && L->o->wait && L->serial[0] ? 0 : -1;
	return 1;
}

static int run(struct logger *L, struct eq_error *err)
{
	const struct board_log_opts *o = L->o;
	struct board_client *c = L->c;
	double now, write_at = 0;
	int r = 0, reason = EQP_BOARD_END_STOP, rc = 0;

	for (;;) {
		now = board_now();
		if (*o->stop || (o->seconds > 0 && now - L->line.start >= o->seconds) ||
		    (o->count && L->t->records >= o->count))
			break;
		if (board_poll(c, 20, err) < 0) {
			r = link_failed(L, &reason, &rc, err);
			if (r == 0)
				continue; /* unplugged and back: going on */
			if (r < 0)
				return -1;
			r = 0;
			break;
		}
		now = board_now();
		if ((r = take_events(L, err)) != 0 || (r = poll_status(L, now, err)) != 0 ||
		    (r = watch_stall(L, now, 0, err)) != 0) {
			/* STATUS is written twice a second: a write can be the first
			 * thing to fail when the board is unplugged */
			int usb = r < 0 ? board_usb_present(c->link->name) : -1;

			if (usb == 0 || (usb > 0 && c->link->gone)) {
				r = link_failed(L, &reason, &rc, err);
				if (r == 0)
					continue;
				if (r < 0)
					return -1;
				r = 0;
			}
			break;
		}
		if (now >= write_at) {
			if (write_records(L, err) < 0) {
				rc = -1;
				break;
			}
			write_at = now + WRITE_EVERY_S;
		}
		if (eq_progress_due(&L->line))
			eq_progress_show(&L->line, "eqprof board log: %llu quanta in %.1f s, %llu missing",
					 (unsigned long long)L->t->records, eq_progress_elapsed(&L->line),
					 (unsigned long long)(L->c->missing));
	}
	if (r > 0)
		return 1; /* a reset with --on-reset stop: its segment is closed */
	if (r < 0)
		return -1;
	if (rc == 0 && *o->stop < 2 && !L->t->unplugged) {
		r = stop_board(L, &reason, err);
		if (r > 0)
			return 1; /* the board reset as it was being stopped */
		if (r < 0)
			rc = -1;
	}
	if (watch_stall(L, board_now(), 1, err) < 0 || (L->open && end_segment(L, reason, err) < 0))
		return -1;
	return rc;
}

int board_log(struct board_client *c, const struct board_log_opts *o,
	      struct board_log_totals *t, struct eq_error *err)
{
	static struct logger L; /* the record buffer is large */
	struct eq_error werr;
	int rc;

	memset(&L, 0, sizeof(L));
	memset(t, 0, sizeof(*t));
	L.c = c;
	L.o = o;
	L.t = t;
	if (prepare(&L, err) < 0 || open_recording(&L, err) < 0)
		return -1;
	note_serial(&L);
	eq_progress_start(&L.line, o->quiet, 0.25);
	if (configure_and_start(&L, err) < 0) {
		eqp_discard(L.w);
		return -1;
	}
	if (begin_segment(&L, 0, 0, 0, err) < 0) {
		eqp_discard(L.w);
		return -1;
	}
	rc = run(&L, err);
	eq_progress_end(&L.line, 0);
	if (rc < 0 && L.nbuf)
		write_records(&L, &werr); /* whatever can still be written */
	if (eqp_commit(L.w, rc < 0 ? &werr : err) == 0)
		t->committed = 1;
	else if (rc >= 0)
		rc = -1;
	return rc;
}
