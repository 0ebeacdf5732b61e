/*
 * calls.c - the call structure of a scenario, and the call chains the
 * simulator writes with each sample (docs/simulator.md, "Call structure").
 *
 *   calls CALLER CALLEE [WEIGHT]
 *
 * says that CALLER calls CALLEE: of the samples that land in CALLEE (or in
 * what it calls), a share WEIGHT / (sum of the weights of CALLEE's callers)
 * comes through CALLER (default weight 1).  A sample in a procedure with
 * callers gets a chain: one caller drawn by weight, then one of that
 * caller's, and so on until a procedure nobody calls (at most
 * SIM_CALL_DEPTH frames).  So the inclusive share of every procedure is
 * known exactly from the self shares and the weights: the ground truth of
 * `report --children`.  Each frame is a return address inside its caller
 * (its middle byte + 1, so that looking it up at - 1 finds the caller), in
 * the caller's module as mapped in the sample's process; kernel callers
 * come first, as kernel frames (a kernel procedure called from user code).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "file/eqp.h"
#include "scenario_parse.h"
#include "sim_calls.h"

static size_t find_proc(const struct sim_scenario *sc, const char *name, int *ambiguous)
{
	size_t i, found = SIZE_MAX;

	*ambiguous = 0;
	for (i = 0; i < sc->nprocs; i++)
		if (!strcmp(sc->procs[i].name, name)) {
			if (found != SIZE_MAX)
				*ambiguous = 1;
			else
				found = i;
		}
	return found;
}

int scn_st_calls(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	size_t idx[2];
	double weight = 1;
	int k, amb;

	if (n != 3 && n != 4)
		return scn_perr(ps, "usage: calls CALLER CALLEE [WEIGHT] (procs declared above)");
	for (k = 0; k < 2; k++) {
		idx[k] = find_proc(sc, w[1 + k], &amb);
		if (idx[k] == SIZE_MAX)
			return scn_perr(ps, "calls: no proc named '%s' is declared above", w[1 + k]);
		if (amb)
			return scn_perr(ps, "calls: '%s' names procs of several modules; give them different names",
					w[1 + k]);
	}
	if (idx[0] == idx[1])
		return scn_perr(ps, "calls: '%s' calling itself adds nothing to a profile", w[1]);
	if (n == 4) {
		char *end;

		weight = strtod(w[3], &end);
		if (end == w[3] || *end || !(weight > 0) || weight > 1e9)
			return scn_perr(ps, "calls: weight '%s' is not a number above 0", w[3]);
	}
	if (GROW(ps, calls, cap_calls, sc->ncalls + 1) < 0)
		return -1;
	sc->calls[sc->ncalls++] = (struct sim_call){ .caller = idx[0], .callee = idx[1], .weight = weight };
	ps->ctx = CTX_TOP;
	return 0;
}

/* The proc a sample's pc is in, or SIZE_MAX. */
static size_t proc_of(const struct sim_scenario *sc, const struct eq_sample *s, size_t *process)
{
	size_t i, k;

	*process = SIZE_MAX;
	for (i = 0; i < sc->nprocesses; i++)
		if (sc->processes[i].pid == s->pid)
			*process = i;
	for (i = 0; i < sc->nprocs; i++) {
		const struct sim_proc *p = &sc->procs[i];
		const struct sim_module *m = &sc->modules[p->module];

		if (m->kernel) {
			if (s->pc >= p->addr && s->pc - p->addr < p->size)
				return i;
			continue;
		}
		if (*process == SIZE_MAX)
			continue;
		for (k = 0; k < sc->processes[*process].nmaps; k++) {
			uint64_t base = sc->processes[*process].maps[k].base;

			if (sc->processes[*process].maps[k].module == p->module &&
			    s->pc >= base + p->addr && s->pc - base - p->addr < p->size)
				return i;
		}
	}
	return SIZE_MAX;
}

static uint64_t next_u64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* One caller of callee drawn by weight, or SIZE_MAX when it has none. */
static size_t draw_caller(const struct sim_scenario *sc, size_t callee, uint64_t *rng)
{
	double total = 0, u;
	size_t i, last = SIZE_MAX;

	for (i = 0; i < sc->ncalls; i++)
		if (sc->calls[i].callee == callee)
			total += sc->calls[i].weight;
	if (total <= 0)
		return SIZE_MAX;
	u = (double)(next_u64(rng) >> 11) * 0x1.0p-53 * total;
	for (i = 0; i < sc->ncalls; i++)
		if (sc->calls[i].callee == callee) {
			last = sc->calls[i].caller;
			if (u < sc->calls[i].weight)
				return last;
			u -= sc->calls[i].weight;
		}
	return last;  /* rounding */
}

/* Where caller p's return address is in the sample's process. */
static int return_address(const struct sim_scenario *sc, size_t process, size_t p, uint64_t *ra)
{
	const struct sim_proc *pr = &sc->procs[p];
	size_t k;

	if (sc->modules[pr->module].kernel) {
		*ra = pr->addr + pr->size / 2 + 1;
		return 1;
	}
	if (process == SIZE_MAX)
		return 0;
	for (k = 0; k < sc->processes[process].nmaps; k++)
		if (sc->processes[process].maps[k].module == pr->module) {
			*ra = sc->processes[process].maps[k].base + pr->addr + pr->size / 2 + 1;
			return 1;
		}
	return 0;  /* its module is not mapped there */
}

unsigned sim_call_chain(const struct sim_scenario *sc, const struct eq_sample *s, uint64_t *rng,
			uint64_t *frames, unsigned *nkernel)
{
	size_t process, cur, caller;
	unsigned n = 0, nk = 0;

	*nkernel = 0;
	if (!sc->ncalls || (s->flags & EQ_F_IDLE) || (cur = proc_of(sc, s, &process)) == SIZE_MAX)
		return 0;
	while (n < SIM_CALL_DEPTH && (caller = draw_caller(sc, cur, rng)) != SIZE_MAX) {
		uint64_t ra;
		int kern = sc->modules[sc->procs[caller].module].kernel;

		if (kern && n > nk)
			break;  /* a kernel caller of user code: not a stack */
		if (!return_address(sc, process, caller, &ra))
			break;
		frames[n++] = ra;
		if (kern)
			nk++;
		cur = caller;
	}
	*nkernel = nk;
	return n;
}
