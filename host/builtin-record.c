/*
 * builtin-record.c - eqprof record: run a command and write a recording.
 *
 *   eqprof record -t [HZ] [--jitter PCT] [-o OUT.eqp] [-q] -- COMMAND [ARGS]...
 *
 * Time-driven sampling needs nothing but the kernel (perf_event_open's
 * cpu-clock; see record_perf.h).  Energy-driven sampling (-e) needs the
 * board's interrupt delivered to the target's eqprof ISR, which this build
 * does not include: -e says so instead of pretending.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "progress.h"
#include "eqp.h"
#include "record_perf.h"
#include "symbolize.h"
#include "units.h"

struct pid_maps {
	uint32_t pid;
	char *text;
	size_t len;
};

struct comm_rec {
	uint32_t pid;
	uint64_t time;
	char *name;
};

/* Samples are spooled to an unnamed temporary file while the command runs:
 * the header, which carries the build-ids of the mapped files, can only be
 * written once the maps are known. */
struct record {
	struct eqp_writer *w;
	FILE *spool;
	struct eq_error *err;
	struct comm_rec *comms;
	size_t ncomms;
	struct pid_maps *maps;
	size_t nmaps;
	uint64_t samples, lost;
};

struct record_opts {
	double hz, jitter;
	const char *out;
	int quiet;
	char **argv;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: eqprof record -t [HZ] [--jitter PCT] [-o OUT.eqp] [-q] -- COMMAND [ARGS]...\n"
		"       eqprof record -e ...   (energy-driven: needs the board and the target ISR)\n\n"
		"  -t [HZ]        time-driven sampling of COMMAND's CPU time (default 1000Hz)\n"
		"  --jitter PCT   re-draw the period within +-PCT %% after every drain (default 5)\n"
		"  -o OUT.eqp     output recording (default eqprof.eqp)\n"
		"  -q             no progress line\n");
}

static int on_sample(void *ctx, const struct eq_sample *s)
{
	struct record *r = ctx;

	r->samples++;
	if (fwrite(s, sizeof(*s), 1, r->spool) != 1)
		return eq_fail(r->err, "spooling samples to a temporary file: %s (is $TMPDIR full?)",
			       strerror(errno));
	return 0;
}

static int on_mmap(void *ctx, uint32_t pid, const char *line)
{
	struct record *r = ctx;
	struct pid_maps *m = NULL, *nm;
	size_t i, add = strlen(line);
	char *t;

	for (i = 0; i < r->nmaps && !m; i++)
		if (r->maps[i].pid == pid)
			m = &r->maps[i];
	if (!m) {
		nm = realloc(r->maps, (r->nmaps + 1) * sizeof(*nm));
		if (!nm)
			return eq_fail(r->err, "out of memory for maps of pid %u", pid);
		r->maps = nm;
		m = &r->maps[r->nmaps++];
		*m = (struct pid_maps){ .pid = pid };
	}
	t = realloc(m->text, m->len + add + 1);
	if (!t)
		return eq_fail(r->err, "out of memory for maps of pid %u", pid);
	memcpy(t + m->len, line, add + 1);
	m->text = t;
	m->len += add;
	return 0;
}

static int on_comm(void *ctx, uint32_t pid, uint64_t time, const char *name)
{
	struct record *r = ctx;
	struct comm_rec *nc = realloc(r->comms, (r->ncomms + 1) * sizeof(*nc));

	if (!nc || !(name = strdup(name))) {
		if (nc)
			r->comms = nc;
		return eq_fail(r->err, "out of memory for the name of pid %u", pid);
	}
	r->comms = nc;
	r->comms[r->ncomms++] = (struct comm_rec){ pid, time, (char *)name };
	return 0;
}

