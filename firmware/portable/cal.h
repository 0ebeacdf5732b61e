/*
 * cal.h - the board's calibration: how ADC counts become battery volts,
 * and the energy one front-end pulse stands for.  Kept in EEPROM by the
 * firmware, written by `eqprof board calibrate`.
 */
#ifndef FW_CAL_H
#define FW_CAL_H

#include <stdint.h>

#include "proto.h"

/* Values from fw_defaults.h (hardware/board.values): divider, reference, E_min. */
void fw_cal_defaults(struct fw_cal *cal);
/* Wire/EEPROM layout: FW_CAL_SIZE bytes, little-endian. */
void fw_cal_pack(uint8_t *b, const struct fw_cal *cal);
void fw_cal_unpack(const uint8_t *b, struct fw_cal *cal);
/* Battery-terminal microvolts from the sum of 16 ADC conversions (0 if below 0). */
uint32_t fw_cal_vbat_uv(const struct fw_cal *cal, uint16_t adc_sum16);
/* ADC gain, microvolts at the battery per count, x256, for a divider and reference. */
uint32_t fw_cal_gain_q8(uint32_t vref_uv, uint32_t r_top_ohm, uint32_t r_bottom_ohm);

#endif
