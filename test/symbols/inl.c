/*
 * inl.c - a function with code inlined from a header (inl.h's mix()), for
 * the callgrind and pprof exports: outer() stays one function whatever
 * file its lines are in.  Then a burst, a sleep and another burst, for the
 * Chrome trace: the sleep belongs to no function.
 *
 *   inl MS
 */
#include <unistd.h>

#include "inl.h"
#include "work.h"

volatile unsigned long sink;

__attribute__((noinline)) void outer(void)
{
	unsigned long v = sink;

	for (int i = 0; i < 50; i++) {
		v = mix(v);
		v ^= v >> 7;
	}
	sink = v;
}

__attribute__((noinline)) void before_sleep(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i;
}

__attribute__((noinline)) void after_sleep(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;

	work_for(outer, ms);
	work_for(before_sleep, 20);
	usleep(300000);
	work_for(after_sleep, 20);
	return 0;
}
