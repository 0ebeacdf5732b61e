/*
 * proto.c - frames (COBS + CRC-16) and messages of the board protocol.
 * docs/protocol.md is the specification; proto.h the overview.
 */
#include <string.h>

#include "cal.h"
#include "proto.h"

#define HDR 3 /* version, type, tag */

/*
 * Byte-at-a-time CRC-CCITT without a table (the polynomial's structure lets
 * the eight shift-xor steps collapse into three): about 25 AVR cycles a byte
 * instead of ~90 for a half-byte table.
 */
static inline uint16_t crc16_step(uint16_t crc, uint8_t byte)
{
	uint8_t x = (uint8_t)(crc >> 8) ^ byte;

	x ^= x >> 4;
	return (uint16_t)((crc << 8) ^ ((uint16_t)x << 12) ^ ((uint16_t)x << 5) ^ x);
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
		return 4 + 5 + 4 + 4 + 1;
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
	}
	return FW_OK;
}

size_t fw_frame_encode(const struct fw_msg *m, uint8_t *out, size_t cap)
{
	uint8_t raw[FW_FRAME_RAW_MAX];
	size_t n = fw_msg_encode(m, raw, FW_PAYLOAD_MAX);
	uint16_t crc;

	if (n == 0 || cap < FW_FRAME_WIRE_MAX)
		return 0;
	crc = fw_crc16(raw, n);
	fw_put16(raw + n, crc);
	n = fw_cobs_encode(raw, n + 2, out);
	out[n++] = 0;
	return n;
}

void fw_deframer_init(struct fw_deframer *d)
{
	d->len = 0;
	d->overflow = 0;
}

/* A complete frame (delimiter stripped) in d->buf: check and decode it. */
static int deframe(struct fw_deframer *d, struct fw_msg *m)
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
