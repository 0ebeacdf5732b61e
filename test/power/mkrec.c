/*
 * mkrec.c - writes crafted recordings with known power steps for the power
 * and export tests, through the real .eqp writer.
 *
 *   mkrec steps OUT.eqp      energy-driven, E_q = 2.94 mJ, three phases:
 *                            A: 100 intervals of 10 ms (0.294 W), idle
 *                            B: 200 intervals of  2 ms (1.470 W), busy
 *                            C: 100 intervals of  5 ms (0.588 W), busy
 *                            markers "A", "B", "C", "end" at the phase edges
 *   mkrec off OUT.eqp        the same work with a subsystem off: every
 *                            interval 25 % longer (A 0.2352 W, B 1.176 W,
 *                            C 0.4704 W)
 *   mkrec lost OUT.eqp       steps, with 10 samples of phase B dropped by the
 *                            ring (seq gap + EQ_F_LOST) and a LOST chunk
 *   mkrec unsorted OUT.eqp   steps, written as two rings one after the other
 *   mkrec time OUT.eqp       time-driven at 1 kHz, no board: no power
 *   mkrec timeboard OUT.eqp  time-driven at 1 kHz for 1 s, with a board that
 *                            counted 64-pulse quanta of 46.12 uJ every 5 ms
 *                            (0.590 W), then every 2.5 ms (1.181 W)
 *
 * Samples of phase A run in pid 0 (idle); the others in pid 100, "app",
 * whose /bin/app has an embedded symbol table: main, work, spin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/eqp.h"

#define QUANTUM 2.94e-3
#define T_START 1000000000ull   /* first sample at 1 s on the target clock */

struct phase {
	const char *marker;
	unsigned n;
	uint64_t dt_ns;
	int idle;
};

static const struct phase steps[] = {
	{ "A", 100, 10000000, 1 },
	{ "B", 200, 2000000, 0 },
	{ "C", 100, 5000000, 0 },
};

static const struct eqp_symbol app_syms[] = {
	{ 0x1000, 0x100, "main" },
	{ 0x1100, 0x200, "work" },
	{ 0x1300, 0x100, "spin" },
};

static void die(const char *what, const struct eq_error *err)
{
	fprintf(stderr, "mkrec: %s: %s\n", what, err->msg);
	exit(1);
}

static void add_process(struct eqp_writer *w)
{
	static const char maps[] =
		"00401000-00404000 r-xp 00001000 08:01 1234 /bin/app\n";
	struct eqp_symtab t = { "/bin/app", 0, 3, app_syms };
	struct eq_error err;

	if (eqp_add_maps(w, 100, 0, maps, strlen(maps), &err) < 0 ||
	    eqp_add_comm(w, 100, 0, "app", &err) < 0 ||
	    eqp_add_symtab(w, &t, &err) < 0)
		die("process", &err);
}

/* pc of the i-th busy sample: main, work and spin in turn 1 : 2 : 1. */
static uint64_t busy_pc(unsigned i)
{
	static const uint64_t pcs[4] = { 0x401010, 0x401120, 0x401180, 0x401310 };

	return pcs[i % 4];
}

struct gen {
	struct eqp_writer *w;
	struct eq_sample *s;
	size_t n;
	double stretch;         /* interval length factor ("off") */
	unsigned drop_from, drop_n;
};

static void gen_steps(struct gen *g, int with_markers)
{
	uint64_t t = T_START;
	uint32_t seq = 0;
	unsigned p, i, busy = 0;
	struct eq_error err;
	int lost_pending = 0;

	g->s = calloc(1000, sizeof(*g->s));
	for (p = 0; p < 3; p++) {
		if (with_markers && eqp_add_marker(g->w, t, steps[p].marker, &err) < 0)
			die("marker", &err);
		for (i = 0; i < steps[p].n + (p == 0); i++) {
			struct eq_sample *x;

			if (p > 0 || i > 0)
				t += (uint64_t)(steps[p].dt_ns * g->stretch);
			if (seq >= g->drop_from && seq < g->drop_from + g->drop_n) {
				seq++;
				lost_pending = 1;
				continue;
			}
			x = &g->s[g->n++];
			x->time = t;
			x->seq = seq++;
			x->flags = EQ_F_ENERGY | (lost_pending ? EQ_F_LOST : 0);
			lost_pending = 0;
			if (steps[p].idle) {
				x->flags |= EQ_F_IDLE | EQ_F_KERNEL;
				x->pc = 0xffffffff81000100ull;
			} else {
				x->pid = x->tid = 100;
				x->pc = busy_pc(busy++);
			}
		}
	}
	if (with_markers && eqp_add_marker(g->w, t, "end", &err) < 0)
		die("marker", &err);
}

