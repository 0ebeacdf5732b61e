/*
 * scenario_util.c - the scenario parser's values (quantities, fractions,
 * numbers, names, per-frequency powers) and lookups.
 */
#include "scenario_parse.h"
#include "sim_internal.h"
#include "defaults.h"
#include "util/units.h"
#include "util/grow.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scn_perr(struct parser *ps, const char *fmt, ...)
{
	char msg[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return eq_fail(ps->err, "%s:%u: %s", ps->file, ps->line, msg);
}

/* Grows *arr (element size sz) so that index n fits; new elements zeroed. */
int scn_grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t old = *cap;

	if (eq_grow(arr, cap, n + 1, sz, 8) < 0)
		return -1;
	memset((char *)*arr + old * sz, 0, (*cap - old) * sz);
	return 0;
}

int scn_quantity(struct parser *ps, const char *w, const char *unit,
		    const char *what, double *out)
{
	struct eq_error e;

	if (eq_parse_quantity(w, unit, what, out, &e) < 0)
		return scn_perr(ps, "%s", e.msg);
	/* Powers, times, frequencies, voltages and weights: none is negative
	 * (a base_power of -5W made the whole device's power negative). */
	if (*out < 0)
		return scn_perr(ps, "%s: '%s' is negative; give a value of 0 or more", what, w);
	return 0;
}

/* A quantity that must be more than 0 (a duration, a rate, a weight): one
 * message for a negative value and for 0, which says what is allowed. */
int scn_quantity_pos(struct parser *ps, const char *w, const char *unit,
		     const char *what, double *out)
{
	struct eq_error e;

	if (eq_parse_quantity(w, unit, what, out, &e) < 0)
		return scn_perr(ps, "%s", e.msg);
	if (!(*out > 0))
		return scn_perr(ps, "%s: '%s' must be more than 0", what, w);
	return 0;
}

/* "45%" or "0.45" -> 0.45 */
int scn_fraction(struct parser *ps, const char *w, const char *what, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(w, &end);
	if (end == w || errno)
		return scn_perr(ps, "%s: '%s' is not a number; write e.g. 45%% or 0.45", what, w);
	if (*end == '%') {
		v /= 100.0;
		end++;
	}
	if (*end || v < 0 || v > 1)
		return scn_perr(ps, "%s: '%s' must be a fraction from 0 to 1 or a percentage", what, w);
	*out = v;
	return 0;
}

int scn_u64_word(struct parser *ps, const char *w, const char *what, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(w, &end, 0);
	if (end == w || *end || errno || w[0] == '-')
		return scn_perr(ps, "%s: '%s' is not a whole number (decimal or 0x hex)", what, w);
	return 0;
}

int scn_copy_name(struct parser *ps, char *dst, const char *src, const char *what)
{
	if (strlen(src) >= SIM_NAME_MAX)
		return scn_perr(ps, "%s '%.40s...' is longer than %d characters", what, src,
			    SIM_NAME_MAX - 1);
	strcpy(dst, src);
	return 0;
}

/* ---- lookups ----------------------------------------------------------- */

size_t scn_find_module(const struct sim_scenario *sc, const char *path)
{
	size_t i;

	for (i = 0; i < sc->nmodules; i++)
		if (!strcmp(sc->modules[i].path, path))
			return i;
	return SIZE_MAX;
}

size_t scn_find_consumer(const struct sim_scenario *sc, const char *name)
{
	size_t i;

	for (i = 0; i < sc->nconsumers; i++)
		if (!strcmp(sc->consumers[i].name, name))
			return i;
	return SIZE_MAX;
}

size_t scn_find_freq(const struct sim_scenario *sc, double hz)
{
	size_t i;

	for (i = 0; i < sc->nfreqs; i++)
		if (fabs(sc->freqs[i].hz - hz) <= 1e-6 * hz)
			return i;
	return SIZE_MAX;
}


void scn_implicit_freq(struct sim_scenario *sc)
{
	if (sc->nfreqs == 0) {
		sc->freqs[0].hz = SIM_DEF_CPU_HZ;
		sc->freqs[0].volt = 0;
		sc->nfreqs = 1;
	}
}

/* "700mW@206MHz" ... or one bare "700mW" for every state. */
int scn_power_spec(struct parser *ps, char **w, int n, double *power, const char *what)
{
	struct sim_scenario *sc = ps->sc;
	int seen[SIM_MAX_FREQS] = { 0 };
	char buf[64];
	size_t k;
	int i;

	scn_implicit_freq(sc);
	ps->freqs_locked = 1;
	if (n == 1 && !strchr(w[0], '@')) {
		double v;

		if (scn_quantity(ps, w[0], "W", what, &v) < 0)
			return -1;
		for (k = 0; k < sc->nfreqs; k++)
			power[k] = v;
		return 0;
	}
	for (i = 0; i < n; i++) {
		char *at = strchr(w[i], '@');
		double v, hz;

		if (!at || (size_t)(at - w[i]) >= sizeof(buf))
			return scn_perr(ps, "%s: '%s' should be POWER@FREQ, e.g. 700mW@206MHz", what, w[i]);
		memcpy(buf, w[i], at - w[i]);
		buf[at - w[i]] = 0;
		if (scn_quantity(ps, buf, "W", what, &v) < 0 || scn_quantity(ps, at + 1, "Hz", what, &hz) < 0)
			return -1;
		k = scn_find_freq(sc, hz);
		if (k == SIZE_MAX)
			return scn_perr(ps, "%s: frequency %s is not declared; add 'freq %s' before it",
				    what, at + 1, at + 1);
		power[k] = v;
		seen[k] = 1;
	}
	for (k = 0; k < sc->nfreqs; k++)
		if (!seen[k])
			return scn_perr(ps, "%s: no power given for the %.0f MHz state; give POWER@FREQ for every 'freq'",
				    what, sc->freqs[k].hz / 1e6);
	return 0;
}
