/*
 * quantum.c - counting quanta on Timer1 and raising the IRQ edge in hardware.
 *
 * Timer1 runs in CTC mode (TOP = OCR1A) clocked by the front-end pulses on
 * T1 (PD5, rising edge).  A compare match clears the counter and, when the
 * step ends a quantum, sets OC1A (PB1, the IRQ line to the target): the
 * rising edge is made by the timer hardware in the same clock as the
 * quantum-completing pulse, with no software in the path.
 *
 * The match interrupt then, in this order:
 *   1. takes the timestamp;
 *   2. holds OC1A high for the pulse width, then clears it;
 *   3. programs OCR1A for the next step (a countdown preload: the counter
 *      restarted from 0 at the match) and checks it was in time: if the
 *      counter has already passed the new value, the quantum is extended
 *      to end 2 pulses from now and flagged LATE, never silently skipped;
 *   4. queues the record of the quantum that ended;
 *   5. draws the preload after next (jitter, compensation) with its own
 *      interrupt masked and the others enabled, so UART and clock keep up.
 *
 * Quanta above 65536 pulses are laid out by fw_sched (counter.h): steps of
 * 32768 with OC1A disconnected, then an armed final step.
 *
 * simavr 1.6 has no model for FOC1A (force output compare); its OC1A pin
 * simply follows any PORTB write.  Clearing OC1A therefore does both: the
 * forced compare (silicon) and a write of 0 to PORTB1 (simavr; on silicon
 * the compare output overrides the port, so the write has no effect).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"
#include "fw_defaults.h"

#define COM1A_SET   (_BV(COM1A1) | _BV(COM1A0))
#define COM1A_CLEAR _BV(COM1A1)
#define T1_EXT_RISE (_BV(CS12) | _BV(CS11) | _BV(CS10))
#define REC_QUEUE   8 /* power of two */

struct quantum_state {
	struct fw_counter counter;
	struct fw_sched sched;
	uint32_t step;            /* pulses of the step being counted */
	uint32_t pulses;          /* pulses of the quantum being counted */
	uint32_t vbat_uv;         /* voltage its preload was drawn with */
	uint8_t flags;            /* FW_REC_F_* for its record */
	uint32_t next_pulses;     /* the quantum after it, drawn in advance */
	uint32_t next_vbat_uv;
	uint8_t next_flags;
	uint32_t seq;
	uint8_t width_ticks;      /* IRQ high time in Timer0 ticks (0.5 us) */
	uint8_t pending_dropped;  /* a record was dropped: flag the next one */
	uint32_t quanta, total_pulses, dropped, late;
};

static struct quantum_state q;
static volatile uint8_t running;
static struct fw_record rec_queue[REC_QUEUE];
static volatile uint8_t rec_head, rec_tail;

void quantum_init(void)
{
	PORTB &= ~_BV(PB1);
	DDRB |= _BV(PB1);          /* OC1A: IRQ line, low when idle */
	DDRD &= ~_BV(PD5);         /* T1: pulses in */
	TCCR1A = 0;
	TCCR1B = 0;
	OCR1B = 0xffff;            /* simavr clears a CTC counter on any OCR1x match */
}

/* Ends the IRQ pulse: OC1A low, whatever the compare output mode. */
static void irq_line_low(void)
{
	TCCR1A = COM1A_CLEAR;
	TCCR1C = _BV(FOC1A);
	PORTB &= ~_BV(PB1);
}

/*
 * Programs the step just taken from q.sched and checks it is still ahead
 * of the counter; if not, moves the end of the quantum to 2 pulses from
 * now.  Returns the pulses the quantum grew by (0 when in time).
 */
static uint32_t program_step(void)
{
	uint16_t now, end;

	TCCR1A = fw_sched_final(&q.sched) ? COM1A_SET : 0;
	OCR1A = (uint16_t)(q.step - 1);
	now = TCNT1;
	if (!fw_sched_missed(now, q.step))
		return 0;
	do {
		now = TCNT1;
		end = now + 2;
		OCR1A = end;
	} while (TCNT1 > end);
	q.late++;
	q.flags |= FW_REC_F_LATE;
	return (uint32_t)end + 1 - q.step;
}

