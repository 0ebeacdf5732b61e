/*
 * params.c - the simulator's parameters: one table gives each its name (the
 * names of hardware/board.values where the board has the value), unit,
 * default and place in struct sim_params, so that scenario files, `eqprof
 * sim --set`, `eqprof sim --defaults` and the docs all agree.
 */
#include "sim_internal.h"
#include "defaults.h"
#include "devices.h"
#include "util/units.h"
#include "counter.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum ptype { P_DOUBLE, P_U32, P_BOOL, P_U64, P_RANGE, P_SAMPLING, P_NONE };

struct param {
	const char *name;
	const char *unit;       /* for eq_parse_quantity; "%" = percentage */
	enum ptype type;
	size_t off;             /* offsetof(struct sim_params, ...) */
	double def;
	int board;              /* 1: a name of hardware/board.values */
};

#define D(n, u, f, d, b) { n, u, P_DOUBLE, offsetof(struct sim_params, f), d, b }
#define U(n, u, f, d, b) { n, u, P_U32, offsetof(struct sim_params, f), d, b }
/* Board values the simulator does not use (the low range, ADC, UART) are
 * still listed so --defaults covers the whole of board.values. */
#define X(n, d) { n, "", P_NONE, 0, d, 1 }

static const struct param params[] = {
	D("r_sense_high", "Ohm", r_sense, SIM_DEF_R_SENSE_HIGH, 1),
	D("r_sense_low", "Ohm", r_sense_low, SIM_DEF_R_SENSE_LOW, 1),
	X("amp_gm", SIM_DEF_AMP_GM),
	D("alpha_high", "", alpha, SIM_DEF_ALPHA_HIGH, 1),
	D("alpha_low", "", alpha_low, SIM_DEF_ALPHA_LOW, 1),
	D("c_int", "F", c_int, SIM_DEF_C_INT, 1),
	D("vx", "V", vx, SIM_DEF_VX, 1),
	D("dead_time", "s", dead_time, SIM_DEF_DEAD_TIME, 1),
	D("vb_nominal", "V", vb_nominal, SIM_DEF_VB_NOMINAL, 1),
	D("e_min_high", "J", e_min, SIM_DEF_E_MIN_HIGH, 1),
	D("mcu_clock", "Hz", mcu_clock, SIM_DEF_MCU_CLOCK, 1),
	U("quantum_pulses", "", quantum_pulses, SIM_DEF_QUANTUM_PULSES, 1),
	U("jitter_pct", "%", jitter_pct, SIM_DEF_JITTER_PCT, 1),
	X("adc_r_top", SIM_DEF_ADC_R_TOP),
	X("adc_r_bottom", SIM_DEF_ADC_R_BOTTOM),
	X("adc_vref", SIM_DEF_ADC_VREF),
	X("v_ref", SIM_DEF_V_REF),
	X("r_ref_bias", SIM_DEF_R_REF_BIAS),
	X("r_dis", SIM_DEF_R_DIS),
	X("uart_baud", SIM_DEF_UART_BAUD),
	X("irq_pulse_width", SIM_DEF_IRQ_PULSE_WIDTH),
	D("supply", "V", supply, SIM_DEF_SUPPLY, 0),
	D("r_source", "Ohm", r_source, SIM_DEF_R_SOURCE, 0),
	D("r_fuse", "Ohm", r_fuse, SIM_DEF_R_FUSE, 0),
	D("gain_err", "%", gain_err, SIM_DEF_GAIN_ERR, 0),
	D("mirror_offset", "A", mirror_offset, SIM_DEF_MIRROR_OFFSET, 0),
	D("mirror_noise", "A", mirror_noise, SIM_DEF_MIRROR_NOISE, 0),
	D("power_vsens", "%", power_vsens, SIM_DEF_POWER_VSENS, 0),
	{ "vcomp", "", P_BOOL, offsetof(struct sim_params, vcomp), SIM_DEF_VCOMP, 0 },
	{ "range", "", P_RANGE, offsetof(struct sim_params, range_low), 0, 0 },
	D("irq_latency_min", "s", irq_lat_min, SIM_DEF_IRQ_LAT_MIN, 0),
	D("irq_latency_max", "s", irq_lat_max, SIM_DEF_IRQ_LAT_MAX, 0),
	D("irq_latency_cycles_min", "", irq_lat_cyc_min, SIM_DEF_IRQ_LAT_CYC_MIN, 0),
	D("irq_latency_cycles_max", "", irq_lat_cyc_max, SIM_DEF_IRQ_LAT_CYC_MAX, 0),
	D("irq_other_hz", "Hz", irq_other_hz, SIM_DEF_IRQ_OTHER_HZ, 0),
	D("irq_other_cycles", "", irq_other_cycles, SIM_DEF_IRQ_OTHER_CYCLES, 0),
	D("dvfs_time", "s", dvfs_time, SIM_DEF_DVFS_TIME, 0),
	D("dvfs_power", "W", dvfs_power, SIM_DEF_DVFS_POWER, 0),
	D("irqoff_hz", "Hz", irqoff_hz, SIM_DEF_IRQOFF_HZ, 0),
	D("irqoff_cycles", "", irqoff_cycles, SIM_DEF_IRQOFF_CYCLES, 0),
	D("target_clock_ppm", "", target_ppm, SIM_DEF_TARGET_PPM, 0),
	D("target_clock_offset", "s", target_offset, SIM_DEF_TARGET_OFFSET, 0),
	D("board_clock_ppm", "", board_ppm, SIM_DEF_BOARD_PPM, 0),
	U("skew_insns", "", skew_insns, SIM_DEF_SKEW_INSNS, 0),
	U("insn_bytes", "", insn_bytes, SIM_DEF_INSN_BYTES, 0),
	U("skew_insns_max", "", skew_insns_max, SIM_DEF_SKEW_INSNS_MAX, 0),
	D("pc_hot_share", "%", pc_hot_share, SIM_DEF_PC_HOT_SHARE, 0),
	D("pc_hot_span", "%", pc_hot_span, SIM_DEF_PC_HOT_SPAN, 0),
	D("isr_cycles", "", isr_cycles, SIM_DEF_ISR_CYCLES, 0),
	U("ring_samples", "", ring_samples, SIM_DEF_RING_SAMPLES, 0),
	D("drain_period", "s", drain_period, SIM_DEF_DRAIN_PERIOD, 0),
	D("drain_cycles", "", drain_cycles, SIM_DEF_DRAIN_CYCLES, 0),
	D("drain_cycles_per_sample", "", drain_cycles_per_sample, SIM_DEF_DRAIN_CYCLES_PER_SAMPLE, 0),
	D("time_hz", "Hz", time_hz, SIM_DEF_TIME_HZ, 0),
	D("time_jitter_pct", "%", time_jitter_pct, SIM_DEF_TIME_JITTER_PCT, 0),
	D("slice", "s", slice, SIM_DEF_SLICE, 0),
	D("trace_bin", "s", trace_bin, SIM_DEF_TRACE_BIN, 0),
	{ "seed", "", P_U64, offsetof(struct sim_params, seed), 1, 0 },
	{ "sampling", "", P_SAMPLING, offsetof(struct sim_params, sampling_shared), 0, 0 },
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))

