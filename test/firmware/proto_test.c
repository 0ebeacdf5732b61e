/*
 * proto_test.c - the board protocol codec: CRC, COBS, every message type,
 * and the frame receiver on good, corrupt, truncated and oversized input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cal.h"
#include "fw_defaults.h"
#include "proto.h"

/* The CRC by its definition, a bit at a time: what the table must give. */
static uint16_t crc_bitwise(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;
	int k;

	while (n--) {
		crc ^= (uint16_t)(*p++ << 8);
		for (k = 0; k < 8; k++)
			crc = crc & 0x8000 ? (uint16_t)(crc << 1) ^ 0x1021 : (uint16_t)(crc << 1);
	}
	return crc;
}

static void test_crc_table_matches_definition(void **state)
{
	uint8_t buf[64];
	unsigned seed = 7, i, n;

	(void)state;
	for (n = 0; n < 2000; n++) {
		for (i = 0; i < n % 64; i++)
			buf[i] = (uint8_t)rand_r(&seed);
		assert_int_equal(fw_crc16(buf, n % 64), crc_bitwise(buf, n % 64));
	}
}

/* One-pass frames equal the two-pass construction (payload, CRC, COBS),
 * and the record path equals the generic one. */
static void test_frames_one_pass(void **state)
{
	uint8_t a[FW_FRAME_WIRE_MAX], b[FW_FRAME_WIRE_MAX], raw[FW_FRAME_RAW_MAX];
	unsigned seed = 11, k;

	(void)state;
	for (k = 0; k < 5000; k++) {
		struct fw_msg m;
		size_t n, na, nb;

		memset(&m, 0, sizeof(m));
		m.type = FW_MSG_RECORD;
		m.u.rec.seq = (uint32_t)rand_r(&seed) & (k & 1 ? 0xff : 0xffffffff);
		m.u.rec.time = ((uint64_t)rand_r(&seed) << 16 ^ (uint64_t)rand_r(&seed)) & 0xffffffffffULL;
		m.u.rec.pulses = k & 2 ? 64 : (uint32_t)rand_r(&seed);
		m.u.rec.vbat_uv = (uint32_t)rand_r(&seed);
		m.u.rec.flags = (uint8_t)(k & 7);
		n = fw_msg_encode(&m, raw, FW_PAYLOAD_MAX);
		fw_put16(raw + n, fw_crc16(raw, n));
		nb = fw_cobs_encode(raw, n + 2, b);
		b[nb++] = 0;
		na = fw_frame_encode(&m, a, sizeof(a));
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, nb);
		assert_int_equal(fw_record_frame(&m.u.rec, a), nb);
		assert_memory_equal(a, b, nb);
	}
}

static void test_crc_check_value(void **state)
{
	(void)state;
	assert_int_equal(fw_crc16((const uint8_t *)"123456789", 9), 0x29b1);
	assert_int_equal(fw_crc16(NULL, 0), 0xffff);
}

static void test_cobs_roundtrip(void **state)
{
	uint8_t in[600], enc[700], dec[600];
	unsigned seed = 1;
	int round;

	(void)state;
	for (round = 0; round < 500; round++) {
		size_t n = (size_t)(rand_r(&seed) % 600), i, m;
		int zeros = round % 3;

		for (i = 0; i < n; i++)
			in[i] = zeros == 0 ? 0 : zeros == 1 ? (uint8_t)(1 + rand_r(&seed) % 255)
							    : (uint8_t)(rand_r(&seed) % 4);
		m = fw_cobs_encode(in, n, enc);
		assert_true(m <= n + n / 254 + 1);
		for (i = 0; i < m; i++)
			assert_int_not_equal(enc[i], 0);
		assert_int_equal(fw_cobs_decode(enc, m, dec, sizeof(dec)), (int)n);
		assert_memory_equal(in, dec, n);
	}
}

