/*
 * caldefaults.c - prints the board firmware's calibration defaults as
 * CAL_READ carries them (fw_cal_defaults packed by fw_cal_pack, the code
 * the firmware answers with), one "field value" a line, for
 * test/firmware/docs-numbers.py, which checks docs/protocol.md against
 * them.
 */
#include <stdio.h>

#include "cal.h"
#include "proto.h"

int main(void)
{
	struct fw_cal cal, back;
	uint8_t wire[FW_CAL_SIZE];

	fw_cal_defaults(&cal);
	fw_cal_pack(wire, &cal);
	fw_cal_unpack(wire, &back); /* what the host reads off the wire */
	printf("adc_gain %u\nadc_offset %d\nvb_nominal %u\ne_min %u\nserial %u\n",
	       (unsigned)back.adc_uv_per_lsb_q8, (int)back.adc_offset_uv, (unsigned)back.vb_nominal_uv,
	       (unsigned)back.e_min_pj, (unsigned)back.serial);
	return 0;
}
