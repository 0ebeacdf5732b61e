/*
 * names.h - symbol names as a perf user reads them.
 *
 * Demangling: C++ (Itanium ABI) and Rust (legacy and v0) names are
 * demangled by libiberty's cplus_demangle (binutils' and GCC's own
 * demangler, Debian's libiberty-dev), with parameters, as perf report and
 * c++filt print them; Rust's legacy hash suffix is left out as rustfilt
 * does.
 *
 * Aliases: several symbols often name one address (glibc's malloc is also
 * __libc_malloc and, in its debug symbols, __GI___libc_malloc).  One name
 * is shown, chosen as perf does: a symbol with a size over one without, a
 * strong over a weak one, a global over a local one, then fewer leading
 * underscores, then the longer name; and, before the underscores, a plain
 * name over a versioned compatibility alias (free over cfree@GLIBC_2.2.5,
 * where perf shows the latter) and any name over glibc's hidden alias
 * (____strtod_l_internal over __GI_____strtod_l_internal, two local
 * symbols of libc's debug symbols, where perf counts the underscores and
 * shows the latter).  A default version ("@@GLIBC_2.17") is the public
 * name and shown without it: clock_gettime.
 */
#ifndef EQ_NAMES_H
#define EQ_NAMES_H

#include <stdint.h>

struct eq_intern;

/* The demangled form of name, interned; name itself (not copied) when it is
 * not a mangled C++ or Rust name.  NULL only when out of memory. */
const char *eq_name_demangle(struct eq_intern *strings, const char *name);

/* name interned without a default-version suffix: "clock_gettime@@GLIBC_2.17"
 * is clock_gettime; a compatibility alias ("cfree@GLIBC_2.2.5") is kept as
 * it is.  NULL only when out of memory. */
const char *eq_name_unversioned(struct eq_intern *strings, const char *name);

/* ELF binding of a candidate alias, or EQ_BIND_UNKNOWN (embedded tables). */
#define EQ_BIND_UNKNOWN (-1)

/* < 0 when a (size, binding, name) is the better name for an address than
 * b, > 0 when b is, 0 when they are the same name. */
int eq_name_alias_cmp(uint64_t size_a, int bind_a, const char *a,
		      uint64_t size_b, int bind_b, const char *b);

#endif