static struct eqp_writer *create(const char *path, enum eqp_mode mode, double q,
				 double hz)
{
	struct eqp_meta m = { 0 };
	struct eq_error err;
	struct eqp_writer *w;

	m.mode = mode;
	m.quantum_j = q;
	m.nominal_hz = hz;
	m.clock_hz = 1e9;
	m.target = "mkrec crafted recording";
	m.extra = "scenario=power-steps\n";
	w = eqp_create(path, &m, &err);
	if (!w)
		die(path, &err);
	add_process(w);
	return w;
}

static void finish(struct gen *g, const char *path)
{
	struct eq_error err;

	if (eqp_add_samples(g->w, g->s, g->n, &err) < 0 || eqp_commit(g->w, &err) < 0)
		die(path, &err);
	free(g->s);
}

static void write_unsorted(struct gen *g, const char *path)
{
	size_t i, k = 0;
	struct eq_sample *ring0 = calloc(g->n, sizeof(*ring0));

	/* Even samples on CPU 0, odd on CPU 1, drained ring 0 first. */
	for (i = 0; i < g->n; i += 2)
		ring0[k++] = g->s[i];
	for (i = 1; i < g->n; i += 2) {
		ring0[k] = g->s[i];
		ring0[k++].cpu = 1;
	}
	memcpy(g->s, ring0, g->n * sizeof(*ring0));
	free(ring0);
	finish(g, path);
}

static void write_time(const char *path, int board)
{
	struct eqp_writer *w = create(path, EQP_MODE_TIME, 0, 1000);
	struct eqp_board_info bi = { 1e6, 46.12e-6, 64, 5, 1, "mkrec", 0, 0, 0, 0, 0 };
	struct gen g = { w, calloc(1001, sizeof(struct eq_sample)), 0, 1, 0, 0 };
	struct eq_error err;
	unsigned i;

	for (i = 0; i <= 1000; i++) {
		struct eq_sample *x = &g.s[g.n++];

		x->time = T_START + (uint64_t)i * 1000000;
		x->seq = i;
		x->pid = x->tid = i % 2 ? 100 : 0;
		x->pc = i % 2 ? busy_pc(i) : 0xffffffff81000100ull;
		x->flags = i % 2 ? 0 : EQ_F_IDLE | EQ_F_KERNEL;
	}
	if (board) {
		struct eqp_board_rec r[400];
		uint64_t t = 0;
		unsigned n = 0;

		/* 100 quanta 5 ms apart, then 200 quanta 2.5 ms apart (us ticks). */
		for (i = 0; i <= 300; i++) {
			if (i > 0)
				t += i <= 100 ? 5000 : 2500;
			r[n] = (struct eqp_board_rec){ t, i, 64, 0, 0, 0 };
			n++;
		}
		if (eqp_add_board_info(w, &bi, &err) < 0 ||
		    eqp_add_board_records(w, r, n, &err) < 0)
			die("board", &err);
	}
	finish(&g, path);
}

int main(int argc, char **argv)
{
	struct gen g = { 0 };
	const char *kind, *path;
	struct eq_error err;

	if (argc != 3) {
		fprintf(stderr, "usage: mkrec steps|off|lost|unsorted|time|timeboard OUT.eqp\n");
		return 2;
	}
	kind = argv[1];
	path = argv[2];
	g.stretch = 1.0;
	if (!strcmp(kind, "time") || !strcmp(kind, "timeboard")) {
		write_time(path, !strcmp(kind, "timeboard"));
		return 0;
	}
	g.w = create(path, EQP_MODE_ENERGY, QUANTUM, 0);
	if (!strcmp(kind, "off"))
		g.stretch = 1.25;
	if (!strcmp(kind, "lost")) {
		g.drop_from = 150;
		g.drop_n = 10;
		if (eqp_add_lost(g.w, 0, 10, &err) < 0)
			die("lost", &err);
	}
	if (strcmp(kind, "steps") && strcmp(kind, "off") && strcmp(kind, "lost") &&
	    strcmp(kind, "unsorted")) {
		fprintf(stderr, "mkrec: unknown kind '%s'\n", kind);
		eqp_discard(g.w);
		return 2;
	}
	gen_steps(&g, 1);
	if (!strcmp(kind, "unsorted"))
		write_unsorted(&g, path);
	else
		finish(&g, path);
	return 0;
}
