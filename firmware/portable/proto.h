/*
 * proto.h - the board's host protocol: one codec for the firmware and the
 * host tools (docs/protocol.md is the specification).
 *
 * On the wire every message is a frame:
 *
 *     COBS( version | type | tag | body... | crc16 lo | crc16 hi ) 0x00
 *
 * COBS removes every zero byte, so 0x00 only ever ends a frame and a
 * receiver resynchronises after garbage at the next zero.  The CRC is
 * CRC-16/CCITT-FALSE over version..body.  `tag` is chosen by the host for a
 * request and echoed in the reply, so replies can be told apart from the
 * records streaming in between; records carry tag 0.
 *
 * Everything here is plain C99 with no allocation, for avr-gcc and the host
 * alike.  Multi-byte fields are little-endian.
 */
#ifndef FW_PROTO_H
#define FW_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define FW_PROTO_VERSION   1
#define FW_PAYLOAD_MAX     48   /* version..body, without the CRC */
#define FW_FRAME_RAW_MAX   (FW_PAYLOAD_MAX + 2)
/* COBS adds one byte per 254 (here: one), plus the 0x00 delimiter. */
#define FW_FRAME_WIRE_MAX  (FW_FRAME_RAW_MAX + 2)
#define FW_NAME_MAX        16

/* Message types: requests from the host (0x0_), replies and records (0x8_+). */
enum fw_msg_type {
	FW_REQ_INFO       = 0x01, /* -> FW_REP_INFO */
	FW_REQ_SET_QUANTUM = 0x02,/* u32 N -> OK */
	FW_REQ_SET_JITTER = 0x03, /* u8 percent -> OK */
	FW_REQ_SET_VCOMP  = 0x04, /* u8 0/1 -> OK */
	FW_REQ_SET_WIDTH  = 0x05, /* u16 IRQ pulse width, ns -> OK */
	FW_REQ_START      = 0x06, /* u32 seed (0: keep) -> OK, then records */
	FW_REQ_STOP       = 0x07, /* -> OK */
	FW_REQ_STATUS     = 0x08, /* -> FW_REP_STATUS */
	FW_REQ_CAL_READ   = 0x09, /* -> FW_REP_CAL */
	FW_REQ_CAL_WRITE  = 0x0a, /* struct fw_cal -> OK (written to EEPROM) */

	FW_REP_OK         = 0x81, /* u8 request type */
	FW_REP_ERR        = 0x82, /* u8 request type, u8 error code, u8 detail */
	FW_REP_INFO       = 0x83,
	FW_REP_STATUS     = 0x84,
	FW_REP_CAL        = 0x85,
	FW_MSG_RECORD     = 0xa0, /* one per quantum, unsolicited */
	FW_MSG_BOOT       = 0xa1, /* u8 reset cause (MCUSR), sent once after reset */

	/* From a sampled target (isr/cortexm's drain), not from the board:
	 * the same frames on the target's UART, SWO or semihosting file. */
	FW_MSG_TSAMPLE    = 0xb0, /* one sample: struct fw_tsample */
	FW_MSG_TINFO      = 0xb1, /* what samples and how: struct fw_tinfo */
	FW_MSG_TSTATUS    = 0xb2, /* counters: struct fw_tstatus */
};

/* Error codes in FW_REP_ERR (and returned by the decoders). */
enum fw_err {
	FW_OK = 0,
	FW_ERR_COBS = 1,          /* frame is not valid COBS */
	FW_ERR_TOO_LONG = 2,      /* more than FW_FRAME_WIRE_MAX bytes before 0x00 */
	FW_ERR_TRUNCATED = 3,     /* shorter than version+type+tag+crc */
	FW_ERR_CRC = 4,           /* CRC mismatch */
	FW_ERR_VERSION = 5,       /* protocol version not FW_PROTO_VERSION */
	FW_ERR_TYPE = 6,          /* unknown message type */
	FW_ERR_LENGTH = 7,        /* body length wrong for the type */
	FW_ERR_VALUE = 8,         /* a field out of range; detail = field number */
	FW_ERR_BUSY = 9,          /* not while counting: send STOP first */
	FW_ERR_EEPROM = 10,       /* calibration in EEPROM missing or bad CRC */
	FW_ERR_UNSUPPORTED = 11,  /* request not supported by this implementation */
};

