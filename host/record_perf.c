/*
 * record_perf.c - time-driven sampling through perf_event_open; see record_perf.h.
 */
#include "record_perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 64 /* 256 KiB a CPU: ~8k samples between drains before the kernel drops */
#define MAX_CPUS 256

/* The kernel cannot map an inherited per-task counter (cpu -1): like perf
 * record, we open one counter per CPU, each with its own ring. */
struct cpu_ring {
	int fd;
	void *ring;
};

struct perf_recorder {
	struct cpu_ring cpu[MAX_CPUS];
	int ncpu;
	size_t ring_size, data_size;
	uint64_t period_ns;
	double jitter;
	unsigned rng;
	uint32_t seq;
	unsigned flags;
};

struct sample_rec { /* PERF_SAMPLE_IP | TID | TIME | CPU, in that order */
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

struct mmap2_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct comm_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct fork_rec {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* sample_id_all: every other record ends with pid, tid, time, cpu (the
 * sample_type fields, in order). */
struct id_trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

#define PERF_MAX_FRAMES 512 /* of each kind; the kernel's default limit is 127 */

/*
 * The PERF_SAMPLE_CALLCHAIN after the sample's fixed fields: u64 nr, then nr
 * entries, each a return address or a PERF_CONTEXT_* marker that says
 * whose frames follow.  The first entry of a context is the interrupted pc
 * itself (the sample's ip): eqprof's chain holds only the callers.
 */
static void chain_of(const struct sample_rec *s, const struct perf_event_header *h,
		     struct eqp_callchain *cc)
{
	const unsigned char *p = (const unsigned char *)(s + 1);
	uint64_t nr, ip, user[PERF_MAX_FRAMES];
	unsigned nk = 0, nu = 0, first = 1;
	uint64_t ctx = PERF_CONTEXT_USER, i;
	uint64_t *frames = (uint64_t *)cc->frames;

	if (h->size < sizeof(*s) + 8)
		return;
	memcpy(&nr, p, 8);
	if (nr > (h->size - sizeof(*s) - 8) / 8)
		nr = (h->size - sizeof(*s) - 8) / 8;
	for (i = 0; i < nr; i++) {
		memcpy(&ip, p + 8 + 8 * i, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ip;
			first = 1;
			continue;
		}
		if (first) {
			first = 0;
			if (ip == s->ip)
				continue; /* the leaf: the sample's own pc */
		}
		if (ctx == PERF_CONTEXT_KERNEL && nk < PERF_MAX_FRAMES)
			frames[nk++] = ip;
		else if (ctx == PERF_CONTEXT_USER && nu < PERF_MAX_FRAMES)
			user[nu++] = ip;
	}
	memcpy(frames + nk, user, nu * sizeof(*user));
	cc->nkernel = nk;
	cc->nuser = nu;
}

static uint64_t record_time(const struct perf_event_header *h)
{
	struct id_trailer t;

	if (h->size < sizeof(*h) + sizeof(t))
		return 0;
	memcpy(&t, (const char *)h + h->size - sizeof(t), sizeof(t));
	return t.time;
}

struct lost_rec {
	struct perf_event_header h;
	uint64_t id, lost;
};

static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

/* A period drawn uniformly within +-jitter of the mean, so the mean rate holds. */
static uint64_t draw_period(struct perf_recorder *r)
{
	double u = (double)next_rand(&r->rng) / 0xffffff * 2.0 - 1.0;
	double p = (double)r->period_ns * (1.0 + u * r->jitter / 100.0);

	return p < 1000 ? 1000 : (uint64_t)p;
}

static int open_event(struct perf_recorder *r, pid_t pid, int cpu, struct eq_error *err)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = draw_period(r);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (r->flags & PERF_REC_CALLCHAIN) {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.exclude_callchain_kernel = 1; /* as exclude_kernel: user stacks only */
	}
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_kernel = 1; /* allowed unprivileged at perf_event_paranoid 2 */
	a.exclude_hv = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;          /* FORK and EXIT records */
	a.sample_id_all = 1; /* times on MMAP2, COMM and FORK records too */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(RING_PAGES * 4096 / 4);
	r->cpu[cpu].fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->cpu[cpu].fd < 0)
		return eq_fail(err, "perf_event_open(cpu-clock) for pid %d on cpu %d: %s; check /proc/sys/kernel/perf_event_paranoid (needs 2 or lower)",
			       (int)pid, cpu, strerror(errno));
	r->cpu[cpu].ring = mmap(NULL, r->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				r->cpu[cpu].fd, 0);
	if (r->cpu[cpu].ring == MAP_FAILED) {
		eq_fail(err, "mapping the perf ring of cpu %d (%zu KiB): %s; raise /proc/sys/kernel/perf_event_mlock_kb",
			cpu, r->ring_size / 1024, strerror(errno));
		close(r->cpu[cpu].fd);
		return -1;
	}
	return 0;
}

