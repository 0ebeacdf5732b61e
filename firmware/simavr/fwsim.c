/*
 * fwsim.c - the board firmware in simavr (see fwsim.h).
 *
 * simavr 1.6 behaviour relied on (measured; docs/firmware.md):
 *   - Timer1 clocked from T1 counts every rising edge raised on PD5's IRQ;
 *   - pin changes are notified twice (value | 0x100, then plain), so the
 *     IRQ line is followed through transitions of (value & 1);
 *   - a UART byte takes 11 bit times (a parity bit is always counted);
 *   - ADC inputs take millivolts at the pin; AVcc/AREF are set here to the
 *     board's 5.0 V.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_adc.h>
#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>

#include "fw_defaults.h"
#include "fwsim.h"

/*
 * simavr 1.6 times a UART byte as 11 bits (it always counts a parity bit),
 * so the host side feeds bytes at that pace, not at 8N1's 10 bits.
 */
#define CYCLES_PER_BYTE (FW_MCU_CLOCK_HZ / FW_UART_BAUD * 11)
#define REPLY_MAX 16

struct fwsim {
	avr_t *avr;
	avr_irq_t *t1, *adc0, *uart_in;
	uint64_t pulses;
	int irq_level;
	struct fwsim_edge *edges;
	size_t nedges, edges_cap;
	uint8_t *tx;              /* bytes waiting to go to the board */
	size_t tx_len, tx_pos, tx_cap;
	uint64_t next_byte_cycle;
	int uart_full;            /* simavr's input FIFO said XOFF */
	struct fw_deframer rx;
	struct fw_record *recs;
	size_t nrecs, recs_cap, recs_taken;
	struct fw_msg replies[REPLY_MAX];
	unsigned nreplies;
	struct fw_msg errors[REPLY_MAX];
	unsigned nerrors;
	unsigned boots, bad_frames;
	uint64_t pin_rises;       /* rises of the OC1A pin, spurious ones included */
	uint8_t next_tag;
	int vbat_mv;
	void (*tap)(void *ctx, uint8_t byte);
	void *tap_ctx;
	fwsim_step_fn step;
	void *step_ctx;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 256;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * size);
	if (!p) {
		perror("fwsim");
		abort();
	}
	return p;
}

/*
 * IRQ edges come from Timer1's compare matches, not from the pin: simavr
 * also drives OC1A at a counter overflow (it applies PWM-mode rules in
 * normal mode: "clear on match" sets the pin at the wrap), which would show
 * as an edge no quantum made.  A match while the compare output is armed
 * (COM1A1:0 = set on match: the last step of a quantum) is the rising edge
 * silicon gives; the pin's next fall ends the pulse.
 */
#define TCCR1A_ADDR 0x80
#define COM1A_SET   0xc0
#define TIMER1_COMPA_VECTOR 11

static void on_compare(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct fwsim *s = param;

	(void)irq;
	if (!value || (s->avr->data[TCCR1A_ADDR] & COM1A_SET) != COM1A_SET)
		return;
	s->edges = grow(s->edges, &s->edges_cap, s->nedges + 1, sizeof(*s->edges));
	s->edges[s->nedges++] = (struct fwsim_edge){
		.rise = s->avr->cycle, .fall = 0, .pulses = s->pulses };
}

static void on_irq_line(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct fwsim *s = param;
	int level = value & 1;

	(void)irq;
	if (level == s->irq_level)
		return;
	s->irq_level = level;
	if (level)
		s->pin_rises++;
	else if (s->nedges && !s->edges[s->nedges - 1].fall)
		s->edges[s->nedges - 1].fall = s->avr->cycle;
}

/* simavr's UART input FIFO (64 bytes) is full / has room again. */
static void on_uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)value;
	((struct fwsim *)param)->uart_full = 1;
}

static void on_uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)value;
	((struct fwsim *)param)->uart_full = 0;
}

