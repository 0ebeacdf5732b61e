/*
 * test_chains.c - call chains interned once (profile/callgraph.h): the raw
 * chain table (eq_chain_set) gives equal keys one id and different keys
 * different ids, dense in order of first sight, also when every hash
 * collides; and eq_stacks_build, which looks a chain up only the first
 * time it is seen (and most often finds it without hashing it, as the chain
 * last seen with its leaf and depth), counts every stack, and the samples
 * busy and without a chain, exactly as looking up every frame of every
 * sample does (eq_sample_frames, the reference), on a recording
 * written here with what changes a frame's place besides its address: two
 * address spaces of one pid (an exec), idle samples with chains (pid 0, and
 * the idle flag on a pid), kernel frames, no chain, a 0 frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "file/eqp.h"
#include "profile/callgraph.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"
#include "test/lib/xorshift.h"

#define NKEYS 3000

struct key {
	uint64_t head[2];
	uint64_t w[40];
	size_t n;
};

/* Distinct keys: each differs from the one before in one place only (a
 * head word, one frame, or its length by a trailing 0 word). */
static struct key *make_keys(void)
{
	struct key *k = calloc(NKEYS, sizeof(*k));
	uint64_t x = 12345;
	size_t i;

	assert_non_null(k);
	for (i = 0; i < NKEYS; i++) {
		if (i == 0 || i % 4 == 0) {
			k[i].head[0] = eq_xorshift64(&x);
			k[i].head[1] = i % 8 ? eq_xorshift64(&x) : 0;
			k[i].n = i % 3 == 0 ? 0 : 1 + eq_xorshift64(&x) % 39;
			for (size_t j = 0; j < k[i].n; j++)
				k[i].w[j] = eq_xorshift64(&x) % 16;   /* small values: near misses */
			continue;
		}
		k[i] = k[i - 1];
		switch (i % 4) {
		case 1:
			k[i].head[i % 8 < 4] ^= 1;
			break;
		case 2:
			if (k[i].n)
				k[i].w[eq_xorshift64(&x) % k[i].n] += 1000;
			else
				k[i].head[0] ^= 2;
			break;
		case 3:
			k[i].w[k[i].n++] = 0;           /* one word longer */
			break;
		}
	}
	return k;
}

static uint64_t real_hash(const struct key *k)
{
	return eq_chain_hash(k->head, k->w, k->n);
}

static uint64_t one_hash(const struct key *k)
{
	(void)k;
	return 42;                                      /* every key collides */
}

static void interns(uint64_t (*hash)(const struct key *))
{
	struct key *k = make_keys();
	struct eq_chain_set cs = { 0 };
	size_t i, round;
	int fresh;

	for (round = 0; round < 2; round++)
		for (i = 0; i < NKEYS; i++) {
			/* the second round in another order, each key met again */
			size_t j = round ? (i * 7919) % NKEYS : i;
			long id = eq_chain_set_id(&cs, hash(&k[j]), k[j].head, k[j].w, k[j].n, &fresh);

			assert_int_equal(id, (long)j);  /* ids in order of first sight */
			assert_int_equal(fresh, !round);
		}
	assert_int_equal(cs.count, NKEYS);
	eq_chain_set_free(&cs);
	free(k);
}

static void equal_keys_share_an_id(void **state)
{
	(void)state;
	interns(real_hash);
}

static void colliding_hashes_told_apart(void **state)
{
	(void)state;
	interns(one_hash);
}

static void hash_of_equal_keys_is_equal(void **state)
{
	uint64_t a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 3 }, head[2] = { 7, 8 };

	(void)state;
	assert_true(eq_chain_hash(head, a, 3) == eq_chain_hash(head, b, 3));
	assert_true(eq_chain_hash(head, NULL, 0) == eq_chain_hash(head, a, 0));
}

/* ---- stacks against per-sample lookups ---------------------------------- */

static const char maps[] =
	"400000-401000 r--p 00000000 00:00 0 /target/app\n"
	"401000-403000 r-xp 00001000 00:00 0 /target/app\n";
static const char maps2[] =  /* after the exec: another program at the same place */
	"400000-401000 r--p 00000000 00:00 0 /target/other\n"
	"401000-403000 r-xp 00001000 00:00 0 /target/other\n";
static const struct eqp_symbol app_syms[] = {
	{ 0x1000, 0x100, "alpha" }, { 0x1100, 0x100, "beta" }, { 0x1200, 0x100, "gamma" },
};
static const struct eqp_symbol other_syms[] = {
	{ 0x1000, 0x200, "one" }, { 0x1200, 0x100, "two" },
};
static const struct eqp_symbol kern_syms[] = {
	{ 0xffffffff81000000ull, 0, "k_entry" }, { 0xffffffff81001000ull, 0, "k_idle" },
};

#define NSAMPLES 4000
#define EXEC_AT (NSAMPLES / 2 * 1000ull)

