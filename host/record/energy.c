/*
 * energy.c - an energy source read alongside time-driven samples;
 * see energy.h.
 */
#include "record/energy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "energy/energy.h"
#include "cmd.h"
#include "progress.h"

struct record_energy {
	struct energy_meter *m;
	double poll_s, next;
	size_t *written;       /* per domain: series entries already written */
	struct eqp_ereading *buf;
	size_t cap;
};

struct record_energy *record_energy_open(const char *spec, const char *sysfs, double poll_s,
					 struct eq_error *err)
{
	struct record_energy *re = calloc(1, sizeof(*re));
	struct energy_env env;

	if (!re) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	energy_env_init(&env, sysfs);
	re->m = !strcmp(spec, "auto") ? energy_meter_open_auto(&env, err)
				       : energy_meter_open(spec, &env, err);
	if (!re->m) {
		free(re);
		return NULL;
	}
	re->written = calloc(re->m->src.ndomains, sizeof(*re->written));
	if (!re->written) {
		record_energy_close(re);
		eq_fail(err, "out of memory");
		return NULL;
	}
	re->poll_s = poll_s;
	return re;
}

int record_energy_start(struct record_energy *re, struct recorder *rec, struct eq_error *err)
{
	double t;
	size_t i;

	for (i = 0; i < re->m->src.ndomains; i++) {
		const struct es_domain *d = &re->m->src.domains[i];
		struct eqp_edomain e = {
			.index = (uint32_t)i, .type = (uint32_t)d->type, .range = d->range,
			.resolution = d->resolution, .update_s = d->update_s > 0 ? d->update_s : 0,
			.spec = re->m->src.spec, .name = d->name, .kind = d->kind, .path = d->path,
			.update_how = d->update_s > 0 ? d->update_how : "",
		};

		if (recorder_add_energy_domain(rec, &e, err) < 0)
			return -1;
	}
	if (energy_meter_read(re->m, &t, err) < 0)
		return -1;
	re->next = t + re->poll_s;
	return 0;
}

int record_energy_due_ms(const struct record_energy *re)
{
	double ms = (re->next - energy_now()) * 1e3;

	return ms < 1 ? 1 : ms > 100 ? 100 : (int)ms;
}

int record_energy_poll(struct record_energy *re, struct eq_error *err)
{
	double t = energy_now();

	if (t < re->next)
		return 0;
	if (energy_meter_read(re->m, &t, err) < 0)
		return -1;
	re->next = fmax(re->next + re->poll_s, t + 0.25 * re->poll_s);
	return 0;
}

int record_energy_write(struct record_energy *re, struct recorder *rec, struct eq_error *err)
{
	size_t i, k, n = 0, need = 0;

	for (i = 0; i < re->m->src.ndomains; i++)
		need += re->m->series[i].n - re->written[i];
	if (!need)
		return 0;
	if (need > re->cap) {
		struct eqp_ereading *b = realloc(re->buf, need * sizeof(*b));

		if (!b)
			return eq_fail(err, "out of memory for energy readings");
		re->buf = b;
		re->cap = need;
	}
	for (i = 0; i < re->m->src.ndomains; i++) {
		const struct es_series *s = &re->m->series[i];

		for (k = re->written[i]; k < s->n; k++)
			re->buf[n++] = (struct eqp_ereading){
				.time = (uint64_t)llround(s->t[k] * 1e9), .energy_j = s->e[k],
				.raw = s->raw[k], .domain = (uint32_t)i,
				.flags = s->changed[k] ? EQP_EREAD_F_CHANGED : 0 };
		re->written[i] = s->n;
	}
	return recorder_add_energy_readings(rec, re->buf, n, err);
}

/* 1 when every counter and store changed at a reading whose previous one
 * was already at or after t_end (its value then covers the end). */
static int all_updated_after(const struct energy_meter *m, double t_end, const char **who)
{
	size_t i;

	for (i = 0; i < m->src.ndomains; i++)
		if (!energy_meter_covers(m, i, t_end)) {
			*who = m->src.domains[i].name;
			return 0;
		}
	return 1;
}

int record_energy_finish(struct record_energy *re, struct recorder *rec, double settle_s,
			 int quiet, struct eq_error *err)
{
	double t_end, t, edge = 1e-3, deadline;
	struct eq_progress line;
	const char *who = NULL;
	size_t i;
	int rc = 0;

	if (energy_meter_read(re->m, &t_end, err) < 0)
		return -1;
	/* a counter is at most one update old, a power sensor's average lags
	 * up to two (eseries.h): one more reading brackets the end */
	for (i = 0; i < re->m->src.ndomains; i++) {
		const struct es_domain *d = &re->m->src.domains[i];
		double x = d->type == ES_POWER ? 2.2 * d->update_s : d->update_s;

		if (d->update_s <= 0.05 && x > edge)
			edge = x;
	}
	energy_nap(edge, NULL);
	if (energy_meter_read(re->m, &t, err) < 0)
		return -1;
	deadline = energy_now() + settle_s;
	eq_progress_start(&line, quiet, 0.5);
	while (!all_updated_after(re->m, t_end, &who) && energy_now() < deadline) {
		if (eq_progress_due(&line))
			eq_progress_show(&line, "eqprof record: waiting for %s to update (at most %.0f s more)",
					 who, deadline - energy_now());
		energy_nap(fmin(re->poll_s, 0.1), NULL);
		if (energy_meter_read(re->m, &t, err) < 0) {
			rc = -1;
			break;
		}
	}
	eq_progress_end(&line, 1);
	if (rc == 0 && !all_updated_after(re->m, t_end, &who) && !quiet)
		eq_warn("%s did not update within %.0f s after the command ended: the energy of the last interval is known only within wide bounds (--energy-settle waits longer)",
			who, settle_s);
	energy_meter_settle(re->m);
	if (record_energy_write(re, rec, err) < 0)
		return -1;
	return rc;
}

void record_energy_summary(const struct record_energy *re, FILE *out)
{
	size_t i;

	for (i = 0; i < re->m->src.ndomains; i++) {
		const struct es_series *s = &re->m->series[i];
		const struct es_domain *d = &re->m->src.domains[i];
		char how[64] = "";
		double u = d->update_s > 0 ? d->update_s : es_track_update_s(&re->m->tracks[i], how, sizeof(how));

		if (!s->n)
			continue;
		fprintf(out, "eqprof record: %s %s: %zu readings, %.6g J in %.3f s; updates every %s%.3g s%s%s%s\n",
			re->m->src.spec, d->name, s->n, s->e[s->n - 1], s->t[s->n - 1] - s->t[0],
			u > 0 ? "" : "? ", u > 0 ? u : re->poll_s,
			how[0] || d->update_how[0] ? " (" : "", d->update_s > 0 ? d->update_how : how,
			how[0] || d->update_how[0] ? ")" : "");
	}
	if (re->m->src.note[0])
		fprintf(out, "eqprof record: %s\n", re->m->src.note);
}

const char *record_energy_warning(const struct record_energy *re)
{
	return re->m->src.warning;
}

void record_energy_close(struct record_energy *re)
{
	if (!re)
		return;
	energy_meter_close(re->m);
	free(re->written);
	free(re->buf);
	free(re);
}