struct perf_recorder *perf_recorder_open(pid_t pid, double hz, double jitter_pct,
					 unsigned seed, unsigned flags, struct eq_error *err)
{
	struct perf_recorder *r = calloc(1, sizeof(*r));
	long page = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!r) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	r->flags = flags;
	r->period_ns = (uint64_t)(1e9 / hz);
	r->jitter = jitter_pct;
	r->rng = seed ? seed : 1;
	r->data_size = (size_t)RING_PAGES * (size_t)page;
	r->ring_size = r->data_size + (size_t)page;
	for (r->ncpu = 0; r->ncpu < ncpu && r->ncpu < MAX_CPUS; r->ncpu++) {
		if (open_event(r, pid, r->ncpu, err) < 0) {
			perf_recorder_close(r);
			return NULL;
		}
	}
	return r;
}

static void maps_line(const struct mmap2_rec *m, char *buf, size_t size)
{
	snprintf(buf, size, "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %llu %s\n",
		 (unsigned long long)m->addr, (unsigned long long)(m->addr + m->len),
		 m->prot & PROT_READ ? 'r' : '-', m->prot & PROT_WRITE ? 'w' : '-',
		 m->prot & PROT_EXEC ? 'x' : '-', m->flags & MAP_SHARED ? 's' : 'p',
		 (unsigned long long)m->pgoff, m->maj, m->min,
		 (unsigned long long)m->ino, m->filename);
}

static int handle(struct perf_recorder *r, const struct perf_event_header *h,
		  const struct eq_sink *sink)
{
	char line[4096 + 128];

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		const struct sample_rec *s = (const void *)h;
		uint64_t frames[2 * PERF_MAX_FRAMES];
		struct eqp_callchain cc = { 0, 0, frames };
		struct eq_sample e = {
			.time = s->time, .pc = s->ip, .pid = s->pid, .tid = s->tid,
			.seq = r->seq++, .cpu = (uint16_t)s->cpu,
			.flags = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL
					 ? EQ_F_KERNEL : 0,
		};
		if (!(r->flags & PERF_REC_CALLCHAIN) || !sink->sample_chain)
			return sink->sample(sink->ctx, &e);
		chain_of(s, h, &cc);
		return sink->sample_chain(sink->ctx, &e, &cc);
	}
	case PERF_RECORD_MMAP2: {
		const struct mmap2_rec *m = (const void *)h;

		maps_line(m, line, sizeof(line));
		return sink->mmap(sink->ctx, m->pid, record_time(h), line);
	}
	case PERF_RECORD_COMM: {
		const struct comm_rec *c = (const void *)h;
		char name[17];

		/* the name is NUL-padded to 8 bytes before the id trailer */
		snprintf(name, sizeof(name), "%s", c->comm);
		return sink->comm(sink->ctx, c->pid, c->tid, record_time(h), name,
				  !!(h->misc & PERF_RECORD_MISC_COMM_EXEC));
	}
	case PERF_RECORD_FORK: {
		const struct fork_rec *f = (const void *)h;

		return sink->fork(sink->ctx, f->ppid, f->pid, f->tid, f->time);
	}
	case PERF_RECORD_LOST:
		sink->lost(sink->ctx, 0, ((const struct lost_rec *)(const void *)h)->lost);
		return 0;
	default:
		return 0; /* EXIT, THROTTLE...: not needed for a profile */
	}
}

static int drain_ring(struct perf_recorder *r, struct cpu_ring *c,
		      const struct eq_sink *sink, struct eq_error *err)
{
	struct perf_event_mmap_page *meta = c->ring;
	const unsigned char *data = (const unsigned char *)c->ring + (r->ring_size - r->data_size);
	union { struct perf_event_header h; unsigned char b[8192]; } rec;
	uint64_t head, tail;

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % r->data_size, i;

		/* A record may wrap around the end of the ring: copy it out. */
		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(off + i) % r->data_size];
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			return eq_fail(err, "perf ring: record of %u bytes at offset %zu is malformed",
				       h.size, off);
		for (i = 0; i < h.size; i++)
			rec.b[i] = data[(off + i) % r->data_size];
		if (handle(r, &rec.h, sink) < 0)
			return -1;
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

int perf_recorder_drain(struct perf_recorder *r, int timeout_ms,
			const struct eq_sink *sink, struct eq_error *err)
{
	struct pollfd p[MAX_CPUS];
	int i;

	for (i = 0; i < r->ncpu; i++)
		p[i] = (struct pollfd){ .fd = r->cpu[i].fd, .events = POLLIN };
	if (poll(p, (nfds_t)r->ncpu, timeout_ms) < 0 && errno != EINTR)
		return eq_fail(err, "poll on the perf rings: %s", strerror(errno));
	for (i = 0; i < r->ncpu; i++) {
		if (drain_ring(r, &r->cpu[i], sink, err) < 0)
			return -1;
		if (r->jitter > 0) {
			uint64_t period = draw_period(r);

			ioctl(r->cpu[i].fd, PERF_EVENT_IOC_PERIOD, &period);
		}
	}
	return 0;
}

void perf_recorder_close(struct perf_recorder *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->ncpu; i++) {
		munmap(r->cpu[i].ring, r->ring_size);
		close(r->cpu[i].fd);
	}
	free(r);
}
