/*
 * eqp_regs.h - the user registers of a stack copy (record --call-graph
 * dwarf, struct eqp_ustack), per architecture.
 *
 * The recorder asks perf_event for `mask` (sample_regs_user, the kernel's
 * asm/perf_regs.h numbering of the machine it runs on) and writes the
 * machine's ELF e_machine beside the registers; the unwinder, on whatever
 * machine reads the recording, looks the same table up by that e_machine
 * to hand libdwfl the registers in DWARF order.  One table for both sides,
 * so that a recording made on an arm64 board unwinds on an x86-64
 * workstation.
 */
#ifndef EQP_REGS_H
#define EQP_REGS_H

#include <stdint.h>

#define EQP_REGS_MAX_DWARF 33

struct eqp_regs_arch {
	uint16_t machine;        /* ELF e_machine: EM_X86_64, EM_AARCH64, EM_ARM */
	uint8_t abi;             /* PERF_SAMPLE_REGS_ABI_32 (1) or _64 (2) */
	const char *name;
	uint64_t mask;           /* sample_regs_user the recorder asks for */
	unsigned sp, pc;         /* perf numbers of the stack pointer and the pc */
	int lr;                  /* perf number of the link register, -1: none (x86-64) */
	unsigned ndwarf;         /* DWARF registers 0..ndwarf-1 are given to the unwinder */
	int8_t dwarf[EQP_REGS_MAX_DWARF]; /* perf number of DWARF register i */
};

/* The table entry of ELF machine m, or NULL when eqprof cannot unwind it. */
const struct eqp_regs_arch *eqp_regs_arch(unsigned m);

/* The entry of the machine this program was built for, or NULL. */
const struct eqp_regs_arch *eqp_regs_native(void);

/* Register perf number r of a copy (regs in mask bit order): 1 and *v, or 0
 * when the mask lacks it. */
int eqp_regs_get(uint64_t mask, const uint64_t *regs, unsigned nregs, unsigned r, uint64_t *v);

#endif
