/*
 * ftdi.c - the board's FT232R through libftdi1: no kernel driver, 1 ms
 * latency timer (the chip otherwise holds short packets for 16 ms), and
 * device listing by USB id.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ftdi.h>

#include "transport.h"

#define FT232R_VID 0x0403
#define FT232R_PID 0x6001

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

	if (!f || !(f->ftdi = ftdi_new())) {
		free(f);
		eq_fail(err, "libftdi1: cannot allocate a context");
		return NULL;
	}
	f->base.ops = &ftdi_ops;
	snprintf(f->base.name, sizeof(f->base.name), "ftdi:%s", serial && *serial ? serial : "(first)");
	if (ftdi_usb_open_desc(f->ftdi, FT232R_VID, FT232R_PID, NULL,
			       serial && *serial ? serial : NULL) < 0 ||
	    ftdi_set_baudrate(f->ftdi, (int)baud) < 0 ||
	    ftdi_set_line_property(f->ftdi, BITS_8, STOP_BIT_1, NONE) < 0 ||
	    ftdi_set_latency_timer(f->ftdi, 1) < 0 ||
	    ftdi_tcioflush(f->ftdi) < 0) {
		eq_fail(err, "%s: %s (is the board plugged in? `eqprof board list`; udev rules "
			"for 0403:6001 in docs/firmware.md)", f->base.name,
			ftdi_get_error_string(f->ftdi));
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

static int list_ftdi(struct board_found *out, int max, struct eq_error *err)
{
	struct ftdi_context *ftdi = ftdi_new();
	struct ftdi_device_list *devs = NULL, *d;
	int n = 0, r;

	if (!ftdi)
		return eq_fail(err, "libftdi1: cannot allocate a context");
	r = ftdi_usb_find_all(ftdi, &devs, FT232R_VID, FT232R_PID);
	if (r < 0) {
		/* No USB access here (container, permissions): no FTDI boards to list. */
		ftdi_free(ftdi);
		return 0;
	}
	for (d = devs; d && n < max; d = d->next) {
		char manuf[64] = "", desc[64] = "", serial[64] = "";

		ftdi_usb_get_strings(ftdi, d->dev, manuf, sizeof(manuf), desc, sizeof(desc),
				     serial, sizeof(serial));
		snprintf(out[n].spec, sizeof(out[n].spec), "ftdi:%s", serial);
		snprintf(out[n].what, sizeof(out[n].what), "%s %s, serial %s", manuf, desc,
			 *serial ? serial : "(none)");
		n++;
	}
	ftdi_list_free(&devs);
	ftdi_free(ftdi);
	return n;
}

int board_list(struct board_found *out, int max, struct eq_error *err)
{
	glob_t g;
	size_t i;
	int n = list_ftdi(out, max, err);

	if (n < 0)
		return -1;
	if (glob("/dev/ttyUSB*", 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc && n < max; i++, n++) {
			snprintf(out[n].spec, sizeof(out[n].spec), "tty:%s", g.gl_pathv[i]);
			snprintf(out[n].what, sizeof(out[n].what), "serial device (ftdi_sio or other)");
		}
		globfree(&g);
	}
	return n;
}
