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
 *   1. reads Timer0 (timestamp and pulse-width origin) and queues the
 *      record of the quantum that ended;
 *   2. holds OC1A high for the pulse width, with interrupts enabled: the
 *      UART's receive interrupt must not wait longer than its two-byte
 *      buffer lasts (30 us at 1 MBd), and the width may be 65 us; the
 *      compare interrupt itself cannot come again meanwhile (OCR1A still
 *      holds the end just passed, 65536 pulses away);
 *   3. with interrupts masked again, clears OC1A and programs OCR1A for the
 *      next quantum back to back, and checks it was in time: the counter
 *      says exactly how many pulses have passed since the quantum ended,
 *      and the compare flag whether the new end matched meanwhile, so if
 *      the counter is past the new end and it did not match, the quantum
 *      is extended to end 2 pulses from now and flagged LATE, with its true
 *      length in the record; no quantum is skipped or merged unseen, at any
 *      rate (the old compare value would only match again 65536 pulses
 *      later), and none that ended on time is taken for a late one.
 * The two masked stretches are short (bench/firmware: about 10 us each).
 * The preloads themselves (jitter, compensation: ~1000 cycles of 32/64-bit
 * arithmetic) are drawn by the main loop into a queue a few quanta ahead,
 * so the interrupt only pops one.  (simavr 1.6 drops an interrupt whose
 * flag rose while its enable bit was off, which rules out masking OCIE1A
 * around the nested section.)  Should the queue ever run dry (quanta
 * faster than the CPU can draw them), the quantum takes twice the previous
 * preload and is flagged LATE: the interrupt rate halves until the main
 * loop has caught up, so overload degrades into longer, flagged quanta
 * instead of a watchdog reset.
 *
 * Quanta above 65535 pulses are laid out by fw_sched (counter.h): steps of
 * 32768 with OC1A disconnected, then an armed final step.
 *
 * simavr 1.6 gaps, covered without changing behaviour on silicon:
 *   - it has no model for FOC1A (force output compare) and its OC1A pin
 *     follows any PORTB write, so clearing OC1A does both: the forced
 *     compare (silicon) and a write of 0 to PORTB1 (simavr; on silicon the
 *     compare output overrides the port, so the write has no effect);
 *   - it never matches OCR1A = 0xffff.  The firmware built for simavr
 *     (FW_SIMAVR: eqfw-simavr.elf) moves an intermediate step ending there
 *     one pulse early (the quantum is unchanged), and a quantum ending
 *     there one pulse late with the next one a pulse shorter: at most once
 *     per 65536 pulses, shown in the records, exact in the long run.  The
 *     firmware for silicon (eqfw.elf, eqfw.hex) has none of that.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"
#include "fw_defaults.h"

#define COM1A_SET   (_BV(COM1A1) | _BV(COM1A0))
#define COM1A_CLEAR _BV(COM1A1)
#define T1_EXT_RISE (_BV(CS12) | _BV(CS11) | _BV(CS10))
#ifdef FW_SIMAVR
#define OCR_DEAD    0xffff    /* simavr 1.6 never matches it */
#endif
#define REC_QUEUE   8 /* powers of two */
#define PRE_QUEUE   8

struct preload {
	uint32_t pulses, vbat_uv;
	uint8_t flags;
};

/* The next quantum, set up ahead so that arming it at the edge is short. */
struct next_quantum {
	uint32_t pulses;
	const struct preload *cur;
	uint32_t left;            /* its fw_sched layout: pulses after the first step */
	uint16_t step;            /* its first step */
	uint8_t flags;
	uint8_t ready;            /* 1: prepared; 2: prepared with the queue dry */
};