static void write_recording(const char *path)
{
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9, .nominal_hz = 1000,
				 .target = "unit test" };
	struct eqp_symtab app = { "/target/app", 0, 3, app_syms };
	struct eqp_symtab other = { "/target/other", 0, 2, other_syms };
	struct eqp_symtab kern = { "[kernel.kallsyms]", 1, 2, kern_syms };
	struct eq_error err;
	struct eqp_writer *w = eqp_create(path, &meta, &err);
	uint64_t x = 99, fr[16];
	size_t i, k;

	assert_non_null(w);
	assert_int_equal(eqp_add_maps(w, 10, 0, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_maps(w, 10, EXEC_AT, maps2, strlen(maps2), &err), 0);
	assert_int_equal(eqp_add_maps(w, 11, 0, maps, strlen(maps), &err), 0);
	assert_int_equal(eqp_add_symtab(w, &app, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &other, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &kern, &err), 0);
	for (i = 0; i < NSAMPLES; i++) {
		uint64_t r = eq_xorshift64(&x);
		/* pid 12 has no maps: its address space is unknown */
		struct eq_sample s = { .time = 1000 * i, .pid = 10 + (uint32_t)(r % 3), .seq = (uint32_t)i,
				       .pc = 0x401000 + (r >> 8) % 3 * 0x100 + (r >> 12) % 4 };
		struct eqp_callchain cc = { (unsigned)(r >> 16) % 3 == 0 ? 1 : 0,
					    (unsigned)(r >> 20) % 5, fr };

		s.tid = s.pid;
		for (k = 0; k < cc.nkernel; k++)
			fr[k] = 0xffffffff81000008ull;
		for (; k < cc.nkernel + cc.nuser; k++)  /* return addresses, a few places */
			fr[k] = 0x401001 + (eq_xorshift64(&x) % 3) * 0x100 + (k & 1);
		if (!cc.nkernel && cc.nuser && (r >> 28) % 2)
			fr[0] = 0xffffffff81000008ull;          /* a kernel address as a user frame */
		switch ((r >> 24) % 10) {
		case 0:
			s.pid = s.tid = 0;                       /* idle, with its chain */
			s.pc = 0xffffffff81001000ull;
			s.flags = EQ_F_KERNEL | EQ_F_IDLE;
			break;
		case 1:
			s.flags = EQ_F_IDLE;                     /* idle by its flag */
			break;
		case 2:
			s.pc = 0xffffffff81000010ull;            /* a kernel leaf */
			s.flags = EQ_F_KERNEL;
			break;
		case 3:
			if (cc.nuser)
				fr[cc.nkernel + cc.nuser - 1] = 0;   /* cut */
			break;
		}
		assert_int_equal(eqp_add_sample_chain(w, &s, &cc, &err), 0);
	}
	assert_int_equal(eqp_commit(w, &err), 0);
}

/* The stack in st whose frames are f[0..d-1], or -1. */
static long find_stack(const struct eq_stacks *st, const struct eq_loc **f, size_t d)
{
	size_t i;

	for (i = 0; i < st->nstacks; i++)
		if (st->stacks[i].depth == d && !memcmp(st->stacks[i].frames, f, d * sizeof(*f)))
			return (long)i;
	return -1;
}

static void check_stacks(const struct eqp_file *f, unsigned flags)
{
	struct eq_error err;
	struct eq_symbolizer *s = eq_sym_new(f, NULL, &err);
	const struct eq_loc **fr = malloc((1 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*fr));
	struct eq_stacks *st;
	uint64_t *count, total = 0, chained = 0, busy = 0, unchained = 0;
	long *first;
	size_t c, i, seen = 0;

	assert_non_null(s);
	assert_non_null(fr);
	assert_true(eq_sym_multi_space(s));             /* the exec made two spaces */
	st = eq_stacks_build(f, s, flags, &err);
	assert_non_null(st);
	assert_true(st->nstacks > 20);
	count = calloc(st->nstacks, sizeof(*count));
	first = calloc(st->nstacks, sizeof(*first));
	assert_non_null(count);
	assert_non_null(first);
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; i < n; i++) {
			int chain;
			size_t d = eq_sample_frames(f, s, c, i, &smp[i], fr, &chain);
			long k;

			if ((flags & EQ_PROFILE_EXCLUDE_IDLE) && fr[0]->kind == EQ_LOC_IDLE)
				continue;
			k = find_stack(st, fr, d);
			assert_true(k >= 0);
			if (!count[k]++)
				first[k] = (long)seen++;
			total++;
			chained += (uint64_t)chain;
			busy += fr[0]->kind != EQ_LOC_IDLE;
			unchained += fr[0]->kind != EQ_LOC_IDLE && !chain;
		}
	}
	assert_int_equal(seen, st->nstacks);            /* no stack without a sample */
	assert_int_equal(total, st->total_samples);
	assert_int_equal(chained, st->with_chain);
	assert_int_equal(busy, st->busy);
	assert_int_equal(unchained, st->unchained);
	assert_true(busy > 0 && unchained > 0);
	assert_true(busy < total || (flags & EQ_PROFILE_EXCLUDE_IDLE));  /* idle samples counted */
	for (i = 0; i < st->nstacks; i++) {
		assert_int_equal(st->stacks[i].samples, count[i]);
		/* most samples first, ties in order of first sight */
		if (i)
			assert_true(count[i - 1] > count[i] ||
				    (count[i - 1] == count[i] && first[i - 1] < first[i]));
	}
	free(count);
	free(first);
	free(fr);
	eq_stacks_free(st);
	eq_sym_free(s);
}

static void stacks_as_every_frame_looked_up(void **state)
{
	char path[64];
	struct eq_error err;
	struct eqp_file *f;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_chains.%d.eqp", (int)getpid());
	write_recording(path);
	f = eqp_open(path, &err);
	assert_non_null(f);
	check_stacks(f, 0);
	check_stacks(f, EQ_PROFILE_EXCLUDE_IDLE);
	eqp_close(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_keys_share_an_id),
		cmocka_unit_test(colliding_hashes_told_apart),
		cmocka_unit_test(hash_of_equal_keys_is_equal),
		cmocka_unit_test(stacks_as_every_frame_looked_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
