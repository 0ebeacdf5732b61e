/*
 * transport.h - byte links to the energy-counter board.  The protocol
 * (client.h, firmware/portable/proto.h) is separate from the transport, as
 * in libsigrok: the same client runs over
 *
 *   tty:PATH      a serial device through termios (the FT232R's ttyUSB
 *                 node with the ftdi_sio driver, or a pty: the tests bridge
 *                 one to the firmware running in simavr);
 *   ftdi:[SERIAL] the FT232R through libftdi1 (no kernel driver needed).
 *
 * A bare path means tty:PATH.
 */
#ifndef BOARD_TRANSPORT_H
#define BOARD_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"

struct board_link;

struct board_link_ops {
	/* Up to n bytes within timeout_ms; returns the count (0 on timeout) or -1. */
	int (*read)(struct board_link *l, uint8_t *buf, size_t n, int timeout_ms,
		    struct eq_error *err);
	/* All n bytes, or -1. */
	int (*write)(struct board_link *l, const uint8_t *buf, size_t n, struct eq_error *err);
	void (*close)(struct board_link *l);
};

struct board_link {
	const struct board_link_ops *ops;
	char name[128];           /* "tty:/dev/ttyUSB0", "ftdi:A10K3XYZ" */
	int gone;                 /* set by read/write: the device went away (unplugged) */
};

/* Opens spec at baud (8N1). */
struct board_link *board_link_open(const char *spec, unsigned baud, struct eq_error *err);
struct board_link *board_tty_open(const char *path, unsigned baud, struct eq_error *err);
struct board_link *board_ftdi_open(const char *serial, unsigned baud, struct eq_error *err);
static inline void board_link_close(struct board_link *l)
{
	if (l)
		l->ops->close(l);
}

/* spec, else $EQPROF_BOARD, else the first board board_list() finds. */
struct board_link *board_link_open_default(const char *spec, unsigned baud,
					   struct eq_error *err);

/* One board found by board_list(). */
struct board_found {
	char spec[128];           /* what to pass to --port */
	char what[256];           /* "FT232R 0403:6001 "FT232R USB UART", serial A10K3XYZ,
				     USB 1-2 (bus 1, port 2, /dev/bus/usb/001/005)" */
};
/* FT232R boards on USB (libusb), each by its tty node or as ftdi:SERIAL,
 * then other /dev/ttyUSB* nodes; the count.  Why USB could not be looked
 * at, or a board that may not be opened, goes into *note (else empty). */
int board_list(struct board_found *out, int max, struct eq_error *note);

#endif
