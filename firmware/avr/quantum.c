/*
 * quantum.c - counting quanta on Timer1 and raising the IRQ edge in hardware.
 *
 * Timer1 runs free (normal mode) clocked by the front-end pulses on T1
 * (PD5, rising edge), so TCNT1 is an exact pulse count modulo 2^16 that
 * nothing ever resets.  A quantum ends at an absolute count: OCR1A = end of
 * the previous quantum + its preload (a countdown counter, seed 001
 * Figure 15, expressed as a compare position).  At the match the timer
 * hardware sets OC1A (PB1, the IRQ line to the target): the rising edge
 * comes with the quantum-completing pulse, with no software in the path.
 *
 * The match interrupt then, in this order:
 *   1. reads Timer0 (timestamp and pulse-width origin);
 *   2. holds OC1A high for the pulse width, then clears it;
 *   3. programs OCR1A for the next quantum and checks it was in time: the
 *      counter says exactly how many pulses have passed since the quantum
 *      ended, so if it is already past the new end the quantum is extended
 *      to end 2 pulses from now and flagged LATE, with its true length in
 *      the record; no quantum is skipped or merged unseen, at any rate (the
 *      old compare value would only match again 65536 pulses later);
 *   4. queues the record of the quantum that ended.
 * The preloads themselves (jitter, compensation: ~1000 cycles of 32/64-bit
 * arithmetic) are drawn by the main loop into a queue a few quanta ahead,
 * so the interrupt stays short and never enables nesting.  (simavr 1.6
 * also drops an interrupt whose flag rose while its enable bit was off,
 * which rules out masking OCIE1A around a nested section.)  Should the
 * queue ever run dry (quanta faster than the CPU can draw them), the
 * quantum takes twice the previous preload and is flagged LATE: the
 * interrupt rate halves until the main loop has caught up, so overload
 * degrades into longer, flagged quanta instead of a watchdog reset.
 *
 * Quanta above 65535 pulses are laid out by fw_sched (counter.h): steps of
 * 32768 with OC1A disconnected, then an armed final step.
 *
 * Two simavr 1.6 gaps are covered without changing behaviour on silicon:
 *   - it has no model for FOC1A (force output compare) and its OC1A pin
 *     follows any PORTB write, so clearing OC1A does both: the forced
 *     compare (silicon) and a write of 0 to PORTB1 (simavr; on silicon the
 *     compare output overrides the port, so the write has no effect);
 *   - it never matches OCR1A = 0xffff, so an intermediate step ending
 *     there ends one pulse early (the quantum is unchanged), and a quantum
 *     ending there ends one pulse late and the next one is one pulse
 *     shorter: at most once per 65536 pulses, shown in the records, exact
 *     in the long run.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"
#include "fw_defaults.h"

#define COM1A_SET   (_BV(COM1A1) | _BV(COM1A0))
#define COM1A_CLEAR _BV(COM1A1)
#define T1_EXT_RISE (_BV(CS12) | _BV(CS11) | _BV(CS10))
#define OCR_DEAD    0xffff    /* simavr 1.6 never matches it */
#define REC_QUEUE   8 /* powers of two */
#define PRE_QUEUE   8

struct preload {
	uint32_t pulses, vbat_uv;
	uint8_t flags;
};

struct quantum_state {
	struct fw_counter counter;
	struct fw_sched sched;
	uint32_t step;            /* pulses of the step being counted */
	uint16_t mark;            /* TCNT1 position where the last step ended */
	uint8_t shorten;          /* the last end moved off OCR_DEAD: next one pulse less */
	uint32_t pulses;          /* pulses of the quantum being counted */
	uint32_t vbat_uv;         /* voltage its preload was drawn with */
	uint8_t flags;            /* FW_REC_F_* for its record */
	uint32_t seq;
	uint8_t width_ticks;      /* IRQ high time in Timer0 ticks (0.5 us) */
	uint8_t pending_dropped;  /* a record was dropped: flag the next one */
	uint32_t quanta, total_pulses, dropped, late;
};

static struct quantum_state q;
static volatile uint8_t running;
/* Records as the ISR leaves them: the 40-bit time is put together later. */
struct raw_record {
	uint32_t seq, pulses, vbat_uv;
	uint32_t t_hi;            /* Timer0 overflows */
	uint8_t t_lo;             /* TCNT0 */
	uint8_t flags;
};
static struct raw_record rec_queue[REC_QUEUE];
static volatile uint8_t rec_head, rec_tail;
static struct preload pre_queue[PRE_QUEUE];   /* main loop -> ISR */
static volatile uint8_t pre_head, pre_tail;

void quantum_init(void)
{
	PORTB &= ~_BV(PB1);
	DDRB |= _BV(PB1);          /* OC1A: IRQ line, low when idle */
	DDRD &= ~_BV(PD5);         /* T1: pulses in */
	TCCR1A = 0;
	TCCR1B = 0;
}

/* Ends the IRQ pulse: OC1A low, whatever the compare output mode. */
static inline __attribute__((always_inline)) void irq_line_low(void)
{
	TCCR1A = COM1A_CLEAR;
	TCCR1C = _BV(FOC1A);
	PORTB &= ~_BV(PB1);
}

/*
 * Programs the step just taken from q.sched: a compare q.step pulses after
 * q.mark.  Checks it is still ahead of the counter; if not, moves the end
 * to 2 pulses from now.  Returns the pulses the quantum grew by (0 when in
 * time; 1 when the end moved one on, off OCR_DEAD: q.shorten is then set
 * so the following quantum gives that pulse back).
 */
