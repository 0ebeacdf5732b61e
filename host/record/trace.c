/*
 * trace.c - tracepoints through perf_event_open(2) (trace.h).
 *
 * Per CPU, the first event that opens gets a ring; the others write into
 * it (PERF_EVENT_IOC_SET_OUTPUT) and are told apart by their raw record's
 * common_type, the event id.  Each drain reads every ring and hands to the
 * pairer (trace_events.h), in time order, what every CPU has surely
 * written by then (te_order); the pairer's PSTA events and DREQ requests
 * go to the recording about once a second.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/trace.h"
#include "file/eqp_regs.h"

/* HAVE_USER_IP: a plain 0/1, so that tests of it are not of a shift's
 * result (clang's -Wtautological-constant-compare) */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__arm__)
#define HAVE_USER_IP 1
#define USER_IP_MASK (1ull << eqp_regs_native()->pc) /* eqp_regs.h */
#else
#define HAVE_USER_IP 0
#define USER_IP_MASK 0ull        /* no user pc: DREQ pc 0 */
#endif

#define RING_PAGES 32            /* 128 KiB a CPU with 4 KiB pages; halved when refused */
#define WRITE_EVERY_NS 1000000000ull
#define HOLD_NS 250000000ull     /* events wait this long for older ones of other CPUs */

struct tcpu {
	int cpu;
	int fd[TE_NKINDS];       /* -1: not open on this CPU */
	int ring_fd;             /* the event whose ring the others share, or -1 */
	void *ring;
};

struct trace_recorder {
	unsigned groups;
	char tracefs[64];
	char nofs[256];          /* why there is no tracefs to read */
	struct te_event ev[TE_NKINDS];
	int have[TE_NKINDS];     /* the event is logged */
	char why[TE_NKINDS][1100];/* why not, when asked for and not logged */
	char note[2048];
	struct tcpu *cpus;
	int ncpu;
	size_t ring_size, data_size;
	struct te_devtab devs;
	struct te_pairer pair;
	struct te_order ord;     /* read, not yet handed to the pairer */
	uint64_t last_read;      /* when the previous drain began to read the rings */
	uint64_t lost, last_write, malformed;
	char first_bad[1100];
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int read_small(const char *path, char *buf, size_t size, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;
	size_t got = 0;

	if (fd < 0)
		return -1;
	while (got + 1 < size && (k = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)k;
	close(fd);
	buf[got] = '\0';
	if (n)
		*n = got;
	return 0;
}

int trace_parse_groups(const char *list, unsigned *groups, struct eq_error *err)
{
	const char *p = list;

	*groups = 0;
	if (!strcmp(list, "all")) {
		*groups = TE_G_ALL;
		return 0;
	}
	if (!strcmp(list, "none"))
		return 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == 5 && !strncmp(p, "power", 5))
			*groups |= TE_G_POWER;
		else if (n == 5 && !strncmp(p, "block", 5))
			*groups |= TE_G_BLOCK;
		else if (n == 3 && !strncmp(p, "net", 3))
			*groups |= TE_G_NET;
		else
			return eq_fail(err, "--events %s: '%.*s' is not an event group (power, block, net, all or none)",
				       list, (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The CPUs online now ("0-3,5" in /sys/devices/system/cpu/online). */
static int online_cpus(int **cpus)
{
	char buf[1024], *p = buf;
	int n = 0, cap = 0, *a = NULL;

	if (read_small("/sys/devices/system/cpu/online", buf, sizeof(buf), NULL) < 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(buf, sizeof(buf), "0-%ld", c > 0 ? c - 1 : 0);
	}
	while (*p && *p != '\n') {
		char *e;
		long lo = strtol(p, &e, 10), hi = lo, c;

		if (e == p)
			break;
		p = e;
		if (*p == '-') {
			hi = strtol(p + 1, &e, 10);
			p = e;
		}
		for (c = lo; c <= hi && c < 65536; c++) {
			if (n == cap) {
				int *x = realloc(a, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(*a));

				if (!x) {
					free(a);
					return -1;
				}
				a = x;
			}
			a[n++] = (int)c;
		}
		if (*p == ',')
			p++;
	}
	*cpus = a;
	return n;
}

/* tracefs: where its events are; "" with why not in t->nofs */
static void find_tracefs(struct trace_recorder *t)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char p[96];
		struct stat st;

		snprintf(p, sizeof(p), "%s/events", dirs[i]);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(t->tracefs, sizeof(t->tracefs), "%s", dirs[i]);
			return;
		}
		if ((errno == EACCES || errno == EPERM) && !t->nofs[0])
			snprintf(t->nofs, sizeof(t->nofs),
				 "%s is root's (%s): tracepoints need root, or read access to tracefs and CAP_PERFMON", dirs[i],
				 strerror(errno));
	}
	if (!t->nofs[0])
		snprintf(t->nofs, sizeof(t->nofs),
			 "no tracefs (neither /sys/kernel/tracing nor /sys/kernel/debug/tracing has events/; mount -t tracefs nodev /sys/kernel/tracing as root)");
}

/* Block devices with media (size > 0) and every network interface. */
static void number_devices(struct trace_recorder *t)
{
	DIR *d;
	struct dirent *e;

	if (t->have[TE_RQ_ISSUE] && (d = opendir("/sys/block"))) {
		while ((e = readdir(d))) {
			char p[512], buf[64];
			unsigned maj, min;

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "/sys/block/%s/size", e->d_name);
			if (read_small(p, buf, sizeof(buf), NULL) < 0 || strtoull(buf, NULL, 10) == 0)
				continue;
			snprintf(p, sizeof(p), "/sys/block/%s/dev", e->d_name);
			if (read_small(p, buf, sizeof(buf), NULL) < 0 || sscanf(buf, "%u:%u", &maj, &min) != 2)
				continue;
			te_devtab_add(&t->devs, 0, maj << 20 | (min & 0xfffff), e->d_name);
		}
		closedir(d);
	}
	if (t->have[TE_NET_XMIT] && (d = opendir("/sys/class/net"))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				te_devtab_add(&t->devs, 1, 0, e->d_name);
		closedir(d);
	}
}

