/*
 * reload.c - a library unloaded and another loaded where it was: dlopen
 * libreload-a.so, dlclose it, dlopen libreload-b.so (the loader reuses the
 * addresses) and run its reloaded_work() for MS ms of CPU time.  The later
 * mapping replaces the earlier one, as the kernel's did.
 *
 *   reload MS DIR        (libraries built from this file with -DLIB_A, -DLIB_B)
 */
#include <dlfcn.h>
#include <stdio.h>

#include "work.h"

volatile unsigned long sink;

#if defined(LIB_A)
void unloaded_work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i;
}
#elif defined(LIB_B)
void reloaded_work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink ^= i;
}
#else
int main(int argc, char **argv)
{
	char path[4096];
	void *h;
	void (*fn)(void);

	snprintf(path, sizeof(path), "%s/libreload-a.so", argv[2]);
	if (!(h = dlopen(path, RTLD_NOW)) || dlclose(h))
		return 1;
	snprintf(path, sizeof(path), "%s/libreload-b.so", argv[2]);
	if (!(h = dlopen(path, RTLD_NOW)) || !(fn = (void (*)(void))dlsym(h, "reloaded_work")))
		return 1;
	work_for(fn, atof(argv[1]));
	return 0;
}
#endif
