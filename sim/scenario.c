/*
 * scenario.c - reads scenario files (docs/simulator.md, "Scenario format").
 *
 * One statement a line, words separated by blanks, '#' starts a comment.
 * Statements that describe parts (module, kernel, process, phase) open a
 * block that the following proc/map/run/... lines belong to.  Every error
 * names the file, the line and the word, and says what was expected.
 */
#include "sim.h"
#include "sim_internal.h"
#include "defaults.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 40

struct parser {
	struct sim_scenario *sc;
	const char *file;
	unsigned line;
	enum { CTX_TOP, CTX_MODULE, CTX_PROCESS, CTX_PHASE } ctx;
	int freqs_locked;       /* a proc used the frequency list */
	int have_isr_power;
	struct eq_error *err;
};

static int perr(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int perr(struct parser *ps, const char *fmt, ...)
{
	char msg[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return eq_fail(ps->err, "%s:%u: %s", ps->file, ps->line, msg);
}

/* Grows *arr (element size sz) so that index n fits. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t nc;
	void *p;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 8;
	while (nc <= n)
		nc *= 2;
	p = realloc(*arr, nc * sz);
	if (!p)
		return -1;
	memset((char *)p + *cap * sz, 0, (nc - *cap) * sz);
	*arr = p;
	*cap = nc;
	return 0;
}
#define GROW(ps, field, capf, n) \
	(grow((void **)&(ps)->sc->field, &(ps)->sc->capf, (n), sizeof(*(ps)->sc->field)) ? \
	 perr((ps), "out of memory") : 0)

static int quantity(struct parser *ps, const char *w, const char *unit,
		    const char *what, double *out)
{
	struct eq_error e;

	if (eq_parse_quantity(w, unit, what, out, &e) < 0)
		return perr(ps, "%s", e.msg);
	return 0;
}

/* "45%" or "0.45" -> 0.45 */
static int fraction(struct parser *ps, const char *w, const char *what, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(w, &end);
	if (end == w || errno)
		return perr(ps, "%s: '%s' is not a number; write e.g. 45%% or 0.45", what, w);
	if (*end == '%') {
		v /= 100.0;
		end++;
	}
	if (*end || v < 0 || v > 1)
		return perr(ps, "%s: '%s' must be a fraction from 0 to 1 or a percentage", what, w);
	*out = v;
	return 0;
}

static int u64_word(struct parser *ps, const char *w, const char *what, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(w, &end, 0);
	if (end == w || *end || errno || w[0] == '-')
		return perr(ps, "%s: '%s' is not a whole number (decimal or 0x hex)", what, w);
	return 0;
}

static int copy_name(struct parser *ps, char *dst, const char *src, const char *what)
{
	if (strlen(src) >= SIM_NAME_MAX)
		return perr(ps, "%s '%.40s...' is longer than %d characters", what, src,
			    SIM_NAME_MAX - 1);
	strcpy(dst, src);
	return 0;
}

/* ---- lookups ----------------------------------------------------------- */

static size_t find_module(const struct sim_scenario *sc, const char *path)
{
	size_t i;

	for (i = 0; i < sc->nmodules; i++)
		if (!strcmp(sc->modules[i].path, path))
			return i;
	return SIZE_MAX;
}

static size_t find_consumer(const struct sim_scenario *sc, const char *name)
{
	size_t i;

	for (i = 0; i < sc->nconsumers; i++)
		if (!strcmp(sc->consumers[i].name, name))
			return i;
	return SIZE_MAX;
}

static size_t find_freq(const struct sim_scenario *sc, double hz)
{
	size_t i;

	for (i = 0; i < sc->nfreqs; i++)
		if (fabs(sc->freqs[i].hz - hz) <= 1e-6 * hz)
			return i;
	return SIZE_MAX;
}

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

static void implicit_freq(struct sim_scenario *sc)
{
	if (sc->nfreqs == 0) {
		sc->freqs[0].hz = SIM_DEF_CPU_HZ;
		sc->freqs[0].volt = 0;
		sc->nfreqs = 1;
	}
}

/* "700mW@206MHz" ... or one bare "700mW" for every state. */
static int power_spec(struct parser *ps, char **w, int n, double *power, const char *what)
{
	struct sim_scenario *sc = ps->sc;
	int seen[SIM_MAX_FREQS] = { 0 };
	char buf[64];
	size_t k;
	int i;

	implicit_freq(sc);
	ps->freqs_locked = 1;
	if (n == 1 && !strchr(w[0], '@')) {
		double v;

		if (quantity(ps, w[0], "W", what, &v) < 0)
			return -1;
		for (k = 0; k < sc->nfreqs; k++)
			power[k] = v;
		return 0;
	}
	for (i = 0; i < n; i++) {
		char *at = strchr(w[i], '@');
		double v, hz;

		if (!at || (size_t)(at - w[i]) >= sizeof(buf))
			return perr(ps, "%s: '%s' should be POWER@FREQ, e.g. 700mW@206MHz", what, w[i]);
		memcpy(buf, w[i], at - w[i]);
		buf[at - w[i]] = 0;
		if (quantity(ps, buf, "W", what, &v) < 0 || quantity(ps, at + 1, "Hz", what, &hz) < 0)
			return -1;
		k = find_freq(sc, hz);
		if (k == SIZE_MAX)
			return perr(ps, "%s: frequency %s is not declared; add 'freq %s' before it",
				    what, at + 1, at + 1);
		power[k] = v;
		seen[k] = 1;
	}
	for (k = 0; k < sc->nfreqs; k++)
		if (!seen[k])
			return perr(ps, "%s: no power given for the %.0f MHz state; give POWER@FREQ for every 'freq'",
				    what, sc->freqs[k].hz / 1e6);
	return 0;
}

/* ---- statements -------------------------------------------------------- */

static int st_freq(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_freq *f;

	if (ps->freqs_locked)
		return perr(ps, "'freq' must come before the first proc, isr_power or phase");
	if (sc->nfreqs >= SIM_MAX_FREQS)
		return perr(ps, "at most %d frequency states", SIM_MAX_FREQS);
	if (n < 2 || n > 3)
		return perr(ps, "usage: freq HZ [VOLTS], e.g. freq 206MHz 1.5V");
	f = &sc->freqs[sc->nfreqs];
	if (quantity(ps, w[1], "Hz", "freq", &f->hz) < 0)
		return -1;
	if (f->hz <= 0)
		return perr(ps, "freq: must be positive");
	if (n == 3 && quantity(ps, w[2], "V", "freq voltage", &f->volt) < 0)
		return -1;
	if (find_freq(sc, f->hz) != SIZE_MAX)
		return perr(ps, "freq %s declared twice", w[1]);
	sc->nfreqs++;
	return 0;
}

static int st_consumer(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_consumer *c;
	int i;

	if (n < 3)
		return perr(ps, "usage: consumer NAME POWER [period T duty D] [timeout T] [off]");
	if (find_consumer(sc, w[1]) != SIZE_MAX)
		return perr(ps, "consumer '%s' declared twice", w[1]);
	if (GROW(ps, consumers, cap_consumers, sc->nconsumers) < 0)
		return -1;
	c = &sc->consumers[sc->nconsumers];
	memset(c, 0, sizeof(*c));
	c->on = 1;
	c->duty = 1;
	if (copy_name(ps, c->name, w[1], "consumer name") < 0 ||
	    quantity(ps, w[2], "W", "consumer power", &c->power) < 0)
		return -1;
	for (i = 3; i < n; i++) {
		if (!strcmp(w[i], "off")) {
			c->on = 0;
		} else if (!strcmp(w[i], "on")) {
			c->on = 1;
		} else if (i + 1 < n && !strcmp(w[i], "period")) {
			if (quantity(ps, w[++i], "s", "consumer period", &c->period) < 0)
				return -1;
		} else if (i + 1 < n && !strcmp(w[i], "duty")) {
			if (fraction(ps, w[++i], "consumer duty", &c->duty) < 0)
				return -1;
		} else if (i + 1 < n && !strcmp(w[i], "timeout")) {
			if (quantity(ps, w[++i], "s", "consumer timeout", &c->timeout) < 0)
				return -1;
		} else {
			return perr(ps, "consumer: unknown word '%s'; expected period, duty, timeout, on or off", w[i]);
		}
	}
	if (c->duty <= 0 || c->period < 0 || c->timeout < 0 || c->power < 0)
		return perr(ps, "consumer %s: power, period and timeout must be >= 0 and duty > 0", c->name);
	sc->nconsumers++;
	return 0;
}

static int st_module(struct parser *ps, char **w, int n, int kernel)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_module *m;

	/* The kernel is always "[kernel.kallsyms]", the name reports use for
	 * kernel pcs; its optional word is only a label for the reader. */
	const char *path = kernel ? "[kernel.kallsyms]" : (n == 2 ? w[1] : NULL);

	if (n != 2 && !(kernel && n == 1))
		return perr(ps, "usage: %s", kernel ? "kernel [LABEL]" : "module PATH");
	if (find_module(sc, path) != SIZE_MAX)
		return perr(ps, "%s '%s' declared twice", w[0], path);
	if (GROW(ps, modules, cap_modules, sc->nmodules) < 0)
		return -1;
	m = &sc->modules[sc->nmodules];
	memset(m, 0, sizeof(*m));
	if (copy_name(ps, m->path, path, "module path") < 0)
		return -1;
	m->kernel = kernel;
	m->first_proc = sc->nprocs;
	sc->nmodules++;
	ps->ctx = CTX_MODULE;
	return 0;
}

static int st_proc(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_module *m;
	struct sim_proc *p;
	size_t i;

	if (ps->ctx != CTX_MODULE)
		return perr(ps, "'proc' belongs inside a module or kernel block");
	if (n < 5)
		return perr(ps, "usage: proc NAME ADDR SIZE POWER[@FREQ]...");
	m = &sc->modules[sc->nmodules - 1];
	if (GROW(ps, procs, cap_procs, sc->nprocs) < 0)
		return -1;
	p = &sc->procs[sc->nprocs];
	memset(p, 0, sizeof(*p));
	p->module = sc->nmodules - 1;
	if (copy_name(ps, p->name, w[1], "proc name") < 0 ||
	    u64_word(ps, w[2], "proc address", &p->addr) < 0 ||
	    u64_word(ps, w[3], "proc size", &p->size) < 0 ||
	    power_spec(ps, w + 4, n - 4, p->power, "proc power") < 0)
		return -1;
	if (p->size == 0 || p->addr + p->size < p->addr)
		return perr(ps, "proc %s: size must be > 0 and the range must not wrap", p->name);
	for (i = m->first_proc; i < sc->nprocs; i++) {
		const struct sim_proc *q = &sc->procs[i];

		if (!strcmp(q->name, p->name))
			return perr(ps, "proc %s declared twice in %s", p->name, m->path);
		if (p->addr < q->addr + q->size && q->addr < p->addr + p->size)
			return perr(ps, "proc %s overlaps proc %s", p->name, q->name);
	}
	if (p->addr + p->size > m->size)
		m->size = (p->addr + p->size + 4095) & ~4095ull;
	m->nprocs++;
	sc->nprocs++;
	return 0;
}

static int st_process(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_process *pr;
	uint64_t pid;
	size_t i;

	if (n != 4)
		return perr(ps, "usage: process NAME PID EXE_PATH");
	if (u64_word(ps, w[2], "pid", &pid) < 0)
		return -1;
	if (pid == 0 || pid > UINT32_MAX)
		return perr(ps, "pid %s: must be 1..%u (0 is the idle task)", w[2], UINT32_MAX);
	for (i = 0; i < sc->nprocesses; i++)
		if (sc->processes[i].pid == pid || !strcmp(sc->processes[i].name, w[1]))
			return perr(ps, "process %s / pid %s declared twice", w[1], w[2]);
	if (GROW(ps, processes, cap_processes, sc->nprocesses) < 0)
		return -1;
	pr = &sc->processes[sc->nprocesses];
	memset(pr, 0, sizeof(*pr));
	if (copy_name(ps, pr->name, w[1], "process name") < 0)
		return -1;
	pr->pid = (uint32_t)pid;
	pr->exe_module = find_module(sc, w[3]);
	if (pr->exe_module == SIZE_MAX || sc->modules[pr->exe_module].kernel)
		return perr(ps, "process %s: executable '%s' is not a declared module", w[1], w[3]);
	sc->nprocesses++;
	ps->ctx = CTX_PROCESS;
	return 0;
}

static int st_map(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_process *pr;
	size_t mod, i;
	uint64_t base;

	if (ps->ctx != CTX_PROCESS)
		return perr(ps, "'map' belongs inside a process block");
	if (n != 3)
		return perr(ps, "usage: map MODULE_PATH BASE_ADDRESS");
	pr = &sc->processes[sc->nprocesses - 1];
	mod = find_module(sc, w[1]);
	if (mod == SIZE_MAX || sc->modules[mod].kernel)
		return perr(ps, "map: '%s' is not a declared module", w[1]);
	if (u64_word(ps, w[2], "map base", &base) < 0)
		return -1;
	if (base & 4095)
		return perr(ps, "map %s: base 0x%llx is not page-aligned (4096)", w[1],
			    (unsigned long long)base);
	if (pr->nmaps >= SIM_MAX_MAPS)
		return perr(ps, "process %s: at most %d maps", pr->name, SIM_MAX_MAPS);
	for (i = 0; i < pr->nmaps; i++) {
		uint64_t b = pr->maps[i].base, e = b + sc->modules[pr->maps[i].module].size;

		if (pr->maps[i].module == mod)
			return perr(ps, "map: %s mapped twice in %s", w[1], pr->name);
		if (base < e && b < base + sc->modules[mod].size)
			return perr(ps, "map: %s at 0x%llx overlaps %s", w[1],
				    (unsigned long long)base, sc->modules[pr->maps[i].module].path);
	}
	pr->maps[pr->nmaps].module = mod;
	pr->maps[pr->nmaps].base = base;
	pr->nmaps++;
	return 0;
}

static int st_thread(struct parser *ps, char **w, int n)
{
	struct sim_process *pr;
	uint64_t tid;
	size_t i, k;

	if (ps->ctx != CTX_PROCESS)
		return perr(ps, "'thread' belongs inside a process block");
	if (n != 3)
		return perr(ps, "usage: thread TID NAME");
	pr = &ps->sc->processes[ps->sc->nprocesses - 1];
	if (u64_word(ps, w[1], "tid", &tid) < 0)
		return -1;
	if (tid == 0 || tid > UINT32_MAX)
		return perr(ps, "tid %s: must be 1..%u", w[1], UINT32_MAX);
	if (pr->nthreads >= SIM_MAX_THREADS)
		return perr(ps, "process %s: at most %d threads", pr->name, SIM_MAX_THREADS);
	for (i = 0; i < ps->sc->nprocesses; i++) {
		const struct sim_process *q = &ps->sc->processes[i];

		if (q->pid == tid)
			return perr(ps, "tid %s is already the pid of process %s", w[1], q->name);
		for (k = 0; k < q->nthreads; k++)
			if (q->threads[k].tid == tid || (q == pr && !strcmp(q->threads[k].name, w[2])))
				return perr(ps, "thread %s / tid %s declared twice", w[2], w[1]);
	}
	pr->threads[pr->nthreads].tid = (uint32_t)tid;
	if (copy_name(ps, pr->threads[pr->nthreads].name, w[2], "thread name") < 0)
		return -1;
	pr->nthreads++;
	return 0;
}

static int st_phase(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_phase *ph;

	if (n != 3)
		return perr(ps, "usage: phase NAME DURATION");
	implicit_freq(sc);
	ps->freqs_locked = 1;
	if (GROW(ps, phases, cap_phases, sc->nphases) < 0)
		return -1;
	ph = &sc->phases[sc->nphases];
	memset(ph, 0, sizeof(*ph));
	if (copy_name(ps, ph->name, w[1], "phase name") < 0 ||
	    quantity(ps, w[2], "s", "phase duration", &ph->duration) < 0)
		return -1;
	if (ph->duration <= 0 || ph->duration > 1e6)
		return perr(ps, "phase %s: duration must be > 0 and at most 1e6 s", ph->name);
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
	if (grow((void **)&sc->acts, &sc->cap_acts, sc->nacts, sizeof(*sc->acts)) < 0)
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
		return perr(ps, "run: 'thread' needs the thread's name");
	}
	if (n != 3 && n != 4)
		return perr(ps, "usage: run PROCESS PROC [WEIGHT] [thread NAME]");
	for (pr = 0; pr < sc->nprocesses; pr++)
		if (!strcmp(sc->processes[pr].name, w[1]))
			break;
	if (pr == sc->nprocesses)
		return perr(ps, "run: no process named '%s'", w[1]);
	proc = find_proc_in_process(sc, &sc->processes[pr], w[2]);
	if (proc == SIZE_MAX)
		return perr(ps, "run: process %s maps no module with a proc '%s'", w[1], w[2]);
	if (n == 4 && quantity(ps, w[3], "", "run weight", &weight) < 0)
		return -1;
	if (weight <= 0)
		return perr(ps, "run: weight must be > 0");
	if (ph->nrun >= SIM_MAX_RUN)
		return perr(ps, "phase %s: at most %d run lines", ph->name, SIM_MAX_RUN);
	tid = sc->processes[pr].pid;
	if (thread) {
		const struct sim_process *p = &sc->processes[pr];

		for (k = 0; k < p->nthreads; k++)
			if (!strcmp(p->threads[k].name, thread))
				break;
		if (k == p->nthreads)
			return perr(ps, "run: process %s has no thread '%s' (declare it with 'thread TID NAME')",
				    p->name, thread);
		tid = p->threads[k].tid;
	}
	act = activity_for(sc, pr, proc, tid);
	if (act == SIZE_MAX)
		return perr(ps, "out of memory");
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
		return perr(ps, "usage: set CONSUMER on|off|POWER, or use CONSUMER");
	c = find_consumer(ps->sc, w[1]);
	if (c == SIZE_MAX)
		return perr(ps, "%s: no consumer named '%s'", w[0], w[1]);
	if (ph->nchanges >= SIM_MAX_CHANGES)
		return perr(ps, "phase %s: at most %d consumer changes", ph->name, SIM_MAX_CHANGES);
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
		if (quantity(ps, w[2], "W", "set power", &ch->power) < 0)
			return -1;
		if (ch->power < 0)
			return perr(ps, "set: power must be >= 0");
	}
	ph->nchanges++;
	return 0;
}

