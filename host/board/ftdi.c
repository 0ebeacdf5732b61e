/*
 * ftdi.c - the board's FT232R through libftdi1: the chip set up by
 * libftdi1 (ftdi_sio detached while we hold it and re-attached when we let
 * go, as libftdi1's AUTO_DETACH_REATACH_SIO_MODULE does it), 1 ms latency
 * timer, bulk transfers kept queued for reading; and the list of ports, from
 * libusb (usb.c).
 *
 * Why the reads are not ftdi_read_data(): it keeps reading until its
 * buffer is full or a transfer returns only the two status bytes, which a
 * real FT232R sends every latency period when it has no data, but QEMU's
 * FT232 (hw/usb/dev-serial.c) never does: it NAKs instead, so with QEMU
 * ftdi_read_data() waits for its 5 s USB timeout and then returns an
 * error, dropping the bytes it had already copied.  Here bulk transfers
 * stay queued on the IN endpoint (libusb's asynchronous API), their
 * payload goes to a ring, and a read waits for data no longer than the
 * caller's timeout (docs/firmware.md, "QEMU's FT232 and a real FT232R").
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ftdi.h>
#include <libusb.h>

#include "transport.h"
#include "usb.h"

#define READ_CHUNK 512            /* bytes per bulk transfer: 8 full-speed packets */
#define NXFER      8              /* transfers kept queued on the IN endpoint */
#define RING       65536          /* bytes received, not yet read (a power of 2) */

struct ftdi_link {
	struct board_link base;
	struct ftdi_context *ftdi;
	struct libusb_transfer *xfer[NXFER];
	int queued;                   /* transfers submitted and not yet back */
	int failed;                   /* a transfer's libusb error (NO_DEVICE...), else 0 */
	uint64_t overflow;            /* bytes the ring had no room for */
	uint8_t ring[RING];
	size_t head, tail;            /* free-running: head - tail bytes waiting */
	uint8_t bufs[NXFER][READ_CHUNK];
};

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* A transfer's packets each begin with two status bytes: the rest to the ring. */
static void keep_payload(struct ftdi_link *f, const uint8_t *raw, int got)
{
	int mps = f->ftdi->max_packet_size > 2 ? f->ftdi->max_packet_size : 64, at, len, i;

	for (at = 0; at < got; at += mps) {
		len = got - at < mps ? got - at : mps;
		for (i = 2; i < len; i++) {
			if (f->head - f->tail == RING) {
				f->overflow++;
				continue;
			}
			f->ring[f->head++ % RING] = raw[at + i];
		}
	}
}

/*
 * A transfer came back: its data kept and the transfer queued again at
 * once, so that the chip is emptied while eqprof is busy elsewhere (as
 * ftdi_sio keeps its reads queued).  One transfer waited on at a time left
 * the FT232's 256 bytes (QEMU's 496) to fill between two reads and lost
 * records at the firmware's full rate in a busy guest (bench/board).
 */
static void LIBUSB_CALL transfer_done(struct libusb_transfer *t)
{
	struct ftdi_link *f = t->user_data;
	int rc;

	f->queued--;
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED:
		keep_payload(f, t->buffer, t->actual_length);
		break;
	case LIBUSB_TRANSFER_CANCELLED:
		return; /* closing */
	case LIBUSB_TRANSFER_NO_DEVICE:
		f->failed = LIBUSB_ERROR_NO_DEVICE;
		return;
	default:
		keep_payload(f, t->buffer, t->actual_length);
		f->failed = t->status == LIBUSB_TRANSFER_STALL ? LIBUSB_ERROR_PIPE : LIBUSB_ERROR_IO;
		return;
	}
	if (f->failed)
		return;
	rc = libusb_submit_transfer(t);
	if (rc == 0)
		f->queued++;
	else
		f->failed = rc;
}

/* Queues the IN transfers (once the chip is set up); 0 or a libusb error. */
static int start_reading(struct ftdi_link *f)
{
	int i, rc;

	for (i = 0; i < NXFER; i++) {
		f->xfer[i] = libusb_alloc_transfer(0);
		if (!f->xfer[i])
			return LIBUSB_ERROR_NO_MEM;
		libusb_fill_bulk_transfer(f->xfer[i], f->ftdi->usb_dev, (unsigned char)f->ftdi->out_ep,
					  f->bufs[i], READ_CHUNK, transfer_done, f, 0);
		rc = libusb_submit_transfer(f->xfer[i]);
		if (rc != 0)
			return rc;
		f->queued++;
	}
	return 0;
}

