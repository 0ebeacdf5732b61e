/*
 * usb.c - finding the board on USB with libusb-1.0 (see usb.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libusb.h>

#include "usb.h"

const char *board_usb_access_hint(void)
{
	return "install the udev rules shipped in firmware/" BOARD_UDEV_RULES
	       " (sudo cp firmware/" BOARD_UDEV_RULES " /etc/udev/rules.d/ && sudo udevadm "
	       "control --reload-rules && sudo udevadm trigger), then replug the board; "
	       "docs/firmware.md, \"Finding the board\"";
}

static int usb_fail(struct eq_error *err, const char *what, int rc)
{
	return eq_fail(err, "USB (libusb): %s: %s%s", what, libusb_strerror((enum libusb_error)rc),
		       rc == LIBUSB_ERROR_OTHER || rc == LIBUSB_ERROR_NOT_FOUND ?
		       " (no USB bus visible here: a container or a machine without USB?)" : "");
}

/* The tty node ftdi_sio made for the board's interface 0, if any. */
static void find_tty(struct board_usb *b)
{
	char dir[128];
	struct dirent *e;
	DIR *d;

	b->tty[0] = 0;
	snprintf(dir, sizeof(dir), "/sys/bus/usb/devices/%s:1.0", b->where);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "ttyUSB", 6)) {
			snprintf(b->tty, sizeof(b->tty), "/dev/%.40s", e->d_name);
			break;
		}
	closedir(d);
}

/* Where a device is: its bus and port path, as sysfs names it ("1-2.3"). */
static void where_of(libusb_device *dev, struct board_usb *b)
{
	uint8_t ports[8];
	int n = libusb_get_port_numbers(dev, ports, sizeof(ports)), i;
	size_t at;

	b->bus = libusb_get_bus_number(dev);
	at = (size_t)snprintf(b->where, sizeof(b->where), "%u-", b->bus);
	for (i = 0; i < n && at < sizeof(b->where); i++)
		at += (size_t)snprintf(b->where + at, sizeof(b->where) - at, i ? ".%u" : "%u", ports[i]);
}

/* What one device is, if it is a board; 1 then, else 0. */
static int describe(libusb_device *dev, struct board_usb *b)
{
	struct libusb_device_descriptor desc;
	libusb_device_handle *h;
	int rc;

	if (libusb_get_device_descriptor(dev, &desc) != 0 || desc.idVendor != BOARD_USB_VID ||
	    desc.idProduct != BOARD_USB_PID)
		return 0;
	memset(b, 0, sizeof(*b));
	where_of(dev, b);
	rc = libusb_open(dev, &h);
	if (rc == LIBUSB_ERROR_ACCESS) {
		b->denied = 1;
	} else if (rc == 0) {
		if (desc.iSerialNumber)
			libusb_get_string_descriptor_ascii(h, desc.iSerialNumber, (unsigned char *)b->serial,
							   sizeof(b->serial));
		if (desc.iProduct)
			libusb_get_string_descriptor_ascii(h, desc.iProduct, (unsigned char *)b->product,
							   sizeof(b->product));
		libusb_close(h);
	}
	find_tty(b);
	return 1;
}

static int scan(libusb_context *ctx, struct board_usb *out, int max, struct eq_error *err)
{
	libusb_device **list;
	ssize_t n = libusb_get_device_list(ctx, &list), i;
	int k = 0;

	if (n < 0)
		return usb_fail(err, "listing devices", (int)n);
	if (n == 0)
		eq_fail(err, "USB (libusb): no USB device visible at all (a container, or a machine "
			"without USB?)");
	for (i = 0; i < n && k < max; i++)
		k += describe(list[i], &out[k]);
	libusb_free_device_list(list, 1);
	return k;
}

int board_usb_list(struct board_usb *out, int max, struct eq_error *err)
{
	libusb_context *ctx;
	int rc = libusb_init(&ctx);

	if (rc != 0)
		return usb_fail(err, "starting", rc);
	rc = scan(ctx, out, max, err);
	libusb_exit(ctx);
	return rc;
}

