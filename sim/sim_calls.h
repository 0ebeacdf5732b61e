/*
 * sim_calls.h - call chains of simulated samples from a scenario's
 * "calls" statements (sim/calls.c).
 */
#ifndef SIM_CALLS_H
#define SIM_CALLS_H

#include <stdint.h>

#include "eq_sample.h"
#include "sim.h"

#define SIM_CALL_DEPTH 64

/* The chain of sample s (return addresses, innermost first, into frames,
 * which holds SIM_CALL_DEPTH): its number of frames, *nkernel of them
 * kernel frames (first).  rng: the caller's state, advanced per draw.
 * 0 when the scenario has no call structure or the sample's procedure no
 * caller. */
unsigned sim_call_chain(const struct sim_scenario *sc, const struct eq_sample *s, uint64_t *rng,
			uint64_t *frames, unsigned *nkernel);

#endif
