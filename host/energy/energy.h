/*
 * energy.h - energy sources: what measures energy on this machine, behind
 * one small interface (one driver a file, as libsigrok's drivers are):
 *
 *   board    the eqprof energy-counter board over USB (host/board/)
 *   rapl     Intel and AMD RAPL: powercap sysfs (intel-rapl:*) or perf's
 *            `power` PMU (rapl:perf); package, core, uncore/gpu, dram, psys
 *            per socket
 *   battery  a battery's fuel gauge (/sys/class/power_supply): energy_now,
 *            charge_now x voltage_now, power_now or current_now x voltage_now
 *   hwmon    power*_input, energy*_input and currN and inN pairs under
 *            /sys/class/hwmon (INA2xx, INA3221, power meters)
 *
 * A source has one or more domains (analysis/energy/eseries.h says what a
 * domain is and how its readings become energy).  Every sysfs path is taken
 * under a root, "/sys" unless --sysfs DIR or $EQPROF_SYSFS says otherwise,
 * so tests point the drivers at recorded trees of real machines.
 *
 * docs/energy-sources.md is the user's side of this.
 */
#ifndef EQ_ENERGY_H
#define EQ_ENERGY_H

#include <signal.h>
#include <stddef.h>

#include "util/eq_error.h"
#include "energy/eseries.h"

struct energy_env {
	const char *sysfs;      /* root of the sysfs tree, "/sys" by default */
};

/* Fills env from $EQPROF_SYSFS (or "/sys"); a non-NULL sysfs overrides. */
void energy_env_init(struct energy_env *env, const char *sysfs);

/* One domain this machine offers, for `eqprof sources`. */
struct energy_offer {
	const char *driver;     /* "rapl" */
	char spec[160];         /* what --energy takes to read just this one */
	char via[64];           /* "powercap", "perf power PMU", "energy_now" */
	struct es_domain d;
	int readable;
	char why[768];          /* not readable: why, and what it takes */
};

struct energy_offers {
	size_t n, cap;
	struct energy_offer *v;
};

/* An open source: its domains and the driver's state. */
struct energy_source {
	const struct energy_driver *drv;
	char spec[160];
	size_t ndomains;
	struct es_domain *domains;
	void *priv;
	char note[256];         /* something the user should know ("" = nothing) */
	/* Domains of "all" that could not be read and are missing from the
	 * results ("" = none): callers show it even with -q, since it changes
	 * what is measured. */
	char warning[768];
};

struct energy_driver {
	const char *name;
	const char *what;
	/*
	 * Opens the domains that `sel` selects (the text after "NAME:", NULL =
	 * every readable one).  Fails when none can be read, saying what was
	 * looked for where and what to do.
	 */
	int (*open)(struct energy_source *src, const char *sel, const struct energy_env *env,
		    struct eq_error *err);
	/* Reads every domain now: raw[i] in J (counter, store) or W (power). */
	int (*read)(struct energy_source *src, double *raw, struct eq_error *err);
	void (*close)(struct energy_source *src);
	/* Appends what this machine offers (readable or not); when there is
	 * nothing, *none gets why ("no /sys/class/powercap"). */
	int (*list)(const struct energy_env *env, struct energy_offers *out, char *none,
		    size_t nonesize, struct eq_error *err);
};

extern const struct energy_driver energy_rapl, energy_battery, energy_hwmon, energy_board;

/* All drivers, NULL-terminated, in the order auto-selection tries them. */
extern const struct energy_driver *const energy_drivers[];

/* ---- what drivers share ----------------------------------------------- */

/* snprintf that truncates quietly: sysfs paths and messages are shortened,
 * never overrun (a function, so gcc's format-truncation guesses stay out). */
