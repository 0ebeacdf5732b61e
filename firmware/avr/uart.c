/*
 * uart.c - USART0 at FW_UART_BAUD (U2X: 16 MHz / 8 / 2 = exactly 1 Mbaud)
 * with interrupt-driven receive and transmit rings.
 *
 * U2X0 and the frame format are set before UBRR0: the baud rate follows
 * from UBRR0 and U2X0 together on silicon at any moment, but simavr fixes
 * it when UBRR0 is written, so writing UBRR0 first ran its link at half
 * speed (docs/firmware.md, "Running in simavr").
 *
 * The transmit ring is 256 bytes with 8-bit indexes, so they wrap by
 * themselves and the data-register-empty interrupt, which runs once per
 * byte on the wire (100 000 times a second when the line is full), does
 * nothing but move one byte.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"
#include "fw_defaults.h"

#define RX_SIZE 64  /* a power of two: the index wraps with a mask */

static volatile uint8_t rx_buf[RX_SIZE], rx_head, rx_tail;
/* 256-byte aligned: the interrupt uses the index as the address's low byte. */
static uint8_t tx_buf[256] __attribute__((aligned(256), used));
static volatile uint8_t tx_head __attribute__((used)), tx_tail __attribute__((used));
static volatile uint32_t rx_overruns;

ISR(USART_RX_vect)
{
	uint8_t status = UCSR0A;
	uint8_t c = UDR0;
	uint8_t next = (rx_head + 1) & (RX_SIZE - 1);

	if ((status & (_BV(DOR0) | _BV(FE0))) || next == rx_tail) {
		/* A lost or broken byte: the frame's CRC will catch it too. */
		rx_overruns++;
		if (next == rx_tail)
			return;
	}
	rx_buf[rx_head] = c;
	rx_head = next;
}

/*
 * One byte to the data register, or the interrupt off when the ring is
 * empty.  It runs for every byte on the wire, so it is written out: four
 * registers saved instead of the seven the compiler saves, about 45 cycles
 * with entry and return instead of 60.  Equivalent C:
 *
 *     if (tx_tail == tx_head) UCSR0B &= ~_BV(UDRIE0);
 *     else UDR0 = tx_buf[tx_tail++];
 */
ISR(USART_UDRE_vect, ISR_NAKED)
{
	__asm__ __volatile__(
		"push r24\n\t"
		"in r24, __SREG__\n\t"
		"push r24\n\t"
		"push r30\n\t"
		"push r31\n\t"
		"lds r30, %[tail]\n\t"
		"lds r24, %[head]\n\t"
		"cp r30, r24\n\t"
		"breq 1f\n\t"
		"ldi r31, hi8(%[buf])\n\t"
		"ld r24, Z\n\t"
		"sts %[udr], r24\n\t"
		"inc r30\n\t"
		"sts %[tail], r30\n\t"
		"rjmp 2f\n"
		"1:\tlds r24, %[ucsrb]\n\t"
		"andi r24, %[off]\n\t"
		"sts %[ucsrb], r24\n"
		"2:\tpop r31\n\t"
		"pop r30\n\t"
		"pop r24\n\t"
		"out __SREG__, r24\n\t"
		"pop r24\n\t"
		"reti\n\t"
		:
		: [tail] "i"(&tx_tail), [head] "i"(&tx_head), [buf] "i"(tx_buf),
		  [udr] "n"(_SFR_MEM_ADDR(UDR0)), [ucsrb] "n"(_SFR_MEM_ADDR(UCSR0B)),
		  [off] "M"(0xff & ~_BV(UDRIE0)));
}

void uart_init(void)
{
	UCSR0A = _BV(U2X0);
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
	UBRR0 = FW_MCU_CLOCK_HZ / 8 / FW_UART_BAUD - 1; /* last: simavr takes the rate here */
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

int16_t uart_getc(void)
{
	uint8_t c;

	if (rx_head == rx_tail)
		return -1;
	c = rx_buf[rx_tail];
	rx_tail = (rx_tail + 1) & (RX_SIZE - 1);
	return c;
}

uint8_t uart_tx_room(void)
{
	return (uint8_t)(tx_tail - tx_head - 1);
}

void uart_write(const uint8_t *p, uint8_t n)
{
	uint8_t h = tx_head;

	if ((uint8_t)(tx_tail - h - 1) >= n) {
		/* Room for all of it (the usual case): a plain copy. */
		while (n--)
			tx_buf[h++] = *p++;
		__asm__ __volatile__("" ::: "memory"); /* the bytes before the index */
		tx_head = h;
		UCSR0B |= _BV(UDRIE0);
		return;
	}
	while (n--) {
		while ((uint8_t)(h + 1) == tx_tail) {
			/* Full: let the interrupt drain what is there (a byte per 10 us). */
			__asm__ __volatile__("" ::: "memory"); /* the bytes before the index */
			tx_head = h;
			UCSR0B |= _BV(UDRIE0);
		}
		tx_buf[h++] = *p++;
	}
	__asm__ __volatile__("" ::: "memory");
	tx_head = h;
	UCSR0B |= _BV(UDRIE0);
}

uint8_t *uart_tx_claim(uint8_t n)
{
	uint8_t h = tx_head;

	if ((uint8_t)(tx_tail - h - 1) < n || (uint16_t)h + n > sizeof(tx_buf))
		return 0;
	return &tx_buf[h];
}

void uart_tx_commit(uint8_t n)
{
	__asm__ __volatile__("" ::: "memory"); /* the bytes before the index */
	tx_head = tx_head + n;
	UCSR0B |= _BV(UDRIE0);
}

uint32_t uart_rx_overruns(void)
{
	uint32_t n;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		n = rx_overruns;
	}
	return n;
}
