/*
 * speed_rec.c - synthetic recordings for bench/speed (make bench):
 *
 *   speed_rec ELF N PCS OUT.eqp
 *   speed_rec --read FILE
 *
 * N samples of one process that runs ELF (a PIE placed at BASE), each at a
 * pc drawn at random among PCS distinct pcs spread over every function of
 * ELF (PCS 0: any byte of any function).
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

#define BASE 0x555555554000ull
#define PID 4242
#define BATCH 65536


static void die(const char *what, const char *msg)
{
	fprintf(stderr, "speed_rec: %s: %s\n", what, msg);
	exit(1);
}

static uint64_t rng(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
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

int main(int argc, char **argv)
{
	static struct eq_sample batch[BATCH];
	static char maps[8192];
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .nominal_hz = 4000, .clock_hz = 1e9,
				 .target = "bench/speed synthetic" };
	struct eq_error err;
	struct eqp_writer *w;
	struct func *f;
	uint64_t *pcs = NULL, x = 88172645463325252ull, n, npcs, i;
	size_t nf, nb = 0;

	if (argc == 3 && !strcmp(argv[1], "--read"))
		return read_file(argv[2]);
	if (argc != 5) {
		fprintf(stderr, "usage: speed_rec ELF N PCS OUT.eqp | --read FILE\n");
		return 2;
	}
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

			pcs[i] = BASE + fn->vaddr + rng(&x) % fn->size;
		}
	}
	w = eqp_create(argv[4], &meta, &err);
	if (!w || eqp_add_maps(w, PID, 0, maps, strlen(maps), &err) ||
	    eqp_add_comm(w, PID, 0, "funcs", &err))
		die(argv[4], err.msg);
	for (i = 0; i < n; i++) {
		uint64_t r = rng(&x), pc;

		if (pcs) {
			pc = pcs[r % npcs];
		} else {
			const struct func *fn = &f[r % nf];

			pc = BASE + fn->vaddr + (r >> 32) % fn->size;
		}
		batch[nb++] = (struct eq_sample){ .time = 1000000 + i * 250000, .pc = pc,
			.pid = PID, .tid = PID, .seq = (uint32_t)i };
		if (nb == BATCH) {
			if (eqp_add_samples(w, batch, nb, &err))
				die(argv[4], err.msg);
			nb = 0;
		}
	}
	if ((nb && eqp_add_samples(w, batch, nb, &err)) || eqp_commit(w, &err))
		die(argv[4], err.msg);
	free(pcs);
	free(f);
	return 0;
}
