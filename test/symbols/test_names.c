/*
 * test_names.c - demangling (C++ with parameters as c++filt prints them;
 * Rust legacy and v0 without the hash and disambiguator, as perf and
 * rustfilt print them), names left alone, and the one name of an address
 * among its aliases (glibc's malloc and free, the vdso's clock_gettime).
 * Expected strings are GNU c++filt 2.40's output for the same symbols
 * (minus Rust's hash, which c++filt prints with its verbose flag).
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "symbols/intern.h"
#include "symbols/names.h"
#include "symbols/symfile.h"

static void demangles(void **state)
{
	struct eq_intern *t = eq_intern_new();
	const char *plain = "main";

	(void)state;
	assert_string_equal(eq_name_demangle(t, "_ZN8geometry5scaleEd"), "geometry::scale(double)");
	assert_string_equal(eq_name_demangle(t, "_ZN8geometry11AccumulatorIlE3addEl"),
			    "geometry::Accumulator<long>::add(long)");
	assert_string_equal(eq_name_demangle(t, "_ZN4core3fmt5write17h0123456789abcdefE"),
			    "core::fmt::write");
	assert_string_equal(eq_name_demangle(t, "_ZN5alloc3vec16Vec$LT$T$C$A$GT$4push17h0123456789abcdefE"),
			    "alloc::vec::Vec<T,A>::push");
	assert_string_equal(eq_name_demangle(t, "_RNvNtCs1234_7mycrate3foo3bar"), "mycrate::foo::bar");
	assert_ptr_equal(eq_name_demangle(t, plain), plain);
	assert_string_equal(eq_name_demangle(t, "_Zbogus"), "_Zbogus");
	assert_string_equal(eq_name_demangle(t, "_"), "_");
	eq_intern_free(t);
}

static void unversioned(void **state)
{
	struct eq_intern *t = eq_intern_new();

	(void)state;
	assert_string_equal(eq_name_unversioned(t, "clock_gettime@@GLIBC_2.17"), "clock_gettime");
	assert_string_equal(eq_name_unversioned(t, "cfree@GLIBC_2.2.5"), "cfree@GLIBC_2.2.5");
	assert_string_equal(eq_name_unversioned(t, "memcpy"), "memcpy");
	eq_intern_free(t);
}

/* eq_intern_copy: the bytes up to the first NUL, kept with the table, never
 * the interned copy nor found as one. */
static void copies_not_interned(void **state)
{
	struct eq_intern *t = eq_intern_new();
	const char *i1 = eq_intern(t, "f.c:12"), *c1 = eq_intern_copy(t, "f.c:12", 6),
		   *c2 = eq_intern_copy(t, "f.c:12xyz", 6), *c3 = eq_intern_copy(t, "ab\0cd", 5);

	(void)state;
	assert_string_equal(c1, "f.c:12");
	assert_string_equal(c2, "f.c:12");
	assert_string_equal(c3, "ab");
	assert_true(c1 != i1 && c2 != i1 && c1 != c2);
	assert_ptr_equal(eq_intern(t, "f.c:12"), i1);
	assert_ptr_equal(eq_intern_n(t, "f.c:12xyz", 6), i1);
	eq_intern_free(t);
}

#define BEST(a, ba, b, bb) eq_name_alias_cmp(16, ba, a, 16, bb, b)

static void aliases(void **state)
{
	(void)state;
	/* glibc: the public name over its internal aliases */
	assert_true(BEST("malloc", STB_GLOBAL, "__GI___libc_malloc", STB_LOCAL) < 0);
	assert_true(BEST("__libc_malloc", STB_GLOBAL, "malloc", STB_GLOBAL) > 0);
	assert_true(BEST("free", STB_GLOBAL, "cfree@GLIBC_2.2.5", STB_GLOBAL) < 0);
	/* two local names in libc's debug symbols: not the hidden alias,
	 * though it has fewer leading underscores */
	assert_true(BEST("____strtod_l_internal", STB_LOCAL, "__GI_____strtod_l_internal",
			 STB_LOCAL) < 0);
	assert_true(BEST("__GI_____strtod_l_internal", STB_LOCAL, "____strtod_l_internal",
			 STB_LOCAL) > 0);
	/* the vdso: the strong symbol, as perf shows it */
	assert_true(BEST("clock_gettime", STB_WEAK, "__vdso_clock_gettime", STB_GLOBAL) > 0);
	/* a sized symbol over a sizeless one */
	assert_true(eq_name_alias_cmp(0, STB_GLOBAL, "a", 8, STB_GLOBAL, "b") > 0);
	/* embedded tables know no binding: underscores decide */
	assert_true(BEST("_start", EQ_BIND_UNKNOWN, "__start", EQ_BIND_UNKNOWN) < 0);
	assert_int_equal(BEST("x", STB_GLOBAL, "x", STB_LOCAL), 0);
	/* a total order: antisymmetric */
	assert_true(BEST("alpha", STB_GLOBAL, "gamma", STB_GLOBAL) ==
		    -BEST("gamma", STB_GLOBAL, "alpha", STB_GLOBAL));
}

static void perf_maps(void **state)
{
	static const char text[] = "7f0010 10 jit_spin\n0x7f0000 0x8 LazyCompile:*fib /app/x.js:3\r\n\n";
	struct eq_symfile sf;
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_perfmap_parse(text, sizeof(text) - 1, "perf-1.map", &sf, &err), 0);
	assert_int_equal(sf.n, 2);
	assert_int_equal(sf.syms[0].addr, 0x7f0000); /* sorted */
	assert_int_equal(sf.syms[0].size, 8);
	assert_string_equal(sf.syms[0].name, "LazyCompile:*fib /app/x.js:3");
	assert_string_equal(sf.syms[1].name, "jit_spin");
	assert_int_equal(sf.syms[1].size, 0x10);
	eq_symfile_release(&sf);
	assert_int_equal(eq_perfmap_parse("10 20 ok\nzz 1 bad\n", 19, "perf-2.map", &sf, &err), -1);
	assert_non_null(strstr(err.msg, "perf-2.map:2"));
	assert_int_equal(eq_perfmap_parse("10 20\n", 6, "perf-3.map", &sf, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(demangles),
		cmocka_unit_test(unversioned),
		cmocka_unit_test(copies_not_interned),
		cmocka_unit_test(aliases),
		cmocka_unit_test(perf_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
