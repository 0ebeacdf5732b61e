/* test_bigarr.c - large arrays (analysis/util/bigarr.h): eq_grow's doubling,
 * contents kept and new elements zero across the step from malloc to a
 * mapping, mappings aligned to and a multiple of 2 MiB and advised for huge
 * pages, growth that moves pages instead of copying them (counted in minor
 * faults, which a copy takes by the thousand), a mapping's room to its
 * end, overflow refused.  Under
 * AddressSanitizer (EQ_BIG_MAPS 0) every array is malloc's: the same
 * contents, no mappings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/bigarr.h"

#define MIB ((size_t)1 << 20)

static void small_doubles_like_eq_grow(void **state)
{
	int *v = NULL;
	size_t cap = 0, n;

	(void)state;
	for (n = 0; n < 1000; n++) {
		assert_int_equal(EQ_BIG_GROW0(v, cap, n + 1, 16), 0);
		assert_int_equal(v[n], 0);                   /* new elements zero */
		v[n] = (int)n + 1;
		assert_true(cap == 16 || cap / 2 < n + 1);   /* doubled only when needed */
	}
	assert_int_equal(cap, 1024);
	assert_int_equal(eq_big_mapped(v), 0);          /* 4 KiB: malloc's */
	for (n = 0; n < 1000; n++)
		assert_int_equal(v[n], (int)n + 1);
	for (; n < cap; n++)
		assert_int_equal(v[n], 0);
	eq_big_free(v);
	eq_big_free(NULL);
}

/* The mapping around p: 2 MiB aligned, a multiple of 2 MiB, and (where the
 * kernel has transparent huge pages) advised for them: smaps' "hg". */
static void check_mapping(const void *p, size_t cap, size_t elem)
{
	size_t map = eq_big_mapped(p);
	uintptr_t base = (uintptr_t)p - 64;
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, hg = -1;

	assert_true(map > 0);
	assert_int_equal(map % (2 * MIB), 0);
	assert_int_equal(base % (2 * MIB), 0);
	assert_true(cap * elem + 64 <= map && (cap + 1) * elem + 64 > map);  /* to its end */
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = lo <= base && base < hi;
		else if (in && !strncmp(line, "VmFlags:", 8))
			hg = strstr(line, " hg") != NULL;
	}
	fclose(f);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
		assert_int_equal(hg, 1);
}

static void grows_into_mapping(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0, n, i, mapped = 0;

	(void)state;
	for (n = 0; n < 3 * MIB; n++) {        /* 24 MiB: 4 KiB, ..., 1 MiB, 2, 4, .. 32 */
		if (n == cap) {
			assert_int_equal(EQ_BIG_GROW0(v, cap, n + 1, 512), 0);
			for (i = n; i < cap; i += 4093)
				assert_true(v[i] == 0);
			assert_true(v[cap - 1] == 0);
			if (!EQ_BIG_MAPS) {
				assert_int_equal(eq_big_mapped(v), 0);
			} else if (eq_big_mapped(v)) {
				check_mapping(v, cap, sizeof(*v));
				assert_true(eq_big_mapped(v) > mapped);
				mapped = eq_big_mapped(v);
			} else {
				assert_int_equal(mapped, 0);    /* no way back to malloc */
				assert_true(cap * sizeof(*v) < MIB);
			}
		}
		v[n] = n * 0x9e3779b97f4a7c15ull;
	}
	assert_true(mapped >= 24 * MIB || !EQ_BIG_MAPS);
	for (n = 0; n < 3 * MIB; n++)
		assert_true(v[n] == n * 0x9e3779b97f4a7c15ull);
	assert_int_equal(EQ_BIG_GROW(v, cap, cap, 512), 0);   /* fits: unchanged */
	assert_int_equal(eq_big_mapped(v), mapped);
	eq_big_free(v);
}

