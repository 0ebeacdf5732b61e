/*
 * cal.c - calibration arithmetic shared by the firmware and the host.
 */
#include "cal.h"
#include "fw_defaults.h"

uint32_t fw_cal_gain_q8(uint32_t vref_uv, uint32_t r_top_ohm, uint32_t r_bottom_ohm)
{
	/* Vb per count = Vref / 1024 * (Rt + Rb) / Rb; x256 -> divide by 4. */
	uint64_t num = (uint64_t)vref_uv * (r_top_ohm + r_bottom_ohm);

	return (uint32_t)((num + (uint64_t)r_bottom_ohm * 2) / ((uint64_t)r_bottom_ohm * 4));
}

void fw_cal_defaults(struct fw_cal *cal)
{
	cal->adc_uv_per_lsb_q8 = fw_cal_gain_q8(FW_ADC_VREF_UV, FW_ADC_R_TOP_OHM,
						FW_ADC_R_BOTTOM_OHM);
	cal->adc_offset_uv = 0;
	cal->vb_nominal_uv = FW_VB_NOMINAL_UV;
	cal->e_min_pj = FW_E_MIN_PJ;
	cal->serial = 0;
}

void fw_cal_pack(uint8_t *b, const struct fw_cal *cal)
{
	fw_put32(b, cal->adc_uv_per_lsb_q8);
	fw_put32(b + 4, (uint32_t)cal->adc_offset_uv);
	fw_put32(b + 8, cal->vb_nominal_uv);
	fw_put32(b + 12, cal->e_min_pj);
	fw_put32(b + 16, cal->serial);
}

void fw_cal_unpack(const uint8_t *b, struct fw_cal *cal)
{
	cal->adc_uv_per_lsb_q8 = fw_get32(b);
	cal->adc_offset_uv = (int32_t)fw_get32(b + 4);
	cal->vb_nominal_uv = fw_get32(b + 8);
	cal->e_min_pj = fw_get32(b + 12);
	cal->serial = fw_get32(b + 16);
}

uint32_t fw_cal_vbat_uv(const struct fw_cal *cal, uint16_t adc_sum16)
{
	/* sum16 counts are 1/16 of an LSB each: gain_q8 / (16 * 256). */
	int64_t uv = (int64_t)(((uint64_t)adc_sum16 * cal->adc_uv_per_lsb_q8 + 2048) >> 12);

	uv += cal->adc_offset_uv;
	if (uv < 0)
		return 0;
	return uv > 0xffffffffLL ? 0xffffffffUL : (uint32_t)uv;
}
