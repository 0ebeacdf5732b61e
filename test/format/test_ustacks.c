/*
 * test_ustacks.c - user stack copies in recordings (USTK chunks, record
 * --call-graph dwarf): round trip of samples with and without copies, with
 * and without call chains, across sample-chunk boundaries; a file cut short
 * keeps whole chunks; copies that do not match their samples, or whose
 * sizes are impossible, are refused as corruption; a file without USTK
 * (every older file) has none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file/eqp.h"
#include "file/eqp_format.h"
#include "test/lib/chunks.h"
#include "test/lib/files.h"

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	strcpy(path, "/tmp/ustacks-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static const struct eqp_meta meta = { .mode = EQP_MODE_TIME, .nominal_hz = 1000, .clock_hz = 1e9 };

#define N 9000
#define MASK 0xff0fffull /* 20 registers */
#define NREGS 20

/* Sample i: every 13th without a stack (added plainly), every 17th with an
 * ABI-0 copy (a kernel thread), the rest with i % 300 + 1 bytes of stack
 * (odd sizes: the padding is the writer's) and, for odd i, a call chain. */
static void stack_of(uint32_t i, uint64_t *regs, unsigned char *stack, uint32_t *size)
{
	unsigned k;

	for (k = 0; k < NREGS; k++)
		regs[k] = 0x100000ull * i + k;
	*size = i % 300 + 1;
	for (k = 0; k < *size; k++)
		stack[k] = (unsigned char)(i * 7 + k);
}

static void write_file(void)
{
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &meta, &err);
	uint32_t i;

	assert_non_null(w);
	for (i = 0; i < N; i++) {
		struct eq_sample s = { .time = i, .pc = 0x400000 + i, .pid = 1, .tid = 1, .seq = i };
		uint64_t regs[NREGS], f[3] = { i, i + 1, i + 2 };
		unsigned char stack[512];
		struct eqp_ustack u = { .arch = 62, .regs_mask = MASK, .abi = 2, .nregs = NREGS,
					.regs = regs, .stack = stack };
		struct eqp_callchain cc = { 0, 3, f };

		if (i % 13 == 0) {
			assert_int_equal(eqp_add_samples(w, &s, 1, &err), 0);
			continue;
		}
		if (i % 17 == 0) {
			u.abi = 0;
		} else {
			stack_of(i, regs, stack, &u.size);
		}
		assert_int_equal(eqp_add_sample_stack(w, &s, i % 2 ? &cc : NULL, &u, &err), 0);
	}
	assert_int_equal(eqp_commit(w, &err), 0);
}

static void round_trip(void **state)
{
	struct eq_error err;
	struct eqp_file *f;
	size_t c, i, seen = 0;

	(void)state;
	write_file();
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_true(eqp_has_ustacks(f));
	assert_true(eqp_has_callchains(f));
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *s = eqp_sample_chunk(f, c, &n);

		for (i = 0; i < n; i++, seen++) {
			struct eqp_ustack u;
			struct eqp_callchain cc;
			uint64_t regs[NREGS];
			unsigned char stack[512];
			uint32_t size;
			int got = eqp_sample_ustack(f, c, i, &u);
			int nf = eqp_sample_callchain(f, c, i, &cc);

			assert_int_equal(s[i].seq, seen);
			if (seen % 13 == 0 || seen % 17 == 0) {
				assert_int_equal(got, 0);
				assert_int_equal(u.abi, 0);
				assert_int_equal(nf, seen % 13 && seen % 2 ? 3 : 0);
				continue;
			}
			assert_int_equal(got, 1);
			assert_int_equal(nf, seen % 2 ? 3 : 0);
			if (nf)
				assert_int_equal(cc.frames[2], seen + 2);
			stack_of((uint32_t)seen, regs, stack, &size);
			assert_int_equal(u.arch, 62);
			assert_int_equal(u.regs_mask, MASK);
			assert_int_equal(u.abi, 2);
			assert_int_equal(u.nregs, NREGS);
			assert_int_equal(u.size, size);
			assert_memory_equal(u.regs, regs, sizeof(regs));
			assert_memory_equal(u.stack, stack, size);
		}
	}
	assert_int_equal(seen, N);
	eqp_close(f);
}