static long minflt(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

/* 64 MiB written, grown to 128: moving the pages faults none of them in
 * again; a copy (realloc's memcpy, or a fresh array filled) would take at
 * least 32 faults with huge pages and 16,384 without.  Under
 * AddressSanitizer (no mappings: malloc's, which copies) the contents are
 * still kept. */
static void grows_without_copying(void **state)
{
	char *v = NULL;
	size_t cap = 0, n = 64 * MIB - 64, i;
	long f0;

	(void)state;
	assert_int_equal(EQ_BIG_GROW(v, cap, n, n), 0);
	assert_int_equal(eq_big_mapped(v), EQ_BIG_MAPS ? 64 * MIB : 0);
	for (i = 0; i < n; i += 4096)
		v[i] = (char)(i >> 12 | 1);
	v[n - 1] = 7;
	f0 = minflt();
	assert_int_equal(EQ_BIG_GROW(v, cap, n + 1, 0), 0);
	assert_true(cap >= n + 1);
	if (EQ_BIG_MAPS) {
		assert_true(minflt() - f0 < 16);
		assert_int_equal(eq_big_mapped(v), 128 * MIB);
		/* a mapping's new pages are zero */
		assert_int_equal(v[n], 0);
		assert_int_equal(v[cap - 1], 0);
	}
	for (i = 0; i < n; i += 4096)
		assert_int_equal(v[i], (char)(i >> 12 | 1));
	assert_int_equal(v[n - 1], 7);
	eq_big_free(v);
}

static void calloc_and_malloc(void **state)
{
	uint32_t *z = eq_big_calloc(3 * MIB, sizeof(*z));   /* 12 MiB */
	uint32_t *s = eq_big_calloc(1000, sizeof(*s));
	char *m = eq_big_malloc(5 * MIB, 1), *m0 = eq_big_malloc(0, 8);
	size_t i;

	(void)state;
	assert_non_null(z);
	assert_non_null(s);
	assert_non_null(m);
	assert_non_null(m0);
	if (EQ_BIG_MAPS)
		check_mapping(z, (eq_big_mapped(z) - 64) / sizeof(*z), sizeof(*z));
	for (i = 0; i < 3 * MIB; i += 1021)
		assert_int_equal(z[i], 0);
	assert_int_equal(z[3 * MIB - 1], 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(s[i], 0);
	assert_int_equal(eq_big_mapped(s), 0);
	assert_int_equal((uintptr_t)s % 16, (uintptr_t)0);   /* malloc's alignment kept */
	memset(m, 1, 5 * MIB);
	m0[7] = 1;                                      /* n 0: one element */
	eq_big_free(z);
	eq_big_free(s);
	eq_big_free(m);
	eq_big_free(m0);
}

/* eq_big_room: what was asked of malloc's arrays, a mapping's bytes to its
 * end, zero and writable (new_loc fills a mapping's room with blocks). */
static void room_to_the_end(void **state)
{
	char *s = eq_big_calloc(1000, 8), *z = eq_big_calloc(300 * 1024, 1);
	size_t i, room;

	(void)state;
	assert_non_null(s);
	assert_non_null(z);
	room = eq_big_room(z);
	assert_true(room >= 300 * 1024);
	if (EQ_BIG_MAPS) {
		assert_int_equal(eq_big_room(s), 8000);
		assert_int_equal(room, eq_big_mapped(z) - 64);
		assert_int_equal(room, 2 * MIB - 64);
	} else {
		assert_int_equal(room, 300 * 1024);
	}
	for (i = 0; i < room; i += 4096)
		assert_int_equal(z[i], 0);
	assert_int_equal(z[room - 1], 0);
	z[room - 1] = 1;
	eq_big_free(s);
	eq_big_free(z);
}

static void overflow_refused(void **state)
{
	char *v = NULL;
	uint64_t *w = NULL;
	size_t cap = 0, capw = 0;

	(void)state;
	assert_int_equal(EQ_BIG_GROW(v, cap, 10, 8), 0);
	v[0] = 'x';
	assert_int_equal(EQ_BIG_GROW(v, cap, SIZE_MAX, 8), -1);
	assert_int_equal(cap, 16);                      /* kept */
	assert_int_equal(v[0], 'x');
	assert_int_equal(EQ_BIG_GROW(w, capw, SIZE_MAX / 4, 8), -1);   /* bytes overflow */
	assert_null(w);
	assert_int_equal(capw, 0);
	assert_null(eq_big_calloc(SIZE_MAX / 4, 8));
	if (EQ_BIG_MAPS)    /* (ASan's malloc aborts on it) */
		assert_null(eq_big_malloc(SIZE_MAX / 2, 1));  /* beyond any mapping */
	eq_big_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_doubles_like_eq_grow),
		cmocka_unit_test(grows_into_mapping),
		cmocka_unit_test(grows_without_copying),
		cmocka_unit_test(calloc_and_malloc),
		cmocka_unit_test(room_to_the_end),
		cmocka_unit_test(overflow_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