static void test_cobs_rejects_bad(void **state)
{
	uint8_t out[16];
	const uint8_t zero_inside[] = { 3, 1, 0 };
	const uint8_t past_end[] = { 5, 1, 2 };

	(void)state;
	assert_int_equal(fw_cobs_decode(zero_inside, 3, out, 16), -FW_ERR_COBS);
	assert_int_equal(fw_cobs_decode(past_end, 3, out, 16), -FW_ERR_COBS);
	{
		const uint8_t big[] = { 9, 1, 2, 3, 4, 5, 6, 7, 8 };

		assert_int_equal(fw_cobs_decode(big, 9, out, 4), -FW_ERR_TOO_LONG);
	}
}

/* Encodes m as a frame and feeds it to a fresh receiver. */
static int roundtrip(const struct fw_msg *m, struct fw_msg *out)
{
	uint8_t frame[FW_FRAME_WIRE_MAX];
	size_t n = fw_frame_encode(m, frame, sizeof(frame)), i;
	struct fw_deframer d;
	int r = 0;

	assert_true(n > 0 && n <= FW_FRAME_WIRE_MAX);
	assert_int_equal(frame[n - 1], 0);
	fw_deframer_init(&d);
	for (i = 0; i < n; i++) {
		r = fw_deframer_push(&d, frame[i], out);
		if (i < n - 1)
			assert_int_equal(r, 0);
	}
	return r;
}

