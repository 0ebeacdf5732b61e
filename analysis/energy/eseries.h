/*
 * eseries.h - readings of an energy source turned into energy over time.
 *
 * An energy source (host/energy/: RAPL, a battery gauge, an hwmon sensor,
 * the board) offers one or more domains ("package-0", "dram-0", "BAT0",
 * "ina3221:VDD_CPU").  Each domain is read the way its hardware counts:
 *
 *   ES_COUNTER  a cumulative energy counter in J that may wrap around after
 *               `range` J (RAPL's energy_uj wraps at max_energy_range_uj;
 *               hwmon energy*_input and perf's counts do not);
 *   ES_STORE    energy left in a store, in J: the domain consumed what the
 *               store lost (a battery's energy_now, or charge x voltage);
 *   ES_POWER    power in W averaged by the sensor over its update period,
 *               integrated here over time (hwmon power*_input, curr*in).
 *
 * A track turns the successive raw readings of one domain into cumulative
 * energy since its first reading, refusing what cannot be energy (a counter
 * that goes backwards by more than a wrap explains, a battery that charges,
 * negative power), and notes when the value changed: a source updates its
 * value every `update_s` (RAPL about every 1 ms; a battery gauge every few
 * seconds to a minute), however often it is read.
 *
 * A series keeps every reading of a domain.  es_energy_at() answers "how
 * much energy had been used at time t", with bounds that follow from the
 * update granularity: between two updates the energy is known only to lie
 * between the two values (docs/energy-sources.md, "Granularity").
 */
#ifndef EQ_ESERIES_H
#define EQ_ESERIES_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"

enum es_type {
	ES_COUNTER = 1,
	ES_STORE = 2,
	ES_POWER = 3,
};

const char *es_type_name(enum es_type t);

/* What a domain is; filled by the source's driver, stored in recordings. */
struct es_domain {
	char name[64];        /* "package-0", "core-0", "BAT0", "ina3221:VDD_CPU" */
	char kind[16];        /* package, core, uncore, gpu, dram, psys, battery,
				 rail, board */
	char path[256];       /* the file (or device) it is read from */
	enum es_type type;
	double range;         /* ES_COUNTER: wraps to 0 after this many J; 0 = never */
	double resolution;    /* smallest step: J (COUNTER, STORE) or W (POWER) */
	double update_s;      /* nominal update period in s; 0 = unknown */
	char update_how[48];  /* where update_s comes from ("Intel SDM: ~1 ms",
				 "update_interval", "" = unknown) */
};

/* Cumulative energy of one domain from its raw readings. */
struct es_track {
	const struct es_domain *d;
	int have;             /* a first reading was taken */
	double t_prev;        /* s, time of the previous reading */
	double raw_prev;      /* previous raw value (J or W) */
	double energy;        /* J used since the first reading */
	uint64_t readings, changes, wraps;
	double t_first;
	double min_step;      /* smallest change seen (J, or W for power); 0 = none */
	/* spacing of the last changes, for the update period */
	double t_change;      /* time of the last change */
	double spacing[64];
	unsigned nspacing, spacing_pos;
};

void es_track_init(struct es_track *k, const struct es_domain *d);
/*
 * Adds the reading `raw` (J for COUNTER and STORE, W for POWER) taken at
 * time t (s, monotonic).  *changed gets 1 when the value differs from the
 * previous reading (always 1 for the first).  Fails, naming the domain and
 * its file, when the reading cannot be energy.
 */
int es_track_add(struct es_track *k, double t, double raw, int *changed,
		 struct eq_error *err);
/*
 * Update period as measured: when the value changed at fewer than half of
 * the readings, the median spacing of the changes seen (at least 2), else 0
 * (it changes at least as often as it is read).  *how gets a phrase for
 * people ("detected from 12 changes", "at least every read (10.0 ms)").
 */
double es_track_update_s(const struct es_track *k, char *how, size_t howsize);

/* Every reading of one domain: time, cumulative energy, raw value, change. */
struct es_series {
	size_t n, cap;
	double *t;            /* s */
	double *e;            /* J since the first reading */
	double *raw;          /* the value read (J or W) */
	uint8_t *changed;
	enum es_type type;
	double update_s;      /* the period used for bounds: nominal, else detected, else 0 */
};

int es_series_add(struct es_series *s, double t, double e, double raw, int changed,
		  struct eq_error *err);
void es_series_free(struct es_series *s);

/* Energy used by time t, with bounds from the update granularity. */
struct es_point {
	double e;             /* best estimate, J */
	double lo, hi;        /* the energy lies in [lo, hi]; hi is +inf when the
				 source had not updated again after t */
};

/*
 * The energy a series had used at time t (between its first and last
 * reading).  Counters and stores: a value read at time x was reached at
 * some update in (x - U, x]; between two changes the energy lies between
 * the two values, and the estimate interpolates between the update
 * instants (constant power between updates).  Power: a value shown is
 * the sensor's average over the update period U before it was shown, so
 * the integral of the values shown lags the energy by 0 to 2U: the energy
 * at t is that integral at t + U, within its values at t and t + 2U
 * (readings must go on that long after t; past the last one the last
 * value is held).
 */
int es_energy_at(const struct es_series *s, double t, struct es_point *p,
		 struct eq_error *err);

/* Energy used in [t0, t1]: e = e(t1) - e(t0), lo/hi from the bounds. */
int es_energy_between(const struct es_series *s, double t0, double t1,
		      struct es_point *p, struct eq_error *err);

/* ---- several runs ------------------------------------------------------ */

/* Welford's single-pass mean and variance (PowerKap, seed 004 sec. 3.2.7). */
struct es_welford {
	uint64_t n;
	double mean, m2;
};

void es_welford_add(struct es_welford *w, double x);
/* Sample standard deviation (n - 1); NaN below 2 values. */
double es_welford_sd(const struct es_welford *w);
/* Half-width of the 95% interval of the mean: t(n-1) sd / sqrt(n); NaN
 * below 2 values. */
double es_welford_ci95(const struct es_welford *w);

#endif
