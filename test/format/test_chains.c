/*
 * test_chains.c - call chains in recordings (CHNS chunks): round trip of
 * samples with and without chains across sample-chunk boundaries, a file
 * cut short keeping whole chunks, and chains that do not match their
 * samples refused as corruption, by eqp_open() and alike by
 * eqp_open_lazy(), which checks a chunk's chains when they are first read.
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
#include "test/lib/verdict.h"

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

/* Every sample of f and its chain as write_file() wrote them. */
static void check_chains(struct eqp_file *f)
{
	size_t c, i, seen = 0;

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
}

static void round_trip(void **state)
{
	struct eq_error err;
	struct eqp_file *f;

	(void)state;
	write_file();
	f = eqp_open(path, &err);
	assert_non_null(f);
	check_chains(f);
	eqp_close(f);
	/* the chains checked and indexed as they are first read */
	f = eqp_open_lazy(path, &err);
	assert_non_null(f);
	check_chains(f);
	assert_int_equal(eqp_verify(f, &err), 0);
	eqp_close(f);
	/* or by eqp_verify, before any is read */
	f = eqp_open_lazy(path, &err);
	assert_non_null(f);
	assert_int_equal(eqp_verify(f, &err), 0);
	check_chains(f);
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
	unsigned char *buf;
	size_t len, off = 0;
	uint32_t count;
	struct eqp_file *f;

	(void)state;
	write_file();
	buf = eq_test_slurp(path, &len);
	/* the first CHNS chunk's count made one less, its CRC made right, so
	 * that the reader's own checks must catch it */
	assert_int_equal(eq_test_chunks(buf, len, "CHNS", &off, 1), 1);
	memcpy(&count, buf + off + 16, 4);
	count--;
	memcpy(buf + off + 16, &count, 4);
	eq_test_crc_fix(buf, off);
	f = eqp_open_mem(buf, len, "edited", &err);
	assert_null(f);
	assert_non_null(strstr(err.msg, "call chains for a chunk of"));
	assert_non_null(strstr(err.msg, "CHNS"));
	free(buf);
}


/* Every chain of f read (those of a damaged chunk: none). */
static void read_chains(const struct eqp_file *f)
{
	size_t c, i;

	for (c = 0; c < eqp_nsample_chunks(f); c++)
		for (i = 0; i < eqp_sample_chunk_len(f, c); i++) {
			struct eqp_callchain cc;
			int got = eqp_sample_callchain(f, c, i, &cc);

			assert_true(got >= 0 && got <= 2 * EQP_MAX_CHAIN);
			if (got)
				assert_non_null(cc.frames);
		}
}

/* A bit flipped in each byte of every CHNS chunk's header and CRC and in
 * every 397th byte between, alone and beside damage to a later sample
 * chunk: the lazy reader refuses what eqp_open() refuses, with its message
 * (the first damage in the file), whether the chains are read first. */
static void lazy_same_verdict(void **state)
{
	char bad[80];
	size_t len, off[8], n, k, at, end;
	unsigned char *buf;
	uint64_t clen;
	int later;

	(void)state;
	write_file();
	buf = eq_test_slurp(path, &len);
	n = eq_test_chunks(buf, len, "CHNS", off, 8);
	assert_true(n >= 2);
	snprintf(bad, sizeof(bad), "%s.bad", path);
	for (later = 0; later < 2; later++) {
		if (later)
			buf[off[n - 1] - 100] ^= 0x01;  /* the last SAMP chunk's samples */
		for (k = 0; k + later < n; k++) {
			memcpy(&clen, buf + off[k] + 8, 8);
			end = off[k] + 16 + (size_t)clen + 4;
			for (at = off[k]; at < end; at++) {
				if (at - off[k] >= 24 && end - at > 4 && (at - off[k]) % 397)
					continue;
				buf[at] ^= 0x08;
				eq_test_spit(bad, buf, len);
				eq_test_same_verdict(bad, at, NULL);
				eq_test_same_verdict(bad, at, read_chains);
				buf[at] ^= 0x08;
			}
		}
	}
	unlink(bad);
	free(buf);
}

/* Chains whose bytes are wrong under a right CRC: refused by the lazy
 * reader when they are first read, with eqp_open()'s message. */
static void lazy_bad_chains_refused(void **state)
{
	char bad[80];
	size_t len, off[8], n, e;
	unsigned char *buf, *keep;
	int edit;

	(void)state;
	write_file();
	buf = eq_test_slurp(path, &len);
	keep = malloc(len);
	assert_non_null(keep);
	memcpy(keep, buf, len);
	n = eq_test_chunks(buf, len, "CHNS", off, 8);
	assert_true(n >= 2);
	snprintf(bad, sizeof(bad), "%s.bad", path);
	for (edit = 0; edit < 5; edit++) {
		struct eq_error err = { "" };
		struct eqp_file *f;
		size_t k;

		memcpy(buf, keep, len);
		e = off[1] + 16 + EQP_CHNS_HDR_LEN;    /* the second chunk's first chain */
		switch (edit) {
		case 0: buf[e + 1] = 0xff; break;        /* kernel frames: 0xff00 and more */
		case 1: buf[e + 2] += 3; break;          /* user frames: 3 more than it has */
		case 2: buf[off[1] + 16]--; break;       /* one chain less than samples */
		case 3: buf[e] = 0; buf[e + 2] = 0; break; /* a chain shorter: bytes left */
		case 4:                                  /* chain 3000 (sample 7096), some
							    140 KiB in: 5 kernel frames made
							    0xff05 */
			for (k = 0; k < 3000; k++)
				e += 8 + 8 * ((size_t)buf[e] + buf[e + 2]);
			buf[e + 1] = 0xff;
			break;
		}
		eq_test_crc_fix(buf, off[1]);
		eq_test_spit(bad, buf, len);
		f = eqp_open(bad, &err);
		assert_null(f);
		assert_non_null(strstr(err.msg, "(CHNS)"));
		if (edit == 4)
			assert_non_null(strstr(err.msg, "call chain 3000 of 65285+1 frames does not fit"));
		eq_test_same_verdict(bad, e, NULL);
		eq_test_same_verdict(bad, e, read_chains);
	}
	unlink(bad);
	free(keep);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(cut_short_keeps_whole_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(mismatched_chains_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(lazy_same_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(lazy_bad_chains_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