/* Record flags (equal to EQP_BOARD_F_* in analysis/file/eqp.h: board log copies them). */
#define FW_REC_F_DROPPED  0x01 /* records were dropped (UART full) before this one */
#define FW_REC_F_LATE     0x02 /* the preload was set up late: quantum overran */
#define FW_REC_F_VCLAMP   0x04 /* Vb outside the compensation range: ratio clamped */

struct fw_record {
	uint32_t seq;             /* quantum number from START, counts dropped ones too */
	uint64_t time;            /* board ticks (40 bits on the wire) at the IRQ edge */
	uint32_t pulses;          /* pulses in this quantum (the preload, or more if late) */
	uint32_t vbat_uv;         /* battery-terminal voltage used for the preload */
	uint8_t flags;            /* FW_REC_F_* */
};

struct fw_info {
	uint8_t proto;            /* FW_PROTO_VERSION */
	uint8_t fw_major, fw_minor;
	uint32_t mcu_hz;          /* CPU clock */
	uint32_t tick_hz;         /* record timestamp clock */
	uint32_t baud;
	char name[FW_NAME_MAX + 1]; /* "eqfw atmega328p" */
};

struct fw_status {
	uint8_t running;
	uint8_t jitter_pct;
	uint8_t vcomp;
	uint8_t eeprom_ok;        /* calibration loaded from EEPROM (else defaults) */
	uint32_t quantum_pulses;
	uint16_t width_ns;
	uint32_t quanta;          /* IRQ edges raised since START */
	uint32_t pulses;          /* pulses in those quanta */
	uint32_t dropped;         /* records not sent: UART queue full */
	uint32_t late;            /* quanta that overran (preload set up late) */
	uint32_t rx_errors;       /* frames answered with FW_REP_ERR */
	uint32_t vbat_uv;         /* latest averaged battery-terminal voltage */
};

/* Calibration kept in EEPROM (with its own CRC) and sent as is. */
struct fw_cal {
	uint32_t adc_uv_per_lsb_q8; /* Vb microvolts per ADC count, x256 */
	int32_t adc_offset_uv;    /* added after the gain */
	uint32_t vb_nominal_uv;   /* voltage E_min refers to */
	uint32_t e_min_pj;        /* energy of one pulse at vb_nominal, picojoules */
	uint32_t serial;          /* board serial number */
};
#define FW_CAL_SIZE 20

/*
 * A target's sample (isr/core's struct eq_sample, field by field: the
 * codec does not reach into a later stage of the data path) and the
 * stacked LR of the interrupted context.
 */
struct fw_tsample {
	uint64_t time;            /* target ticks (tick_hz of TINFO) */
	uint64_t pc;              /* stacked PC: the interrupted instruction */
	uint32_t pid, tid, seq;   /* bare metal: pid 1, tid = interrupted exception number */
	uint16_t cpu, flags;      /* EQ_F_* */
	uint32_t lr;              /* stacked LR */
};
#define FW_TSAMPLE_BODY 36

/* Sent first and then every so often, so a host that joins late knows. */
#define FW_TMODE_ENERGY   1
#define FW_TMODE_TIME     2
#define FW_TCLOCK_DWT     1       /* DWT CYCCNT, extended to 64 bits */
#define FW_TCLOCK_SYSTICK 2       /* SysTick wraps counted in its handler */
#define FW_TINFO_F_EDGES  0x01    /* a hardware edge counter: merged edges are counted */
#define FW_TINFO_F_LR     0x02    /* samples carry the stacked LR */
#define FW_TINFO_F_QUANTA 0x04    /* the edge counter holds the board's quantum numbers */
struct fw_tinfo {
	uint8_t mode;             /* FW_TMODE_* */
	uint8_t clock;            /* FW_TCLOCK_* */
	uint8_t jitter_pct;       /* time mode: period drawn within +-jitter % */
	uint8_t flags;            /* FW_TINFO_F_* */
	uint32_t tick_hz;         /* sample time clock */
	uint32_t cpu_hz;
	uint32_t timer_hz;        /* time mode: the sampling timer's clock */
	uint32_t period;          /* time mode: mean period, timer ticks */
	uint32_t capacity;        /* ring slots */
	uint32_t first_seq;       /* seq of the first sample */
	char name[FW_NAME_MAX + 1]; /* the application's name */
};
#define FW_TINFO_BODY (4 + 6 * 4 + FW_NAME_MAX)

