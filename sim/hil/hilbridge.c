/*
 * hilbridge.c - the board, for real, next to a QEMU guest (docs/hil.md).
 *
 *   hilbridge FIRMWARE.elf DIR [--powers W0,W1,...] [--seed N] [--life SECONDS]
 *             [--qtest IRQ:COUNTER[:TAKEN]]
 *
 * Runs the board firmware ELF (eqfw-simavr.elf) in simavr, paced to real
 * time, and wires it to a guest the way a board is wired to a device:
 *
 *   - the firmware's pulse input (T1) is driven by the simulator's analog
 *     front end (sim/frontend.c) whose current follows the guest: the guest's
 *     workload writes the phase it is in to the shared memory, and phase i
 *     draws the power Wi (W0 is idle);
 *   - every IRQ edge the firmware raises becomes a real interrupt in the
 *     guest: this program is the ivshmem server of an ivshmem-doorbell PCI
 *     device (QEMU's documented protocol, docs/specs/ivshmem-spec), counts
 *     the edge in the shared memory and rings the guest's MSI-X vector.
 *     While the guest's module listens it rings for the next edge only once
 *     the guest's handler took the last one (`taken`), and the board waits
 *     for that (lockstep): a host too slow to run both in real time slows
 *     both instead of merging interrupts.  Only a guest silent for
 *     RING_TIMEOUT_S gets the edges waiting at once (they merge, and the
 *     module counts them lost);
 *   - the firmware's UART (its USB stream) is bridged to a pty that
 *     `eqprof board` opens with its tty transport.
 *
 * With --qtest the guest is a Cortex-M machine instead (docs/target-cortexm.md,
 * qtest.h): every edge is written into the guest's edge counter at address
 * COUNTER and pends NVIC interrupt IRQ through QEMU's qtest socket
 * DIR/qtest.sock, and the guest's phases come as bytes on DIR/phase.sock.
 * With TAKEN (the address of isr/cortexm's eqcm_edges_taken) it rings in
 * lockstep as for the Linux guest; without, at the board's pace, and edges
 * that merge before the handler runs are the handler's to count.
 *
 * USB power, as the board has it from its cable (test/firmware/board-qemu.sh
 * pulls the cable of QEMU's emulated FT232 with QMP device_del):
 * SIGUSR1 cuts it (no pulses, since the front end's amplifier runs from
 * USB too; what the UART sends is lost, and so is what the FT232 held:
 * the pty is flushed), SIGUSR2 restores it (the MCU restarts: power-on
 * reset).  SIGRTMIN writes a numbered "mark" with the cycle into the truth
 * (and "mark N at cycle C" on stderr once it has), so a test can say when
 * it did something.
 *
 * The shared memory also carries the host's clock (hilclock.h), and DIR/edgetimes
 * gets, for every edge, the host's CLOCK_MONOTONIC when the bridge made it:
 * bench/board measures the latency from a quantum to its record with both.
 *
 * In DIR it writes "port" (tty:/dev/pts/N, once the board is up), listens on
 * DIR/ivshmem.sock (QEMU: -chardev socket,path=DIR/ivshmem.sock,id=ivs
 * -device ivshmem-doorbell,chardev=ivs,vectors=1), and on SIGTERM or SIGINT
 * (or after --life seconds) writes DIR/truth: the power of each phase, each
 * phase change, and for every edge its cycle and the true energy spent so
 * far in each phase, so that any window of the recording has an exact truth;
 * and the power cuts and marks.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "firmware/simavr/fwsim.h"
#include "fw_defaults.h"
#include "hilclock.h"
#include "isr/linux/uapi/eqprof_ivshmem.h"
#include "qtest.h"
#include "sim_internal.h"

#define HZ 16000000.0
#define CHUNK_CYCLES 2000         /* 125 us of board time per step at most */
#define MAX_BEHIND_CYCLES 800000  /* 50 ms: more behind real time than this, the board pauses */
#define PULSE_HIGH 4              /* T1 high time, cycles (as sim/counter_simavr.c) */
#define MAX_PHASES 16
#define RING_TIMEOUT_S 2.0        /* a listening guest took no edge for this long: ring anyway */
#define LINE_BYTES_S (FW_UART_BAUD / 11.0) /* simavr times a byte as 11 bits (docs/firmware.md) */
#define LINE_BURST 256.0          /* bytes: what the line carries in 2.8 ms */
#define FT_PACKET 62              /* payload of a full-speed FT232R packet */
#define FT_LATENCY_S 0.001        /* its latency timer, as eqprof sets it */

