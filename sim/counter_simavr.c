/*
 * counter_simavr.c - the simulator's counter stage on the real board
 * firmware: the ELF runs in simavr (firmware/simavr/fwsim.h), each
 * front-end pulse is an edge on its T1 pin at the pulse's own time, the
 * battery voltage goes to its ADC through the board's divider, and the IRQ
 * edges are whatever its OC1A pin does.  `eqprof sim --firmware ELF`.
 *
 * The stage configures the firmware over its UART with the board protocol
 * (SET_QUANTUM, SET_JITTER, SET_VCOMP, CAL_WRITE for another vb_nominal,
 * START with the run's seed folded to 32 bits exactly as the built-in
 * model folds it), so both stages draw the same preloads.  simavr raises a
 * compare match one input edge late (docs/firmware.md); one priming pulse
 * right after START absorbs that, so quantum k ends on the same front-end
 * pulse as on silicon and in the built-in model.
 *
 * Edges are reported as soon as the pin rises: pulses per quantum come
 * from the pulses fed between edges, the voltage from the injected one;
 * the firmware's own records (LATE, DROPPED) are merged in when they have
 * arrived, which with the UART's latency is usually a quantum later.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counter_stage.h"
#include "firmware/simavr/fwsim.h"
#include "fw_defaults.h"

#define REPLY_CYCLES  (FW_MCU_CLOCK_HZ / 10)   /* 100 ms: EEPROM writes included */
#define PULSE_HIGH    4                        /* T1 high time, cycles */
#define BOOT_CYCLES   (FW_MCU_CLOCK_HZ / 500)  /* 2 ms: reset, EEPROM read, BOOT message */

struct simavr_stage {
	struct counter_stage base;
	struct fwsim *sim;
	double hz;
	uint64_t c0;              /* cycle of simulated time 0 */
	size_t reported;          /* edges handed to the simulator */
	uint64_t last_edge_pulses;
	uint16_t late_flags;      /* LATE/DROPPED seen in records, for the next edge */
	double vb;                /* battery voltage of the last pulse */
};

static int request(struct fwsim *sim, uint8_t type, uint32_t value, struct eq_error *err)
{
	struct fw_msg req, rep;

	fw_msg_request(&req, type, value);
	if (fwsim_request(sim, &req, &rep, REPLY_CYCLES, err) < 0)
		return -1;
	if (rep.type != FW_REP_OK)
		return eq_fail(err, "firmware in simavr refused %s %u: %s", fw_type_name(type), value,
			       rep.type == FW_REP_ERR ? fw_err_name(rep.u.reply.code) : "unexpected reply");
	return 0;
}

/* vb_nominal lives in the calibration: rewrite it when the run wants another. */
static int set_vb_nominal(struct fwsim *sim, double vb_nominal, struct eq_error *err)
{
	struct fw_msg req, rep;
	uint32_t uv = (uint32_t)llround(vb_nominal * 1e6);

	memset(&req, 0, sizeof(req));
	req.type = FW_REQ_CAL_READ;
	if (fwsim_request(sim, &req, &rep, REPLY_CYCLES, err) < 0)
		return -1;
	if (rep.type != FW_REP_CAL)
		return eq_fail(err, "firmware in simavr: no calibration reply");
	if (rep.u.cal.vb_nominal_uv == uv)
		return 0;
	memset(&req, 0, sizeof(req));
	req.type = FW_REQ_CAL_WRITE;
	req.u.cal = rep.u.cal;
	req.u.cal.vb_nominal_uv = uv;
	if (fwsim_request(sim, &req, &rep, REPLY_CYCLES, err) < 0)
		return -1;
	if (rep.type != FW_REP_OK)
		return eq_fail(err, "firmware in simavr refused vb_nominal %.3f V", vb_nominal);
	return 0;
}

static int configure(struct simavr_stage *st, const struct counter_stage_config *cfg,
		     struct eq_error *err)
{
	/* The same fold of the run's 64-bit seed as the built-in model. */
	uint32_t seed = (uint32_t)(cfg->seed ^ (cfg->seed >> 32) ^ 0x5eed5eedu);

