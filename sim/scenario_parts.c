/*
 * scenario_parts.c - scenario statements that describe the device: frequency
 * states, consumers, the kernel and modules with their procedures,
 * processes with their maps and threads.
 */
#include "scenario_parse.h"
#include "sim_internal.h"
#include "defaults.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statements -------------------------------------------------------- */

int scn_st_freq(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_freq *f;

	if (ps->freqs_locked)
		return scn_perr(ps, "'freq' must come before the first proc, isr_power or phase");
	if (sc->nfreqs >= SIM_MAX_FREQS)
		return scn_perr(ps, "at most %d frequency states", SIM_MAX_FREQS);
	if (n < 2 || n > 3)
		return scn_perr(ps, "usage: freq HZ [VOLTS], e.g. freq 206MHz 1.5V");
	f = &sc->freqs[sc->nfreqs];
	if (scn_quantity_pos(ps, w[1], "Hz", "freq", &f->hz) < 0)
		return -1;
	if (n == 3 && scn_quantity(ps, w[2], "V", "freq voltage", &f->volt) < 0)
		return -1;
	if (scn_find_freq(sc, f->hz) != SIZE_MAX)
		return scn_perr(ps, "freq %s declared twice", w[1]);
	sc->nfreqs++;
	return 0;
}

int scn_st_consumer(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_consumer *c;
	int i;

	if (n < 3)
		return scn_perr(ps, "usage: consumer NAME POWER [period T duty D] [timeout T] [off]");
	if (scn_find_consumer(sc, w[1]) != SIZE_MAX)
		return scn_perr(ps, "consumer '%s' declared twice", w[1]);
	if (GROW(ps, consumers, cap_consumers, sc->nconsumers) < 0)
		return -1;
	c = &sc->consumers[sc->nconsumers];
	memset(c, 0, sizeof(*c));
	c->on = 1;
	c->duty = 1;
	if (scn_copy_name(ps, c->name, w[1], "consumer name") < 0 ||
	    scn_quantity(ps, w[2], "W", "consumer power", &c->power) < 0)
		return -1;
	for (i = 3; i < n; i++) {
		if (!strcmp(w[i], "off")) {
			c->on = 0;
		} else if (!strcmp(w[i], "on")) {
			c->on = 1;
		} else if (i + 1 < n && !strcmp(w[i], "period")) {
			if (scn_quantity(ps, w[++i], "s", "consumer period", &c->period) < 0)
				return -1;
		} else if (i + 1 < n && !strcmp(w[i], "duty")) {
			if (scn_fraction(ps, w[++i], "consumer duty", &c->duty) < 0)
				return -1;
		} else if (i + 1 < n && !strcmp(w[i], "timeout")) {
			if (scn_quantity(ps, w[++i], "s", "consumer timeout", &c->timeout) < 0)
				return -1;
		} else {
			return scn_perr(ps, "consumer: unknown word '%s'; expected period, duty, timeout, on or off", w[i]);
		}
	}
	if (c->duty <= 0 || c->period < 0 || c->timeout < 0 || c->power < 0)
		return scn_perr(ps, "consumer %s: power, period and timeout must be >= 0 and duty > 0", c->name);
	sc->nconsumers++;
	return 0;
}

int scn_st_module(struct parser *ps, char **w, int n, int kernel)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_module *m;

	/* The kernel is always "[kernel.kallsyms]", the name reports use for
	 * kernel pcs; its optional word is only a label for the reader. */
	const char *path = kernel ? "[kernel.kallsyms]" : (n == 2 ? w[1] : NULL);

	if (n != 2 && !(kernel && n == 1))
		return scn_perr(ps, "usage: %s", kernel ? "kernel [LABEL]" : "module PATH");
	if (scn_find_module(sc, path) != SIZE_MAX)
		return scn_perr(ps, "%s '%s' declared twice", w[0], path);
	if (GROW(ps, modules, cap_modules, sc->nmodules) < 0)
		return -1;
	m = &sc->modules[sc->nmodules];
	memset(m, 0, sizeof(*m));
	if (scn_copy_name(ps, m->path, path, "module path") < 0)
		return -1;
	m->kernel = kernel;
	m->first_proc = sc->nprocs;
	sc->nmodules++;
	ps->ctx = CTX_MODULE;
	return 0;
}

int scn_st_proc(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_module *m;
	struct sim_proc *p;
	size_t i;

	if (ps->ctx != CTX_MODULE)
		return scn_perr(ps, "'proc' belongs inside a module or kernel block");
	if (n < 5)
		return scn_perr(ps, "usage: proc NAME ADDR SIZE POWER[@FREQ]...");
	m = &sc->modules[sc->nmodules - 1];
	if (GROW(ps, procs, cap_procs, sc->nprocs) < 0)
		return -1;
	p = &sc->procs[sc->nprocs];
	memset(p, 0, sizeof(*p));
	p->module = sc->nmodules - 1;
	if (scn_copy_name(ps, p->name, w[1], "proc name") < 0 ||
	    scn_u64_word(ps, w[2], "proc address", &p->addr) < 0 ||
	    scn_u64_word(ps, w[3], "proc size", &p->size) < 0 ||
	    scn_power_spec(ps, w + 4, n - 4, p->power, "proc power") < 0)
		return -1;
	if (p->size == 0 || p->addr + p->size < p->addr)
		return scn_perr(ps, "proc %s: size must be > 0 and the range must not wrap", p->name);
	for (i = m->first_proc; i < sc->nprocs; i++) {
		const struct sim_proc *q = &sc->procs[i];

		if (!strcmp(q->name, p->name))
			return scn_perr(ps, "proc %s declared twice in %s", p->name, m->path);
		if (p->addr < q->addr + q->size && q->addr < p->addr + p->size)
			return scn_perr(ps, "proc %s overlaps proc %s", p->name, q->name);
	}
	if (p->addr + p->size > m->size)
		m->size = (p->addr + p->size + 4095) & ~4095ull;
	m->nprocs++;
	sc->nprocs++;
	return 0;
}

