// SPDX-License-Identifier: MIT
/*
 * eqcm_drain.c - the ring's samples out as the board protocol's frames
 * (firmware/portable/proto.h, docs/protocol.md "Target messages"), to a
 * UART or a semihosting file, from the main loop.
 *
 * One frame is in flight at a time: it is sent as far as the sink takes it
 * and finished on a later call, so a slow or stalled link never blocks the
 * application; the ring fills instead and counts what it drops.
 */
#include "eqcm_priv.h"
#include "proto.h"

#define INFO_EVERY    1024u  /* frames between two TINFO */
#define STATUS_EVERY  256u   /* samples between two TSTATUS */

static struct {
	const struct eqcm_sink *sink;
	uint8_t frame[FW_FRAME_WIRE_MAX];
	uint32_t len, at;
	uint32_t frames;          /* since the last TINFO */
	uint32_t since_status;    /* samples since the last TSTATUS */
	uint32_t sent;
	uint32_t last_dropped, last_merged, last_spurious;
	int info_due, final;
	struct fw_msg m;
} dr;

void eqcm_drain_init(const struct eqcm_sink *sink)
{
	dr.sink = sink;
	dr.len = 0;
	dr.at = 0;
	dr.frames = 0;
	dr.since_status = 0;
	dr.sent = 0;
	dr.last_dropped = 0;
	dr.last_merged = 0;
	dr.last_spurious = 0;
	dr.info_due = 1;
	dr.final = 0;
}

static void frame_info(void)
{
	const struct eqcm_config *c = &eqcm_s.cfg;
	struct fw_tinfo *t = &dr.m.u.ti;
	const char *n = c->name ? c->name : "";
	uint32_t i;

	dr.m.type = FW_MSG_TINFO;
	dr.m.tag = 0;
	t->mode = (uint8_t)c->mode;
	t->clock = (uint8_t)eqcm_s.clock;
	t->jitter_pct = c->mode == EQCM_MODE_TIME ? c->jitter_pct : 0;
	t->flags = FW_TINFO_F_LR | (c->edge_counter ? FW_TINFO_F_EDGES : 0) |
		   (c->edge_counter && c->counter_is_quantum ? FW_TINFO_F_QUANTA : 0);
	t->tick_hz = eqcm_s.tick_hz;
	t->cpu_hz = c->cpu_hz;
	t->timer_hz = c->mode == EQCM_MODE_TIME ? c->timer_hz : 0;
	t->period = c->mode == EQCM_MODE_TIME ? c->period : 0;
	t->capacity = EQCM_RING_CAPACITY;
	t->first_seq = eqcm_s.first_seq;
	for (i = 0; i < FW_NAME_MAX && n[i]; i++)
		t->name[i] = n[i];
	t->name[i] = 0;
	dr.len = (uint32_t)fw_frame_encode(&dr.m, dr.frame, sizeof(dr.frame));
	dr.info_due = 0;
	dr.frames = 0;
}

static void frame_status(int final)
{
	struct eqcm_counts k;
	struct fw_tstatus *t = &dr.m.u.tst;

	eqcm_counts(&k);
	dr.m.type = FW_MSG_TSTATUS;
	dr.m.tag = 0;
	t->time = eqcm_now();
	t->next_seq = k.next_seq;
	t->dropped = k.dropped;
	t->merged = k.merged;
	t->spurious = k.spurious;
	t->sent = dr.sent;
	t->final = (uint8_t)final;
	dr.last_dropped = k.dropped;
	dr.last_merged = k.merged;
	dr.last_spurious = k.spurious;
	dr.since_status = 0;
	dr.len = (uint32_t)fw_frame_encode(&dr.m, dr.frame, sizeof(dr.frame));
}

/* The oldest sample, with its LR (read before the slot is handed back). */
static int frame_sample(void)
{
	struct eq_ring *r = &eqcm_s.ring;
	struct fw_tsample *t = &dr.m.u.ts;
	struct eq_sample s;
	uint32_t lr;

	if (!eq_ring_count(r))
		return 0;
	lr = eqcm_s.lr[r->tail & r->mask];
	if (eq_ring_pop_batch(r, &s, 1) != 1)
		return 0;
	dr.m.type = FW_MSG_TSAMPLE;
	dr.m.tag = 0;
	t->time = s.time;
	t->pc = s.pc;
	t->pid = s.pid;
	t->tid = s.tid;
	t->seq = s.seq;
	t->cpu = s.cpu;
	t->flags = s.flags;
	t->lr = lr;
	dr.len = (uint32_t)fw_frame_encode(&dr.m, dr.frame, sizeof(dr.frame));
	dr.sent++;
	dr.since_status++;
	return 1;
}

