/*
 * report_bench.c - how fast is `eqprof report --by proc`, and does its
 * memory stay flat as recordings grow?
 *
 *   report_bench ELF EQPROF WORKDIR
 *
 * Writes recordings of 1M and 10M samples spread over every function of
 * ELF (placed as a PIE in one process), then times, best of three:
 *   - reading the recording file with read(2) (the floor: just the bytes),
 *   - eqprof report --by proc on it,
 * and prints samples per second, the ratio to the plain read, and peak
 * memory (resident total, and anonymous: the part that is not the mapped
 * recording itself) sampled from /proc while the report runs.
 * Prints figures only; never fails on time.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "file/eqp.h"
#include "synth_elf.h"
#include "test/lib/xorshift.h"

#define BASE 0x555555554000ull
#define PID 4242
#define BATCH 65536


static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "report_bench: %s: %s\n", what, msg);
	exit(1);
}

static void write_recording(const char *out, const char *elf_path, const struct func *f,
			    size_t nf, const char *maps, uint64_t nsamples)
{
	static struct eq_sample batch[BATCH];
	struct eqp_meta meta = { .mode = EQP_MODE_ENERGY, .quantum_j = 2.94e-3, .clock_hz = 1e9,
				 .target = "report benchmark" };
	struct eq_error err;
	struct eqp_writer *w = eqp_create(out, &meta, &err);
	uint64_t x = 88172645463325252ull, i;
	size_t n = 0;

	if (!w || eqp_add_maps(w, PID, 0, maps, strlen(maps), &err) ||
	    eqp_add_comm(w, PID, 0, "funcs", &err))
		die(out, err.msg);
	(void)elf_path;
	for (i = 0; i < nsamples; i++) {
		const struct func *fn;

		eq_xorshift64(&x);
		fn = &f[x % nf];
		batch[n++] = (struct eq_sample){ .time = i * 1000, .pc = BASE + fn->vaddr +
						 ((x >> 32) % fn->size), .pid = PID, .tid = PID,
						 .seq = (uint32_t)i, .flags = EQ_F_ENERGY };
		if (n == BATCH) {
			if (eqp_add_samples(w, batch, n, &err))
				die(out, err.msg);
			n = 0;
		}
	}
	if ((n && eqp_add_samples(w, batch, n, &err)) || eqp_commit(w, &err))
		die(out, err.msg);
}

static double time_read(const char *path)
{
	static char buf[1 << 20];
	double t0 = now();
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0)
		die(path, "cannot open");
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return now() - t0;
}

/* Opening with the .eqp library (checks every chunk's CRC) and touching
 * every sample: the floor for any analysis of the recording. */
static double time_library_read(const char *path)
{
	double t0 = now();
	struct eq_error err;
	struct eqp_file *f = eqp_open(path, &err);
	volatile uint64_t sink = 0;
	size_t c, i, n;

	if (!f)
		die(path, err.msg);
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		const struct eq_sample *s = eqp_sample_chunk(f, c, &n);
		uint64_t acc = 0;

		for (i = 0; s && i < n; i++)
			acc += s[i].pc;
		sink += acc;
	}
	eqp_close(f);
	(void)sink;
	return now() - t0;
}

static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = strtol(line + strlen(field), NULL, 10);
	fclose(f);
	return kb;
}

/* Runs the report; returns wall seconds, peak RSS and peak anonymous RSS (KiB). */
static double time_report(const char *eqprof, const char *rec, const char *out,
			  const char *k1, const char *v1, long *maxrss_kb, long *anon_kb)
{
	double t0 = now();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(eqprof, eqprof, "report", rec, k1, v1, "--format", "csv", "-o", out,
		      (char *)NULL);
		_exit(127);
	}
	*anon_kb = 0;
	for (;;) {
		long a = status_kb(pid, "RssAnon:");
		pid_t r = wait4(pid, &status, WNOHANG, &ru);

		if (a > *anon_kb)
			*anon_kb = a;
		if (r == pid)
			break;
		usleep(2000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die(eqprof, "report failed");
	*maxrss_kb = ru.ru_maxrss;
	return now() - t0;
}

static void measure(const char *eqprof, const char *dir, const char *rec, uint64_t nsamples)
{
	double best_read = 1e9, best_lib = 1e9, best_rep = 1e9, t;
	long rss = 0, anon = 0, r1, a1;
	char out[4096];
	int i;

	snprintf(out, sizeof(out), "%s/report.csv", dir);
	for (i = 0; i < 3; i++) {
		if ((t = time_read(rec)) < best_read)
			best_read = t;
		if ((t = time_library_read(rec)) < best_lib)
			best_lib = t;
		if ((t = time_report(eqprof, rec, out, "--by", "proc", &r1, &a1)) < best_rep)
			best_rep = t;
		if (r1 > rss)
			rss = r1;
		if (a1 > anon)
			anon = a1;
	}
	printf("%5.1fM samples: report --by proc %.3f s = %.1f M samples/s\n"
	       "      read(2) of the file %.3f s (report takes %.1fx)\n"
	       "      eqp_open + walk every sample %.3f s (report takes %.1fx)\n"
	       "      peak RSS %.1f MiB, of it anonymous %.1f MiB (the rest is the mapped file)\n",
	       (double)nsamples / 1e6, best_rep, (double)nsamples / best_rep / 1e6, best_read,
	       best_rep / best_read, best_lib, best_rep / best_lib, (double)rss / 1024,
	       (double)anon / 1024);
	/* rows by sort keys and filtered samples take the per-sample path */
	{
		static const char *const k[2][2] = { { "--sort", "comm,dso,sym" },
						     { "--symbol", "f1*" } };
		int j;

		for (j = 0; j < 2; j++) {
			double best = 1e9;

			for (i = 0; i < 3; i++)
				if ((t = time_report(eqprof, rec, out, k[j][0], k[j][1], &r1, &a1)) < best)
					best = t;
			printf("      report %s %s %.3f s = %.1f M samples/s\n", k[j][0], k[j][1], best,
			       (double)nsamples / best / 1e6);
		}
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static char maps[8192];
	static const uint64_t sizes[] = { 1000000, 10000000 };
	struct func *f;
	size_t nf, i;
	char rec[4096];

	if (argc != 4) {
		fprintf(stderr, "usage: report_bench ELF EQPROF WORKDIR\n");
		return 2;
	}
	nf = bench_read_elf("report_bench", argv[1], BASE, &f, maps, sizeof(maps));
	if (nf < 1000)
		die(argv[1], "fewer than 1000 functions");
	printf("ELF %s: %zu functions; recording file: 32 bytes a sample\n", argv[1], nf);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(rec, sizeof(rec), "%s/bench-%llu.eqp", argv[3], (unsigned long long)sizes[i]);
		write_recording(rec, argv[1], f, nf, maps, sizes[i]);
		measure(argv[2], argv[3], rec, sizes[i]);
		unlink(rec);
	}
	free(f);
	return 0;
}
