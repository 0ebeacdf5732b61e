/*
 * main.c - the board firmware's main loop: host commands, records out,
 * battery voltage in.  Counting itself happens in quantum.c's interrupt.
 *
 * Watchdog 250 ms (reset by the loop), brown-out detection at 4.3 V (fuses
 * below).  Every request gets exactly one reply; bad frames get FW_REP_ERR
 * and are otherwise ignored, so garbage on the line cannot wedge the board.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <string.h>

#include "board.h"
#include "cal.h"
#include "fw_defaults.h"

/* Fuses for `make -C firmware flash`: 16 MHz crystal, BOD 4.3 V, EESAVE. */
FUSES = {
	.low = 0xff,      /* external full-swing crystal, slowest start-up */
	.high = 0xd1,     /* SPIEN, EESAVE (keep calibration across flashing), no boot loader */
	.extended = 0xfc, /* BODLEVEL 4.3 V */
};

#define WIDTH_NS_MIN 1000

static struct quantum_config config;
static struct fw_cal cal;
static uint8_t eeprom_ok;
static uint32_t vbat_uv;
static uint32_t rx_errors;

static void send(const struct fw_msg *m)
{
	uint8_t frame[FW_FRAME_WIRE_MAX];
	size_t n = fw_frame_encode(m, frame, sizeof(frame));

	/* Encoding takes ~1000 cycles: top up the preloads before writing. */
	if (quantum_running())
		quantum_refill();
	uart_write(frame, (uint8_t)n);
}

static void reply_ok(uint8_t tag, uint8_t req)
{
	struct fw_msg m = { .type = FW_REP_OK, .tag = tag };

	m.u.reply.req = req;
	send(&m);
}

static void reply_err(uint8_t tag, uint8_t req, uint8_t code, uint8_t detail)
{
	struct fw_msg m = { .type = FW_REP_ERR, .tag = tag };

	m.u.reply.req = req;
	m.u.reply.code = code;
	m.u.reply.detail = detail;
	send(&m);
	rx_errors++;
}

static void reply_info(uint8_t tag)
{
	struct fw_msg m = { .type = FW_REP_INFO, .tag = tag };

	m.u.info.proto = FW_PROTO_VERSION;
	m.u.info.fw_major = FW_VERSION_MAJOR;
	m.u.info.fw_minor = FW_VERSION_MINOR;
	m.u.info.mcu_hz = FW_MCU_CLOCK_HZ;
	m.u.info.tick_hz = FW_TICK_HZ;
	m.u.info.baud = FW_UART_BAUD;
	strcpy(m.u.info.name, "eqfw atmega328p");
	send(&m);
}

static void reply_status(uint8_t tag)
{
	struct fw_msg m = { .type = FW_REP_STATUS, .tag = tag };

	quantum_stats(&m.u.status);
	m.u.status.jitter_pct = config.counter.jitter_pct;
	m.u.status.vcomp = config.counter.vcomp;
	m.u.status.eeprom_ok = eeprom_ok;
	m.u.status.quantum_pulses = config.counter.quantum_pulses;
	m.u.status.width_ns = config.width_ns;
	m.u.status.rx_errors = rx_errors + uart_rx_overruns();
	m.u.status.vbat_uv = vbat_uv;
	send(&m);
}

/* A configuration change, checked with the portable rules; 0 or an error. */
static uint8_t try_config(const struct fw_msg *req)
{
	struct quantum_config c = config;
	uint8_t bad;

	switch (req->type) {
	case FW_REQ_SET_QUANTUM: c.counter.quantum_pulses = req->u.u32; break;
	case FW_REQ_SET_JITTER:  c.counter.jitter_pct = req->u.u8; break;
	case FW_REQ_SET_VCOMP:
		if (req->u.u8 > 1)
			return FW_ERR_VALUE;
		c.counter.vcomp = req->u.u8;
		break;
	case FW_REQ_SET_WIDTH:
		if (req->u.u16 < WIDTH_NS_MIN)
			return FW_ERR_VALUE;
		c.width_ns = req->u.u16;
		break;
	}
	bad = (uint8_t)fw_counter_check(&c.counter);
	if (bad)
		return FW_ERR_VALUE;
	config = c;
	return FW_OK;
}

