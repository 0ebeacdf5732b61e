/*
 * test_eqp.c - the .eqp reader and writer: round trip of every chunk kind,
 * truncation at every byte, corruption, bad headers and atomic output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file/crc32c.h"
#include "file/eqp.h"
#include "test/lib/chunks.h"
#include "test/lib/files.h"
#include "test/lib/verdict.h"

static char dir[] = "/tmp/eqp-test-XXXXXX";

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/eqp-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp_path(const char *name)
{
	static char p[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static struct eq_sample sample_n(uint32_t i)
{
	struct eq_sample s = {
		.time = 1000ull * i, .pc = 0x400000 + 4 * (i % 1000),
		.pid = 100 + i % 3, .tid = 200 + i % 5, .seq = i,
		.cpu = (uint16_t)(i % 2), .flags = EQ_F_ENERGY | (i % 7 == 0 ? EQ_F_IDLE : 0),
	};
	return s;
}

static const struct eqp_meta energy_meta = {
	.mode = EQP_MODE_ENERGY, .quantum_j = 2.94e-3, .clock_hz = 1e9,
	.start_unix_ns = 1700000000000000000ll, .target = "test target",
	.extra = "command=./bench --fast\nscenario=music\n",
};

#define NSAMPLES 10000u /* spans three sample chunks */

