/*
 * verdict.h - eqp_open() against eqp_open_lazy() and eqp_verify() on one
 * damaged file, for the cmocka tests of test/format.  Include after
 * <cmocka.h> and file/eqp.h.
 */
#ifndef EQ_TEST_VERDICT_H
#define EQ_TEST_VERDICT_H

#include <stddef.h>

/* The file at path (damaged at byte at) opened both ways: the same verdict
 * and the same message, the lazy file read first by read (if not NULL:
 * its samples or chains readable, not trusted, before the verdict). */
static inline void eq_test_same_verdict(const char *path, size_t at,
					void (*read)(const struct eqp_file *g))
{
	struct eq_error strict = { "" }, lazy = { "" };
	struct eqp_file *f = eqp_open(path, &strict), *g = eqp_open_lazy(path, &lazy);
	int bad;

	if (!g) {
		if (f)
			fail_msg("byte %zu: eqp_open accepts, eqp_open_lazy refuses: %s", at, lazy.msg);
		assert_string_equal(lazy.msg, strict.msg);
		eqp_close(f);
		return;
	}
	if (read)
		read(g);
	bad = eqp_verify(g, &lazy) < 0;
	if (bad != !f)
		fail_msg("byte %zu: eqp_open %s, eqp_open_lazy and eqp_verify %s (%s)", at,
			 f ? "accepts" : strict.msg, bad ? "refuse" : "accept", bad ? lazy.msg : "");
	if (bad)
		assert_string_equal(lazy.msg, strict.msg);
	else
		assert_int_equal(eqp_nsamples(g), eqp_nsamples(f));
	eqp_close(f);
	eqp_close(g);
}

#endif
