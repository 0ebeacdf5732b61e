/*
 * ptybridge.c - the simulated board behind a pseudo-terminal: the firmware
 * ELF runs in simavr, paced to real time, with front-end pulses on T1; its
 * UART is bridged to a pty that `eqprof board` opens with its tty
 * transport exactly as it would the FT232R's /dev/ttyUSB0.  Faults are
 * injected on command, to test that the host loses nothing silently.
 *
 *   ptybridge EQPROF FIRMWARE.elf WORKDIR
 *       TAP checks of board info|config|calibrate|log over the pty.
 *
 *   ptybridge serve FIRMWARE.elf PORTFILE CTLFIFO [RATE_HZ]
 *       runs the board until told to die (or 300 s pass); writes
 *       "tty:/dev/pts/N" to PORTFILE once the board is up.  Commands, one a
 *       line on CTLFIFO:
 *         rate HZ        front-end pulses per second (0: none)
 *         garbage N      N random bytes into the stream to the host
 *         corrupt K N    flip a bit in every K-th of the next N bytes to the host
 *         corrupt-in N   flip a bit in the N-th next byte from the host
 *         stall SECONDS  the board and the link freeze (nothing counted or sent)
 *         freeze         the same, until `die`
 *         reset          the MCU resets (its reset pin: BOOT cause "external")
 *         die            exit at once: the pty closes (the cable pulled)
 *       SIGTERM is `die` too.
 *
 *   ptybridge check FILE.eqp
 *       what a board recording holds and whether its counts agree, as
 *       key=value lines for test/firmware/board-faults.sh.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "file/eqp.h"
#include "firmware/simavr/fwsim.h"
#include "test/lib/tap.h"

#define HZ 16000000.0
#define MAX_LIFE_S 300
#define STEP_CYCLES (uint64_t)(HZ * 0.004)        /* simulated per step, at most */
#define MAX_BEHIND_CYCLES (uint64_t)(HZ * 0.05)   /* more behind than this: drop it */

