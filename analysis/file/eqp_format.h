/*
 * eqp_format.h - on-disk constants of the .eqp file, shared by the reader and
 * the writer only (users go through eqp.h).  docs/format.md is the spec.
 */
#ifndef EQP_FORMAT_H
#define EQP_FORMAT_H

#include <stdint.h>

#define EQP_MAGIC          "\x89" "EQP\r\n\x1a\n"
#define EQP_MAGIC_LEN      8
#define EQP_FILE_HDR_LEN   16  /* magic, u16 major, u16 minor, u32 flags */
#define EQP_VERSION_MAJOR  1
#define EQP_VERSION_MINOR  0

#define EQP_CHUNK_HDR_LEN  16  /* u32 type, u32 flags, u64 payload length */
#define EQP_CHUNK_CRC_LEN  4   /* CRC-32C of chunk header and payload */
#define EQP_ALIGN          8   /* chunks start on 8-byte boundaries */

/* Chunk types: four ASCII characters, stored as a little-endian u32. */
#define EQP_FOURCC(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define EQP_CHUNK_HEAD EQP_FOURCC('H', 'E', 'A', 'D')
#define EQP_CHUNK_SAMP EQP_FOURCC('S', 'A', 'M', 'P')
#define EQP_CHUNK_MAPS EQP_FOURCC('M', 'A', 'P', 'S')
#define EQP_CHUNK_COMM EQP_FOURCC('C', 'O', 'M', 'M')
#define EQP_CHUNK_SYMT EQP_FOURCC('S', 'Y', 'M', 'T')
#define EQP_CHUNK_LOST EQP_FOURCC('L', 'O', 'S', 'T')
#define EQP_CHUNK_MARK EQP_FOURCC('M', 'A', 'R', 'K')
#define EQP_CHUNK_BINF EQP_FOURCC('B', 'I', 'N', 'F')
#define EQP_CHUNK_BREC EQP_FOURCC('B', 'R', 'E', 'C')
#define EQP_CHUNK_BIDS EQP_FOURCC('B', 'I', 'D', 'S')
#define EQP_CHUNK_CHNS EQP_FOURCC('C', 'H', 'N', 'S')
#define EQP_CHUNK_BEND EQP_FOURCC('B', 'E', 'N', 'D')
#define EQP_CHUNK_USTK EQP_FOURCC('U', 'S', 'T', 'K')
#define EQP_CHUNK_PSTA EQP_FOURCC('P', 'S', 'T', 'A')
#define EQP_CHUNK_DREQ EQP_FOURCC('D', 'R', 'E', 'Q')
#define EQP_CHUNK_ESRC EQP_FOURCC('E', 'S', 'R', 'C')
#define EQP_CHUNK_ERDG EQP_FOURCC('E', 'R', 'D', 'G')
#define EQP_CHUNK_IMAG EQP_FOURCC('I', 'M', 'A', 'G')
#define EQP_CHUNK_END  EQP_FOURCC('E', 'N', 'D', ' ')

#define EQP_HEAD_FIXED_LEN 40  /* mode, reserved, 3 doubles, start time */
#define EQP_SAMP_HDR_LEN   8   /* u32 count, u32 reserved */
#define EQP_BREC_HDR_LEN   8
#define EQP_BREC_LEN       24
#define EQP_BEND_LEN       88  /* u32 segment, u32 reason, 9 x u64 counts, f64 stall time */
#define EQP_SAMPLES_PER_CHUNK 4096
#define EQP_ESRC_FIXED_LEN 52  /* u32 index, u32 type, 3 f64, 5 u32 text lengths */
#define EQP_ERDG_HDR_LEN   8   /* u32 count, u32 reserved */
#define EQP_ERDG_LEN       32  /* struct eqp_ereading */
#define EQP_CHNS_HDR_LEN   8   /* u32 count, u32 reserved */
#define EQP_CHAIN_HDR_LEN  8   /* u16 kernel frames, u16 user frames, u32 reserved */
#define EQP_PSTA_HDR_LEN   8   /* u32 count, u32 reserved */
#define EQP_PSTA_LEN       16  /* u64 time, u16 cpu, u16 kind, u32 value */
#define EQP_DREQ_HDR_LEN   8   /* u32 count, u32 reserved */
#define EQP_DREQ_LEN       40  /* u64 issue, u64 complete, u64 pc, u32 pid, u32 tid, u16 device, u16 flags, u32 bytes */
#define EQP_MAX_CHAIN      EQP_MAX_CHAIN_FRAMES /* (eqp.h) frames of each kind in one chain */
#define EQP_USTK_HDR_LEN   16  /* u32 count, u32 arch, u64 register mask */
#define EQP_USTK_ENT_LEN   8   /* u32 abi, u32 stack bytes; then registers, stack */

/* Limits that keep a corrupt length from asking for absurd memory. */
#define EQP_MAX_STRING     (64u << 20)
#define EQP_MAX_IMAGE      (64u << 20)  /* IMAG: bytes of one embedded image */
/* No chunk of any type is longer (docs/format.md): a longer length is
 * damage, not a chunk, even of a type this reader does not know. */
#define EQP_MAX_CHUNK      (1ull << 30)

#endif
