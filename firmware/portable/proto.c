/*
 * proto.c - frames (COBS + CRC-16) and messages of the board protocol.
 * docs/protocol.md is the specification; proto.h the overview.
 */
#include <string.h>

#include "cal.h"
#include "proto.h"

#define HDR 3 /* version, type, tag */

/*
 * The target messages (TSAMPLE, TINFO, TSTATUS) are sent by isr/cortexm's
 * drain and read by the host; the board never handles them, so its AVR
 * build leaves them out (1 KB of flash) and refuses them as unknown types,
 * as it refuses any reply type sent to it.
 */
#ifndef __AVR__
#define FW_TARGET_MSGS 1
#endif
#define RECORD_BODY FW_RECORD_BODY

/*
 * CRC-16/CCITT-FALSE a byte at a time from a 256-entry table: on the AVR
 * the table lives in flash (512 bytes) and a byte costs two LPM and a few
 * moves, about 15 cycles against about 40 for the shift-and-xor form.
 * Entry i is the CRC register after shifting byte i through it from 0.
 */
#ifdef __AVR__
#include <avr/pgmspace.h>
#define CRC_TABLE_ATTR PROGMEM
#define crc_table_at(i) pgm_read_word(&crc_table[i])
#else
#define CRC_TABLE_ATTR
#define crc_table_at(i) crc_table[i]
#endif

static const uint16_t crc_table[256] CRC_TABLE_ATTR = {
	0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50a5, 0x60c6, 0x70e7,
	0x8108, 0x9129, 0xa14a, 0xb16b, 0xc18c, 0xd1ad, 0xe1ce, 0xf1ef,
	0x1231, 0x0210, 0x3273, 0x2252, 0x52b5, 0x4294, 0x72f7, 0x62d6,
	0x9339, 0x8318, 0xb37b, 0xa35a, 0xd3bd, 0xc39c, 0xf3ff, 0xe3de,
	0x2462, 0x3443, 0x0420, 0x1401, 0x64e6, 0x74c7, 0x44a4, 0x5485,
	0xa56a, 0xb54b, 0x8528, 0x9509, 0xe5ee, 0xf5cf, 0xc5ac, 0xd58d,
	0x3653, 0x2672, 0x1611, 0x0630, 0x76d7, 0x66f6, 0x5695, 0x46b4,
	0xb75b, 0xa77a, 0x9719, 0x8738, 0xf7df, 0xe7fe, 0xd79d, 0xc7bc,
	0x48c4, 0x58e5, 0x6886, 0x78a7, 0x0840, 0x1861, 0x2802, 0x3823,
	0xc9cc, 0xd9ed, 0xe98e, 0xf9af, 0x8948, 0x9969, 0xa90a, 0xb92b,
	0x5af5, 0x4ad4, 0x7ab7, 0x6a96, 0x1a71, 0x0a50, 0x3a33, 0x2a12,
	0xdbfd, 0xcbdc, 0xfbbf, 0xeb9e, 0x9b79, 0x8b58, 0xbb3b, 0xab1a,
	0x6ca6, 0x7c87, 0x4ce4, 0x5cc5, 0x2c22, 0x3c03, 0x0c60, 0x1c41,
	0xedae, 0xfd8f, 0xcdec, 0xddcd, 0xad2a, 0xbd0b, 0x8d68, 0x9d49,
	0x7e97, 0x6eb6, 0x5ed5, 0x4ef4, 0x3e13, 0x2e32, 0x1e51, 0x0e70,
	0xff9f, 0xefbe, 0xdfdd, 0xcffc, 0xbf1b, 0xaf3a, 0x9f59, 0x8f78,
	0x9188, 0x81a9, 0xb1ca, 0xa1eb, 0xd10c, 0xc12d, 0xf14e, 0xe16f,
	0x1080, 0x00a1, 0x30c2, 0x20e3, 0x5004, 0x4025, 0x7046, 0x6067,
	0x83b9, 0x9398, 0xa3fb, 0xb3da, 0xc33d, 0xd31c, 0xe37f, 0xf35e,
	0x02b1, 0x1290, 0x22f3, 0x32d2, 0x4235, 0x5214, 0x6277, 0x7256,
	0xb5ea, 0xa5cb, 0x95a8, 0x8589, 0xf56e, 0xe54f, 0xd52c, 0xc50d,
	0x34e2, 0x24c3, 0x14a0, 0x0481, 0x7466, 0x6447, 0x5424, 0x4405,
	0xa7db, 0xb7fa, 0x8799, 0x97b8, 0xe75f, 0xf77e, 0xc71d, 0xd73c,
	0x26d3, 0x36f2, 0x0691, 0x16b0, 0x6657, 0x7676, 0x4615, 0x5634,
	0xd94c, 0xc96d, 0xf90e, 0xe92f, 0x99c8, 0x89e9, 0xb98a, 0xa9ab,
	0x5844, 0x4865, 0x7806, 0x6827, 0x18c0, 0x08e1, 0x3882, 0x28a3,
	0xcb7d, 0xdb5c, 0xeb3f, 0xfb1e, 0x8bf9, 0x9bd8, 0xabbb, 0xbb9a,
	0x4a75, 0x5a54, 0x6a37, 0x7a16, 0x0af1, 0x1ad0, 0x2ab3, 0x3a92,
	0xfd2e, 0xed0f, 0xdd6c, 0xcd4d, 0xbdaa, 0xad8b, 0x9de8, 0x8dc9,
	0x7c26, 0x6c07, 0x5c64, 0x4c45, 0x3ca2, 0x2c83, 0x1ce0, 0x0cc1,
	0xef1f, 0xff3e, 0xcf5d, 0xdf7c, 0xaf9b, 0xbfba, 0x8fd9, 0x9ff8,
	0x6e17, 0x7e36, 0x4e55, 0x5e74, 0x2e93, 0x3eb2, 0x0ed1, 0x1ef0,
};