struct edge_truth {
	uint64_t cycle;
	double host_s;            /* CLOCK_MONOTONIC when the bridge made it */
	uint32_t phase;
	double e[MAX_PHASES];     /* cumulative true energy per phase at the edge */
};

struct bridge {
	struct fwsim *s;
	struct sim_frontend fe;
	double powers[MAX_PHASES];
	unsigned nphases;
	/* the guest */
	int lsock, conn, efd, shmfd;
	volatile struct eqprof_ivshmem_shm *shm;
	/* the host */
	int master;
	uint8_t out[65536];
	size_t nout;
	double oldest;            /* when the oldest byte in out came from the UART */
	double credit, credit_at; /* bytes the line could have carried by credit_at */
	size_t max_out;           /* most bytes waiting for the line at once */
	/* truth */
	uint32_t phase;
	double energy[MAX_PHASES], seconds[MAX_PHASES];
	struct edge_truth *edges;
	size_t nedges, cap;
	uint64_t *changes;        /* cycle << 8 | phase */
	size_t nchanges, capch;
	uint32_t listening;       /* the guest's module, as last seen */
	char listens[4096];       /* "listen CYCLE 0|1 RUNG TAKEN" lines */
	size_t nlistens;
	uint64_t doorbells, unknown_phase, rung, timeouts;
	double last_ring, paused_s;
	uint64_t pauses;
	double max_behind;
	struct hil_qtest *qt;     /* --qtest: a Cortex-M guest instead */
	uint32_t qt_taken;        /* address of its eqcm_edges_taken: lockstep; 0 none */
	/* USB power and marks */
	int unpowered;
	uint64_t cycle_base;      /* cycles simavr's count lost at power-on resets */
	char events[8192];        /* "usbpower off|on CYCLE", "mark N CYCLE" lines */
	size_t nevents;
	unsigned marks;
	uint64_t lost_unpowered;  /* UART bytes sent with the power off */
};

static volatile sig_atomic_t stop, power_cut, power_back, marks_asked;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		power_cut = 1;
	else if (sig == SIGUSR2)
		power_back = 1;
	else if (sig == SIGRTMIN)
		marks_asked++; /* a real-time signal: each one sent comes, none merge */
	else
		stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "hilbridge: %s: %s\n", what, detail);
	exit(1);
}

/* Board time in cycles since the bridge started, across power cycles. */
static uint64_t cycle_now(const struct bridge *b)
{
	return b->cycle_base + fwsim_cycle(b->s);
}

static void to_pty(void *ctx, uint8_t byte)
{
	struct bridge *b = ctx;

	if (b->unpowered)
		b->lost_unpowered++; /* the FT232R is off: nowhere to go */
	else if (b->nout < sizeof(b->out)) {
		if (!b->nout)
			b->oldest = now_s();
		b->out[b->nout++] = byte;
	}
}

/* A truth line "WHAT CYCLE" ("usbpower off 123", "mark 2 456"). */
static void note_event(struct bridge *b, const char *what)
{
	if (b->nevents < sizeof(b->events) - 100)
		b->nevents += (size_t)snprintf(b->events + b->nevents, sizeof(b->events) - b->nevents,
					       "%s %llu\n", what, (unsigned long long)cycle_now(b));
}

