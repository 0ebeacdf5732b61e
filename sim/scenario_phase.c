/*
 * scenario_phase.c - scenario statements of the schedule: phases and what
 * runs in them (procedures by weight, threads, idle fraction and
 * granularity, clock, consumer changes).
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

static size_t find_proc_in_process(const struct sim_scenario *sc,
				   const struct sim_process *pr, const char *name)
{
	size_t m, i;

	for (m = 0; m < pr->nmaps; m++) {
		const struct sim_module *mod = &sc->modules[pr->maps[m].module];

		for (i = mod->first_proc; i < mod->first_proc + mod->nprocs; i++)
			if (!strcmp(sc->procs[i].name, name))
				return i;
	}
	/* the kernel is mapped into every process */
	for (i = 0; i < sc->nprocs; i++)
		if (sc->modules[sc->procs[i].module].kernel && !strcmp(sc->procs[i].name, name))
			return i;
	return SIZE_MAX;
}

int scn_st_phase(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_phase *ph;

	if (n != 3)
		return scn_perr(ps, "usage: phase NAME DURATION");
	scn_implicit_freq(sc);
	ps->freqs_locked = 1;
	if (GROW(ps, phases, cap_phases, sc->nphases) < 0)
		return -1;
	ph = &sc->phases[sc->nphases];
	memset(ph, 0, sizeof(*ph));
	if (scn_copy_name(ps, ph->name, w[1], "phase name") < 0 ||
	    scn_quantity_pos(ps, w[2], "s", "phase duration", &ph->duration) < 0)
		return -1;
	if (ph->duration > 1e6)
		return scn_perr(ps, "phase %s: duration must be more than 0 and at most 1e6 s", ph->name);
	ph->freq = sc->nphases ? sc->phases[sc->nphases - 1].freq : 0;
	ph->granularity = 0.01;
	ph->slice = 0; /* the 'slice' parameter, read when the run starts */
	sc->nphases++;
	ps->ctx = CTX_PHASE;
	return 0;
}

static size_t activity_for(struct sim_scenario *sc, size_t process, size_t proc, uint32_t tid)
{
	size_t i;

	for (i = 2; i < sc->nacts; i++)
		if (sc->acts[i].process == process && sc->acts[i].proc == proc && sc->acts[i].tid == tid)
			return i;
	if (scn_grow((void **)&sc->acts, &sc->cap_acts, sc->nacts, sizeof(*sc->acts)) < 0)
		return SIZE_MAX;
	sc->acts[sc->nacts].process = process;
	sc->acts[sc->nacts].proc = proc;
	sc->acts[sc->nacts].tid = tid;
	return sc->nacts++;
}

static int st_run(struct parser *ps, char **w, int n, struct sim_phase *ph)
{
	struct sim_scenario *sc = ps->sc;
	size_t pr, proc, act, k;
	double weight = 1;
	uint32_t tid;
	const char *thread = NULL;

	if (n >= 5 && !strcmp(w[n - 2], "thread")) {
		thread = w[n - 1]; /* "thread NAME" at the end */
		n -= 2;
	} else if (n >= 4 && !strcmp(w[n - 1], "thread")) {
		return scn_perr(ps, "run: 'thread' needs the thread's name");
	}
	if (n != 3 && n != 4)
		return scn_perr(ps, "usage: run PROCESS PROC [WEIGHT] [thread NAME]");
	for (pr = 0; pr < sc->nprocesses; pr++)
		if (!strcmp(sc->processes[pr].name, w[1]))
			break;
	if (pr == sc->nprocesses)
		return scn_perr(ps, "run: no process named '%s'", w[1]);
	proc = find_proc_in_process(sc, &sc->processes[pr], w[2]);
	if (proc == SIZE_MAX)
		return scn_perr(ps, "run: process %s maps no module with a proc '%s'", w[1], w[2]);
	if (n == 4 && scn_quantity_pos(ps, w[3], "", "run weight", &weight) < 0)
		return -1;
	if (ph->nrun >= SIM_MAX_RUN)
		return scn_perr(ps, "phase %s: at most %d run lines", ph->name, SIM_MAX_RUN);
	tid = sc->processes[pr].pid;
	if (thread) {
		const struct sim_process *p = &sc->processes[pr];

		for (k = 0; k < p->nthreads; k++)
			if (!strcmp(p->threads[k].name, thread))
				break;
		if (k == p->nthreads)
			return scn_perr(ps, "run: process %s has no thread '%s' (declare it with 'thread TID NAME')",
				    p->name, thread);
		tid = p->threads[k].tid;
	}
	act = activity_for(sc, pr, proc, tid);
	if (act == SIZE_MAX)
		return scn_perr(ps, "out of memory");
	ph->run[ph->nrun].activity = act;
	ph->run[ph->nrun].weight = weight;
	ph->nrun++;
	return 0;
}