	if (fabs(cfg->mcu_clock - FW_MCU_CLOCK_HZ) > 0.5)
		return eq_fail(err, "--firmware: the firmware is built for a %lu Hz MCU clock, the run "
			       "asks for %.0f Hz (mcu_clock)", (unsigned long)FW_MCU_CLOCK_HZ, cfg->mcu_clock);
	if (fwsim_run_to(st->sim, BOOT_CYCLES, err) < 0)
		return -1;
	if (fwsim_boots(st->sim) != 1)
		return eq_fail(err, "firmware in simavr did not send its BOOT message");
	fwsim_set_vbat(st->sim, cfg->vb_nominal);
	if (set_vb_nominal(st->sim, cfg->vb_nominal, err) < 0 ||
	    request(st->sim, FW_REQ_SET_QUANTUM, cfg->quantum_pulses, err) < 0 ||
	    request(st->sim, FW_REQ_SET_JITTER, cfg->jitter_pct, err) < 0 ||
	    request(st->sim, FW_REQ_SET_VCOMP, cfg->vcomp ? 1 : 0, err) < 0)
		return eq_fail_prefix(err, "--firmware");
	/* Let the ADC average settle on the run's starting voltage. */
	if (fwsim_run_to(st->sim, fwsim_cycle(st->sim) + FW_MCU_CLOCK_HZ / 250, err) < 0 ||
	    request(st->sim, FW_REQ_START, seed ? seed : 1, err) < 0)
		return -1;
	/* The priming pulse: absorbs simavr's one-edge compare lag. */
	if (fwsim_pulse(st->sim, PULSE_HIGH, err) < 0 ||
	    fwsim_run_to(st->sim, fwsim_cycle(st->sim) + PULSE_HIGH, err) < 0)
		return -1;
	st->last_edge_pulses = fwsim_pulses_fed(st->sim);
	st->vb = cfg->vb_nominal;
	st->c0 = fwsim_cycle(st->sim);
	return 0;
}

/* Records that arrived: keep their flags for the edges still to report. */
static void absorb_records(struct simavr_stage *st)
{
	struct fw_record r;

	while (fwsim_take_record(st->sim, &r))
		st->late_flags |= r.flags & (FW_REC_F_LATE | FW_REC_F_DROPPED);
}

static int report_edges(struct simavr_stage *st, double vb, struct counter_edge *out, int max,
			struct eq_error *err)
{
	size_t n, k = 0;
	const struct fwsim_edge *e = fwsim_edges(st->sim, &n);

	absorb_records(st);
	while (st->reported < n) {
		const struct fwsim_edge *edge = &e[st->reported];
		struct counter_edge *o;

		if ((int)k == max)
			return eq_fail(err, "counter stage (simavr): more than %d IRQ edges at once", max);
		o = &out[k++];
		o->ticks = edge->rise - st->c0;
		o->t = (double)o->ticks / st->hz;
		o->seq = (uint32_t)st->reported;
		o->pulses = (uint32_t)(edge->pulses - st->last_edge_pulses);
		o->vbat_uv = (uint32_t)llround(vb * 1e6);
		o->flags = st->late_flags;
		st->late_flags = 0;
		st->last_edge_pulses = edge->pulses;
		st->reported++;
	}
	return (int)k;
}

static int simavr_pulse(struct counter_stage *cs, double t, double vb,
			struct counter_edge *out, int max, struct eq_error *err)
{
	struct simavr_stage *st = (struct simavr_stage *)cs;
	uint64_t at = st->c0 + (uint64_t)llround(t * st->hz);

	fwsim_set_vbat(st->sim, vb);
	st->vb = vb;
	/* Pulses closer than the pin can show are spaced by its hold time. */
	if (at > fwsim_cycle(st->sim) && fwsim_run_to(st->sim, at, err) < 0)
		return -1;
	if (fwsim_pulse(st->sim, PULSE_HIGH, err) < 0 ||
	    fwsim_run_to(st->sim, fwsim_cycle(st->sim) + PULSE_HIGH, err) < 0)
		return -1;
	return report_edges(st, vb, out, max, err);
}

static int simavr_finish(struct counter_stage *cs, double t_end,
			 struct counter_edge *out, int max, struct eq_error *err)
{
	struct simavr_stage *st = (struct simavr_stage *)cs;
	uint64_t end = st->c0 + (uint64_t)llround(t_end * st->hz);

	if (end > fwsim_cycle(st->sim) && fwsim_run_to(st->sim, end, err) < 0)
		return -1;
	return report_edges(st, st->vb, out, max, err);
}

static void simavr_close(struct counter_stage *cs)
{
	struct simavr_stage *st = (struct simavr_stage *)cs;

	if (!st)
		return;
	fwsim_close(st->sim);
	free(st);
}

static const struct counter_stage_ops simavr_ops = {
	.name = "simavr",
	.pulse = simavr_pulse,
	.finish = simavr_finish,
	.close = simavr_close,
};

struct counter_stage *counter_stage_simavr_open(const char *elf,
						const struct counter_stage_config *cfg,
						struct eq_error *err)
{
	struct simavr_stage *st = calloc(1, sizeof(*st));

	if (!st) {
		eq_fail(err, "counter stage (simavr): out of memory");
		return NULL;
	}
	st->base.ops = &simavr_ops;
	st->hz = FW_MCU_CLOCK_HZ;
	st->sim = fwsim_open(elf, err);
	if (!st->sim || configure(st, cfg, err) < 0) {
		simavr_close(&st->base);
		return NULL;
	}
	return &st->base;
}