static void fill_attr(struct perf_event_attr *a, uint32_t id)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = id;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_RAW | (HAVE_USER_IP ? PERF_SAMPLE_REGS_USER : 0);
	a->sample_regs_user = USER_IP_MASK;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_hv = 1;
}

static const char *perm_hint(int e)
{
	return e == EACCES || e == EPERM ?
	       " (system-wide tracepoints need root or CAP_PERFMON, or perf_event_paranoid -1)" : "";
}

/* Stops kind on one CPU; the event that owns the ring stays open, off. */
static void close_kind(struct tcpu *c, int k)
{
	if (c->fd[k] < 0)
		return;
	if (c->fd[k] == c->ring_fd)
		ioctl(c->fd[k], PERF_EVENT_IOC_DISABLE, 0);
	else
		close(c->fd[k]);
	c->fd[k] = -1;
}

/* Opens kind on every CPU; the first event of a CPU maps its ring. */
static int open_kind(struct trace_recorder *t, enum te_kind k)
{
	int i, opened = 0;

	for (i = 0; i < t->ncpu; i++) {
		struct tcpu *c = &t->cpus[i];
		struct perf_event_attr a;
		int fd, owner;

		fill_attr(&a, t->ev[k].id);
		fd = (int)syscall(SYS_perf_event_open, &a, -1, c->cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ENODEV)
			continue;   /* went offline */
		if (fd < 0) {
			snprintf(t->why[k], sizeof(t->why[k]), "perf_event_open on cpu %d: %s%s", c->cpu,
				 strerror(errno), perm_hint(errno));
			goto undo;
		}
		owner = c->ring_fd;
		if (owner >= 0) {
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) < 0) {
				snprintf(t->why[k], sizeof(t->why[k]), "sharing cpu %d's ring: %s", c->cpu,
					 strerror(errno));
				close(fd);
				goto undo;
			}
		} else {
			void *ring = MAP_FAILED;
			size_t pages = RING_PAGES, page = (size_t)sysconf(_SC_PAGESIZE);

			if (!t->data_size)
				for (; pages >= 2; pages /= 2) {
					ring = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE,
						    MAP_SHARED, fd, 0);
					if (ring != MAP_FAILED)
						break;
				}
			else
				ring = mmap(NULL, t->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (ring == MAP_FAILED) {
				snprintf(t->why[k], sizeof(t->why[k]), "mapping cpu %d's ring: %s%s", c->cpu,
					 strerror(errno), errno == EPERM ?
					 " (the locked-memory limit: /proc/sys/kernel/perf_event_mlock_kb)" : "");
				close(fd);
				goto undo;
			}
			if (!t->data_size) {
				t->data_size = pages * page;
				t->ring_size = t->data_size + page;
			}
			c->ring = ring;
			c->ring_fd = fd;
		}
		c->fd[k] = fd;
		opened++;
	}
	if (!opened) {
		snprintf(t->why[k], sizeof(t->why[k]), "no CPU is online");
		return -1;
	}
	return 0;
