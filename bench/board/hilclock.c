/*
 * hilclock.c - in the guest: the host's clock against the guest's, through
 * the bridge's shared memory (sim/hil/hilclock.h).
 *
 *   hilclock N
 *
 * Maps BAR 2 of QEMU's ivshmem device (PCI 1af4:1110, its sysfs resource2)
 * and prints N lines "GUEST_NS HOST_NS": the guest's CLOCK_MONOTONIC just
 * after reading the host's from the shared memory, 1 ms apart.  Since the
 * host wrote HOST_NS before the guest read it, host - guest >= HOST_NS -
 * GUEST_NS on every line: the largest of those is the offset, short by at
 * most the bridge's turn (bench/board/usb-qemu.py).
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

#include "sim/hil/hilclock.h"

static int read_hex(const char *dir, const char *name)
{
	char path[512], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return (int)strtol(buf, NULL, 16);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, fd = -1, i;
	struct timespec ms = { 0, 1000000 };
	char path[512];
	struct dirent *e;
	volatile uint64_t *clk;
	void *p;
	DIR *d = opendir("/sys/bus/pci/devices");

	while (d && (e = readdir(d)))
		if (read_hex(e->d_name, "vendor") == 0x1af4 && read_hex(e->d_name, "device") == 0x1110) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource2", e->d_name);
			fd = open(path, O_RDONLY | O_SYNC);
			break;
		}
	if (fd < 0) {
		fprintf(stderr, "hilclock: no ivshmem device (PCI 1af4:1110) with a resource2 to map\n");
		return 1;
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("hilclock: mmap resource2");
		return 1;
	}
	clk = (volatile uint64_t *)((char *)p + HILCLOCK_OFFSET);
	for (i = 0; i < n; i++) {
		uint64_t h = *clk, g = mono_ns();

		printf("%llu %llu\n", (unsigned long long)g, (unsigned long long)h);
		nanosleep(&ms, NULL);
	}
	return 0;
}
