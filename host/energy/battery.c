/*
 * battery.c - a battery's fuel gauge under /sys/class/power_supply
 * (ACPI batteries, smart batteries, phone gauges).  Each battery of type
 * "Battery" (not a mouse's: scope "Device") is a domain, read the best way
 * its driver allows, in this order:
 *
 *   energy   energy_now (uWh): the gauge's own count of the energy left;
 *            what the machine used is what it lost (a store);
 *   charge   charge_now (uAh) x voltage_now (uV): the charge lost times the
 *            voltage at which it was lost, summed here;
 *   power    power_now (uW), integrated over time;
 *   current  current_now (uA) x voltage_now (uV), integrated over time.
 *
 * "battery:BAT0" picks a battery, "battery:BAT0:charge" also the method.
 * Gauges update their values rarely (every 1 to 60 s, often about 15 s):
 * the meter detects the period from the changes it sees, and the bounds it
 * gives follow from it.  A battery that charges, or is full on the
 * charger, measures nothing this machine uses: that is refused.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "energy.h"

#define MAX_BATTERIES 8

enum method { M_ENERGY, M_CHARGE, M_POWER, M_CURRENT, M_NONE };
static const char *const method_names[] = { "energy", "charge", "power", "current" };

struct bat {
	char name[64];
	char dir[512];
	enum method m;
	/* charge: what was used so far, summed here */
	int have;
	double q_prev, v_prev, used;
};

struct battery_priv {
	size_t n;
	struct bat b[MAX_BATTERIES];
};

static int has(const char *dir, const char *file)
{
	char path[700];

	energy_fmt(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

static enum method best_method(const char *dir)
{
	if (has(dir, "energy_now"))
		return M_ENERGY;
	if (has(dir, "charge_now") && has(dir, "voltage_now"))
		return M_CHARGE;
	if (has(dir, "power_now"))
		return M_POWER;
	if (has(dir, "current_now") && has(dir, "voltage_now"))
		return M_CURRENT;
	return M_NONE;
}

static int method_available(const char *dir, enum method m)
{
	switch (m) {
	case M_ENERGY: return has(dir, "energy_now");
	case M_CHARGE: return has(dir, "charge_now") && has(dir, "voltage_now");
	case M_POWER: return has(dir, "power_now");
	case M_CURRENT: return has(dir, "current_now") && has(dir, "voltage_now");
	case M_NONE: break;
	}
	return 0;
}

/* Batteries under the power_supply class; *n gets their number. */
static int find_batteries(const struct energy_env *env, struct bat *b, size_t *n, char *why,
			  size_t whysize)
{
	char dir[512], path[700], text[64];
	struct dirent *de;
	struct eq_error e;
	DIR *d;

	*n = 0;
	energy_path(dir, sizeof(dir), env, "class/power_supply");
	d = opendir(dir);
	if (!d) {
		energy_fmt(why, whysize, "no battery: %s: %s", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d)) && *n < MAX_BATTERIES) {
		if (de->d_name[0] == '.')
			continue;
		energy_fmt(path, sizeof(path), "%s/%s/type", dir, de->d_name);
		if (energy_read_text(path, text, sizeof(text), &e) < 0 || strcmp(text, "Battery"))
			continue;
		energy_fmt(path, sizeof(path), "%s/%s/scope", dir, de->d_name);
		if (energy_read_text(path, text, sizeof(text), &e) == 0 && !strcmp(text, "Device"))
			continue;  /* a mouse's or a headset's battery */
		memset(&b[*n], 0, sizeof(b[0]));
		energy_fmt(b[*n].name, sizeof(b[0].name), "%s", de->d_name);
		energy_fmt(b[*n].dir, sizeof(b[0].dir), "%s/%s", dir, de->d_name);
		b[*n].m = best_method(b[*n].dir);
		(*n)++;
	}
	closedir(d);
	if (!*n)
		energy_fmt(why, whysize, "no battery in %s (a desktop, a server or a virtual machine)",
			 dir);
	/* BAT0 before BAT1 */
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && strcmp(b[j - 1].name, b[j].name) > 0; j--) {
			struct bat t = b[j];

			b[j] = b[j - 1];
			b[j - 1] = t;
		}
	return 0;
}

