/*
 * chain_rec.c - synthetic recordings with call chains, for comparing the
 * call-chain views of two builds (report --children, -G, the exports):
 *
 *   chain_rec ELF N OUT.eqp [SEED]
 *
 * N samples of three processes running ELF (a PIE: bench/report/synth_elf),
 * 16 threads each, whose first process execs half way (a second address
 * space for its pid, at another base), with chains drawn from a pool of
 * 3,000 that repeat (most samples reuse a few hundred): shallow and deep
 * ones (up to 1,024 user frames), recursive ones (a function repeated),
 * kernel frames before the user ones, chains cut short (a 0 frame, a
 * frame in no mapping), samples without a chain, idle samples with and
 * without one (pid 0, and EQ_F_IDLE on a pid), kernel leaves, samples
 * after a loss.  Deterministic for a seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/eqp.h"
#include "../../bench/report/synth_elf.h"
#include "test/lib/xorshift.h"

#define BASE  0x555555554000ull
#define BASE2 0x565555554000ull /* the first process after its exec */
#define KBASE 0xffffffff81000000ull
#define PID 4242
#define POOL 3000
#define MAXF (2 * EQP_MAX_CHAIN_FRAMES)

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "chain_rec: %s: %s\n", what, msg);
	exit(1);
}

struct chain {
	unsigned nkernel, nuser;
	uint64_t *frames;
	unsigned leaf_fn;
};

static uint64_t in_fn(const struct func *f, size_t nf, unsigned fn, uint64_t r)
{
	const struct func *x = &f[fn % nf];

	return x->vaddr + 1 + r % (x->size > 1 ? x->size - 1 : 1);
}

/* Frames as offsets from the base (user) or kernel addresses. */
static void make_chain(struct chain *c, const struct func *f, size_t nf, uint64_t *x)
{
	uint64_t r = eq_xorshift64(x);
	unsigned kind = (unsigned)(r % 16), k, depth, rec = (unsigned)(r >> 8) % nf;

	c->nkernel = kind < 3 ? 1 + (unsigned)(r >> 20) % 6 : 0;
	depth = kind == 15 ? 200 + (unsigned)(r >> 30) % 825 :   /* deep */
		kind == 14 ? 20 + (unsigned)(r >> 30) % 80 :     /* recursive */
		kind == 13 ? 0 :                                 /* kernel frames only */
		1 + (unsigned)(r >> 30) % 24;
	c->nuser = depth;
	c->frames = malloc((c->nkernel + depth + 1) * sizeof(*c->frames));
	if (!c->frames)
		die("chains", "out of memory");
	for (k = 0; k < c->nkernel; k++)
		c->frames[k] = KBASE + eq_xorshift64(x) % 4096 * 16;
	for (k = 0; k < depth; k++) {
		uint64_t r2 = eq_xorshift64(x);
		unsigned fn = kind == 14 && k % 7 ? rec : (unsigned)(r2 % nf);

		c->frames[c->nkernel + k] = in_fn(f, nf, fn, r2 >> 16);
	}
	if (kind == 12 && depth > 1)
		c->frames[c->nkernel + depth - 1] = 0;                /* cut: a 0 frame */
	if (kind == 11 && depth > 2)
		c->frames[c->nkernel + depth / 2] = 0x7f0000001000ull; /* in no mapping */
	c->leaf_fn = (unsigned)(eq_xorshift64(x) % nf);
}

int main(int argc, char **argv)
{
	static char maps[8192], maps2[8192];
	static uint64_t fr[MAXF];
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .nominal_hz = 4000, .clock_hz = 1e9,
				 .target = "test/analysis/chain_rec synthetic" };
	struct eq_error err;
	struct eqp_writer *w;
	struct func *f;
	struct chain *pool;
	uint64_t x = 88172645463325252ull, n, i, t = 1000000, exec_at;
	size_t nf;
	unsigned p, k;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: chain_rec ELF N OUT.eqp [SEED]\n");
		return 2;
	}
	if (argc == 5)
		x ^= strtoull(argv[4], NULL, 0) * 0x9E3779B97F4A7C15ull;
	nf = bench_read_elf("chain_rec", argv[1], BASE, &f, maps, sizeof(maps));
	free(f);
	nf = bench_read_elf("chain_rec", argv[1], BASE2, &f, maps2, sizeof(maps2));
	n = strtoull(argv[2], NULL, 10);
	if (!nf)
		die(argv[1], "no function symbols");
	if (!(pool = calloc(POOL, sizeof(*pool))))
		die("pool", "out of memory");
	for (p = 0; p < POOL; p++)
		make_chain(&pool[p], f, nf, &x);
	exec_at = t + n / 2 * 250000;
	w = eqp_create(argv[3], &meta, &err);
	if (!w)
		die(argv[3], err.msg);
	for (p = 0; p < 3; p++)
		if (eqp_add_maps(w, PID + p * 100, 0, maps, strlen(maps), &err) ||
		    eqp_add_comm(w, PID + p * 100, 0, p ? "worker" : "main", &err))
			die(argv[3], err.msg);
	if (eqp_add_maps(w, PID, exec_at, maps2, strlen(maps2), &err) ||
	    eqp_add_comm(w, PID, exec_at, "execd", &err))
		die(argv[3], err.msg);
	for (i = 0; i < n; i++) {
		uint64_t r = eq_xorshift64(&x), r2 = eq_xorshift64(&x), base;
		/* most samples among the first few hundred chains */
		const struct chain *c = &pool[(r % 8 ? r % 300 : r % POOL)];
		struct eq_sample s = { .seq = (uint32_t)i, .cpu = (uint16_t)(r2 & 1) };
		struct eqp_callchain cc = { c->nkernel, c->nuser, fr };

		t += 240000 + r2 % 20000;
		s.time = t;
		p = (unsigned)(r2 >> 8) % 3;
		s.pid = PID + p * 100;
		s.tid = s.pid + (uint32_t)(r2 >> 12) % 16;
		base = s.pid == PID && t >= exec_at ? BASE2 : BASE;
		s.pc = base + in_fn(f, nf, c->leaf_fn, r2 >> 20 & 7);
		for (k = 0; k < c->nkernel + c->nuser; k++)
			fr[k] = k < c->nkernel || !c->frames[k] ||
				c->frames[k] >= 0x7f0000000000ull ? c->frames[k] : base + c->frames[k];
		switch (r2 >> 40 & 31) {
		case 0: /* idle, in the kernel */
			s.pid = s.tid = 0;
			s.pc = KBASE + (r >> 40) % 64 * 16;
			s.flags = EQ_F_KERNEL | EQ_F_IDLE;
			break;
		case 1: /* idle by its flag, on a pid */
			s.flags = EQ_F_IDLE;
			break;
		case 2: case 3: /* a kernel leaf */
			s.pc = KBASE + (r >> 40) % 4096 * 16;
			s.flags = EQ_F_KERNEL;
			break;
		case 4: /* after a loss */
			s.flags = EQ_F_LOST;
			break;
		}
		if ((r2 >> 48 & 15) == 0)
			cc.nkernel = cc.nuser = 0;              /* no chain */
		if (eqp_add_sample_chain(w, &s, &cc, &err))
			die(argv[3], err.msg);
	}
	if (eqp_commit(w, &err))
		die(argv[3], err.msg);
	for (p = 0; p < POOL; p++)
		free(pool[p].frames);
	free(pool);
	free(f);
	return 0;
}
