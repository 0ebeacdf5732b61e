/*
 * execer.c - exec in place: built twice as non-PIE programs (-DBEFORE and
 * -DAFTER), both at the link address every non-PIE x86-64 program has, so
 * the program before the exec and the one after overlap.  "before" runs
 * before_exec() for MS ms of CPU time and execs ARGV[2..]; "after" runs
 * after_exec() for MS ms.  A sample of either must be named from the maps
 * its process had at that moment.
 *
 *   execer-before MS PROGRAM [ARGS]...     execer-after MS
 */
#include <unistd.h>

#include "work.h"

volatile unsigned long sink;

#ifdef BEFORE
__attribute__((noinline)) void before_exec(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	work_for(before_exec, atof(argv[1]));
	execv(argv[2], argv + 2);
	return 127;
}
#else
__attribute__((noinline)) void after_exec(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	work_for(after_exec, argc > 1 ? atof(argv[1]) : 300);
	return 0;
}
#endif
