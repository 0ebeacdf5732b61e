/*
 * cmrec.c - a Cortex-M target's frames into a recording (cmrec.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "board/transport.h"
#include "cmelf.h"
#include "cmrec.h"
#include "eq_sample.h"
#include "file/eqp.h"
#include "progress.h"
#include "proto.h"

#define HOLD_MAX 4096             /* samples kept until the first TINFO */

/* ---- where the bytes come from ----------------------------------------- */

struct src {
	int fd;                   /* unix: or file: */
	int is_file;
	struct board_link *link;  /* tty:, ftdi: */
	char name[256];
};

static int open_unix(struct src *s, const char *path, struct eq_error *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int tries;

	if (strlen(path) >= sizeof(a.sun_path))
		return eq_fail(err, "unix:%s: path too long for a UNIX socket", path);
	strcpy(a.sun_path, path);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return eq_fail(err, "socket: %s", strerror(errno));
	/* the target (QEMU's -chardev socket,server=on) may still be starting */
	for (tries = 0; tries < 100; tries++) {
		if (connect(s->fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return 0;
		if (errno != ENOENT && errno != ECONNREFUSED)
			break;
		usleep(50000);
	}
	return eq_fail(err, "unix:%s: %s (is the target's serial port listening there?)", path,
		       strerror(errno));
}

static int open_src(struct src *s, const struct cm_rec_opts *o, struct eq_error *err)
{
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", o->port);
	if (!strncmp(o->port, "unix:", 5))
		return open_unix(s, o->port + 5, err);
	if (!strncmp(o->port, "file:", 5)) {
		s->is_file = 1;
		s->fd = open(o->port + 5, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0)
			return eq_fail(err, "%s: %s", o->port, strerror(errno));
		return 0;
	}
	s->link = board_link_open(o->port, o->baud, err);
	return s->link ? 0 : -1;
}

/* Bytes within timeout_ms: the count, 0 for none yet, -1 at the end
 * (err empty) or on an error (err set). */
static int read_src(struct src *s, uint8_t *buf, size_t n, int timeout_ms, struct eq_error *err)
{
	ssize_t r;

	if (s->link)
		return s->link->ops->read(s->link, buf, n, timeout_ms, err);
	if (!s->is_file) {
		struct pollfd p = { s->fd, POLLIN, 0 };

		if (poll(&p, 1, timeout_ms) <= 0)
			return 0;
	}
	r = read(s->fd, buf, n);
	if (r < 0 && errno != EINTR && errno != EAGAIN)
		return eq_fail(err, "%s: %s", s->name, strerror(errno));
	if (r > 0)
		return (int)r;
	if (s->is_file) {
		usleep((useconds_t)timeout_ms * 1000);
		return 0;
	}
	return r == 0 ? -1 : 0;
}

static void close_src(struct src *s)
{
	board_link_close(s->link);
	if (s->fd >= 0)
		close(s->fd);
}

/* ---- the recording ------------------------------------------------------ */

struct rec {
	const struct cm_rec_opts *o;
	struct cm_rec_result *res;
	struct cm_elf *elf;
	struct eqp_writer *w;
	struct fw_tinfo info;
	int have_info;
	struct fw_tstatus status;
	int have_status;
	uint32_t expect;          /* seq of the next sample */
	uint64_t gaps;
	uint8_t named[4096 / 8];  /* exception numbers named so far */
	struct fw_tsample *held;
	size_t nheld;
	char extra[8192];
};

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static const char *clock_name(uint8_t c)
{
	return c == FW_TCLOCK_DWT ? "DWT CYCCNT" : c == FW_TCLOCK_SYSTICK ? "SysTick" : "unknown";
}

static int start_file(struct rec *r, struct eq_error *err)
{
	const struct fw_tinfo *t = &r->info;
	struct eqp_meta meta = { 0 };
	char target[256];
	const char *name = t->name[0] ? t->name : "application";
	size_t n;

	meta.mode = t->mode == FW_TMODE_ENERGY ? EQP_MODE_ENERGY : EQP_MODE_TIME;
	meta.quantum_j = meta.mode == EQP_MODE_ENERGY ? r->o->quantum_j : 0;
	meta.nominal_hz = meta.mode == EQP_MODE_TIME && t->period ? (double)t->timer_hz / t->period : 0;
	meta.clock_hz = t->tick_hz;
	meta.start_unix_ns = 0;
	snprintf(target, sizeof(target), "Cortex-M bare metal (isr/cortexm): %s, %s at %u Hz",
		 name, clock_name(t->clock), t->tick_hz);
	meta.target = target;
	n = (size_t)snprintf(r->extra, sizeof(r->extra),
			     "tool=eqprof record --target cortexm\nsampler=isr/cortexm %s\n"
			     "clock=%s\nring=%u\ncpu_hz=%u\nedge_counter=%s\nfirst_seq=%u\n",
			     t->mode == FW_TMODE_ENERGY ? "energy-driven (the board's IRQ)" :
			     "time-driven (hardware timer)", clock_name(t->clock), t->capacity,
			     t->cpu_hz, t->flags & FW_TINFO_F_EDGES ? "yes" : "no", t->first_seq);
	/* the board's quantum numbers as seq: merge pairs by number (align.h) */
	if (t->flags & FW_TINFO_F_QUANTA && n < sizeof(r->extra))
		n += (size_t)snprintf(r->extra + n, sizeof(r->extra) - n, "seq_numbers=board\n");
	if (t->mode == FW_TMODE_TIME && n < sizeof(r->extra))
		n += (size_t)snprintf(r->extra + n, sizeof(r->extra) - n, "jitter=%u\n", t->jitter_pct);
	if (r->o->command && n < sizeof(r->extra))
		n += (size_t)snprintf(r->extra + n, sizeof(r->extra) - n, "command=%s\n", r->o->command);
	if (r->elf && cm_elf_build_id(r->elf)[0] && n < sizeof(r->extra))
		snprintf(r->extra + n, sizeof(r->extra) - n, "buildid:%s=%s\n", cm_elf_path(r->elf),
			 cm_elf_build_id(r->elf));
	meta.extra = r->extra;
	r->w = eqp_create_flags(r->o->out, &meta, EQP_W_RECORDING, err);
	if (!r->w)
		return -1;
	if (r->elf && eqp_add_maps(r->w, 1, 0, cm_elf_maps(r->elf), strlen(cm_elf_maps(r->elf)), err) < 0)
		return -1;
	if (eqp_add_comm(r->w, 1, 0, name, err) < 0)
		return -1;
	r->expect = t->first_seq;
	return 0;
}

static int add_sample(struct rec *r, const struct fw_tsample *t, struct eq_error *err)
{
	struct eq_sample s = {
		.time = t->time, .pc = t->pc, .pid = t->pid, .tid = t->tid, .seq = t->seq,
		.cpu = t->cpu, .flags = t->flags,
	};
	uint64_t frame = t->lr & ~1u;
	struct eqp_callchain cc = { 0, 0, &frame };

	if (s.seq != r->expect) {
		r->gaps += (uint32_t)(s.seq - r->expect);
		s.flags |= EQ_F_LOST;
	}
	r->expect = s.seq + 1;
	if (r->elf && s.tid && s.tid < 4096 && !(r->named[s.tid / 8] & (1u << (s.tid % 8))) &&
	    s.tid != s.pid) {
		char name[128];

		r->named[s.tid / 8] |= (uint8_t)(1u << (s.tid % 8));
		cm_elf_exception_name(r->elf, s.tid, name, sizeof(name));
		if (eqp_add_thread_name(r->w, s.pid, s.tid, 0, name, err) < 0)
			return -1;
	}
	if (r->elf && cm_elf_lr_is_return(r->elf, s.pc, t->lr)) {
		cc.nuser = 1;
		r->res->chains++;
	}
	r->res->samples++;
	return eqp_add_sample_chain(r->w, &s, &cc, err);
}

static int on_msg(struct rec *r, const struct fw_msg *m, struct eq_error *err)
{
	size_t i;

	switch (m->type) {
	case FW_MSG_TINFO:
		if (r->have_info)
			return 0;
		r->info = m->u.ti;
		r->have_info = 1;
		if (start_file(r, err) < 0)
			return -1;
		for (i = 0; i < r->nheld; i++)
			if (add_sample(r, &r->held[i], err) < 0)
				return -1;
		r->nheld = 0;
		return 0;
	case FW_MSG_TSAMPLE:
		if (r->have_info)
			return add_sample(r, &m->u.ts, err);
		if (r->nheld < HOLD_MAX)
			r->held[r->nheld++] = m->u.ts;
		return 0;
	case FW_MSG_TSTATUS:
		r->status = m->u.tst;
		r->have_status = 1;
		if (m->u.tst.final)
			r->res->final_seen = 1;
		return 0;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Losses by cause, from the seq gaps and the target's last counters. */
static int account(struct rec *r, struct eq_error *err)
{
	struct cm_rec_result *res = r->res;
	uint64_t missing = r->gaps, target_lost = 0;

	if (r->have_status) {
		missing += (uint32_t)(r->status.next_seq - r->expect);
		target_lost = r->status.dropped;
		res->lost_merged = r->status.merged;
		res->lost_ring = r->status.dropped - r->status.merged;
		res->spurious = r->status.spurious;
	}
	res->lost_link = missing > target_lost ? missing - target_lost : 0;
	if (res->lost_ring && eqp_add_lost(r->w, 0, res->lost_ring, err) < 0)
		return -1;
	if (res->lost_merged && eqp_add_lost(r->w, 1, res->lost_merged, err) < 0)
		return -1;
	if (res->lost_link && eqp_add_lost(r->w, 2, res->lost_link, err) < 0)
		return -1;
	return 0;
}

static int collect(struct rec *r, struct src *s, struct eq_error *err)
{
	const struct cm_rec_opts *o = r->o;
	struct fw_deframer d;
	struct eq_progress prog;
	double start = now_s(), last_byte = start, last_flush = start;
	uint8_t buf[4096];

	fw_deframer_init(&d);
	eq_progress_start(&prog, o->quiet, 0.5);
	while (!stop_now && !r->res->final_seen) {
		int n = read_src(s, buf, sizeof(buf), 100, err), i;
		double now = now_s();

		if (n < 0) {
			if (err->msg[0])
				return -1;
			break;    /* the target closed the link */
		}
		if (n > 0)
			last_byte = now;
		for (i = 0; i < n && !r->res->final_seen; i++) {
			struct fw_msg m;
			int rc = fw_deframer_push(&d, buf[i], &m);

			if (rc < 0)
				r->res->bad_frames++;
			else if (rc == 1 && on_msg(r, &m, err) < 0)
				return -1;
		}
		if (o->duration > 0 && now - start >= o->duration)
			break;
		if (s->is_file && o->idle_s > 0 && now - last_byte >= o->idle_s)
			break;
		if (r->w && now - last_flush >= 1.0) {
			if (eqp_flush(r->w, err) < 0)
				return -1;
			last_flush = now;
		}
		if (eq_progress_due(&prog))
			eq_progress_show(&prog, "recording from %s: %llu samples", s->name,
					 (unsigned long long)r->res->samples);
	}
	eq_progress_end(&prog, 0);
	return 0;
}

int cm_record(const struct cm_rec_opts *o, struct cm_rec_result *res, struct eq_error *err)
{
	struct rec r = { .o = o, .res = res };
	struct src s = { .fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (o->elf && !(r.elf = cm_elf_open(o->elf, err)))
		return -1;
	r.held = calloc(HOLD_MAX, sizeof(*r.held));
	if (!r.held) {
		eq_fail(err, "out of memory");
		goto out;
	}
	if (open_src(&s, o, err) < 0)
		goto out;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (collect(&r, &s, err) < 0)
		goto out;
	if (!r.have_info) {
		eq_fail(err, "%s: no TINFO frame from the target (%llu frames could not be decoded): "
			"is isr/cortexm's drain running, at this baud rate?", o->port,
			(unsigned long long)res->bad_frames);
		goto out;
	}
	if (account(&r, err) < 0 || eqp_commit(r.w, err) < 0)
		goto out;
	r.w = NULL;
	rc = 0;
out:
	if (r.w) {
		if (res->samples)
			eqp_abandon(r.w);
		else
			eqp_discard(r.w);
	}
	close_src(&s);
	cm_elf_close(r.elf);
	free(r.held);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return rc;
}
