/*
 * module.c - samples from the eqprof kernel module; see module.h.
 */
#include "record/module.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "isr/linux/uapi/eqprof.h"
#include "symfile.h"

#define BATCH 1024
#define MAX_RINGS 4096

struct module_recorder {
	int fd;
	const char *device;
	uint32_t nrings;
	uint32_t *expect;       /* next seq per CPU ring */
	uint32_t self;
	struct eq_sample buf[BATCH];
	struct module_recorder_stats st;
};

int module_recorder_available(const char *device)
{
	return access(device ? device : EQPROF_DEVICE, F_OK) == 0;
}

static int dev_fail(struct module_recorder *r, const char *what, struct eq_error *err)
{
	return eq_fail(err, "%s: %s: %s", r->device, what, strerror(errno));
}

static int parse_gpio(const char *spec, struct eqprof_config *c, struct eq_error *err)
{
	const char *colon = strrchr(spec, ':');
	char *end;
	unsigned long line;

	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(c->gpio_chip))
		return eq_fail(err, "--gpio %s: expected CHIP_LABEL:LINE (e.g. pinctrl-bcm2711:17)", spec);
	line = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || *end || line > 65535)
		return eq_fail(err, "--gpio %s: '%s' is not a line number", spec, colon + 1);
	memcpy(c->gpio_chip, spec, (size_t)(colon - spec));
	c->gpio_chip[colon - spec] = '\0';
	c->gpio_line = (uint32_t)line;
	return 0;
}

struct module_recorder *module_recorder_open(const struct module_open_opts *o,
					     struct eq_error *err)
{
	struct module_recorder *r = calloc(1, sizeof(*r));
	struct eqprof_config c;
	struct eqprof_stats st;

	if (!r) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	r->fd = -1;
	r->device = o->device ? o->device : EQPROF_DEVICE;
	r->self = (uint32_t)getpid();
	memset(&c, 0, sizeof(c));
	c.source = !o->energy ? EQPROF_SRC_HRTIMER :
		   o->ivshmem ? EQPROF_SRC_IVSHMEM : EQPROF_SRC_GPIO;
	c.hz_milli = (uint32_t)(o->hz * 1000 + 0.5);
	c.jitter_pct = (uint32_t)(o->jitter_pct + 0.5);
	c.ring_bytes = o->ring_bytes;
	if (o->energy && o->gpio && parse_gpio(o->gpio, &c, err) < 0)
		goto fail;
	r->fd = open(r->device, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		if (errno == ENOENT)
			eq_fail(err, "%s does not exist: load the eqprof module (isr/linux/eqprof.ko; docs/target-linux.md)",
				r->device);
		else if (errno == EACCES || errno == EPERM)
			eq_fail(err, "%s: %s: the device is mode 0600 (its samples reveal kernel addresses): run as root",
				r->device, strerror(errno));
		else if (errno == EBUSY)
			eq_fail(err, "%s is in use by another recorder (one at a time)", r->device);
		else
			dev_fail(r, "open", err);
		goto fail;
	}
	if (ioctl(r->fd, EQPROF_IOC_CONFIG, &c) < 0) {
		if (errno == EINVAL && o->energy && o->ivshmem)
			eq_fail(err, "%s: this module has no ivshmem source: build isr/linux from this eqprof",
				r->device);
		else if (errno == EINVAL && o->energy && !o->gpio)
			eq_fail(err, "%s: the module does not know the board's GPIO line: load it with gpio_chip=LABEL gpio_line=N or pass --gpio LABEL:LINE",
				r->device);
		else if (errno == EBUSY)
			eq_fail(err, "%s: sampling is already running (started at load with start=?): stop it first",
				r->device);
		else
			dev_fail(r, "configuring the session", err);
		goto fail;
	}
	if (ioctl(r->fd, EQPROF_IOC_STATS, &st) < 0) {
		dev_fail(r, "reading its statistics", err);
		goto fail;
	}
	r->nrings = st.nr_cpus < MAX_RINGS ? st.nr_cpus : MAX_RINGS;
	r->expect = calloc(r->nrings ? r->nrings : 1, sizeof(*r->expect));
	if (!r->expect) {
		eq_fail(err, "out of memory");
		goto fail;
	}
	return r;
fail:
	module_recorder_close(r);
	return NULL;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int module_recorder_start(struct module_recorder *r, struct eq_error *err)
{
	struct eqprof_stats st;

	if (ioctl(r->fd, EQPROF_IOC_START, 0) < 0) {
		if (errno == ENODEV || errno == ERANGE || errno == EBUSY || errno == ENXIO)
			return eq_fail(err, "%s: cannot take the board's interrupt (%s): see the kernel log (dmesg) for the GPIO chip and line it tried",
				       r->device, strerror(errno));
		return dev_fail(r, "starting sampling", err);
	}
	if (ioctl(r->fd, EQPROF_IOC_STATS, &st) == 0) {
		uint32_t cpu;

		snprintf(r->st.source, sizeof(r->st.source), "%s", st.source_name);
		r->st.threaded = (int)st.irq_threaded;
		/* a source may number from elsewhere (ivshmem: the board's quanta) */
		for (cpu = 0; cpu < r->nrings; cpu++)
			r->expect[cpu] = st.first_seq;
	}
	r->st.seconds = -now_s();
	return 0;
}

static int hand_over(struct module_recorder *r, const struct eq_sample *s, size_t n,
		     const struct eq_sink *sink)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t cpu = s[i].cpu, gap;

