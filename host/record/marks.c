/*
 * marks.c - markers from the program being recorded: a datagram socket
 * whose kernel receive times are the markers' times (marks.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "record/marks.h"

#define MARK_MAX 255               /* bytes of a marker's text */

int record_marks_open(struct record_marks *m, struct eq_error *err)
{
	int sv[2], on = 1;
	char num[16];

	memset(m, 0, sizeof(*m));
	m->rd = m->wr = -1;
	/* our end closes on exec; the command's end is inherited */
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return eq_fail(err, "the marker socket: %s", strerror(errno));
	if (fcntl(sv[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0 ||
	    setsockopt(sv[0], SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0) {
		close(sv[0]);
		close(sv[1]);
		return eq_fail(err, "the marker socket: %s", strerror(errno));
	}
	m->rd = sv[0];
	m->wr = sv[1];
	snprintf(num, sizeof(num), "%d", m->wr);
	setenv(EQ_MARKER_ENV, num, 1);
	return 0;
}

void record_marks_given(struct record_marks *m)
{
	unsetenv(EQ_MARKER_ENV);
	if (m->wr >= 0)
		close(m->wr);
	m->wr = -1;
}

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

/* The receive time (CLOCK_REALTIME) moved to CLOCK_MONOTONIC by the two
 * clocks' offset now (they differ by a step only if the clock was set in
 * between). */
static uint64_t to_mono(const struct timespec *rt)
{
	struct timespec now_rt, now_mono;
	int64_t off;

	clock_gettime(CLOCK_REALTIME, &now_rt);
	clock_gettime(CLOCK_MONOTONIC, &now_mono);
	off = (int64_t)(ns_of(&now_rt) - ns_of(&now_mono));
	return (uint64_t)((int64_t)ns_of(rt) - off);
}

/* "@NS text": the program's own CLOCK_MONOTONIC time. */
static const char *own_time(const char *s, uint64_t *t)
{
	char *end;
	unsigned long long v;

	if (s[0] != '@' || s[1] < '0' || s[1] > '9')
		return s;
	errno = 0;
	v = strtoull(s + 1, &end, 10);
	if (errno || *end != ' ')
		return s;
	*t = v;
	return end + 1;
}

int record_marks_drain(struct record_marks *m, struct recorder *rec, struct eq_error *err)
{
	char buf[MARK_MAX + 2], ctl[CMSG_SPACE(sizeof(struct timespec))];

	if (m->rd < 0)
		return 0;
	for (;;) {
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		struct timespec now;
		const char *text;
		uint64_t t = 0;
		ssize_t n = recvmsg(m->rd, &msg, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : eq_fail(err, "reading markers: %s", strerror(errno));
		if (msg.msg_flags & MSG_TRUNC || (size_t)n > MARK_MAX) {
			m->truncated++;
			n = MARK_MAX;
		}
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
		buf[n] = '\0';
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec rt;

				memcpy(&rt, CMSG_DATA(c), sizeof(rt));
				t = to_mono(&rt);
			}
		if (!t) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			t = ns_of(&now);
		}
		text = own_time(buf, &t);
		if (!*text)
			continue;          /* an empty write marks nothing */
		if (recorder_add_marker(rec, t, text, err) < 0)
			return -1;
		m->n++;
	}
}

void record_marks_close(struct record_marks *m)
{
	record_marks_given(m);
	if (m->rd >= 0)
		close(m->rd);
	m->rd = -1;
}