static void on_lost(void *ctx, uint64_t count)
{
	((struct record *)ctx)->lost += count;
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	struct eq_error err;
	int i;

	*o = (struct record_opts){ .hz = 1000, .jitter = 5, .out = "eqprof.eqp" };
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-e")) {
			fprintf(stderr, "eqprof record: energy-driven recording (-e) needs the board's IRQ wired to the target and the eqprof ISR there, which this build does not include; use -t for time-driven sampling, or 'eqprof sim' for a simulated energy-driven run\n");
			return 1;
		} else if (!strcmp(argv[i], "-t")) {
			if (i + 1 < argc && argv[i + 1][0] != '-' &&
			    eq_parse_quantity(argv[i + 1], "Hz", "-t", &o->hz, &err) == 0)
				i++;
		} else if (!strcmp(argv[i], "--jitter") && i + 1 < argc) {
			char *end;

			o->jitter = strtod(argv[++i], &end);
			if (end == argv[i] || (*end && strcmp(end, "%"))) {
				eq_fail(&err, "--jitter: '%s' is not a percentage", argv[i]);
				goto bad;
			}
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			o->out = argv[++i];
		} else if (!strcmp(argv[i], "-q")) {
			o->quiet = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "eqprof record: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "eqprof record: no command given after '--'\n");
		usage(stderr);
		return 2;
	}
	if (!(o->hz > 0 && o->hz <= 100000) || !(o->jitter >= 0 && o->jitter < 50)) {
		fprintf(stderr, "eqprof record: -t must be 1Hz..100kHz and --jitter 0..49 %%\n");
		return 2;
	}
	o->argv = argv + i + 1;
	return 0;
bad:
	fprintf(stderr, "eqprof record: %s\n", err.msg);
	return 2;
}