static inline __attribute__((always_inline)) uint16_t crc16_step(uint16_t crc, uint8_t byte)
{
	return (uint16_t)((crc << 8) ^ crc_table_at((uint8_t)(crc >> 8) ^ byte));
}

uint16_t fw_crc16_update(uint16_t crc, uint8_t byte)
{
	return crc16_step(crc, byte);
}

uint16_t fw_crc16(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;

	while (n--)
		crc = crc16_step(crc, *p++);
	return crc;
}

size_t fw_cobs_encode(const uint8_t *in, size_t n, uint8_t *out)
{
	size_t code_at = 0, o = 1, i;
	uint8_t code = 1;

	for (i = 0; i < n; i++) {
		if (in[i] == 0) {
			out[code_at] = code;
			code_at = o++;
			code = 1;
			continue;
		}
		out[o++] = in[i];
		if (++code == 0xff) {
			out[code_at] = code;
			code_at = o++;
			code = 1;
		}
	}
	out[code_at] = code;
	return o;
}

int fw_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	size_t i = 0, o = 0;

	while (i < n) {
		uint8_t code = in[i++], k;

		if (code == 0)
			return -FW_ERR_COBS;
		for (k = 1; k < code; k++) {
			if (i >= n)
				return -FW_ERR_COBS; /* block runs past the frame */
			if (in[i] == 0)
				return -FW_ERR_COBS;
			if (o >= cap)
				return -FW_ERR_TOO_LONG;
			out[o++] = in[i++];
		}
		/* A block shorter than 255 stands for a zero, except the last one. */
		if (code != 0xff && i < n) {
			if (o >= cap)
				return -FW_ERR_TOO_LONG;
			out[o++] = 0;
		}
	}
	return (int)o;
}

/* Body length each type must have; -1 for an unknown type. */
static int body_len(uint8_t type)
{
	switch (type) {
	case FW_REQ_INFO: case FW_REQ_STOP: case FW_REQ_STATUS: case FW_REQ_CAL_READ:
		return 0;
	case FW_REQ_SET_QUANTUM: case FW_REQ_START:
		return 4;
	case FW_REQ_SET_JITTER: case FW_REQ_SET_VCOMP: case FW_REP_OK: case FW_MSG_BOOT:
		return 1;
	case FW_REQ_SET_WIDTH:
		return 2;
	case FW_REQ_CAL_WRITE: case FW_REP_CAL:
		return FW_CAL_SIZE;
	case FW_REP_ERR:
		return 3;
	case FW_REP_INFO:
		return 3 + 12 + FW_NAME_MAX;
	case FW_REP_STATUS:
		return 4 + 4 + 2 + 7 * 4;
	case FW_MSG_RECORD:
		return RECORD_BODY;
#ifdef FW_TARGET_MSGS
	case FW_MSG_TSAMPLE:
		return FW_TSAMPLE_BODY;
	case FW_MSG_TINFO:
		return FW_TINFO_BODY;
	case FW_MSG_TSTATUS:
		return FW_TSTATUS_BODY;
#endif
	}
	return -1;
}