		if (cpu < r->nrings) {
			gap = s[i].seq - r->expect[cpu];
			if (gap && gap < 0x80000000u) {
				r->st.seq_gaps += gap;
				sink->lost(sink->ctx, cpu, gap);
			}
			r->expect[cpu] = s[i].seq + 1;
		}
		r->st.samples++;
		if (s[i].pid == r->self)
			r->st.own++;
		if (sink->sample(sink->ctx, &s[i]) < 0)
			return -1;
	}
	return 0;
}

static int read_all(struct module_recorder *r, const struct eq_sink *sink, struct eq_error *err)
{
	for (;;) {
		ssize_t n = read(r->fd, r->buf, sizeof(r->buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return dev_fail(r, "reading samples", err);
		if (n == 0)
			return 0;
		if (n % (ssize_t)sizeof(r->buf[0]))
			return eq_fail(err, "%s: read returned %zd bytes, not whole samples (module and eqprof do not match?)",
				       r->device, n);
		if (hand_over(r, r->buf, (size_t)n / sizeof(r->buf[0]), sink) < 0)
			return eq_fail(err, "recording samples failed");
		if ((size_t)n < sizeof(r->buf))
			return 0;
	}
}

int module_recorder_drain(struct module_recorder *r, int timeout_ms,
			  const struct eq_sink *sink, struct eq_error *err)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) < 0 && errno != EINTR)
		return dev_fail(r, "poll", err);
	return read_all(r, sink, err);
}

int module_recorder_stop(struct module_recorder *r, const struct eq_sink *sink,
			 struct eq_error *err)
{
	struct eqprof_stats st;
	struct eqprof_cpu_stats cs;
	uint32_t cpu;

	if (ioctl(r->fd, EQPROF_IOC_STOP, 0) < 0)
		return dev_fail(r, "stopping sampling", err);
	r->st.seconds += now_s();
	if (read_all(r, sink, err) < 0)
		return -1;
	if (ioctl(r->fd, EQPROF_IOC_STATS, &st) < 0)
		return dev_fail(r, "reading its statistics", err);
	if (st.start_ns && st.stop_ns > st.start_ns)
		r->st.seconds = (double)(st.stop_ns - st.start_ns) * 1e-9;
	r->st.ring_dropped = st.dropped;
	r->st.missed = st.missed;
	r->st.approx = st.approx;
	/* drops after each ring's last sample show only in its next seq */
	for (cpu = 0; cpu < r->nrings; cpu++) {
		memset(&cs, 0, sizeof(cs));
		cs.cpu = cpu;
		if (ioctl(r->fd, EQPROF_IOC_CPU_STATS, &cs) < 0)
			continue; /* not a possible CPU */
		if (cs.next_seq != r->expect[cpu]) {
			uint32_t gap = cs.next_seq - r->expect[cpu];

			r->st.seq_gaps += gap;
			sink->lost(sink->ctx, cpu, gap);
			r->expect[cpu] = cs.next_seq;
		}
	}
	return 0;
}

const struct module_recorder_stats *module_recorder_stats(const struct module_recorder *r)
{
	return &r->st;
}

void module_recorder_close(struct module_recorder *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->expect);
	free(r);
}

/* ---- keeping one process tree --------------------------------------------- */

struct tree_filter {
	struct eq_sink down;
	uint32_t *pids;         /* open addressing, 0 = empty */
	size_t n, cap;
	uint64_t dropped;
};