/* Starts the command stopped at a pipe, so the counter exists before its exec. */
static pid_t spawn(char **argv, int *go_fd, int *exec_err_fd)
{
	int go[2], ee[2];
	pid_t pid;

	if (pipe(go) < 0 || pipe2(ee, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ee[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ee[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ee[1]);
	*go_fd = go[1];
	*exec_err_fd = ee[0];
	return pid;
}

static int write_maps(struct record *r)
{
	size_t i;

	for (i = 0; i < r->nmaps; i++)
		if (eqp_add_maps(r->w, r->maps[i].pid, 0, r->maps[i].text,
				 r->maps[i].len, r->err) < 0)
			return -1;
	for (i = 0; i < r->ncomms; i++)
		if (eqp_add_comm(r->w, r->comms[i].pid, r->comms[i].time,
				 r->comms[i].name, r->err) < 0)
			return -1;
	return 0;
}

static int copy_spooled_samples(struct record *r)
{
	struct eq_sample buf[4096];
	size_t n;

	rewind(r->spool);
	while ((n = fread(buf, sizeof(buf[0]), 4096, r->spool)) > 0)
		if (eqp_add_samples(r->w, buf, n, r->err) < 0)
			return -1;
	if (ferror(r->spool))
		return eq_fail(r->err, "reading back spooled samples: %s", strerror(errno));
	return 0;
}

static void free_record(struct record *r)
{
	size_t i;

	for (i = 0; i < r->nmaps; i++)
		free(r->maps[i].text);
	for (i = 0; i < r->ncomms; i++)
		free(r->comms[i].name);
	free(r->maps);
	free(r->comms);
	if (r->spool)
		fclose(r->spool);
}

/* "buildid:PATH=HEX" for every mapped file that has one, so report can tell
 * when a binary was rebuilt after the recording. */
static void append_build_ids(const struct record *r, char *extra, size_t size)
{
	size_t used = strlen(extra), i;
	char path[4096], hex[128], key[4200];
	struct eq_error ignored;

	for (i = 0; i < r->nmaps; i++) {
		const char *line = r->maps[i].text;

		for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
			const char *slash = strchr(line, '/'), *nl = strchr(line, '\n');
			size_t len;

			if (!slash || (nl && slash > nl))
				continue;
			len = nl ? (size_t)(nl - slash) : strlen(slash);
			if (len >= sizeof(path))
				continue;
			memcpy(path, slash, len);
			path[len] = '\0';
			snprintf(key, sizeof(key), "\n%s%s=", EQ_BUILDID_KEY_PREFIX, path);
			if (strstr(extra, key) || eq_elf_build_id(path, hex, sizeof(hex), &ignored) < 0)
				continue;
			used += (size_t)snprintf(extra + used, size > used ? size - used : 0,
						 "%s%s=%s\n", EQ_BUILDID_KEY_PREFIX, path, hex);
			if (used >= size) {
				extra[size - 1] = '\0';
				return;
			}
		}
	}
}

static int run(const struct record_opts *o, struct record *rec, struct eq_error *err,
	       int *status)
{
	struct perf_sink sink = { rec, on_sample, on_mmap, on_comm, on_lost };
	int go, eefd, e;
	struct eq_progress line;
	struct perf_recorder *pr;
	pid_t pid = spawn(o->argv, &go, &eefd);

	if (pid < 0)
		return eq_fail(err, "cannot start %s: %s", o->argv[0], strerror(errno));
	pr = perf_recorder_open(pid, o->hz, o->jitter, (unsigned)pid, err);
	if (!pr) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (write(go, "g", 1) != 1 || close(go) < 0)
		return eq_fail(err, "cannot release %s: %s", o->argv[0], strerror(errno));
	if (read(eefd, &e, sizeof(e)) == sizeof(e)) {
		waitpid(pid, NULL, 0);
		perf_recorder_close(pr);
		return eq_fail(err, "cannot run '%s': %s", o->argv[0], strerror(e));
	}
	close(eefd);
	eq_progress_start(&line, o->quiet, 0.5);
	while (waitpid(pid, status, WNOHANG) == 0) {
		if (perf_recorder_drain(pr, 100, &sink, err) < 0)
			break;
		if (eq_progress_due(&line)) {
			double t = eq_progress_elapsed(&line);

			eq_progress_show(&line, "eqprof record: %llu samples (%.0f/s, %.1f s)",
					 (unsigned long long)rec->samples, rec->samples / t, t);
		}
	}
	e = perf_recorder_drain(pr, 0, &sink, err);
	perf_recorder_close(pr);
	eq_progress_end(&line, 1);
	return e;
}

static void describe_target(char *target, size_t size, char *extra, size_t xsize,
			    char **argv)
{
	struct utsname u;
	size_t used;
	int i;

	if (uname(&u) == 0)
		snprintf(target, size, "%s %s %s (%s)", u.machine, u.sysname, u.release, u.nodename);
	used = (size_t)snprintf(extra, xsize, "tool=eqprof record -t\ncommand=");
	for (i = 0; argv[i] && used + 1 < xsize; i++)
		used += (size_t)snprintf(extra + used, xsize - used, "%s%s", i ? " " : "", argv[i]);
	if (used + 1 < xsize)
		snprintf(extra + used, xsize - used, "\n");
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct eq_error err = { "" };
	struct record rec = { .err = &err };
	static char extra[65536];
	char target[512] = "";
	struct timespec wall;
	int rc = parse_opts(argc, argv, &o), status = 0;
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .clock_hz = 1e9 };

	if (rc)
		return rc;
	describe_target(target, sizeof(target), extra, sizeof(extra), o.argv);
	clock_gettime(CLOCK_REALTIME, &wall);
	meta.nominal_hz = o.hz;
	meta.target = target;
	meta.extra = extra;
	meta.start_unix_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
	rec.spool = tmpfile();
	if (!rec.spool) {
		eq_fail(&err, "cannot create a temporary file for samples: %s", strerror(errno));
		goto fail;
	}
	signal(SIGINT, SIG_IGN); /* Ctrl-C stops the command; we still write the file */
	if (run(&o, &rec, &err, &status) < 0)
		goto fail;
	append_build_ids(&rec, extra, sizeof(extra));
	rec.w = eqp_create(o.out, &meta, &err);
	if (!rec.w)
		goto fail;
	if (copy_spooled_samples(&rec) < 0 || write_maps(&rec) < 0 ||
	    (rec.lost && eqp_add_lost(rec.w, 0, rec.lost, &err) < 0)) {
		eqp_discard(rec.w);
		goto fail;
	}
	if (eqp_commit(rec.w, &err) < 0)
		goto fail;
	free_record(&rec);
	if (!o.quiet)
		fprintf(stderr, "eqprof record: %llu samples (%llu lost) written to %s\n",
			(unsigned long long)rec.samples, (unsigned long long)rec.lost, o.out);
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "eqprof record: %s exited with status %d\n", o.argv[0], WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	return 0;
fail:
	free_record(&rec);
	fprintf(stderr, "eqprof record: %s\n", err.msg);
	return 1;
}
