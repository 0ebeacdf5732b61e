/*
 * scenario_parse.h - the scenario parser's pieces, shared by its files
 * (scenario.c: lines and the whole file; scenario_util.c: values and
 * lookups; scenario_parts.c: the device's parts; scenario_phase.c: phases).
 */
#ifndef SIM_SCENARIO_PARSE_H
#define SIM_SCENARIO_PARSE_H

#include "sim.h"

struct parser {
	struct sim_scenario *sc;
	const char *file;
	unsigned line;
	enum { CTX_TOP, CTX_MODULE, CTX_PROCESS, CTX_PHASE } ctx;
	int freqs_locked;       /* a proc used the frequency list */
	int have_isr_power;
	struct eq_error *err;
};

/* "FILE:LINE: message"; always returns -1. */
int scn_perr(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grows *arr (element size sz) so that index n fits; -1 when out of memory. */
int scn_grow(void **arr, size_t *cap, size_t n, size_t sz);
#define GROW(ps, field, capf, n) \
	(scn_grow((void **)&(ps)->sc->field, &(ps)->sc->capf, (n), sizeof(*(ps)->sc->field)) ? \
	 scn_perr((ps), "out of memory") : 0)

/* Values: each fails with the line and what was expected. */
int scn_quantity(struct parser *ps, const char *w, const char *unit, const char *what, double *out);
/* The same for a value that must be more than 0 (negative and 0 get the
 * same message). */
int scn_quantity_pos(struct parser *ps, const char *w, const char *unit, const char *what,
		     double *out);
int scn_fraction(struct parser *ps, const char *w, const char *what, double *out);
int scn_u64_word(struct parser *ps, const char *w, const char *what, uint64_t *out);
int scn_copy_name(struct parser *ps, char *dst, const char *src, const char *what);
/* "700mW@206MHz"... or one bare power for every frequency state. */
int scn_power_spec(struct parser *ps, char **w, int n, double *power, const char *what);

/* Lookups: the index, or SIZE_MAX. */
size_t scn_find_module(const struct sim_scenario *sc, const char *path);
size_t scn_find_consumer(const struct sim_scenario *sc, const char *name);
size_t scn_find_freq(const struct sim_scenario *sc, double hz);
/* The default frequency state when a scenario declares none. */
void scn_implicit_freq(struct sim_scenario *sc);

/* Statements (w[0] is the keyword). */
int scn_st_freq(struct parser *ps, char **w, int n);
int scn_st_consumer(struct parser *ps, char **w, int n);
int scn_st_module(struct parser *ps, char **w, int n, int kernel);
int scn_st_proc(struct parser *ps, char **w, int n);
int scn_st_process(struct parser *ps, char **w, int n);
int scn_st_map(struct parser *ps, char **w, int n);
int scn_st_thread(struct parser *ps, char **w, int n);
int scn_st_phase(struct parser *ps, char **w, int n);
/* "calls CALLER CALLEE [WEIGHT]" (sim/calls.c). */
int scn_st_calls(struct parser *ps, char **w, int n);
/* A statement inside a phase block: 0 done, -1 error, 1 not a phase statement. */
int scn_st_phase_line(struct parser *ps, char **w, int n);

#endif
