/*
 * energy.c - what the energy drivers share (sysfs reading, offers) and the
 * meter that reads a source over time; see energy.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "energy.h"
#include "util/grow.h"

/* The board is weak: eqprof-record (host/record/module.mk), built for a
 * target without libftdi, leaves host/energy/board.c out, and the list ends
 * at hwmon there (a board is logged on the workstation: eqprof board log,
 * then eqprof merge). */
#pragma weak energy_board
const struct energy_driver *const energy_drivers[] = {
	&energy_rapl, &energy_battery, &energy_hwmon, &energy_board, NULL,
};

void energy_env_init(struct energy_env *env, const char *sysfs)
{
	const char *e = getenv("EQPROF_SYSFS");

	env->sysfs = sysfs && *sysfs ? sysfs : e && *e ? e : "/sys";
}

double energy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void energy_nap(double s, const volatile sig_atomic_t *stop)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !(stop && *stop))
		;
}

int energy_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

const char *energy_path(char *buf, size_t size, const struct energy_env *env, const char *rel)
{
	energy_fmt(buf, size, "%s/%s", env->sysfs, rel);
	return buf;
}

int energy_read_text(const char *path, char *buf, size_t size, struct eq_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0) {
		e = errno;
		if (e == EACCES || e == EPERM)
			return eq_fail(err, "%s: permission denied (readable by root only; "
				       "docs/energy-sources.md says how to allow a user)", path);
		return eq_fail(err, "%s: %s", path, strerror(e));
	}
	n = read(fd, buf, size - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return eq_fail(err, "%s: %s", path, strerror(e));
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int energy_read_ll(const char *path, long long *v, struct eq_error *err)
{
	char buf[64], *end;

	if (energy_read_text(path, buf, sizeof(buf), err) < 0)
		return -1;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	if (end == buf || *end || errno)
		return eq_fail(err, "%s: '%s' is not an integer", path, buf);
	return 0;
}

int energy_read_ll_opt(const char *path, long long *v, int *present, struct eq_error *err)
{
	*present = access(path, F_OK) == 0;
	if (!*present)
		return 0;
	return energy_read_ll(path, v, err);
}

int energy_readable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

enum energy_probe energy_probe_value(const char *path, char *why, size_t size)
{
	char buf[64], *end;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	ssize_t n;

	why[0] = '\0';
	if (fd < 0) {
		e = errno;
		if (e == ENOENT) {
			energy_fmt(why, size, "%s is missing", path);
			return ENERGY_MISSING;
		}
		if (e == EACCES || e == EPERM) {
			energy_fmt(why, size, "%s: permission denied", path);
			return ENERGY_DENIED;
		}
		energy_fmt(why, size, "%s: %s", path, strerror(e));
		return ENERGY_IOERR;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (n < 0) {
		energy_fmt(why, size, "%s: %s", path, strerror(e));
		return ENERGY_IOERR;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	errno = 0;
	(void)strtoll(buf, &end, 10);
	if (end == buf || *end || errno) {
		energy_fmt(why, size, "%s holds '%.24s'%s, not a number", path, buf,
			   n > 24 ? "..." : "");
		return ENERGY_GARBAGE;
	}
	return ENERGY_READABLE;
}

void energy_warn_left_out(struct energy_source *src, const char *domain, const char *why)
{
	size_t len = strlen(src->warning);

	if (len + 8 >= sizeof(src->warning))
		return;
	energy_fmt(src->warning + len, sizeof(src->warning) - len, "%s%s left out (%s)",
		   len ? "; " : "", domain, why);
}

struct energy_offer *energy_offer_add(struct energy_offers *o, struct eq_error *err)
{
	if (EQ_GROW(o->v, o->cap, o->n + 1, 16) < 0) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	memset(&o->v[o->n], 0, sizeof(o->v[0]));
	return &o->v[o->n++];
}

void energy_offers_free(struct energy_offers *o)
{
	free(o->v);
	memset(o, 0, sizeof(*o));
}

int energy_source_domains(struct energy_source *src, size_t n, struct eq_error *err)
{
	src->domains = calloc(n ? n : 1, sizeof(*src->domains));
	if (!src->domains)
		return eq_fail(err, "out of memory");
	src->ndomains = n;
	return 0;
}

int energy_source_start(struct energy_source *src, void *priv, size_t n,
			int (*start)(struct energy_source *src, size_t i, struct eq_error *err),
			struct eq_error *err)
{
	size_t i;

	if (energy_source_domains(src, n, err) < 0) {
		free(priv);
		return -1;
	}
	src->priv = priv;
	for (i = 0; i < n; i++)
		if (start(src, i, err) < 0) {
			energy_source_free_priv(src);
			return -1;
		}
	return 0;
}

int energy_source_read_each(struct energy_source *src, double *raw,
			    int (*read)(struct energy_source *src, size_t i, double *raw,
					struct eq_error *err),
			    struct eq_error *err)
{
	size_t i;

	for (i = 0; i < src->ndomains; i++)
		if (read(src, i, &raw[i], err) < 0)
			return -1;
	return 0;
}

void energy_source_free_priv(struct energy_source *src)
{
	free(src->priv);
	src->priv = NULL;
}

/* ---- the meter ------------------------------------------------------------ */

static void meter_free(struct energy_meter *m)
{
	size_t i;

	if (!m)
		return;
	if (m->series)
		for (i = 0; i < m->src.ndomains; i++)
			es_series_free(&m->series[i]);
	free(m->series);
	free(m->tracks);
	free(m->raw);
	free(m->src.domains);
	free(m);
}

static struct energy_meter *meter_open(const struct energy_driver *drv, const char *sel,
				       const char *spec, const struct energy_env *env,
				       struct eq_error *err)
{
	struct energy_meter *m = calloc(1, sizeof(*m));
	size_t i, n;

	if (!m) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	m->src.drv = drv;
	energy_fmt(m->src.spec, sizeof(m->src.spec), "%s", spec);
	if (drv->open(&m->src, sel, env, err) < 0) {
		free(m->src.domains);
		free(m);
		return NULL;
	}
	n = m->src.ndomains;
	m->tracks = calloc(n, sizeof(*m->tracks));
	m->series = calloc(n, sizeof(*m->series));
	m->raw = calloc(n, sizeof(*m->raw));
	if (!m->tracks || !m->series || !m->raw) {
		drv->close(&m->src);
		meter_free(m);
		eq_fail(err, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		es_track_init(&m->tracks[i], &m->src.domains[i]);
		m->series[i].type = m->src.domains[i].type;
		m->series[i].update_s = m->src.domains[i].update_s;
	}
	return m;
}

struct energy_meter *energy_meter_open(const char *spec, const struct energy_env *env,
				       struct eq_error *err)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	char names[128] = "";
	int i;

	for (i = 0; energy_drivers[i]; i++)
		if (strlen(energy_drivers[i]->name) == len &&
		    !strncmp(energy_drivers[i]->name, spec, len))
			return meter_open(energy_drivers[i], colon && colon[1] ? colon + 1 : NULL,
					  spec, env, err);
	for (i = 0; energy_drivers[i]; i++)
		energy_fmt(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", energy_drivers[i]->name);
	eq_fail(err, "--energy %s: no such energy source (there are %s; "
		"'eqprof sources' lists this machine's)", spec, names);
	return NULL;
}

struct energy_meter *energy_meter_open_auto(const struct energy_env *env, struct eq_error *err)
{
	char why[3][400];
	struct eq_error e;
	int i;

	for (i = 0; i < 3; i++) {
		struct energy_meter *m = meter_open(energy_drivers[i], NULL, energy_drivers[i]->name,
						    env, &e);

		if (m)
			return m;
		energy_fmt(why[i], sizeof(why[i]), "%s", e.msg);
	}
	eq_fail(err, "no energy source can be read on this machine (%s; %s; %s). "
		"'eqprof sources' lists what there is; a board is used with --energy board",
		why[0], why[1], why[2]);
	return NULL;
}

int energy_meter_read(struct energy_meter *m, double *t, struct eq_error *err)
{
	double t0 = energy_now(), t1;
	size_t i;
	int changed;

	if (m->src.drv->read(&m->src, m->raw, err) < 0)
		return -1;
	t1 = energy_now();
	/* a sysfs read takes microseconds; the middle is the reading's time */
	*t = (t0 + t1) / 2;
	if (*t <= m->last_t)
		*t = m->last_t + 1e-9;
	m->last_t = *t;
	for (i = 0; i < m->src.ndomains; i++) {
		if (es_track_add(&m->tracks[i], *t, m->raw[i], &changed, err) < 0 ||
		    es_series_add(&m->series[i], *t, m->tracks[i].energy, m->raw[i], changed, err) < 0)
			return -1;
	}
	return 0;
}

void energy_meter_settle(struct energy_meter *m)
{
	size_t i;

	for (i = 0; i < m->src.ndomains; i++) {
		double u = m->src.domains[i].update_s;

		if (!(u > 0))
			u = es_track_update_s(&m->tracks[i], NULL, 0);
		m->series[i].update_s = u;
	}
}

int energy_meter_covers(const struct energy_meter *m, size_t j, double t_end)
{
	const struct es_series *s = &m->series[j];
	size_t k;

	if (s->type == ES_POWER)
		return 1;
	for (k = s->n; k-- > 1 && s->t[k - 1] >= t_end;)
		if (s->changed[k])
			return 1;
	return 0;
}

void energy_meter_close(struct energy_meter *m)
{
	if (!m)
		return;
	m->src.drv->close(&m->src);
	meter_free(m);
}
