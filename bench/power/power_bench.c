/*
 * power_bench.c - how fast power analyses go over 10 million intervals
 * (some 17 hours of a device drawing half a watt, at 2.94 mJ a quantum): summary, histogram,
 * full CSV trace, the reduced trace a plot is drawn from, and the plot
 * itself through gnuplot.  Prints intervals per second; never fails on time.
 *
 *   power_bench [INTERVALS]     (default 10000000; env BENCH_INTERVALS too)
 *
 * Samples are made in memory: a busy/idle workload whose interval lengths
 * follow three power levels with jitter, so histogram buckets and trace
 * columns see realistic spread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "power/power.h"
#include "power/power_plot.h"
#include "test/lib/xorshift.h"

#define Q 2.94e-3

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct eq_sample *make_samples(size_t n)
{
	static const double watts[3] = { 0.27, 0.68, 1.2 };
	struct eq_sample *s = malloc(n * sizeof(*s));
	uint64_t t = 0, seed = 88172645463325252ull;
	size_t i;
	int level = 0;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		uint64_t r = eq_xorshift64(&seed);
		double p = watts[level] * (0.9 + 0.2 * (double)(r & 0xffff) / 65536.0);

		if ((r >> 20) % 500 == 0)
			level = (int)((r >> 40) % 3);  /* a phase change now and then */
		t += (uint64_t)(Q / p * 1e9);
		s[i] = (struct eq_sample){ .time = t, .pc = 0x401000 + (r >> 50) * 4,
			.pid = level ? 100 : 0, .seq = (uint32_t)i,
			.flags = EQ_F_ENERGY | (level ? 0 : EQ_F_IDLE) };
	}
	return s;
}

static void report(const char *what, size_t n, double secs)
{
	printf("%-38s %8.3f s  %12.0f intervals/s\n", what, secs, (double)n / secs);
}

static int count_point(void *ctx, const struct power_point *p)
{
	(void)p;
	(*(size_t *)ctx)++;
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("BENCH_INTERVALS");
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : env ? strtoull(env, NULL, 10) : 10000000;
	struct power_trace_opts o = { .window = 1 };
	struct power_plot_opts po = { .mark_idle = 1 };
	const struct power_input *ptr[1];
	struct power_input in;
	struct power_summary sum;
	struct power_hist h;
	struct eq_error err;
	struct eq_sample *s;
	char png[64];
	size_t points = 0;
	FILE *null;
	double t;

	if (n < 2 || !(s = make_samples(n + 1))) {
		fprintf(stderr, "power_bench: need at least 2 intervals and memory for them\n");
		return 1;
	}
	if (power_input_from_samples(&in, "bench", s, n + 1, 1e9, Q, &err) < 0) {
		fprintf(stderr, "power_bench: %s\n", err.msg);
		return 1;
	}
	printf("power analyses over %zu intervals (%zu MB of samples)\n", n,
	       (n + 1) * sizeof(*s) >> 20);
	t = now();
	power_summarize(&in, &sum, &err);
	report("summary", n, now() - t);
	t = now();
	if (power_hist_init(&h, 0.050, &err) < 0 || power_hist_build(&h, &in, &err) < 0) {
		fprintf(stderr, "power_bench: %s\n", err.msg);
		return 1;
	}
	report("histogram, 50 mW buckets", n, now() - t);
	null = fopen("/dev/null", "w");
	t = now();
	power_trace_write_csv(null, &in, &o, &err);
	report("trace CSV, every interval", n, now() - t);
	o.window = 64;
	t = now();
	power_trace_write_csv(null, &in, &o, &err);
	report("trace CSV, window of 64 intervals", n, now() - t);
	fclose(null);
	o.window = 1;
	o.max_points = 8000;
	t = now();
	power_trace_walk(&in, &o, count_point, &points, &err);
	report("trace reduced for a plot (8000 points)", n, now() - t);
	snprintf(png, sizeof(png), "/tmp/power_bench.%ld.png", (long)getpid());
	ptr[0] = &in;
	t = now();
	if (power_plot_trace(png, ptr, 1, &o, &po, &err) < 0)
		fprintf(stderr, "power_bench: plot: %s\n", err.msg);
	else
		report("trace PNG through gnuplot", n, now() - t);
	unlink(png);
	printf("average power %.4f W over %.1f s; histogram peak at %.2f W\n", sum.power_w,
	       sum.duration_s, (power_hist_peak(&h, POWER_HIST_ALL) + 0.5) * h.bucket_w);
	power_hist_free(&h);
	power_input_free(&in);
	free(s);
	return 0;
}
