/*
 * hilwork.c - the hardware-in-the-loop workload (docs/hil.md), built three
 * times:
 *
 *   hilphase PHASE PROGRAM [ARGS...]    (built without PHASE)
 *   cpucached SECONDS | game SECONDS    (built with PHASE 1 and 2)
 *
 * hilphase announces PHASE to the bridge through the board's shared memory
 * (the ivshmem device's resource2: the bridge gives the device that
 * phase's power), runs PROGRAM, waits for it to exit, then announces idle
 * (phase 0).  So the program's whole life lies inside its phase: its exec,
 * its start-up, its exit, and the kernel's work charged to it meanwhile
 * (softirqs run in its context: 3 samples of cpucached fell in the idle
 * phase before it announced its own, when it found the device itself, and
 * the truth's bracket missed by 0.07 points).  hilphase prints how long
 * the phase lasted and how much of it the program was on the CPU (its
 * rusage; the rest went to whatever else ran, hilphase and the recorders
 * among them): the test's truth for this program is at least its phase's
 * energy times that fraction, at most the phase's energy.
 *
 * cpucached and game keep the CPU busy for SECONDS of CLOCK_MONOTONIC.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isr/linux/uapi/eqprof_ivshmem.h"


#ifndef PHASE
static int read_hex(const char *dir, const char *name, unsigned *v)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%x", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static volatile struct eqprof_ivshmem_shm *board_shm(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	void *p = NULL;

	while (d && (e = readdir(d))) {
		unsigned vendor, device;
		char path[512];
		int fd;

		if (e->d_name[0] == '.' || read_hex(e->d_name, "vendor", &vendor) ||
		    read_hex(e->d_name, "device", &device) || vendor != EQPROF_IVSHMEM_VENDOR ||
		    device != EQPROF_IVSHMEM_DEVICE)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource2", e->d_name);
		fd = open(path, O_RDWR | O_SYNC);
		if (fd < 0) {
			perror(path);
			break;
		}
		p = mmap(NULL, EQPROF_IVSHMEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			perror(path);
			p = NULL;
		}
		break;
	}
	if (d)
		closedir(d);
	return p;
}

static void announce(volatile struct eqprof_ivshmem_shm *s, uint32_t phase)
{
	__atomic_store_n(&s->phase, phase, __ATOMIC_RELEASE);
	s->phase_writes++;
}

#endif

static double clock_s(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

#ifdef PHASE
/* The work itself: a loop that stays in the cache (what CPU-cached is). */
static __attribute__((noinline)) uint64_t work(double seconds)
{
	volatile uint64_t x = 1;
	double end = now() + seconds;
	int i;

	while (now() < end)
		for (i = 0; i < 20000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0;

	if (argc != 2 || !(seconds > 0)) {
		fprintf(stderr, "usage: %s SECONDS (run by hilphase %d %s SECONDS)\n", argv[0], PHASE,
			argv[0]);
		return 2;
	}
	work(seconds);
	return 0;
}
#else
int main(int argc, char **argv)
{
	volatile struct eqprof_ivshmem_shm *s;
	int phase = argc > 2 ? atoi(argv[1]) : 0, status;
	struct rusage ru;
	double w0, w1;
	pid_t pid;

	if (argc < 3 || phase <= 0) {
		fprintf(stderr, "usage: %s PHASE PROGRAM [ARGS...] (PHASE 1 or more)\n", argv[0]);
		return 2;
	}
	s = board_shm();
	if (!s || s->magic != EQPROF_IVSHMEM_MAGIC) {
		fprintf(stderr, "%s: no board behind an ivshmem device (is the bridge serving?)\n",
			argv[0]);
		return 1;
	}
	w0 = now();
	announce(s, (uint32_t)phase);
	pid = fork();
	if (pid == 0) {
		execv(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		announce(s, 0);
		perror("hilphase: running the program");
		return 1;
	}
	announce(s, 0);
	w1 = now();
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("hilwork %s phase=%d wall=%.9f cpu=%.9f\n", argv[2], phase, w1 - w0,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec * 1e-6);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
#endif
