/*
 * test_symtab.c - nm/kallsyms lists (symfile) and address lookup in an
 * embedded symbol table (symtab index): boundaries, sizes, sizeless last
 * symbol, unsorted input, string interning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "symbols/intern.h"
#include "symbols/symfile.h"
#include "symbols/addrindex.h"
#include "symbols/symtab.h"

static void symfile_keeps_code_symbols_sorted(void **state)
{
	static const char text[] =
		"ffffffff81002000 t schedule\n"
		"ffffffff81000000 T _stext\r\n"
		"ffffffff81003000 D some_data\n"
		"\n"
		"ffffffffc0001000 t mod_fn\t[some_module]\n"
		"ffffffff81001000 W weak_fn\n";
	struct eq_symfile f;
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_symfile_parse(text, strlen(text), "k", &f, &err), 0);
	assert_int_equal(f.n, 4);
	assert_string_equal(f.syms[0].name, "_stext");
	assert_string_equal(f.syms[1].name, "weak_fn");
	assert_string_equal(f.syms[2].name, "schedule");
	assert_string_equal(f.syms[3].name, "mod_fn");   /* [module] not in the name */
	assert_true(f.syms[3].addr == 0xffffffffc0001000ull);
	eq_symfile_release(&f);
}

/* arm64 modules' kallsyms lines hold Arm mapping symbols ($x, $d; also
 * $a, $t and "$x.N") at functions' addresses: names of no function, which
 * hid eqprof_read from an arm64 recording's samples in it. */
static void symfile_skips_arm_mapping_symbols(void **state)
{
	const char *text = "ffffa51c44c00540 t $x\t[eqprof]\n"
			   "ffffa51c44c00540 t eqprof_read\t[eqprof]\n"
			   "ffffa51c44c00900 t $d.12\t[eqprof]\n"
			   "ffffa51c44c00930 t $x.3\t[eqprof]\n"
			   "ffffa51c44c00930 t eqprof_poll\t[eqprof]\n"
			   "ffffa51c44c00a00 t $xyz\t[eqprof]\n";
	struct eq_symfile f;
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_symfile_parse(text, strlen(text), "k", &f, &err), 0);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.syms[0].name, "eqprof_read");
	assert_string_equal(f.syms[1].name, "eqprof_poll");
	assert_string_equal(f.syms[2].name, "$xyz");  /* not a mapping symbol */
	eq_symfile_release(&f);
}

static void symfile_errors_name_the_line(void **state)
{
	static const char *bad[] = { "zz T x\n", "1000 T\n", "1000 x\n", "1000  T x\n",
				     "1000 T x\n10000000000000000 T y\n" };
	struct eq_symfile f;
	struct eq_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(eq_symfile_parse(bad[i], strlen(bad[i]), "k.syms", &f, &err), -1);
		assert_non_null(strstr(err.msg, i == 4 ? "k.syms:2" : "k.syms:1"));
	}
}

static void index_finds_covering_symbol(void **state)
{
	static const struct eqp_symbol syms[] = {
		{ 0x3000, 0, "last" },          /* out of order on purpose */
		{ 0x1000, 0x10, "sized" },
		{ 0x2000, 0, "sizeless" },
	};
	const struct eqp_symtab t = { "m", 0, 3, syms };
	struct eq_symtab_index *x = eq_symtab_index_new(&t);

	(void)state;
	assert_non_null(x);
	assert_null(eq_symtab_index_find(x, 0xfff));
	assert_string_equal(eq_symtab_index_find(x, 0x1000)->name, "sized");
	assert_string_equal(eq_symtab_index_find(x, 0x100f)->name, "sized");
	assert_null(eq_symtab_index_find(x, 0x1010));           /* past its size */
	assert_string_equal(eq_symtab_index_find(x, 0x2000)->name, "sizeless");
	assert_string_equal(eq_symtab_index_find(x, 0x2fff)->name, "sizeless");
	assert_string_equal(eq_symtab_index_find(x, 0x3000)->name, "last");
	assert_string_equal(eq_symtab_index_find(x, 0x3000 + 0xfffff)->name, "last");
	assert_null(eq_symtab_index_find(x, 0x3000 + 0x100000)); /* stray, far past */
	eq_symtab_index_free(x);
	assert_null(eq_symtab_index_new(&(struct eqp_symtab){ "m", 0, 0, NULL }));
}