static void test_every_message_roundtrips(void **state)
{
	static const uint8_t types[] = {
		FW_REQ_INFO, FW_REQ_SET_QUANTUM, FW_REQ_SET_JITTER, FW_REQ_SET_VCOMP,
		FW_REQ_SET_WIDTH, FW_REQ_START, FW_REQ_STOP, FW_REQ_STATUS, FW_REQ_CAL_READ,
		FW_REQ_CAL_WRITE, FW_REP_OK, FW_REP_ERR, FW_REP_INFO, FW_REP_STATUS, FW_REP_CAL,
		FW_MSG_RECORD, FW_MSG_BOOT, FW_MSG_TSAMPLE, FW_MSG_TINFO, FW_MSG_TSTATUS,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(types); i++) {
		struct fw_msg m, out;

		memset(&m, 0, sizeof(m));
		memset(&out, 0xaa, sizeof(out));
		m.type = types[i];
		m.tag = (uint8_t)(i + 1);
		switch (m.type) {
		case FW_REQ_SET_QUANTUM: case FW_REQ_START: m.u.u32 = 0x01020300; break;
		case FW_REQ_SET_JITTER: case FW_REQ_SET_VCOMP: case FW_MSG_BOOT: m.u.u8 = 7; break;
		case FW_REQ_SET_WIDTH: m.u.u16 = 2000; break;
		case FW_REP_OK: m.u.reply.req = FW_REQ_STOP; break;
		case FW_REP_ERR: m.u.reply.req = 1; m.u.reply.code = FW_ERR_CRC; m.u.reply.detail = 3; break;
		case FW_REQ_CAL_WRITE: case FW_REP_CAL:
			fw_cal_defaults(&m.u.cal);
			m.u.cal.adc_offset_uv = -1234;
			m.u.cal.serial = 42;
			break;
		case FW_REP_INFO:
			m.u.info.proto = 1; m.u.info.mcu_hz = 16000000; m.u.info.tick_hz = 2000000;
			m.u.info.baud = 1000000;
			strcpy(m.u.info.name, "eqfw atmega328p");
			break;
		case FW_REP_STATUS:
			m.u.status.running = 1; m.u.status.quantum_pulses = 64; m.u.status.width_ns = 2000;
			m.u.status.quanta = 100; m.u.status.pulses = 6400; m.u.status.dropped = 2;
			m.u.status.late = 3; m.u.status.rx_errors = 4; m.u.status.vbat_uv = 4070000;
			break;
		case FW_MSG_RECORD:
			m.u.rec.seq = 0xfffffffe; m.u.rec.time = 0xff12345678ULL; m.u.rec.pulses = 70000;
			m.u.rec.vbat_uv = 3600000; m.u.rec.flags = FW_REC_F_LATE | FW_REC_F_DROPPED;
			break;
		case FW_MSG_TSAMPLE:
			m.u.ts.time = 0x0123456789abcdefULL; m.u.ts.pc = 0x1f2e3d4cULL; m.u.ts.pid = 1;
			m.u.ts.tid = 24; m.u.ts.seq = 0xfffffff0; m.u.ts.cpu = 0; m.u.ts.flags = 0x0c;
			m.u.ts.lr = 0xfffffff9;
			break;
		case FW_MSG_TINFO:
			m.u.ti.mode = FW_TMODE_TIME; m.u.ti.clock = FW_TCLOCK_SYSTICK; m.u.ti.jitter_pct = 10;
			m.u.ti.flags = FW_TINFO_F_LR; m.u.ti.tick_hz = 25000000; m.u.ti.cpu_hz = 25000000;
			m.u.ti.timer_hz = 25000000; m.u.ti.period = 25000; m.u.ti.capacity = 64;
			m.u.ti.first_seq = 7;
			strcpy(m.u.ti.name, "eqcm demo, 16 ch");
			break;
		case FW_MSG_TSTATUS:
			m.u.tst.time = 1ULL << 40; m.u.tst.next_seq = 1000; m.u.tst.dropped = 12;
			m.u.tst.merged = 2; m.u.tst.spurious = 1; m.u.tst.sent = 988; m.u.tst.final = 1;
			break;
		}
		assert_int_equal(roundtrip(&m, &out), 1);
		assert_int_equal(out.type, m.type);
		assert_int_equal(out.tag, m.tag);
		switch (m.type) {
		case FW_REQ_SET_QUANTUM: case FW_REQ_START: assert_int_equal(out.u.u32, m.u.u32); break;
		case FW_REQ_SET_WIDTH: assert_int_equal(out.u.u16, 2000); break;
		case FW_REP_ERR: assert_memory_equal(&out.u.reply, &m.u.reply, sizeof(m.u.reply)); break;
		case FW_REQ_CAL_WRITE: case FW_REP_CAL: assert_memory_equal(&out.u.cal, &m.u.cal, sizeof(m.u.cal)); break;
		case FW_REP_INFO:
			assert_string_equal(out.u.info.name, "eqfw atmega328p");
			assert_int_equal(out.u.info.tick_hz, 2000000);
			break;
		case FW_REP_STATUS:
			assert_int_equal(out.u.status.pulses, 6400);
			assert_int_equal(out.u.status.vbat_uv, 4070000);
			assert_int_equal(out.u.status.late, 3);
			break;
		case FW_MSG_RECORD:
			assert_int_equal(out.u.rec.seq, m.u.rec.seq);
			assert_true(out.u.rec.time == m.u.rec.time);
			assert_int_equal(out.u.rec.pulses, 70000);
			assert_int_equal(out.u.rec.flags, 3);
			break;
		case FW_MSG_TSAMPLE:
			assert_true(out.u.ts.time == m.u.ts.time && out.u.ts.pc == m.u.ts.pc);
			assert_int_equal(out.u.ts.tid, 24);
			assert_int_equal(out.u.ts.seq, 0xfffffff0);
			assert_int_equal(out.u.ts.flags, 0x0c);
			assert_int_equal(out.u.ts.lr, 0xfffffff9);
			break;
		case FW_MSG_TINFO:
			assert_string_equal(out.u.ti.name, "eqcm demo, 16 ch");
			assert_int_equal(out.u.ti.period, 25000);
			assert_int_equal(out.u.ti.first_seq, 7);
			assert_int_equal(out.u.ti.flags, FW_TINFO_F_LR);
			break;
		case FW_MSG_TSTATUS:
			assert_true(out.u.tst.time == 1ULL << 40);
			assert_int_equal(out.u.tst.sent, 988);
			assert_int_equal(out.u.tst.merged, 2);
			assert_int_equal(out.u.tst.final, 1);
			break;
		}
	}
}

static int feed(struct fw_deframer *d, const uint8_t *p, size_t n, struct fw_msg *m)
{
	int r = 0;

	while (n--) {
		r = fw_deframer_push(d, *p++, m);
		if (r != 0)
			return r;
	}
	return r;
}

