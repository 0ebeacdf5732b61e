/*
 * eqp_regs.c - per-architecture user registers of stack copies; see
 * eqp_regs.h.  Register numbers: the kernel's arch/x86, arch/arm64 and
 * arch/arm include/uapi/asm/perf_regs.h (perf's side) and each psABI's DWARF
 * register numbering (the unwinder's side).
 */
#include "file/eqp_regs.h"

#include <stddef.h>

#define EM_ARM_ 40
#define EM_X86_64_ 62
#define EM_AARCH64_ 183

static const struct eqp_regs_arch arches[] = {
	{
		/* perf: AX BX CX DX SI DI BP SP IP FLAGS CS SS (0-11), DS ES FS
		 * GS (12-15, refused by the kernel), R8-R15 (16-23).  DWARF
		 * (x86-64 psABI): rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip. */
		EM_X86_64_, 2, "x86_64", 0xff0fffull, 7, 8, -1, 17,
		{ 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 },
	},
	{
		/* perf: X0-X28, X29 (fp), LR, SP, PC (0-32).  DWARF (AAPCS64):
		 * x0-x30 (0-30), sp (31); the pc has no DWARF number: it is
		 * given to libdwfl on its own. */
		EM_AARCH64_, 2, "aarch64", 0x1ffffffffull, 31, 32, 30, 32,
		{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
		  20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 },
	},
	{
		/* perf: R0-R10, FP, IP, SP, LR, PC (0-15).  DWARF (AAPCS): r0-r15. */
		EM_ARM_, 1, "arm", 0xffffull, 13, 15, 14, 16,
		{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	},
};

const struct eqp_regs_arch *eqp_regs_arch(unsigned m)
{
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].machine == m)
			return &arches[i];
	return NULL;
}

const struct eqp_regs_arch *eqp_regs_native(void)
{
#if defined(__x86_64__)
	return eqp_regs_arch(EM_X86_64_);
#elif defined(__aarch64__)
	return eqp_regs_arch(EM_AARCH64_);
#elif defined(__arm__)
	return eqp_regs_arch(EM_ARM_);
#else
	return NULL;
#endif
}

int eqp_regs_get(uint64_t mask, const uint64_t *regs, unsigned nregs, unsigned r, uint64_t *v)
{
	unsigned idx;

	if (r >= 64 || !(mask >> r & 1))
		return 0;
	idx = (unsigned)__builtin_popcountll(mask & ((1ull << r) - 1));
	if (idx >= nregs)
		return 0;
	*v = regs[idx];
	return 1;
}