void sim_params_default(struct sim_params *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < NPARAMS; i++) {
		void *f = (char *)p + params[i].off;

		switch (params[i].type) {
		case P_DOUBLE: *(double *)f = params[i].def; break;
		case P_U32: *(uint32_t *)f = (uint32_t)params[i].def; break;
		case P_BOOL: case P_RANGE: case P_SAMPLING: *(int *)f = (int)params[i].def; break;
		case P_U64: *(uint64_t *)f = (uint64_t)params[i].def; break;
		case P_NONE: break;
		}
	}
}

void sim_params_print_defaults(FILE *out, int board_only)
{
	size_t i;

	for (i = 0; i < NPARAMS; i++) {
		if (!params[i].board && board_only)
			continue;
		if (params[i].type == P_RANGE)
			fprintf(out, "%s %s\n", params[i].name, params[i].def ? "low" : "high");
		else if (params[i].type == P_SAMPLING)
			fprintf(out, "%s %s\n", params[i].name, params[i].def ? "shared" : "separate");
		else
			fprintf(out, "%s %.10g\n", params[i].name, params[i].def);
	}
}

static int set_value(const struct param *pm, struct sim_params *p, const char *v,
		     struct eq_error *err)
{
	void *f = (char *)p + pm->off;
	double d;
	char *end;