static size_t pid_hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	return x;
}

static int tree_has(const struct tree_filter *f, uint32_t pid)
{
	size_t i;

	for (i = pid_hash(pid) & (f->cap - 1); f->pids[i]; i = (i + 1) & (f->cap - 1))
		if (f->pids[i] == pid)
			return 1;
	return 0;
}

static int tree_add(struct tree_filter *f, uint32_t pid)
{
	size_t i;

	if (!pid || tree_has(f, pid))
		return 0;
	if ((f->n + 1) * 2 > f->cap) {
		uint32_t *old = f->pids;
		size_t oldcap = f->cap, j;

		f->pids = calloc(f->cap * 2, sizeof(*f->pids));
		if (!f->pids) {
			f->pids = old;
			return -1;
		}
		f->cap *= 2;
		f->n = 0;
		for (j = 0; j < oldcap; j++)
			if (old[j])
				tree_add(f, old[j]);
		free(old);
	}
	for (i = pid_hash(pid) & (f->cap - 1); f->pids[i]; i = (i + 1) & (f->cap - 1))
		;
	f->pids[i] = pid;
	f->n++;
	return 0;
}

static int tf_sample(void *ctx, const struct eq_sample *s)
{
	struct tree_filter *f = ctx;

	if (!tree_has(f, s->pid)) {
		f->dropped++;
		return 0;
	}
	return f->down.sample(f->down.ctx, s);
}

static int tf_mmap(void *ctx, uint32_t pid, uint64_t time, const char *line)
{
	struct tree_filter *f = ctx;

	return f->down.mmap(f->down.ctx, pid, time, line);
}

static int tf_comm(void *ctx, uint32_t pid, uint32_t tid, uint64_t time, const char *name,
		   int exec)
{
	struct tree_filter *f = ctx;

	return f->down.comm(f->down.ctx, pid, tid, time, name, exec);
}

static int tf_fork(void *ctx, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid,
		   uint64_t time)
{
	struct tree_filter *f = ctx;

	if (tree_has(f, ppid) && tree_add(f, pid) < 0)
		return -1;
	return f->down.fork(f->down.ctx, ppid, ptid, pid, tid, time);
}

static void tf_lost(void *ctx, uint32_t source, uint64_t count)
{
	struct tree_filter *f = ctx;

	f->down.lost(f->down.ctx, source, count);
}

struct tree_filter *tree_filter_new(pid_t root, const struct eq_sink *down)
{
	struct tree_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->down = *down;
	f->cap = 64;
	f->pids = calloc(f->cap, sizeof(*f->pids));
	if (!f->pids || tree_add(f, (uint32_t)root) < 0) {
		tree_filter_free(f);
		return NULL;
	}
	return f;
}

struct eq_sink tree_filter_sink(struct tree_filter *f)
{
	return (struct eq_sink){ .ctx = f, .sample = tf_sample, .mmap = tf_mmap, .comm = tf_comm,
				 .fork = tf_fork, .lost = tf_lost };
}

uint64_t tree_filter_dropped(const struct tree_filter *f)
{
	return f->dropped;
}

void tree_filter_free(struct tree_filter *f)
{
	if (!f)
		return;
	free(f->pids);
	free(f);
}

/* ---- what exists before the recording starts ------------------------------ */

static char *slurp(const char *path, size_t *len)
{
	FILE *in = fopen(path, "re");
	char *buf = NULL, *grown;
	size_t cap = 0, n = 0, got;

	if (!in)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				free(buf);
				fclose(in);
				return NULL;
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n, in);
		n += got;
	} while (got);
	fclose(in);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int snapshot_one(uint32_t pid, const struct eq_sink *sink)
{
	char path[64], *text, *line, *nl;
	size_t len;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	text = slurp(path, &len);
	if (!text)
		return 0; /* gone already, or a kernel thread we may not read */
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	rc = sink->comm(sink->ctx, pid, pid, 0, text, 1);
	free(text);
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	text = slurp(path, &len);
	for (line = text; rc == 0 && line && *line; line = nl + 1) {
		char keep;

		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		keep = nl[1];
		nl[1] = '\0';
		rc = sink->mmap(sink->ctx, pid, 0, line);
		nl[1] = keep;
		if (!keep)
			break;
	}
	free(text);
	return rc;
}

