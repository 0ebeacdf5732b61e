/*
 * stats.c - Wilson score interval and two-proportion z test.
 */
#include <math.h>

#include "stats.h"

void eq_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	double p, z2n, denom, centre, half;

	if (n == 0 || k > n) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	p = (double)k / (double)n;
	z2n = z * z / (double)n;
	denom = 1.0 + z2n;
	centre = (p + z2n / 2.0) / denom;
	half = z * sqrt(p * (1.0 - p) / (double)n + z2n / (4.0 * (double)n)) / denom;
	*lo = centre - half;
	*hi = centre + half;
	/* Exact bounds at the edges (rounding could leave 1e-17 outside). */
	if (k == 0 || *lo < 0.0)
		*lo = 0.0;
	if (k == n || *hi > 1.0)
		*hi = 1.0;
}

int eq_two_prop_differ(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
		       double z, double *zout)
{
	double p1, p2, pool, se, stat;

	*zout = 0.0;
	if (n1 == 0 || n2 == 0 || k1 > n1 || k2 > n2)
		return 0;
	p1 = (double)k1 / (double)n1;
	p2 = (double)k2 / (double)n2;
	pool = (double)(k1 + k2) / (double)(n1 + n2);
	se = sqrt(pool * (1.0 - pool) * (1.0 / (double)n1 + 1.0 / (double)n2));
	if (se == 0.0)
		return 0;
	stat = (p1 - p2) / se;
	*zout = stat;
	return fabs(stat) > z;
}