static void fill_domain(struct es_domain *d, const struct bat *b)
{
	memset(d, 0, sizeof(*d));
	energy_fmt(d->name, sizeof(d->name), "%s", b->name);
	energy_fmt(d->kind, sizeof(d->kind), "battery");
	switch (b->m) {
	case M_ENERGY:
		energy_fmt(d->path, sizeof(d->path), "%s/energy_now", b->dir);
		d->type = ES_STORE;
		d->resolution = 3.6e-3;  /* 1 uWh */
		break;
	case M_CHARGE:
		energy_fmt(d->path, sizeof(d->path), "%s/charge_now", b->dir);
		d->type = ES_COUNTER;    /* the energy used, summed here */
		d->resolution = 3.6e-3;  /* 1 uAh x 1 V */
		break;
	case M_POWER:
		energy_fmt(d->path, sizeof(d->path), "%s/power_now", b->dir);
		d->type = ES_POWER;
		d->resolution = 1e-6;
		break;
	case M_CURRENT:
		energy_fmt(d->path, sizeof(d->path), "%s/current_now", b->dir);
		d->type = ES_POWER;
		d->resolution = 1e-6;
		break;
	case M_NONE:
		break;
	}
	/* no nominal period: gauges differ; the meter detects it */
}

/* Refuses a battery that is not being discharged by this machine. */
static int check_status(const struct bat *b, struct eq_error *err)
{
	char path[700], status[64];

	energy_fmt(path, sizeof(path), "%s/status", b->dir);
	if (energy_read_text(path, status, sizeof(status), err) < 0)
		return -1;
	if (!strcmp(status, "Charging"))
		return eq_fail(err, "battery %s is charging (%s says 'Charging'): its gauge measures "
			       "the charger, not what this machine uses; unplug the charger", b->name,
			       path);
	if (!strcmp(status, "Full") || !strcmp(status, "Not charging"))
		return eq_fail(err, "battery %s is '%s' (%s): the machine runs from the charger and "
			       "the gauge sees none of its energy; unplug the charger", b->name,
			       status, path);
	return 0;
}

static int read_uval(const struct bat *b, const char *file, double *v, struct eq_error *err)
{
	char path[700];
	long long x;

	energy_fmt(path, sizeof(path), "%s/%s", b->dir, file);
	if (energy_read_ll(path, &x, err) < 0)
		return -1;
	*v = (double)x * 1e-6;
	return 0;
}

static int read_battery(struct bat *b, double *raw, struct eq_error *err)
{
	double x, v;

	if (check_status(b, err) < 0)
		return -1;
	switch (b->m) {
	case M_ENERGY:
		if (read_uval(b, "energy_now", &x, err) < 0)
			return -1;
		*raw = x * 3600;  /* Wh -> J */
		return 0;
	case M_CHARGE:
		if (read_uval(b, "charge_now", &x, err) < 0 || read_uval(b, "voltage_now", &v, err) < 0)
			return -1;
		x *= 3600;        /* Ah -> C */
		if (b->have) {
			if (x > b->q_prev)
				return eq_fail(err, "battery %s (%s/charge_now): the charge rose from "
					       "%.3f C to %.3f C: it is being charged, and a charging "
					       "battery's gauge does not measure what this machine uses "
					       "(unplug the charger); nothing was measured", b->name,
					       b->dir, b->q_prev, x);
			if (x < b->q_prev)
				b->used += (b->q_prev - x) * (v + b->v_prev) / 2;
		}
		b->have = 1;
		b->q_prev = x;
		b->v_prev = v;
		*raw = b->used;
		return 0;
	case M_POWER:
		if (read_uval(b, "power_now", &x, err) < 0)
			return -1;
		*raw = fabs(x);
		return 0;
	case M_CURRENT:
		if (read_uval(b, "current_now", &x, err) < 0 || read_uval(b, "voltage_now", &v, err) < 0)
			return -1;
		/* some drivers report a discharge as negative current */
		*raw = fabs(x) * v;
		return 0;
	case M_NONE:
		break;
	}
	return eq_fail(err, "battery %s has no way to read it", b->name);
}

/* A battery's domain, and a first reading now: a charging battery or an
 * unreadable file is refused before anything runs. */
