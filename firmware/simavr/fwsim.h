/*
 * fwsim.h - the board firmware ELF running in simavr, with its wiring:
 * front-end pulses into T1 (PD5), the IRQ line out of OC1A (PB1), the
 * battery divider into ADC0, and the UART to the host at its baud rate.
 *
 * Used by the firmware tests (test/firmware/), the benchmark (bench/) and
 * the simulator's counter stage (sim/counter_simavr.c).  Time is counted in
 * MCU cycles (16 MHz).  simavr 1.6 facts this relies on are in
 * docs/firmware.md ("Running in simavr").
 */
#ifndef FWSIM_H
#define FWSIM_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"
#include "proto.h"

struct fwsim;

/* One IRQ pulse seen on OC1A. */
struct fwsim_edge {
	uint64_t rise;            /* cycle of the rising edge */
	uint64_t fall;            /* cycle of the falling edge, 0 while high */
	uint64_t pulses;          /* front-end pulses fed when it rose */
};

/*
 * Loads the firmware built for simavr (eqfw-simavr.elf: it carries the
 * symbol fw_build_simavr).  The silicon build is refused, naming the right
 * file: in simavr it would stop counting the first time a quantum ends at
 * 0xffff (docs/firmware.md, "Running in simavr").
 */
struct fwsim *fwsim_open(const char *elf, struct eq_error *err);
/* The same for any build (FWSIM_ANY_BUILD): the tests that show the silicon
 * build has none of the simavr workaround. */
#define FWSIM_ANY_BUILD 0x1
struct fwsim *fwsim_open_flags(const char *elf, unsigned flags, struct eq_error *err);
void fwsim_close(struct fwsim *s);

uint64_t fwsim_cycle(const struct fwsim *s);
uint32_t fwsim_hz(const struct fwsim *s);
/* Runs the MCU up to cycle `until`; -1 if it crashed or stopped. */
int fwsim_run_to(struct fwsim *s, uint64_t until, struct eq_error *err);
/* One front-end pulse starting now: T1 high for `high` cycles, then low. */
int fwsim_pulse(struct fwsim *s, uint32_t high, struct eq_error *err);
uint64_t fwsim_pulses_fed(const struct fwsim *s);
/* Battery-terminal voltage; reaches ADC0 through the board's divider. */
void fwsim_set_vbat(struct fwsim *s, double volts);

/*
 * Resets the MCU as its reset pin would (simavr's avr_reset), with the
 * reset cause flags `mcusr` (1 power-on, 2 external, 4 brown-out, 8
 * watchdog) for the firmware's BOOT message.  Pulses fed, edges and
 * records received stay counted.
 */
void fwsim_reset(struct fwsim *s, uint8_t mcusr);

/*
 * IRQ pulses seen so far (the array grows; the pointer may move): rises
 * from Timer1 compare matches with the output armed, falls from the pin
 * (simavr also raises the pin at a counter wrap: fwsim_pin_rises() counts
 * every rise of the pin, spurious ones included).
 */
const struct fwsim_edge *fwsim_edges(const struct fwsim *s, size_t *n);
uint64_t fwsim_pin_rises(const struct fwsim *s);
/* How many times the firmware booted (BOOT messages seen). */
unsigned fwsim_boots(const struct fwsim *s);

/* Bytes to the board's UART, delivered at the line rate. */
void fwsim_send_bytes(struct fwsim *s, const uint8_t *p, size_t n);
void fwsim_send(struct fwsim *s, const struct fw_msg *m);
/* Every byte the board sends also goes to fn (a pty bridge to eqprof board). */
void fwsim_set_uart_tap(struct fwsim *s, void (*fn)(void *ctx, uint8_t byte), void *ctx);
/*
 * Called after every instruction fwsim_run_to() executes (NULL: none): the
 * program counter (byte address) it started at, the cycles it took
 * (interrupt entry included) and whether interrupts are enabled after it.
 * For measurements: profiles, the longest stretch with interrupts masked.
 */
typedef void (*fwsim_step_fn)(void *ctx, uint32_t pc, uint32_t cycles, int irq_on);
void fwsim_set_step_hook(struct fwsim *s, fwsim_step_fn fn, void *ctx);
/* The simavr core itself, for measurements (bench/firmware). */
struct avr_t *fwsim_core(struct fwsim *s);
/* Bytes queued for the board and not yet on the line. */
size_t fwsim_send_pending(const struct fwsim *s);
/*
 * Sends req (its tag is set to a fresh value) and runs until the reply
 * with that tag arrives, at most timeout_cycles.  Records arriving meanwhile
 * are kept for fwsim_take_record().  0, or -1 with err set.
 */
int fwsim_request(struct fwsim *s, struct fw_msg *req, struct fw_msg *reply,
		  uint64_t timeout_cycles, struct eq_error *err);
/* Oldest record received and not yet taken; 1 if *r was filled. */
int fwsim_take_record(struct fwsim *s, struct fw_record *r);
size_t fwsim_records_pending(const struct fwsim *s);
/* Frames from the board that failed to decode (should stay 0). */
unsigned fwsim_bad_frames(const struct fwsim *s);
/* Error replies with tag 0 (answers to corrupt frames), oldest first. */
int fwsim_take_error(struct fwsim *s, struct fw_msg *m);

#endif