struct bridge {
	struct fwsim *s;
	int master;
	double rate;              /* pulses per second */
	uint64_t next_pulse;      /* cycle of the next pulse */
	double t0;                /* real time that cycle c0 stands for */
	uint64_t c0;
	double frozen_until;      /* > now: the board is stalled; INFINITY: frozen */
	unsigned corrupt_every, corrupt_left, corrupt_n, corrupt_in;
	unsigned rng;
	uint8_t out[65536];       /* board -> pty, written once per step */
	size_t nout;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Board -> pty: every UART byte the firmware sends (corrupted if asked). */
static void to_pty(void *ctx, uint8_t byte)
{
	struct bridge *b = ctx;

	if (b->corrupt_left) {
		b->corrupt_left--;
		if (++b->corrupt_n % b->corrupt_every == 0)
			byte ^= (uint8_t)(1u << (rand_r(&b->rng) % 8));
	}
	if (b->nout < sizeof(b->out))
		b->out[b->nout++] = byte;
}

static void flush_pty(struct bridge *b)
{
	size_t at = 0;

	while (at < b->nout) {
		ssize_t w = write(b->master, b->out + at, b->nout - at);

		if (w <= 0)
			break; /* nobody reading and the pty full: lost, like an FT232R overflow */
		at += (size_t)w;
	}
	b->nout = 0;
}

static int bridge_open(struct bridge *b, const char *elf, double rate)
{
	struct eq_error err;

	memset(b, 0, sizeof(*b));
	b->rng = 12345;
	b->rate = rate;
	b->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (b->master < 0 || grantpt(b->master) < 0 || unlockpt(b->master) < 0) {
		printf("1..0 # SKIP no pseudo-terminals here: %s\n", strerror(errno));
		return 1;
	}
	fcntl(b->master, F_SETFL, O_NONBLOCK);
	b->s = fwsim_open(elf, &err);
	if (!b->s || fwsim_run_to(b->s, 32000, &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		return -1;
	}
	fwsim_set_uart_tap(b->s, to_pty, b);
	flush_pty(b);
	b->t0 = now_s();
	b->c0 = fwsim_cycle(b->s);
	b->next_pulse = b->c0 + (rate > 0 ? (uint64_t)(HZ / rate) : 0);
	return 0;
}

/* Runs the board up to the real time now; moves bytes both ways. */
static void bridge_step(struct bridge *b)
{
	struct eq_error err;
	uint8_t buf[256];
	double now = now_s();
	uint64_t target;
	ssize_t n;
	int i;

	if (now < b->frozen_until)
		return;
	if (b->frozen_until > 0) {
		/* Thawed: the board carries on from where it stopped. */
		b->frozen_until = 0;
		b->t0 = now;
		b->c0 = fwsim_cycle(b->s);
		if (b->rate > 0)
			b->next_pulse = b->c0 + (uint64_t)(HZ / b->rate);
	}
	while ((n = read(b->master, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n && b->corrupt_in; i++)
			if (--b->corrupt_in == 0)
				buf[i] ^= 0x10;
		fwsim_send_bytes(b->s, buf, (size_t)n);
	}
	/*
	 * Real time, but never more than a few milliseconds of it per step, so
	 * the pty and the commands are served often; on a machine too loaded to
	 * simulate 16 MHz in real time the board runs slower instead of falling
	 * ever further behind (its own clock and pulse spacing are unchanged).
	 */
	target = b->c0 + (uint64_t)((now - b->t0) * HZ);
	if (target > fwsim_cycle(b->s) + MAX_BEHIND_CYCLES) {
		b->t0 = now;
		b->c0 = fwsim_cycle(b->s);
		target = b->c0;
	}
	if (target > fwsim_cycle(b->s) + STEP_CYCLES)
		target = fwsim_cycle(b->s) + STEP_CYCLES;
	while (fwsim_cycle(b->s) < target) {
		uint64_t to = target;

		if (b->rate > 0 && b->next_pulse < to)
			to = b->next_pulse;
		if (fwsim_run_to(b->s, to, &err) < 0) {
			printf("Bail out! %s\n", err.msg);
			exit(1);
		}
		if (b->rate > 0 && fwsim_cycle(b->s) >= b->next_pulse) {
			fwsim_pulse(b->s, 8, &err);
			b->next_pulse += (uint64_t)(HZ / b->rate);
		}
		if (b->nout > sizeof(b->out) / 2)
			flush_pty(b);
	}
	flush_pty(b);
}

/* ---- serve: the board for a test script ---------------------------------- */

static volatile sig_atomic_t dying;

static void on_term(int sig)
{
	(void)sig;
	dying = 1;
}

/* One control line; 1 when told to die. */
static int command(struct bridge *b, const char *line)
{
	char what[32];
	double x = 0, y = 0;
	int n = sscanf(line, "%31s %lf %lf", what, &x, &y);

	if (n < 1)
		return 0;
	fprintf(stderr, "ptybridge: %s", line);
	if (!strcmp(what, "die"))
		return 1;
	if (!strcmp(what, "rate")) {
		b->rate = x;
		b->next_pulse = fwsim_cycle(b->s) + (x > 0 ? (uint64_t)(HZ / x) : 0);
	} else if (!strcmp(what, "garbage")) {
		int i;

		for (i = 0; i < (int)x; i++)
			to_pty(b, (uint8_t)rand_r(&b->rng));
		flush_pty(b);
	} else if (!strcmp(what, "corrupt") && x >= 1) {
		b->corrupt_every = (unsigned)x;
		b->corrupt_left = (unsigned)y;
		b->corrupt_n = 0;
	} else if (!strcmp(what, "corrupt-in")) {
		b->corrupt_in = (unsigned)x;
	} else if (!strcmp(what, "stall")) {
		b->frozen_until = now_s() + x;
	} else if (!strcmp(what, "freeze")) {
		b->frozen_until = INFINITY;
	} else if (!strcmp(what, "reset")) {
		fwsim_reset(b->s, 2);
	} else {
		fprintf(stderr, "ptybridge: unknown command '%s'\n", what);
	}
	return 0;
}

static int serve(int argc, char **argv)
{
	struct bridge b;
	char line[256], port[300];
	size_t len = 0;
	double start;
	FILE *pf;
	int ctl, r;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: ptybridge serve FIRMWARE.elf PORTFILE CTLFIFO [RATE_HZ]\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	/* O_RDWR: the FIFO never reads as closed between two writers. */
	ctl = open(argv[4], O_RDWR | O_NONBLOCK);
	if (ctl < 0) {
		fprintf(stderr, "ptybridge: %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	r = bridge_open(&b, argv[2], argc > 5 ? atof(argv[5]) : 0);
	if (r)
		return r < 0 ? 1 : 0;
	snprintf(port, sizeof(port), "tty:%s", ptsname(b.master));
	pf = fopen(argv[3], "w");
	if (!pf || fprintf(pf, "%s\n", port) < 0 || fclose(pf) != 0) {
		fprintf(stderr, "ptybridge: %s: cannot write the port name\n", argv[3]);
		return 1;
	}
	for (start = now_s(); !dying && now_s() - start < MAX_LIFE_S;) {
		ssize_t n = read(ctl, line + len, sizeof(line) - 1 - len);
		char *nl;

		if (n > 0)
			len += (size_t)n;
		line[len] = 0;
		while ((nl = strchr(line, '\n'))) {
			char one[256];
			size_t k = (size_t)(nl - line) + 1;

			memcpy(one, line, k);
			one[k] = 0;
			memmove(line, line + k, len - k + 1);
			len -= k;
			if (command(&b, one))
				dying = 1;
		}
		if (len == sizeof(line) - 1)
			len = 0;
		bridge_step(&b);
		usleep(200);
	}
	fprintf(stderr, "ptybridge: %u boots, %llu pulses fed\n", fwsim_boots(b.s),
		(unsigned long long)fwsim_pulses_fed(b.s));
	/* Exit without tidying up: the pty closes as a pulled cable would. */
	_exit(0);
}

/* ---- check: what a board recording holds ---------------------------------- */

static int check(const char *path)
{
	struct eq_error err;
	struct eqp_file *f = eqp_open(path, &err);
	size_t i, k, n, markers;
	uint64_t gaps = 0, unflagged = 0, backwards = 0, late = 0, dropflags = 0;
	uint64_t seg_missing = 0, seg_records = 0;

	if (!f) {
		printf("open=fail\nerror=%s\n", err.msg);
		return 1;
	}
	n = eqp_nboard_records(f);
	printf("open=ok\nwarning=%s\nrecords=%zu\nsegments=%zu\nlost_total=%llu\n",
	       eqp_warning(f) ? "yes" : "no", n, eqp_nboard_segments(f),
	       (unsigned long long)eqp_lost_total(f));
	for (k = 0; k < eqp_nboard_segments(f); k++) {
		const struct eqp_board_segment *s = eqp_board_segment_at(f, k);
		const struct eqp_board_end *e = &s->end;

		printf("seg%zu=N%u J%u vcomp%u boot%u records%zu end%d\n", k, s->info.quantum_pulses,
		       s->info.jitter_pct, s->info.vcomp, s->info.boot_cause, s->nrecords,
		       s->has_end ? (int)e->reason : 0);
		if (s->has_end)
			printf("seg%zu_end=records%llu missing%llu dropped%llu bad%llu quanta%llu late%llu "
			       "late_unrecorded%llu stalls%llu\n", k, (unsigned long long)e->records,
			       (unsigned long long)e->missing, (unsigned long long)e->dropped,
			       (unsigned long long)e->bad_frames, (unsigned long long)e->quanta,
			       (unsigned long long)e->late, (unsigned long long)e->late_unrecorded,
			       (unsigned long long)e->stalls);
		seg_missing += s->has_end ? e->missing : 0;
		seg_records += s->has_end ? e->records : s->nrecords;
		for (i = s->first_record + 1; i < s->first_record + s->nrecords; i++) {
			const struct eqp_board_rec *a = eqp_board_record_at(f, i - 1);
			const struct eqp_board_rec *b = eqp_board_record_at(f, i);

			if (b->seq <= a->seq) {
				backwards++;
				continue;
			}
			gaps += b->seq - a->seq - 1;
			unflagged += b->seq != a->seq + 1 && !(b->flags & EQP_BOARD_F_DROPPED);
		}
	}
	for (i = 0; i < n; i++) {
		const struct eqp_board_rec *r = eqp_board_record_at(f, i);

		late += (r->flags & EQP_BOARD_F_LATE) != 0;
		dropflags += (r->flags & EQP_BOARD_F_DROPPED) != 0;
		if (i && r->time <= eqp_board_record_at(f, i - 1)->time)
			backwards++;
	}
	printf("gaps=%llu\nunflagged_gaps=%llu\nout_of_order=%llu\nlate_flags=%llu\n"
	       "dropped_flags=%llu\nend_missing=%llu\nend_records=%llu\n",
	       (unsigned long long)gaps, (unsigned long long)unflagged,
	       (unsigned long long)backwards, (unsigned long long)late,
	       (unsigned long long)dropflags, (unsigned long long)seg_missing,
	       (unsigned long long)seg_records);
	markers = eqp_nmarkers(f);
	printf("markers=%zu\n", markers);
	for (i = 0; i < markers; i++)
		printf("marker=%s\n", eqp_marker_at(f, i)->label);
	eqp_close(f);
	return 0;
}

/* ---- the one-shot TAP checks ------------------------------------------------ */

/*
 * Runs `eqprof ARGS...` with the pty as its port while the simulated board
 * runs in real time.  Returns the exit status; its stdout+stderr go to out.
 */
static int run_eqprof(struct bridge *b, const char *eqprof, const char *port, double rate,
		      char *out, size_t outsz, const char *const *args)
{
	char logpath[] = "/tmp/ptybridge.XXXXXX";
	int logfd = mkstemp(logpath), status = 0, i;
	const char *argv[16];
	double t0 = now_s();
	pid_t pid;
	ssize_t n;

	argv[0] = eqprof;
	for (i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = "--port";
	argv[i + 2] = port;
	argv[i + 3] = NULL;
	b->rate = rate;
	b->next_pulse = fwsim_cycle(b->s) + (rate > 0 ? (uint64_t)(HZ / rate) : 0);
	pid = fork();
	if (pid == 0) {
		dup2(logfd, 1);
		dup2(logfd, 2);
		execv(eqprof, (char *const *)argv);
		_exit(127);
	}
	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		bridge_step(b);
		if (now_s() - t0 > 20) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(200);
	}
	lseek(logfd, 0, SEEK_SET);
	n = read(logfd, out, outsz - 1);
	out[n > 0 ? n : 0] = 0;
	close(logfd);
	unlink(logpath);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void check_log(const char *path)
{
	struct eq_error err;
	struct eqp_file *f = eqp_open(path, &err);
	const struct eqp_board_info *bi;
	const struct eqp_board_segment *seg;
	size_t n, i;
	int good = 1;

	if (!f) {
		ok(0, "board log wrote a readable recording (%s)", err.msg);
		return;
	}
	bi = eqp_board_info(f);
	n = eqp_nboard_records(f);
	seg = eqp_board_segment_at(f, 0);
	ok(bi && bi->clock_hz == 2e6 && bi->quantum_pulses == 32 && bi->jitter_pct == 0 &&
	   eqp_meta(f)->quantum_j > 1.48e-3 && eqp_meta(f)->quantum_j < 1.49e-3 &&
	   !strcmp(eqp_meta_get(f, "irq_width_ns"), "3000"),
	   "the recording's board header: 2 MHz ticks, N=32, J=0, quantum 32 x 46.30 uJ, width 3 us");
	for (i = 1; i < n; i++) {
		const struct eqp_board_rec *a = eqp_board_record_at(f, i - 1);
		const struct eqp_board_rec *b = eqp_board_record_at(f, i);
		double dt = (double)(b->time - a->time) / 2e6;

		/* 32 pulses at 20 kHz = 1.6 ms; the simulation is paced to real time. */
		good &= b->seq == a->seq + 1 && b->pulses == 32 && fabs(dt - 1.6e-3) < 20e-6 &&
			b->vbat_uv > 4000000 && b->vbat_uv < 4100000;
	}
	ok(n >= 60 && good, "board log: %zu records, consecutive, 32 pulses each, 1.6 ms apart "
	   "in board ticks, battery ~4.07 V", n);
	ok(eqp_nboard_segments(f) == 1 && seg->has_end && seg->end.reason == EQP_BOARD_END_STOP &&
	   seg->end.records == n && seg->end.missing == 0 && seg->end.bad_frames == 0 &&
	   seg->end.quanta >= n && eqp_lost_total(f) == 0 && !eqp_warning(f),
	   "one segment, ended by STOP: %llu records, 0 missing, 0 bad frames, the board counted "
	   "%llu quanta", (unsigned long long)seg->end.records, (unsigned long long)seg->end.quanta);
	eqp_close(f);
}

static int one_shot(int argc, char **argv)
{
	struct bridge b;
	char out[8192], port[256], eqp[512];
	int rc = bridge_open(&b, argv[2], 0);

	(void)argc;
	if (rc)
		return rc < 0 ? 1 : 0;
	snprintf(port, sizeof(port), "tty:%s", ptsname(b.master));
	rc = run_eqprof(&b, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "info", NULL });
	ok(rc == 0 && strstr(out, "eqfw atmega328p") && strstr(out, "64 pulses"),
	   "eqprof board info over a pty: firmware named, default quantum 64 pulses");
	if (rc)
		printf("# %s\n", out);
	rc = run_eqprof(&b, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "config", "--quantum", "32", "--jitter", "0",
					 "--vcomp", "off", "--width", "3us", NULL });
	ok(rc == 0 && strstr(out, "32 pulses") && strstr(out, "+-0%") && strstr(out, "3000 ns"),
	   "eqprof board config --quantum 32 --jitter 0 --width 3us: applied and shown");
	rc = run_eqprof(&b, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "config", "--jitter", "60", NULL });
	ok(rc == 1 && strstr(out, "value out of range"),
	   "eqprof board config --jitter 60: refused by the board, exit 1, reason shown");
	rc = run_eqprof(&b, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "config", "--width", "70us", NULL });
	ok(rc == 1 && strstr(out, "1us..65.535us"),
	   "eqprof board config --width 70us: refused on the host with the range, exit 1");
	rc = run_eqprof(&b, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "config", "--width", "65.535us", NULL });
	ok(rc == 0 && strstr(out, "65535 ns"), "eqprof board config --width 65.535us: the top of "
	   "the range accepted and shown");
	run_eqprof(&b, argv[1], port, 0, out, sizeof(out),
		   (const char *[]){ "board", "config", "--width", "3us", NULL });
	rc = run_eqprof(&b, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "calibrate", "--serial", "4711", NULL });
	ok(rc == 0 && strstr(out, "serial 4711") && strstr(out, "EEPROM"),
	   "eqprof board calibrate --serial 4711: written to EEPROM and read back");
	snprintf(eqp, sizeof(eqp), "%s/board.eqp", argv[3]);
	rc = run_eqprof(&b, argv[1], port, 20e3, out, sizeof(out),
			(const char *[]){ "board", "log", "-o", eqp, "--count", "60", "-q", NULL });
	ok(rc == 0 && !strstr(out, "missing"), "eqprof board log --count 60 while pulses arrive "
	   "at 20 kHz: exit 0, nothing to warn about");
	if (rc)
		printf("# %s\n", out);
	else
		check_log(eqp);
	ok(fwsim_boots(b.s) == 1, "the board never reset during the session");
	fwsim_close(b.s);
	return tap_done();
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return serve(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "check"))
		return check(argv[2]);
	if (argc != 4) {
		fprintf(stderr, "usage: ptybridge EQPROF FIRMWARE.elf WORKDIR\n"
			"       ptybridge serve FIRMWARE.elf PORTFILE CTLFIFO [RATE_HZ]\n"
			"       ptybridge check FILE.eqp\n");
		return 2;
	}
	return one_shot(argc, argv);
}