static int st_phase_line(struct parser *ps, char **w, int n)
{
	struct sim_phase *ph = &ps->sc->phases[ps->sc->nphases - 1];
	double hz;

	if (!strcmp(w[0], "run"))
		return st_run(ps, w, n, ph);
	if (!strcmp(w[0], "set") || !strcmp(w[0], "use"))
		return st_phase_consumer(ps, w, n, ph);
	if (!strcmp(w[0], "cpufreq")) {
		if (n != 2 || quantity(ps, w[1], "Hz", "cpufreq", &hz) < 0)
			return n != 2 ? perr(ps, "usage: cpufreq HZ") : -1;
		ph->freq = find_freq(ps->sc, hz);
		if (ph->freq == SIZE_MAX)
			return perr(ps, "cpufreq %s: not a declared 'freq'", w[1]);
		return 0;
	}
	if (!strcmp(w[0], "cpu_idle")) {
		if (n != 2 && n != 4)
			return perr(ps, "usage: cpu_idle FRACTION [granularity T]");
		if (fraction(ps, w[1], "cpu_idle", &ph->idle_frac) < 0)
			return -1;
		if (n == 4) {
			if (strcmp(w[2], "granularity"))
				return perr(ps, "cpu_idle: expected 'granularity', got '%s'", w[2]);
			if (quantity(ps, w[3], "s", "granularity", &ph->granularity) < 0)
				return -1;
			if (ph->granularity <= 0)
				return perr(ps, "granularity must be > 0");
		}
		return 0;
	}
	if (!strcmp(w[0], "slice")) {
		if (n != 2 || quantity(ps, w[1], "s", "slice", &ph->slice) < 0)
			return n != 2 ? perr(ps, "usage: slice T") : -1;
		if (ph->slice <= 0)
			return perr(ps, "slice must be > 0");
		return 0;
	}
	return 1; /* not a phase statement */
}

