/*
 * usb.h - the board on USB, through libusb-1.0: which FT232R boards are
 * plugged in (by VID:PID, with their serial numbers), which tty node the
 * kernel's ftdi_sio gave each, whether we may open them, and hot-plug.
 * The byte links themselves are transport.h's (tty, libftdi1): as in
 * libsigrok, finding a device is apart from talking to it.
 *
 * Tested against QEMU's emulated FT232 in a Debian guest
 * (test/firmware/board-qemu.sh): listing, permission denied and the udev
 * rules, hot-plug with and without udev running; without any device
 * (test/firmware/board-usb.sh): the paths where USB is missing or empty.
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
	uint8_t bus, addr;        /* bus number, device address */
	char where[32];           /* sysfs name: "1-2.3" (bus 1, ports 2.3) */
	char node[32];            /* its usbfs node, "/dev/bus/usb/001/002" (libusb opens it) */
	char serial[64];          /* "" when it could not be read */
	char product[64];
	char tty[64];             /* "/dev/ttyUSB0" if ftdi_sio has it, else "" */
	int denied;               /* opening it was refused: permissions (udev rules); its
				     strings then come from sysfs */
};

/* FT232R boards on USB; the count, or -1 (err says why: no USB here, libusb). */
int board_usb_list(struct board_usb *out, int max, struct eq_error *err);

/*
 * The board with this serial number ("" or NULL: the first one), or the
 * one whose tty node is tty (NULL: any); 1 found (*b), 0 none, -1 (err).
 */
int board_usb_find(const char *serial, const char *tty, struct board_usb *b,
		   struct eq_error *err);

/* One line about b: "USB 1-2 (bus 1, port 2, /dev/bus/usb/001/005)". */
const char *board_usb_where(const struct board_usb *b, char *buf, size_t n);

/*
 * Prints boards as they arrive and leave until *stop is set; the boards
 * already there are reported first.  fn gets arrived = 1 or 0 (a board
 * that left keeps the serial it arrived with).  Events come from libusb
 * hot-plug, or from a rescan every second where libusb has none or where
 * udev is not running (Debian's libusb takes its events from udevd: with
 * no udevd they never come); *how says which ("libusb hot-plug" or
 * "rescanning every second: ...why").  0, or -1.
 */
int board_usb_watch(volatile sig_atomic_t *stop,
		    void (*fn)(void *ctx, int arrived, const struct board_usb *b), void *ctx,
		    void (*started)(void *ctx, const char *how), struct eq_error *err);

/*
 * Whether the board behind a port spec ("tty:/dev/ttyUSB0", "ftdi:SERIAL")
 * is still on USB: 1 yes, 0 no (unplugged), -1 cannot tell (not a USB
 * port, no USB access here).
 */
int board_usb_present(const char *spec);

/* What to do about permission denied: the rules file (where this eqprof
 * finds it: installed, or its source tree) and the commands that install it. */
const char *board_usb_access_hint(void);
/* "WHO: permission denied opening NODE (crw------- root root); ALSO HINT"
 * (also: "" or what else to do first, ending in "and "); -1. */
int board_usb_denied(struct eq_error *err, const char *who, const char *node, const char *also);

#endif
