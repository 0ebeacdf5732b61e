/*
 * devices.c - the devices' requests, power and truth; see devices.h.
 *
 * Requests are drawn once from the scenario and its seed (their own random
 * stream), so the engine, the recordings and the truth see the same ones.
 * A device serves its requests as they come (overlapping ones together),
 * draws its active power while any is in service, its tail power for
 * tail_s after the last completion (cut short by a new request: the radio
 * goes active again) and its idle power otherwise.  Energy above idle is
 * caused by the request being served, the tail by the request it follows
 * (eprof's rule: the last request pays for the tail).
 */
#include "sim_internal.h"
#include "devices.h"
#include "attrib/attrib.h"
#include "file/outfile.h"
#include "profile/table.h"
#include "util/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rq {
	struct eqp_devreq r;
	double t0, t1;
	size_t spec;
};

static int by_issue(const void *x, const void *y)
{
	const struct rq *a = x, *b = y;

	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	return a->spec < b->spec ? -1 : a->spec > b->spec;
}

static uint64_t ns(double t)
{
	return (uint64_t)llround(t * 1e9);
}

int sim_devices_build(const struct sim_scenario *sc, struct eqp_devreq **req, size_t *nreq,
		      struct eq_dev_piece **pieces, size_t *npieces, struct eq_error *err)
{
	const struct sim_devices *d = sc->devices;
	struct rq *v = NULL;
	size_t nv = 0, cap = 0, i, s, dev;
	double t_end = sim_scenario_duration(sc);
	struct sim_rng rng;

	*req = NULL;
	*pieces = NULL;
	*nreq = *npieces = 0;
	if (!d || !d->nspec)
		return 0;
	sim_rng_seed(&rng, sc->p.seed, 9);
	for (s = 0; s < d->nspec; s++) {
		const struct sim_request_spec *sp = &d->spec[s];
		const struct sim_process *pr = &sc->processes[sp->process];
		const struct sim_proc *proc = &sc->procs[sp->proc];
		double p0 = 0, p1, t;
		uint64_t base = 0;
		size_t k;

		for (k = 0; k < sp->phase; k++)
			p0 += sc->phases[k].duration;
		p1 = p0 + sc->phases[sp->phase].duration;
		for (k = 0; k < pr->nmaps; k++)
			if (pr->maps[k].module == proc->module)
				base = pr->maps[k].base;
		/* bursts start every T, jittered by +-20% (a first one within T) */
		for (t = p0 + sp->every * sim_rng_uniform(&rng); t < p1;
		     t += sp->every * (0.8 + 0.4 * sim_rng_uniform(&rng))) {
			unsigned b;
			double at = t;

			for (b = 0; b < sp->burst && at < p1; b++) {
				if (EQ_GROW(v, cap, nv + 1, 256) < 0)
					goto oom;
				v[nv].t0 = at;
				v[nv].t1 = fmin(at + sp->active_s, t_end);
				v[nv].spec = s;
				v[nv].r = (struct eqp_devreq){
					.issue = ns(at), .complete = ns(v[nv].t1),
					.pc = base + proc->addr + proc->size / 2,
					.pid = pr->pid, .tid = pr->pid, .device = (uint16_t)sp->device,
					.flags = EQP_DREQ_F_WRITE, .bytes = sp->bytes,
				};
				nv++;
				at += sp->active_s + sp->gap;
			}
		}
	}
	qsort(v, nv, sizeof(*v), by_issue);
	*req = malloc((nv ? nv : 1) * sizeof(**req));
	if (!*req)
		goto oom;
	for (i = 0; i < nv; i++)
		(*req)[i] = v[i].r;
	*nreq = nv;
	free(v);
	v = NULL;
	/* the devices' power: the analysis's own model of it (one copy) */
	{
		struct eq_devmodel m[SIM_MAX_DEVICES];

		for (dev = 0; dev < d->ndev; dev++) {
			memset(&m[dev], 0, sizeof(m[dev]));
			snprintf(m[dev].name, sizeof(m[dev].name), "%s", d->dev[dev].name);
			m[dev].active_w = d->dev[dev].active_w;
			m[dev].tail_w = d->dev[dev].tail_w;
			m[dev].idle_w = d->dev[dev].idle_w;
			m[dev].tail_s = d->dev[dev].tail_s;
		}
		if (eq_dev_pieces(*req, nv, 1e9, m, d->ndev, t_end, pieces, npieces, err) < 0) {
			free(*req);
			*req = NULL;
			return -1;
		}
	}
	return 0;
oom:
	free(v);
	free(*req);
	*req = NULL;
	return eq_fail(err, "simulator: out of memory");
}