	if (pm->type == P_NONE)
		return eq_fail(err, "%s: a board value the simulator does not model; leave it out", pm->name);
	if (pm->type == P_RANGE) {
		if (strcmp(v, "high") && strcmp(v, "low"))
			return eq_fail(err, "%s: '%s' should be high or low", pm->name, v);
		*(int *)f = !strcmp(v, "low");
		return 0;
	}
	if (pm->type == P_SAMPLING) {
		if (strcmp(v, "separate") && strcmp(v, "shared"))
			return eq_fail(err, "%s: '%s' should be separate (two runs) or shared (one run)", pm->name, v);
		*(int *)f = !strcmp(v, "shared");
		return 0;
	}
	if (pm->type == P_BOOL) {
		if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes"))
			*(int *)f = 1;
		else if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no"))
			*(int *)f = 0;
		else
			return eq_fail(err, "%s: '%s' should be on or off", pm->name, v);
		return 0;
	}
	if (!strcmp(pm->unit, "%")) {
		d = strtod(v, &end);
		if (end == v || (*end && strcmp(end, "%")))
			return eq_fail(err, "%s: '%s' should be a percentage such as 5%%", pm->name, v);
		/* gain_err and power_vsens (per volt) are fractions: "0.5%" or "0.005" */
		if ((!strcmp(pm->name, "gain_err") || !strcmp(pm->name, "power_vsens") ||
		     !strcmp(pm->name, "pc_hot_share") || !strcmp(pm->name, "pc_hot_span")) && *end == '%')
			d /= 100.0;
	} else if (eq_parse_quantity(v, pm->unit, pm->name, &d, err) < 0) {
		return -1;
	}
	if (!isfinite(d) || (d < 0 && strcmp(pm->name, "gain_err") && strcmp(pm->name, "mirror_offset") &&
			     strcmp(pm->name, "target_clock_ppm") && strcmp(pm->name, "board_clock_ppm")))
		return eq_fail(err, "%s: '%s' must be a finite, non-negative value", pm->name, v);
	switch (pm->type) {
	case P_DOUBLE:
		*(double *)f = d;
		break;
	case P_U32:
		if (d != floor(d) || d > UINT32_MAX)
			return eq_fail(err, "%s: '%s' must be a whole number", pm->name, v);
		*(uint32_t *)f = (uint32_t)d;
		break;
	case P_U64:
		if (d != floor(d) || d > 1.8e19)
			return eq_fail(err, "%s: '%s' must be a whole number", pm->name, v);
		*(uint64_t *)f = (uint64_t)d;
		break;
	default:
		break;
	}
	return 0;
}