static void keep(struct fw_msg *queue, unsigned *n, const struct fw_msg *m)
{
	if (*n == REPLY_MAX) {
		memmove(queue, queue + 1, (REPLY_MAX - 1) * sizeof(*queue));
		(*n)--;
	}
	queue[(*n)++] = *m;
}

static void on_uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct fwsim *s = param;
	struct fw_msg m;
	int r;

	(void)irq;
	if (s->tap)
		s->tap(s->tap_ctx, (uint8_t)value);
	r = fw_deframer_push(&s->rx, (uint8_t)value, &m);
	if (r < 0) {
		s->bad_frames++;
		return;
	}
	if (r == 0)
		return;
	switch (m.type) {
	case FW_MSG_RECORD:
		s->recs = grow(s->recs, &s->recs_cap, s->nrecs + 1, sizeof(*s->recs));
		s->recs[s->nrecs++] = m.u.rec;
		break;
	case FW_MSG_BOOT:
		s->boots++;
		break;
	default:
		if (m.type == FW_REP_ERR && m.tag == 0)
			keep(s->errors, &s->nerrors, &m);
		else
			keep(s->replies, &s->nreplies, &m);
		break;
	}
}

/* simavr's messages: errors only (the ELF loader chats on every load). */
static void quiet_logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
	(void)avr;
	if (level > LOG_ERROR)
		return;
	fputs("simavr: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* elf_read_firmware() allocates these; avr_load_firmware() copies them. */
static void free_firmware_image(elf_firmware_t *fw)
{
	uint32_t i;

	free(fw->flash);
	free(fw->eeprom);
	free(fw->fuse);
	free(fw->lockbits);
	for (i = 0; i < fw->symbolcount; i++)
		free(fw->symbol[i]);
	free(fw->symbol);
}

static int built_for_simavr(const elf_firmware_t *fw)
{
	uint32_t i;

	for (i = 0; i < fw->symbolcount; i++)
		if (!strcmp(fw->symbol[i]->symbol, "fw_build_simavr"))
			return 1;
	return 0;
}

struct fwsim *fwsim_open(const char *elf, struct eq_error *err)
{
	return fwsim_open_flags(elf, 0, err);
}

struct fwsim *fwsim_open_flags(const char *elf, unsigned open_flags, struct eq_error *err)
{
	elf_firmware_t fw;
	struct fwsim *s;
	uint32_t flags = 0;

	avr_global_logger_set(quiet_logger);
	memset(&fw, 0, sizeof(fw));
	if (elf_read_firmware(elf, &fw) != 0) {
		eq_fail(err, "%s: cannot load the firmware ELF (build it with `make -C firmware`)", elf);
		return NULL;
	}
	if (!(open_flags & FWSIM_ANY_BUILD) && !built_for_simavr(&fw)) {
		free_firmware_image(&fw);
		eq_fail(err, "%s: this firmware is built for silicon; simavr needs eqfw-simavr.elf "
			"(`make -C firmware` builds both: docs/firmware.md, \"Running in simavr\")", elf);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		eq_fail(err, "fwsim: out of memory");
		return NULL;
	}
	s->avr = avr_make_mcu_by_name("atmega328p");
	if (!s->avr) {
		free(s);
		eq_fail(err, "simavr has no atmega328p core");
		return NULL;
	}
	avr_init(s->avr);
	s->avr->log = LOG_ERROR;
	s->avr->frequency = FW_MCU_CLOCK_HZ;
	s->avr->avcc = s->avr->vcc = 5000;
	s->avr->aref = (uint32_t)(FW_ADC_VREF_V * 1000);
	avr_load_firmware(s->avr, &fw);
	s->avr->frequency = FW_MCU_CLOCK_HZ;
	free_firmware_image(&fw);

	s->t1 = avr_io_getirq(s->avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 5);
	s->adc0 = avr_io_getirq(s->avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0);
	s->uart_in = avr_io_getirq(s->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
	avr_irq_register_notify(avr_io_getirq(s->avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 1),
				on_irq_line, s);
	avr_irq_register_notify(avr_get_interrupt_irq(s->avr, TIMER1_COMPA_VECTOR) + AVR_INT_IRQ_PENDING,
				on_compare, s);
	avr_irq_register_notify(avr_io_getirq(s->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
				on_uart_out, s);
	avr_irq_register_notify(avr_io_getirq(s->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
				on_uart_xoff, s);
	avr_irq_register_notify(avr_io_getirq(s->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
				on_uart_xon, s);
	avr_ioctl(s->avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
	flags &= ~AVR_UART_FLAG_STDIO;
	avr_ioctl(s->avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
	avr_raise_irq(s->t1, 0);
	fw_deframer_init(&s->rx);
	s->vbat_mv = -1;
	fwsim_set_vbat(s, FW_VB_NOMINAL_V);
	return s;
}

void fwsim_close(struct fwsim *s)
{
	if (!s)
		return;
	avr_terminate(s->avr);
	free(s->avr);
	free(s->edges);
	free(s->tx);
	free(s->recs);
	free(s);
}

uint64_t fwsim_cycle(const struct fwsim *s)
{
	return s->avr->cycle;
}

uint32_t fwsim_hz(const struct fwsim *s)
{
	return s->avr->frequency;
}

/*
 * The host side of the UART: one byte per character time, like the FT232R,
 * held back while simavr's input FIFO is full (the firmware's own receive
 * ring and its overrun count are what the tests look at).
 */
static void feed_uart(struct fwsim *s)
{
	if (s->tx_pos == s->tx_len || s->avr->cycle < s->next_byte_cycle || s->uart_full)
		return;
	avr_raise_irq(s->uart_in, s->tx[s->tx_pos++]);
	s->next_byte_cycle = s->avr->cycle + CYCLES_PER_BYTE;
	if (s->tx_pos == s->tx_len)
		s->tx_pos = s->tx_len = 0;
}

int fwsim_run_to(struct fwsim *s, uint64_t until, struct eq_error *err)
{
	while (s->avr->cycle < until) {
		int state;

		uint64_t c0 = s->avr->cycle;
		uint32_t pc = s->avr->pc;

		feed_uart(s);
		state = avr_run(s->avr);
		if (s->step)
			s->step(s->step_ctx, pc, (uint32_t)(s->avr->cycle - c0), s->avr->sreg[S_I]);
		if (state == cpu_Done || state == cpu_Crashed) {
			return eq_fail(err, "firmware in simavr %s at cycle %llu (pc 0x%x)",
				       state == cpu_Done ? "stopped" : "crashed",
				       (unsigned long long)s->avr->cycle, s->avr->pc);
		}
	}
	return 0;
}

int fwsim_pulse(struct fwsim *s, uint32_t high, struct eq_error *err)
{
	s->pulses++;
	avr_raise_irq(s->t1, 1);
	if (fwsim_run_to(s, s->avr->cycle + (high ? high : 1), err) < 0)
		return -1;
	avr_raise_irq(s->t1, 0);
	return 0;
}

uint64_t fwsim_pulses_fed(const struct fwsim *s)
{
	return s->pulses;
}

void fwsim_set_vbat(struct fwsim *s, double volts)
{
	double at_pin = volts * FW_ADC_R_BOTTOM_OHM / (FW_ADC_R_TOP_OHM + FW_ADC_R_BOTTOM_OHM);
	int mv = (int)(at_pin * 1000 + 0.5);

	if (mv < 0)
		mv = 0;
	if (mv == s->vbat_mv)
		return;
	s->vbat_mv = mv;
	avr_raise_irq(s->adc0, (uint32_t)mv);
}

void fwsim_reset(struct fwsim *s, uint8_t mcusr)
{
	int mv = s->vbat_mv;

	avr_reset(s->avr);
	if (mcusr & 1)
		avr_regbit_set(s->avr, s->avr->reset_flags.porf);
	if (mcusr & 2)
		avr_regbit_set(s->avr, s->avr->reset_flags.extrf);
	if (mcusr & 4)
		avr_regbit_set(s->avr, s->avr->reset_flags.borf);
	if (mcusr & 8)
		avr_regbit_set(s->avr, s->avr->reset_flags.wdrf);
	fw_deframer_init(&s->rx);
	s->uart_full = 0;
	/* The ADC's input is the wiring's, not the MCU's: raise it again. */
	s->vbat_mv = -1;
	avr_raise_irq(s->adc0, (uint32_t)mv);
	s->vbat_mv = mv;
}

const struct fwsim_edge *fwsim_edges(const struct fwsim *s, size_t *n)
{
	*n = s->nedges;
	return s->edges;
}

uint64_t fwsim_pin_rises(const struct fwsim *s)
{
	return s->pin_rises;
}

unsigned fwsim_boots(const struct fwsim *s)
{
	return s->boots;
}

void fwsim_send_bytes(struct fwsim *s, const uint8_t *p, size_t n)
{
	s->tx = grow(s->tx, &s->tx_cap, s->tx_len + n, 1);
	memcpy(s->tx + s->tx_len, p, n);
	s->tx_len += n;
}

void fwsim_send(struct fwsim *s, const struct fw_msg *m)
{
	uint8_t frame[FW_FRAME_WIRE_MAX];
	size_t n = fw_frame_encode(m, frame, sizeof(frame));

	fwsim_send_bytes(s, frame, n);
}

void fwsim_set_uart_tap(struct fwsim *s, void (*fn)(void *ctx, uint8_t byte), void *ctx)
{
	s->tap = fn;
	s->tap_ctx = ctx;
}

void fwsim_set_step_hook(struct fwsim *s, fwsim_step_fn fn, void *ctx)
{
	s->step = fn;
	s->step_ctx = ctx;
}

struct avr_t *fwsim_core(struct fwsim *s)
{
	return s->avr;
}

size_t fwsim_send_pending(const struct fwsim *s)
{
	return s->tx_len - s->tx_pos;
}

static int take_reply(struct fwsim *s, uint8_t tag, struct fw_msg *reply)
{
	unsigned i;

	for (i = 0; i < s->nreplies; i++) {
		if (s->replies[i].tag != tag)
			continue;
		*reply = s->replies[i];
		memmove(s->replies + i, s->replies + i + 1,
			(s->nreplies - i - 1) * sizeof(*s->replies));
		s->nreplies--;
		return 1;
	}
	return 0;
}

int fwsim_request(struct fwsim *s, struct fw_msg *req, struct fw_msg *reply,
		  uint64_t timeout_cycles, struct eq_error *err)
{
	uint64_t deadline = s->avr->cycle + timeout_cycles;

	if (++s->next_tag == 0)
		s->next_tag = 1;
	req->tag = s->next_tag;
	fwsim_send(s, req);
	while (!take_reply(s, req->tag, reply)) {
		if (s->avr->cycle >= deadline)
			return eq_fail(err, "board in simavr: no reply to %s within %llu cycles",
				       fw_type_name(req->type), (unsigned long long)timeout_cycles);
		if (fwsim_run_to(s, s->avr->cycle + 64, err) < 0)
			return -1;
	}
	return 0;
}

int fwsim_take_record(struct fwsim *s, struct fw_record *r)
{
	if (s->recs_taken == s->nrecs)
		return 0;
	*r = s->recs[s->recs_taken++];
	return 1;
}

size_t fwsim_records_pending(const struct fwsim *s)
{
	return s->nrecs - s->recs_taken;
}

unsigned fwsim_bad_frames(const struct fwsim *s)
{
	return s->bad_frames;
}

int fwsim_take_error(struct fwsim *s, struct fw_msg *m)
{
	if (!s->nerrors)
		return 0;
	*m = s->errors[0];
	memmove(s->errors, s->errors + 1, (s->nerrors - 1) * sizeof(*s->errors));
	s->nerrors--;
	return 1;
}
