/* SPDX-License-Identifier: MIT */
/*
 * eq_sample.h - the sample record shared by every stage of eqprof.
 *
 * One record is written by the target's interrupt handler for every sampling
 * interrupt and travels unchanged through the ring buffer, the recorder and
 * the .eqp file.  It is little-endian and exactly 32 bytes; change it only
 * together with every user and docs/format.md.
 *
 * Freestanding: usable from a kernel module, a bare-metal ISR and user space.
 */
#ifndef EQ_SAMPLE_H
#define EQ_SAMPLE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

struct eq_sample {
	uint64_t time;   /* target clock: ns on Linux; ticks on bare metal (rate in file header) */
	uint64_t pc;     /* address of the interrupted instruction */
	uint32_t pid;    /* process (executable) id; 0 for the kernel's idle task */
	uint32_t tid;    /* thread id */
	uint32_t seq;    /* per-source sequence number, incremented even when the ring is full */
	uint16_t cpu;
	uint16_t flags;  /* EQ_F_* below */
};

#define EQ_F_KERNEL    0x0001u /* pc is a kernel address */
#define EQ_F_IDLE      0x0002u /* the CPU was idle (idle task / wait-for-interrupt) */
#define EQ_F_ENERGY    0x0004u /* energy-driven sample; clear = time-driven */
#define EQ_F_LOST      0x0008u /* samples were lost just before this one (see seq gap) */
#define EQ_F_PC_APPROX 0x0010u /* pc taken from saved user registers, not the interrupted frame */

#define EQ_SAMPLE_SIZE 32

typedef char eq_sample_size_check[(sizeof(struct eq_sample) == EQ_SAMPLE_SIZE) ? 1 : -1];

#endif /* EQ_SAMPLE_H */
