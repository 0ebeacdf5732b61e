/*
 * sim_builtin.h - the scenarios built into eqprof (sim/scenarios/NAME.scn,
 * embedded at build time): seed 001's 14 iPAQ benchmarks (Table 3/4), the
 * two Itsy frequency-scaling experiments (Table 5) and execute-from-ROM
 * (Figure 8).
 */
#ifndef SIM_BUILTIN_H
#define SIM_BUILTIN_H

#include <stddef.h>

struct sim_builtin_scn {
	const char *name;     /* as in the paper: "Music-Loudest" */
	const char *label;    /* "builtin:Music-Loudest" for error messages */
	const char *text;
	size_t len;
};

size_t sim_builtin_count(void);
const struct sim_builtin_scn *sim_builtin_at(size_t i);
/* By name, ignoring case; NULL if none. */
const struct sim_builtin_scn *sim_builtin_find(const char *name);

#endif
