/*
 * eqctl.c - drives /dev/eqprof directly, for the module's tests in QEMU
 * (the recorder, eqprof record, sits on host/record/module.c instead).
 *
 *   eqctl stats                       counts of the current or last session
 *   eqctl drain FILE                  append the samples waiting in the rings
 *   eqctl run gpio CHIP LINE FILE -- CMD...
 *   eqctl run time HZ JITTER FILE -- CMD...
 *                                     configure, start, run CMD while draining
 *                                     into FILE, stop, drain the rest, print stats
 *   eqctl hold HZ                     start time-driven sampling and sleep
 *                                     (to be killed: a reader that dies)
 *   eqctl pollwait HZ                 start time-driven sampling, poll(2) with
 *                                     no timeout, print how many samples woke it
 *
 * Samples are written as the raw 32-byte records.  Exit status: 0 when all
 * went well, 1 with a message naming the failed step otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eq_sample.h"
#include "isr/linux/uapi/eqprof.h"

static int die(const char *what)
{
	fprintf(stderr, "eqctl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int open_dev(void)
{
	int fd = open(EQPROF_DEVICE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open " EQPROF_DEVICE);
	return fd;
}

static void print_stats(int fd)
{
	struct eqprof_stats st;
	struct eqprof_cpu_stats cs;
	unsigned cpu;

	if (ioctl(fd, EQPROF_IOC_STATS, &st) < 0)
		die("EQPROF_IOC_STATS");
	printf("samples=%llu\ndropped=%llu\napprox=%llu\nmissed=%llu\nread=%llu\n"
	       "start_ns=%llu\nstop_ns=%llu\nrunning=%u\nsource=%u\nnr_cpus=%u\n"
	       "ring_samples=%u\nirq=%u\nirq_threaded=%u\nhz_milli=%u\njitter_pct=%u\n"
	       "source_name=%s\n",
	       (unsigned long long)st.samples, (unsigned long long)st.dropped,
	       (unsigned long long)st.approx, (unsigned long long)st.missed,
	       (unsigned long long)st.read, (unsigned long long)st.start_ns,
	       (unsigned long long)st.stop_ns, st.running, st.source, st.nr_cpus,
	       st.ring_samples, st.irq, st.irq_threaded, st.hz_milli, st.jitter_pct,
	       st.source_name);
	for (cpu = 0; cpu < st.nr_cpus; cpu++) {
		memset(&cs, 0, sizeof(cs));
		cs.cpu = cpu;
		if (ioctl(fd, EQPROF_IOC_CPU_STATS, &cs) < 0)
			die("EQPROF_IOC_CPU_STATS");
		printf("cpu%u=%llu %llu %llu %u\n", cpu, (unsigned long long)cs.samples,
		       (unsigned long long)cs.dropped, (unsigned long long)cs.missed, cs.next_seq);
	}
	fflush(stdout);
}

/* Reads what read() gives until it would block (or, stopped, until EOF). */
static long drain(int fd, FILE *out, int nonblock)
{
	struct eq_sample buf[512];
	long total = 0;
	ssize_t n;

	if (nonblock)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (n % (ssize_t)sizeof(buf[0]))
			errno = EIO, die("read returned a partial sample");
		if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
			die("write samples");
		total += n / (long)sizeof(buf[0]);
		if (n < (ssize_t)sizeof(buf))
			break;
	}
	if (n < 0 && errno != EAGAIN)
		die("read " EQPROF_DEVICE);
	return total;
}

static int run(int argc, char **argv)
{
	struct eqprof_config cfg;
	FILE *out;
	pid_t pid;
	int fd, status = 0, i = 4, done = 0;

	memset(&cfg, 0, sizeof(cfg));
	if (argc < 6)
		return errno = EINVAL, die("usage: run gpio CHIP LINE FILE -- CMD | run time HZ JITTER FILE -- CMD");
	if (!strcmp(argv[1], "gpio")) {
		cfg.source = EQPROF_SRC_GPIO;
		snprintf(cfg.gpio_chip, sizeof(cfg.gpio_chip), "%s", argv[2]);
		cfg.gpio_line = (unsigned)atoi(argv[3]);
	} else {
		cfg.source = EQPROF_SRC_HRTIMER;
		cfg.hz_milli = (unsigned)(atof(argv[2]) * 1000);
		cfg.jitter_pct = (unsigned)atoi(argv[3]);
	}
	out = fopen(argv[i], "wb");
	if (!out)
		die(argv[i]);
	i++;
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	fd = open_dev();
	if (ioctl(fd, EQPROF_IOC_CONFIG, &cfg) < 0)
		die("EQPROF_IOC_CONFIG");
	if (ioctl(fd, EQPROF_IOC_START, 0) < 0)
		die("EQPROF_IOC_START");
	pid = fork();
	if (pid == 0) {
		close(fd);
		execvp(argv[i], argv + i);
		_exit(127);
	}
	while (!done) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) < 0 && errno != EINTR)
			die("poll");
		if (p.revents & POLLIN)
			drain(fd, out, 1);
		done = waitpid(pid, &status, WNOHANG) == pid;
	}
	if (ioctl(fd, EQPROF_IOC_STOP, 0) < 0)
		die("EQPROF_IOC_STOP");
	fcntl(fd, F_SETFL, 0);
	drain(fd, out, 0);
	if (fclose(out))
		die("close samples");
	print_stats(fd);
	close(fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "stats")) {
		int fd = open_dev();

		print_stats(fd);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "drain")) {
		FILE *out = fopen(argv[2], "ab");
		int fd = open_dev();
		long n;

		if (!out)
			die(argv[2]);
		n = drain(fd, out, 1);
		if (fclose(out))
			die("close samples");
		printf("drained=%ld\n", n);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "hold")) {
		struct eqprof_config cfg = { .source = EQPROF_SRC_HRTIMER };
		int fd = open_dev();

		cfg.hz_milli = (unsigned)(atof(argv[2]) * 1000);
		if (ioctl(fd, EQPROF_IOC_CONFIG, &cfg) < 0 || ioctl(fd, EQPROF_IOC_START, 0) < 0)
			die("start");
		printf("holding\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc >= 3 && !strcmp(argv[1], "pollwait")) {
		struct eqprof_config cfg = { .source = EQPROF_SRC_HRTIMER };
		struct pollfd p;
		int fd = open_dev();
		FILE *null = fopen("/dev/null", "wb");

		cfg.hz_milli = (unsigned)(atof(argv[2]) * 1000);
		if (ioctl(fd, EQPROF_IOC_CONFIG, &cfg) < 0 || ioctl(fd, EQPROF_IOC_START, 0) < 0)
			die("start");
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&p, 1, -1) < 0)
			die("poll");
		printf("woke_with=%ld\n", drain(fd, null, 1));
		ioctl(fd, EQPROF_IOC_STOP, 0);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc - 1, argv + 1);
	fprintf(stderr, "usage: eqctl stats | drain FILE | hold HZ | run gpio|time ... -- CMD\n");
	return 2;
}