static void write_full(const char *path)
{
	static const struct eqp_symbol syms[] = {
		{ 0x2000, 0x10, "zeta" }, { 0x1000, 0x100, "alpha" },
	};
	struct eqp_symtab t = { "/usr/bin/app", 0, 2, syms };
	struct eqp_board_info bi = { 16e6, 46.12e-6, 64, 5, 1, "eqfw 1.0", 4.07, 300e-9, 0, 0, 0 };
	struct eqp_board_rec br[3] = {
		{ 100, 0, 64, 4070000, 0, 0 }, { 200, 1, 61, 4069000, 0, 0 },
		{ 300, 3, 66, 4068000, EQP_BOARD_F_DROPPED, 0 },
	};
	static const char maps[] = "00400000-00401000 r-xp 00000000 08:01 42 /usr/bin/app\n";
	struct eq_error err = { "" };
	struct eqp_writer *w = eqp_create(path, &energy_meta, &err);
	uint32_t i;

	assert_non_null(w);
	for (i = 0; i < NSAMPLES; i++) {
		struct eq_sample s = sample_n(i);

		assert_int_equal(eqp_add_samples(w, &s, 1, &err), 0);
	}
	assert_int_equal(eqp_add_maps(w, 100, 5, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_comm(w, 100, 5, "app", &err), 0);
	assert_int_equal(eqp_add_comm(w, 100, 9, "app-renamed", &err), 0);
	assert_int_equal(eqp_add_thread_name(w, 100, 102, 11, "worker", &err), 0);
	assert_int_equal(eqp_add_symtab(w, &t, &err), 0);
	assert_int_equal(eqp_add_lost(w, 1, 17, &err), 0);
	assert_int_equal(eqp_add_marker(w, 4000, "phase 2", &err), 0);
	assert_int_equal(eqp_add_board_info(w, &bi, &err), 0);
	assert_int_equal(eqp_add_board_records(w, br, 3, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
}

static uint64_t count_samples(const struct eqp_file *f, int check_values)
{
	uint64_t total = 0;
	size_t c, k, n;

	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		const struct eq_sample *s = eqp_sample_chunk(f, c, &n);

		for (k = 0; k < n && check_values; k++) {
			struct eq_sample want = sample_n((uint32_t)(total + k));

			assert_memory_equal(&s[k], &want, sizeof(want));
		}
		total += n;
	}
	return total;
}

static void round_trip(void **state)
{
	const char *path = tmp_path("full.eqp");
	struct eq_error err = { "" };
	struct eqp_file *f;
	const struct eqp_symtab *t;

	(void)state;
	write_full(path);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_null(eqp_warning(f));
	assert_int_equal(eqp_meta(f)->mode, EQP_MODE_ENERGY);
	assert_true(eqp_meta(f)->quantum_j == 2.94e-3);
	assert_string_equal(eqp_meta(f)->target, "test target");
	assert_string_equal(eqp_meta_get(f, "scenario"), "music");
	assert_string_equal(eqp_meta_get(f, "command"), "./bench --fast");
	assert_null(eqp_meta_get(f, "comm"));
	assert_int_equal(eqp_nsamples(f), NSAMPLES);
	assert_int_equal(eqp_nsample_chunks(f), 3);
	assert_int_equal(count_samples(f, 1), NSAMPLES);
	assert_int_equal(eqp_nmaps(f), 1);
	assert_non_null(strstr(eqp_maps_for(f, 100)->text, "/usr/bin/app"));
	assert_null(eqp_maps_for(f, 101));
	assert_string_equal(eqp_comm_for(f, 100), "app-renamed"); /* not the thread's */
	assert_int_equal(eqp_ncomm(f), 3);
	assert_int_equal(eqp_comm_at(f, 0)->tid, 0);
	assert_int_equal(eqp_comm_at(f, 2)->tid, 102);
	assert_int_equal(eqp_comm_at(f, 2)->time, 11);
	assert_string_equal(eqp_comm_at(f, 2)->name, "worker");
	t = eqp_symtab_at(f, 0);
	assert_string_equal(t->module, "/usr/bin/app");
	assert_int_equal(t->nsyms, 2);
	assert_string_equal(t->syms[0].name, "alpha"); /* sorted by address */
	assert_int_equal(t->syms[1].addr, 0x2000);
	assert_int_equal(eqp_lost_total(f), 17);
	assert_string_equal(eqp_marker_at(f, 0)->label, "phase 2");
	assert_int_equal(eqp_board_info(f)->quantum_pulses, 64);
	assert_string_equal(eqp_board_info(f)->firmware, "eqfw 1.0");
	assert_true(eqp_board_info(f)->vb_nominal_v == 4.07);
	assert_true(eqp_board_info(f)->dead_time_s == 300e-9);
	assert_int_equal(eqp_nboard_records(f), 3);
	assert_int_equal(eqp_board_record_at(f, 2)->flags, EQP_BOARD_F_DROPPED);
	eqp_close(f);
}

/* A board log that saw the board reset: two BINF segments, each with its
 * records and its BEND summary. */
static void board_segments(void **state)
{
	const char *path = tmp_path("segments.eqp");
	struct eqp_board_info b0 = { .clock_hz = 2e6, .e_min_j = 46.12e-6, .quantum_pulses = 32,
				     .firmware = "eqfw 0.2" };
	struct eqp_board_info b1 = b0;
	struct eqp_board_rec r0[2] = { { 100, 0, 32, 4070000, 0, 0 }, { 200, 1, 32, 4070000, 0, 0 } };
	struct eqp_board_rec r1[3] = { { 9100, 0, 32, 4070000, 0, 0 }, { 9200, 2, 32, 4070000, 1, 0 },
				       { 9300, 3, 32, 4070000, 0, 0 } };
	struct eqp_board_end e0 = { .segment = 0, .reason = EQP_BOARD_END_RESET, .records = 2,
				    .missing = 5, .bad_frames = 3, .stalls = 1, .stall_s = 2.5 };
	struct eq_error err = { "" };
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = 1.5e-3, .clock_hz = 2e6 };
	struct eqp_writer *w = eqp_create(path, &m, &err);
	const struct eqp_board_segment *s;
	struct eqp_file *f;

	(void)state;
	b1.segment = 1;
	b1.boot_cause = 8;
	b1.time_offset = 9000;
	assert_non_null(w);
	assert_int_equal(eqp_add_board_info(w, &b0, &err), 0);
	assert_int_equal(eqp_add_board_records(w, r0, 2, &err), 0);
	assert_int_equal(eqp_add_board_end(w, &e0, &err), 0);
	assert_int_equal(eqp_add_board_info(w, &b1, &err), 0);
	assert_int_equal(eqp_add_board_records(w, r1, 1, &err), 0);
	assert_int_equal(eqp_add_board_records(w, r1 + 1, 2, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_int_equal(eqp_nboard_segments(f), 2);
	assert_ptr_equal(eqp_board_info(f), &eqp_board_segment_at(f, 0)->info);
	s = eqp_board_segment_at(f, 0);
	assert_int_equal(s->first_record, 0);
	assert_int_equal(s->nrecords, 2);
	assert_true(s->has_end);
	assert_int_equal(s->end.reason, EQP_BOARD_END_RESET);
	assert_int_equal(s->end.missing, 5);
	assert_int_equal(s->end.bad_frames, 3);
	assert_true(s->end.stall_s == 2.5);
	s = eqp_board_segment_at(f, 1);
	assert_int_equal(s->info.segment, 1);
	assert_int_equal(s->info.boot_cause, 8);
	assert_int_equal(s->info.time_offset, 9000);
	assert_string_equal(s->info.firmware, "eqfw 0.2");
	assert_int_equal(s->first_record, 2);
	assert_int_equal(s->nrecords, 3);
	assert_false(s->has_end);
	assert_null(eqp_board_segment_at(f, 2));
	eqp_close(f);

	/* A BINF numbered out of order, or a BEND for another segment: refused. */
	b1.segment = 2;
	w = eqp_create(path, &m, &err);
	assert_int_equal(eqp_add_board_info(w, &b0, &err), 0);
	assert_int_equal(eqp_add_board_info(w, &b1, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	assert_null(eqp_open(path, &err));
	assert_non_null(strstr(err.msg, "board segment 2 where segment 1 comes next"));
	e0.segment = 1;
	w = eqp_create(path, &m, &err);
	assert_int_equal(eqp_add_board_info(w, &b0, &err), 0);
	assert_int_equal(eqp_add_board_end(w, &e0, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	assert_null(eqp_open(path, &err));
	assert_non_null(strstr(err.msg, "BEND"));
}

/* Cut the file at every byte of its head and tail and every 997th byte in
 * between (an exact-size copy each, so the sanitizers see any overread): it
 * either opens with a warning and the samples of its complete chunks, or is
 * refused with a message; never a crash. */
static void truncated_everywhere(void **state)
{
	const char *path = tmp_path("trunc.eqp");
	size_t len, cut, opened = 0;
	unsigned char *buf;
	uint64_t prev = 0;

	(void)state;
	write_full(path);
	buf = eq_test_slurp(path, &len);
	for (cut = 0; cut < len; cut += (cut < 4096 || cut + 2048 > len) ? 1 : 997) {
		struct eq_error err = { "" };
		unsigned char *copy = malloc(cut ? cut : 1);
		struct eqp_file *f;

		memcpy(copy, buf, cut);
		f = eqp_open_mem(copy, cut, "cut.eqp", &err);
		if (f) {
			uint64_t n = count_samples(f, 1);

			opened++;
			/* Only the END chunk's alignment padding may be cut unnoticed. */
			if (cut + 8 <= len)
				assert_non_null(eqp_warning(f));
			assert_true(n >= prev); /* more bytes never mean fewer samples */
			assert_int_equal(n % 4096 == 0 || n == NSAMPLES, 1);
			prev = n;
			eqp_close(f);
		} else {
			assert_true(strlen(err.msg) > 0);
			assert_true(cut < 200); /* only a file without a whole HEAD is refused */
		}
		free(copy);
	}
	assert_true(opened > 4096 + 2048 - 300);
	free(buf);
}

static void corrupt_byte_named(void **state)
{
	const char *path = tmp_path("corrupt.eqp");
	struct eq_error err = { "" };
	size_t len;
	unsigned char *buf;

	(void)state;
	write_full(path);
	buf = eq_test_slurp(path, &len);
	buf[300] ^= 0x40; /* inside the first sample chunk */
	assert_null(eqp_open_mem(buf, len, "corrupt.eqp", &err));
	assert_non_null(strstr(err.msg, "corrupt.eqp: chunk 1 (SAMP) at byte offset"));
	assert_non_null(strstr(err.msg, "checksum mismatch"));
	free(buf);
}

/* The first chunk of a type at or after index from. */
static size_t chunk_of_type(const unsigned char *buf, const size_t *off, size_t n,
			    size_t from, const char *type)
{
	for (; from < n; from++)
		if (!memcmp(buf + off[from], type, 4))
			return from;
	fail_msg("no %s chunk", type);
	return 0;
}

/* One flipped bit anywhere in a chunk's length is damage, named with the
 * chunk and its offset; never a "truncation" that hides the rest. */
static void length_bits_refused(void **state)
{
	const char *path = tmp_path("lenbits.eqp");
	size_t len, off[32], n, k;
	unsigned char *buf;
	int bit;

	(void)state;
	write_full(path);
	buf = eq_test_slurp(path, &len);
	n = eq_test_chunks(buf, len, NULL, off, 32);
	assert_true(n >= 10);
	for (k = 1; k < n - 1; k++) {
		char want[64];

		snprintf(want, sizeof(want), "chunk %zu (", k);
		for (bit = 0; bit < 64; bit++) {
			struct eq_error err = { "" };
			struct eqp_file *f;

			buf[off[k] + 8 + bit / 8] ^= (unsigned char)(1u << (bit % 8));
			f = eqp_open_mem(buf, len, "flip.eqp", &err);
			if (f)
				fail_msg("chunk %zu, length bit %d flipped: accepted (%s)", k, bit,
					 eqp_warning(f) ? eqp_warning(f) : "no warning");
			assert_non_null(strstr(err.msg, want));
			assert_non_null(strstr(err.msg, "at byte offset"));
			assert_non_null(strstr(err.msg, "corrupt"));
			buf[off[k] + 8 + bit / 8] ^= (unsigned char)(1u << (bit % 8));
		}
	}
	/* A length past the end: beyond any writer's, or within the limit of
	 * its type (MAPS) while intact chunks follow. */
	{
		struct eq_error err = { "" };
		size_t maps = chunk_of_type(buf, off, n, 0, "MAPS");
		uint64_t l, keep;
		char want[96];

		memcpy(&keep, buf + off[1] + 8, 8);
		l = keep + len;
		memcpy(buf + off[1] + 8, &l, 8);
		assert_null(eqp_open_mem(buf, len, "flip.eqp", &err));
		snprintf(want, sizeof(want), "flip.eqp: chunk 1 (SAMP) at byte offset %zu", off[1]);
		assert_non_null(strstr(err.msg, want));
		assert_non_null(strstr(err.msg, "is more than any writer puts in such a chunk"));
		memcpy(buf + off[1] + 8, &keep, 8);
		memcpy(&keep, buf + off[maps] + 8, 8);
		l = len;
		memcpy(buf + off[maps] + 8, &l, 8);
		assert_null(eqp_open_mem(buf, len, "flip.eqp", &err));
		snprintf(want, sizeof(want), "chunk %zu (MAPS) at byte offset %zu", maps, off[maps]);
		assert_non_null(strstr(err.msg, want));
		snprintf(want, sizeof(want), "yet an intact COMM chunk starts at byte offset %zu",
			 off[maps + 1]);
		assert_non_null(strstr(err.msg, want));
		memcpy(buf + off[maps] + 8, &keep, 8);
	}
	free(buf);
}

/* Every chunk's samples as a pass that checks them as it goes reads them
 * (eqp_sample_chunk_unchecked): in pieces of 1, 2, 3... samples. */
static void read_in_pieces(const struct eqp_file *g)
{
	size_t c, n, k, step;

	for (c = 0; c < eqp_nsample_chunks(g); c++) {
		struct eqp_chunk_check ck;
		const struct eq_sample *s = eqp_sample_chunk_unchecked(g, c, &n, &ck);

		for (k = 0, step = 1; k < n; k += step, step++)
			eqp_chunk_check_feed(&ck, s + k, step < n - k ? step : n - k);
		eqp_chunk_check_end(g, c, &ck);
	}
}

/* Every sample of g counted, as a report's pass reads them. */
static void read_counting(const struct eqp_file *g)
{
	(void)count_samples(g, 0);
}

/* The lazy reader against eqp_open(), its samples read whole and in
 * pieces (read_in_pieces()) before the verdict. */
static void same_verdict(const char *path, size_t at)
{
	eq_test_same_verdict(path, at, read_counting);
	eq_test_same_verdict(path, at, read_in_pieces);
}

/* A bit flipped in every byte of each chunk's header and CRC and in every
 * 1999th byte between, once alone and once beside a sample flipped in the
 * first SAMP chunk: the lazy check refuses what eqp_open() refuses, with
 * its message (the first damage in the file), and nothing else. */
static void lazy_crc_same_verdict(void **state)
{
	const char *path = tmp_path("lazy.eqp"), *bad = tmp_path("lazybad.eqp");
	size_t len, off[32], n, k, at, end, samp;
	unsigned char *buf;
	int second;

	(void)state;
	write_full(path);
	buf = eq_test_slurp(path, &len);
	n = eq_test_chunks(buf, len, NULL, off, 32);
	samp = chunk_of_type(buf, off, n, 0, "SAMP");
	for (second = 0; second < 2; second++) {
		if (second)
			buf[off[samp] + 200] ^= 0x10; /* a sample's bytes */
		for (k = 0; k < n; k++) {
			end = k + 1 < n ? off[k + 1] : len;
			for (at = off[k]; at < end; at++) {
				if (at - off[k] >= 24 && end - at > 12 && (at - off[k]) % 1999)
					continue;
				buf[at] ^= 0x04;
				eq_test_spit(bad, buf, len);
				same_verdict(bad, at);
				buf[at] ^= 0x04;
			}
		}
	}
	free(buf);
}

/* A recording cut short: how much was skipped is counted, not only warned. */
static void truncation_counted(void **state)
{
	const char *path = tmp_path("cutcount.eqp");
	size_t len, off[32], n, k;
	unsigned char *buf;
	struct eq_error err = { "" };
	struct eqp_file *f;
	const struct eqp_skipped *sk;
	char line[160];

	(void)state;
	write_full(path);
	buf = eq_test_slurp(path, &len);
	n = eq_test_chunks(buf, len, NULL, off, 32);
	assert_true(n >= 5);
	/* Into the last sample chunk (samples 8192..9999, written at commit). */
	k = chunk_of_type(buf, off, n, 3, "SAMP");
	f = eqp_open_mem(buf, off[k] + 1000, "cut.eqp", &err);
	assert_non_null(f);
	sk = eqp_skipped(f);
	assert_int_equal(eqp_nsamples(f), 8192);
	assert_int_equal(sk->chunks, 1);
	assert_int_equal(sk->bytes, 1000);
	assert_int_equal(sk->samples, NSAMPLES - 8192);
	assert_true(sk->truncated);
	assert_non_null(strstr(eqp_warning(f), "(1808 samples)"));
	assert_string_equal(eqp_skipped_line(sk, line, sizeof(line)),
			    "1 chunk, 1000 bytes, 1808 samples (the recording was cut short)");
	eqp_close(f);
	/* Into the maps: no samples went with it. */
	f = eqp_open_mem(buf, off[chunk_of_type(buf, off, n, 0, "MAPS")] + 20, "cut.eqp", &err);
	assert_non_null(f);
	assert_int_equal(eqp_skipped(f)->samples, 0);
	assert_int_equal(eqp_skipped(f)->bytes, 20);
	eqp_close(f);
	/* Intact: nothing. */
	f = eqp_open_mem(buf, len, "whole.eqp", &err);
	assert_non_null(f);
	assert_int_equal(eqp_skipped(f)->chunks + eqp_skipped(f)->bytes + eqp_skipped(f)->samples, 0);
	assert_false(eqp_skipped(f)->truncated);
	assert_string_equal(eqp_skipped_line(eqp_skipped(f), line, sizeof(line)), "nothing");
	eqp_close(f);
	free(buf);
}

static size_t put_chunk(unsigned char *at, const char type[4], const void *payload, uint64_t len)
{
	uint32_t crc;
	size_t total = 16 + (size_t)len + 4;

	memcpy(at, type, 4);
	memset(at + 4, 0, 4);
	memcpy(at + 8, &len, 8);
	memcpy(at + 16, payload, (size_t)len);
	crc = eq_crc32c(0, at, 16 + (size_t)len);
	memcpy(at + 16 + len, &crc, 4);
	memset(at + total, 0, (8 - total % 8) % 8);
	return total + (8 - total % 8) % 8;
}

/* A newer writer's chunk and bytes after END are skipped and counted. */
static void unknown_and_trailing_counted(void **state)
{
	const char *path = tmp_path("unknown.eqp");
	size_t len, off[32], n, at;
	unsigned char *buf, *img;
	uint64_t end[2];
	struct eq_error err = { "" };
	struct eqp_file *f;

	(void)state;
	write_full(path);
	buf = eq_test_slurp(path, &len);
	n = eq_test_chunks(buf, len, NULL, off, 32);
	img = calloc(1, len + 256);
	memcpy(img, buf, off[n - 1]);               /* everything before END */
	at = off[n - 1];
	at += put_chunk(img + at, "ZZZZ", "a future chunk", 14);
	end[0] = NSAMPLES;
	end[1] = n;                                  /* one more chunk before END now */
	at += put_chunk(img + at, "END ", end, 16);
	memcpy(img + at, "trailing", 8);
	f = eqp_open_mem(img, at + 8, "unknown.eqp", &err);
	assert_non_null(f);
	assert_int_equal(eqp_nsamples(f), NSAMPLES);
	assert_int_equal(eqp_skipped(f)->chunks, 1);
	assert_int_equal(eqp_skipped(f)->bytes, 40 + 8);
	assert_int_equal(eqp_skipped(f)->samples, 0);
	assert_false(eqp_skipped(f)->truncated);
	assert_non_null(strstr(eqp_warning(f), "8 bytes after the END chunk"));
	eqp_close(f);
	free(img);
	free(buf);
}

/* IMAG: a module's bytes (the vdso) round-trip 8-byte aligned; the last
 * image of a name wins; a name and length that do not fill the chunk are
 * refused. */
static void embedded_images(void **state)
{
	const char *path = tmp_path("images.eqp");
	static const unsigned char one[13] = "\x7f" "ELF-first!!!", two[21] = "\x7f" "ELF-second-image!!!!";
	const unsigned char *got;
	unsigned char *buf, *img, payload[64];
	size_t len, n, off[32], at, glen;
	uint64_t end[2], ilen = 5;
	uint32_t mlen = 6;
	struct eq_error err = { "" };
	struct eqp_writer *w = eqp_create(path, &energy_meta, &err);
	struct eqp_file *f;

	(void)state;
	assert_non_null(w);
	assert_int_equal(eqp_add_image(w, "[vdso]", one, sizeof(one), &err), 0);
	assert_int_equal(eqp_add_image(w, "/x/other", "abc", 3, &err), 0);
	assert_int_equal(eqp_add_image(w, "[vdso]", two, sizeof(two), &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	got = eqp_image(f, "[vdso]", &glen);
	assert_non_null(got);
	assert_int_equal(glen, sizeof(two));
	assert_memory_equal(got, two, sizeof(two));
	assert_int_equal((uintptr_t)got % 8, 0);
	got = eqp_image(f, "/x/other", &glen);
	assert_int_equal(glen, 3);
	assert_memory_equal(got, "abc", 3);
	assert_null(eqp_image(f, "[vsyscall]", &glen));
	assert_int_equal(glen, 0);
	eqp_close(f);

	/* a name of 6 and an image of 5 bytes in a chunk of 16 + 8 + 4 */
	buf = eq_test_slurp(path, &len);
	n = eq_test_chunks(buf, len, NULL, off, 32);
	img = calloc(1, len + 256);
	memcpy(img, buf, off[n - 1]);
	at = off[n - 1];
	memset(payload, 0, sizeof(payload));
	memcpy(payload, &mlen, 4);
	memcpy(payload + 8, &ilen, 8);
	memcpy(payload + 16, "[vdso]", 6);
	at += put_chunk(img + at, "IMAG", payload, 16 + 8 + 4);
	end[0] = 0;                                  /* no samples */
	end[1] = n;
	at += put_chunk(img + at, "END ", end, 16);
	assert_null(eqp_open_mem(img, at, "images.eqp", &err));
	assert_non_null(strstr(err.msg, "(IMAG)"));
	assert_non_null(strstr(err.msg, "a name of 6 and an image of 5 bytes do not make 28 bytes"));
	free(img);
	free(buf);
}

static void bad_headers(void **state)
{
	const char *path = tmp_path("bad.eqp");
	struct eq_error err = { "" };
	size_t len;
	unsigned char *buf;
	FILE *fp;

	(void)state;
	fp = fopen(path, "wb");
	fclose(fp);
	assert_null(eqp_open(path, &err));
	assert_non_null(strstr(err.msg, "empty file"));

	assert_null(eqp_open(tmp_path("missing.eqp"), &err));
	assert_non_null(strstr(err.msg, "cannot open"));

	write_full(path);
	buf = eq_test_slurp(path, &len);
	buf[1] = 'X';
	assert_null(eqp_open_mem(buf, len, "x.eqp", &err));
	assert_non_null(strstr(err.msg, "not an eqprof recording"));
	buf[1] = 'E';
	buf[8] = 9;
	assert_null(eqp_open_mem(buf, len, "x.eqp", &err));
	assert_non_null(strstr(err.msg, "format version 9"));
	free(buf);
}

static int file_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

static void atomic_output(void **state)
{
	const char *path = tmp_path("atomic.eqp");
	struct eq_error err = { "" };
	struct eqp_writer *w;
	struct eqp_file *f;
	struct eq_sample s = sample_n(0);
	struct eqp_meta bad = energy_meta;
	char cmd[512];

	(void)state;
	write_full(path);
	w = eqp_create(path, &energy_meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_samples(w, &s, 1, &err), 0);
	eqp_discard(w); /* the old recording must survive a failed run */
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_int_equal(eqp_nsamples(f), NSAMPLES);
	eqp_close(f);
	snprintf(cmd, sizeof(cmd), "test $(ls %s | grep -c tmp) -eq 0", dir);
	assert_int_equal(system(cmd), 0);

	bad.mode = 7;
	assert_null(eqp_create(tmp_path("never.eqp"), &bad, &err));
	assert_non_null(strstr(err.msg, "mode"));
	assert_false(file_exists(tmp_path("never.eqp")));
	assert_null(eqp_create("/nonexistent-dir/x.eqp", &energy_meta, &err));
	assert_non_null(strstr(err.msg, "/nonexistent-dir/x.eqp"));
}

static void time_mode_minimal(void **state)
{
	const char *path = tmp_path("time.eqp");
	struct eqp_meta m = { .mode = EQP_MODE_TIME, .nominal_hz = 349, .clock_hz = 1e9 };
	struct eq_error err = { "" };
	struct eqp_writer *w = eqp_create(path, &m, &err);
	struct eqp_file *f;

	(void)state;
	assert_non_null(w);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	assert_null(eqp_warning(f));
	assert_int_equal(eqp_meta(f)->mode, EQP_MODE_TIME);
	assert_true(eqp_meta(f)->nominal_hz == 349);
	assert_string_equal(eqp_meta(f)->target, "");
	assert_int_equal(eqp_nsamples(f), 0);
	assert_null(eqp_board_info(f));
	assert_null(eqp_sample_chunk(f, 0, &(size_t){ 0 }));
	eqp_close(f);
}

/* Lookup by pid among many processes: each gets its own last maps and its
 * last process name (a thread's name never), pids colliding in the hash
 * included (multiples of a power of two). */
static void many_processes(void **state)
{
	const char *path = tmp_path("many.eqp");
	struct eqp_meta meta = { .mode = EQP_MODE_ENERGY, .quantum_j = 1e-3, .clock_hz = 1e9,
				 .target = "many" };
	struct eq_error err = { "" };
	struct eqp_writer *w = eqp_create(path, &meta, &err);
	struct eqp_file *f;
	char text[64], name[32];
	uint32_t i, pid;

	(void)state;
	assert_non_null(w);
	for (i = 0; i < 3000; i++) {
		pid = i * 4096 + 7;
		snprintf(text, sizeof(text), "400000-401000 r-xp 0 00:00 0 /old/%u\n", pid);
		assert_int_equal(eqp_add_maps(w, pid, 0, text, strlen(text), &err), 0);
		snprintf(name, sizeof(name), "p%u", pid);
		assert_int_equal(eqp_add_comm(w, pid, 0, name, &err), 0);
	}
	for (i = 0; i < 3000; i += 2) {   /* the even ones exec later */
		pid = i * 4096 + 7;
		snprintf(text, sizeof(text), "400000-401000 r-xp 0 00:00 0 /new/%u\n", pid);
		assert_int_equal(eqp_add_maps(w, pid, 50, text, strlen(text), &err), 0);
		snprintf(name, sizeof(name), "n%u", pid);
		assert_int_equal(eqp_add_comm(w, pid, 50, name, &err), 0);
		assert_int_equal(eqp_add_thread_name(w, pid, pid + 1, 60, "thread", &err), 0);
	}
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	for (i = 0; i < 3000; i++) {
		pid = i * 4096 + 7;
		snprintf(text, sizeof(text), "/%s/%u\n", i % 2 ? "old" : "new", pid);
		assert_non_null(strstr(eqp_maps_for(f, pid)->text, text));
		snprintf(name, sizeof(name), "%c%u", i % 2 ? 'p' : 'n', pid);
		assert_string_equal(eqp_comm_for(f, pid), name);
		assert_null(eqp_maps_for(f, pid + 1));
		assert_null(eqp_comm_for(f, pid + 1));
	}
	eqp_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(board_segments),
		cmocka_unit_test(truncated_everywhere),
		cmocka_unit_test(corrupt_byte_named),
		cmocka_unit_test(length_bits_refused),
		cmocka_unit_test(lazy_crc_same_verdict),
		cmocka_unit_test(truncation_counted),
		cmocka_unit_test(unknown_and_trailing_counted),
		cmocka_unit_test(embedded_images),
		cmocka_unit_test(bad_headers),
		cmocka_unit_test(atomic_output),
		cmocka_unit_test(time_mode_minimal),
		cmocka_unit_test(many_processes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