static void put_status(uint8_t *b, const struct fw_status *s)
{
	b[0] = s->running;
	b[1] = s->jitter_pct;
	b[2] = s->vcomp;
	b[3] = s->eeprom_ok;
	fw_put32(b + 4, s->quantum_pulses);
	fw_put16(b + 8, s->width_ns);
	fw_put32(b + 10, s->quanta);
	fw_put32(b + 14, s->pulses);
	fw_put32(b + 18, s->dropped);
	fw_put32(b + 22, s->late);
	fw_put32(b + 26, s->rx_errors);
	fw_put32(b + 30, s->vbat_uv);
	fw_put32(b + 34, 0); /* reserved */
}

static void get_status(const uint8_t *b, struct fw_status *s)
{
	s->running = b[0];
	s->jitter_pct = b[1];
	s->vcomp = b[2];
	s->eeprom_ok = b[3];
	s->quantum_pulses = fw_get32(b + 4);
	s->width_ns = fw_get16(b + 8);
	s->quanta = fw_get32(b + 10);
	s->pulses = fw_get32(b + 14);
	s->dropped = fw_get32(b + 18);
	s->late = fw_get32(b + 22);
	s->rx_errors = fw_get32(b + 26);
	s->vbat_uv = fw_get32(b + 30);
}

static void put_info(uint8_t *b, const struct fw_info *in)
{
	size_t n = strlen(in->name);

	b[0] = in->proto;
	b[1] = in->fw_major;
	b[2] = in->fw_minor;
	fw_put32(b + 3, in->mcu_hz);
	fw_put32(b + 7, in->tick_hz);
	fw_put32(b + 11, in->baud);
	memset(b + 15, 0, FW_NAME_MAX);
	memcpy(b + 15, in->name, n > FW_NAME_MAX ? FW_NAME_MAX : n);
}

static void get_info(const uint8_t *b, struct fw_info *in)
{
	in->proto = b[0];
	in->fw_major = b[1];
	in->fw_minor = b[2];
	in->mcu_hz = fw_get32(b + 3);
	in->tick_hz = fw_get32(b + 7);
	in->baud = fw_get32(b + 11);
	memcpy(in->name, b + 15, FW_NAME_MAX);
	in->name[FW_NAME_MAX] = 0;
}

static void put_record(uint8_t *b, const struct fw_record *r)
{
	fw_put32(b, r->seq);
	fw_put32(b + 4, (uint32_t)r->time);
	b[8] = (uint8_t)(r->time >> 32);
	fw_put32(b + 9, r->pulses);
	fw_put32(b + 13, r->vbat_uv);
	b[17] = r->flags;
}

static void get_record(const uint8_t *b, struct fw_record *r)
{
	r->seq = fw_get32(b);
	r->time = fw_get32(b + 4) | (uint64_t)b[8] << 32;
	r->pulses = fw_get32(b + 9);
	r->vbat_uv = fw_get32(b + 13);
	r->flags = b[17];
}

#ifdef FW_TARGET_MSGS
static void put64(uint8_t *b, uint64_t v)
{
	fw_put32(b, (uint32_t)v);
	fw_put32(b + 4, (uint32_t)(v >> 32));
}

static uint64_t get64(const uint8_t *b)
{
	return fw_get32(b) | (uint64_t)fw_get32(b + 4) << 32;
}

/* A target's sample: struct eq_sample's 32 bytes as they are in its ring,
 * then the LR. */
static void put_tsample(uint8_t *b, const struct fw_tsample *t)
{
	put64(b, t->time);
	put64(b + 8, t->pc);
	fw_put32(b + 16, t->pid);
	fw_put32(b + 20, t->tid);
	fw_put32(b + 24, t->seq);
	fw_put16(b + 28, t->cpu);
	fw_put16(b + 30, t->flags);
	fw_put32(b + 32, t->lr);
}

