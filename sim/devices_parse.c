/*
 * devices_parse.c - the scenario statements of devices.h (apart from the
 * rest of sim/devices.c so that the scenario parser's fuzz target links
 * without the engine).
 */
#include "sim_internal.h"
#include "scenario_parse.h"
#include "devices.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

static struct sim_devices *devices_of(struct parser *ps)
{
	if (!ps->sc->devices)
		ps->sc->devices = calloc(1, sizeof(struct sim_devices));
	return ps->sc->devices;
}

/* device NAME active P tail T P [idle P] */
int sim_devices_st_device(struct parser *ps, char **w, int n)
{
	struct sim_devices *d = devices_of(ps);
	struct sim_device *v;
	int i;

	if (!d)
		return scn_perr(ps, "out of memory");
	if (n < 7 || strcmp(w[2], "active") || strcmp(w[4], "tail"))
		return scn_perr(ps, "usage: device NAME active POWER tail TIME POWER [idle POWER]");
	if (d->ndev == SIM_MAX_DEVICES)
		return scn_perr(ps, "more than %d devices", SIM_MAX_DEVICES);
	v = &d->dev[d->ndev];
	memset(v, 0, sizeof(*v));
	if (scn_copy_name(ps, v->name, w[1], "device name") < 0 ||
	    scn_quantity(ps, w[3], "W", "active power", &v->active_w) < 0 ||
	    scn_quantity(ps, w[5], "s", "tail time", &v->tail_s) < 0 ||
	    scn_quantity(ps, w[6], "W", "tail power", &v->tail_w) < 0)
		return -1;
	for (i = 7; i < n; i += 2) {
		if (i + 1 >= n || strcmp(w[i], "idle"))
			return scn_perr(ps, "device: expected 'idle POWER', got '%s'", w[i]);
		if (scn_quantity(ps, w[i + 1], "W", "idle power", &v->idle_w) < 0)
			return -1;
	}
	if (v->active_w < v->idle_w || v->tail_w < v->idle_w || v->tail_s < 0)
		return scn_perr(ps, "device %s: active and tail power must be at least the idle power, the tail time >= 0",
				v->name);
	for (i = 0; (size_t)i < d->ndev; i++)
		if (!strcmp(d->dev[i].name, v->name))
			return scn_perr(ps, "device %s declared twice", v->name);
	d->ndev++;
	return 0;
}

/* request DEVICE PROCESS PROC every T [burst K gap G] [active D] [bytes N] */
int sim_devices_st_request(struct parser *ps, char **w, int n)
{
	struct sim_scenario *sc = ps->sc;
	struct sim_devices *d = sc->devices;
	struct sim_request_spec r = { .burst = 1, .active_s = 0.05, .bytes = 1500 };
	const struct sim_process *pr;
	size_t k;
	int i;

	if (n < 6 || strcmp(w[4], "every"))
		return scn_perr(ps, "usage: request DEVICE PROCESS PROC every TIME [burst K gap TIME] [active TIME] [bytes N]");
	for (r.device = 0; d && r.device < d->ndev; r.device++)
		if (!strcmp(d->dev[r.device].name, w[1]))
			break;
	if (!d || r.device == d->ndev)
		return scn_perr(ps, "request: no device named '%s' (declare it with 'device' first)", w[1]);
	for (r.process = 0; r.process < sc->nprocesses; r.process++)
		if (!strcmp(sc->processes[r.process].name, w[2]))
			break;
	if (r.process == sc->nprocesses)
		return scn_perr(ps, "request: no process named '%s'", w[2]);
	pr = &sc->processes[r.process];
	for (r.proc = 0; r.proc < sc->nprocs; r.proc++) {
		if (strcmp(sc->procs[r.proc].name, w[3]))
			continue;
		for (k = 0; k < pr->nmaps; k++)
			if (pr->maps[k].module == sc->procs[r.proc].module)
				break;
		if (k < pr->nmaps || sc->modules[sc->procs[r.proc].module].kernel)
			break;
	}
	if (r.proc == sc->nprocs)
		return scn_perr(ps, "request: process %s maps no proc named '%s'", w[2], w[3]);
	if (scn_quantity_pos(ps, w[5], "s", "request every", &r.every) < 0)
		return -1;
	for (i = 6; i < n; i += 2) {
		double v;

		if (i + 1 >= n)
			return scn_perr(ps, "request: '%s' needs a value", w[i]);
		if (!strcmp(w[i], "burst")) {
			uint64_t k64;

			if (scn_u64_word(ps, w[i + 1], "burst", &k64) < 0)
				return -1;
			if (k64 < 1 || k64 > 1000)
				return scn_perr(ps, "request: burst of 1 to 1000 requests");
			r.burst = (unsigned)k64;
		} else if (!strcmp(w[i], "gap")) {
			if (scn_quantity(ps, w[i + 1], "s", "gap", &r.gap) < 0)
				return -1;
		} else if (!strcmp(w[i], "active")) {
			if (scn_quantity_pos(ps, w[i + 1], "s", "request active", &v) < 0)
				return -1;
			r.active_s = v;
		} else if (!strcmp(w[i], "bytes")) {
			uint64_t b;

			if (scn_u64_word(ps, w[i + 1], "bytes", &b) < 0)
				return -1;
			r.bytes = (uint32_t)(b > UINT32_MAX ? UINT32_MAX : b);
		} else {
			return scn_perr(ps, "request: unknown word '%s' (burst, gap, active, bytes)", w[i]);
		}
	}
	if (r.gap < 0)
		return scn_perr(ps, "request: 'gap' must be >= 0");
	r.phase = sc->nphases - 1;
	if (EQ_GROW(d->spec, d->capspec, d->nspec + 1, 8) < 0)
		return scn_perr(ps, "out of memory");
	d->spec[d->nspec++] = r;
	return 0;
}

double sim_devices_expected_requests(const struct sim_scenario *sc)
{
	const struct sim_devices *d = sc->devices;
	double n = 0;
	size_t i;

	for (i = 0; d && i < d->nspec; i++) /* bursts come at least 0.8 T apart */
		n += d->spec[i].burst * (sc->phases[d->spec[i].phase].duration / (0.8 * d->spec[i].every) + 1);
	return n;
}

void sim_devices_free(struct sim_devices *d)
{
	if (!d)
		return;
	free(d->spec);
	free(d);
}
