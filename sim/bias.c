/*
 * bias.c - the systematic errors of energy-driven measurement that the
 * simulator models, as formulas (docs/simulator.md, "Bias"):
 *
 *   dead time   the 555 discharges for t_d after each pulse and the charge
 *               arriving meanwhile is lost: at a steady pulse rate r a
 *               fraction r t_d of the charge (corrected by dividing by
 *               1 - r t_d, per quantum with its own rate); when the rate
 *               varies the loss is t_d times the pulse-weighted rate, which
 *               the truth records as dead_time_charge_lost;
 *   voltage     a pulse is a fixed charge Q_c / alpha of the device, worth
 *               E_min Vb / Vb_nominal: without voltage compensation energy
 *               is over-estimated by Vb_nominal / Vb_eff (Vb_eff = E / Q,
 *               the charge-weighted terminal voltage);
 *   gain        the mirror ratio is alpha (1 + gain_err);
 *   offset      the mirror adds i_off, i.e. i_off / alpha * Vb_nominal watts;
 *   calibration E_min as configured against C Vx / 3 / alpha * Vb_nominal.
 */
#include "sim_internal.h"

#include <math.h>

double sim_dead_time_correct(double power_est, double pulse_rate, double dead_time)
{
	double keep = 1 - pulse_rate * dead_time;

	return keep > 0 ? power_est / keep : power_est;
}

double sim_expected_power_estimate(const struct sim_scenario *sc, const struct sim_result *res)
{
	const struct sim_params *p = &res->p;
	/* the charge lost in discharges, as the run measured it: t_d times the
	 * mirror current at each pulse; r t_d when the rate is steady */
	double keep = res->mirror_charge > 0 ? 1 - res->pulse_charge_lost / res->mirror_charge
					     : 1 - res->pulses / res->duration * p->dead_time;
	double p_true = res->energy_j / res->duration;
	double qc = p->c_int * p->vx / 3;
	double calib = p->e_min / (qc / p->alpha * p->vb_nominal);
	double vb_eff = res->device_charge > 0 ? res->energy_j / res->device_charge : p->vb_nominal;
	double vb_ratio = p->vcomp ? 1.0 : p->vb_nominal / vb_eff;
	double offset_w = p->mirror_offset / p->alpha * p->vb_nominal;

	return (p_true * (1 + p->gain_err) * vb_ratio + offset_w) * keep * calib;
}

double sim_board_energy_corrected(const struct eqp_board_rec *r, size_t n,
				  double clock_hz, double e_min, double vb_nominal,
				  double dead_time)
{
	double e = 0, dt, rate, q;
	size_t i;

	for (i = 0; i < n; i++) {
		/* a pulse is a fixed charge: worth E_min * Vb / Vb_nominal whether
		 * or not the firmware compensated (then it chose fewer/more pulses) */
		q = r[i].pulses * e_min * (r[i].vbat_uv * 1e-6) / vb_nominal;
		if (i > 0 && r[i].time > r[i - 1].time) {
			dt = (r[i].time - r[i - 1].time) / clock_hz;
			rate = r[i].pulses / dt;
			if (rate * dead_time < 0.5)
				q /= 1 - rate * dead_time;
		}
		e += q;
	}
	return e;
}