struct fw_tstatus {
	uint64_t time;            /* target ticks when sent */
	uint32_t next_seq;        /* samples taken or lost so far (seq of the next) */
	uint32_t dropped;         /* lost: ring full, plus merged edges */
	uint32_t merged;          /* of those: edges that merged before the handler ran */
	uint32_t spurious;        /* interrupts with no new edge counted */
	uint32_t sent;            /* samples framed by the drain */
	uint8_t final;            /* 1: the application stopped sampling; nothing follows */
};
#define FW_TSTATUS_BODY 32

struct fw_msg {
	uint8_t type;             /* enum fw_msg_type */
	uint8_t tag;
	union {
		uint32_t u32;         /* SET_QUANTUM, START seed */
		uint8_t u8;           /* SET_JITTER, SET_VCOMP, BOOT cause */
		uint16_t u16;         /* SET_WIDTH */
		struct { uint8_t req, code, detail; } reply; /* OK (req only), ERR */
		struct { uint8_t tag; } bad; /* a frame that failed its CRC: its tag as received */
		struct fw_info info;
		struct fw_status status;
		struct fw_cal cal;
		struct fw_record rec;
		struct fw_tsample ts;
		struct fw_tinfo ti;
		struct fw_tstatus tst;
	} u;
};

/* CRC-16/CCITT-FALSE (poly 0x1021, init 0xffff); check("123456789") = 0x29b1.
 * Table-driven (the table is in flash on the AVR). */
uint16_t fw_crc16(const uint8_t *p, size_t n);
uint16_t fw_crc16_update(uint16_t crc, uint8_t byte);

/* COBS: out needs n + n/254 + 1 bytes; no delimiter is written. */
size_t fw_cobs_encode(const uint8_t *in, size_t n, uint8_t *out);
/* Decodes n bytes (no delimiter); returns the length or -FW_ERR_COBS/-FW_ERR_TOO_LONG. */
int fw_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

/* Message <-> payload (version..body, no CRC). Encode returns the length or 0. */
/* A request with one scalar argument (SET_*, START, or none): the value goes
 * into the field that type carries. */
void fw_msg_request(struct fw_msg *m, uint8_t type, uint32_t value);
size_t fw_msg_encode(const struct fw_msg *m, uint8_t *payload, size_t cap);
/*
 * Checks the structure (version, type, body length) and fills *m; returns
 * FW_OK or an FW_ERR_* code.  Value ranges are the receiver's business.
 */
int fw_msg_decode(const uint8_t *payload, size_t n, struct fw_msg *m);

/* A whole frame for the wire, delimiter included; returns its length or 0.
 * One pass: the CRC and COBS are made as the payload bytes come. */
size_t fw_frame_encode(const struct fw_msg *m, uint8_t *out, size_t cap);
/* The same for a RECORD (tag 0) without the message struct: the firmware's
 * path for every quantum.  out holds FW_FRAME_WIRE_MAX bytes. */
#define FW_RECORD_BODY 18 /* u32 seq, u40 time, u32 pulses, u32 Vb uV, u8 flags */
size_t fw_record_frame(const struct fw_record *r, uint8_t *out);
/* From the record's body as it goes on the wire (little-endian fields). */
size_t fw_record_frame_body(const uint8_t *body, uint8_t *out);

/*
 * Byte-at-a-time frame receiver.  fw_deframer_push() returns 0 while a
 * frame is incomplete, 1 when *m holds a good message, or -FW_ERR_* for a
 * bad frame (the tag of a frame whose CRC failed is not trusted: m->tag is
 * 0 then, and m->type and m->u.bad.tag hold its type and tag bytes as
 * received, for the error reply).  Empty frames (0x00 0x00, used to
 * resynchronise) are ignored.
 */
struct fw_deframer {
	uint8_t buf[FW_FRAME_WIRE_MAX];
	uint8_t len;
	uint8_t overflow;         /* discarding up to the next 0x00 */
};
void fw_deframer_init(struct fw_deframer *d);
int fw_deframer_push(struct fw_deframer *d, uint8_t byte, struct fw_msg *m);

/* Little-endian field helpers shared by the codec and its tests. */
static inline void fw_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void fw_put32(uint8_t *p, uint32_t v)
{
	fw_put16(p, (uint16_t)v);
	fw_put16(p + 2, (uint16_t)(v >> 16));
}
static inline uint16_t fw_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}
static inline uint32_t fw_get32(const uint8_t *p)
{
	return fw_get16(p) | (uint32_t)fw_get16(p + 2) << 16;
}

/* Names for messages and logs ("crc mismatch", "STATUS"). */
const char *fw_err_name(int code);
const char *fw_type_name(uint8_t type);

#endif