struct quantum_state {
	struct fw_counter counter;
	struct fw_sched sched;
	struct next_quantum next;
	uint16_t step;            /* pulses of the step being counted (<= FW_STEP_MAX) */
	uint16_t mark;            /* TCNT1 position where the last step ended */
	uint8_t shorten;          /* simavr: the last end moved off OCR_DEAD: next one pulse less */
	uint32_t pulses;          /* pulses of the quantum being counted */
	const struct preload *cur;/* its preload's slot (the voltage it was drawn with) */
	uint8_t flags;            /* FW_REC_F_* for its record */
	uint32_t seq;
	uint8_t width_ticks;      /* IRQ high time in Timer0 ticks (0.5 us) */
	uint8_t pending_dropped;  /* a record was dropped: flag the next one */
	uint32_t total_pulses, dropped, late; /* quanta counted: seq */
};

static struct quantum_state q;
static volatile uint8_t running;
/*
 * Records as the ISR leaves them, laid out as the RECORD body goes on the
 * wire (the AVR is little-endian and packs structs): seq, the 40-bit time
 * as TCNT0 then the Timer0 overflow count, pulses, Vb, flags.  The main
 * loop frames it as it is (fw_record_frame_body).
 */
struct raw_record {
	uint32_t seq;
	uint8_t t_lo;             /* TCNT0 */
	uint32_t t_hi;            /* Timer0 overflows */
	uint32_t pulses, vbat_uv;
	uint8_t flags;
};
_Static_assert(sizeof(struct raw_record) == FW_RECORD_BODY, "raw record is not the wire body");
static struct raw_record rec_queue[REC_QUEUE];
static volatile uint8_t rec_head, rec_tail;
/*
 * Preloads, main loop -> ISR.  The two slots just before pre_tail are the
 * ones the quantum being counted and the next one (prepared ahead) came
 * from: refill never writes them, so the interrupt reads their voltage in
 * place instead of copying it; the queue holds PRE_QUEUE - 3 more.
 */
static struct preload pre_queue[PRE_QUEUE];
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
 * time; in the simavr build 1 when the end moved one on, off OCR_DEAD:
 * q.shorten is then set so the following quantum gives that pulse back).
 */
static inline __attribute__((always_inline)) int32_t program_step(void)
{
	uint16_t end = q.mark + q.step, now;
	int32_t grew = 0;

	TCCR1A = fw_sched_final(&q.sched) ? COM1A_SET : 0;
#ifdef FW_SIMAVR
	if (end == OCR_DEAD && !fw_sched_final(&q.sched)) {
		/* A disarmed step can simply end one pulse early; the rest is longer. */
		end--;
		q.step--;
		q.sched.left++;
	} else if (end == OCR_DEAD) {
		end++;
		grew = 1;
	}
#endif
	OCR1A = end;
	/* the counter, then the flag: a match on a pulse that came before the
	 * counter was read is in the flag (nothing else sets it: OCR1A held the
	 * end just passed until now) */
	now = TCNT1;
	if (fw_sched_past(now - q.mark, (uint32_t)q.step + (uint32_t)grew) && !(TIFR1 & _BV(OCF1A))) {
		do {
			now = TCNT1;
			end = now + 2;
#ifdef FW_SIMAVR
			if (end == OCR_DEAD)
				end++;
#endif
			OCR1A = end;
			now = TCNT1;
		} while (fw_sched_past(now - q.mark, (uint16_t)(end - q.mark)) && !(TIFR1 & _BV(OCF1A)));
		q.late++;
		q.flags |= FW_REC_F_LATE;
		grew = (int32_t)(uint16_t)(end - q.mark) - (int32_t)q.step;
	}
	q.mark = end;
#ifdef FW_SIMAVR
	if (grew == 1 && !(q.flags & FW_REC_F_LATE))
		q.shorten = 1;
#endif
	return grew;
}

/*
 * Main loop: draws preloads until the queue is full (interrupts on), at
 * most a queue's worth per call: when quanta come as fast as they are
 * drawn, the queue never fills, and an unbounded loop would keep the main
 * loop (and the watchdog's reset) from ever coming round.
 */
