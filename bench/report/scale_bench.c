/*
 * scale_bench.c - recordings at the scale of a busy machine, for make bench:
 *
 *   scale_bench procs N ELF OUT.eqp      N processes, each with its own maps
 *                                        (ELF mapped as a PIE) and name, and
 *                                        ten samples each, interleaved in time
 *   scale_bench unsorted N OUT.eqp       N samples of four CPUs whose rings
 *                                        were drained in turn (16,384 samples
 *                                        each): time order inside a chunk,
 *                                        not across them
 *
 * Writes the file and exits; bench/report/scale.sh times eqprof on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/eqp.h"
#include "test/lib/xorshift.h"

#define BASE 0x555555554000ull
#define BATCH 65536

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "scale_bench: %s: %s\n", what, msg);
	exit(1);
}

static struct eqp_writer *start(const char *out)
{
	struct eqp_meta meta = { .mode = EQP_MODE_ENERGY, .quantum_j = 2.94e-3, .clock_hz = 1e9,
				 .target = "scale benchmark" };
	struct eq_error err;
	struct eqp_writer *w = eqp_create(out, &meta, &err);

	if (!w)
		die(out, err.msg);
	return w;
}

static void procs(uint32_t n, const char *elf, const char *out)
{
	static struct eq_sample batch[BATCH];
	struct eqp_writer *w = start(out);
	struct eq_error err;
	uint64_t x = 88172645463325252ull, t = 0;
	char maps[1024], name[32];
	size_t nb = 0;
	uint32_t p, k;

	for (p = 0; p < n; p++) {
		int len = snprintf(maps, sizeof(maps),
				   "%llx-%llx r-xp 00000000 08:01 1 %s\n"
				   "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n",
				   BASE, BASE + 0x100000, elf);

		snprintf(name, sizeof(name), "proc%u", p);
		if (eqp_add_maps(w, 1000 + p, 0, maps, (size_t)len, &err) ||
		    eqp_add_comm(w, 1000 + p, 0, name, &err))
			die(out, err.msg);
	}
	for (k = 0; k < 10; k++)
		for (p = 0; p < n; p++) {
			t += 1000;
			batch[nb++] = (struct eq_sample){ .time = t,
				.pc = BASE + 0x1000 + eq_xorshift64(&x) % 0x8000, .pid = 1000 + p,
				.tid = 1000 + p, .seq = (uint32_t)(t / 1000), .flags = EQ_F_ENERGY };
			if (nb == BATCH) {
				if (eqp_add_samples(w, batch, nb, &err))
					die(out, err.msg);
				nb = 0;
			}
		}
	if ((nb && eqp_add_samples(w, batch, nb, &err)) || eqp_commit(w, &err))
		die(out, err.msg);
}

static void unsorted(uint64_t n, const char *out)
{
	static struct eq_sample block[BATCH], ring[BATCH / 4];
	struct eqp_writer *w = start(out);
	struct eq_error err;
	uint64_t x = 88172645463325252ull, first, i;
	const char *maps = "400000-500000 r-xp 00000000 08:01 1 /bench/app\n";
	unsigned cpu;

	for (cpu = 0; cpu < 4; cpu++)
		if (eqp_add_maps(w, 100 + cpu, 0, maps, strlen(maps), &err) ||
		    eqp_add_comm(w, 100 + cpu, 0, "app", &err))
			die(out, err.msg);
	for (first = 0; first < n; first += BATCH) {
		uint64_t m = n - first < BATCH ? n - first : BATCH;

		for (i = 0; i < m; i++) {
			uint64_t r = eq_xorshift64(&x);

			block[i] = (struct eq_sample){ .time = (first + i) * 1000 + r % 1000,
				.pc = 0x401000 + (r >> 40) % 0x4000, .pid = 100 + (uint32_t)(i & 3),
				.tid = 100 + (uint32_t)(i & 3), .seq = (uint32_t)(first + i),
				.cpu = (uint16_t)(i & 3), .flags = EQ_F_ENERGY };
		}
		/* Each CPU's ring drained in turn: a chunk each, time order
		 * inside, the four interleaved in time. */
		for (cpu = 0; cpu < 4; cpu++) {
			size_t k = 0;

			for (i = cpu; i < m; i += 4)
				ring[k++] = block[i];
			if (k && eqp_add_samples(w, ring, k, &err))
				die(out, err.msg);
			if (k && eqp_flush(w, &err))
				die(out, err.msg);
		}
	}
	if (eqp_commit(w, &err))
		die(out, err.msg);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "procs"))
		procs((uint32_t)strtoul(argv[2], NULL, 10), argv[3], argv[4]);
	else if (argc == 4 && !strcmp(argv[1], "unsorted"))
		unsorted(strtoull(argv[2], NULL, 10), argv[3]);
	else {
		fprintf(stderr, "usage: scale_bench procs N ELF OUT.eqp | unsorted N OUT.eqp\n");
		return 2;
	}
	return 0;
}
