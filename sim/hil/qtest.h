/*
 * qtest.h - the HIL bridge's second kind of guest (docs/target-cortexm.md):
 * a Cortex-M machine under QEMU, whose board IRQ line is an NVIC interrupt
 * raised from outside the guest through QEMU's qtest protocol
 * (docs/devel/qtest.rst), which Debian's QEMU 7.2 serves beside TCG
 * (`-accel tcg -qtest unix:DIR/qtest.sock`).
 *
 * Each edge: the guest's edge counter (a word of its RAM, where a real board
 * has a timer clocked by the IRQ pin) is written with the edge count, then
 * the IRQ's bit in NVIC_ISPR: one edge, one pending interrupt, and edges
 * that merge before the handler runs are counted by the handler.  The guest
 * announces its phases as bytes '0'..'9' on a serial port connected to
 * DIR/phase.sock.
 */
#ifndef HIL_QTEST_H
#define HIL_QTEST_H

#include <stdint.h>

struct hil_qtest;

/* Listens on DIR/qtest.sock and DIR/phase.sock; exits the bridge on failure. */
struct hil_qtest *hil_qtest_listen(const char *dir, unsigned irq, uint32_t counter_addr);
/* The guest's count of edges it took (isr/cortexm's eqcm_edges_taken), or
 * -1 when QEMU is gone. */
int64_t hil_qtest_taken(struct hil_qtest *q, uint32_t taken_addr);
/* Accepts QEMU's connections and reads the phase bytes waiting. */
void hil_qtest_poll(struct hil_qtest *q);
int hil_qtest_connected(const struct hil_qtest *q);
/* The phase the guest last announced (0 before any). */
uint32_t hil_qtest_phase(const struct hil_qtest *q);
uint32_t hil_qtest_phase_writes(const struct hil_qtest *q);
/* Edge number `count` (1, 2, ...): the counter, then the pending bit.
 * 0, or -1 when QEMU is gone (the connection is closed). */
int hil_qtest_ring(struct hil_qtest *q, uint64_t count);

#endif
