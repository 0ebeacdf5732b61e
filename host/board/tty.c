/*
 * tty.c - the board over a serial device: termios raw 8N1, reads with
 * poll() timeouts.  Works on the FT232R's /dev/ttyUSB* and on ptys.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "transport.h"
#include "usb.h"

struct tty_link {
	struct board_link base;
	int fd;
};

static speed_t baud_constant(unsigned baud)
{
	switch (baud) {
	case 9600: return B9600;
	case 115200: return B115200;
	case 230400: return B230400;
	case 500000: return B500000;
	case 1000000: return B1000000;
	case 2000000: return B2000000;
	}
	return 0;
}

static int tty_read(struct board_link *l, uint8_t *buf, size_t n, int timeout_ms,
		    struct eq_error *err)
{
	struct tty_link *t = (struct tty_link *)l;
	struct pollfd p = { .fd = t->fd, .events = POLLIN };
	ssize_t got;
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return eq_fail(err, "%s: poll: %s", l->name, strerror(errno));
	if (r == 0)
		return 0;
	got = read(t->fd, buf, n);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	/* ftdi_sio hangs the tty up when its device goes: EOF or EIO. */
	if (got == 0 || (got < 0 && (errno == EIO || errno == ENODEV)) ||
	    (got < 0 && (p.revents & (POLLHUP | POLLERR)))) {
		l->gone = 1;
		return eq_fail(err, "%s: the device went away (unplugged?)", l->name);
	}
	if (got < 0)
		return eq_fail(err, "%s: read: %s", l->name, strerror(errno));
	return (int)got;
}

static int tty_write(struct board_link *l, const uint8_t *buf, size_t n, struct eq_error *err)
{
	struct tty_link *t = (struct tty_link *)l;

	while (n) {
		ssize_t w = write(t->fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = t->fd, .events = POLLOUT };

			poll(&p, 1, 100);
			continue;
		}
		if (w < 0 && (errno == EIO || errno == ENODEV)) {
			l->gone = 1;
			return eq_fail(err, "%s: the device went away (unplugged?)", l->name);
		}
		if (w < 0)
			return eq_fail(err, "%s: write: %s", l->name, strerror(errno));
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static void tty_close(struct board_link *l)
{
	struct tty_link *t = (struct tty_link *)l;

	close(t->fd);
	free(t);
}

static const struct board_link_ops tty_ops = {
	.read = tty_read, .write = tty_write, .close = tty_close,
};

struct board_link *board_tty_open(const char *path, unsigned baud, struct eq_error *err)
{
	struct termios tio;
	struct tty_link *t;
	speed_t speed = baud_constant(baud);
	int fd;

	if (!speed) {
		eq_fail(err, "%s: %u baud is not a termios speed (use 115200, 500000, 1000000...)",
			path, baud);
		return NULL;
	}
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		/* The rules give the tty to group dialout (and the seat's user). */
		board_usb_denied(err, path, path, "add yourself to the dialout group (sudo usermod "
				 "-aG dialout $USER, then log in again) and ");
		return NULL;
	}
	if (fd < 0) {
		eq_fail(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (tcgetattr(fd, &tio) < 0) {
		eq_fail(err, "%s: not a serial device: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
	cfsetispeed(&tio, speed);
	cfsetospeed(&tio, speed);
	if (tcsetattr(fd, TCSANOW, &tio) < 0) {
		eq_fail(err, "%s: cannot set %u baud 8N1: %s", path, baud, strerror(errno));
		close(fd);
		return NULL;
	}
	tcflush(fd, TCIOFLUSH);
	t = calloc(1, sizeof(*t));
	if (!t) {
		close(fd);
		eq_fail(err, "out of memory");
		return NULL;
	}
	t->base.ops = &tty_ops;
	t->fd = fd;
	snprintf(t->base.name, sizeof(t->base.name), "tty:%s", path);
	return &t->base;
}
