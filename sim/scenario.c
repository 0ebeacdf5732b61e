/*
 * scenario.c - reads scenario files (docs/simulator.md, "Scenario format").
 *
 * One statement a line, words separated by blanks, '#' starts a comment.
 * Statements that describe parts (module, kernel, process, phase) open a
 * block that the following proc/map/run/... lines belong to.  Every error
 * names the file, the line and the word, and says what was expected.
 */
#include "scenario_parse.h"
#include "devices.h"
#include "sim_internal.h"
#include "defaults.h"
#include "util/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 40

static int st_top(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct eq_error e;
	char assign[512];
	int i;

	if (!strcmp(w[0], "scenario")) {
		if (n != 2)
			return scn_perr(ps, "usage: scenario NAME");
		return scn_copy_name(ps, sc->name, w[1], "scenario name");
	}
	if (!strcmp(w[0], "description")) {
		sc->description[0] = 0;
		for (i = 1; i < n; i++) {
			if (strlen(sc->description) + strlen(w[i]) + 2 >= sizeof(sc->description))
				break;
			if (i > 1)
				strcat(sc->description, " ");
			strcat(sc->description, w[i]);
		}
		return 0;
	}
	if (!strcmp(w[0], "freq"))
		return scn_st_freq(ps, w, n);
	if (!strcmp(w[0], "consumer"))
		return scn_st_consumer(ps, w, n);
	if (!strcmp(w[0], "module"))
		return scn_st_module(ps, w, n, 0);
	if (!strcmp(w[0], "kernel"))
		return scn_st_module(ps, w, n, 1);
	if (!strcmp(w[0], "process"))
		return scn_st_process(ps, w, n);
	if (!strcmp(w[0], "calls"))
		return scn_st_calls(ps, w, n);
	if (!strcmp(w[0], "phase"))
		return scn_st_phase(ps, w, n);
	if (!strcmp(w[0], "device")) /* sim/devices_parse.c */
		return sim_devices_st_device(ps, w, n);
	if (!strcmp(w[0], "base_power")) {
		if (n != 2 || scn_quantity(ps, w[1], "W", "base_power", &sc->base_power) < 0)
			return n != 2 ? scn_perr(ps, "usage: base_power POWER") : -1;
		return 0;
	}
	if (!strcmp(w[0], "isr_power")) {
		ps->have_isr_power = 1;
		return scn_power_spec(ps, w + 1, n - 1, sc->isr_power, "isr_power");
	}
	if (!strcmp(w[0], "idle")) {
		size_t i2;

		if (n != 2)
			return scn_perr(ps, "usage: idle PROC (a proc of the kernel block)");
		for (i2 = 0; i2 < sc->nprocs; i2++)
			if (sc->modules[sc->procs[i2].module].kernel && !strcmp(sc->procs[i2].name, w[1]))
				break;
		if (i2 == sc->nprocs)
			return scn_perr(ps, "idle: no kernel proc named '%s'", w[1]);
		sc->idle_proc = i2;
		return 0;
	}
	/* any other word: a parameter "name value" */
	snprintf(assign, sizeof(assign), "%s=", w[0]);
	for (i = 1; i < n; i++) {
		if (strlen(assign) + strlen(w[i]) + 2 >= sizeof(assign))
			return scn_perr(ps, "line too long");
		if (i > 1)
			strcat(assign, " ");
		strcat(assign, w[i]);
	}
	if (sim_params_set(&sc->p, assign, &e) < 0)
		return scn_perr(ps, "%s", e.msg);
	return 0;
}

static int statement(struct parser *ps, char **w, int n)
{
	int r;

	if (ps->ctx == CTX_PHASE && !strcmp(w[0], "request")) /* sim/devices_parse.c */
		return sim_devices_st_request(ps, w, n);
	if (ps->ctx == CTX_PHASE) {
		r = scn_st_phase_line(ps, w, n);
		if (r <= 0)
			return r;
	}
	if (!strcmp(w[0], "proc"))
		return scn_st_proc(ps, w, n);
	if (!strcmp(w[0], "map"))
		return scn_st_map(ps, w, n);
	if (!strcmp(w[0], "thread"))
		return scn_st_thread(ps, w, n);
	if (!strcmp(w[0], "run") || !strcmp(w[0], "set") || !strcmp(w[0], "use") ||
	    !strcmp(w[0], "cpufreq") || !strcmp(w[0], "cpu_idle") || !strcmp(w[0], "slice") ||
	    !strcmp(w[0], "power_spread"))
		return scn_perr(ps, "'%s' belongs inside a phase block", w[0]);
	ps->ctx = CTX_TOP;
	return st_top(ps, w, n);
}

static int split(char *line, char **w)
{
	int n = 0;
	char *p = line;

	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = 0;
		if (!*p || *p == '#')
			break;
		if (n == MAX_WORDS)
			return -1;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
	}
	*p = 0;
	return n;
}