static double idle_total(const struct sim_scenario *sc)
{
	double w = 0;
	size_t i;

	for (i = 0; sc->devices && i < sc->devices->ndev; i++)
		w += sc->devices->dev[i].idle_w;
	return w;
}

int sim_devices_apply(const struct sim_scenario *sc, struct sim_timeline *tl, struct eq_error *err)
{
	struct eqp_devreq *req;
	struct eq_dev_piece *pc;
	size_t nreq, np, i;
	double idle = idle_total(sc);
	int rc = 0;

	if (!sc->devices || !sc->devices->ndev)
		return 0;
	if (sim_devices_build(sc, &req, &nreq, &pc, &np, err) < 0)
		return -1;
	free(req);
	/* levels of the step stream (sim/workload.c), as the consumers'; pieces
	 * of different devices may overlap: their levels add up */
	if (idle > 0)
		rc = sim_timeline_add_level(tl, 0, tl->t_end, idle);
	for (i = 0; rc == 0 && i < np; i++)
		rc = sim_timeline_add_level(tl, pc[i].t0, pc[i].t1, pc[i].power);
	free(pc);
	if (rc < 0)
		return eq_fail(err, "simulator: out of memory adding the devices' power");
	return 0;
}

int sim_devices_add(struct eqp_writer *w, const struct sim_scenario *sc, const struct sim_result *res,
		    struct eq_error *err)
{
	struct eqp_devreq *req;
	struct eq_dev_piece *pc;
	size_t nreq, np, i;
	int rc;

	if (!sc->devices || !sc->devices->nspec)
		return 0;
	if (sim_devices_build(sc, &req, &nreq, &pc, &np, err) < 0)
		return -1;
	for (i = 0; i < nreq; i++) { /* on the target's clock, as the samples */
		req[i].issue = sim_target_ns(&res->p, req[i].issue / 1e9);
		req[i].complete = sim_target_ns(&res->p, req[i].complete / 1e9);
	}
	rc = nreq ? eqp_add_devreqs(w, req, nreq, err) : 0;
	free(req);
	free(pc);
	return rc;
}

void sim_devices_meta(const struct sim_scenario *sc, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; sc->devices && i < sc->devices->ndev && len < size; i++) {
		const struct sim_device *d = &sc->devices->dev[i];
		int n = snprintf(buf + len, size - len,
				 "device:%zu=%s\ndevice_model:%s=active %.9gW tail %.9gs %.9gW idle %.9gW\n",
				 i, d->name, d->name, d->active_w, d->tail_s, d->tail_w, d->idle_w);

		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0';
			break;
		}
		len += (size_t)n;
	}
}

/* ---- truth ---------------------------------------------------------------- */

/* The pieces, built once per result (the engine's hook runs often). */
static struct {
	const struct sim_scenario *sc;
	uint64_t seed;
	struct eq_dev_piece *pc;
	size_t np, cursor;
} cache;

int sim_devices_account(struct sim_result *res, const struct sim_scenario *sc, size_t act,
			double t, double dt)
{
	struct eqp_devreq *req;
	size_t i;

	if (!sc->devices || !sc->devices->nspec)
		return 0;
	if (!res->device_landed_j) {
		res->device_landed_j = calloc(SIM_NACTS(sc), sizeof(double));
		if (!res->device_landed_j)
			return -1;
		free(cache.pc);
		cache.pc = NULL;
		if (sim_devices_build(sc, &req, &i, &cache.pc, &cache.np, NULL) < 0)
			return -1;
		free(req);
		cache.sc = sc;
		cache.cursor = 0;
	}
	/* pieces are by device then time: scan them all (few devices, and a
	 * piece ends before most calls: a cursor per device would do better) */
	for (i = 0; i < cache.np; i++) {
		double a = fmax(t, cache.pc[i].t0), b = fmin(t + dt, cache.pc[i].t1);

		if (b > a)
			res->device_landed_j[act] += cache.pc[i].power * (b - a);
	}
	return 0;
}

