/*
 * elfmod.h - one ELF file on this machine, opened for symbolization.
 *
 * The file is reported to libdwfl at bias 0, so addresses are the file's
 * own link-time vaddrs whatever the process it ran in; the caller turns a
 * pc into a file offset with the maps, and eq_elfmod_lookup() turns the
 * offset into a vaddr with the PT_LOAD headers.  Function symbols (.symtab,
 * or .dynsym, or those of separate debug info) are copied into a sorted
 * index once; lines come from DWARF, each CU's line table copied once.
 */
#ifndef EQ_ELFMOD_H
#define EQ_ELFMOD_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"

struct eq_intern;
struct eq_elfmod;

struct eq_root;

/*
 * Takes over fd, the ELF file named file (opened with eq_input_open(), beneath
 * root when root is not NULL; separate debug info is looked for beneath it
 * too).  want_build_id: the hex build-id the recording has for it, or NULL
 * for no check.  Symbol names are interned in strings.  Returns NULL with
 * err saying why (not ELF, build-id differs).
 */
struct eq_elfmod *eq_elfmod_open(const struct eq_root *root, int fd, const char *file,
				 const char *want_build_id, struct eq_intern *strings,
				 struct eq_error *err);
void eq_elfmod_close(struct eq_elfmod *m);

/*
 * The function containing file offset off: its interned name and pc - start
 * in *proc_off; NULL if none.  With file non-NULL, also the source file and
 * line (NULL and 0 when the file has no line information for it).
 */
const char *eq_elfmod_lookup(struct eq_elfmod *m, uint64_t off, uint64_t *proc_off,
			     const char **file, unsigned *line);

/*
 * For a pc no symbol covers (a stripped file, a static function of a
 * library that exports only its API, the vdso's helpers): the function
 * around file offset off as the file's call-frame information (.eh_frame,
 * which stripping keeps) delimits it, else the 256-byte block holding it.
 * *start_off gets its first byte as a file offset.  No symbol is named:
 * the nearest one before it is another function's.  Returns 1 for a CFI
 * function, 0 for a block, -1 when off is in no loaded segment.
 */
#define EQ_REGION_BLOCK 256
int eq_elfmod_region(struct eq_elfmod *m, uint64_t off, uint64_t *start_off);

/*
 * The file offsets [*first, *last] around off (inclusive) over which
 * eq_elfmod_lookup() names the same symbol (or none) and, where it names
 * none, eq_elfmod_region() gives the same answer: the symbol's extent (as
 * the sorted index and a sizeless symbol's reach define it), within one
 * loaded segment, within one CFI function or 256-byte block where that
 * decides.
 */
void eq_elfmod_extent(struct eq_elfmod *m, uint64_t off, uint64_t *first, uint64_t *last);
/*
 * The DWARF line of file offset off, as dwfl_module_getsrc() and
 * dwfl_lineinfo() give it: the file (interned) and line, NULL and 0 where
 * it names no file or a line <= 0.  Returns 0, or -1 where libdw has no
 * line record for it (no DWARF, no CU, before the CU's first record, or an
 * end_sequence).  Each CU's line table is read once, on first need.
 */
int eq_elfmod_line(struct eq_elfmod *m, uint64_t off, const char **file, unsigned *line);
/* The same narrowed to the pcs of off's DWARF line (file and line alike in
 * eq_elfmod_lookup()); see elfmod.c. */
void eq_elfmod_line_extent(struct eq_elfmod *m, uint64_t off, uint64_t *first, uint64_t *last);
/* The same widened over the line records next to off's that give the same
 * file and line (where the CU's records are sorted): fewer, larger extents
 * of the pcs where eq_elfmod_lookup() gives off's procedure, file and line. */
void eq_elfmod_same_line_extent(struct eq_elfmod *m, uint64_t off, uint64_t *first,
				uint64_t *last);

/* 1 when DEBUGINFOD_URLS names servers: debug files missing here are
 * fetched from them (elfutils' libdebuginfod), after the local places. */
int eq_debuginfod_enabled(void);

/* eq_elf_build_id() (symbolize.h) of path beneath root (NULL: /). */
int eq_elf_build_id_in(const struct eq_root *root, const char *path, char *hex,
		       size_t size, struct eq_error *err);

/* One frame of the inline chain at a pc, innermost first. */
struct eq_inline_frame {
	const char *name;       /* the function (inlined or not), demangled */
	const char *call_file;  /* where an inlined copy was called from, in the */
	unsigned call_line;     /* next frame's function; NULL, 0 for the last */
};
/* The inline chain at file offset off (DWARF scopes); 0 without DWARF. */
size_t eq_elfmod_inlines(struct eq_elfmod *m, uint64_t off, struct eq_inline_frame *out,
			 size_t max);
/* The source file of the function whose code holds off, at its entry
 * (proc_off before it), or NULL. */
const char *eq_elfmod_proc_file(struct eq_elfmod *m, uint64_t off, uint64_t proc_off);

/* Why a pc of m has no symbol, in words: stripped and where its debug
 * file was looked for, or where its symbols came from. */
void eq_elfmod_describe(struct eq_elfmod *m, char *buf, size_t size);

/*
 * The function symbols of an ELF image in memory (the kernel's vdso, read
 * by the recorder from its own address space), one per address as for
 * files, at their offsets into the image; names interned in strings.
 * *syms is malloc'd.  Returns 0, or -1 with err.
 */
struct eqp_symbol;
int eq_elf_image_symbols(const void *image, size_t size, struct eq_intern *strings,
			 struct eqp_symbol **syms, size_t *n, struct eq_error *err);

#endif