/* Sanity of the values together: what would make the physics meaningless. */
static int check(const struct sim_params *p, const char *name, struct eq_error *err)
{
	if (p->alpha <= 0 || p->alpha_low <= 0 || p->c_int <= 0 || p->vx <= 0 || p->vb_nominal <= 0 || p->e_min <= 0)
		return eq_fail(err, "%s: alpha_high, c_int, vx, vb_nominal and e_min_high must be > 0", name);
	if (p->quantum_pulses == 0 || p->quantum_pulses > 1000000)
		return eq_fail(err, "quantum_pulses: must be 1..1000000");
	if (p->jitter_pct > FW_JITTER_MAX_PCT)   /* the firmware's limit: refused now, not mid-run */
		return eq_fail(err, "jitter_pct: %u%% is more than the firmware allows (%d%%)",
			       p->jitter_pct, FW_JITTER_MAX_PCT);
	if (p->irq_lat_max < p->irq_lat_min)
		return eq_fail(err, "irq_latency_max is below irq_latency_min");
	if (p->irq_lat_cyc_max < p->irq_lat_cyc_min)
		return eq_fail(err, "irq_latency_cycles_max is below irq_latency_cycles_min");
	if (fabs(p->target_ppm) >= 1e5 || fabs(p->board_ppm) >= 1e5)
		return eq_fail(err, "target_clock_ppm and board_clock_ppm must be within +-100000 ppm");
	if (p->ring_samples < 2 || (p->ring_samples & (p->ring_samples - 1)))
		return eq_fail(err, "ring_samples: %u is not a power of two >= 2 (the ring's rule)", p->ring_samples);
	if (p->time_hz <= 0 || p->time_jitter_pct >= 100 || p->drain_period <= 0)
		return eq_fail(err, "time_hz and drain_period must be > 0 and time_jitter_pct below 100%%");
	if (p->insn_bytes == 0 || p->slice <= 0 || p->mcu_clock <= 0 || p->supply <= 0)
		return eq_fail(err, "insn_bytes, slice, mcu_clock and supply must be > 0");
	if (p->pc_hot_share >= 1 || p->pc_hot_span > 1)
		return eq_fail(err, "pc_hot_share must be below 100%% and pc_hot_span at most 100%%");
	if (p->gain_err <= -1)
		return eq_fail(err, "gain_err: must be above -100%%");
	return 0;
}

int sim_params_set(struct sim_params *p, const char *assignment, struct eq_error *err)
{
	const char *eq = strchr(assignment, '=');
	size_t i, nlen;
	struct sim_params trial;

	if (!eq || eq == assignment)
		return eq_fail(err, "'%s': expected NAME=VALUE (names: eqprof sim --defaults --all)", assignment);
	nlen = eq - assignment;
	for (i = 0; i < NPARAMS; i++) {
		if (strlen(params[i].name) != nlen || strncmp(params[i].name, assignment, nlen))
			continue;
		trial = *p;
		if (set_value(&params[i], &trial, eq + 1, err) < 0 ||
		    check(&trial, params[i].name, err) < 0)
			return -1;
		*p = trial;
		return 0;
	}
	return eq_fail(err, "unknown statement or parameter '%.*s' (parameters: eqprof sim --defaults --all)",
		       (int)nlen, assignment);
}

void sim_params_effective(const struct sim_params *p, struct sim_params *eff)
{
	*eff = *p;
	if (!p->range_low)
		return;
	/* the low range puts r_sense_low in series: more sense voltage per amp */
	eff->r_sense = p->r_sense + p->r_sense_low;
	eff->alpha = p->alpha_low;
	eff->e_min = p->e_min * p->alpha / p->alpha_low;
}