static int usb_gone(struct board_link *l, struct eq_error *err)
{
	l->gone = 1;
	return eq_fail(err, "%s: the board is gone from USB (unplugged?)", l->name);
}

static int ftdi_link_read(struct board_link *l, uint8_t *buf, size_t n, int timeout_ms,
			  struct eq_error *err)
{
	struct ftdi_link *f = (struct ftdi_link *)l;
	double end = mono_ms() + timeout_ms;
	size_t k;
	int rc;

	for (;;) {
		if (f->head != f->tail) {
			for (k = 0; k < n && f->tail != f->head; k++)
				buf[k] = f->ring[f->tail++ % RING];
			return (int)k;
		}
		if (f->failed == LIBUSB_ERROR_NO_DEVICE ||
		    (f->failed && board_usb_present(l->name) == 0))
			return usb_gone(l, err);
		if (f->failed)
			return eq_fail(err, "%s: USB read: %s", l->name,
				       libusb_strerror((enum libusb_error)f->failed));
		if (mono_ms() >= end)
			return 0;
		{
			double left = end - mono_ms();
			struct timeval tv = { (time_t)(left / 1e3),
					      (suseconds_t)(left > 0 ? ((long)(left * 1e3)) % 1000000 : 0) };

			rc = libusb_handle_events_timeout_completed(f->ftdi->usb_ctx, &tv, NULL);
		}
		if (rc != 0 && rc != LIBUSB_ERROR_INTERRUPTED && rc != LIBUSB_ERROR_TIMEOUT)
			f->failed = rc;
	}
}

static int ftdi_link_write(struct board_link *l, const uint8_t *buf, size_t n,
			   struct eq_error *err)
{
	struct ftdi_link *f = (struct ftdi_link *)l;
	int rc = ftdi_write_data(f->ftdi, buf, (int)n);

	/* A write to a board being unplugged can fail otherwise than with
	 * NO_DEVICE (the transfer cut short): ask USB whether it is there. */
	if (rc == LIBUSB_ERROR_NO_DEVICE || (rc < 0 && board_usb_present(l->name) == 0))
		return usb_gone(l, err);
	if (rc != (int)n)
		return eq_fail(err, "%s: write: %s", l->name, ftdi_get_error_string(f->ftdi));
	return 0;
}

/* The queued transfers cancelled and back (a gone device gives them back
 * at once), then freed. */
static void stop_reading(struct ftdi_link *f)
{
	double end = mono_ms() + 1000;
	int i;

	for (i = 0; i < NXFER; i++)
		if (f->xfer[i])
			libusb_cancel_transfer(f->xfer[i]);
	while (f->queued > 0 && mono_ms() < end) {
		struct timeval tv = { 0, 50000 };

		if (libusb_handle_events_timeout_completed(f->ftdi->usb_ctx, &tv, NULL) < 0 &&
		    f->failed == LIBUSB_ERROR_NO_DEVICE)
			break;
	}
	for (i = 0; i < NXFER; i++)
		if (f->xfer[i] && f->queued <= 0)
			libusb_free_transfer(f->xfer[i]);
}

static void ftdi_link_close(struct board_link *l)
{
	struct ftdi_link *f = (struct ftdi_link *)l;

	stop_reading(f);
	/* Releasing the interface gives it back to ftdi_sio (auto-detach). */
	ftdi_usb_close(f->ftdi);
	ftdi_free(f->ftdi);
	free(f);
}

static const struct board_link_ops ftdi_ops = {
	.read = ftdi_link_read, .write = ftdi_link_write, .close = ftdi_link_close,
};

/* The libusb device of board b in libftdi1's own libusb context. */
static libusb_device *device_of(struct ftdi_context *ftdi, const struct board_usb *b,
				libusb_device ***list)
{
	ssize_t n = libusb_get_device_list(ftdi->usb_ctx, list), i;

	for (i = 0; i < n; i++)
		if (libusb_get_bus_number((*list)[i]) == b->bus &&
		    libusb_get_device_address((*list)[i]) == b->addr)
			return (*list)[i];
	return NULL;
}

