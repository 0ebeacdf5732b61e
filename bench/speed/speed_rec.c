/*
 * speed_rec.c - synthetic recordings for bench/speed (make bench):
 *
 *   speed_rec ELF N PCS OUT.eqp [mixed|idle] [--perf OUT.data]
 *   speed_rec --read FILE
 *
 * N samples of one process that runs ELF (a PIE placed at BASE), each at a
 * pc drawn at random among PCS distinct pcs spread over every function of
 * ELF (PCS 0: any byte of any function).
 *
 * mixed: what a real recording has besides, for comparing the output of
 * two builds on every path: runs of samples at the same pc, 4 threads on
 * 2 CPUs, idle samples (pid 0, about 1 in 8, in runs), kernel samples,
 * samples marked after a loss, and jitter in the intervals.  idle: the
 * same with idle samples about 1 in 2 (a machine mostly idle, as a whole
 * machine's energy profile often is).
 *
 * --perf OUT.data: the same samples besides in a perf.data (perf_data.c), so
 * that perf report reads what eqprof report reads: the process's name and
 * mappings, and every sample's ip, pid, tid, time and cpu (not with mixed:
 * its kernel samples have no kernel map to resolve against).
 *
 * --read: what reading FILE costs, the limit a report is measured against:
 * every 8-byte word of it mapped and summed (the sum printed so that the
 * compiler keeps the loop).
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file/eqp.h"
#include "../report/synth_elf.h"
#include "perf_data.h"
#include "test/lib/xorshift.h"

#define BASE 0x555555554000ull
#define PID 4242
#define BATCH 65536


static void die(const char *what, const char *msg)
{
	fprintf(stderr, "speed_rec: %s: %s\n", what, msg);
	exit(1);
}

static int read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	const uint64_t *w;
	uint64_t sum = 0;
	size_t i, n;

	if (fd < 0 || fstat(fd, &st) < 0)
		die(path, "cannot open");
	w = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (w == MAP_FAILED)
		die(path, "cannot map");
	madvise((void *)w, (size_t)st.st_size, MADV_SEQUENTIAL);
	n = (size_t)st.st_size / 8;
	for (i = 0; i < n; i++)
		sum += w[i];
	printf("%llu\n", (unsigned long long)sum);
	munmap((void *)w, (size_t)st.st_size);
	close(fd);
	return 0;
}

/* A mixed recording's sample, idle in idle8 of 8 (or fewer, in runs):
 * see the head of the file. */
static void mix(struct eq_sample *s, const struct eq_sample *prev, uint64_t *t, uint64_t r,
		uint64_t r2, unsigned idle8)
{
	*t += 240000 + r2 % 20000 + (r2 >> 60 == 0 ? 3000000 : 0);
	s->time = *t;
	s->cpu = (uint16_t)(r2 >> 20 & 1);
	s->tid = PID + (uint32_t)(r2 >> 24 & 3);
	if (prev && (r2 >> 8 & 1)) {             /* a run: where the previous one was */
		s->pc = prev->pc;
		s->pid = prev->pid;
		s->tid = prev->tid;
		s->flags = prev->flags & (EQ_F_KERNEL | EQ_F_IDLE);
	} else if ((r2 >> 12 & 7) < idle8) {     /* idle */
		s->pid = s->tid = 0;
		s->pc = 0xffffffff81000000ull + (r >> 40) % 64 * 16;
		s->flags = EQ_F_KERNEL | EQ_F_IDLE;
	} else if ((r2 >> 12 & 15) == 1) {       /* in the kernel */
		s->pc = 0xffffffff81000000ull + (r >> 40) % 4096 * 16;
		s->flags = EQ_F_KERNEL;
	}
	if ((r2 >> 32 & 511) == 0)
		s->flags |= EQ_F_LOST;
}

int main(int argc, char **argv)
{
	static struct eq_sample batch[BATCH];
	static char maps[8192];
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .nominal_hz = 4000, .clock_hz = 1e9,
				 .target = "bench/speed synthetic" };
	struct eq_error err;
	struct eqp_writer *w;
	struct func *f;
	struct perf_data *pd = NULL;
	uint64_t *pcs = NULL, x = 88172645463325252ull, n, npcs, i, t = 1000000;
	size_t nf, nb = 0;
	const char *perf_path = NULL;
	unsigned idle8;         /* mixed: idle samples in idle8 of 8; 0: not mixed */

	if (argc == 3 && !strcmp(argv[1], "--read"))
		return read_file(argv[2]);
	if (argc == 7 && !strcmp(argv[5], "--perf")) {
		perf_path = argv[6];
		argc = 5;
	}
	if (argc != 5 &&
	    !(argc == 6 && (!strcmp(argv[5], "mixed") || !strcmp(argv[5], "idle")))) {
		fprintf(stderr, "usage: speed_rec ELF N PCS OUT.eqp [mixed|idle] [--perf OUT.data]"
			" | --read FILE\n");
		return 2;
	}
	idle8 = argc == 6 ? (!strcmp(argv[5], "idle") ? 4 : 1) : 0;
	nf = bench_read_elf("speed_rec", argv[1], BASE, &f, maps, sizeof(maps));
	n = strtoull(argv[2], NULL, 10);
	npcs = strtoull(argv[3], NULL, 10);
	if (!nf)
		die(argv[1], "no function symbols");
	if (npcs) {
		if (!(pcs = malloc(npcs * sizeof(*pcs))))
			die("pcs", "out of memory");
		for (i = 0; i < npcs; i++) {
			const struct func *fn = &f[i % nf];

			pcs[i] = BASE + fn->vaddr + eq_xorshift64(&x) % fn->size;
		}
	}
	w = eqp_create(argv[4], &meta, &err);
	if (!w || eqp_add_maps(w, PID, 0, maps, strlen(maps), &err) ||
	    eqp_add_comm(w, PID, 0, "funcs", &err))
		die(argv[4], err.msg);
	if (perf_path) {
		pd = perf_data_create(perf_path, 250000);
		perf_data_process(pd, PID, "funcs", maps);
	}
	for (i = 0; i < n; i++) {
		uint64_t r = eq_xorshift64(&x), pc;

		if (pcs) {
			pc = pcs[r % npcs];
		} else {
			const struct func *fn = &f[r % nf];

			pc = BASE + fn->vaddr + (r >> 32) % fn->size;
		}
		batch[nb] = (struct eq_sample){ .time = 1000000 + i * 250000, .pc = pc,
			.pid = PID, .tid = PID, .seq = (uint32_t)i };
		if (idle8)
			mix(&batch[nb], nb ? &batch[nb - 1] : NULL, &t, r, eq_xorshift64(&x),
			    idle8);
		nb++;
		if (nb == BATCH) {
			if (eqp_add_samples(w, batch, nb, &err))
				die(argv[4], err.msg);
			if (pd)
				perf_data_samples(pd, batch, nb);
			nb = 0;
		}
	}
	if ((nb && eqp_add_samples(w, batch, nb, &err)) || eqp_commit(w, &err))
		die(argv[4], err.msg);
	if (pd) {
		if (nb)
			perf_data_samples(pd, batch, nb);
		perf_data_close(pd);
	}
	free(pcs);
	free(f);
	return 0;
}