static int st_top(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct eq_error e;
	char assign[512];
	int i;

	if (!strcmp(w[0], "scenario")) {
		if (n != 2)
			return perr(ps, "usage: scenario NAME");
		return copy_name(ps, sc->name, w[1], "scenario name");
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
		return st_freq(ps, w, n);
	if (!strcmp(w[0], "consumer"))
		return st_consumer(ps, w, n);
	if (!strcmp(w[0], "module"))
		return st_module(ps, w, n, 0);
	if (!strcmp(w[0], "kernel"))
		return st_module(ps, w, n, 1);
	if (!strcmp(w[0], "process"))
		return st_process(ps, w, n);
	if (!strcmp(w[0], "phase"))
		return st_phase(ps, w, n);
	if (!strcmp(w[0], "base_power")) {
		if (n != 2 || quantity(ps, w[1], "W", "base_power", &sc->base_power) < 0)
			return n != 2 ? perr(ps, "usage: base_power POWER") : -1;
		return 0;
	}
	if (!strcmp(w[0], "isr_power")) {
		ps->have_isr_power = 1;
		return power_spec(ps, w + 1, n - 1, sc->isr_power, "isr_power");
	}
	if (!strcmp(w[0], "idle")) {
		size_t i2;

		if (n != 2)
			return perr(ps, "usage: idle PROC (a proc of the kernel block)");
		for (i2 = 0; i2 < sc->nprocs; i2++)
			if (sc->modules[sc->procs[i2].module].kernel && !strcmp(sc->procs[i2].name, w[1]))
				break;
		if (i2 == sc->nprocs)
			return perr(ps, "idle: no kernel proc named '%s'", w[1]);
		sc->idle_proc = i2;
		return 0;
	}
	/* any other word: a parameter "name value" */
	snprintf(assign, sizeof(assign), "%s=", w[0]);
	for (i = 1; i < n; i++) {
		if (strlen(assign) + strlen(w[i]) + 2 >= sizeof(assign))
			return perr(ps, "line too long");
		if (i > 1)
			strcat(assign, " ");
		strcat(assign, w[i]);
	}
	if (sim_params_set(&sc->p, assign, &e) < 0)
		return perr(ps, "%s", e.msg);
	return 0;
}

static int statement(struct parser *ps, char **w, int n)
{
	int r;

	if (ps->ctx == CTX_PHASE) {
		r = st_phase_line(ps, w, n);
		if (r <= 0)
			return r;
	}
	if (!strcmp(w[0], "proc"))
		return st_proc(ps, w, n);
	if (!strcmp(w[0], "map"))
		return st_map(ps, w, n);
	if (!strcmp(w[0], "thread"))
		return st_thread(ps, w, n);
	if (!strcmp(w[0], "run") || !strcmp(w[0], "set") || !strcmp(w[0], "use") ||
	    !strcmp(w[0], "cpufreq") || !strcmp(w[0], "cpu_idle") || !strcmp(w[0], "slice"))
		return perr(ps, "'%s' belongs inside a phase block", w[0]);
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
		implicit_freq(sc);
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
	if (!sc->name[0])
		snprintf(sc->name, sizeof(sc->name), "scenario");
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
	if (grow((void **)&sc->acts, &sc->cap_acts, 1, sizeof(*sc->acts)) < 0)
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
			rc = perr(&ps, "NUL byte in the line; scenario files are text");
			break;
		}
		n = split(line, w);
		if (n < 0)
			rc = perr(&ps, "more than %d words", MAX_WORDS);
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