/* Opens b with libftdi1 and sets the link up; 0, or -1 (err). */
static int open_board(struct ftdi_link *f, const struct board_usb *b, unsigned baud,
		      struct eq_error *err)
{
	libusb_device **list = NULL, *dev = device_of(f->ftdi, b, &list);
	char where[128];
	int rc = dev ? ftdi_usb_open_dev(f->ftdi, dev) : -3;

	if (list)
		libusb_free_device_list(list, 1);
	board_usb_where(b, where, sizeof(where));
	if (rc == -3)
		return eq_fail(err, "%s: the board left %s as it was being opened", f->base.name, where);
	if (rc == -4 && access(b->node, R_OK | W_OK) != 0)
		return board_usb_denied(err, f->base.name, b->node, NULL);
	if (rc == -5)
		return eq_fail(err, "%s: the board on %s is in use: another program has claimed it "
			       "(a second eqprof? `fuser %s` names it)", f->base.name, where, b->node);
	if (rc < 0 || ftdi_set_baudrate(f->ftdi, (int)baud) < 0 ||
	    ftdi_set_line_property(f->ftdi, BITS_8, STOP_BIT_1, NONE) < 0 ||
	    ftdi_setflowctrl(f->ftdi, SIO_DISABLE_FLOW_CTRL) < 0 ||
	    ftdi_set_latency_timer(f->ftdi, 1) < 0 || ftdi_tcioflush(f->ftdi) < 0)
		return eq_fail(err, "%s: setting up the board on %s: %s", f->base.name, where,
			       ftdi_get_error_string(f->ftdi));
	rc = start_reading(f);
	if (rc != 0)
		return eq_fail(err, "%s: reading from the board on %s: %s", f->base.name, where,
			       libusb_strerror((enum libusb_error)rc));
	return 0;
}

struct board_link *board_ftdi_open(const char *serial, unsigned baud, struct eq_error *err)
{
	struct ftdi_link *f;
	struct board_usb b;
	int found = board_usb_find(serial, NULL, &b, err);
	char name[96];

	snprintf(name, sizeof(name), "ftdi:%s", serial && *serial ? serial : "(first)");
	if (found < 0) {
		eq_fail_prefix(err, "%s", name);
		return NULL;
	}
	if (found == 0) {
		eq_fail(err, "%s: device not found: no FT232R (USB %04x:%04x) %s%s on USB; "
			"`eqprof board list` shows what is", name, BOARD_USB_VID, BOARD_USB_PID,
			serial && *serial ? "with serial number " : "", serial ? serial : "");
		return NULL;
	}
	if (b.denied) {
		board_usb_denied(err, name, b.node, NULL);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->ftdi = ftdi_new())) {
		free(f);
		eq_fail(err, "libftdi1: cannot allocate a context");
		return NULL;
	}
	f->base.ops = &ftdi_ops;
	snprintf(f->base.name, sizeof(f->base.name), "ftdi:%s", b.serial[0] ? b.serial : "(first)");
	f->ftdi->module_detach_mode = AUTO_DETACH_REATACH_SIO_MODULE;
	if (open_board(f, &b, baud, err) < 0) {
		stop_reading(f);
		ftdi_usb_close(f->ftdi);
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
		char where[96];

		if (usb[k].tty[0])
			snprintf(out[n].spec, sizeof(out[n].spec), "tty:%s", usb[k].tty);
		else
			snprintf(out[n].spec, sizeof(out[n].spec), "ftdi:%s", usb[k].serial);
		snprintf(out[n].what, sizeof(out[n].what), "FT232R %04x:%04x \"%.40s\", serial %.40s, %s%s",
			 BOARD_USB_VID, BOARD_USB_PID,
			 usb[k].product[0] ? usb[k].product : "(product unknown)",
			 usb[k].serial[0] ? usb[k].serial : "(unknown)",
			 board_usb_where(&usb[k], where, sizeof(where)),
			 usb[k].denied ? ": permission denied (see the note)" :
			 usb[k].tty[0] ? "" : ", no tty (ftdi_sio not bound)");
		if (usb[k].denied)
			board_usb_denied(note, "a board on USB", usb[k].node, NULL);
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