undo:
	for (i = 0; i < t->ncpu; i++)
		close_kind(&t->cpus[i], k);
	return -1;
}

/* A PSTA frequency event now for each CPU whose cpufreq says its clock:
 * samples before the first change have a frequency too. */
static void snapshot_freq(struct trace_recorder *t)
{
	int i;
	uint64_t now = mono_ns();

	for (i = 0; i < t->ncpu; i++) {
		char p[128], buf[32];
		struct te_rec r = { .kind = TE_CPU_FREQ, .time = now, .cpu = (uint32_t)t->cpus[i].cpu };
		unsigned long khz;

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
			 t->cpus[i].cpu);
		if (read_small(p, buf, sizeof(buf), NULL) < 0 || sscanf(buf, "%lu", &khz) != 1 || !khz)
			continue;
		r.state = (uint32_t)khz;
		if (te_pairer_feed(&t->pair, &r, NULL) < 0)
			return;
		t->pair.st.events[TE_CPU_FREQ]--;  /* not a tracepoint event */
	}
}

/* One line: the events that failed for one reason together. */
static void trace_note(struct trace_recorder *t, unsigned groups)
{
	int done[TE_NKINDS] = { 0 }, j, k;
	size_t used = 0;

	for (k = 0; k < TE_NKINDS; k++) {
		if (!(te_defs[k].group & groups) || t->have[k] || done[k])
			continue;
		for (j = k; j < TE_NKINDS && used + 1 < sizeof(t->note); j++) {
			if (!(te_defs[j].group & groups) || t->have[j] || done[j] ||
			    strcmp(t->why[j], t->why[k]))
				continue;
			used += (size_t)snprintf(t->note + used, sizeof(t->note) - used, "%s%s:%s",
						 !used ? "" : j == k ? "; " : ", ",
						 te_defs[j].sys, te_defs[j].name);
			done[j] = 1;
		}
		if (used + 1 < sizeof(t->note))
			used += (size_t)snprintf(t->note + used, sizeof(t->note) - used, ": %s",
						 t->why[k]);
	}
}

struct trace_recorder *trace_recorder_open(unsigned groups)
{
	struct trace_recorder *t = calloc(1, sizeof(*t));
	int *cpus = NULL, n, i, k, any = 0;

