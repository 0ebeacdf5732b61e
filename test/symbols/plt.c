/*
 * plt.c - calls through the PLT: plt_loop() calls plt_target(), a one-line
 * function in a shared library (built from this file with -DLIB), so a good
 * part of the time is spent in the stub plt_target@plt.
 *
 *   plt MS
 */
#include "work.h"

#ifdef LIB
int plt_target(int x)
{
	return x + 1;
}
#else
int plt_target(int x);
volatile int sink;

__attribute__((noinline)) void plt_loop(void)
{
	int v = sink;

	for (int i = 0; i < 20000; i++)
		v = plt_target(v);
	sink = v;
}

int main(int argc, char **argv)
{
	work_for(plt_loop, argc > 1 ? atof(argv[1]) : 300);
	return 0;
}
#endif
