/*
 * ptybridge.c - `eqprof board` against the real firmware: the ELF runs in
 * simavr (paced to real time), its UART is bridged to a pseudo-terminal,
 * and eqprof talks to that pty with its tty transport exactly as it would
 * to the FT232R's /dev/ttyUSB0.  Pulses are fed to T1 at 20 kHz while
 * `board log` runs.  Prints TAP.
 *
 * usage: ptybridge EQPROF FIRMWARE.elf WORKDIR
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "eqp.h"
#include "firmware/simavr/fwsim.h"
#include "test/lib/tap.h"

#define HZ 16000000.0
#define PULSE_PERIOD 800          /* cycles: 20 kHz */

static int master = -1;


/* Board -> pty: every UART byte the firmware sends. */
static void to_pty(void *ctx, uint8_t byte)
{
	(void)ctx;
	if (write(master, &byte, 1) != 1 && errno != EAGAIN)
		perror("ptybridge: write");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Runs `eqprof ARGS...` with the pty as its port while the simulated board
 * runs in real time; pulses on T1 when `pulses` is set.  Returns the exit
 * status; its stdout+stderr go to out.
 */
static int run_eqprof(struct fwsim *s, const char *eqprof, const char *port, int pulses,
		      char *out, size_t outsz, const char *const *args)
{
	char logpath[] = "/tmp/ptybridge.XXXXXX";
	int logfd = mkstemp(logpath), status = 0, i;
	const char *argv[16];
	double t0 = now_s();
	uint64_t c0 = fwsim_cycle(s), next_pulse = c0 + PULSE_PERIOD;
	struct eq_error err;
	pid_t pid;
	ssize_t n;

	argv[0] = eqprof;
	for (i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = "--port";
	argv[i + 2] = port;
	argv[i + 3] = NULL;
	pid = fork();
	if (pid == 0) {
		dup2(logfd, 1);
		dup2(logfd, 2);
		execv(eqprof, (char *const *)argv);
		_exit(127);
	}
	for (;;) {
		uint8_t buf[256];
		uint64_t target = c0 + (uint64_t)((now_s() - t0) * HZ);

		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		/* pty -> board */
		while ((n = read(master, buf, sizeof(buf))) > 0)
			fwsim_send_bytes(s, buf, (size_t)n);
		while (fwsim_cycle(s) < target) {
			uint64_t to = target;

			if (pulses && next_pulse < to)
				to = next_pulse;
			if (fwsim_run_to(s, to, &err) < 0) {
				printf("Bail out! %s\n", err.msg);
				kill(pid, SIGKILL);
				exit(1);
			}
			if (pulses && fwsim_cycle(s) >= next_pulse) {
				fwsim_pulse(s, 8, &err);
				next_pulse += PULSE_PERIOD;
			}
		}
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
	size_t n, i;
	int good = 1;

	if (!f) {
		ok(0, "board log wrote a readable recording (%s)", err.msg);
		return;
	}
	bi = eqp_board_info(f);
	n = eqp_nboard_records(f);
	ok(bi && bi->clock_hz == 2e6 && bi->quantum_pulses == 32 && bi->jitter_pct == 0 &&
	   eqp_meta(f)->quantum_j > 1.47e-3 && eqp_meta(f)->quantum_j < 1.48e-3,
	   "the recording's board header: 2 MHz ticks, N=32, J=0, quantum 32 x 46.12 uJ");
	for (i = 1; i < n; i++) {
		const struct eqp_board_rec *a = eqp_board_record_at(f, i - 1);
		const struct eqp_board_rec *b = eqp_board_record_at(f, i);
		double dt = (double)(b->time - a->time) / 2e6;

		/* 32 pulses at 20 kHz = 1.6 ms; the simulation is paced to real time. */
		good &= b->seq == a->seq + 1 && b->pulses == 32 && fabs(dt - 1.6e-3) < 20e-6 &&
			b->vbat_uv > 4000000 && b->vbat_uv < 4100000;
	}
	ok(n >= 50 && good, "board log: %zu records, consecutive, 32 pulses each, 1.6 ms apart "
	   "in board ticks, battery ~4.07 V", n);
	eqp_close(f);
}

int main(int argc, char **argv)
{
	struct eq_error err;
	struct fwsim *s;
	char out[8192], port[256], eqp[512];
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: ptybridge EQPROF FIRMWARE.elf WORKDIR\n");
		return 2;
	}
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		printf("1..0 # SKIP no pseudo-terminals here: %s\n", strerror(errno));
		return 0;
	}
	snprintf(port, sizeof(port), "tty:%s", ptsname(master));
	fcntl(master, F_SETFL, O_NONBLOCK);
	s = fwsim_open(argv[2], &err);
	if (!s || fwsim_run_to(s, 32000, &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	fwsim_set_uart_tap(s, to_pty, NULL);

	rc = run_eqprof(s, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "info", NULL });
	ok(rc == 0 && strstr(out, "eqfw atmega328p") && strstr(out, "64 pulses"),
	   "eqprof board info over a pty: firmware named, default quantum 64 pulses");
	if (rc)
		printf("# %s\n", out);
	rc = run_eqprof(s, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "config", "--quantum", "32", "--jitter", "0",
					 "--vcomp", "off", "--width", "3us", NULL });
	ok(rc == 0 && strstr(out, "32 pulses") && strstr(out, "+-0%") && strstr(out, "3000 ns"),
	   "eqprof board config --quantum 32 --jitter 0 --width 3us: applied and shown");
	rc = run_eqprof(s, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "config", "--jitter", "60", NULL });
	ok(rc == 1 && strstr(out, "value out of range"),
	   "eqprof board config --jitter 60: refused by the board, exit 1, reason shown");
	rc = run_eqprof(s, argv[1], port, 0, out, sizeof(out),
			(const char *[]){ "board", "calibrate", "--serial", "4711", NULL });
	ok(rc == 0 && strstr(out, "serial 4711") && strstr(out, "EEPROM"),
	   "eqprof board calibrate --serial 4711: written to EEPROM and read back");
	snprintf(eqp, sizeof(eqp), "%s/board.eqp", argv[3]);
	rc = run_eqprof(s, argv[1], port, 1, out, sizeof(out),
			(const char *[]){ "board", "log", "-o", eqp, "--count", "60", "-q", NULL });
	ok(rc == 0, "eqprof board log --count 60 while pulses arrive at 20 kHz: exit 0");
	if (rc)
		printf("# %s\n", out);
	else
		check_log(eqp);
	ok(fwsim_boots(s) == 1, "the board never reset during the session");
	fwsim_close(s);
	return tap_done();
}