	if (!t)
		return NULL;
	t->groups = groups;
	te_pairer_init(&t->pair, &t->devs);
	find_tracefs(t);
	n = online_cpus(&cpus);
	if (n < 0) {
		free(t);
		return NULL;
	}
	t->cpus = calloc((size_t)(n ? n : 1), sizeof(*t->cpus));
	if (!t->cpus) {
		free(cpus);
		free(t);
		return NULL;
	}
	t->ncpu = n;
	for (i = 0; i < n; i++) {
		t->cpus[i].cpu = cpus[i];
		t->cpus[i].ring_fd = -1;
		for (k = 0; k < TE_NKINDS; k++)
			t->cpus[i].fd[k] = -1;
	}
	free(cpus);
	for (k = 0; k < TE_NKINDS; k++) {
		char path[256], *text;
		size_t len;
		struct te_format *fmt;
		struct eq_error err;

		if (!(te_defs[k].group & groups))
			continue;
		if (!t->tracefs[0]) {
			snprintf(t->why[k], sizeof(t->why[k]), "%s", t->nofs);
			continue;
		}
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", t->tracefs, te_defs[k].sys,
			 te_defs[k].name);
		text = malloc(65536);
		fmt = malloc(sizeof(*fmt));
		if (!text || !fmt) {
			free(text);
			free(fmt);
			snprintf(t->why[k], sizeof(t->why[k]), "out of memory");
			continue;
		}
		if (read_small(path, text, 65536, &len) < 0) {
			snprintf(t->why[k], sizeof(t->why[k]), "cannot read %s: %s%s", path, strerror(errno),
				 errno == EACCES ? " (tracefs is root's: run as root)" :
				 errno == ENOENT ? " (this kernel has no such tracepoint)" : "");
		} else if (te_format_parse(text, len, path, fmt, &err) < 0 ||
			   te_bind(&t->ev[k], (enum te_kind)k, fmt, &err) < 0) {
			snprintf(t->why[k], sizeof(t->why[k]), "%s", err.msg);
		} else if (open_kind(t, (enum te_kind)k) == 0) {
			t->have[k] = 1;
			any = 1;
		}
		free(text);
		free(fmt);
	}
	/* a completion without its issue (or the reverse) would be useless */
	if (t->have[TE_RQ_ISSUE] != t->have[TE_RQ_COMPLETE]) {
		int off = t->have[TE_RQ_ISSUE] ? TE_RQ_ISSUE : TE_RQ_COMPLETE;

		snprintf(t->why[off], sizeof(t->why[off]), "its partner %s:%s is not logged",
			 te_defs[TE_RQ_ISSUE + TE_RQ_COMPLETE - off].sys,
			 te_defs[TE_RQ_ISSUE + TE_RQ_COMPLETE - off].name);
		for (i = 0; i < t->ncpu; i++)
			close_kind(&t->cpus[i], off);
		t->have[off] = 0;
	}
	if (t->have[TE_RQ_INSERT] && !t->have[TE_RQ_ISSUE]) {
		snprintf(t->why[TE_RQ_INSERT], sizeof(t->why[TE_RQ_INSERT]),
			 "block:block_rq_issue is not logged");
		for (i = 0; i < t->ncpu; i++)
			close_kind(&t->cpus[i], TE_RQ_INSERT);
		t->have[TE_RQ_INSERT] = 0;
	}
	(void)any;
	number_devices(t);
	if (t->have[TE_CPU_FREQ])
		snapshot_freq(t);
	trace_note(t, groups);
	t->last_write = mono_ns();
	return t;
}

int trace_recorder_nevents(const struct trace_recorder *t)
{
	int k, n = 0;

	for (k = 0; t && k < TE_NKINDS; k++)
		n += t->have[k];
	return n;
}

const char *trace_recorder_note(const struct trace_recorder *t)
{
	return t ? t->note : "";
}

size_t trace_recorder_meta(const struct trace_recorder *t, char *buf, size_t size)
{
	size_t used = 0;
	int k, first = 1;

	if (!size)
		return 0;
	buf[0] = '\0';
#define ADD(...) do { if (used + 1 < size) { int w_ = snprintf(buf + used, size - used, __VA_ARGS__); \
	if (w_ > 0) used += (size_t)w_ < size - used ? (size_t)w_ : size - used - 1; } } while (0)
	ADD("events=");
	for (k = 0; k < TE_NKINDS; k++)
		if (t->have[k]) {
			ADD("%s%s:%s", first ? "" : ",", te_defs[k].sys, te_defs[k].name);
			first = 0;
		}
	ADD("%s\n", first ? "none" : "");
	if (t->note[0])
		ADD("events_missing=%s\n", t->note);
	if (used + 1 < size)
		used += te_devtab_meta(&t->devs, buf + used, size - used);
