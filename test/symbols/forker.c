/*
 * forker.c - a process that forks without exec: the child runs
 * child_work(), the parent parent_work(), each for MS ms of CPU time.  The
 * child's samples can only be symbolized through the maps it inherited.
 *
 *   forker MS
 */
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

volatile unsigned long sink;

__attribute__((noinline)) void child_work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i;
}

__attribute__((noinline)) void parent_work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	pid_t pid = fork();

	if (pid == 0) {
		work_for(child_work, ms);
		_exit(0);
	}
	work_for(parent_work, ms);
	waitpid(pid, NULL, 0);
	return 0;
}
