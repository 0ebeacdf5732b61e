/*
 * annotate.h - energy (or time) per instruction and per source line of one
 * procedure, beside its disassembly: what `eqprof annotate` prints.
 *
 * The samples whose location (symbolize.h) is the procedure are counted per
 * instruction (the interrupted pc is an instruction's address).  When this
 * machine has the module's ELF file, the procedure's bytes are read from it
 * and disassembled with capstone (x86-64, i386, AArch64, ARM/Thumb), and each
 * instruction gets its source line from DWARF; otherwise (a simulated
 * program, kallsyms, an unsupported architecture) only the sampled pcs are
 * listed and `why` says why there is no disassembly.
 *
 * A name may match procedures in several modules (a static function, a
 * symbol in two libraries): each is annotated, most samples first.
 */
#ifndef EQ_ANNOTATE_H
#define EQ_ANNOTATE_H

#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "symbols/symbolize.h"
#include "profile/table.h"

struct eq_annot_insn {
	uint64_t addr;          /* link-time address in the module */
	uint64_t off;           /* file offset (as loc->module_off) */
	char text[200];         /* "mnemonic operands", or "" (not disassembled) */
	const char *file;       /* source file, NULL if unknown */
	unsigned line;
	uint64_t samples;
};

struct eq_annot_line {
	const char *file;       /* NULL: instructions without line information */
	unsigned line;
	uint64_t samples;
};

struct eq_annot_func {
	const char *name;
	const char *module;     /* path as in the maps */
	const char *host_path;  /* the ELF read here, NULL if none */
	uint64_t start_addr, start_off, size;
	uint64_t samples;
	const char *why;        /* NULL when disassembled, else why not */
	size_t ninsns;
	struct eq_annot_insn *insns;   /* in address order */
	size_t nlines;
	struct eq_annot_line *lines;   /* most samples first */
};

struct eq_annotation {
	const char *symbol;
	enum eqp_mode mode;
	double per_sample;      /* J (energy) or s (time) per sample; 0 unknown */
	uint64_t total_samples; /* all samples of the recording */
	size_t nfuncs;
	struct eq_annot_func *funcs;   /* most samples first */
};

/* Annotates every procedure named symbol (in module, when module is not
 * NULL: a path or a basename).  Fails, saying what there is instead, when no
 * sample landed in such a procedure. */
struct eq_annotation *eq_annotate(const struct eqp_file *f, struct eq_symbolizer *s,
				  const char *symbol, const char *module,
				  struct eq_error *err);
void eq_annotation_print(FILE *out, const struct eq_annotation *a, enum eq_format fmt,
			 const char *source, int show_source);
void eq_annotation_free(struct eq_annotation *a);

#endif