/* A frame from raw payload bytes (version..body), CRC optionally broken. */
static size_t make_frame(const uint8_t *payload, size_t n, int break_crc, uint8_t *out)
{
	uint8_t raw[FW_FRAME_RAW_MAX + 8];
	size_t m;

	memcpy(raw, payload, n);
	fw_put16(raw + n, (uint16_t)(fw_crc16(payload, n) ^ (break_crc ? 0x0100 : 0)));
	m = fw_cobs_encode(raw, n + 2, out);
	out[m++] = 0;
	return m;
}

static void test_receiver_errors(void **state)
{
	struct fw_deframer d;
	struct fw_msg m;
	uint8_t f[128];
	const uint8_t good[] = { FW_PROTO_VERSION, FW_REQ_INFO, 9 };
	const uint8_t badver[] = { 2, FW_REQ_INFO, 9 };
	const uint8_t badtype[] = { FW_PROTO_VERSION, 0x55, 9 };
	const uint8_t badlen[] = { FW_PROTO_VERSION, FW_REQ_SET_QUANTUM, 9, 1, 2 };
	const uint8_t shortf[] = { 0x03, 0x01, 0x01, 0x00 };
	size_t n, i;

	(void)state;
	fw_deframer_init(&d);
	n = make_frame(good, 3, 1, f);
	assert_int_equal(feed(&d, f, n, &m), -FW_ERR_CRC);
	assert_int_equal(m.tag, 0); /* an untrusted tag is never taken as the tag */
	assert_int_equal(m.u.bad.tag, 9); /* but kept for the error reply's detail */
	n = make_frame(badver, 3, 0, f);
	assert_int_equal(feed(&d, f, n, &m), -FW_ERR_VERSION);
	n = make_frame(badtype, 3, 0, f);
	assert_int_equal(feed(&d, f, n, &m), -FW_ERR_TYPE);
	n = make_frame(badlen, 5, 0, f);
	assert_int_equal(feed(&d, f, n, &m), -FW_ERR_LENGTH);
	assert_int_equal(feed(&d, shortf, sizeof(shortf), &m), -FW_ERR_TRUNCATED);
	for (i = 0; i < 100; i++)
		f[i] = 0x42;
	f[100] = 0;
	assert_int_equal(feed(&d, f, 101, &m), -FW_ERR_TOO_LONG);
	/* And it recovers: a good frame right after decodes. */
	n = make_frame(good, 3, 0, f);
	assert_int_equal(feed(&d, f, n, &m), 1);
	assert_int_equal(m.type, FW_REQ_INFO);
	assert_int_equal(m.tag, 9);
	/* Empty frames (resynchronisation zeros) are ignored. */
	f[0] = 0;
	assert_int_equal(feed(&d, f, 1, &m), 0);
}

static void test_cal_defaults_and_conversion(void **state)
{
	struct fw_cal c;
	uint8_t b[FW_CAL_SIZE];
	struct fw_cal back;
	uint32_t uv;

	(void)state;
	fw_cal_defaults(&c);
	/* 2.5 V / 1024 * 147 / 47 = 7635.89 uV per count; x256 = 1954787.2 */
	assert_in_range(c.adc_uv_per_lsb_q8, 1954787, 1954788);
	assert_int_equal(c.vb_nominal_uv, FW_VB_NOMINAL_UV);
	/* 533 counts (x16 = 8528) is 4.0699 V at the battery. */
	uv = fw_cal_vbat_uv(&c, 8528);
	assert_in_range(uv, 4069800, 4070000);
	c.adc_offset_uv = -5000000;
	assert_int_equal(fw_cal_vbat_uv(&c, 100), 0);
	fw_cal_pack(b, &c);
	fw_cal_unpack(b, &back);
	assert_memory_equal(&back, &c, sizeof(c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_check_value),
		cmocka_unit_test(test_crc_table_matches_definition),
		cmocka_unit_test(test_frames_one_pass),
		cmocka_unit_test(test_cobs_roundtrip),
		cmocka_unit_test(test_cobs_rejects_bad),
		cmocka_unit_test(test_every_message_roundtrips),
		cmocka_unit_test(test_receiver_errors),
		cmocka_unit_test(test_cal_defaults_and_conversion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