static void get_tsample(const uint8_t *b, struct fw_tsample *t)
{
	t->time = get64(b);
	t->pc = get64(b + 8);
	t->pid = fw_get32(b + 16);
	t->tid = fw_get32(b + 20);
	t->seq = fw_get32(b + 24);
	t->cpu = fw_get16(b + 28);
	t->flags = fw_get16(b + 30);
	t->lr = fw_get32(b + 32);
}

static void put_tinfo(uint8_t *b, const struct fw_tinfo *t)
{
	size_t n = strlen(t->name);

	b[0] = t->mode;
	b[1] = t->clock;
	b[2] = t->jitter_pct;
	b[3] = t->flags;
	fw_put32(b + 4, t->tick_hz);
	fw_put32(b + 8, t->cpu_hz);
	fw_put32(b + 12, t->timer_hz);
	fw_put32(b + 16, t->period);
	fw_put32(b + 20, t->capacity);
	fw_put32(b + 24, t->first_seq);
	memset(b + 28, 0, FW_NAME_MAX);
	memcpy(b + 28, t->name, n > FW_NAME_MAX ? FW_NAME_MAX : n);
}

static void get_tinfo(const uint8_t *b, struct fw_tinfo *t)
{
	t->mode = b[0];
	t->clock = b[1];
	t->jitter_pct = b[2];
	t->flags = b[3];
	t->tick_hz = fw_get32(b + 4);
	t->cpu_hz = fw_get32(b + 8);
	t->timer_hz = fw_get32(b + 12);
	t->period = fw_get32(b + 16);
	t->capacity = fw_get32(b + 20);
	t->first_seq = fw_get32(b + 24);
	memcpy(t->name, b + 28, FW_NAME_MAX);
	t->name[FW_NAME_MAX] = 0;
}

static void put_tstatus(uint8_t *b, const struct fw_tstatus *t)
{
	put64(b, t->time);
	fw_put32(b + 8, t->next_seq);
	fw_put32(b + 12, t->dropped);
	fw_put32(b + 16, t->merged);
	fw_put32(b + 20, t->spurious);
	fw_put32(b + 24, t->sent);
	b[28] = t->final;
	b[29] = b[30] = b[31] = 0; /* reserved */
}

static void get_tstatus(const uint8_t *b, struct fw_tstatus *t)
{
	t->time = get64(b);
	t->next_seq = fw_get32(b + 8);
	t->dropped = fw_get32(b + 12);
	t->merged = fw_get32(b + 16);
	t->spurious = fw_get32(b + 20);
	t->sent = fw_get32(b + 24);
	t->final = b[28];
}
#endif

size_t fw_msg_encode(const struct fw_msg *m, uint8_t *payload, size_t cap)
{
	int len = body_len(m->type);
	uint8_t *b = payload + HDR;

	if (len < 0 || (size_t)len + HDR > cap)
		return 0;
	payload[0] = FW_PROTO_VERSION;
	payload[1] = m->type;
	payload[2] = m->tag;
	switch (m->type) {
	case FW_REQ_SET_QUANTUM: case FW_REQ_START:
		fw_put32(b, m->u.u32);
		break;
	case FW_REQ_SET_JITTER: case FW_REQ_SET_VCOMP: case FW_MSG_BOOT:
		b[0] = m->u.u8;
		break;
	case FW_REQ_SET_WIDTH:
		fw_put16(b, m->u.u16);
		break;
	case FW_REP_OK:
		b[0] = m->u.reply.req;
		break;
	case FW_REP_ERR:
		b[0] = m->u.reply.req;
		b[1] = m->u.reply.code;
		b[2] = m->u.reply.detail;
		break;
	case FW_REQ_CAL_WRITE: case FW_REP_CAL:
		fw_cal_pack(b, &m->u.cal);
		break;
	case FW_REP_INFO:
		put_info(b, &m->u.info);
		break;
	case FW_REP_STATUS:
		put_status(b, &m->u.status);
		break;
	case FW_MSG_RECORD:
		put_record(b, &m->u.rec);
		break;
#ifdef FW_TARGET_MSGS
	case FW_MSG_TSAMPLE:
		put_tsample(b, &m->u.ts);
		break;
	case FW_MSG_TINFO:
		put_tinfo(b, &m->u.ti);
		break;
	case FW_MSG_TSTATUS:
		put_tstatus(b, &m->u.tst);
		break;
#endif
	}
	return (size_t)len + HDR;
}

