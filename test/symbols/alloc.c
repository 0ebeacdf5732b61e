/*
 * alloc.c - malloc() and free() in a loop: glibc's functions have several
 * names at one address (malloc, __libc_malloc, and in its debug symbols
 * __GI___libc_malloc; free is also cfree@GLIBC_2.2.5): a report shows the
 * public one.
 *
 *   alloc MS
 */
#include "work.h"

void *volatile keep;

__attribute__((noinline)) void alloc_loop(void)
{
	for (int i = 0; i < 2000; i++) {
		keep = malloc(64 + (size_t)(i & 63));
		free(keep);
	}
}

int main(int argc, char **argv)
{
	work_for(alloc_loop, argc > 1 ? atof(argv[1]) : 300);
	return 0;
}
