/*
 * units.h - SI quantities on the command line and in output.
 *
 * Users write "2.94mJ", "46uJ", "50mW", "349Hz", "1.5s", "300ns"; we parse
 * them into base units (J, W, Hz, s) and print them back with a prefix that
 * keeps three or four significant digits.
 */
#ifndef EQ_UNITS_H
#define EQ_UNITS_H

#include <stddef.h>

#include "util/eq_error.h"

/* Parses text such as "2.94mJ" or "0.00294" (bare number = base unit) into
 * *out in base units.  unit is the expected unit symbol ("J", "W", "Hz", "s",
 * "V", "A", "Ohm"); what names the option for the error message. */
int eq_parse_quantity(const char *text, const char *unit, const char *what,
		      double *out, struct eq_error *err);

/* Writes value with an SI prefix and the unit into buf ("2.94 mJ"). */
const char *eq_format_quantity(char *buf, unsigned size, double value,
			       const char *unit);

/* The same with sig (3 or 4) significant digits. */
const char *eq_format_quantity_sig(char *buf, unsigned size, double value,
				   const char *unit, int sig);

/* A battery's capacity in joules: "20Wh", "55.5kJ", "3000mAh@3.85V" (charge
 * at a nominal voltage). */
int eq_parse_capacity(const char *text, const char *what, double *joules, struct eq_error *err);

/*
 * printf("%.3f", v) into buf (EQ_FIXED3_SIZE bytes: the largest double
 * has 309 digits), byte for byte, in a fraction of its time for the
 * numbers exports write by the million: non-negative and below 2^43 / 1000
 * (about 2.4 hours in microseconds).  Returns the length.
 */
#define EQ_FIXED3_SIZE 320
size_t eq_format_fixed3(char *buf, double v);

/* Parses a whole non-negative integer; what names the option. */
int eq_parse_uint(const char *text, const char *what, unsigned long long max,
		  unsigned long long *out, struct eq_error *err);

#endif