static int battery_start(struct energy_source *src, size_t i, struct eq_error *err)
{
	struct battery_priv *p = src->priv;
	double raw;

	fill_domain(&src->domains[i], &p->b[i]);
	if (read_battery(&p->b[i], &raw, err) < 0)
		return -1;
	p->b[i].have = 0;
	p->b[i].used = 0;
	return 0;
}

static int battery_open(struct energy_source *src, const char *sel, const struct energy_env *env,
			struct eq_error *err)
{
	struct battery_priv *p = calloc(1, sizeof(*p));
	struct bat found[MAX_BATTERIES];
	char why[512] = "", want[64] = "";
	const char *meth = NULL;
	size_t n, i;

	if (!p)
		return eq_fail(err, "out of memory");
	if (sel) {
		const char *colon = strchr(sel, ':');

		energy_fmt(want, sizeof(want), "%.*s", colon ? (int)(colon - sel) : (int)strlen(sel), sel);
		meth = colon ? colon + 1 : NULL;
	}
	find_batteries(env, found, &n, why, sizeof(why));
	for (i = 0; i < n; i++) {
		struct bat *b = &found[i];

		if (want[0] && strcmp(want, b->name))
			continue;
		if (meth) {
			int m;

			for (m = 0; m < M_NONE && strcmp(meth, method_names[m]); m++)
				;
			if (m == M_NONE) {
				free(p);
				return eq_fail(err, "battery:%s: no method '%s' (energy, charge, power, "
					       "current)", sel, meth);
			}
			if (!method_available(b->dir, (enum method)m)) {
				free(p);
				return eq_fail(err, "battery %s has no %s reading (%s lacks its files)",
					       b->name, meth, b->dir);
			}
			b->m = (enum method)m;
		}
		if (b->m == M_NONE) {
			if (want[0]) {
				free(p);
				return eq_fail(err, "battery %s (%s) has none of energy_now, charge_now, "
					       "power_now, current_now", b->name, b->dir);
			}
			continue;
		}
		p->b[p->n++] = *b;
	}
	if (!p->n) {
		free(p);
		if (want[0] && n)
			return eq_fail(err, "no battery called %s ('eqprof sources' lists them)", want);
		return eq_fail(err, "%s", why[0] ? why : "no battery with a gauge that can be read");
	}
	return energy_source_start(src, p, p->n, battery_start, err);
}

static int battery_read_one(struct energy_source *src, size_t i, double *raw, struct eq_error *err)
{
	struct battery_priv *p = src->priv;

	return read_battery(&p->b[i], raw, err);
}

static int battery_read(struct energy_source *src, double *raw, struct eq_error *err)
{
	return energy_source_read_each(src, raw, battery_read_one, err);
}

static int battery_list(const struct energy_env *env, struct energy_offers *out, char *none,
			size_t nonesize, struct eq_error *err)
{
	struct bat found[MAX_BATTERIES];
	size_t n, i, before = out->n;

	find_batteries(env, found, &n, none, nonesize);
	for (i = 0; i < n; i++) {
		struct energy_offer *o;
		struct eq_error e;
		double raw;

		if (found[i].m == M_NONE)
			continue;
		o = energy_offer_add(out, err);
		if (!o)
			return -1;
		o->driver = "battery";
		energy_fmt(o->spec, sizeof(o->spec), "battery:%s", found[i].name);
		energy_fmt(o->via, sizeof(o->via), "%s", found[i].m == M_ENERGY ? "energy_now" :
			 found[i].m == M_CHARGE ? "charge_now x voltage_now" :
			 found[i].m == M_POWER ? "power_now" : "current_now x voltage_now");
		fill_domain(&o->d, &found[i]);
		o->readable = read_battery(&found[i], &raw, &e) == 0;
		if (!o->readable)
			energy_fmt(o->why, sizeof(o->why), "%s", e.msg);
	}
	if (n && out->n == before)
		energy_fmt(none, nonesize, "the batteries in %s/class/power_supply have no gauge values",
			 env->sysfs);
	return 0;
}

const struct energy_driver energy_battery = {
	.name = "battery",
	.what = "a battery's fuel gauge (/sys/class/power_supply)",
	.open = battery_open,
	.read = battery_read,
	.close = energy_source_free_priv,
	.list = battery_list,
};