int fw_msg_decode(const uint8_t *payload, size_t n, struct fw_msg *m)
{
	const uint8_t *b = payload + HDR;
	int len;

	if (n < HDR)
		return FW_ERR_TRUNCATED;
	m->type = payload[1];
	m->tag = payload[2];
	if (payload[0] != FW_PROTO_VERSION)
		return FW_ERR_VERSION;
	len = body_len(m->type);
	if (len < 0)
		return FW_ERR_TYPE;
	if (n - HDR != (size_t)len)
		return FW_ERR_LENGTH;
	switch (m->type) {
	case FW_REQ_SET_QUANTUM: case FW_REQ_START:
		m->u.u32 = fw_get32(b);
		break;
	case FW_REQ_SET_JITTER: case FW_REQ_SET_VCOMP: case FW_MSG_BOOT:
		m->u.u8 = b[0];
		break;
	case FW_REQ_SET_WIDTH:
		m->u.u16 = fw_get16(b);
		break;
	case FW_REP_OK:
		m->u.reply.req = b[0];
		break;
	case FW_REP_ERR:
		m->u.reply.req = b[0];
		m->u.reply.code = b[1];
		m->u.reply.detail = b[2];
		break;
	case FW_REQ_CAL_WRITE: case FW_REP_CAL:
		fw_cal_unpack(b, &m->u.cal);
		break;
	case FW_REP_INFO:
		get_info(b, &m->u.info);
		break;
	case FW_REP_STATUS:
		get_status(b, &m->u.status);
		break;
	case FW_MSG_RECORD:
		get_record(b, &m->u.rec);
		break;
#ifdef FW_TARGET_MSGS
	case FW_MSG_TSAMPLE:
		get_tsample(b, &m->u.ts);
		break;
	case FW_MSG_TINFO:
		get_tinfo(b, &m->u.ti);
		break;
	case FW_MSG_TSTATUS:
		get_tstatus(b, &m->u.tst);
		break;
#endif
	}
	return FW_OK;
}

/*
 * COBS in one pass, as the bytes come: `code_at` is where the current
 * block's length byte goes once the block ends (at a zero, or at 254
 * bytes).  Pointers, not indexes: on the AVR this loop is the record
 * stream's cost (about 20 cycles a byte with the CRC).
 */
struct cobs_out {
	uint8_t *w, *code_at;
	uint8_t code;
};

static inline __attribute__((always_inline)) void cobs_put(struct cobs_out *c, uint8_t b)
{
	if (b == 0) {
		*c->code_at = c->code;
		c->code_at = c->w++;
		c->code = 1;
		return;
	}
	*c->w++ = b;
	if (++c->code == 0xff) {
		*c->code_at = c->code;
		c->code_at = c->w++;
		c->code = 1;
	}
}

static inline __attribute__((always_inline)) uint16_t frame_bytes(struct cobs_out *c, uint16_t crc,
								  const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;

	while (p != end) {
		uint8_t b = *p++;

		crc = crc16_step(crc, b);
		cobs_put(c, b);
	}
	return crc;
}

/*
 * Payload bytes (a head and a body, either may be empty) through the CRC
 * and COBS at once; then the CRC, the last block's length and 0x00.
 */
static size_t frame_out(const uint8_t *head, size_t nhead, const uint8_t *body, size_t nbody,
			uint8_t *out)
{
	struct cobs_out c = { out + 1, out, 1 };
	uint16_t crc = frame_bytes(&c, 0xffff, head, nhead);

	crc = frame_bytes(&c, crc, body, nbody);
	cobs_put(&c, (uint8_t)crc);
	cobs_put(&c, (uint8_t)(crc >> 8));
	*c.code_at = c.code;
	*c.w++ = 0;
	return (size_t)(c.w - out);
}

size_t fw_frame_encode(const struct fw_msg *m, uint8_t *out, size_t cap)
{
	uint8_t raw[FW_PAYLOAD_MAX];
	size_t n = fw_msg_encode(m, raw, FW_PAYLOAD_MAX);

	if (n == 0 || cap < FW_FRAME_WIRE_MAX)
		return 0;
	return frame_out(raw, n, raw + n, 0, out);
}

size_t fw_record_frame_body(const uint8_t *body, uint8_t *out)
{
	static const uint8_t head[HDR] = { FW_PROTO_VERSION, FW_MSG_RECORD, 0 };

	return frame_out(head, HDR, body, RECORD_BODY, out);
}