#undef ADD
	return used;
}

/* One sample record: ip, pid/tid, time, cpu, raw, user regs. */
static void take_sample(struct trace_recorder *t, const unsigned char *rec, size_t size)
{
	size_t off = sizeof(struct perf_event_header), rawn;
	uint32_t pidtid[2], rs, id;
	uint64_t time, abi = 0, uip = 0;
	const unsigned char *raw;
	struct te_rec r;
	struct eq_error err;
	int k;

	if (off + 8 + 8 + 8 + 8 + 4 > size)
		goto bad_size;
	off += 8;                                 /* ip: the kernel's, at the tracepoint */
	memcpy(pidtid, rec + off, 8);
	off += 8;
	memcpy(&time, rec + off, 8);
	off += 16;                                /* time, cpu + reserved */
	memcpy(&rs, rec + off, 4);
	off += 4;
	if (rs > size - off)
		goto bad_size;
	raw = rec + off;
	rawn = rs;
	off += rs;
	if (HAVE_USER_IP) {
		if (off + 8 > size)
			goto bad_size;
		memcpy(&abi, rec + off, 8);
		off += 8;
		if (abi) {
			if (off + 8 > size)
				goto bad_size;
			memcpy(&uip, rec + off, 8);
		}
	}
	for (k = 0; k < TE_NKINDS; k++)
		if (t->have[k])
			break;
	if (k == TE_NKINDS || te_raw_type(&t->ev[k], raw, rawn, &id) < 0)
		goto bad;
	for (k = 0; k < TE_NKINDS; k++)
		if (t->have[k] && t->ev[k].id == id)
			break;
	if (k == TE_NKINDS) {
		snprintf(err.msg, sizeof(err.msg), "a record of event id %u, which is not one opened", id);
		goto bad_msg;
	}
	memset(&r, 0, sizeof(r));
	if (te_decode(&t->ev[k], raw, rawn, &r, &err) < 0)
		goto bad_msg;
	r.time = time;
	r.pid = pidtid[0];
	r.tid = pidtid[1];
	r.pc = abi ? uip : 0;
	if (te_order_push(&t->ord, &r) < 0)
		t->pair.st.bad++;
	return;
bad_size:
	snprintf(err.msg, sizeof(err.msg), "a sample record of %zu bytes is shorter than its fields", size);
	goto bad_msg;
bad:
	snprintf(err.msg, sizeof(err.msg), "a raw record of %zu bytes without its event id", rawn);
bad_msg:
	if (!t->malformed++)
		snprintf(t->first_bad, sizeof(t->first_bad), "%s", err.msg);
	t->pair.st.bad++;
}

static void read_ring(struct trace_recorder *t, struct tcpu *c, unsigned char *tmp)
{
	struct perf_event_mmap_page *meta = c->ring;
	const unsigned char *data = (const unsigned char *)c->ring + (t->ring_size - t->data_size);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % t->data_size, i;

		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(off + i) % t->data_size];
		if (h.size < sizeof(h) || h.size > t->data_size) {
			t->pair.st.bad++;
			tail = head;   /* the rest cannot be framed */
			break;
		}
		for (i = 0; i < h.size; i++)
			tmp[i] = data[(off + i) % t->data_size];
		if (h.type == PERF_RECORD_SAMPLE) {
			take_sample(t, tmp, h.size);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, tmp + sizeof(h) + 8, 8);
			t->lost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int write_out(struct trace_recorder *t, struct recorder *rec, int force,
		     struct eq_error *err)
{
	uint64_t now = mono_ns();

	if (!force && now - t->last_write < WRITE_EVERY_NS && t->pair.nps < 4096 && t->pair.nrq < 4096)
		return 0;
	t->last_write = now;
	if (recorder_add_pstates(rec, t->pair.ps, t->pair.nps, err) < 0 ||
	    recorder_add_devreqs(rec, t->pair.rq, t->pair.nrq, err) < 0)
		return -1;
	t->pair.nps = t->pair.nrq = 0;
	return 0;
}

