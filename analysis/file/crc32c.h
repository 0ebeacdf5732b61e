/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of every .eqp chunk.
 *
 * Chosen over zlib's CRC-32 for speed: x86-64 (SSE4.2) and ARMv8 compute it
 * in hardware, several times faster than zlib's table code, and report spent
 * a third of its time checksumming.  Same composition rule as zlib's crc32():
 * eq_crc32c(eq_crc32c(0, a), b) == eq_crc32c(0, a followed by b).
 */
#ifndef EQ_CRC32C_H
#define EQ_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t eq_crc32c(uint32_t crc, const void *buf, size_t len);
/* The portable table-driven code, whatever the machine has (tests compare). */
uint32_t eq_crc32c_sw(uint32_t crc, const void *buf, size_t len);

/*
 * Which code eq_crc32c() runs: on x86-64 the first of "vpclmulqdq",
 * "sse4.2", "table" the CPU has, or the one the environment
 * variable EQPROF_CRC32C names (read once; ignored if the CPU lacks it).
 * eq_crc32c_use() switches to another, for tests and benches (not while
 * other threads checksum); -1 if unknown or the CPU lacks it.
 */
const char *eq_crc32c_impl(void);
int eq_crc32c_use(const char *name);

#endif