/* The signals' requests, between two steps of the board; 1 after a
 * power-on reset. */
static int usb_power(struct bridge *b)
{
	uint64_t before;
	int reset = 0;

	while (b->marks < (unsigned)marks_asked) {
		char what[32];

		snprintf(what, sizeof(what), "mark %u", ++b->marks);
		note_event(b, what);
		fprintf(stderr, "hilbridge: mark %u at cycle %llu\n", b->marks,
			(unsigned long long)cycle_now(b));
	}
	if (power_cut && !b->unpowered) {
		power_cut = 0;
		b->unpowered = 1;
		b->nout = 0;
		tcflush(b->master, TCIOFLUSH); /* what the FT232R held is gone with it */
		note_event(b, "usbpower off");
		fprintf(stderr, "hilbridge: USB power off at cycle %llu\n",
			(unsigned long long)cycle_now(b));
	}
	if (power_back && b->unpowered) {
		power_back = 0;
		b->unpowered = 0;
		note_event(b, "usbpower on");
		fprintf(stderr, "hilbridge: USB power on at cycle %llu (power-on reset)\n",
			(unsigned long long)cycle_now(b));
		before = fwsim_cycle(b->s);
		fwsim_reset(b->s, 1); /* power-on reset */
		/* simavr 1.6 keeps counting cycles across avr_reset(), later ones
		 * start again at 0: either way the truth's cycles keep growing */
		b->cycle_base += before - fwsim_cycle(b->s);
		reset = 1;
	}
	power_cut = power_back = 0;
	return reset;
}

/*
 * The FT232R's side of the link: what the UART sent goes on in packets of
 * 62 bytes (a full-speed packet less its two status bytes) or once the
 * oldest byte has waited the latency timer (1 ms, as eqprof sets it), and
 * never faster than the line carries it, even when the bridge catches up
 * after falling behind real time.  QEMU's FT232 passes on every byte at
 * once and ignores the latency timer (docs/firmware.md, "QEMU's FT232 and a
 * real FT232R"), which would hand the host one USB transfer per record.
 */
static void flush_pty(struct bridge *b, double now)
{
	size_t at = 0, n;

	b->credit += (now - b->credit_at) * LINE_BYTES_S;
	if (b->credit > LINE_BURST)
		b->credit = LINE_BURST;
	b->credit_at = now;
	if (b->nout > b->max_out)
		b->max_out = b->nout;
	if (!b->nout || (b->nout < FT_PACKET && now - b->oldest < FT_LATENCY_S))
		return;
	n = b->nout < (size_t)b->credit ? b->nout : (size_t)b->credit;
	while (at < n) {
		ssize_t w = write(b->master, b->out + at, n - at);

		if (w <= 0) {
			/* nobody reading and the pty full: lost, as an FT232R's overflow */
			at = n;
			break;
		}
		at += (size_t)w;
	}
	b->credit -= (double)at;
	memmove(b->out, b->out + at, b->nout - at);
	b->nout -= at;
	b->oldest = now;
}

/* ---- the ivshmem server (QEMU docs/specs/ivshmem-spec.rst) ---------------- */

static int send_msg(int sock, int64_t v, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &v, sizeof(v) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	memset(cbuf, 0, sizeof(cbuf));
	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(v) ? 0 : -1;
}

/* A guest connects: protocol version 0, its id, the shared memory, then
 * its own interrupt eventfd (vector 0).  One guest at a time. */
