/*
 * devload.c - the device-request workload of the QEMU test (record
 * --events): NWRITES O_DIRECT writes of SIZE bytes to the block device DEV,
 * each waited for (so the kernel has nothing to merge), GAP_MS apart, then
 * NDGRAMS UDP datagrams of DSIZE payload bytes to itself over lo.  Prints
 * what it did as the truth check.py compares the recording with:
 *
 *   pid=P tid=T writes=N write_bytes=B dgrams=M dgram_payload=D
 *
 * usage: devload DEV NWRITES SIZE GAP_MS NDGRAMS DSIZE
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long nw, size, gap, nd, dsize, i, wrote = 0, sent = 0;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	struct timespec ts;
	void *buf;
	int fd, rx, tx;

	if (argc != 7) {
		fprintf(stderr, "usage: devload DEV NWRITES SIZE GAP_MS NDGRAMS DSIZE\n");
		return 2;
	}
	nw = atol(argv[2]);
	size = atol(argv[3]);
	gap = atol(argv[4]);
	nd = atol(argv[5]);
	dsize = atol(argv[6]);
	if (size <= 0 || size % 4096 || dsize <= 0 || dsize > 1400 ||
	    posix_memalign(&buf, 4096, (size_t)size)) {
		fprintf(stderr, "devload: SIZE a multiple of 4096, DSIZE 1 to 1400\n");
		return 2;
	}
	memset(buf, 0xa5, (size_t)size);
	fd = nw ? open(argv[1], O_WRONLY | O_DIRECT) : -2;
	if (fd == -1) {
		fprintf(stderr, "devload: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	ts.tv_sec = gap / 1000;
	ts.tv_nsec = gap % 1000 * 1000000;
	for (i = 0; i < nw; i++) {
		if (pwrite(fd, buf, (size_t)size, (off_t)(i % 256) * size) != size) {
			fprintf(stderr, "devload: write %ld to %s: %s\n", i, argv[1], strerror(errno));
			return 1;
		}
		wrote++;
		nanosleep(&ts, NULL);
	}
	if (fd >= 0)
		close(fd);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(rx, (struct sockaddr *)&a, &al) < 0) {
		fprintf(stderr, "devload: UDP socket on lo: %s (is lo up?)\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < nd; i++) {
		char d[1400];

		memset(d, (int)i, (size_t)dsize);
		if (sendto(tx, d, (size_t)dsize, 0, (struct sockaddr *)&a, sizeof(a)) != dsize) {
			fprintf(stderr, "devload: datagram %ld: %s\n", i, strerror(errno));
			return 1;
		}
		sent++;
		if (recv(rx, d, sizeof(d), 0) != dsize) {
			fprintf(stderr, "devload: datagram %ld did not come back\n", i);
			return 1;
		}
		nanosleep(&ts, NULL);
	}
	printf("pid=%d tid=%ld writes=%ld write_bytes=%ld dgrams=%ld dgram_payload=%ld\n",
	       (int)getpid(), (long)syscall(SYS_gettid), wrote, wrote * size, sent, dsize);
	return 0;
}