size_t fw_record_frame(const struct fw_record *r, uint8_t *out)
{
	uint8_t body[RECORD_BODY];

	put_record(body, r);
	return fw_record_frame_body(body, out);
}

void fw_deframer_init(struct fw_deframer *d)
{
	d->len = 0;
	d->overflow = 0;
}

/* A complete frame (delimiter stripped) in d->buf: check and decode it.
 * Not inlined: fw_deframer_push() runs for every byte and most bytes only
 * need appending (on the AVR the decoder's registers would be saved and
 * restored for each of them). */
static __attribute__((noinline)) int deframe(struct fw_deframer *d, struct fw_msg *m)
{
	uint8_t raw[FW_FRAME_RAW_MAX];
	int n = fw_cobs_decode(d->buf, d->len, raw, sizeof(raw));
	int err;

	m->type = 0;
	m->tag = 0;
	if (n < 0)
		return n;
	if (n < HDR + 2)
		return -FW_ERR_TRUNCATED;
	if (fw_crc16(raw, (size_t)n - 2) != fw_get16(raw + n - 2)) {
		/* Untrusted; kept for the error reply only, which echoes the tag
		 * in its detail byte so the host can resend at once. */
		m->type = raw[1];
		m->u.bad.tag = raw[2];
		return -FW_ERR_CRC;
	}
	err = fw_msg_decode(raw, (size_t)n - 2, m);
	return err ? -err : 1;
}

int fw_deframer_push(struct fw_deframer *d, uint8_t byte, struct fw_msg *m)
{
	int ret;

	if (byte != 0) {
		if (d->overflow)
			return 0;
		if (d->len >= sizeof(d->buf)) {
			d->overflow = 1;
			return 0;
		}
		d->buf[d->len++] = byte;
		return 0;
	}
	if (d->overflow) {
		d->overflow = 0;
		d->len = 0;
		m->type = 0;
		m->tag = 0;
		return -FW_ERR_TOO_LONG;
	}
	if (d->len == 0)
		return 0;
	ret = deframe(d, m);
	d->len = 0;
	return ret;
}

const char *fw_err_name(int code)
{
	static const char *const names[] = {
		"ok", "bad COBS encoding", "frame too long", "frame truncated",
		"CRC mismatch", "unsupported protocol version", "unknown message type",
		"wrong body length", "value out of range", "busy (counting): stop first",
		"EEPROM calibration missing or corrupt", "not supported",
	};

	if (code < 0)
		code = -code;
	return (size_t)code < sizeof(names) / sizeof(names[0]) ? names[code] : "unknown error";
}

const char *fw_type_name(uint8_t type)
{
	switch (type) {
	case FW_REQ_INFO: return "INFO";
	case FW_REQ_SET_QUANTUM: return "SET_QUANTUM";
	case FW_REQ_SET_JITTER: return "SET_JITTER";
	case FW_REQ_SET_VCOMP: return "SET_VCOMP";
	case FW_REQ_SET_WIDTH: return "SET_WIDTH";
	case FW_REQ_START: return "START";
	case FW_REQ_STOP: return "STOP";
	case FW_REQ_STATUS: return "STATUS";
	case FW_REQ_CAL_READ: return "CAL_READ";
	case FW_REQ_CAL_WRITE: return "CAL_WRITE";
	case FW_REP_OK: return "OK";
	case FW_REP_ERR: return "ERR";
	case FW_REP_INFO: return "INFO reply";
	case FW_REP_STATUS: return "STATUS reply";
	case FW_REP_CAL: return "CAL reply";
	case FW_MSG_RECORD: return "RECORD";
	case FW_MSG_BOOT: return "BOOT";
	case FW_MSG_TSAMPLE: return "TSAMPLE";
	case FW_MSG_TINFO: return "TINFO";
	case FW_MSG_TSTATUS: return "TSTATUS";
	}
	return "unknown";
}

void fw_msg_request(struct fw_msg *m, uint8_t type, uint32_t value)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	switch (type) {
	case FW_REQ_SET_JITTER: case FW_REQ_SET_VCOMP: m->u.u8 = (uint8_t)value; break;
	case FW_REQ_SET_WIDTH: m->u.u16 = (uint16_t)value; break;
	default: m->u.u32 = value; break;
	}
}