void quantum_refill(void)
{
	uint8_t next, n = PRE_QUEUE;

	while (n-- && (next = (pre_head + 1) & (PRE_QUEUE - 1)) != ((pre_tail - 2) & (PRE_QUEUE - 1))) {
		struct preload *p = &pre_queue[pre_head];

		p->pulses = fw_counter_next(&q.counter);
		p->vbat_uv = q.counter.vbat_uv;
		p->flags = q.counter.clamped ? FW_REC_F_VCLAMP : 0;
		/* The entry must be complete before the interrupt can see it. */
		__asm__ __volatile__("" ::: "memory");
		pre_head = next;
	}
}

/* A quantum that ended later than its preload (LATE, or simavr's 0xffff). */
static inline __attribute__((always_inline)) void grow(int32_t by)
{
	if (by)
		q.pulses += by;
}

/*
 * Sets up the quantum after the one being counted: its preload (popped
 * now, so its slot stays untouched), its layout on the counter.  Runs with
 * interrupts masked, right after the current quantum was armed, so that
 * arming the next one at the edge is only a few register writes.
 */
static void __attribute__((noinline)) prepare_next(void)
{
	struct next_quantum *n = &q.next;
	uint32_t pulses;

	if (pre_tail != pre_head) {
		const struct preload *p = &pre_queue[pre_tail];

		pulses = p->pulses;
		n->cur = p;
		n->flags = p->flags;
		n->ready = 1;
		pre_tail = (pre_tail + 1) & (PRE_QUEUE - 1);
	} else {
		/*
		 * The main loop fell behind: quanta come faster than the CPU can
		 * draw them.  Double the last preload (halving the interrupt rate
		 * lets the main loop catch up instead of starving it until the
		 * watchdog fires) and say so; the record carries the true count.
		 */
		pulses = q.pulses <= FW_QUANTUM_MAX / 2 ? q.pulses * 2 : q.pulses;
		n->cur = q.cur;
		n->flags = FW_REC_F_LATE;
		n->ready = 2;
	}
#ifdef FW_SIMAVR
	if (q.shorten && pulses > 1) {
		pulses--;
		q.shorten = 0;
	}
#endif
	n->pulses = pulses;
	/* Most quanta are one step: no 32-bit layout arithmetic for them. */
	if ((uint16_t)(pulses >> 16) == 0) {
		n->left = 0;
		n->step = (uint16_t)pulses;
	} else {
		struct fw_sched sched;

		n->step = (uint16_t)fw_sched_begin(&sched, pulses);
		n->left = sched.left;
	}
}

/* At the edge: the prepared quantum becomes the one counted. */
static inline __attribute__((always_inline)) void take_next(void)
{
	struct next_quantum *n = &q.next;

	/* Not prepared: this interrupt came again before it could.  (One
	 * prepared with the queue dry stays doubled even if a preload has been
	 * drawn since: the halved rate is what lets the main loop catch up.) */
	if (!n->ready)
		prepare_next();
	if (n->ready == 2)
		q.late++;
	q.pulses = n->pulses;
	q.cur = n->cur;
	q.flags = n->flags;
	q.sched.left = n->left;
	q.step = n->step;
	n->ready = 0;
}

/* Its compare, with interrupts masked: q.mark must move with OCR1A. */
static inline __attribute__((always_inline)) void arm(void)
{
	grow(program_step());
}

/* An intermediate step of a long quantum ended: no edge, the next step. */
static void __attribute__((noinline)) next_step(void)
{
	q.step = (uint16_t)fw_sched_next(&q.sched);
	grow(program_step());
}

/*
 * The quantum ended at Timer0 count t0 (the IRQ line went high with it):
 * book it and reserve its record's slot, hold the line for the pulse
 * width, clear it and arm the next quantum, fill the record, prepare the
 * quantum after.  Interrupts are masked only where they must be (the
 * bench measures the stretches: docs/firmware.md):
 *   - up to the timestamp's high part: a Timer0 overflow interrupt must not
 *     run between reading TCNT0 and the overflow count;
 *   - while arming (program_step): from the compare register write to the
 *     new mark, a nested run of this interrupt would see half of it;
 *   - while preparing the quantum after next, which a nested run would
 *     otherwise pop from the preload queue at the same time.
 * Until the next compare is armed this interrupt cannot come again (OCR1A
 * holds the end just passed) and the main loop cannot run, so the
 * counters and the record queue are this code's alone, and the other
 * interrupts (UART, Timer0, ADC) touch none of them.  A nested run after
 * arming books its own quantum after this one and fills its own slot; the
 * main loop reads no slot before both have returned.
 */
