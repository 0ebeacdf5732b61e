/*
 * states.h - power states in the simulator (seed 003): the CPU's frequency
 * and idle-state changes written into the recordings (PSTA chunks), and the
 * exact energy and time per state in DIR/truth-states.json.
 */
#ifndef SIM_STATES_H
#define SIM_STATES_H

#include "sim.h"

/* The simulated CPU's only idle state is C1 (its idle routine). */
#define SIM_IDLE_CSTATE 1

/* The engine's hook: the workload's CPU is at frequency state freq, idle
 * or not, at time t; a change is kept as a PSTA event in res. */
int sim_states_track(struct sim_result *res, const struct sim_scenario *sc, size_t freq, int idle,
		     double t);
/* The run's changes into a recording (energy: the energy-driven run's, else
 * the time-driven run's when the two were separate). */
int sim_states_add(struct eqp_writer *w, const struct sim_result *res, int energy,
		   struct eq_error *err);
/* The engine's hook: activity act ran dt seconds at frequency state freq
 * drawing power watts (the device's, base and consumers included, at its
 * terminal voltage), while the workload's CPU was idle or not (the ISR and
 * the OS's handlers run inside the workload's state). */
int sim_states_account(struct sim_result *res, const struct sim_scenario *sc, size_t act,
		       size_t freq, int idle, double power, double dt);
/* DIR/truth-states.json: energy and time per state, per mode, per
 * executable and state (docs/simulator.md). */
int sim_states_write_truth(const struct sim_scenario *sc, const struct sim_result *res,
			   const char *path, struct eq_error *err);

#endif
