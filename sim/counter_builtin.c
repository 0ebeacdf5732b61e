/*
 * counter_builtin.c - the counter stage modelled with the firmware's own
 * portable logic (firmware/portable/counter.h, linked from libeqfw.a): the
 * preload of every quantum, its jitter and its voltage compensation come
 * from fw_counter_next(), exactly as on the board.
 *
 * What this file adds is the board around that logic:
 *   - the battery-terminal voltage as the MCU measures it: the divider
 *     adc_r_top/adc_r_bottom into the 10-bit ADC referred to AREF, the
 *     board's reference (the same one that sets the 555's thresholds, so
 *     a reference that is off moves both the quantum and the reading),
 *     free-running as firmware/avr/adc.c: a conversion every 13 ADC clocks
 *     of mcu_clock / 128 (104 us), each of the voltage the front end saw
 *     last, with 0.5 LSB rms of noise (which dithers the steps), summed 16
 *     at a time; at each quantum's end the latest complete sum is turned
 *     into microvolts by the firmware's own calibration code
 *     (fw_cal_vbat_uv, cal.h) and given to fw_counter_set_vbat() before
 *     the next preload is computed (so the compensation lags);
 *   - the timestamp of each IRQ edge in MCU clock ticks;
 *   - a fixed propagation delay from the quantum-completing pulse to the
 *     IRQ edge: FW_EDGE_CYCLES MCU cycles (compare match to output pin).
 */
#include "counter_stage.h"
#include "cal.h"
#include "counter.h"
#include "defaults.h"
#include "fw_defaults.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FW_EDGE_CYCLES 2
#define ADC_CODES 1024
#define ADC_SAMPLES 16          /* conversions the firmware sums (cal.h) */
#define ADC_NOISE_LSB 0.5       /* rms */

struct builtin_stage {
	struct counter_stage base;
	struct counter_stage_config cfg;
	struct fw_counter fw;
	struct fw_cal cal;
	struct sim_rng rng;
	uint32_t left;          /* pulses left in the current quantum */
	uint32_t preload;       /* pulses of the current quantum */
	uint32_t seq;
	/* the free-running ADC */
	double vref, conv_period, next_conv;
	uint32_t acc, nconv, ready_sum;
	int have_sum;
};

static uint32_t adc_code(struct builtin_stage *b, double vb)
{
	double ratio = SIM_DEF_ADC_R_BOTTOM / (SIM_DEF_ADC_R_TOP + SIM_DEF_ADC_R_BOTTOM);
	double code = floor(vb * ratio / b->vref * ADC_CODES + ADC_NOISE_LSB * sim_rng_normal(&b->rng) + 0.5);

	return (uint32_t)(code < 0 ? 0 : code > ADC_CODES - 1 ? ADC_CODES - 1 : code);
}

/* The conversions due up to t, of the voltage vb. */
static void adc_run(struct builtin_stage *b, double t, double vb)
{
	while (b->next_conv <= t) {
		b->acc += adc_code(b, vb);
		if (++b->nconv == ADC_SAMPLES) {
			b->ready_sum = b->acc;
			b->have_sum = 1;
			b->acc = 0;
			b->nconv = 0;
		}
		b->next_conv += b->conv_period;
	}
}

/* What the board reports for a battery-terminal voltage, in uV: 16 noisy
 * 10-bit conversions of the divided voltage, converted by the firmware. */
static uint32_t adc_measure_uv(struct builtin_stage *b, double vb)
{
	uint32_t sum = 0;
	int i;

	if (b->have_sum)
		return fw_cal_vbat_uv(&b->cal, (uint16_t)b->ready_sum);
	/* before the first complete sum: as if the ADC had been running at vb */
	for (i = 0; i < ADC_SAMPLES; i++)
		sum += adc_code(b, vb);
	return fw_cal_vbat_uv(&b->cal, (uint16_t)sum);
}

static int builtin_pulse(struct counter_stage *cs, double t, double vb,
			 struct counter_edge *out, int max, struct eq_error *err)
{
	struct builtin_stage *b = (struct builtin_stage *)cs;
	struct counter_edge *e;
	uint32_t uv;

	adc_run(b, t, vb);
	if (--b->left > 0)
		return 0;
	if (max < 1)
		return eq_fail(err, "counter stage: no room for an IRQ edge");
	uv = adc_measure_uv(b, vb);
	e = &out[0];
	e->t = t + FW_EDGE_CYCLES / b->cfg.mcu_clock;
	e->ticks = (uint64_t)llround(e->t * b->cfg.mcu_clock);
	e->seq = b->seq++;
	e->pulses = b->preload;
	e->vbat_uv = uv;
	e->flags = 0;
	/* the next quantum: voltage as measured now, preload from the firmware logic */
	if (b->cfg.vcomp)
		fw_counter_set_vbat(&b->fw, uv);
	b->preload = b->left = fw_counter_next(&b->fw);
	return 1;
}

static int builtin_finish(struct counter_stage *cs, double t_end,
			  struct counter_edge *out, int max, struct eq_error *err)
{
	return 0; /* edges are raised synchronously: none is ever pending */
}

static void builtin_close(struct counter_stage *cs)
{
	free(cs);
}

static const struct counter_stage_ops builtin_ops = {
	.name = "builtin",
	.pulse = builtin_pulse,
	.finish = builtin_finish,
	.close = builtin_close,
};

struct counter_stage *counter_stage_builtin_open(const struct counter_stage_config *cfg,
						 struct eq_error *err)
{
	struct builtin_stage *b = calloc(1, sizeof(*b));
	struct fw_counter_cfg fc = { 0 };
	int rc;

	if (!b) {
		eq_fail(err, "counter stage: out of memory");
		return NULL;
	}
	b->base.ops = &builtin_ops;
	b->cfg = *cfg;
	fw_cal_defaults(&b->cal);
	b->vref = cfg->adc_vref > 0 ? cfg->adc_vref : SIM_DEF_ADC_VREF;
	b->conv_period = 13 * 128 / cfg->mcu_clock;
	b->next_conv = b->conv_period;
	sim_rng_seed(&b->rng, cfg->seed, 6);
	fc.quantum_pulses = cfg->quantum_pulses;
	fc.jitter_pct = (uint8_t)(cfg->jitter_pct > 255 ? 255 : cfg->jitter_pct);
	fc.vcomp = cfg->vcomp ? 1 : 0;
	fc.vb_nominal_uv = (uint32_t)llround(cfg->vb_nominal * 1e6);
	/* the firmware's PRNG is 32-bit; fold the run's seed into it */
	fc.seed = (uint32_t)(cfg->seed ^ (cfg->seed >> 32) ^ 0x5eed5eedu);
	rc = fw_counter_init(&b->fw, &fc);
	if (rc != FW_CFG_OK) {
		free(b);
		eq_fail(err, "counter stage: the firmware refuses the configuration (%s): quantum_pulses %u..%lu, jitter_pct <= %d, vb_nominal <= 65 V",
			rc == FW_CFG_BAD_QUANTUM ? "quantum_pulses" :
			rc == FW_CFG_BAD_JITTER ? "jitter_pct" : "vb_nominal",
			(unsigned)FW_QUANTUM_MIN, (unsigned long)FW_QUANTUM_MAX, FW_JITTER_MAX_PCT);
		return NULL;
	}
	if (cfg->vcomp)
		fw_counter_set_vbat(&b->fw, (uint32_t)llround(cfg->vb_nominal * 1e6));
	b->preload = b->left = fw_counter_next(&b->fw);
	return &b->base;
}
