/*
 * board.h - the ATmega328P register layer's shared declarations.
 *
 * Pins (docs/firmware.md): PD5/T1 front-end pulses in (Timer1 external
 * clock, rising edge); PB1/OC1A IRQ line to the target (compare-match
 * output); PC0/ADC0 battery-terminal voltage through the 100k/47k divider;
 * PD0/PD1 UART to the FT232R.
 *
 * Everything the AVR decides (preloads, protocol, calibration arithmetic)
 * lives in firmware/portable/; these files only move it into registers.
 */
#ifndef FW_BOARD_H
#define FW_BOARD_H

#include <stdint.h>

#include "counter.h"
#include "proto.h"

#define FW_VERSION_MAJOR 0
#define FW_VERSION_MINOR 1
#define FW_TICK_HZ (FW_MCU_CLOCK_HZ / 8) /* Timer0 at clk/8: record timestamps */

/* clock.c: 40-bit timestamp, Timer0 at clk/8 extended by its overflow. */
void clock_init(void);
/*
 * The upper 32 bits of the timestamp for a Timer0 value `lo` read moments
 * ago (< 64 us) with interrupts off since: an overflow still pending is
 * counted if lo is small.  Timestamp = overflows << 8 | lo.
 */
uint32_t clock_overflows_isr(uint8_t lo);
uint64_t clock_now(void);

/* quantum.c: counting on Timer1, IRQ edges on OC1A, records. */
struct quantum_config {
	struct fw_counter_cfg counter;
	uint16_t width_ns;
};
void quantum_init(void);
void quantum_start(const struct quantum_config *cfg, uint32_t vbat_uv);
void quantum_stop(void);
uint8_t quantum_running(void);
/* The next record the ISR queued, framed for the wire into out
 * (FW_FRAME_WIRE_MAX bytes); its length, or 0 if none. */
uint8_t quantum_pop_frame(uint8_t *out);
/* New battery voltage for the preloads still to be drawn (main loop). */
void quantum_set_vbat(uint32_t vbat_uv);
/* Draws preloads into the ISR's queue until it is full (main loop). */
void quantum_refill(void);
void quantum_stats(struct fw_status *s);

/* uart.c: interrupt-driven byte queues. */
void uart_init(void);
int16_t uart_getc(void);        /* -1 when nothing arrived */
uint8_t uart_tx_room(void);
void uart_write(const uint8_t *p, uint8_t n); /* waits for room */
/* n bytes of the transmit ring to write into in place, or NULL when there
 * is less room or they would wrap; uart_tx_commit() sends what was written. */
uint8_t *uart_tx_claim(uint8_t n);
void uart_tx_commit(uint8_t n);
uint32_t uart_rx_overruns(void);

/* adc.c: free-running conversions of ADC0, averaged over 16. */
void adc_init(void);
/* 1 and the sum of the last 16 conversions when a new average is ready. */
uint8_t adc_take_sum16(uint16_t *sum);

/* cal_eeprom.c: calibration in EEPROM, guarded by a CRC. */
uint8_t calib_load(struct fw_cal *cal); /* 1 if EEPROM held a good copy; else defaults */
void calib_store(const struct fw_cal *cal);

#endif
