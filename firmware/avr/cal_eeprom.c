/*
 * cal_eeprom.c - calibration in EEPROM: magic, layout version, the struct
 * fw_cal as sent on the wire, and a CRC-16 over all of it.  A blank or
 * corrupt EEPROM falls back to the defaults from hardware/board.values.
 */
#include <avr/eeprom.h>

#include "board.h"
#include "cal.h"

#define CAL_MAGIC   0xe9
#define CAL_LAYOUT  1
#define CAL_BYTES   (2 + FW_CAL_SIZE + 2)

static uint8_t EEMEM cal_eeprom[CAL_BYTES];

uint8_t calib_load(struct fw_cal *cal)
{
	uint8_t b[CAL_BYTES];

	eeprom_read_block(b, cal_eeprom, sizeof(b));
	if (b[0] == CAL_MAGIC && b[1] == CAL_LAYOUT &&
	    fw_crc16(b, CAL_BYTES - 2) == fw_get16(b + CAL_BYTES - 2)) {
		fw_cal_unpack(b + 2, cal);
		return 1;
	}
	fw_cal_defaults(cal);
	return 0;
}

void calib_store(const struct fw_cal *cal)
{
	uint8_t b[CAL_BYTES];

	b[0] = CAL_MAGIC;
	b[1] = CAL_LAYOUT;
	fw_cal_pack(b + 2, cal);
	fw_put16(b + CAL_BYTES - 2, fw_crc16(b, CAL_BYTES - 2));
	eeprom_update_block(b, cal_eeprom, sizeof(b));
}
