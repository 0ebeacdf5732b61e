/*
 * calibrate.c - E_min as the paper's Table 1 measures it, through the
 * simulated front end: a load draws a steady test current I at the
 * battery-terminal voltage vb_nominal, the period of the 555's pulse train
 * is measured, and E_min = period x I x Vb.  Unlike the components' value
 * C Vx / 3 / alpha x Vb, the measured period includes everything the front
 * end does at that current (dead time, mirror gain and offset, noise), so
 * estimates made with it are right at the test current.  The value goes to
 * the board with `eqprof board calibrate --e-min`, and to the simulator with
 * `--set e_min_high=`.
 */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

int sim_calibrate_e_min(const struct sim_params *params, double current, double seconds,
			struct sim_calibration *c, struct eq_error *err)
{
	struct sim_params p;
	struct sim_frontend fe;
	double im, t = 0, tp, first = -1, last = -1;
	uint64_t n = 0;

	if (!(current > 0) || !(seconds > 0))
		return eq_fail(err, "calibration: the test current and its duration must be > 0");
	sim_params_effective(params, &p);
	sim_frontend_init(&fe, &p);
	im = sim_frontend_mirror(&fe, current);
	while ((tp = sim_frontend_advance(&fe, t, seconds, im)) >= 0) {
		if (first < 0)
			first = tp;
		last = tp;
		n++;
		t = tp;
	}
	if (n < 3)
		return eq_fail(err, "calibration: %g A for %g s gives %llu pulses; raise the current or the time",
			       current, seconds, (unsigned long long)n);
	memset(c, 0, sizeof(*c));
	c->current_a = current;
	c->vb = p.vb_nominal;
	c->pulses = n;
	c->period_s = (last - first) / (double)(n - 1);
	c->e_min_j = c->period_s * current * p.vb_nominal;
	/* on the low range the board's E_min is quoted for the high range's
	 * mirror (sim_params_effective scales it by alpha_high / alpha_low) */
	c->e_min_high_j = c->e_min_j * p.alpha / params->alpha;
	return 0;
}