static inline __attribute__((always_inline)) int32_t program_step(void)
{
	uint16_t end = q.mark + (uint16_t)q.step, now;
	int32_t grew = 0;

	TCCR1A = fw_sched_final(&q.sched) ? COM1A_SET : 0;
	if (end == OCR_DEAD && !fw_sched_final(&q.sched)) {
		/* A disarmed step can simply end one pulse early; the rest is longer. */
		end--;
		q.step--;
		q.sched.left++;
	} else if (end == OCR_DEAD) {
		end++;
		grew = 1;
	}
	OCR1A = end;
	now = TCNT1;
	if (fw_sched_missed(now - q.mark, q.step + grew)) {
		do {
			now = TCNT1;
			end = now + 2;
			if (end == OCR_DEAD)
				end++;
			OCR1A = end;
		} while ((uint16_t)(TCNT1 - q.mark) > (uint16_t)(end - q.mark));
		q.late++;
		q.flags |= FW_REC_F_LATE;
		grew = (int32_t)(uint16_t)(end - q.mark) - (int32_t)q.step;
	}
	q.mark = end;
	if (grew == 1 && !(q.flags & FW_REC_F_LATE))
		q.shorten = 1;
	return grew;
}

/* Main loop: draws preloads until the queue is full (interrupts on). */
void quantum_refill(void)
{
	uint8_t next;

	while ((next = (pre_head + 1) & (PRE_QUEUE - 1)) != pre_tail) {
		struct preload *p = &pre_queue[pre_head];

		p->pulses = fw_counter_next(&q.counter);
		p->vbat_uv = q.counter.vbat_uv;
		p->flags = q.counter.clamped ? FW_REC_F_VCLAMP : 0;
		/* The entry must be complete before the interrupt can see it. */
		__asm__ __volatile__("" ::: "memory");
		pre_head = next;
	}
}

static inline __attribute__((always_inline)) void begin_quantum(void)
{
	if (pre_tail != pre_head) {
		const struct preload *p = &pre_queue[pre_tail];

		q.pulses = p->pulses;
		q.vbat_uv = p->vbat_uv;
		q.flags = p->flags;
		pre_tail = (pre_tail + 1) & (PRE_QUEUE - 1);
	} else {
		/*
		 * The main loop fell behind: quanta come faster than the CPU can
		 * draw them.  Double the last preload (halving the interrupt rate
		 * lets the main loop catch up instead of starving it until the
		 * watchdog fires) and say so; the record carries the true count.
		 */
		if (q.pulses <= FW_QUANTUM_MAX / 2)
			q.pulses *= 2;
		q.flags = FW_REC_F_LATE;
		q.late++;
	}
	if (q.shorten && q.pulses > 1) {
		q.pulses--;
		q.shorten = 0;
	}
	q.step = fw_sched_begin(&q.sched, q.pulses);
	q.pulses += program_step();
}

/* What the record of a quantum says, kept while the next one is set up. */
struct ended {
	uint32_t pulses, vbat_uv;
	uint8_t flags;
};

static inline __attribute__((always_inline)) void queue_record(uint8_t t0, const struct ended *e)
{
	uint8_t next = (rec_head + 1) & (REC_QUEUE - 1);
	struct raw_record *r = &rec_queue[rec_head];

	if (next == rec_tail) {
		q.dropped++;
		q.pending_dropped = 1;
		return;
	}
	r->seq = q.seq;
	r->t_hi = clock_overflows_isr(t0);
	r->t_lo = t0;
	r->pulses = e->pulses;
	r->vbat_uv = e->vbat_uv;
	r->flags = e->flags | (q.pending_dropped ? FW_REC_F_DROPPED : 0);
	q.pending_dropped = 0;
	rec_head = next;
}

ISR(TIMER1_COMPA_vect)
{
	uint8_t t0 = TCNT0;       /* first: the pulse width and timestamp count from here */
	struct ended e;

	if (!fw_sched_final(&q.sched)) {
		/* An intermediate step of a long quantum: no edge, next step. */
		q.step = fw_sched_next(&q.sched);
		q.pulses += program_step();
		return;
	}
	e.pulses = q.pulses;
	e.vbat_uv = q.vbat_uv;
	e.flags = q.flags;
	while ((uint8_t)(TCNT0 - t0) <= q.width_ticks)
		;
	/* Line low and the next compare armed back to back: no window for a match. */
	irq_line_low();
	begin_quantum();

	q.quanta++;
	q.total_pulses += e.pulses;
	queue_record(t0, &e);
	q.seq++;
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
	pre_head = pre_tail = 0;
	quantum_refill();
	ATOMIC_BLOCK(ATOMIC_FORCEON) {
		irq_line_low();
		TCCR1B = T1_EXT_RISE;      /* normal mode: free-running pulse count */
		TCNT1 = 0;
		q.mark = 0xffff;           /* the first quantum starts before pulse 1 */
		q.shorten = 0;
		begin_quantum();
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
			const struct raw_record *raw = &rec_queue[rec_tail];

			r->seq = raw->seq;
			r->time = (uint64_t)raw->t_hi << 8 | raw->t_lo;
			r->pulses = raw->pulses;
			r->vbat_uv = raw->vbat_uv;
			r->flags = raw->flags;
			rec_tail = (rec_tail + 1) & (REC_QUEUE - 1);
			got = 1;
		}
	}
	return got;
}

void quantum_set_vbat(uint32_t vbat_uv)
{
	/* Only the main loop draws preloads, so no lock: applies from the next draw. */
	fw_counter_set_vbat(&q.counter, vbat_uv);
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
