/*
 * hwmon.c - power sensors under /sys/class/hwmon (Documentation/hwmon/
 * sysfs-interface.rst): development boards' INA2xx and INA3221 monitors,
 * servers' power meters, some CPUs' energy counters.  Per chip, every
 * channel that measures power becomes a domain named CHIP:LABEL (the
 * channel's *_label, else power1, curr2...):
 *
 *   energyN_input  energy in uJ, cumulative (a counter; no wrap-around)
 *   powerN_input   power in uW (powerN_average when there is no input),
 *                  averaged by the chip and integrated here
 *   currN_input    current in mA times the bus voltage inN_input in mV of
 *   + inN_input    the same channel (INA3221: channels 1-3; its in4-in6 are
 *                  shunt voltages and curr4 their sum, so they are skipped)
 *
 * The chip's update_interval (ms) is the update period; the meter reads it
 * at least that often.  "hwmon:ina3221" picks a chip (its name or hwmonN),
 * "hwmon:ina3221:VDD_CPU" one channel.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "energy.h"

#define MAX_CHANNELS 64

enum chan_kind { C_ENERGY, C_POWER, C_PAIR };

struct chan {
	char name[64];          /* domain name */
	char chip[32], hw[16], label[32];
	char file[560];         /* energyN_input, powerN_input or currN_input */
	char vfile[560];        /* C_PAIR: inN_input */
	enum chan_kind k;
	double update_s;
	int readable;
	char why[640];          /* not readable: the real reason, with what to do */
};

struct hwmon_priv {
	size_t n;
	struct chan c[MAX_CHANNELS];
};

/* 1 when a sensor file reads as a number; else 0 and why, with what to do. */
static int chan_probe(const char *path, char *why, size_t size)
{
	char what[580];

	switch (energy_probe_value(path, what, sizeof(what))) {
	case ENERGY_READABLE:
		why[0] = '\0';
		return 1;
	case ENERGY_DENIED:
		energy_fmt(why, size, "%s: run as root or let a group read it", what);
		break;
	case ENERGY_GARBAGE:
		energy_fmt(why, size, "%s: the sensor's driver gives no reading", what);
		break;
	default:
		energy_fmt(why, size, "%s", what);
		break;
	}
	return 0;
}

static int exists(const char *dir, const char *fmt, int i, char *out, size_t size)
{
	char file[64];

	energy_fmt(file, sizeof(file), fmt, i);
	energy_fmt(out, size, "%s/%s", dir, file);
	return access(out, F_OK) == 0;
}

static void label_of(const char *dir, const char *prefix, int i, char *out, size_t size)
{
	char path[600], file[64];
	struct eq_error e;

	energy_fmt(file, sizeof(file), "%s%d_label", prefix, i);
	energy_fmt(path, sizeof(path), "%s/%s", dir, file);
	if (energy_read_text(path, out, size, &e) < 0 || !out[0])
		energy_fmt(out, size, "%s%d", prefix, i);
}

/* A channel the chip disabled (inN_enable = 0) measures nothing. */
static int enabled(const char *dir, int i)
{
	char path[600];
	long long v;
	int present;
	struct eq_error e;

	energy_fmt(path, sizeof(path), "%s/in%d_enable", dir, i);
	if (energy_read_ll_opt(path, &v, &present, &e) < 0)
		return 1;
	return !present || v != 0;
}

static int add_chan(struct chan *c, size_t *n, const char *chip, const char *hw,
		    const char *label, enum chan_kind k, const char *file, const char *vfile,
		    double update_s)
{
	struct chan *x;

	if (*n >= MAX_CHANNELS)
		return 0;
	x = &c[(*n)++];
	memset(x, 0, sizeof(*x));
	energy_fmt(x->chip, sizeof(x->chip), "%s", chip);
	energy_fmt(x->hw, sizeof(x->hw), "%s", hw);
	energy_fmt(x->label, sizeof(x->label), "%s", label);
	energy_fmt(x->file, sizeof(x->file), "%s", file);
	if (vfile)
		energy_fmt(x->vfile, sizeof(x->vfile), "%s", vfile);
	x->k = k;
	x->update_s = update_s;
	x->readable = chan_probe(file, x->why, sizeof(x->why)) && (!vfile || chan_probe(vfile, x->why, sizeof(x->why)));
	return 1;
}

