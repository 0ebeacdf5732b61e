/*
 * spin.c - a workload that measures its own truth.
 *
 *   spin MS [thread|fork|no] [STATUS]
 *
 * heavy() and light() run the same kind of loop; how long each takes is not
 * assumed (on some CPUs two copies of one loop at different addresses run
 * at different speeds): each call is timed with the thread's own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) and the totals are printed at exit, to the file
 * named by $SPIN_TRUTH or else to standard error:
 *
 *   heavy_ns=N light_ns=N
 *
 * A time profile must give heavy() and light() the shares of those times.
 * The main thread alternates heavy(2n) and light(n) until MS ms of its CPU
 * time are spent.  "thread": light() runs in a second thread instead, for MS/2
 * ms.  "fork": the process forks (no exec) and the child runs light() for
 * MS/2 ms, so its samples need the maps it inherited.  STATUS is the exit
 * status.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

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

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned long chunk; /* iterations of light() in about 1 ms */

struct runner {
	void (*fn)(unsigned long);
	unsigned long n;
	uint64_t budget_ns, spent_ns;
};

static void *run(void *arg)
{
	struct runner *r = arg;
	uint64_t start = cpu_ns();

	while (cpu_ns() - start < r->budget_ns) {
		uint64_t t0 = cpu_ns();

		r->fn(r->n);
		r->spent_ns += cpu_ns() - t0;
	}
	return NULL;
}

static void report(uint64_t heavy_ns, uint64_t light_ns)
{
	const char *path = getenv("SPIN_TRUTH");
	FILE *f = path ? fopen(path, "w") : stderr;

	if (!f)
		exit(4);
	fprintf(f, "heavy_ns=%llu light_ns=%llu\n", (unsigned long long)heavy_ns,
		(unsigned long long)light_ns);
	if (f != stderr)
		fclose(f);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? strtod(argv[1], NULL) : 1000;
	const char *mode = argc > 2 ? argv[2] : "no";
	uint64_t budget = (uint64_t)(ms * 1e6), t0;
	struct runner h = { heavy, 0, 0, 0 }, l = { light, 0, 0, 0 };

	/* About 1 ms a call of light(), measured, whatever the CPU's speed. */
	for (chunk = 1000; ; chunk *= 2) {
		t0 = cpu_ns();
		light(chunk);
		if (cpu_ns() - t0 > 1000000 || chunk > (1ul << 40))
			break;
	}
	h.n = l.n = chunk;
	if (!strcmp(mode, "thread")) {
		pthread_t t;

		h.budget_ns = budget;
		l.budget_ns = budget / 2;
		if (pthread_create(&t, NULL, run, &l) != 0)
			return 3;
		run(&h);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "fork")) {
		int fd[2], status;
		uint64_t child_ns = 0;
		pid_t pid;

		if (pipe(fd) < 0)
			return 3;
		pid = fork();
		if (pid < 0)
			return 3;
		if (pid == 0) {
			l.budget_ns = budget / 2;
			run(&l);
			if (write(fd[1], &l.spent_ns, sizeof(l.spent_ns)) != sizeof(l.spent_ns))
				_exit(3);
			_exit(0);
		}
		h.budget_ns = budget;
		run(&h);
		if (read(fd[0], &child_ns, sizeof(child_ns)) != sizeof(child_ns) ||
		    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 3;
		l.spent_ns = child_ns;
	} else {
		/* alternate, so that both see the same machine conditions */
		t0 = cpu_ns();
		while (cpu_ns() - t0 < budget) {
			uint64_t a = cpu_ns();

			heavy(chunk);
			h.spent_ns += cpu_ns() - a;
			a = cpu_ns();
			light(chunk);
			l.spent_ns += cpu_ns() - a;
		}
	}
	report(h.spent_ns, l.spent_ns);
	return argc > 3 ? atoi(argv[3]) : 0;
}