/* Draws the preload after next; called with this interrupt masked. */
static void draw_next(void)
{
	q.next_pulses = fw_counter_next(&q.counter);
	q.next_vbat_uv = q.counter.vbat_uv;
	q.next_flags = q.counter.clamped ? FW_REC_F_VCLAMP : 0;
}

static void begin_quantum(void)
{
	q.pulses = q.next_pulses;
	q.vbat_uv = q.next_vbat_uv;
	q.flags = q.next_flags;
	q.step = fw_sched_begin(&q.sched, q.pulses);
	q.pulses += program_step();
}

static void queue_record(uint64_t t)
{
	uint8_t next = (rec_head + 1) & (REC_QUEUE - 1);
	struct fw_record *r = &rec_queue[rec_head];

	if (next == rec_tail) {
		q.dropped++;
		q.pending_dropped = 1;
		return;
	}
	r->seq = q.seq;
	r->time = t;
	r->pulses = q.pulses;
	r->vbat_uv = q.vbat_uv;
	r->flags = q.flags | (q.pending_dropped ? FW_REC_F_DROPPED : 0);
	q.pending_dropped = 0;
	rec_head = next;
}

ISR(TIMER1_COMPA_vect)
{
	uint64_t t = clock_now_isr();
	uint8_t t0 = (uint8_t)t;

	if (!fw_sched_final(&q.sched)) {
		/* An intermediate step of a long quantum: no edge, next step. */
		q.step = fw_sched_next(&q.sched);
		q.pulses += program_step();
		return;
	}
	while ((uint8_t)(TCNT0 - t0) <= q.width_ticks)
		;
	irq_line_low();

	q.quanta++;
	q.total_pulses += q.pulses;
	queue_record(t);
	q.seq++;
	begin_quantum();

	/* The next draw may take ~1000 cycles: let UART and clock in meanwhile. */
	TIMSK1 = 0;
	sei();
	draw_next();
	cli();
	TIMSK1 = _BV(OCIE1A);
}

void quantum_start(const struct quantum_config *cfg, uint32_t vbat_uv)
{
	quantum_stop();
	fw_counter_init(&q.counter, &cfg->counter);
	fw_counter_set_vbat(&q.counter, vbat_uv);
	q.width_ticks = (uint8_t)((cfg->width_ns + 499) / 500);
	q.seq = 0;
	q.quanta = q.total_pulses = q.dropped = q.late = 0;
	q.pending_dropped = 0;
	rec_head = rec_tail = 0;
	draw_next();
	ATOMIC_BLOCK(ATOMIC_FORCEON) {
		irq_line_low();
		TCCR1B = _BV(WGM12) | T1_EXT_RISE; /* CTC, TOP = OCR1A, clock from T1 */
		TCNT1 = 0;
		begin_quantum();
		draw_next();
		TIFR1 = _BV(OCF1A);
		TIMSK1 = _BV(OCIE1A);
		running = 1;
	}
}

void quantum_stop(void)
{
	ATOMIC_BLOCK(ATOMIC_FORCEON) {
		TIMSK1 = 0;
		TCCR1B = 0;
		irq_line_low();
		TCCR1A = 0;
		running = 0;
	}
}

uint8_t quantum_running(void)
{
	return running;
}

uint8_t quantum_pop_record(struct fw_record *r)
{
	uint8_t got = 0;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		if (rec_tail != rec_head) {
			*r = rec_queue[rec_tail];
			rec_tail = (rec_tail + 1) & (REC_QUEUE - 1);
			got = 1;
		}
	}
	return got;
}

void quantum_set_vbat(uint32_t vbat_uv)
{
	uint8_t clamped = 0;
	uint32_t ratio = q.counter.cfg.vcomp ?
		fw_vcomp_ratio_q16(q.counter.cfg.vb_nominal_uv, vbat_uv, &clamped) :
		FW_RATIO_ONE_Q16;

	/* The division above ran with interrupts on; only the stores are atomic. */
	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		q.counter.ratio_q16 = ratio;
		q.counter.clamped = clamped;
		q.counter.vbat_uv = vbat_uv;
	}
}

void quantum_stats(struct fw_status *s)
{
	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		s->running = running;
		s->quanta = q.quanta;
		s->pulses = q.total_pulses;
		s->dropped = q.dropped;
		s->late = q.late;
	}
}