int record_threads_of(pid_t pid, pid_t **tids, struct eq_error *err)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	size_t n = 1, cap = 16;
	pid_t *v = malloc(cap * sizeof(*v));

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!v)
		return eq_fail(err, "out of memory");
	d = opendir(path);
	if (!d) {
		free(v);
		return eq_fail(err, "-p %d: %s: %s", (int)pid, path,
			       errno == ENOENT ? "no such process" : strerror(errno));
	}
	v[0] = pid;
	while ((e = readdir(d))) {
		pid_t t;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		t = (pid_t)strtol(e->d_name, NULL, 10);
		if (t == pid)
			continue;
		if (n == cap) {
			pid_t *g = realloc(v, 2 * cap * sizeof(*v));

			if (!g) {
				closedir(d);
				free(v);
				return eq_fail(err, "out of memory");
			}
			v = g;
			cap *= 2;
		}
		v[n++] = t;
	}
	closedir(d);
	*tids = v;
	return (int)n;
}

/* Names the threads of pid gave themselves (those unlike its own). */
static int snapshot_threads(uint32_t pid, const struct eq_sink *sink)
{
	char path[96], *own, *name;
	size_t len;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	own = slurp(path, &len);
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = own ? opendir(path) : NULL;
	while (d && rc == 0 && (e = readdir(d))) {
		uint32_t tid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		tid = (uint32_t)strtoul(e->d_name, NULL, 10);
		if (tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		name = slurp(path, &len);
		if (name && strcmp(name, own)) {
			if (len && name[len - 1] == '\n')
				name[len - 1] = '\0';
			rc = sink->comm(sink->ctx, pid, tid, 0, name, 0);
		}
		free(name);
	}
	if (d)
		closedir(d);
	free(own);
	return rc;
}

int record_proc_snapshot(pid_t pid, const struct eq_sink *sink, struct eq_error *err)
{
	DIR *d;
	struct dirent *e;

	if (pid > 0)
		return snapshot_one((uint32_t)pid, sink) < 0 || snapshot_threads((uint32_t)pid, sink) < 0
		       ? eq_fail(err, "recording pid %d's maps failed", (int)pid) : 0;
	d = opendir("/proc");
	if (!d)
		return eq_fail(err, "/proc: %s (is procfs mounted?)", strerror(errno));
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (snapshot_one((uint32_t)strtoul(e->d_name, NULL, 10), sink) < 0) {
			closedir(d);
			return eq_fail(err, "recording the maps of process %s failed", e->d_name);
		}
	}
	closedir(d);
	return 0;
}

/* One module's lines of kallsyms ("ADDR TYPE NAME\t[MOD]"), or the core
 * kernel's (mod NULL: lines without a module), copied into a new text. */
static char *kallsyms_part(const char *text, size_t len, const char *mod, size_t *outlen)
{
	char *out = malloc(len + 1);
	const char *p = text, *end = text + len;
	size_t used = 0, ml = mod ? strlen(mod) : 0;

	if (!out)
		return NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *br;
		size_t ll = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		br = memchr(p, '[', ll);
		if (mod ? (br && (size_t)(p + ll - br) > ml + 1 && !strncmp(br + 1, mod, ml) && br[1 + ml] == ']')
			: !br) {
			memcpy(out + used, p, ll);
			used += ll;
		}
		p += ll;
	}
	out[used] = '\0';
	*outlen = used;
	return out;
}

/* The names of the modules kallsyms lists, "a\0b\0...\0\0". */
static char *kallsyms_modules(const char *text, size_t len)
{
	char *names = calloc(1, 2), *grown;
	size_t used = 0;
	const char *p = text, *end = text + len;

	while (names && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *br, *close;
		size_t ll = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p), ml;

		br = memchr(p, '[', ll);
		close = br ? memchr(br, ']', (size_t)(p + ll - br)) : NULL;
		p += ll;
		if (!close)
			continue;
		ml = (size_t)(close - br - 1);
		{
			const char *q;
			int seen = 0;

			for (q = names; *q && !seen; q += strlen(q) + 1)
				seen = strlen(q) == ml && !strncmp(q, br + 1, ml);
			if (seen || !ml)
				continue;
		}
		grown = realloc(names, used + ml + 2);
		if (!grown) {
			free(names);
			return NULL;
		}
		names = grown;
		memcpy(names + used, br + 1, ml);
		names[used + ml] = '\0';
		names[used + ml + 1] = '\0';
		used += ml + 1;
	}
	return names;
}

/* The kernel pcs to name, when the recorder kept them (NULL: all). */
struct kpcs {
	int all;
	uint64_t *pc;
	size_t n;
};

