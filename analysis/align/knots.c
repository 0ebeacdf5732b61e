/*
 * knots.c - the matched edges of a merged recording; see knots.h.
 */
#include "align/knots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int eq_knots_parse(const char *text, struct eq_knots *k)
{
	size_t n = 0, cap = 0;
	const char *s = text;
	char *end;

	memset(k, 0, sizeof(*k));
	if (!text)
		return 0;
	while (*s) {
		double b, t;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		b = strtod(s, &end);
		if (end == s || *end != ':')
			goto bad;
		s = end + 1;
		t = strtod(s, &end);
		if (end == s || (*end && *end != ' ') || !isfinite(b) || !isfinite(t))
			goto bad;
		s = end;
		if (n && (b <= k->board_ns[n - 1] || t <= k->target_ns[n - 1]))
			goto bad;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 256;
			double *x = realloc(k->board_ns, nc * sizeof(double)), *y;

			if (!x)
				goto bad;
			k->board_ns = x;
			y = realloc(k->target_ns, nc * sizeof(double));
			if (!y)
				goto bad;
			k->target_ns = y;
			cap = nc;
		}
		k->board_ns[n] = b;
		k->target_ns[n] = t;
		n++;
	}
	k->n = n;
	return 0;
bad:
	eq_knots_free(k);
	return -1;
}

void eq_knots_free(struct eq_knots *k)
{
	free(k->board_ns);
	free(k->target_ns);
	memset(k, 0, sizeof(*k));
}

double eq_knots_map(const struct eq_knots *k, double b)
{
	size_t lo = 0, hi;
	double t;

	if (k->n < 2 || b < k->board_ns[0] || b > k->board_ns[k->n - 1])
		return NAN;
	hi = k->n - 1;
	while (hi - lo > 1) { /* board_ns[lo] <= b <= board_ns[hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (k->board_ns[mid] <= b)
			lo = mid;
		else
			hi = mid;
	}
	t = k->target_ns[lo] + (k->target_ns[hi] - k->target_ns[lo]) *
	    (b - k->board_ns[lo]) / (k->board_ns[hi] - k->board_ns[lo]);
	/* a + (c - a) * 1 can round past c: keep the map within its knots */
	return fmin(fmax(t, k->target_ns[lo]), k->target_ns[hi]);
}