/* The symbol before address a in syms (the last at or below it), by a
 * scan; fails the test when x's answer differs. */
static void check_before(const struct eq_symtab_index *x, const struct eqp_symbol *syms,
			 size_t n, uint64_t a)
{
	uint64_t want = 0;
	const struct eqp_symbol *got = eq_symtab_index_before(x, a);
	size_t i;

	for (i = 0; i < n; i++)
		if (syms[i].addr <= a && syms[i].addr >= want)
			want = syms[i].addr;
	if (!want)
		assert_null(got);
	else if (!got || got->addr != want)
		fail_msg("%zu symbols, 0x%llx: 0x%llx, not 0x%llx", n, (unsigned long long)a,
			 got ? (unsigned long long)got->addr : 0ull, (unsigned long long)want);
}

static uint64_t next_seed(uint64_t *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 7;
	*seed ^= *seed << 17;
	return *seed;
}

/* The symbol before an address (the last at or below it), in tables of
 * every size from 1 to 40 with repeated addresses, against a scan: the
 * search's every way to end (below the first, between, on, above the
 * last) at every size.  Then tables of 64 symbols and more, which have
 * buckets (symtab.c's at[]), their addresses clustered with gaps of up to
 * a megabyte between, so that buckets are empty, hold one symbol, or
 * many: every symbol's address, the byte before and after it, and
 * addresses drawn over the whole span and beyond it. */