/*
 * Only the symbols that hold a recorded pc, each with its size up to the
 * next symbol of the full list (so a pc past it is not taken for it): a
 * whole kallsyms is some 5 MB a recording.  Filters syms in place.
 */
static void keep_needed(struct eq_symfile *syms, const struct kpcs *k)
{
	size_t i, j = 0, out = 0;
	unsigned char *want;

	if (k->all || !syms->n)
		return;
	want = calloc(syms->n, 1);
	if (!want)
		return;  /* keep them all */
	for (i = 0; i < k->n; i++) {
		size_t lo = 0, hi = syms->n;

		while (lo < hi) { /* the last symbol at or below the pc */
			size_t mid = (lo + hi) / 2;

			if (syms->syms[mid].addr <= k->pc[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo)
			want[lo - 1] = 1;
	}
	for (j = 0; j < syms->n; j++) {
		if (!want[j])
			continue;
		syms->syms[out] = syms->syms[j];
		if (!syms->syms[out].size && j + 1 < syms->n)
			syms->syms[out].size = syms->syms[j + 1].addr - syms->syms[j].addr;
		out++;
	}
	syms->n = out;
	free(want);
}

/* Each loaded module's symbols as their own table "[MOD]" (absolute
 * addresses), so its samples name the module, as perf's do. */
static int record_module_symbols(struct recorder *rec, const char *text, size_t len,
				 const struct kpcs *k, struct eq_error *err)
{
	char *mods = kallsyms_modules(text, len), *m;
	int rc = 0;

	if (!mods)
		return eq_fail(err, "out of memory reading /proc/kallsyms");
	for (m = mods; *m && rc == 0; m += strlen(m) + 1) {
		struct eq_symfile syms;
		size_t plen;
		char *part = kallsyms_part(text, len, m, &plen), name[300];

		if (!part) {
			rc = eq_fail(err, "out of memory reading /proc/kallsyms");
			break;
		}
		if (eq_symfile_parse(part, plen, "/proc/kallsyms", &syms, err) == 0) {
			keep_needed(&syms, k);
			if (syms.n && syms.syms[0].addr) {
				struct eqp_symtab t;

				snprintf(name, sizeof(name), "[%s]", m);
				t = (struct eqp_symtab){ .module = name, .absolute = 1,
							 .nsyms = syms.n, .syms = syms.syms };
				rc = recorder_add_symtab(rec, &t, err);
			}
			eq_symfile_release(&syms);
		}
		free(part);
	}
	free(mods);
	return rc;
}

int record_kernel_symbols(struct recorder *rec, struct eq_error *err)
{
	struct eq_symfile syms;
	struct eqp_symtab t;
	size_t len, i, clen;
	char *text, *core;
	struct kpcs k = { 0 };
	int rc;

	k.all = recorder_kernel_pcs(rec, &k.pc, &k.n) < 0;
	if (!k.all && !k.n)
		return 0;  /* no kernel pc to name */
	text = slurp("/proc/kallsyms", &len);
	if (!text) {
		free(k.pc);
		return eq_fail(err, "/proc/kallsyms: %s: kernel samples will not symbolize", strerror(errno));
	}
	core = kallsyms_part(text, len, NULL, &clen);
	rc = core ? eq_symfile_parse(core, clen, "/proc/kallsyms", &syms, err)
		  : eq_fail(err, "out of memory reading /proc/kallsyms");
	free(core);
	if (rc == 0 && record_module_symbols(rec, text, len, &k, err) < 0) {
		eq_symfile_release(&syms);
		rc = -1;
	}
	free(text);
	if (rc < 0) {
		free(k.pc);
		return -1;
	}
	for (i = 0; i < syms.n && !syms.syms[i].addr; i++)
		;
	if (i == syms.n) {
		eq_symfile_release(&syms);
		free(k.pc);
		return eq_fail(err, "/proc/kallsyms shows no addresses (kernel.kptr_restrict): run as root or set kernel.kptr_restrict=0, or kernel samples will not symbolize");
	}
	keep_needed(&syms, &k);
	free(k.pc);
	for (i = 0; i < syms.n && !syms.syms[i].addr; i++)
		;
	t = (struct eqp_symtab){ .module = "[kernel.kallsyms]", .absolute = 1,
				 .nsyms = syms.n - i, .syms = syms.syms + i };
	rc = t.nsyms ? recorder_add_symtab(rec, &t, err) : 0;
	eq_symfile_release(&syms);
	return rc;
}
