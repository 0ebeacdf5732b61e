/*
 * usb.h - the board on USB, through libusb-1.0: which FT232R boards are
 * plugged in (by VID:PID, with their serial numbers), which tty node the
 * kernel's ftdi_sio gave each, whether we may open them, and hot-plug.
 * The byte links themselves are transport.h's (tty, libftdi1): as in
 * libsigrok, finding a device is apart from talking to it.
 *
 * Tested without a device (test/firmware/board-usb.sh): the paths where
 * USB is missing or empty and the messages.  Enumerating a real board,
 * permission denied and hot-plug events are tested only on hardware
 * (docs/firmware.md, "Finding the board").
 */
#ifndef BOARD_USB_H
#define BOARD_USB_H

#include <signal.h>
#include <stdint.h>

#include "util/eq_error.h"

#define BOARD_USB_VID 0x0403      /* FTDI */
#define BOARD_USB_PID 0x6001      /* FT232R */
#define BOARD_UDEV_RULES "60-eqprof-board.rules"

struct board_usb {
	uint8_t bus;
	char where[32];           /* sysfs name: "1-2.3" (bus 1, ports 2.3) */
	char serial[64];          /* "" when it could not be read */
	char product[64];
	char tty[64];             /* "/dev/ttyUSB0" if ftdi_sio has it, else "" */
	int denied;               /* opening it was refused: permissions (udev rules) */
};

/* FT232R boards on USB; the count, or -1 (err says why: no USB here, libusb). */
int board_usb_list(struct board_usb *out, int max, struct eq_error *err);

/*
 * Prints boards as they arrive and leave (libusb hot-plug, or a rescan
 * every second where it has none) until *stop is set; the boards already
 * there are reported first.  fn gets arrived = 1 or 0.  0, or -1.
 */
int board_usb_watch(volatile sig_atomic_t *stop,
		    void (*fn)(void *ctx, int arrived, const struct board_usb *b), void *ctx,
		    struct eq_error *err);

/*
 * Whether the board behind a port spec ("tty:/dev/ttyUSB0", "ftdi:SERIAL")
 * is still on USB: 1 yes, 0 no (unplugged), -1 cannot tell (not a USB
 * port, no USB access here).
 */
int board_usb_present(const char *spec);

/* What to do about permission denied, naming the rules file. */
const char *board_usb_access_hint(void);

#endif