static int drain(struct trace_recorder *t, struct recorder *rec, int final, struct eq_error *err)
{
	unsigned char *tmp;
	uint64_t now, upto;
	int c;

	if (!t)
		return 0;
	tmp = malloc(65536);
	if (!tmp)
		return eq_fail(err, "out of memory");
	now = mono_ns();        /* the samples' clock (use_clockid) */
	for (c = 0; c < t->ncpu; c++)
		if (t->cpus[c].ring)
			read_ring(t, &t->cpus[c], tmp);
	free(tmp);
	/*
	 * What a CPU may still have been writing as its ring was read waits
	 * (te_order): until a later drain has begun and, as drains may follow
	 * each other by microseconds and a virtual CPU may be descheduled
	 * between an event's time and its write, for HOLD_NS too.  The last
	 * drain hands on everything.
	 */
	upto = now > HOLD_NS ? now - HOLD_NS : 0;
	if (t->last_read < upto)
		upto = t->last_read;
	if (te_order_flush(&t->ord, &t->pair, final ? UINT64_MAX : upto, err) < 0)
		return -1;
	t->last_read = now;
	return write_out(t, rec, 0, err);
}

int trace_recorder_drain(struct trace_recorder *t, struct recorder *rec, struct eq_error *err)
{
	return drain(t, rec, 0, err);
}

int trace_recorder_finish(struct trace_recorder *t, struct recorder *rec, struct eq_error *err)
{
	if (!t)
		return 0;
	if (drain(t, rec, 1, err) < 0)
		return -1;
	te_pairer_finish(&t->pair);
	return write_out(t, rec, 1, err);
}

const struct te_pair_stats *trace_recorder_stats(const struct trace_recorder *t, uint64_t *lost)
{
	if (lost)
		*lost = t->lost;
	return &t->pair.st;
}

void trace_recorder_summary(const struct trace_recorder *t, FILE *out)
{
	const struct te_pair_stats *s;

	if (!t || !trace_recorder_nevents(t))
		return;
	s = &t->pair.st;
	fprintf(out, "eqprof record: %llu power-state changes (cpu_idle %llu, cpu_frequency %llu) and %llu device requests (block %llu, net %llu) from the tracepoints; %llu events lost\n",
		(unsigned long long)s->pstates, (unsigned long long)s->events[TE_CPU_IDLE],
		(unsigned long long)s->events[TE_CPU_FREQ], (unsigned long long)s->devreqs,
		(unsigned long long)s->events[TE_RQ_ISSUE], (unsigned long long)s->events[TE_NET_XMIT],
		(unsigned long long)t->lost);
	if (s->from_insert)
		fprintf(out, "eqprof record: %llu block requests were issued by a kernel worker after the task that queued them (its plug, or an I/O scheduler): charged to that task\n",
			(unsigned long long)s->from_insert);
	if (s->in_flight || s->unissued || s->unknown_dev || s->requeued || s->net_refused)
		fprintf(out, "eqprof record: device requests not written: %llu in flight at the end, %llu completed but issued before the start, %llu of devices that appeared later (not in the header), %llu packets the driver refused; %llu issued again (requeued)\n",
			(unsigned long long)s->in_flight, (unsigned long long)s->unissued,
			(unsigned long long)s->unknown_dev, (unsigned long long)s->net_refused,
			(unsigned long long)s->requeued);
	if (t->malformed)
		fprintf(out, "eqprof record: warning: %llu tracepoint records could not be read; the first: %s\n",
			(unsigned long long)t->malformed, t->first_bad);
}

void trace_recorder_close(struct trace_recorder *t)
{
	int i, k;

	if (!t)
		return;
	for (i = 0; i < t->ncpu; i++) {
		for (k = 0; k < TE_NKINDS; k++)
			close_kind(&t->cpus[i], k);
		if (t->cpus[i].ring_fd >= 0)
			close(t->cpus[i].ring_fd);
		if (t->cpus[i].ring)
			munmap(t->cpus[i].ring, t->ring_size);
	}
	free(t->cpus);
	te_order_free(&t->ord);
	te_pairer_free(&t->pair);
	free(t);
}
