/*
 * symbolize.h - from a sample (pid, pc, flags) to where it was: executable,
 * module, procedure, source line and instruction.
 *
 * Module and executable come from the process maps and names captured in the
 * recording, as they were when the sample was taken (tasks.h).  Procedures and lines come from the module's ELF file on this
 * machine (elfutils libdwfl: .symtab/.dynsym, DWARF lines, separate debug
 * info), looked up under --symfs when given, and checked against the build-id
 * captured at record/import time.  Modules with no ELF here fall back to a
 * symbol table embedded in the recording; kernel pcs (EQ_F_KERNEL) use the
 * embedded "[kernel.kallsyms]" table when present.
 *
 * Naming rules (docs/guide.md, "How samples are attributed"):
 *   idle sample (EQ_F_IDLE or pid 0)  exe = module = proc = "[idle]"
 *   pc in no mapping of its process   module = "[unknown]"
 *   pc in a module, no symbol covers  kind EQ_LOC_UNRESOLVED; proc names its
 *                                     function by the file's CFI when the ELF
 *                                     (or the vdso's saved image) is here
 *                                     ("libz.so.1+0x2a40", "[vdso]+0x780":
 *                                     elfmod.h eq_elfmod_region), else NULL:
 *                                     reports print "[unknown]"
 *                                     (per module) and "[unknown]
 *                                     module+0xoff" (per insn)
 *   kernel pc                         module = "[kernel.kallsyms]"
 *
 * A location is looked up once per distinct (pid, pc, kernel/idle) and
 * cached; the returned pointer and all strings in it stay valid until
 * eq_sym_free().  Equal strings are the same pointer (interned), so callers
 * may group by pointer.
 */
#ifndef EQ_SYMBOLIZE_H
#define EQ_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"
#include "eq_sample.h"
#include "file/eqp.h"

enum eq_loc_kind {
	EQ_LOC_RESOLVED = 0,   /* proc (and maybe file:line) known */
	EQ_LOC_UNRESOLVED,     /* in a known module, but no symbol covers the pc */
	EQ_LOC_NO_MODULE,      /* pc in no mapping of its process (or no maps at all) */
	EQ_LOC_IDLE,           /* EQ_F_IDLE or pid 0 */
};

struct eq_loc {
	enum eq_loc_kind kind;
	int kernel;            /* 1: kernel pc */
	uint32_t pid;
	uint64_t pc;
	const char *exe;       /* process name (comm), else the main executable's
				  basename from the maps, else "pid N" */
	const char *module;    /* path as in the maps, "[kernel.kallsyms]",
				  "[unknown]" or "[idle]" */
	const char *module_base; /* basename of module ("libc.so.6") */
	uint64_t module_off;   /* pc as an offset into the module's file
				  (pc - map start + map offset); kernel: pc */
	const char *proc;      /* symbol name; NULL unless EQ_LOC_RESOLVED/IDLE */
	uint64_t proc_off;     /* pc - symbol start */
	const char *file;      /* source file of the pc, NULL if unknown */
	unsigned line;         /* source line, 0 if unknown */
};

struct eq_sym_options {
	const char *symfs;     /* look up module paths under this root (NULL: /) */
	int check_build_id;    /* 1 (default behaviour when options is NULL): refuse
				  an ELF whose build-id differs from the recorded one */
};

struct eq_symbolizer;

/* Reads maps, names, symtabs and build-ids of f (which must outlive s). */
struct eq_symbolizer *eq_sym_new(const struct eqp_file *f,
				 const struct eq_sym_options *opt,
				 struct eq_error *err);
void eq_sym_free(struct eq_symbolizer *s);

/* skip = 1: leave file and line empty in later lookups (saves the DWARF line
 * search when only procedures are wanted).  Call before the first lookup. */
void eq_sym_skip_lines(struct eq_symbolizer *s, int skip);

/* Where the sample was.  Never fails: unknowns are reported as such.  The
 * sample's time picks its process's address space (tasks.h): after an exec
 * the same pc is another place. */
const struct eq_loc *eq_sym_lookup(struct eq_symbolizer *s,
				   const struct eq_sample *smp);

/*
 * eq_sym_lookup(s, smp), and in [*first, *last] (inclusive) pcs around
 * smp->pc where a sample like smp (same pid, time, flags) gets a loc of the
 * same kind, kernel-ness, exe, module, module_base and proc: the extent of
 * its symbol (or of the gap, the CFI function or block an unresolved pc
 * is named by) within its mapping; all pcs for idle samples; the pc alone
 * where no more is known (kernel pcs, pcs in no mapping, JIT code).
 */
const struct eq_loc *eq_sym_lookup_extent(struct eq_symbolizer *s, const struct eq_sample *smp,
					  uint64_t *first, uint64_t *last);
/* The same where the loc's file and line stay the same too (its DWARF
 * line record's pcs, unless lines are skipped). */