static void scan_chip(const char *dir, const char *hw, struct chan *c, size_t *n)
{
	char chip[32], path[600], label[32], f[560], vf[560];
	long long ms;
	int present, i, ina3221;
	double update_s = 0;
	struct eq_error e;

	energy_fmt(path, sizeof(path), "%s/name", dir);
	if (energy_read_text(path, chip, sizeof(chip), &e) < 0)
		energy_fmt(chip, sizeof(chip), "%s", hw);
	ina3221 = !strcmp(chip, "ina3221");
	energy_fmt(path, sizeof(path), "%s/update_interval", dir);
	if (energy_read_ll_opt(path, &ms, &present, &e) == 0 && present && ms > 0)
		update_s = ms * 1e-3;
	for (i = 0; i < 32; i++) {
		if (exists(dir, "energy%d_input", i, f, sizeof(f))) {
			label_of(dir, "energy", i, label, sizeof(label));
			add_chan(c, n, chip, hw, label, C_ENERGY, f, NULL, update_s);
		}
		if (exists(dir, "power%d_input", i, f, sizeof(f)) ||
		    exists(dir, "power%d_average", i, f, sizeof(f))) {
			double u = update_s;

			energy_fmt(path, sizeof(path), "%s/power%d_average_interval", dir, i);
			if (strstr(f, "_average") &&
			    energy_read_ll_opt(path, &ms, &present, &e) == 0 && present && ms > 0)
				u = ms * 1e-3;
			label_of(dir, "power", i, label, sizeof(label));
			add_chan(c, n, chip, hw, label, C_POWER, f, NULL, u);
			continue;
		}
		if (ina3221 && i > 3)
			continue;
		if (exists(dir, "curr%d_input", i, f, sizeof(f)) &&
		    exists(dir, "in%d_input", i, vf, sizeof(vf)) && enabled(dir, i)) {
			label_of(dir, "in", i, label, sizeof(label));
			if (!strncmp(label, "in", 2) && label[2] >= '0' && label[2] <= '9')
				label_of(dir, "curr", i, label, sizeof(label));
			add_chan(c, n, chip, hw, label, C_PAIR, f, vf, update_s);
		}
	}
}

static int hw_cmp(const void *a, const void *b)
{
	const char *x = a, *y = b;
	int nx = atoi(x + 5), ny = atoi(y + 5);

	return (nx > ny) - (nx < ny);
}

static int find_channels(const struct energy_env *env, struct chan *c, size_t *n, char *why,
			 size_t whysize)
{
	char dir[512], sub[600], hws[64][16];
	struct dirent *de;
	size_t nhw = 0, i, j;
	DIR *d;

	*n = 0;
	energy_path(dir, sizeof(dir), env, "class/hwmon");
	d = opendir(dir);
	if (!d) {
		energy_fmt(why, whysize, "no hwmon sensors: %s: %s", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d)) && nhw < 64)
		if (!strncmp(de->d_name, "hwmon", 5))
			energy_fmt(hws[nhw++], sizeof(hws[0]), "%s", de->d_name);
	closedir(d);
	qsort(hws, nhw, sizeof(hws[0]), hw_cmp);
	for (i = 0; i < nhw; i++) {
		energy_fmt(sub, sizeof(sub), "%s/%s", dir, hws[i]);
		scan_chip(sub, hws[i], c, n);
	}
	/* CHIP:LABEL, or hwmonN:CHIP:LABEL when two chips share a name */
	for (i = 0; i < *n; i++) {
		int dup = 0;

		for (j = 0; j < *n; j++)
			dup |= j != i && !strcmp(c[j].chip, c[i].chip) && strcmp(c[j].hw, c[i].hw);
		if (dup)
			energy_fmt(c[i].name, sizeof(c[i].name), "%s:%s:%s", c[i].hw, c[i].chip,
				 c[i].label);
		else
			energy_fmt(c[i].name, sizeof(c[i].name), "%s:%s", c[i].chip, c[i].label);
	}
	if (!*n)
		energy_fmt(why, whysize, "no hwmon sensor in %s measures power or energy "
			 "(power*_input, energy*_input, curr*_input with in*_input)", dir);
	return 0;
}

static void fill_domain(struct es_domain *d, const struct chan *c)
{
	memset(d, 0, sizeof(*d));
	energy_fmt(d->name, sizeof(d->name), "%s", c->name);
	energy_fmt(d->kind, sizeof(d->kind), "rail");
	energy_fmt(d->path, sizeof(d->path), "%s", c->file);
	d->type = c->k == C_ENERGY ? ES_COUNTER : ES_POWER;
	/* sysfs units: 1 uJ, 1 uW, 1 mA (times the bus voltage: set when read) */
	d->resolution = c->k == C_ENERGY ? 1e-6 : c->k == C_POWER ? 1e-6 : 1e-3;
	d->update_s = c->update_s;
	if (c->update_s > 0)
		energy_fmt(d->update_how, sizeof(d->update_how), "%s",
			 strstr(c->file, "_average") ? "power*_average_interval" : "update_interval");
}