static void __attribute__((noinline)) end_quantum(uint8_t t0)
{
	uint32_t t_hi = clock_overflows_isr(t0), seq, pulses = q.pulses;
	const struct preload *drawn = q.cur;
	uint8_t flags = q.flags, next;
	struct raw_record *r = 0;

	if ((uint8_t)(TCNT0 - t0) > q.width_ticks) {
		/* The width has passed on the way here (2 us, the default). */
		irq_line_low();
		sei();
	} else {
		/* A longer width: held with interrupts on. */
		sei();
		while ((uint8_t)(TCNT0 - t0) <= q.width_ticks)
			;
		irq_line_low();
	}
	take_next();
	cli();
	arm();
	/* Booked before a nested run can book the quantum after it. */
	seq = q.seq++;
	q.total_pulses += pulses;
	next = (rec_head + 1) & (REC_QUEUE - 1);
	if (next == rec_tail) {
		q.dropped++;
		q.pending_dropped = 1;
	} else {
		r = &rec_queue[rec_head];
		if (q.pending_dropped)
			flags |= FW_REC_F_DROPPED;
		q.pending_dropped = 0;
		rec_head = next;
	}
	sei();
	if (r) {
		r->seq = seq;
		r->t_hi = t_hi;
		r->t_lo = t0;
		r->pulses = pulses;
		r->vbat_uv = drawn->vbat_uv;
		r->flags = flags;
	}
	cli();
	if (!q.next.ready)
		prepare_next();
	sei();
}

ISR(TIMER1_COMPA_vect)
{
	uint8_t t0 = TCNT0;       /* first: the pulse width and timestamp count from here */

	if (fw_sched_final(&q.sched))
		end_quantum(t0);
	else
		next_step();
}

void quantum_start(const struct quantum_config *cfg, uint32_t vbat_uv)
{
	quantum_stop();
	fw_counter_init(&q.counter, &cfg->counter);
	fw_counter_set_vbat(&q.counter, vbat_uv);
	/* Timer0 ticks (0.5 us), rounded up; up to 131 for 65535 ns.  In 32
	 * bits: (width_ns + 499) in 16 overflowed from 65037 ns on. */
	q.width_ticks = (uint8_t)(((uint32_t)cfg->width_ns + 499) / 500);
	q.seq = 0;
	q.total_pulses = q.dropped = q.late = 0;
	q.pending_dropped = 0;
	rec_head = rec_tail = 0;
	pre_head = pre_tail = 0;
	q.cur = &pre_queue[0];
	quantum_refill();
	ATOMIC_BLOCK(ATOMIC_FORCEON) {
		irq_line_low();
		TCCR1B = T1_EXT_RISE;      /* normal mode: free-running pulse count */
		TCNT1 = 0;
		q.mark = 0xffff;           /* the first quantum starts before pulse 1 */
		q.shorten = 0;
		q.next.ready = 0;
		take_next();
		arm();
		prepare_next();
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

uint8_t quantum_pop_frame(uint8_t *out)
{
	uint8_t t = rec_tail, n;

	/*
	 * No lock: the interrupt fills only the slot at rec_head, and advances
	 * rec_head past a slot only before it returns, so a slot the main loop
	 * sees is complete and nobody writes it until rec_tail moves on.
	 */
	if (t == rec_head)
		return 0;
	n = (uint8_t)fw_record_frame_body((const uint8_t *)&rec_queue[t], out);
	rec_tail = (t + 1) & (REC_QUEUE - 1);
	return n;
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
		s->quanta = q.seq;
		s->pulses = q.total_pulses;
		s->dropped = q.dropped;
		s->late = q.late;
	}
}