static void old_files_have_none(void **state)
{
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_file *f;
	struct eq_sample s = { .time = 1, .pc = 0x400000, .pid = 1, .tid = 1 };
	struct eqp_ustack u;

	(void)state;
	w = eqp_create(path, &meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_samples(w, &s, 1, &err), 0);
	/* a stack-less sample through the stack call writes no USTK */
	assert_int_equal(eqp_add_sample_stack(w, &s, NULL, NULL, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_false(eqp_has_ustacks(f));
	assert_false(eqp_has_callchains(f));
	assert_int_equal(eqp_sample_ustack(f, 0, 0, &u), 0);
	assert_int_equal(eqp_nsamples(f), 2);
	eqp_close(f);
}

static void cut_short_keeps_whole_chunks(void **state)
{
	struct eq_error err;
	struct eqp_file *f;
	FILE *fp;
	long size;
	size_t c;

	(void)state;
	write_file();
	fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	assert_int_equal(truncate(path, size * 3 / 4), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_non_null(eqp_warning(f));
	for (c = 0; c + 1 < eqp_nsample_chunks(f); c++) {
		struct eqp_ustack u;

		assert_int_equal(eqp_sample_ustack(f, c, 1, &u), 1);
		assert_int_equal(u.size, 1 % 300 + 1);
	}
	assert_true(eqp_nsamples(f) > 0 && eqp_nsamples(f) < N);
	eqp_close(f);
}

/* The first USTK chunk edited by edit(), its CRC made right, so that the
 * reader's own checks must catch it; returns the message. */
static void refused(void (*edit)(unsigned char *payload, uint64_t len), const char *want)
{
	struct eq_error err;
	unsigned char *buf;
	size_t size, off = 0;
	uint64_t len;
	struct eqp_file *f;

	write_file();
	buf = eq_test_slurp(path, &size);
	assert_int_equal(eq_test_chunks(buf, size, "USTK", &off, 1), 1);
	memcpy(&len, buf + off + 8, 8);
	edit(buf + off + 16, len);
	eq_test_crc_fix(buf, off);
	f = eqp_open_mem(buf, size, "edited", &err);
	assert_null(f);
	if (!strstr(err.msg, want))
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	assert_non_null(strstr(err.msg, "USTK"));
	free(buf);
}

static void count_less(unsigned char *p, uint64_t len)
{
	uint32_t count;

	(void)len;
	memcpy(&count, p, 4);
	count--;
	memcpy(p, &count, 4);
}

static void size_huge(unsigned char *p, uint64_t len)
{
	uint32_t size = 0x7fffffff;

	(void)len;
	memcpy(p + EQP_USTK_HDR_LEN + 4, &size, 4); /* the first entry's size */
}

static void abi_bad(unsigned char *p, uint64_t len)
{
	uint32_t abi = 7;

	(void)len;
	memcpy(p + EQP_USTK_HDR_LEN, &abi, 4);
}

static void mask_wider(unsigned char *p, uint64_t len)
{
	uint64_t mask = ~0ull; /* 64 registers: the entries no longer fit */

	(void)len;
	memcpy(p + 8, &mask, 8);
}

static void mismatched_refused(void **state)
{
	(void)state;
	refused(count_less, "stack copies for a chunk of");
	refused(size_huge, "stack copy 0 of");
	refused(abi_bad, "register ABI 7");
	refused(mask_wider, "stack copy"); /* a later entry no longer parses */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(old_files_have_none, setup, teardown),
		cmocka_unit_test_setup_teardown(cut_short_keeps_whole_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(mismatched_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
