/*
 * frontend.c - the board's analog front end (seed 001 section 3.1).
 *
 * The device draws power P at its battery terminals.  The supply reaches
 * them through the source, fuse and sense resistances R, so the terminal
 * voltage is Vb = V_supply - I R with P = Vb I, i.e.
 *     I = (V_supply - sqrt(V_supply^2 - 4 R P)) / (2 R).
 * The current mirror (sense resistor + current-output amplifier) gives
 * i_m = alpha (1 + gain_err) I + offset, plus white noise.  i_m charges the
 * integrating capacitor from Vx/3 to 2Vx/3, i.e. Q_c = C Vx / 3 per pulse;
 * then the 555 discharges it for dead_time, and the charge arriving
 * meanwhile is not counted.  Noise enters as a per-pulse change of the
 * charge the pulse needs: a white current noise of density n (A/sqrt(Hz))
 * integrated over a pulse period T has variance n^2 T / 2.
 */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

void sim_frontend_init(struct sim_frontend *fe, const struct sim_params *p)
{
	memset(fe, 0, sizeof(*fe));
	fe->r_total = p->r_source + p->r_fuse + p->r_sense;
	fe->supply = p->supply;
	fe->alpha_eff = p->alpha * (1 + p->gain_err);
	fe->offset = p->mirror_offset;
	fe->vsens = p->power_vsens;
	fe->v0 = p->vb_nominal;
	fe->noise = p->mirror_noise;
	fe->qc = p->c_int * p->vx / 3.0;
	fe->dead_time = p->dead_time;
	fe->q_target = fe->qc;
	sim_rng_seed(&fe->rng, p->seed, 2);
}

void sim_frontend_operating_point(const struct sim_frontend *fe, double power,
				  double *vb, double *current)
{
	double r = fe->r_total, v = fe->supply, k = fe->vsens, i, b, c, disc, u;

	if (power <= 0) {
		*current = 0;
		*vb = v;
		return;
	}
	if (r <= 0) {
		*vb = v;
		*current = power * fmax(1 + k * (v - fe->v0), 0) / v;
		return;
	}
	/* Vb I = P (1 + k (Vb - V0)) and Vb = V - I R:
	 * Vb^2 - (V - R P k) Vb + R P (1 - k V0) = 0, the larger root */
	b = v - r * power * k;
	c = r * power * (1 - k * fe->v0);
	disc = b * b - 4 * c;
	/* sim_check_feasible() refused scenarios where the supply falls short */
	u = (b + sqrt(disc > 0 ? disc : 0)) / 2;
	i = (v - u) / r;
	*current = i;
	*vb = u;
}

double sim_frontend_mirror(const struct sim_frontend *fe, double current)
{
	double im = fe->alpha_eff * current + fe->offset;

	return im > 0 ? im : 0;
}

static void next_target(struct sim_frontend *fe, double i_m)
{
	double period, sd;

	fe->q_target = fe->qc;
	if (fe->noise <= 0 || i_m <= 0)
		return;
	period = fe->qc / i_m;
	sd = fe->noise * sqrt(period / 2);
	/* noise adds to the charge: the pulse needs correspondingly less signal */
	fe->q_target = fe->qc - sd * sim_rng_normal(&fe->rng);
	if (fe->q_target < 0.5 * fe->qc)
		fe->q_target = 0.5 * fe->qc;
	if (fe->q_target > 1.5 * fe->qc)
		fe->q_target = 1.5 * fe->qc;
}

double sim_frontend_advance(struct sim_frontend *fe, double t, double t_end, double i_m)
{
	double start = t, tp;

	if (t_end <= t)
		return -1;
	if (fe->dead_until > t) {
		/* the capacitor is being discharged: this charge is not counted */
		double lost_end = fmin(fe->dead_until, t_end);

		fe->charge_lost += i_m * (lost_end - t);
		fe->charge_in += i_m * (lost_end - t);
		if (fe->dead_until >= t_end)
			return -1;
		start = fe->dead_until;
	}
	if (i_m <= 0)
		return -1;
	tp = start + (fe->q_target - fe->q) / i_m;
	if (tp >= t_end) {
		fe->q += i_m * (t_end - start);
		fe->charge_in += i_m * (t_end - start);
		return -1;
	}
	fe->charge_in += i_m * (tp - start);
	fe->q = 0;
	fe->dead_until = tp + fe->dead_time;
	fe->pulses++;
	next_target(fe, i_m);
	return tp;
}
