/*
 * kallsyms.h - the running kernel's symbols, embedded in the recording so
 * that kernel samples symbolize on another machine.
 */
#ifndef EQ_RECORD_KALLSYMS_H
#define EQ_RECORD_KALLSYMS_H

#include "util/eq_error.h"
#include "record/recorder.h"

/* Embeds the running kernel's symbols (/proc/kallsyms: the kernel and its
 * loaded modules) as the [kernel.kallsyms] table, so kernel samples
 * symbolize on another machine.  Fails when the addresses are hidden. */
int record_kernel_symbols(struct recorder *rec, struct eq_error *err);

#endif