static void serve_accept(struct bridge *b)
{
	int c = accept4(b->lsock, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	const int64_t id = 1;

	if (c < 0)
		return;
	if (b->conn >= 0) {
		fprintf(stderr, "hilbridge: a second guest connected: refused (one board, one target)\n");
		close(c);
		return;
	}
	if (send_msg(c, 0, -1) < 0 || send_msg(c, id, -1) < 0 || send_msg(c, -1, b->shmfd) < 0 ||
	    send_msg(c, id, b->efd) < 0) {
		fprintf(stderr, "hilbridge: the guest hung up during setup: %s\n", strerror(errno));
		close(c);
		return;
	}
	b->conn = c;
	fprintf(stderr, "hilbridge: guest connected (ivshmem peer %lld)\n", (long long)id);
}

static void serve_poll(struct bridge *b)
{
	char buf[64];

	serve_accept(b);
	if (b->conn >= 0) {
		ssize_t n = recv(b->conn, buf, sizeof(buf), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			fprintf(stderr, "hilbridge: guest disconnected\n");
			close(b->conn);
			b->conn = -1;
		}
	}
}

static void setup_guest_side(struct bridge *b, const char *dir)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	void *p;

	b->shmfd = memfd_create("eqprof-hil", MFD_CLOEXEC);
	if (b->shmfd < 0 || ftruncate(b->shmfd, EQPROF_IVSHMEM_SIZE) < 0)
		die("shared memory", strerror(errno));
	p = mmap(NULL, EQPROF_IVSHMEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, b->shmfd, 0);
	if (p == MAP_FAILED)
		die("shared memory", strerror(errno));
	b->shm = p;
	b->shm->version = 1;
	b->shm->edges = 0;
	__atomic_store_n(&b->shm->magic, EQPROF_IVSHMEM_MAGIC, __ATOMIC_RELEASE);
	b->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (b->efd < 0)
		die("eventfd", strerror(errno));
	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/ivshmem.sock", dir) >=
	    sizeof(a.sun_path))
		die(dir, "path too long for a UNIX socket (108 bytes): use a shorter directory");
	unlink(a.sun_path);
	b->lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (b->lsock < 0 || bind(b->lsock, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(b->lsock, 2) < 0)
		die(a.sun_path, strerror(errno));
	b->conn = -1;
}

/* ---- the board ------------------------------------------------------------ */

static void note_change(struct bridge *b, uint32_t phase)
{
	if (b->nchanges == b->capch) {
		b->capch = b->capch ? 2 * b->capch : 256;
		b->changes = realloc(b->changes, b->capch * sizeof(*b->changes));
		if (!b->changes)
			die("truth", "out of memory");
	}
	b->changes[b->nchanges++] = cycle_now(b) << 8 | phase;
	b->phase = phase;
}

/* The guest now listens (on) or not: a "listen CYCLE ON RUNG TAKEN" line
 * of the truth, with the edges rung so far and those the guest took. */
static void note_listen(struct bridge *b, uint32_t on, uint64_t taken)
{
	b->listening = on;
	if (b->nlistens < sizeof(b->listens) - 100)
		b->nlistens += (size_t)snprintf(b->listens + b->nlistens,
						sizeof(b->listens) - b->nlistens,
						"listen %llu %u %llu %llu\n",
						(unsigned long long)cycle_now(b), on,
						(unsigned long long)b->rung,
						(unsigned long long)taken);
}

/* A Cortex-M guest (qtest.h): each edge at once, as the board made it;
 * edge k (from 0) writes k + 1 into the guest's counter, so the handler's
 * samples carry the board's quantum numbers as their seq. */
static void ring_qtest(struct bridge *b)
{
	if (!hil_qtest_connected(b->qt)) {
		if (b->listening)
			note_listen(b, 0, b->rung);
		b->rung = b->nedges;   /* nobody to interrupt */
		return;
	}
	if (!b->listening)
		note_listen(b, 1, b->rung);
	while (b->rung < b->nedges) {
		double now = now_s();

		if (b->qt_taken) {
			/* lockstep: the next edge once the guest took the last */
			int64_t taken = hil_qtest_taken(b->qt, b->qt_taken);

			if (taken >= 0 && (uint64_t)taken < b->rung) {
				if (now - b->last_ring <= RING_TIMEOUT_S)
					return;
				b->timeouts++;
			}
		}
		if (hil_qtest_ring(b->qt, b->rung + 1) < 0) {
			note_listen(b, 0, b->rung);
			b->rung = b->nedges;
			return;
		}
		b->rung++;
		b->doorbells++;
		b->last_ring = now;
	}
}