static void index_before_every_size(void **state)
{
	static struct eqp_symbol syms[1000];
	static const size_t big[] = { 64, 65, 100, 257, 1000 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t n, i, k;
	uint64_t a, top;

	(void)state;
	for (n = 1; n <= 40; n++) {
		struct eq_symtab_index *x;

		for (i = 0; i < n; i++)
			/* 16-byte steps, a third of them repeated */
			syms[i] = (struct eqp_symbol){ 0x1000 + 16 * (next_seed(&seed) % (2 * n)), 0,
						       "s" };
		x = eq_symtab_index_new(&(struct eqp_symtab){ "m", 0, n, syms });
		assert_non_null(x);
		for (a = 0xff0; a < 0x1000 + 16 * 2 * n + 32; a += 8)
			check_before(x, syms, n, a);
		eq_symtab_index_free(x);
	}
	for (k = 0; k < sizeof(big) / sizeof(big[0]); k++) {
		struct eq_symtab_index *x;

		n = big[k];
		for (i = 0, a = 0x400000; i < n; i++) {
			uint64_t r = next_seed(&seed);

			/* a step of 0 (an alias), 16 bytes, or a gap */
			a += r % 8 == 0 ? 0 : r % 8 < 6 ? 16 : (r >> 8) % (1u << 20);
			syms[(i * 7) % n] = (struct eqp_symbol){ a, 0, "s" };  /* out of order */
		}
		top = a;
		x = eq_symtab_index_new(&(struct eqp_symtab){ "m", 0, n, syms });
		assert_non_null(x);
		for (i = 0; i < n; i++) {
			check_before(x, syms, n, syms[i].addr - 1);
			check_before(x, syms, n, syms[i].addr);
			check_before(x, syms, n, syms[i].addr + 1);
		}
		for (i = 0; i < 4000; i++)
			check_before(x, syms, n, 0x3ff000 + next_seed(&seed) % (top - 0x3ff000 + 0x2000));
		check_before(x, syms, n, 0);
		check_before(x, syms, n, UINT64_MAX);
		eq_symtab_index_free(x);
	}
}

/* eq_addr_index over records of 24 bytes (elfmod.c's line records are
 * indexed through a stride), clustered with gaps: at every address asked,
 * the records before *lo are below it and those from *hi on above it; no
 * index below 64 records. */
static void addr_index_brackets(void **state)
{
	static struct { uint64_t addr; char pad[16]; } recs[700];
	struct eq_addr_index x;
	uint64_t seed = 0x2545f4914f6cdd1dull, a = 0x10000, top;
	size_t i, k, lo, hi;

	(void)state;
	eq_addr_index_build(&x, &recs[0].addr, sizeof(recs[0]), 63);
	assert_null(x.at);
	for (i = 0; i < 700; i++) {
		uint64_t r = next_seed(&seed);

		a += r % 5 == 0 ? 0 : r % 5 < 4 ? 1 + r % 40 : (r >> 8) % 100000;
		recs[i].addr = a;
	}
	top = a;
	eq_addr_index_build(&x, &recs[0].addr, sizeof(recs[0]), 700);
	assert_non_null(x.at);
	assert_true(x.nb <= 700);
	for (k = 0; k < 20000; k++) {
		a = k < 700 ? recs[k].addr + (k % 3) - 1 : 0xff00 + next_seed(&seed) % (top - 0xfe00);
		eq_addr_index_bucket(&x, a, &lo, &hi);
		assert_true(lo <= hi && hi <= 700);
		for (i = 0; i < lo; i++)
			assert_true(recs[i].addr < a);
		for (i = hi; i < 700; i++)
			assert_true(recs[i].addr > a);
	}
	eq_addr_index_bucket(&x, 0, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	eq_addr_index_bucket(&x, UINT64_MAX, &lo, &hi);
	assert_true(lo == 700 && hi == 700);
	eq_addr_index_free(&x);
	assert_null(x.at);
}

static void intern_gives_one_pointer_per_string(void **state)
{
	struct eq_intern *t = eq_intern_new();
	const char *a, *b, *c;
	char name[32];
	int i;

	(void)state;
	a = eq_intern(t, "spin_a");
	b = eq_intern_n(t, "spin_abc", 6);
	c = eq_internf(t, "spin_%c", 'a');
	assert_ptr_equal(a, b);
	assert_ptr_equal(a, c);
	assert_ptr_not_equal(a, eq_intern(t, "spin_b"));
	assert_ptr_equal(eq_intern_n(t, "x\0y", 3), eq_intern(t, "x")); /* ends at NUL */
	for (i = 0; i < 100000; i++) {                                 /* grows */
		snprintf(name, sizeof(name), "f%d", i);
		eq_intern(t, name);
	}
	assert_ptr_equal(eq_intern(t, "spin_a"), a);
	assert_string_equal(eq_intern(t, "f99999"), "f99999");
	eq_intern_free(t);
}

/*
 * Strings found again by their slot's hash and length after every growth
 * of the table: 1,000,000 names (prefixes of each other among them: "g1",
 * "g10", "g100"; 900,000 of 7 bytes, so about a hundred pairs of equal
 * length share the 32 bits of hash a slot keeps), each interned twice, once
 * before and once after all the others, give one pointer each, to their
 * own bytes; and a prefix asked by length is its own string.
 */
static void intern_finds_every_string_after_growth(void **state)
{
	enum { N = 1000000 };
	struct eq_intern *t = eq_intern_new();
	const char **p = malloc(N * sizeof(*p));
	char name[32];
	int i;

	(void)state;
	assert_non_null(t);
	assert_non_null(p);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		p[i] = eq_intern(t, name);
		assert_non_null(p[i]);
		assert_string_equal(p[i], name);
	}
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_ptr_equal(eq_intern(t, name), p[i]);
		assert_ptr_equal(eq_intern_n(t, name, strlen(name)), p[i]);
		if (i >= 10)   /* "g1234" cut to "g123" */
			assert_ptr_equal(eq_intern_n(t, name, strlen(name) - 1), p[i / 10]);
		if (i)
			assert_ptr_not_equal(p[i], p[i - 1]);
	}
	free(p);
	eq_intern_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(symfile_keeps_code_symbols_sorted),
		cmocka_unit_test(symfile_errors_name_the_line),
		cmocka_unit_test(symfile_skips_arm_mapping_symbols),
		cmocka_unit_test(index_finds_covering_symbol),
		cmocka_unit_test(index_before_every_size),
		cmocka_unit_test(addr_index_brackets),
		cmocka_unit_test(intern_gives_one_pointer_per_string),
		cmocka_unit_test(intern_finds_every_string_after_growth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
