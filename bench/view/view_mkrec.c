/*
 * view_mkrec.c - a synthetic energy-driven recording of N samples for the
 * viewer's benchmark (bench/view/view.sh).
 *
 *   view_mkrec N OUT.eqp
 *
 * One process runs a program of 60 procedures and a library of 20 through
 * phases of 50 ms to 2 s; each phase mixes a few procedures and idle, each
 * procedure draws its own power (0.3 to 2 W, idle 0.1 W), and every
 * sample closes a quantum of 100 uJ (so 10 M samples are some 20 minutes
 * of a device at about 1 W).  Symbols are embedded (no ELF needed), as the
 * simulator does.  Deterministic: the same N gives the same file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/eqp.h"
#include "test/lib/xorshift.h"

#define PID 100
#define NAPP 60
#define NLIB 20
#define QUANTUM 100e-6
#define APP_BASE 0x400000ull
#define LIB_BASE 0x7f0000000000ull
#define BATCH 65536

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	return eq_xorshift64(&rng);
}

static double uni(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

static void die(struct eq_error *err)
{
	fprintf(stderr, "view_mkrec: %s\n", err->msg);
	exit(1);
}

int main(int argc, char **argv)
{
	static struct eqp_symbol app[NAPP], lib[NLIB], idle_sym;
	static char names[NAPP + NLIB][32];
	static struct eq_sample batch[BATCH];
	struct eqp_meta m = { .mode = EQP_MODE_ENERGY, .quantum_j = QUANTUM, .clock_hz = 1e9,
			      .target = "synthetic (bench/view/view_mkrec)" };
	double power[NAPP + NLIB];
	struct eq_error err;
	struct eqp_writer *w;
	char maps[256];
	unsigned long long n, i, t = 0;
	size_t k, fill = 0;
	int mix[6], nmix = 0, j;
	double idle_frac = 0, phase_end = 0;

	if (argc != 3 || sscanf(argv[1], "%llu", &n) != 1) {
		fprintf(stderr, "usage: view_mkrec N OUT.eqp\n");
		return 2;
	}
	for (k = 0; k < NAPP + NLIB; k++) {
		snprintf(names[k], sizeof(names[k]), k < NAPP ? "app_func_%02zu" : "lib_func_%02zu",
			 k < NAPP ? k : k - NAPP);
		power[k] = 0.3 + 1.7 * uni();
		if (k < NAPP)
			app[k] = (struct eqp_symbol){ 0x1000 + k * 0x1000, 0x1000, names[k] };
		else
			lib[k - NAPP] = (struct eqp_symbol){ 0x1000 + (k - NAPP) * 0x1000, 0x1000, names[k] };
	}
	idle_sym = (struct eqp_symbol){ 0xc0001000ull, 0x1000, "cpu_idle" };
	w = eqp_create(argv[2], &m, &err);
	if (!w)
		die(&err);
	snprintf(maps, sizeof(maps), "%llx-%llx r-xp 00000000 00:00 0 /bin/app\n"
		 "%llx-%llx r-xp 00000000 00:00 0 /lib/libwork.so\n",
		 APP_BASE, APP_BASE + 0x100000, LIB_BASE, LIB_BASE + 0x100000);
	if (eqp_add_symtab(w, &(struct eqp_symtab){ "/bin/app", 0, NAPP, app }, &err) < 0 ||
	    eqp_add_symtab(w, &(struct eqp_symtab){ "/lib/libwork.so", 0, NLIB, lib }, &err) < 0 ||
	    eqp_add_symtab(w, &(struct eqp_symtab){ "[kernel.kallsyms]", 1, 1, &idle_sym }, &err) < 0 ||
	    eqp_add_maps(w, PID, 0, maps, strlen(maps), &err) < 0 ||
	    eqp_add_comm(w, PID, 0, "app", &err) < 0)
		die(&err);
	for (i = 0; i < n; i++) {
		struct eq_sample *s = &batch[fill++];
		double p;
		int f;

		if ((double)t * 1e-9 >= phase_end) {
			phase_end = (double)t * 1e-9 + 0.05 + 1.95 * uni();
			idle_frac = uni() < 0.3 ? 0.8 : 0.1 + 0.3 * uni();
			nmix = 2 + (int)(next() % 5);
			for (j = 0; j < nmix; j++)
				mix[j] = (int)(next() % (NAPP + NLIB));
		}
		memset(s, 0, sizeof(*s));
		s->seq = (uint32_t)i;
		s->flags = EQ_F_ENERGY;
		if (uni() < idle_frac) {
			s->pc = 0xc0001100ull;
			s->flags |= EQ_F_IDLE | EQ_F_KERNEL;
			p = 0.1;
		} else {
			f = mix[next() % (unsigned)nmix];
			s->pid = s->tid = PID;
			s->pc = (f < NAPP ? APP_BASE + app[f].addr : LIB_BASE + lib[f - NAPP].addr) +
				(next() % 0x1000);
			p = power[f];
		}
		t += (unsigned long long)(QUANTUM / p * 1e9 * (0.9 + 0.2 * uni())) + 1;
		s->time = t;
		if (fill == BATCH || i + 1 == n) {
			if (eqp_add_samples(w, batch, fill, &err) < 0)
				die(&err);
			fill = 0;
		}
	}
	if (eqp_commit(w, &err) < 0)
		die(&err);
	return 0;
}