int scn_st_process(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_process *pr;
	uint64_t pid;
	size_t i;

	if (n != 4)
		return scn_perr(ps, "usage: process NAME PID EXE_PATH");
	if (scn_u64_word(ps, w[2], "pid", &pid) < 0)
		return -1;
	if (pid == 0 || pid > UINT32_MAX)
		return scn_perr(ps, "pid %s: must be 1..%u (0 is the idle task)", w[2], UINT32_MAX);
	if (pid == SIM_RECORDER_PID)
		return scn_perr(ps, "pid %s: is the recorder's (eqprof record, added by the simulator); choose another", w[2]);
	for (i = 0; i < sc->nprocesses; i++)
		if (sc->processes[i].pid == pid || !strcmp(sc->processes[i].name, w[1]))
			return scn_perr(ps, "process %s / pid %s declared twice", w[1], w[2]);
	if (GROW(ps, processes, cap_processes, sc->nprocesses) < 0)
		return -1;
	pr = &sc->processes[sc->nprocesses];
	memset(pr, 0, sizeof(*pr));
	if (scn_copy_name(ps, pr->name, w[1], "process name") < 0)
		return -1;
	pr->pid = (uint32_t)pid;
	pr->exe_module = scn_find_module(sc, w[3]);
	if (pr->exe_module == SIZE_MAX || sc->modules[pr->exe_module].kernel)
		return scn_perr(ps, "process %s: executable '%s' is not a declared module", w[1], w[3]);
	sc->nprocesses++;
	ps->ctx = CTX_PROCESS;
	return 0;
}

int scn_st_map(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_process *pr;
	size_t mod, i;
	uint64_t base;

	if (ps->ctx != CTX_PROCESS)
		return scn_perr(ps, "'map' belongs inside a process block");
	if (n != 3)
		return scn_perr(ps, "usage: map MODULE_PATH BASE_ADDRESS");
	pr = &sc->processes[sc->nprocesses - 1];
	mod = scn_find_module(sc, w[1]);
	if (mod == SIZE_MAX || sc->modules[mod].kernel)
		return scn_perr(ps, "map: '%s' is not a declared module", w[1]);
	if (scn_u64_word(ps, w[2], "map base", &base) < 0)
		return -1;
	if (base & 4095)
		return scn_perr(ps, "map %s: base 0x%llx is not page-aligned (4096)", w[1],
			    (unsigned long long)base);
	if (pr->nmaps >= SIM_MAX_MAPS)
		return scn_perr(ps, "process %s: at most %d maps", pr->name, SIM_MAX_MAPS);
	for (i = 0; i < pr->nmaps; i++) {
		uint64_t b = pr->maps[i].base, e = b + sc->modules[pr->maps[i].module].size;

		if (pr->maps[i].module == mod)
			return scn_perr(ps, "map: %s mapped twice in %s", w[1], pr->name);
		if (base < e && b < base + sc->modules[mod].size)
			return scn_perr(ps, "map: %s at 0x%llx overlaps %s", w[1],
				    (unsigned long long)base, sc->modules[pr->maps[i].module].path);
	}
	pr->maps[pr->nmaps].module = mod;
	pr->maps[pr->nmaps].base = base;
	pr->nmaps++;
	return 0;
}

int scn_st_thread(struct parser *ps, char **w, int n)
{
	struct sim_process *pr;
	uint64_t tid;
	size_t i, k;

	if (ps->ctx != CTX_PROCESS)
		return scn_perr(ps, "'thread' belongs inside a process block");
	if (n != 3)
		return scn_perr(ps, "usage: thread TID NAME");
	pr = &ps->sc->processes[ps->sc->nprocesses - 1];
	if (scn_u64_word(ps, w[1], "tid", &tid) < 0)
		return -1;
	if (tid == 0 || tid > UINT32_MAX)
		return scn_perr(ps, "tid %s: must be 1..%u", w[1], UINT32_MAX);
	if (pr->nthreads >= SIM_MAX_THREADS)
		return scn_perr(ps, "process %s: at most %d threads", pr->name, SIM_MAX_THREADS);
	for (i = 0; i < ps->sc->nprocesses; i++) {
		const struct sim_process *q = &ps->sc->processes[i];

		if (q->pid == tid)
			return scn_perr(ps, "tid %s is already the pid of process %s", w[1], q->name);
		for (k = 0; k < q->nthreads; k++)
			if (q->threads[k].tid == tid || (q == pr && !strcmp(q->threads[k].name, w[2])))
				return scn_perr(ps, "thread %s / tid %s declared twice", w[2], w[1]);
	}
	pr->threads[pr->nthreads].tid = (uint32_t)tid;
	if (scn_copy_name(ps, pr->threads[pr->nthreads].name, w[2], "thread name") < 0)
		return -1;
	pr->nthreads++;
	return 0;
}
