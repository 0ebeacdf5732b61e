/*
 * clock.c - the board timestamp: Timer0 free-running at clk/8 (2 MHz), its
 * 8 bits extended by counting overflows in software to 40 bits (6.4 days).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"

static volatile uint32_t overflows;

ISR(TIMER0_OVF_vect)
{
	overflows++;
}

void clock_init(void)
{
	TCCR0A = 0;
	TCCR0B = _BV(CS01);    /* clk/8 */
	TIMSK0 = _BV(TOIE0);
}

uint32_t clock_overflows_isr(uint8_t lo)
{
	uint32_t hi = overflows;

	/* An overflow not yet serviced: count it if lo was read after it. */
	if ((TIFR0 & _BV(TOV0)) && lo < 0x80)
		hi++;
	return hi;
}

uint64_t clock_now(void)
{
	uint64_t t;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		uint8_t lo = TCNT0;

		t = (uint64_t)clock_overflows_isr(lo) << 8 | lo;
	}
	return t;
}