const struct eq_loc *eq_sym_lookup_line_extent(struct eq_symbolizer *s,
					       const struct eq_sample *smp, uint64_t *first,
					       uint64_t *last);

/* eq_sym_lookup_line_extent (lines 1) or eq_sym_lookup_extent (0) for a
 * pc the caller remembers the answer for by extent: the same loc and
 * extent, the loc not kept in the symbolizer's cache of pcs (a user pc's:
 * asked again, it is located again).  lines 2: the line's extent widened
 * over the DWARF line records next to the pc's that give the same file
 * and line (eq_elfmod_same_line_extent). */
const struct eq_loc *eq_sym_locate_extent(struct eq_symbolizer *s, const struct eq_sample *smp,
					  int lines, uint64_t *first, uint64_t *last);

/* A number that, with the pc and the kernel/idle flags, names one place:
 * the pid when no process of the recording had more than one address space,
 * else one number per address space.  For callers' own caches of lookups. */
uint32_t eq_sym_space_key(struct eq_symbolizer *s, const struct eq_sample *smp);
/* Why samples in module (a loc's module) had no symbol, for the user: a
 * stripped file and where its debug file was looked for, no ELF file, JIT
 * code without a map, no mapping at all.  NULL if nothing is known. */
const char *eq_sym_module_note(struct eq_symbolizer *s, const char *module);

/* The inline chain at a resolved loc, innermost first, the last frame
 * being loc->proc (elfmod.h's struct eq_inline_frame); 0 when the module
 * has no DWARF for it. */
struct eq_inline_frame;
size_t eq_sym_inlines(struct eq_symbolizer *s, const struct eq_loc *l,
		      struct eq_inline_frame *out, size_t max);
/* The source file of loc's function (at its entry), or NULL. */
const char *eq_sym_proc_file(struct eq_symbolizer *s, const struct eq_loc *l);

/* The memory map of the sample's address space (parsed), or NULL. */
struct eq_maps;
const struct eq_maps *eq_sym_space_maps(struct eq_symbolizer *s, const struct eq_sample *smp);

/*
 * Sample i of sample chunk c of the recording (smp is that sample): its
 * call chain into *cc, as eqp_sample_callchain() gives it, or, when it has
 * none but a user stack copy (record --call-graph dwarf), the chain libdwfl
 * unwinds from that copy (unwind.h).  Returns the number of frames; the
 * frames stay valid until the next call.
 */
int eq_sym_callchain(struct eq_symbolizer *s, size_t c, size_t i,
		     const struct eq_sample *smp, struct eqp_callchain *cc);
/* What unwinding stack copies gave so far (NULL before the first). */
struct eq_unwind_stats;
const struct eq_unwind_stats *eq_sym_unwind_stats(const struct eq_symbolizer *s);

/* The recording s reads. */
const struct eqp_file *eq_sym_file(const struct eq_symbolizer *s);

/* 1 when eq_sym_space_key() is not simply the pid. */
int eq_sym_multi_space(const struct eq_symbolizer *s);

/* The name of the sample's thread: the name it gave itself, else its
 * process's ("[idle]" for idle samples).  Interned, like loc strings. */
const char *eq_sym_thread_name(struct eq_symbolizer *s, const struct eq_sample *smp);

/*
 * Things the user should know about (a module whose ELF was not found, a
 * build-id mismatch, a module with no symbols): one line each, at most one
 * per module, in the order they happened.
 */
size_t eq_sym_nwarnings(const struct eq_symbolizer *s);
const char *eq_sym_warning(const struct eq_symbolizer *s, size_t i);

/*
 * The ELF file this machine has for a module (a path as in loc->module),
 * opened and checked as for lookups; *host_path gets its name (beneath
 * --symfs when given).  NULL when the module has no ELF here.
 */
struct eq_elfmod;
struct eq_elfmod *eq_sym_module_elf(struct eq_symbolizer *s, const char *module,
				    const char **host_path);
/* A descriptor of an anonymous memory file holding the bytes the
 * recording saved of module (the vdso: "[vdso]"), at offset 0; -1 when it
 * has none. */
int eq_sym_image_fd(struct eq_symbolizer *s, const char *module);
/* Opens such a name read-only the way the symbolizer does (beneath
 * --symfs, regular files only); a descriptor or -1 with err. */
int eq_sym_module_open(struct eq_symbolizer *s, const char *host_path, struct eq_error *err);

/*
 * Build-ids recorded for modules are stored in the recording's header extra
 * lines as "buildid:<module path>=<lowercase hex>" (import adds them for the
 * files it can read; record and sim may too).
 */
#define EQ_BUILDID_KEY_PREFIX "buildid:"

/* Reads the GNU build-id note of an ELF file into hex (size >= 2*20+1 is
 * enough for SHA-1 ids; longer ids are refused).  Returns 0, or -1 with err. */
int eq_elf_build_id(const char *path, char *hex, size_t size, struct eq_error *err);

#endif
