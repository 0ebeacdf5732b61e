/*
 * hilwork.c - a program of the hardware-in-the-loop workload (docs/hil.md).
 *
 *   cpucached SECONDS | game SECONDS     (this file built twice, PHASE 1 and 2)
 *
 * Announces its phase to the bridge through the board's shared memory (the
 * ivshmem device's resource2: the bridge gives the device that phase's
 * power), keeps the CPU busy for SECONDS of CLOCK_MONOTONIC, then announces
 * idle (phase 0) and exits.  The announcement is the first and the last
 * thing it does, so the power follows what the guest runs.  It prints how
 * long its phase lasted and how much of it it was on the CPU (the rest went
 * to whatever else ran, the recorders among them): the test's truth for
 * this program is its phase's energy times that fraction.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "isr/linux/uapi/eqprof_ivshmem.h"

#ifndef PHASE
#error "build with -DPHASE=N"
#endif

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
	volatile struct eqprof_ivshmem_shm *s;
	double seconds = argc > 1 ? atof(argv[1]) : 0, w0, c0, w1, c1;

	if (argc != 2 || !(seconds > 0)) {
		fprintf(stderr, "usage: %s SECONDS\n", argv[0]);
		return 2;
	}
	s = board_shm();
	if (!s || s->magic != EQPROF_IVSHMEM_MAGIC) {
		fprintf(stderr, "%s: no board behind an ivshmem device (is the bridge serving?)\n",
			argv[0]);
		return 1;
	}
	w0 = now();
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	announce(s, PHASE);
	work(seconds);
	announce(s, 0);
	w1 = now();
	c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	printf("hilwork %s phase=%d wall=%.9f cpu=%.9f\n", argv[0], PHASE, w1 - w0, c1 - c0);
	return 0;
}
