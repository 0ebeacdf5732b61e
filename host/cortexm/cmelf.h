/*
 * cmelf.h - what `eqprof record --target cortexm` needs from the
 * application's ELF: its memory map as one address space (the MAPS text
 * the symbolizer reads), the names of its exception handlers from its
 * vector table, and whether the stacked LR is a sample's return address
 * (the call-frame information says the return address is still in LR at
 * that pc).  elfutils (libelf, libdw).
 */
#ifndef CM_ELF_H
#define CM_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"

struct cm_elf;

/* Opens an ARM (EM_ARM, 32-bit) executable; NULL with err naming why. */
struct cm_elf *cm_elf_open(const char *path, struct eq_error *err);
void cm_elf_close(struct cm_elf *e);

/* "START-END r-xp OFFSET 00:00 0 PATH\n" for each loadable segment: the
 * one address space of the target (pid 1), as /proc/PID/maps would say. */
const char *cm_elf_maps(const struct cm_elf *e);
/* GNU build-id in hex, "" when the file has none. */
const char *cm_elf_build_id(const struct cm_elf *e);
/* The absolute path the maps name. */
const char *cm_elf_path(const struct cm_elf *e);

/*
 * The name of exception number n as the vector table names its handler:
 * "IRQ 9 app_timer_handler", "SysTick eqcm_systick_handler", "HardFault".
 * Written into buf (size bytes).
 */
const char *cm_elf_exception_name(const struct cm_elf *e, unsigned n, char *buf, size_t size);

/*
 * 1 when, by the ELF's call-frame information, the return address at pc is
 * still in LR (a leaf, or a function before it saved LR): then lr is the
 * caller's return address.  0 when it was saved elsewhere, or nothing is
 * known (no CFI covers pc), or lr is an EXC_RETURN value.
 */
int cm_elf_lr_is_return(struct cm_elf *e, uint64_t pc, uint32_t lr);

#endif
