/* spin.c - a workload with a known split of CPU time: heavy() runs the same
 * loop as light() twice as many times, so a time profile must give heavy
 * two thirds of the samples.  A second thread runs light() too when asked,
 * to check that threads are followed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

/* The same loop in each, so samples land in the function itself. */
__attribute__((noinline)) void heavy(unsigned long n)
{
	for (unsigned long i = 0; i < 2 * n; i++)
		sink += i;
}

__attribute__((noinline)) void light(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static void *thread_main(void *arg)
{
	light(*(unsigned long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 50000000ul;
	int threaded = argc > 2 && !strcmp(argv[2], "thread");
	pthread_t t;

	if (threaded && pthread_create(&t, NULL, thread_main, &n) != 0)
		return 3;
	heavy(n);
	if (threaded)
		pthread_join(t, NULL);
	else
		light(n);
	return argc > 3 ? atoi(argv[3]) : 0;
}