int energy_fmt(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* root + "/" + rel into buf. */
const char *energy_path(char *buf, size_t size, const struct energy_env *env, const char *rel);
/* Reads a small sysfs file (trailing newline removed).  Fails naming the
 * file and, for EACCES, saying that the file is readable only by root. */
int energy_read_text(const char *path, char *buf, size_t size, struct eq_error *err);
/* Reads a file holding one integer (sysfs attributes: "123456\n"). */
int energy_read_ll(const char *path, long long *v, struct eq_error *err);
/* Like energy_read_ll but 0 when the file is missing, -1 on other errors. */
int energy_read_ll_opt(const char *path, long long *v, int *present, struct eq_error *err);
/* 1 when the file can be read by this process. */
int energy_readable(const char *path);
/* Whether a file holding one integer (a counter) can be read, and if not
 * the real reason in why ("PATH is missing", "PATH: permission denied",
 * "PATH holds 'x', not a number", or the error). */
enum energy_probe { ENERGY_READABLE, ENERGY_MISSING, ENERGY_DENIED, ENERGY_GARBAGE, ENERGY_IOERR };
enum energy_probe energy_probe_value(const char *path, char *why, size_t size);
/* Appends "DOMAIN left out (WHY)" to src->warning. */
void energy_warn_left_out(struct energy_source *src, const char *domain, const char *why);
/* Appends an offer; NULL when out of memory. */
struct energy_offer *energy_offer_add(struct energy_offers *o, struct eq_error *err);
void energy_offers_free(struct energy_offers *o);
/* Allocates n domains for src (zeroed). */
int energy_source_domains(struct energy_source *src, size_t n, struct eq_error *err);
/*
 * The end of a driver's open: src gets n domains and keeps priv, and
 * start(src, i) fills domain i and reads it once, so that a source that
 * cannot be read is refused before anything runs. On a failure priv is
 * freed and src keeps none.
 */
int energy_source_start(struct energy_source *src, void *priv, size_t n,
			int (*start)(struct energy_source *src, size_t i, struct eq_error *err),
			struct eq_error *err);
/* A driver's read: read(src, i, &raw[i]) for every domain i. */
int energy_source_read_each(struct energy_source *src, double *raw,
			    int (*read)(struct energy_source *src, size_t i, double *raw,
					struct eq_error *err),
			    struct eq_error *err);
/* The close of a driver whose priv is one allocation. */
void energy_source_free_priv(struct energy_source *src);

/* ---- a source being read: the meter ------------------------------------ */

struct energy_meter {
	struct energy_source src;
	struct es_track *tracks;
	struct es_series *series;
	double *raw;
	double last_t;
};

/* Opens "NAME[:SELECT]" ("rapl", "rapl:perf", "battery:BAT0", "hwmon:ina3221",
 * "board:tty:/dev/ttyUSB0"). */
struct energy_meter *energy_meter_open(const char *spec, const struct energy_env *env,
				       struct eq_error *err);
/*
 * The first source that can be read, trying rapl, battery and hwmon (never
 * the board, which must be asked for); fails, saying what each lacked, when
 * there is none.
 */
struct energy_meter *energy_meter_open_auto(const struct energy_env *env, struct eq_error *err);
/* Reads every domain now (CLOCK_MONOTONIC, seconds in *t). */
int energy_meter_read(struct energy_meter *m, double *t, struct eq_error *err);
/* Sets each series' update period for bounds: the nominal one, else the
 * detected one. */
void energy_meter_settle(struct energy_meter *m);
/*
 * 1 when domain j's value covers t_end, the rule stat and record wait by
 * before they stop reading: a counter or store changed at a reading whose
 * previous one was already at or after t_end; a power sensor always (its
 * readings are averages over the past, not a running total).
 */
int energy_meter_covers(const struct energy_meter *m, size_t j, double t_end);
void energy_meter_close(struct energy_meter *m);

/* CLOCK_MONOTONIC in seconds. */
double energy_now(void);
/* Sleeps s seconds between readings, on through signals unless one set
 * *stop (stop may be NULL). */
void energy_nap(double s, const volatile sig_atomic_t *stop);

#endif