/* Has the sampler counted something the host has not been told? */
static int status_due(void)
{
	return eq_ring_dropped(&eqcm_s.ring) != dr.last_dropped ||
	       eqcm_s.merged != dr.last_merged || eqcm_s.spurious != dr.last_spurious ||
	       dr.since_status >= STATUS_EVERY;
}

/* The next frame into dr.frame; 0 when there is nothing to send. */
static int next_frame(void)
{
	dr.at = 0;
	dr.len = 0;
	if (dr.info_due || dr.frames >= INFO_EVERY)
		frame_info();
	else if (status_due())
		frame_status(0);
	else if (!frame_sample())
		return 0;
	dr.frames++;
	return 1;
}

uint32_t eqcm_drain_poll(void)
{
	uint32_t total = 0;

	if (!dr.sink)
		return 0;
	(void)eqcm_now(); /* keeps the 64-bit time base */
	for (;;) {
		uint32_t n;

		if (dr.at == dr.len && !next_frame())
			break;
		n = dr.sink->put(dr.sink->ctx, dr.frame + dr.at, dr.len - dr.at);
		if (!n)
			break;
		dr.at += n;
		total += n;
	}
	if (dr.sink->flush)
		dr.sink->flush(dr.sink->ctx);
	return total;
}

void eqcm_drain_final(void)
{
	if (!dr.sink)
		return;
	/* what is left, and the frame in flight */
	while (dr.at < dr.len || eq_ring_count(&eqcm_s.ring) || status_due())
		eqcm_drain_poll();
	frame_status(1);
	dr.at = 0;
	while (dr.at < dr.len)
		dr.at += dr.sink->put(dr.sink->ctx, dr.frame + dr.at, dr.len - dr.at);
	if (dr.sink->flush)
		dr.sink->flush(dr.sink->ctx);
	dr.len = 0;
	dr.at = 0;
}

/* ---- sinks ------------------------------------------------------------- */

uint32_t eqcm_uart_put(void *ctx, const uint8_t *p, uint32_t n)
{
	const struct eqcm_uart *u = ctx;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if ((*u->status & u->ready_mask) != u->ready_val)
			break;
		*u->data = p[i];
	}
	return i;
}

int eqcm_semihost_call(int op, void *arg)
{
	register int r0 __asm__("r0") = op;
	register void *r1 __asm__("r1") = arg;

	__asm__ __volatile__("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

int eqcm_semihost_open(struct eqcm_semihost *s, const char *path)
{
	uint32_t len = 0, args[3];

	while (path[len])
		len++;
	args[0] = (uint32_t)(uintptr_t)path;
	args[1] = 4;              /* "wb" */
	args[2] = len;
	s->handle = eqcm_semihost_call(EQCM_SH_OPEN, args);
	s->n = 0;
	return s->handle < 0 ? -1 : 0;
}

void eqcm_semihost_flush(void *ctx)
{
	struct eqcm_semihost *s = ctx;
	uint32_t args[3];

	if (!s->n || s->handle < 0)
		return;
	args[0] = (uint32_t)s->handle;
	args[1] = (uint32_t)(uintptr_t)s->buf;
	args[2] = s->n;
	eqcm_semihost_call(EQCM_SH_WRITE, args);
	s->n = 0;
}

/* Buffers whole frames; a full buffer is written at once (each write
 * halts the core while the debugger works).
 */
uint32_t eqcm_semihost_put(void *ctx, const uint8_t *p, uint32_t n)
{
	struct eqcm_semihost *s = ctx;
	uint32_t i;

	if (s->n + n > sizeof(s->buf))
		eqcm_semihost_flush(s);
	if (n > sizeof(s->buf))
		n = sizeof(s->buf);
	for (i = 0; i < n; i++)
		s->buf[s->n++] = p[i];
	return n;
}
