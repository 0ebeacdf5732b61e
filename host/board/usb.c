/*
 * usb.c - finding the board on USB with libusb-1.0 (see usb.h).
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libusb.h>

#include "usb.h"

#define MAX_BOARDS 16

/* The rules file where this eqprof finds it: `make install` puts it in
 * PREFIX/share/eqprof, a build tree sits beside the source's firmware/. */
static const char *rules_path(void)
{
	static char path[PATH_MAX + 64];
	static const char *const rel[] = {
		"../share/eqprof/", "../firmware/", "../../firmware/", "../../../firmware/",
	};
	char exe[PATH_MAX], *dir;
	ssize_t n;
	size_t i;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		dir = dirname(exe);
		for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			char p[PATH_MAX + 64], real[PATH_MAX];

			snprintf(p, sizeof(p), "%s/%s" BOARD_UDEV_RULES, dir, rel[i]);
			if (access(p, R_OK) == 0 && realpath(p, real)) {
				snprintf(path, sizeof(path), "%s", real);
				return path;
			}
		}
	}
	snprintf(path, sizeof(path), "firmware/" BOARD_UDEV_RULES);
	return path;
}

const char *board_usb_access_hint(void)
{
	static char hint[3 * PATH_MAX];

	if (!hint[0])
		snprintf(hint, sizeof(hint), "install the udev rules %s%s (sudo cp %s /etc/udev/rules.d/ "
			 "&& sudo udevadm control --reload-rules && sudo udevadm trigger), then replug "
			 "the board; docs/firmware.md, \"Finding the board\"", rules_path(),
			 rules_path()[0] == '/' ? "" : " from eqprof's source", rules_path());
	return hint;
}

int board_usb_denied(struct eq_error *err, const char *who, const char *node, const char *also)
{
	struct stat st;
	char owner[64] = "";

	if (stat(node, &st) == 0) {
		struct passwd *pw = getpwuid(st.st_uid);
		struct group *gr = getgrgid(st.st_gid);
		char mode[11] = "c---------";
		int i;

		for (i = 0; i < 9; i++)
			if (st.st_mode & (0400 >> i))
				mode[1 + i] = "rwxrwxrwx"[i];
		snprintf(owner, sizeof(owner), " (%s %s %s)", mode,
			 pw ? pw->pw_name : "?", gr ? gr->gr_name : "?");
	}
	return eq_fail(err, "%s: permission denied opening %s%s; %s%s", who, node, owner,
		       also ? also : "", board_usb_access_hint());
}

static int usb_fail(struct eq_error *err, const char *what, int rc)
{
	return eq_fail(err, "USB (libusb): %s: %s%s", what, libusb_strerror((enum libusb_error)rc),
		       rc == LIBUSB_ERROR_OTHER || rc == LIBUSB_ERROR_NOT_FOUND ?
		       " (no USB bus visible here: a container or a machine without USB?)" : "");
}

/* A sysfs attribute of the device (strings the kernel read at enumeration:
 * readable without the rights to open the device). */
