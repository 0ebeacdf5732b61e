/*
 * renamer.c - a thread that names itself: the main thread runs main_work()
 * for MS ms of CPU time while a second thread names itself "worker-thr"
 * (pthread_setname_np) and runs worker_work() for MS/2 ms.  The process
 * keeps its name; the thread's samples carry the thread's.
 *
 *   renamer MS
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "work.h"

volatile unsigned long sink;
static double ms;

__attribute__((noinline)) void main_work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i;
}

__attribute__((noinline)) void worker_work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink ^= i;
}

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), "worker-thr");
	work_for(worker_work, ms / 2);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	ms = argc > 1 ? atof(argv[1]) : 300;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	work_for(main_work, ms);
	pthread_join(t, NULL);
	return 0;
}
