/* progress.c - the progress line; see progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void eq_progress_start(struct eq_progress *p, int quiet, double every)
{
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->shown = 0;
	p->every = every;
	p->start = p->last = now_s();
}

double eq_progress_elapsed(const struct eq_progress *p)
{
	return now_s() - p->start;
}

int eq_progress_due(struct eq_progress *p)
{
	double t;

	if (!p->enabled)
		return 0;
	t = now_s();
	if (t - p->last < p->every)
		return 0;
	p->last = t;
	return 1;
}

void eq_progress_show(struct eq_progress *p, const char *fmt, ...)
{
	va_list ap;

	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	p->shown = 1;
}

void eq_progress_end(struct eq_progress *p, int keep)
{
	if (!p->shown)
		return;
	fputs(keep ? "\n" : "\r\033[K", stderr);
	p->shown = 0;
}

void eq_progress_samples(struct eq_progress *p, const char *cmd, uint64_t done,
			 uint64_t total)
{
	double t;

	if (done < total ? !eq_progress_due(p) : !p->shown)
		return;
	t = eq_progress_elapsed(p);
	eq_progress_show(p, "eqprof %s: %.1fM of %.1fM samples (%.1fM/s, %.1f s)", cmd,
			 (double)done / 1e6, (double)total / 1e6,
			 t > 0 ? (double)done / t / 1e6 : 0.0, t);
	if (done >= total)
		eq_progress_end(p, 1);
}
