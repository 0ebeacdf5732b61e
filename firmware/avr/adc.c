/*
 * adc.c - ADC0 free-running against AVcc at clk/128 (125 kHz, 9.6 k
 * conversions/s); sums of 16 conversions (600 per second) go to the main
 * loop, which turns them into microvolts with the calibration.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"

static volatile uint16_t acc, ready_sum;
static volatile uint8_t count, ready;

ISR(ADC_vect)
{
	acc += ADC;
	if (++count == 16) {
		ready_sum = acc;
		ready = 1;
		acc = 0;
		count = 0;
	}
}

void adc_init(void)
{
	DIDR0 = _BV(ADC0D);          /* no digital input buffer on the analog pin */
	ADMUX = 0;                   /* external AREF (the board drives it: never select AVcc), channel 0 */
	ADCSRB = 0;                  /* free running */
	ADCSRA = _BV(ADEN) | _BV(ADSC) | _BV(ADATE) | _BV(ADIE) |
		 _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
}

uint8_t adc_take_sum16(uint16_t *sum)
{
	uint8_t got = 0;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		if (ready) {
			*sum = ready_sum;
			ready = 0;
			got = 1;
		}
	}
	return got;
}