static void sysfs_attr(const char *where, const char *name, char *buf, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", where, name);
	buf[0] = 0;
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
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

/* Where a device is: bus, address, port path as sysfs names it ("1-2.3"). */
static void where_of(libusb_device *dev, struct board_usb *b)
{
	uint8_t ports[8];
	int n = libusb_get_port_numbers(dev, ports, sizeof(ports)), i;
	size_t at;

	b->bus = libusb_get_bus_number(dev);
	b->addr = libusb_get_device_address(dev);
	snprintf(b->node, sizeof(b->node), "/dev/bus/usb/%03u/%03u", b->bus, b->addr);
	at = (size_t)snprintf(b->where, sizeof(b->where), "%u-", b->bus);
	for (i = 0; i < n && at < sizeof(b->where); i++)
		at += (size_t)snprintf(b->where + at, sizeof(b->where) - at, i ? ".%u" : "%u", ports[i]);
}

const char *board_usb_where(const struct board_usb *b, char *buf, size_t n)
{
	const char *port = strchr(b->where, '-');

	snprintf(buf, n, "USB %s (bus %u, port %s, %s)", b->where, b->bus, port ? port + 1 : "?",
		 b->node);
	return buf;
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
	if (!b->serial[0])
		sysfs_attr(b->where, "serial", b->serial, sizeof(b->serial));
	if (!b->product[0])
		sysfs_attr(b->where, "product", b->product, sizeof(b->product));
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

int board_usb_find(const char *serial, const char *tty, struct board_usb *b,
		   struct eq_error *err)
{
	struct board_usb all[MAX_BOARDS];
	int n = board_usb_list(all, MAX_BOARDS, err), i;

	for (i = 0; i < n; i++) {
		if ((serial && *serial && strcmp(all[i].serial, serial)) ||
		    (tty && strcmp(all[i].tty, tty)))
			continue;
		*b = all[i];
		return 1;
	}
	return n < 0 ? -1 : 0;
}

int board_usb_present(const char *spec)
{
	struct board_usb b;
	struct eq_error err;
	const char *what = spec;
	int ftdi = !strncmp(spec, "ftdi:", 5);

	if (ftdi)
		what = spec + 5;
	else if (!strncmp(spec, "tty:", 4))
		what = spec + 4;
	if (!ftdi && strncmp(what, "/dev/ttyUSB", 11))
		return -1; /* a pty, a built-in UART: not ours to tell */
	return board_usb_find(ftdi ? what : NULL, ftdi ? NULL : what, &b, &err);
}

/* ---- hot-plug ------------------------------------------------------------ */

struct watch {
	void (*fn)(void *ctx, int arrived, const struct board_usb *b);
	void *ctx;
	struct board_usb seen[MAX_BOARDS]; /* arrived and not left: to name what leaves */
	int nseen;
};

static void arrived(struct watch *w, const struct board_usb *b)
{
	if (w->nseen < MAX_BOARDS)
		w->seen[w->nseen++] = *b;
	w->fn(w->ctx, 1, b);
}

/* A board left from where: reported with what it was when it arrived. */
static void left(struct watch *w, const struct board_usb *b)
{
	int i;

	for (i = 0; i < w->nseen; i++)
		if (!strcmp(w->seen[i].where, b->where) && w->seen[i].addr == b->addr)
			break;
	if (i == w->nseen) {
		w->fn(w->ctx, 0, b);
		return;
	}
	w->fn(w->ctx, 0, &w->seen[i]);
	w->seen[i] = w->seen[--w->nseen];
}

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
		left(w, &b);
	} else if (describe(dev, &b)) {
		arrived(w, &b);
	}
	return 0;
}

/*
 * Rescans every second and reports the changes.  Each scan is a fresh
 * libusb context: a context's device list is kept up to date by the
 * hot-plug events it hears (libusb_get_device_list() does not look at the
 * bus again), which is what is missing here.
 */
static int watch_by_rescan(volatile sig_atomic_t *stop, struct watch *w, struct eq_error *err)
{
	struct board_usb now[MAX_BOARDS];
	int nn, i, j;
	struct timespec second = { 1, 0 };

	while (!*stop) {
		nn = board_usb_list(now, MAX_BOARDS, err);
		if (nn < 0)
			return -1;
		for (j = w->nseen - 1; j >= 0; j--) {
			for (i = 0; i < nn && (strcmp(w->seen[j].where, now[i].where) ||
					       w->seen[j].addr != now[i].addr); i++)
				;
			if (i == nn)
				left(w, &w->seen[j]);
		}
		for (i = 0; i < nn; i++) {
			for (j = 0; j < w->nseen && (strcmp(w->seen[j].where, now[i].where) ||
						     w->seen[j].addr != now[i].addr); j++)
				;
			if (j == w->nseen)
				arrived(w, &now[i]);
		}
		nanosleep(&second, NULL);
	}
	return 0;
}

/* Debian's libusb takes hot-plug events from udevd, which announces itself
 * with this socket (libudev and udevadm test the same path). */
#define UDEV_CONTROL "/run/udev/control"

int board_usb_watch(volatile sig_atomic_t *stop,
		    void (*fn)(void *ctx, int arrived, const struct board_usb *b), void *ctx,
		    void (*started)(void *ctx, const char *how), struct eq_error *err)
{
	static struct watch w;
	libusb_hotplug_callback_handle handle;
	libusb_context *usb;
	int rc = libusb_init(&usb);

	memset(&w, 0, sizeof(w));
	w.fn = fn;
	w.ctx = ctx;
	if (rc != 0)
		return usb_fail(err, "starting", rc);
	if (!libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG) || access(UDEV_CONTROL, F_OK) != 0) {
		started(ctx, libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG) ?
			"rescanning every second: udev is not running here (no " UDEV_CONTROL "), "
			"so libusb would hear of no hot-plug event" :
			"rescanning every second: this libusb has no hot-plug");
		libusb_exit(usb);
		return watch_by_rescan(stop, &w, err);
	}
	rc = libusb_hotplug_register_callback(usb, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED |
					      LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT,
					      LIBUSB_HOTPLUG_ENUMERATE, BOARD_USB_VID, BOARD_USB_PID,
					      LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, &w, &handle);
	if (rc != 0) {
		libusb_exit(usb);
		return usb_fail(err, "watching for boards (hot-plug)", rc);
	}
	started(ctx, "libusb hot-plug");
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
