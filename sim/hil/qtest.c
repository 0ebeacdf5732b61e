/*
 * qtest.c - edges into a Cortex-M guest through QEMU's qtest protocol
 * (qtest.h).
 *
 * qtest is line-based: "writel ADDR VALUE\n" is answered "OK\n" once QEMU
 * wrote the value through the CPU's address space, the NVIC's registers
 * included (a gdb stub write goes through the debug path, which Debian's
 * QEMU 7.2 does not let reach device registers).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "qtest.h"

#define NVIC_ISPR0 0xe000e200u

struct hil_qtest {
	int lq, lp;               /* listening sockets */
	int q, p;                 /* QEMU's connections, -1 until made */
	unsigned irq;
	uint32_t counter;
	uint32_t phase, writes;
};

static int listen_at(const char *dir, const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s;

	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name) >=
	    sizeof(a.sun_path)) {
		fprintf(stderr, "hilbridge: %s: path too long for a UNIX socket (108 bytes): use a shorter directory\n", dir);
		exit(1);
	}
	unlink(a.sun_path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0) {
		fprintf(stderr, "hilbridge: %s: %s\n", a.sun_path, strerror(errno));
		exit(1);
	}
	return s;
}

struct hil_qtest *hil_qtest_listen(const char *dir, unsigned irq, uint32_t counter_addr)
{
	struct hil_qtest *q = calloc(1, sizeof(*q));

	if (!q) {
		fprintf(stderr, "hilbridge: out of memory\n");
		exit(1);
	}
	q->lq = listen_at(dir, "qtest.sock");
	q->lp = listen_at(dir, "phase.sock");
	q->q = q->p = -1;
	q->irq = irq;
	q->counter = counter_addr;
	return q;
}

static void take(int l, int *c, const char *what)
{
	int s;

	if (*c >= 0)
		return;
	s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0)
		return;
	*c = s;
	fprintf(stderr, "hilbridge: QEMU connected (%s)\n", what);
}

void hil_qtest_poll(struct hil_qtest *q)
{
	char buf[256];
	ssize_t n, i;

	take(q->lq, &q->q, "qtest");
	take(q->lp, &q->p, "phase port");
	if (q->p < 0)
		return;
	while ((n = recv(q->p, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i] >= '0' && buf[i] <= '9') {
				q->phase = (uint32_t)(buf[i] - '0');
				q->writes++;
			}
	}
	if (n == 0) {
		close(q->p);
		q->p = -1;
	}
}

int hil_qtest_connected(const struct hil_qtest *q)
{
	return q->q >= 0;
}

uint32_t hil_qtest_phase(const struct hil_qtest *q)
{
	return q->phase;
}

uint32_t hil_qtest_phase_writes(const struct hil_qtest *q)
{
	return q->writes;
}

/* Reads one reply line into reply; 0 for "OK...". */
static int reply_line(struct hil_qtest *q, char *reply, size_t size)
{
	size_t got = 0;

	while (got < size - 1) {
		struct pollfd p = { q->q, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 5000) <= 0)
			goto gone;
		n = recv(q->q, reply + got, 1, 0);
		if (n <= 0)
			goto gone;
		if (reply[got++] == '\n')
			break;
	}
	reply[got] = 0;
	if (strncmp(reply, "OK", 2)) {
		fprintf(stderr, "hilbridge: qtest refused a write: %s", reply);
		return -1;
	}
	return 0;
gone:
	fprintf(stderr, "hilbridge: QEMU's qtest connection ended\n");
	close(q->q);
	q->q = -1;
	return -1;
}

/*
 * Both writes in one send, so that QEMU runs them back to back: the guest's
 * handler can still run between them (they are two accesses, not one edge
 * as on silicon), and then counts the edge as merged into the one before
 * and this pending bit as spurious, which is how the handler accounts for
 * an edge that comes between its ack and its read of a hardware counter.
 */
static int reply_ok(struct hil_qtest *q)
{
	char reply[64];

	return reply_line(q, reply, sizeof(reply));
}

int hil_qtest_ring(struct hil_qtest *q, uint64_t count)
{
	char cmd[160];
	int len;

	if (q->q < 0)
		return -1;
	len = snprintf(cmd, sizeof(cmd), "writel 0x%x 0x%x\nwritel 0x%x 0x%x\n", q->counter,
		       (uint32_t)count, NVIC_ISPR0 + 4 * (q->irq / 32), 1u << (q->irq % 32));
	if (send(q->q, cmd, (size_t)len, MSG_NOSIGNAL) != len) {
		fprintf(stderr, "hilbridge: QEMU's qtest connection ended\n");
		close(q->q);
		q->q = -1;
		return -1;
	}
	return reply_ok(q) < 0 || reply_ok(q) < 0 ? -1 : 0;
}

int64_t hil_qtest_taken(struct hil_qtest *q, uint32_t taken_addr)
{
	char cmd[64], reply[64];
	int len;

	if (q->q < 0)
		return -1;
	len = snprintf(cmd, sizeof(cmd), "readl 0x%x\n", taken_addr);
	if (send(q->q, cmd, (size_t)len, MSG_NOSIGNAL) != len || reply_line(q, reply, sizeof(reply)) < 0)
		return -1;
	return (int64_t)strtoull(reply + 2, NULL, 0);
}
