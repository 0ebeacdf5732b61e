/*
 * vdso.c - a loop of clock_gettime(): the time is read in the kernel's
 * vdso, code that no file on any machine holds.  vdso_loop() runs for MS ms
 * of CPU time, most of it inside the vdso.
 *
 *   vdso MS
 */
#include "work.h"

volatile unsigned long sink;

__attribute__((noinline)) void vdso_loop(void)
{
	struct timespec ts;

	for (int i = 0; i < 2000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
}

int main(int argc, char **argv)
{
	work_for(vdso_loop, argc > 1 ? atof(argv[1]) : 300);
	return 0;
}
