/* synth_elf.h - a real ELF's functions for the benches' synthetic recordings. */
#ifndef EQ_BENCH_SYNTH_ELF_H
#define EQ_BENCH_SYNTH_ELF_H

#include <stddef.h>
#include <stdint.h>

struct func { uint64_t vaddr, size; };

/* Every sized function symbol of path into *out (malloc'd), and its PT_LOAD
 * segments as /proc/PID/maps lines of the PIE loaded at base; exits with
 * "prog: path: why" when the file is no ELF. Returns the count. */
size_t bench_read_elf(const char *prog, const char *path, uint64_t base, struct func **out,
		      char *maps, size_t maps_size);

#endif