static int selected(const char *sel, const struct chan *c)
{
	char chip[64];
	const char *colon;

	if (!sel)
		return 1;
	colon = strchr(sel, ':');
	energy_fmt(chip, sizeof(chip), "%.*s", colon ? (int)(colon - sel) : (int)strlen(sel), sel);
	if (strcmp(chip, c->chip) && strcmp(chip, c->hw))
		return 0;
	return !colon || !strcmp(colon + 1, c->label);
}

static int read_chan(const struct chan *c, double *raw, struct eq_error *err)
{
	long long v, mv;

	if (energy_read_ll(c->file, &v, err) < 0)
		return -1;
	switch (c->k) {
	case C_ENERGY:
		*raw = (double)v * 1e-6;
		break;
	case C_POWER:
		*raw = (double)v * 1e-6;
		break;
	case C_PAIR:
		if (energy_read_ll(c->vfile, &mv, err) < 0)
			return -1;
		*raw = (double)v * 1e-3 * (double)mv * 1e-3;
		break;
	}
	return 0;
}

/* A channel's domain and a first reading (a pair's resolution from its
 * voltage). */
static int hwmon_start(struct energy_source *src, size_t i, struct eq_error *err)
{
	struct hwmon_priv *p = src->priv;
	double raw;
	long long mv;

	fill_domain(&src->domains[i], &p->c[i]);
	if (read_chan(&p->c[i], &raw, err) < 0)
		return -1;
	if (p->c[i].k == C_PAIR && energy_read_ll(p->c[i].vfile, &mv, err) == 0)
		src->domains[i].resolution = 1e-3 * mv * 1e-3;
	return 0;
}

static int hwmon_open(struct energy_source *src, const char *sel, const struct energy_env *env,
		      struct eq_error *err)
{
	struct hwmon_priv *p = calloc(1, sizeof(*p));
	struct chan c[MAX_CHANNELS];
	char why[512] = "";
	size_t n, i, matched = 0, left = 0, first = 0;

	if (!p)
		return eq_fail(err, "out of memory");
	find_channels(env, c, &n, why, sizeof(why));
	for (i = 0; i < n; i++) {
		if (!selected(sel, &c[i]))
			continue;
		matched++;
		if (!c[i].readable) {
			/* a sensor asked for by name must be read */
			if (sel) {
				free(p);
				return eq_fail(err, "hwmon %s cannot be read: %s", c[i].name, c[i].why);
			}
			if (!left++)
				first = i;
			continue;
		}
		p->c[p->n++] = c[i];
	}
	if (!p->n) {
		free(p);
		if (!n)
			return eq_fail(err, "%s", why);
		if (sel && !matched)
			return eq_fail(err, "hwmon: no chip or channel '%s' ('eqprof sources' lists "
				       "them)", sel);
		return eq_fail(err, "hwmon: none of the %zu power sensors can be read; %s: %s%s",
			       matched, c[first].name, c[first].why,
			       matched > 1 ? " ('eqprof sources' says why for each)" : "");
	}
	/* left out of "every sensor": the results lack it */
	for (i = 0; left && i < n; i++)
		if (selected(sel, &c[i]) && !c[i].readable)
			energy_warn_left_out(src, c[i].name, c[i].why);
	return energy_source_start(src, p, p->n, hwmon_start, err);
}

static int hwmon_read_one(struct energy_source *src, size_t i, double *raw, struct eq_error *err)
{
	struct hwmon_priv *p = src->priv;

	return read_chan(&p->c[i], raw, err);
}

static int hwmon_read(struct energy_source *src, double *raw, struct eq_error *err)
{
	return energy_source_read_each(src, raw, hwmon_read_one, err);
}

static int hwmon_list(const struct energy_env *env, struct energy_offers *out, char *none,
		      size_t nonesize, struct eq_error *err)
{
	struct chan c[MAX_CHANNELS];
	size_t n, i;

	find_channels(env, c, &n, none, nonesize);
	for (i = 0; i < n; i++) {
		struct energy_offer *o = energy_offer_add(out, err);

		if (!o)
			return -1;
		o->driver = "hwmon";
		energy_fmt(o->spec, sizeof(o->spec), "hwmon:%s:%s", c[i].chip, c[i].label);
		energy_fmt(o->via, sizeof(o->via), "%s", c[i].k == C_ENERGY ? "energy*_input" :
			 c[i].k == C_POWER ? "power*_input" : "curr*_input x in*_input");
		fill_domain(&o->d, &c[i]);
		o->readable = c[i].readable;
		if (!o->readable)
			energy_fmt(o->why, sizeof(o->why), "%s", c[i].why);
	}
	return 0;
}

const struct energy_driver energy_hwmon = {
	.name = "hwmon",
	.what = "power and energy sensors under /sys/class/hwmon (INA2xx, INA3221, meters)",
	.open = hwmon_open,
	.read = hwmon_read,
	.close = energy_source_free_priv,
	.list = hwmon_list,
};
