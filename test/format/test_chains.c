/*
 * test_chains.c - call chains in recordings (CHNS chunks): round trip of
 * samples with and without chains across sample-chunk boundaries, a file
 * cut short keeping whole chunks, and chains that do not match their
 * samples refused as corruption.
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
#include "file/crc32c.h"

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	strcpy(path, "/tmp/chains-XXXXXX");
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

/* Sample i has i % 7 kernel and i % 5 user frames, except every 11th
 * sample, which is added without a chain. */
#define N 9000
static void frames_of(uint32_t i, uint64_t *f, unsigned *nk, unsigned *nu)
{
	unsigned k;

	*nk = i % 7;
	*nu = i % 5;
	for (k = 0; k < *nk + *nu; k++)
		f[k] = 0x1000ull * i + k;
}

static void write_file(void)
{
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &meta, &err);
	uint32_t i;

	assert_non_null(w);
	for (i = 0; i < N; i++) {
		struct eq_sample s = { .time = i, .pc = 0x400000 + i, .pid = 1, .tid = 1, .seq = i };
		uint64_t f[16];
		struct eqp_callchain cc;

		if (i % 11 == 0) {
			assert_int_equal(eqp_add_samples(w, &s, 1, &err), 0);
			continue;
		}
		frames_of(i, f, &cc.nkernel, &cc.nuser);
		cc.frames = f;
		assert_int_equal(eqp_add_sample_chain(w, &s, &cc, &err), 0);
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
	assert_true(eqp_has_callchains(f));
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *s = eqp_sample_chunk(f, c, &n);

		for (i = 0; i < n; i++, seen++) {
			struct eqp_callchain cc;
			uint64_t want[16];
			unsigned nk, nu, k;
			int got = eqp_sample_callchain(f, c, i, &cc);

			assert_int_equal(s[i].seq, seen);
			if (seen % 11 == 0) {
				assert_int_equal(got, 0);
				continue;
			}
			frames_of((uint32_t)seen, want, &nk, &nu);
			assert_int_equal(cc.nkernel, nk);
			assert_int_equal(cc.nuser, nu);
			assert_int_equal(got, (int)(nk + nu));
			for (k = 0; k < nk + nu; k++)
				assert_int_equal(cc.frames[k], want[k]);
		}
	}
	assert_int_equal(seen, N);
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
	/* every sample chunk kept either has its chains or (the last one, whose
	 * CHNS was cut) none */
	for (c = 0; c + 1 < eqp_nsample_chunks(f); c++) {
		struct eqp_callchain cc;

		assert_int_equal(eqp_sample_callchain(f, c, 1, &cc), 1 % 7 + 1 % 5);
	}
	assert_true(eqp_nsamples(f) > 0 && eqp_nsamples(f) < N);
	eqp_close(f);
}

static void mismatched_chains_refused(void **state)
{
	struct eq_error err;
	FILE *fp;
	unsigned char *buf;
	long size, off;
	struct eqp_file *f;

	(void)state;
	write_file();
	fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)size);
	assert_int_equal(fread(buf, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	/* the first CHNS chunk's count made one less, its CRC made right, so
	 * that the reader's own checks must catch it */
	for (off = 16; off + 16 < size;) {
		uint32_t type, crc;
		uint64_t len;

		memcpy(&type, buf + off, 4);
		memcpy(&len, buf + off + 8, 8);
		if (type == EQP_CHUNK_CHNS) {
			uint32_t count;

			memcpy(&count, buf + off + 16, 4);
			count--;
			memcpy(buf + off + 16, &count, 4);
			crc = eq_crc32c(eq_crc32c(0, buf + off, 16), buf + off + 16, (size_t)len);
			memcpy(buf + off + 16 + len, &crc, 4);
			break;
		}
		off += (long)((16 + len + 4 + 7) & ~7ull);
	}
	f = eqp_open_mem(buf, (size_t)size, "edited", &err);
	assert_null(f);
	assert_non_null(strstr(err.msg, "call chains for a chunk of"));
	assert_non_null(strstr(err.msg, "CHNS"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(cut_short_keeps_whole_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(mismatched_chains_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
