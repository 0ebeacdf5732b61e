/*
 * devices.h - devices whose energy is asynchronous to the code that asks
 * for it (seed 000, eprof): a radio or a disk serves requests issued by a
 * program, draws its active power while serving them and its tail power for
 * a while after the last one, and its idle power otherwise.  The device's
 * power adds to the board's stream whatever the CPU runs then, so energy-
 * driven samples charge it to unrelated code; the recordings carry the
 * requests (DREQ chunks) and the truth says which program caused each of
 * the device's joules (DIR/truth-devices.json, docs/simulator.md).
 *
 * Scenario statements:
 *   device NAME active P tail T P [idle P]
 *   (in a phase) request DEVICE PROCESS PROC every T [burst K gap G] [active D] [bytes N]
 */
#ifndef SIM_DEVICES_H
#define SIM_DEVICES_H

#include "sim.h"

struct parser;
struct sim_timeline;

#define SIM_MAX_DEVICES 16

struct sim_device {
	char name[SIM_NAME_MAX];
	double active_w, tail_w, idle_w, tail_s;
};

struct sim_request_spec {
	size_t device, process, proc, phase;
	double every, gap, active_s;
	unsigned burst;
	uint32_t bytes;
};

struct sim_devices {
	struct sim_device dev[SIM_MAX_DEVICES];
	size_t ndev;
	struct sim_request_spec *spec;
	size_t nspec, capspec;
};

struct eq_dev_piece; /* analysis/attrib/attrib.h: the devices' power model */

/* Parsing (devices_parse.c): the statements above; 0 or -1 (message set). */
int sim_devices_st_device(struct parser *ps, char **w, int n);
int sim_devices_st_request(struct parser *ps, char **w, int n);
void sim_devices_free(struct sim_devices *d);
/* At most about how many requests the scenario's request lines make. */
double sim_devices_expected_requests(const struct sim_scenario *sc);

/* The run's requests in issue order and the device pieces they cause, from
 * the scenario (its seed draws the times).  Free both with free(). */
int sim_devices_build(const struct sim_scenario *sc, struct eqp_devreq **req, size_t *nreq,
		      struct eq_dev_piece **pieces, size_t *npieces, struct eq_error *err);
/* The engine's hook: adds the devices' power to the timeline's steps. */
int sim_devices_apply(const struct sim_scenario *sc, struct sim_timeline *tl, struct eq_error *err);
/* Writes the requests (DREQ) into a recording. */
int sim_devices_add(struct eqp_writer *w, const struct sim_scenario *sc, const struct sim_result *res,
		    struct eq_error *err);
/* "device:N=NAME" and "device_model:NAME=..." lines for a recording's header. */
void sim_devices_meta(const struct sim_scenario *sc, char *buf, size_t size);
/* DIR/truth-devices.json. */
int sim_devices_write_truth(const struct sim_scenario *sc, const struct sim_result *res,
			    const char *path, struct eq_error *err);
/* The engine's hook for the truth: the device energy (above idle) that fell
 * in [t, t + dt) while activity act ran. */
int sim_devices_account(struct sim_result *res, const struct sim_scenario *sc, size_t act,
			double t, double dt);

#endif
