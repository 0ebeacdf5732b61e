/*
 * symfile.h - symbol lists in nm / /proc/kallsyms text form, to embed in a
 * recording for code whose ELF the report machine will not have:
 *
 *   ffffffff81000000 T _stext
 *   0000000000001139 t local_helper
 *
 * One symbol a line: hex address, a one-letter type, the name, and an
 * optional "[module]" (kallsyms) that is kept out of the name.  Only code
 * symbols (types T, t, W, w) are kept: samples are pcs.  Sizes are unknown
 * (0: a symbol reaches up to the next one).
 */
#ifndef EQ_SYMFILE_H
#define EQ_SYMFILE_H

#include <stddef.h>

#include "util/eq_error.h"
#include "file/eqp.h"

struct eq_symfile {
	size_t n;
	struct eqp_symbol *syms;  /* sorted by address */
	char *names;              /* backing store */
};

/* Parses text (len bytes); errors name `name` and the line. */
int eq_symfile_parse(const char *text, size_t len, const char *name,
		     struct eq_symfile *out, struct eq_error *err);
void eq_symfile_release(struct eq_symfile *s);

/*
 * A JIT's symbol map, /tmp/perf-PID.map, the format perf reads: one
 * "START SIZE NAME" a line, START and SIZE in hex (0x optional), NAME the
 * rest of the line (it may hold spaces: "LazyCompile:*fib /app/x.js:3").
 * Addresses are absolute; sizes are kept.
 */
int eq_perfmap_parse(const char *text, size_t len, const char *name,
		     struct eq_symfile *out, struct eq_error *err);

#endif