/* Checks what only the whole file can tell. */
static int finish(struct parser *ps)
{
	struct sim_scenario *sc = ps->sc;
	size_t i;

	ps->line = 0;
	if (sc->nphases == 0)
		return eq_fail(ps->err, "%s: no phase; a scenario needs at least one 'phase NAME DURATION' block", ps->file);
	if (sc->idle_proc == SIZE_MAX)
		return eq_fail(ps->err, "%s: no idle routine; add a 'kernel' block with a proc and 'idle PROC'", ps->file);
	if (!ps->have_isr_power) {
		scn_implicit_freq(sc);
		for (i = 0; i < sc->nfreqs; i++)
			sc->isr_power[i] = SIM_DEF_ISR_POWER * sc->freqs[i].hz / sc->freqs[0].hz;
	}
	for (i = 0; i < sc->nphases; i++) {
		const struct sim_phase *ph = &sc->phases[i];

		if (ph->nrun == 0 && ph->idle_frac < 1)
			return eq_fail(ps->err, "%s: phase %s: the CPU is busy %.0f%% of the time but the phase has no 'run' line; add one or write 'cpu_idle 100%%'",
				       ps->file, ph->name, 100 * (1 - ph->idle_frac));
	}
	for (i = 0; i < sc->nprocesses; i++) {
		const struct sim_process *pr = &sc->processes[i];
		size_t m;

		for (m = 0; m < pr->nmaps; m++)
			if (pr->maps[m].module == pr->exe_module)
				break;
		if (m == pr->nmaps)
			return eq_fail(ps->err, "%s: process %s does not map its executable %s; add 'map %s BASE'",
				       ps->file, pr->name, sc->modules[pr->exe_module].path,
				       sc->modules[pr->exe_module].path);
	}
	if (!sc->name[0]) {
		/* no 'scenario NAME': the file's name without folder and .scn */
		const char *b = strrchr(ps->file, '/') ? strrchr(ps->file, '/') + 1 : ps->file;
		size_t l = strlen(b);

		if (l > 4 && !strcmp(b + l - 4, ".scn"))
			l -= 4;
		snprintf(sc->name, sizeof(sc->name), "%.*s", (int)(l < SIM_NAME_MAX - 1 ? l : SIM_NAME_MAX - 1), b);
	}
	return sim_check_feasible(sc, ps->err);
}

int sim_scenario_parse(struct sim_scenario *sc, const char *text, size_t len,
		       const char *name, struct eq_error *err)
{
	struct parser ps = { .sc = sc, .file = name, .err = err };
	const char *p = text, *end = text + len;
	char *line, *w[MAX_WORDS];
	int n, rc = 0;

	memset(sc, 0, sizeof(*sc));
	sim_params_default(&sc->p);
	snprintf(sc->path, sizeof(sc->path), "%s", name);
	sc->idle_proc = SIZE_MAX;
	/* activities 0 and 1: idle and the ISR */
	if (scn_grow((void **)&sc->acts, &sc->cap_acts, 1, sizeof(*sc->acts)) < 0)
		return eq_fail(err, "out of memory");
	sc->acts[0].process = sc->acts[1].process = SIZE_MAX;
	sc->nacts = 2;
	line = malloc(len + 1);
	if (!line)
		return eq_fail(err, "out of memory");
	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		ps.line++;
		memcpy(line, p, l);
		line[l] = 0;
		p += l + 1;
		if (strlen(line) != l) {
			rc = scn_perr(&ps, "NUL byte in the line; scenario files are text");
			break;
		}
		n = split(line, w);
		if (n < 0)
			rc = scn_perr(&ps, "more than %d words", MAX_WORDS);
		else if (n > 0)
			rc = statement(&ps, w, n);
	}
	free(line);
	if (rc == 0)
		rc = finish(&ps);
	if (rc < 0) {
		sim_scenario_free(sc);
		return -1;
	}
	sc->acts[0].proc = sc->idle_proc;
	return 0;
}

int sim_scenario_load(struct sim_scenario *sc, const char *path, struct eq_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, r;
	int rc;

	if (!f)
		return eq_fail(err, "%s: cannot open scenario: %s", path, strerror(errno));
	for (;;) {
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return eq_fail(err, "%s: out of memory", path);
			}
			buf = nb;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return eq_fail(err, "%s: read error", path);
	}
	fclose(f);
	rc = sim_scenario_parse(sc, buf ? buf : "", len, path, err);
	free(buf);
	return rc;
}

void sim_scenario_free(struct sim_scenario *sc)
{
	free(sc->modules);
	free(sc->procs);
	free(sc->processes);
	free(sc->consumers);
	free(sc->phases);
	free(sc->acts);
	sim_devices_free(sc->devices);
	free(sc->calls);
	memset(sc, 0, sizeof(*sc));
}

int sim_scenario_set(struct sim_scenario *sc, const char *assignment, struct eq_error *err)
{
	return sim_params_set(&sc->p, assignment, err);
}

double sim_scenario_duration(const struct sim_scenario *sc)
{
	double d = 0;
	size_t i;

	for (i = 0; i < sc->nphases; i++)
		d += sc->phases[i].duration;
	return d;
}
