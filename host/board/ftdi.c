/*
 * ftdi.c - the board's FT232R through libftdi1: no kernel driver, 1 ms
 * latency timer (the chip otherwise holds short packets for 16 ms); and
 * the list of ports, from libusb (usb.c).
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ftdi.h>

#include "transport.h"
#include "usb.h"


struct ftdi_link {
	struct board_link base;
	struct ftdi_context *ftdi;
};

static int ftdi_link_read(struct board_link *l, uint8_t *buf, size_t n, int timeout_ms,
			  struct eq_error *err)
{
	struct ftdi_link *f = (struct ftdi_link *)l;
	struct timespec nap = { 0, 500000 };
	int waited = 0, r;

	/* libftdi reads do not block: poll every 0.5 ms up to the timeout. */
	for (;;) {
		r = ftdi_read_data(f->ftdi, buf, (int)n);
		if (r < 0)
			return eq_fail(err, "%s: read: %s", l->name, ftdi_get_error_string(f->ftdi));
		if (r > 0 || waited >= timeout_ms * 2)
			return r;
		nanosleep(&nap, NULL);
		waited++;
	}
}

static int ftdi_link_write(struct board_link *l, const uint8_t *buf, size_t n,
			   struct eq_error *err)
{
	struct ftdi_link *f = (struct ftdi_link *)l;

	if (ftdi_write_data(f->ftdi, buf, (int)n) != (int)n)
		return eq_fail(err, "%s: write: %s", l->name, ftdi_get_error_string(f->ftdi));
	return 0;
}

static void ftdi_link_close(struct board_link *l)
{
	struct ftdi_link *f = (struct ftdi_link *)l;

	ftdi_usb_close(f->ftdi);
	ftdi_free(f->ftdi);
	free(f);
}

static const struct board_link_ops ftdi_ops = {
	.read = ftdi_link_read, .write = ftdi_link_write, .close = ftdi_link_close,
};

struct board_link *board_ftdi_open(const char *serial, unsigned baud, struct eq_error *err)
{
	struct ftdi_link *f = calloc(1, sizeof(*f));
	int rc;

	if (!f || !(f->ftdi = ftdi_new())) {
		free(f);
		eq_fail(err, "libftdi1: cannot allocate a context");
		return NULL;
	}
	f->base.ops = &ftdi_ops;
	snprintf(f->base.name, sizeof(f->base.name), "ftdi:%s", serial && *serial ? serial : "(first)");
	rc = ftdi_usb_open_desc(f->ftdi, BOARD_USB_VID, BOARD_USB_PID, NULL,
				serial && *serial ? serial : NULL);
	if (rc == -8) {
		/* libftdi1: libusb_open() said LIBUSB_ERROR_ACCESS. */
		eq_fail(err, "%s: permission denied opening the board on USB; %s", f->base.name,
			board_usb_access_hint());
		ftdi_free(f->ftdi);
		free(f);
		return NULL;
	}
	if (rc < 0 || ftdi_set_baudrate(f->ftdi, (int)baud) < 0 ||
	    ftdi_set_line_property(f->ftdi, BITS_8, STOP_BIT_1, NONE) < 0 ||
	    ftdi_set_latency_timer(f->ftdi, 1) < 0 ||
	    ftdi_tcioflush(f->ftdi) < 0) {
		eq_fail(err, "%s: %s (is the board plugged in? `eqprof board list` shows what is)",
			f->base.name, ftdi_get_error_string(f->ftdi));
		ftdi_free(f->ftdi);
		free(f);
		return NULL;
	}
	return &f->base;
}

struct board_link *board_link_open(const char *spec, unsigned baud, struct eq_error *err)
{
	if (!strncmp(spec, "ftdi:", 5))
		return board_ftdi_open(spec + 5, baud, err);
	if (!strncmp(spec, "tty:", 4))
		spec += 4;
	return board_tty_open(spec, baud, err);
}

struct board_link *board_link_open_default(const char *spec, unsigned baud,
					   struct eq_error *err)
{
	struct board_found found[8];
	struct eq_error note;
	int n;

	if (!spec || !*spec)
		spec = getenv("EQPROF_BOARD");
	if (!spec || !*spec) {
		n = board_list(found, 8, &note);
		if (n == 0) {
			eq_fail(err, "no board found (FT232R 0403:6001 on USB, /dev/ttyUSB*)%s%s; give "
				"--port SPEC", note.msg[0] ? ": " : "", note.msg);
			return NULL;
		}
		spec = found[0].spec;
	}
	return board_link_open(spec, baud, err);
}

/*
 * Boards on USB (libusb: usb.h), each by the port that reaches it: its tty
 * node when ftdi_sio has it, else libftdi1 by serial; then any other
 * /dev/ttyUSB* node.  Never fails: why USB could not be looked at goes
 * into *note (empty when it could).
 */
int board_list(struct board_found *out, int max, struct eq_error *note)
{
	struct board_usb usb[16];
	glob_t g;
	size_t i;
	int n = 0, nu, k;

	note->msg[0] = 0;
	nu = board_usb_list(usb, 16, note);
	for (k = 0; k < nu && n < max; k++, n++) {
		if (usb[k].tty[0])
			snprintf(out[n].spec, sizeof(out[n].spec), "tty:%s", usb[k].tty);
		else
			snprintf(out[n].spec, sizeof(out[n].spec), "ftdi:%s", usb[k].serial);
		snprintf(out[n].what, sizeof(out[n].what), "FT232R %.48s, serial %.48s, USB %s%s",
			 usb[k].product[0] ? usb[k].product : "(product unknown)",
			 usb[k].serial[0] ? usb[k].serial : "(unknown)", usb[k].where,
			 usb[k].denied ? ": permission denied (udev rules, see `board list`)" : "");
		if (usb[k].denied)
			eq_fail(note, "a board on USB %s cannot be opened: permission denied; %s",
				usb[k].where, board_usb_access_hint());
	}
	if (glob("/dev/ttyUSB*", 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc && n < max; i++) {
			for (k = 0; k < nu && strcmp(usb[k].tty, g.gl_pathv[i]); k++)
				;
			if (k < nu)
				continue; /* listed above */
			snprintf(out[n].spec, sizeof(out[n].spec), "tty:%s", g.gl_pathv[i]);
			snprintf(out[n].what, sizeof(out[n].what),
				 "serial device (not an FT232R seen on USB)");
			n++;
		}
		globfree(&g);
	}
	return n;
}