static void handle(const struct fw_msg *req)
{
	uint8_t err = FW_OK;

	switch (req->type) {
	case FW_REQ_INFO:
		reply_info(req->tag);
		return;
	case FW_REQ_STATUS:
		reply_status(req->tag);
		return;
	case FW_REQ_CAL_READ: {
		struct fw_msg m = { .type = FW_REP_CAL, .tag = req->tag };

		m.u.cal = cal;
		send(&m);
		return;
	}
	case FW_REQ_START:
		if (req->u.u32)
			config.counter.seed = req->u.u32;
		quantum_start(&config, vbat_uv);
		break;
	case FW_REQ_STOP:
		quantum_stop();
		break;
	case FW_REQ_SET_QUANTUM: case FW_REQ_SET_JITTER:
	case FW_REQ_SET_VCOMP: case FW_REQ_SET_WIDTH:
		err = quantum_running() ? FW_ERR_BUSY : try_config(req);
		break;
	case FW_REQ_CAL_WRITE:
		if (quantum_running()) {
			err = FW_ERR_BUSY;
			break;
		}
		if (req->u.cal.vb_nominal_uv < 1000 || req->u.cal.adc_uv_per_lsb_q8 == 0) {
			err = FW_ERR_VALUE;
			break;
		}
		cal = req->u.cal;
		calib_store(&cal);
		eeprom_ok = calib_load(&cal);
		config.counter.vb_nominal_uv = cal.vb_nominal_uv;
		err = eeprom_ok ? FW_OK : FW_ERR_EEPROM;
		break;
	default:
		/* A reply or record type sent to the board. */
		err = FW_ERR_TYPE;
		break;
	}
	if (err)
		reply_err(req->tag, req->type, err, 0);
	else
		reply_ok(req->tag, req->type);
}

static void poll_host(struct fw_deframer *d)
{
	uint8_t running = quantum_running();
	struct fw_msg m;
	int16_t c;
	int r;

	while ((c = uart_getc()) >= 0) {
		if (running)
			quantum_refill();
		r = fw_deframer_push(d, (uint8_t)c, &m);
		if (r > 0)
			handle(&m);
		else if (r < 0)
			/* Tag 0: the frame's own tag cannot be trusted; for a CRC
			 * mismatch the detail byte echoes it as received, so a host
			 * whose request it was resends at once instead of waiting. */
			reply_err(0, m.type, (uint8_t)-r, r == -FW_ERR_CRC ? m.u.bad.tag : 0);
		wdt_reset();
	}
}

/*
 * One record per loop turn (the preload queue is refilled between them),
 * framed in one pass (CRC and COBS) straight into the transmit ring when
 * it has the room without wrapping, else through a buffer.
 */
static void poll_records(void)
{
	uint8_t frame[FW_FRAME_WIRE_MAX], *p, n;

	if ((p = uart_tx_claim(FW_FRAME_WIRE_MAX))) {
		if ((n = quantum_pop_frame(p)))
			uart_tx_commit(n);
	} else if (uart_tx_room() >= FW_FRAME_WIRE_MAX && (n = quantum_pop_frame(frame))) {
		uart_write(frame, n);
	}
}

static void poll_adc(void)
{
	uint16_t sum;

	if (!adc_take_sum16(&sum))
		return;
	vbat_uv = fw_cal_vbat_uv(&cal, sum);
	quantum_set_vbat(vbat_uv);
}

int main(void)
{
	struct fw_deframer deframer;
	struct fw_msg boot = { .type = FW_MSG_BOOT, .tag = 0 };

	boot.u.u8 = MCUSR;
	MCUSR = 0;
	wdt_enable(WDTO_250MS);

	eeprom_ok = calib_load(&cal);
	config.counter.quantum_pulses = FW_QUANTUM_PULSES;
	config.counter.jitter_pct = FW_JITTER_PCT;
	config.counter.vcomp = 0;
	config.counter.vb_nominal_uv = cal.vb_nominal_uv;
	config.counter.seed = 0;
	config.width_ns = FW_IRQ_PULSE_WIDTH_NS;
	fw_deframer_init(&deframer);

	clock_init();
	quantum_init();
	uart_init();
	adc_init();
	sei();
	/* A delimiter first: the host may hold half a frame sent before the
	 * reset, which would otherwise swallow the BOOT message. */
	uart_write((const uint8_t *)"", 1);
	send(&boot);

	for (;;) {
		wdt_reset();
		poll_host(&deframer);
		if (quantum_running())
			quantum_refill();
		poll_records();
		poll_adc();
	}
}
