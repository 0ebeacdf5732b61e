/*
 * spinner.c - the known workload of the QEMU tests: spins in two functions
 * of its own, spin_heavy() and spin_light(), for SECONDS of wall time (TCG
 * speed varies, so the work is bounded by time, not iterations).  Samples
 * taken while it runs must land in these two functions.
 *
 *   spinner SECONDS [MAPS_FILE]   (writes /proc/self/maps to MAPS_FILE first)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void spin_heavy(unsigned long n)
{
	for (unsigned long i = 0; i < 2 * n; i++)
		sink += i;
}

__attribute__((noinline)) void spin_light(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2, end = now() + secs;

	if (argc > 2) {
		FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(argv[2], "w");
		int c;

		if (!in || !out)
			return 1;
		while ((c = getc(in)) != EOF)
			putc(c, out);
		fclose(in);
		if (fclose(out))
			return 1;
	}
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	/*
	 * Rounds of 3e5 iterations: the end is seen within a round of it.  A
	 * loaded host stops a TCG guest's CPU while its clock runs on, and
	 * rounds of 3e6 once took more than a second of the guest's clock:
	 * under record --duration 3 the spinner of 2 s was killed (status 143).
	 */
	while (now() < end) {
		spin_heavy(100000);
		spin_light(100000);
	}
	return 0;
}
