/*
 * uart.c - USART0 at FW_UART_BAUD (U2X: 16 MHz / 8 / 2 = exactly 1 Mbaud)
 * with interrupt-driven receive and transmit rings.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"
#include "fw_defaults.h"

#define RX_SIZE 64  /* powers of two: indexes wrap with a mask */
#define TX_SIZE 128

static volatile uint8_t rx_buf[RX_SIZE], rx_head, rx_tail;
static volatile uint8_t tx_buf[TX_SIZE], tx_head, tx_tail;
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

ISR(USART_UDRE_vect)
{
	if (tx_head == tx_tail) {
		UCSR0B &= ~_BV(UDRIE0);
		return;
	}
	UDR0 = tx_buf[tx_tail];
	tx_tail = (tx_tail + 1) & (TX_SIZE - 1);
}

void uart_init(void)
{
	UBRR0 = FW_MCU_CLOCK_HZ / 8 / FW_UART_BAUD - 1;
	UCSR0A = _BV(U2X0);
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
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
	return (uint8_t)((tx_tail - tx_head - 1) & (TX_SIZE - 1));
}

void uart_write(const uint8_t *p, uint8_t n)
{
	while (n--) {
		uint8_t next = (tx_head + 1) & (TX_SIZE - 1);

		while (next == tx_tail)
			; /* the UDRE interrupt drains it: a byte per 10 us */
		tx_buf[tx_head] = *p++;
		tx_head = next;
		UCSR0B |= _BV(UDRIE0);
	}
}

uint32_t uart_rx_overruns(void)
{
	uint32_t n;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		n = rx_overruns;
	}
	return n;
}
