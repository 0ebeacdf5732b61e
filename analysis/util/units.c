/* units.c - SI quantities; see units.h. */
#include "util/fmtnum.h"
#include "util/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prefix {
	const char *sym;
	double scale;
};

/* Longest symbols first so "da" would win over "d" if we ever add it; "u" and
 * the micro sign are both accepted for 1e-6. */
static const struct prefix prefixes[] = {
	{ "\xc2\xb5", 1e-6 }, { "G", 1e9 }, { "M", 1e6 }, { "k", 1e3 },
	{ "m", 1e-3 }, { "u", 1e-6 }, { "n", 1e-9 }, { "p", 1e-12 },
	{ "", 1.0 },
};

static int match_unit(const char *rest, const char *unit, double *scale)
{
	size_t i, plen;

	if (*rest == '\0') {
		*scale = 1.0;
		return 0;
	}
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		plen = strlen(prefixes[i].sym);
		if (strncmp(rest, prefixes[i].sym, plen) == 0 &&
		    strcmp(rest + plen, unit) == 0) {
			*scale = prefixes[i].scale;
			return 0;
		}
	}
	return -1;
}

int eq_parse_quantity(const char *text, const char *unit, const char *what,
		      double *out, struct eq_error *err)
{
	char *end;
	double v, scale;

	if (!text || !*text)
		return eq_fail(err, "%s: empty value; give a number with unit %s, e.g. 2.94m%s",
			       what, unit, unit);
	errno = 0;
	v = strtod(text, &end);
	if (end == text || isnan(v))
		return eq_fail(err, "%s: '%s' is not a number; give e.g. 2.94m%s",
			       what, text, unit);
	if (errno == ERANGE || !isfinite(v))
		return eq_fail(err, "%s: '%s' is out of range (a double holds %g to %g)",
			       what, text, 2.2250738585072014e-308, 1.7976931348623157e308);
	while (*end == ' ')
		end++;
	if (match_unit(end, unit, &scale) < 0)
		return eq_fail(err, "%s: '%s' has unit '%s', expected %s with an optional SI prefix (n, u, m, k, M, G)",
			       what, text, end, unit);
	/* 1e308GJ is a finite number of a finite unit, and infinite joules. */
	if (!isfinite(v * scale))
		return eq_fail(err, "%s: '%s' is out of range (more than %g %s)", what, text,
			       1.7976931348623157e308, unit);
	*out = v * scale;
	return 0;
}

const char *eq_format_quantity(char *buf, unsigned size, double value,
			       const char *unit)
{
	return eq_format_quantity_sig(buf, size, value, unit, 4);
}

const char *eq_format_quantity_sig(char *buf, unsigned size, double value,
				   const char *unit, int sig)
{
	static const struct prefix out[] = {
		{ "G", 1e9 }, { "M", 1e6 }, { "k", 1e3 }, { "", 1.0 },
		{ "m", 1e-3 }, { "u", 1e-6 }, { "n", 1e-9 }, { "p", 1e-12 },
	};
	double a = fabs(value);
	size_t i;

	if (a == 0.0 || !isfinite(value)) {
		snprintf(buf, size, "%g %s", value, unit);
		return buf;
	}
	/* the prefix whose value does not round up to 1000 at sig digits */
	for (i = 0; i < sizeof(out) / sizeof(out[0]) - 1; i++)
		if (a >= out[i].scale * (sig <= 3 ? 0.995 : 0.9995))
			break;
	/* snprintf(buf, size, "%.*g %s%s", ...) without printf's cost (a
	 * report prints one a row): the same bytes, truncated the same way */
	{
		char num[EQ_FMTNUM_SIZE];
		size_t n = eq_fmt_g(num, value / out[i].scale, sig <= 3 ? 3 : 4);
		size_t ls = strlen(out[i].sym), lu = strlen(unit);

		if (n + 1 + ls + lu < size) {
			memcpy(buf, num, n);
			buf[n] = ' ';
			memcpy(buf + n + 1, out[i].sym, ls);
			memcpy(buf + n + 1 + ls, unit, lu + 1);
		} else {
			snprintf(buf, size, "%s %s%s", num, out[i].sym, unit);
		}
	}
	return buf;
}

int eq_parse_uint(const char *text, const char *what, unsigned long long max,
		  unsigned long long *out, struct eq_error *err)
{
	char *end;
	unsigned long long v;

	/* strtoull would take " -5" as a huge number: digits only. */
	if (!text || !isdigit((unsigned char)*text))
		return eq_fail(err, "%s: '%s' is not a whole number", what,
			       text ? text : "");
	errno = 0;
	v = strtoull(text, &end, 0);
	if (*end || errno == ERANGE)
		return eq_fail(err, "%s: '%s' is not a whole number", what, text);
	if (v > max)
		return eq_fail(err, "%s: %s is larger than the limit %llu", what, text, max);
	*out = v;
	return 0;
}

int eq_parse_capacity(const char *text, const char *what, double *joules, struct eq_error *err)
{
	char buf[64], *at;
	double v, volts;

	if (!text || strlen(text) >= sizeof(buf))
		return eq_fail(err, "%s: give a capacity such as 20Wh, 55kJ or 3000mAh@3.85V", what);
	strcpy(buf, text);
	at = strchr(buf, '@');
	if (at) {
		*at = '\0';
		if (eq_parse_quantity(buf, "Ah", what, &v, err) < 0 ||
		    eq_parse_quantity(at + 1, "V", what, &volts, err) < 0)
			return -1;
		*joules = v * 3600 * volts;
	} else if (eq_parse_quantity(buf, "Wh", what, &v, NULL) == 0) {
		*joules = v * 3600;
	} else if (eq_parse_quantity(buf, "J", what, &v, NULL) == 0) {
		*joules = v;
	} else {
		return eq_fail(err, "%s '%s': give a capacity such as 20Wh, 55kJ or 3000mAh@3.85V "
			       "(charge at the battery's nominal voltage)", what, text);
	}
	if (!(*joules > 0) || !isfinite(*joules))
		return eq_fail(err, "%s '%s': the capacity must be positive", what, text);
	return 0;
}

/*
 * v * 1000 rounded to the nearest integer is what printf prints, unless the
 * product's fraction lies within an ulp of one half: the double product and
 * the exact one differ by half an ulp at most, and below 2^43 an ulp is
 * under 0.001.  Other values (and negative ones, -0, NaN) go to printf.
 */
size_t eq_format_fixed3(char *buf, double v)
{
	char b[40], *p = b + sizeof(b);
	double m = v * 1000.0, k = floor(m), f = m - k;
	uint64_t n, q;
	size_t len;

	if (!(v >= 0) || signbit(v) || !(m < 8796093022208.0) || fabs(f - 0.5) < 0.002)
		return (size_t)snprintf(buf, EQ_FIXED3_SIZE, "%.3f", v);
	n = (uint64_t)k + (f > 0.5);
	*--p = (char)('0' + n % 10);
	*--p = (char)('0' + n / 10 % 10);
	*--p = (char)('0' + n / 100 % 10);
	*--p = '.';
	q = n / 1000;
	do
		*--p = (char)('0' + q % 10);
	while ((q /= 10));
	len = (size_t)(b + sizeof(b) - p);
	memcpy(buf, p, len);
	buf[len] = '\0';
	return len;
}