static int st_phase_consumer(struct parser *ps, char **w, int n, struct sim_phase *ph)
{
	struct sim_cons_change *ch;
	size_t c;

	if (n != (strcmp(w[0], "use") ? 3 : 2))
		return scn_perr(ps, "usage: set CONSUMER on|off|POWER, or use CONSUMER");
	c = scn_find_consumer(ps->sc, w[1]);
	if (c == SIZE_MAX)
		return scn_perr(ps, "%s: no consumer named '%s'", w[0], w[1]);
	if (ph->nchanges >= SIM_MAX_CHANGES)
		return scn_perr(ps, "phase %s: at most %d consumer changes", ph->name, SIM_MAX_CHANGES);
	ch = &ph->changes[ph->nchanges];
	ch->consumer = c;
	if (!strcmp(w[0], "use"))
		ch->action = SIM_CONS_USE;
	else if (!strcmp(w[2], "on"))
		ch->action = SIM_CONS_ON;
	else if (!strcmp(w[2], "off"))
		ch->action = SIM_CONS_OFF;
	else {
		ch->action = SIM_CONS_SET;
		if (scn_quantity(ps, w[2], "W", "set power", &ch->power) < 0)
			return -1;
		if (ch->power < 0)
			return scn_perr(ps, "set: power must be >= 0");
	}
	ph->nchanges++;
	return 0;
}

int scn_st_phase_line(struct parser *ps, char **w, int n)
{
	struct sim_phase *ph = &ps->sc->phases[ps->sc->nphases - 1];
	double hz;

	if (!strcmp(w[0], "run"))
		return st_run(ps, w, n, ph);
	if (!strcmp(w[0], "set") || !strcmp(w[0], "use"))
		return st_phase_consumer(ps, w, n, ph);
	if (!strcmp(w[0], "cpufreq")) {
		if (n != 2 || scn_quantity(ps, w[1], "Hz", "cpufreq", &hz) < 0)
			return n != 2 ? scn_perr(ps, "usage: cpufreq HZ") : -1;
		ph->freq = scn_find_freq(ps->sc, hz);
		if (ph->freq == SIZE_MAX)
			return scn_perr(ps, "cpufreq %s: not a declared 'freq'", w[1]);
		return 0;
	}
	if (!strcmp(w[0], "cpu_idle")) {
		if (n != 2 && n != 4)
			return scn_perr(ps, "usage: cpu_idle FRACTION [granularity T]");
		if (scn_fraction(ps, w[1], "cpu_idle", &ph->idle_frac) < 0)
			return -1;
		if (n == 4) {
			if (strcmp(w[2], "granularity"))
				return scn_perr(ps, "cpu_idle: expected 'granularity', got '%s'", w[2]);
			if (scn_quantity_pos(ps, w[3], "s", "granularity", &ph->granularity) < 0)
				return -1;
		}
		return 0;
	}
	if (!strcmp(w[0], "power_spread")) {
		if (n != 2 || scn_fraction(ps, w[1], "power_spread", &ph->power_spread) < 0)
			return n != 2 ? scn_perr(ps, "usage: power_spread FRACTION (e.g. 15%%)") : -1;
		if (ph->power_spread > 0.5)
			return scn_perr(ps, "power_spread: at most 50%%");
		return 0;
	}
	if (!strcmp(w[0], "slice")) {
		if (n != 2 || scn_quantity_pos(ps, w[1], "s", "slice", &ph->slice) < 0)
			return n != 2 ? scn_perr(ps, "usage: slice T") : -1;
		return 0;
	}
	return 1; /* not a phase statement */
}