int board_usb_present(const char *spec)
{
	struct board_usb b[16];
	struct eq_error err;
	const char *what = spec;
	int n, i, ftdi = !strncmp(spec, "ftdi:", 5);

	if (ftdi)
		what = spec + 5;
	else if (!strncmp(spec, "tty:", 4))
		what = spec + 4;
	if (!ftdi && strncmp(what, "/dev/ttyUSB", 11))
		return -1; /* a pty, a built-in UART: not ours to tell */
	n = board_usb_list(b, 16, &err);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (ftdi ? !*what || !strcmp(b[i].serial, what) : !strcmp(b[i].tty, what))
			return 1;
	return 0;
}

/* ---- hot-plug ------------------------------------------------------------ */

struct watch {
	void (*fn)(void *ctx, int arrived, const struct board_usb *b);
	void *ctx;
};

static int LIBUSB_CALL on_hotplug(libusb_context *ctx, libusb_device *dev,
				  libusb_hotplug_event event, void *user)
{
	struct watch *w = user;
	struct board_usb b;

	(void)ctx;
	if (event == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT) {
		/* It is gone: no strings to read, only where it was. */
		memset(&b, 0, sizeof(b));
		where_of(dev, &b);
		w->fn(w->ctx, 0, &b);
	} else if (describe(dev, &b)) {
		w->fn(w->ctx, 1, &b);
	}
	return 0;
}

/* Without libusb hot-plug: rescan every second and report the changes. */
static int watch_by_rescan(libusb_context *ctx, volatile sig_atomic_t *stop, struct watch *w,
			   struct eq_error *err)
{
	struct board_usb before[16], now[16];
	int nb = 0, nn, i, j;
	struct timespec second = { 1, 0 };

	while (!*stop) {
		nn = scan(ctx, now, 16, err);
		if (nn < 0)
			return -1;
		for (i = 0; i < nn; i++) {
			for (j = 0; j < nb && strcmp(before[j].where, now[i].where); j++)
				;
			if (j == nb)
				w->fn(w->ctx, 1, &now[i]);
		}
		for (j = 0; j < nb; j++) {
			for (i = 0; i < nn && strcmp(before[j].where, now[i].where); i++)
				;
			if (i == nn)
				w->fn(w->ctx, 0, &before[j]);
		}
		memcpy(before, now, sizeof(now));
		nb = nn;
		nanosleep(&second, NULL);
	}
	return 0;
}

int board_usb_watch(volatile sig_atomic_t *stop,
		    void (*fn)(void *ctx, int arrived, const struct board_usb *b), void *ctx,
		    struct eq_error *err)
{
	struct watch w = { fn, ctx };
	libusb_hotplug_callback_handle handle;
	libusb_context *usb;
	int rc = libusb_init(&usb);

	if (rc != 0)
		return usb_fail(err, "starting", rc);
	if (!libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG)) {
		rc = watch_by_rescan(usb, stop, &w, err);
		libusb_exit(usb);
		return rc;
	}
	rc = libusb_hotplug_register_callback(usb, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED |
					      LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT,
					      LIBUSB_HOTPLUG_ENUMERATE, BOARD_USB_VID, BOARD_USB_PID,
					      LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, &w, &handle);
	if (rc != 0) {
		libusb_exit(usb);
		return usb_fail(err, "watching for boards (hot-plug)", rc);
	}
	while (!*stop) {
		struct timeval tv = { 0, 200000 };

		rc = libusb_handle_events_timeout_completed(usb, &tv, NULL);
		if (rc != 0 && rc != LIBUSB_ERROR_INTERRUPTED) {
			libusb_hotplug_deregister_callback(usb, handle);
			libusb_exit(usb);
			return usb_fail(err, "watching for boards (hot-plug)", rc);
		}
	}
	libusb_hotplug_deregister_callback(usb, handle);
	libusb_exit(usb);
	return 0;
}