int sim_devices_write_truth(const struct sim_scenario *sc, const struct sim_result *res,
			    const char *path, struct eq_error *err)
{
	const struct sim_devices *d = sc->devices;
	struct eqp_devreq *req;
	struct eq_dev_piece *pc;
	size_t nreq, np, i, j, dev;
	struct eq_outfile o;
	int first;

	if (sim_devices_build(sc, &req, &nreq, &pc, &np, err) < 0)
		return -1;
	if (eq_outfile_open(&o, path, err) < 0) {
		free(req);
		free(pc);
		return -1;
	}
	fputs("{\n  \"scenario\": ", o.fp);
	eq_json_string(o.fp, sc->name);
	fputs(",\n  \"energy_is\": \"above each device's idle power\",\n  \"devices\": [", o.fp);
	for (dev = 0; dev < d->ndev; dev++) {
		double act = 0, tail = 0;
		size_t n = 0;

		for (i = 0; i < np; i++)
			if (req[pc[i].request].device == dev)
				*(pc[i].tail ? &tail : &act) += pc[i].power * (pc[i].t1 - pc[i].t0);
		for (i = 0; i < nreq; i++)
			n += req[i].device == dev;
		fprintf(o.fp, "%s\n    {\"name\": ", dev ? "," : "");
		eq_json_string(o.fp, d->dev[dev].name);
		fprintf(o.fp, ", \"active_w\": %.9g, \"tail_w\": %.9g, \"tail_s\": %.9g, \"idle_w\": %.9g, "
			"\"requests\": %zu, \"energy_j\": %.9g, \"active_j\": %.9g, \"tail_j\": %.9g}",
			d->dev[dev].active_w, d->dev[dev].tail_w, d->dev[dev].tail_s, d->dev[dev].idle_w, n,
			act + tail, act, tail);
	}
	/* who caused it: per process and device */
	fputs("\n  ],\n  \"causes\": [", o.fp);
	first = 1;
	for (i = 0; i < sc->nprocesses; i++)
		for (dev = 0; dev < d->ndev; dev++) {
			double act = 0, tail = 0;

			for (j = 0; j < np; j++)
				if (req[pc[j].request].pid == sc->processes[i].pid && req[pc[j].request].device == dev)
					*(pc[j].tail ? &tail : &act) += pc[j].power * (pc[j].t1 - pc[j].t0);
			if (act + tail == 0)
				continue;
			fprintf(o.fp, "%s\n    {\"exe\": ", first ? "" : ",");
			first = 0;
			eq_json_string(o.fp, sc->processes[i].name);
			fputs(", \"device\": ", o.fp);
			eq_json_string(o.fp, d->dev[dev].name);
			fprintf(o.fp, ", \"energy_j\": %.9g, \"active_j\": %.9g, \"tail_j\": %.9g}", act + tail, act, tail);
		}
	/* where it landed: the device energy drawn while each program ran */
	fputs("\n  ],\n  \"landed\": [", o.fp);
	first = 1;
	for (i = 0; res->device_landed_j && i < sc->nacts; i++) {
		double e = 0;

		if (i == SIM_ACT_ISR)
			continue;
		for (j = 0; j < i; j++)
			if (j != SIM_ACT_ISR && !strcmp(sim_act_exe(sc, j), sim_act_exe(sc, i)))
				break;
		if (j < i)
			continue;
		for (j = i; j < sc->nacts; j++)
			if (j != SIM_ACT_ISR && !strcmp(sim_act_exe(sc, j), sim_act_exe(sc, i)))
				e += res->device_landed_j[j];
		fprintf(o.fp, "%s\n    {\"exe\": ", first ? "" : ",");
		first = 0;
		eq_json_string(o.fp, sim_act_exe(sc, i));
		fprintf(o.fp, ", \"energy_j\": %.9g}", e);
	}
	fprintf(o.fp, "\n  ],\n  \"landed_in_isr_j\": %.9g\n}\n",
		res->device_landed_j ? res->device_landed_j[SIM_ACT_ISR] : 0);
	free(req);
	free(pc);
	return eq_outfile_commit(&o, err);
}