double sim_max_power(const struct sim_scenario *sc)
{
	double cpu = 0, cons = 0;
	size_t i, k;

	for (i = 0; i < sc->nprocs; i++)
		for (k = 0; k < sc->nfreqs; k++)
			cpu = fmax(cpu, sc->procs[i].power[k]);
	for (i = 0; i < sc->nphases; i++)
		if (sc->phases[i].power_spread > 0) {
			cpu *= 1.8; /* the largest slice scale (workload.c) */
			break;
		}
	for (k = 0; k < sc->nfreqs; k++)
		cpu = fmax(cpu, sc->isr_power[k]);
	for (i = 0; i < sc->nconsumers; i++) {
		const struct sim_consumer *c = &sc->consumers[i];
		double duty = c->period > 0 ? c->duty : 1;
		double peak = c->power / duty;
		int ever_on = c->on;
		size_t ph, k;

		for (ph = 0; ph < sc->nphases; ph++)
			for (k = 0; k < sc->phases[ph].nchanges; k++) {
				const struct sim_cons_change *ch = &sc->phases[ph].changes[k];

				if (ch->consumer != i || ch->action == SIM_CONS_OFF)
					continue;
				ever_on = 1;
				if (ch->action == SIM_CONS_SET)
					peak = fmax(peak, ch->power / duty);
			}
		if (ever_on) /* a consumer that is never on draws nothing */
			cons += peak;
	}
	/* every device at its highest power at once, the worst case */
	for (i = 0; sc->devices && i < sc->devices->ndev; i++) {
		const struct sim_device *d = &sc->devices->dev[i];

		cons += fmax(fmax(d->active_w, d->tail_w), d->idle_w);
	}
	return sc->base_power + cpu + cons;
}

/* About how many workload and consumer events the run generates. */
static double expected_events(const struct sim_scenario *sc)
{
	double n = 0, total = 0;
	size_t i;

	for (i = 0; i < sc->nphases; i++) {
		const struct sim_phase *ph = &sc->phases[i];
		double slice = ph->slice > 0 ? ph->slice : sc->p.slice;

		total += ph->duration;
		if (ph->idle_frac < 1)
			n += ph->duration * ((1 - ph->idle_frac) / slice + 2 / ph->granularity);
	}
	for (i = 0; i < sc->nconsumers; i++)
		if (sc->consumers[i].period > 0)
			n += 2 * total / sc->consumers[i].period;
	return n;
}

#define SIM_MAX_EVENTS 2e8
/* The requests are drawn whole before the run (about 100 bytes each, twice:
 * the requests and the device's power pieces). */
#define SIM_MAX_REQUESTS 2e6

int sim_check_feasible(const struct sim_scenario *sc, struct eq_error *err)
{
	struct sim_params eff;
	const struct sim_params *p = &eff;
	double r, pmax = sim_max_power(sc), imax;

	if (check(&sc->p, sc->path, err) < 0)
		return -1;
	sim_params_effective(&sc->p, &eff);
	r = p->r_source + p->r_fuse + p->r_sense;
	/* P = Vb * I with Vb = supply - I R has a solution only if supply^2 >= 4 R P. */
	if (p->supply * p->supply < 4 * r * pmax)
		return eq_fail(err, "%s: the supply (%.3g V through %.3g Ohm) cannot deliver the scenario's peak %.3g W; raise 'supply' or lower the resistances",
			       sc->path, p->supply, r, pmax);
	imax = (p->supply - sqrt(p->supply * p->supply - 4 * r * pmax)) / (2 * r);
	if (p->range_low && imax > SIM_LOW_RANGE_MAX_A)
		return eq_fail(err, "%s: the low range measures up to %.0f mA but the scenario's peak draws %.0f mA; use 'range high'",
			       sc->path, SIM_LOW_RANGE_MAX_A * 1e3, imax * 1e3);
	if (expected_events(sc) > SIM_MAX_EVENTS)
		return eq_fail(err, "%s: about %.3g workload and consumer events (duration over slice, granularity and consumer periods) exceed the simulator's %.0g; shorten the phases or raise slice, granularity or periods",
			       sc->path, expected_events(sc), SIM_MAX_EVENTS);
	if (sim_devices_expected_requests(sc) > SIM_MAX_REQUESTS)
		return eq_fail(err, "%s: up to %.3g device requests (phase durations over 'every', times 'burst') exceed the simulator's %.0g; raise 'every' or shorten the phases",
			       sc->path, sim_devices_expected_requests(sc), SIM_MAX_REQUESTS);
	return 0;
}