/*
 * The doorbell: the next edge waiting is counted in the shared memory and
 * rung once the guest took the last one; after the timeout every edge
 * waiting is rung at once (they merge: the module counts them lost).
 */
static void ring(struct bridge *b)
{
	uint64_t one = 1, taken;
	uint32_t listening;
	double now;

	if (b->qt) {
		ring_qtest(b);
		return;
	}
	if (b->rung == b->nedges)
		return;
	if (b->conn < 0) {
		/* no guest: nobody to interrupt */
		b->rung = b->nedges;
		__atomic_store_n(&b->shm->edges, b->rung, __ATOMIC_RELEASE);
		return;
	}
	/*
	 * taken before listening: the module sets listening before it
	 * writes taken, so a new session's taken may still read as the last
	 * one's (the edge waits until it is written).  One read of listening
	 * for the whole decision, so that no edge is rung in lockstep that
	 * the listen lines do not account for.
	 */
	taken = __atomic_load_n(&b->shm->taken, __ATOMIC_ACQUIRE);
	listening = __atomic_load_n(&b->shm->listening, __ATOMIC_ACQUIRE) != 0;
	now = now_s();
	if (listening != b->listening)
		note_listen(b, listening, taken);
	if (!listening) {
		/* no session: the edges are nobody's */
		b->rung = b->nedges;
	} else if (taken >= b->rung) {
		b->rung++;
	} else if (now - b->last_ring > RING_TIMEOUT_S) {
		b->rung = b->nedges;
		b->timeouts++;
	} else {
		return;
	}
	__atomic_store_n(&b->shm->edges, b->rung, __ATOMIC_RELEASE);
	b->last_ring = now;
	if (write(b->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		b->doorbells++;
}

/* Edges made and not yet taken by a listening guest: the board waits. */
static int waiting(struct bridge *b)
{
	if (b->qt)
		return b->qt_taken && hil_qtest_connected(b->qt) && b->rung < b->nedges;
	return b->conn >= 0 && b->rung < b->nedges &&
	       __atomic_load_n(&b->shm->listening, __ATOMIC_ACQUIRE);
}

/* New edges: into the truth, then to the doorbell. */
static void deliver_edges(struct bridge *b)
{
	size_t n;
	const struct fwsim_edge *e = fwsim_edges(b->s, &n);

	while (b->nedges < n) {
		struct edge_truth *t;

		if (b->nedges == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 4096;
			b->edges = realloc(b->edges, b->cap * sizeof(*b->edges));
			if (!b->edges)
				die("truth", "out of memory");
		}
		t = &b->edges[b->nedges];
		t->cycle = b->cycle_base + e[b->nedges].rise;
		t->host_s = now_s();
		t->phase = b->phase;
		memcpy(t->e, b->energy, sizeof(t->e));
		b->nedges++;
	}
	ring(b);
}

/*
 * Simulates [cycle, until): the front end integrates the phase's current,
 * each pulse it gives goes to T1 at its time, the truth accumulates.
 */
static void advance(struct bridge *b, uint64_t until)
{
	struct eq_error err;
	uint32_t phase = __atomic_load_n(&b->shm->phase, __ATOMIC_ACQUIRE);
	double p, vb, i, im, t, t_end;

	if (phase >= b->nphases) {
		b->unknown_phase++;
		phase = 0;
	}
	if (phase != b->phase)
		note_change(b, phase);
	p = b->powers[phase];
	sim_frontend_operating_point(&b->fe, p, &vb, &i);
	im = sim_frontend_mirror(&b->fe, i);
	fwsim_set_vbat(b->s, vb);
	t = cycle_now(b) / HZ;
	t_end = (b->cycle_base + until) / HZ;
	/* the power the device draws at its terminals (the front end's model
	 * may make it depend on the terminal voltage) */
	p = vb * i;
	b->energy[phase] += p * (t_end - t);
	b->seconds[phase] += t_end - t;
	while (t < t_end && !b->unpowered) {
		double tp = sim_frontend_advance(&b->fe, t, t_end, im);
		uint64_t at;

		if (tp < 0)
			break;
		at = (uint64_t)llround(tp * HZ) - b->cycle_base;
		if (at > fwsim_cycle(b->s) && fwsim_run_to(b->s, at, &err) < 0)
			die("simavr", err.msg);
		if (fwsim_pulse(b->s, PULSE_HIGH, &err) < 0)
			die("simavr", err.msg);
		deliver_edges(b);
		t = tp;
	}
	if (until > fwsim_cycle(b->s) && fwsim_run_to(b->s, until, &err) < 0)
		die("simavr", err.msg);
	deliver_edges(b);
}

static void write_truth(struct bridge *b, const char *dir)
{
	char path[4096], tmp[4120];
	FILE *f;
	size_t k;
	unsigned j;

	snprintf(path, sizeof(path), "%s/truth", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp, strerror(errno));
	fprintf(f, "# hilbridge truth: board cycles at %.0f Hz; energies in J\n", HZ);
	fprintf(f, "phases %u\n", b->nphases);
	for (j = 0; j < b->nphases; j++)
		fprintf(f, "power %u %.9g\n", j, b->powers[j]);
	fputs(b->listens, f);
	fputs(b->events, f);
	for (k = 0; k < b->nchanges; k++)
		fprintf(f, "change %llu %u\n", (unsigned long long)(b->changes[k] >> 8),
			(unsigned)(b->changes[k] & 0xff));
	for (k = 0; k < b->nedges; k++) {
		fprintf(f, "edge %zu %llu %u", k, (unsigned long long)b->edges[k].cycle,
			b->edges[k].phase);
		for (j = 0; j < b->nphases; j++)
			fprintf(f, " %.9g", b->edges[k].e[j]);
		fputc('\n', f);
	}
	fprintf(f, "end_cycle %llu\npulses %llu\nedges %zu\ndoorbells %llu\nring_timeouts %llu\n",
		(unsigned long long)cycle_now(b), (unsigned long long)fwsim_pulses_fed(b->s),
		b->nedges, (unsigned long long)b->doorbells, (unsigned long long)b->timeouts);
	fprintf(f, "lost_unpowered_bytes %llu\nmax_line_queue_bytes %zu\n",
		(unsigned long long)b->lost_unpowered, b->max_out);
	fprintf(f, "phase_writes %u\nunknown_phase_steps %llu\nmax_behind_s %.6f\npauses %llu %.6f s\nboots %u\n",
		b->shm->phase_writes, (unsigned long long)b->unknown_phase, b->max_behind,
		(unsigned long long)b->pauses, b->paused_s, fwsim_boots(b->s));
	for (j = 0; j < b->nphases; j++)
		fprintf(f, "phase_total %u %.6f s %.9g J\n", j, b->seconds[j], b->energy[j]);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		die(path, strerror(errno));
	snprintf(path, sizeof(path), "%s/edgetimes", dir);
	f = fopen(path, "w");
	if (!f)
		die(path, strerror(errno));
	fprintf(f, "# edge number, CLOCK_MONOTONIC s when the bridge made it\n");
	for (k = 0; k < b->nedges; k++)
		fprintf(f, "%zu %.9f\n", k, b->edges[k].host_s);
	if (fclose(f) != 0)
		die(path, strerror(errno));
}

static void usage(void)
{
	fprintf(stderr, "usage: hilbridge FIRMWARE.elf DIR [--powers W0,W1,...] [--seed N] [--life SECONDS]\n"
		"                 [--qtest IRQ:COUNTER[:TAKEN]]\n");
	exit(2);
}

struct bridge_args {
	const char *elf, *dir, *powers, *qtest;
	double life;
	uint64_t seed;
};

static void parse_args(int argc, char **argv, struct bridge_args *a)
{
	int i;

	if (argc < 3)
		usage();
	a->elf = argv[1];
	a->dir = argv[2];
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--powers") && i + 1 < argc)
			a->powers = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			a->seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--life") && i + 1 < argc)
			a->life = atof(argv[++i]);
		else if (!strcmp(argv[i], "--qtest") && i + 1 < argc)
			a->qtest = argv[++i];
		else
			usage();
	}
}

/* --powers W0,W1,...: the phases' powers, each one the simulated supply
 * can deliver through the front end made with seed. */
static void set_powers(struct bridge *b, const char *powers, uint64_t seed)
{
	struct sim_params p;
	const char *q;
	char *end;
	size_t i;

	for (q = powers; *q && b->nphases < MAX_PHASES; q = *end == ',' ? end + 1 : end) {
		double w = strtod(q, &end);

		if (end == q || !(w >= 0) || w > 20)
			die("--powers", "expected watts separated by commas, e.g. 0.27,1.2,0.5");
		b->powers[b->nphases++] = w;
		if (!*end)
			break;
	}
	sim_params_default(&p);
	p.seed = seed;
	sim_frontend_init(&b->fe, &p);
	for (i = 0; i < b->nphases; i++)
		if (p.supply * p.supply < 4 * b->fe.r_total * b->powers[i])
			die("--powers", "the simulated supply cannot deliver that much power");
}

static void catch_signals(void)
{
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	signal(SIGRTMIN, on_signal);
	signal(SIGPIPE, SIG_IGN);
}

/* --qtest IRQ:COUNTER[:TAKEN]: a Cortex-M guest in QEMU's qtest, whose
 * phase is read from it rather than written by an ivshmem guest. */
static void listen_qtest(struct bridge *b, const char *dir, const char *qtest)
{
	char *end;
	unsigned long irq = strtoul(qtest, &end, 0);
	unsigned long addr = *end == ':' ? strtoul(end + 1, &end, 0) : 0;
	unsigned long taken = *end == ':' ? strtoul(end + 1, &end, 0) : 0;

	if (*end || irq > 479 || !addr || addr > 0xfffffffful || taken > 0xfffffffful)
		die("--qtest", "expected IRQ:COUNTER[:TAKEN], the guest's NVIC interrupt number, the address of its edge counter and (lockstep) of isr/cortexm's eqcm_edges_taken (16:0x20000248:0x20000a50)");
	b->qt_taken = (uint32_t)taken;
	b->qt = hil_qtest_listen(dir, (unsigned)irq, (uint32_t)addr);
}

/* The board: the firmware in simavr behind a pseudo-terminal, whose name
 * goes to DIR/port ("tty:/dev/pts/N"). */
static void start_board(struct bridge *b, const char *elf, const char *dir)
{
	struct eq_error err;
	char path[4096];
	FILE *pf;

	b->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (b->master < 0 || grantpt(b->master) < 0 || unlockpt(b->master) < 0)
		die("pseudo-terminal", strerror(errno));
	fcntl(b->master, F_SETFL, O_NONBLOCK);
	b->s = fwsim_open(elf, &err);
	if (!b->s || fwsim_run_to(b->s, 32000, &err) < 0)
		die(elf, err.msg);
	fwsim_set_uart_tap(b->s, to_pty, b);
	note_change(b, 0);
	flush_pty(b, now_s());
	snprintf(path, sizeof(path), "%s/port", dir);
	pf = fopen(path, "w");
	if (!pf || fprintf(pf, "tty:%s\n", ptsname(b->master)) < 0 || fclose(pf) != 0)
		die(path, "cannot write the port name");
}

/* The guest's side of one turn: the host's clock, and the phase from
 * qtest when the guest is a Cortex-M there. */
static void serve_guest(struct bridge *b, double now)
{
	/* the host's clock for the guest (hilclock.h) */
	__atomic_store_n((volatile uint64_t *)((volatile char *)b->shm + HILCLOCK_OFFSET),
			 (uint64_t)(now * 1e9), __ATOMIC_RELEASE);
	serve_poll(b);
	if (b->qt) {
		/* the guest's phase, as the ivshmem guest would write it */
		hil_qtest_poll(b->qt);
		__atomic_store_n(&b->shm->phase, hil_qtest_phase(b->qt), __ATOMIC_RELEASE);
		b->shm->phase_writes = hil_qtest_phase_writes(b->qt);
	}
}

/* The board's side: the doorbells, and its serial line both ways. */
static void serve_board(struct bridge *b, double now)
{
	uint8_t buf[256];
	ssize_t n;

	ring(b);
	flush_pty(b, now);
	while ((n = read(b->master, buf, sizeof(buf))) > 0)
		if (!b->unpowered)
			fwsim_send_bytes(b->s, buf, (size_t)n);
}

/* The board in real time for life seconds (or until a signal). */
static void run_board(struct bridge *b, double life)
{
	double start, t0;
	uint64_t c0;

	start = t0 = now_s();
	c0 = fwsim_cycle(b->s);
	while (!stop && now_s() - start < life) {
		double now = now_s();
		uint64_t target = c0 + (uint64_t)((now - t0) * HZ), cyc = fwsim_cycle(b->s);

		serve_guest(b, now);
		if (usb_power(b)) {
			t0 = now_s();
			c0 = fwsim_cycle(b->s);
		}
		serve_board(b, now);
		if (target <= cyc || waiting(b)) {
			usleep(target <= cyc ? 50 : 10);
			continue;
		}
		/*
		 * Never catch up in a burst: on a machine that cannot simulate
		 * 16 MHz in real time (or that deschedules this process) the
		 * board pauses instead, as ptybridge does, and its clock runs
		 * slow against the guest's (the alignment estimates the rate
		 * and reports the residual).  Its edges keep their spacing and
		 * are delivered as they are made, while the guest is in the
		 * phase that made them; the truth is kept in board time.
		 */
		if ((target - cyc) / HZ > b->max_behind)
			b->max_behind = (target - cyc) / HZ;
		if (target - cyc > MAX_BEHIND_CYCLES) {
			b->paused_s += (target - cyc - MAX_BEHIND_CYCLES) / HZ;
			b->pauses++;
			t0 = now;
			c0 = cyc + MAX_BEHIND_CYCLES;
			target = c0;
		}
		advance(b, cyc + (target - cyc < CHUNK_CYCLES ? target - cyc : CHUNK_CYCLES));
	}
}

int main(int argc, char **argv)
{
	static struct bridge b;
	struct bridge_args a = { .powers = "0.27,1.2,0.5", .life = 600, .seed = 1 };

	parse_args(argc, argv, &a);
	set_powers(&b, a.powers, a.seed);
	catch_signals();
	setup_guest_side(&b, a.dir);
	if (a.qtest)
		listen_qtest(&b, a.dir, a.qtest);
	start_board(&b, a.elf, a.dir);
	fprintf(stderr, "hilbridge: board on tty:%s, guest socket %s/ivshmem.sock, powers %s W\n",
		ptsname(b.master), a.dir, a.powers);
	run_board(&b, a.life);
	write_truth(&b, a.dir);
	fprintf(stderr, "hilbridge: %zu edges, %llu doorbells, %llu pulses, %u boots\n", b.nedges,
		(unsigned long long)b.doorbells, (unsigned long long)fwsim_pulses_fed(b.s),
		fwsim_boots(b.s));
	_exit(0);
}
