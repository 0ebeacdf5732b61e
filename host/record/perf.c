/*
 * perf.c - time-driven sampling through perf_event_open; see perf.h.
 */
#include "record/perf.h"
#include "file/eqp_regs.h"
#include "util/grow.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 64 /* 256 KiB a CPU: ~8k samples between drains before the kernel drops */
/* With stack copies a sample is some 2-64 KiB: a CPU's ring holds 1/16 s of
 * its samples at the rate asked (4 MiB at 4 kHz with 8 KiB copies, 16 MiB
 * at 20 kHz), at least RING_PAGES_DWARF and at most RING_PAGES_MAX pages.
 * Halved down to RING_PAGES where the locked-memory limit
 * (perf_event_mlock_kb, RLIMIT_MEMLOCK) refuses it. */
#define RING_PAGES_DWARF 512
#define RING_PAGES_MAX 16384
#define RING_SECONDS_DWARF (1.0 / 16)

/* The kernel cannot map an inherited per-task counter (cpu -1): like perf
 * record, we open one counter per CPU, each with its own ring. */
struct cpu_ring {
	int fd;
	int cpu;
	void *ring;
};

/* A record copied out of a ring, waiting for its turn (see drain). */
struct pending {
	uint64_t time, order;
	size_t off;           /* in the recorder's buffer */
	uint32_t size;
};

struct perf_recorder {
	struct cpu_ring *cpu;  /* one per CPU the machine has online */
	int ncpu;
	int offline;           /* CPUs the kernel knows but that were offline */
	int system_wide;       /* pid -1: the idle task's samples are idle */
	uint64_t horizon;      /* records up to this time were handed over */
	struct pollfd *pfd;
	size_t ring_size, data_size;
	uint64_t period_ns;
	double jitter;
	unsigned rng;
	uint32_t seq;
	unsigned flags;
	/* Records of all rings, handed over in time order. */
	unsigned char *buf;
	size_t buflen, bufcap;
	struct pending *pend;
	size_t npend, pendcap;
	uint64_t order, prev_round_max;
	uint64_t prev_read_start; /* CLOCK_MONOTONIC when the previous round began reading */
	int *extra;               /* -p: the other threads' counters (output to a ring) */
	size_t nextra, extracap;
	unsigned stack_size;      /* PERF_REC_DWARF */
	int kernel_chain_only;    /* dwarf with kernel samples: the chain's kernel part */
	int ring_shrunk;          /* the locked-memory limit made the rings smaller */
	uint64_t stacks, stack_bytes, stack_full; /* copies, bytes kept, copies cut at stack_size */
	uint64_t stack_bad;       /* samples whose register/stack part was malformed */
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

/*
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER after the sample's fixed
 * fields (and its callchain, when there is one): u64 abi, then one u64 per
 * bit of the mask unless abi is 0; u64 size, size bytes of stack, then
 * u64 dyn_size (the bytes actually copied) unless size is 0.  Returns 1
 * with *u filled (pointing into the record), 0 when the sample has no user
 * context, -1 when the record is malformed.
 */
static int ustack_of(struct perf_recorder *r, const struct sample_rec *s,
		     const struct perf_event_header *h, struct eqp_ustack *u)
{
	const unsigned char *p = (const unsigned char *)(s + 1), *end = (const unsigned char *)h + h->size;
	uint64_t abi, size, dyn, nr;
	const struct eqp_regs_arch *arch = eqp_regs_native();
	unsigned nregs = arch ? (unsigned)__builtin_popcountll(arch->mask) : 0;

	memset(u, 0, sizeof(*u));
	if (r->flags & PERF_REC_CALLCHAIN) {
		if (end - p < 8)
			return -1;
		memcpy(&nr, p, 8);
		if (nr > (uint64_t)(end - p - 8) / 8)
			return -1;
		p += 8 + 8 * nr;
	}
	if (end - p < 8)
		return -1;
	memcpy(&abi, p, 8);
	p += 8;
	if (abi) {
		if ((uint64_t)(end - p) < 8ull * nregs)
			return -1;
		u->regs = (const uint64_t *)(const void *)p;
		p += 8 * nregs;
	}
	if (end - p < 8)
		return -1;
	memcpy(&size, p, 8);
	p += 8;
	if (size) {
		if ((uint64_t)(end - p) < size + 8)
			return -1;
		memcpy(&dyn, p + size, 8);
		if (dyn > size)
			dyn = size;
	} else {
		dyn = 0;
	}
	if (!abi)
		return 0;
	u->arch = arch->machine;
	u->regs_mask = arch->mask;
	u->abi = (unsigned)abi;
	u->nregs = nregs;
	u->size = (uint32_t)dyn;
	u->stack = p;
	r->stacks++;
	r->stack_bytes += dyn;
	if (dyn == r->stack_size)
		r->stack_full++;
	return 1;
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

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

int perf_kernel_allowed(char *why, size_t size)
{
	struct perf_event_attr a;
	int fd, e;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	e = errno;
	if (e == EACCES || e == EPERM)
		snprintf(why, size, "kernel samples excluded: /proc/sys/kernel/perf_event_paranoid is %d "
			 "and this user lacks CAP_PERFMON (root, or a value of 1 or lower, records them)",
			 paranoid_level());
	else
		snprintf(why, size, "kernel samples excluded: the kernel refused a counter that includes them (%s)",
			 strerror(e));
	return 0;
}

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


/* The counter of one task (or of every task: pid -1) on one CPU. */
static void fill_attr(struct perf_recorder *r, const struct perf_open_opts *o, pid_t pid,
		      struct perf_event_attr *ap)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = o->sideband ? PERF_COUNT_SW_DUMMY : PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = o->sideband ? 0 : draw_period(r);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (r->flags & PERF_REC_CALLCHAIN) {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		/* kernel frames only where kernel samples are taken */
		a.exclude_callchain_kernel = pid >= 0 && o->user_only;
		a.exclude_callchain_user = r->kernel_chain_only;
	}
	if (r->flags & PERF_REC_DWARF) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = eqp_regs_native()->mask;
		a.sample_stack_user = r->stack_size;
	}
	if (pid >= 0) {
		/* a command: counted from its exec; an attached process: now */
		a.disabled = !o->nthreads;
		a.enable_on_exec = !o->nthreads;
		a.inherit = 1;
		/* user space only is what perf_event_paranoid 2 (the default)
		 * allows an ordinary user; the kernel when permitted */
		a.exclude_kernel = o->user_only ? 1 : 0;
	}
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
	a.wakeup_watermark = (uint32_t)(r->data_size / 4);
	*ap = a;
}

static int open_event(struct perf_recorder *r, const struct perf_open_opts *o, int cpu,
		      struct eq_error *err)
{
	struct perf_event_attr a;
	pid_t pid = o->nthreads ? o->threads[0] : o->pid;
	const char *what = o->sideband ? "dummy" : "cpu-clock";

	fill_attr(r, o, pid, &a);
	struct cpu_ring *c = &r->cpu[r->ncpu];
	int e;

	c->cpu = cpu;
	c->fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (c->fd < 0) {
		e = errno;
		if (pid < 0)
			eq_fail(err, "perf_event_open(%s) for every process on cpu %d: %s; whole-system recording needs root or /proc/sys/kernel/perf_event_paranoid at 0 or lower",
				what, cpu, strerror(e));
		else
			eq_fail(err, "perf_event_open(%s) for pid %d on cpu %d: %s; check /proc/sys/kernel/perf_event_paranoid (needs 2 or lower)",
				what, (int)pid, cpu, strerror(e));
		errno = e;
		return -1;
	}
	c->ring = mmap(NULL, r->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	/* the first ring sets the size of all: smaller while the limit refuses */
	while (c->ring == MAP_FAILED && r->ncpu == 0 && (errno == EPERM || errno == ENOMEM) &&
	       r->data_size > RING_PAGES * (r->ring_size - r->data_size)) {
		size_t page = r->ring_size - r->data_size;

		r->data_size /= 2;
		r->ring_size = r->data_size + page;
		r->ring_shrunk = 1;
		c->ring = mmap(NULL, r->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	}
	if (c->ring == MAP_FAILED) {
		e = errno;
		eq_fail(err, "mapping the perf ring of cpu %d (%zu KiB): %s; raise /proc/sys/kernel/perf_event_mlock_kb",
			cpu, r->ring_size / 1024, strerror(e));
		close(c->fd);
		errno = e;
		return -1;
	}
	r->ncpu++;
	/* -p: the process's other threads on this CPU, into the same ring
	 * (threads made later are followed through inherit) */
	for (int t = 1; t < o->nthreads; t++) {
		int fd;

		fill_attr(r, o, o->threads[t], &a);
		fd = (int)syscall(SYS_perf_event_open, &a, o->threads[t], cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ESRCH)
				continue;  /* the thread ended meanwhile */
			e = errno;
			eq_fail(err, "perf_event_open(%s) for thread %d (of a -p process) on cpu %d: %s",
				what, (int)o->threads[t], cpu, strerror(e));
			errno = e;
			return -1;
		}
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->fd) < 0 ||
		    EQ_GROW(r->extra, r->extracap, r->nextra + 1, 64)) {
			e = errno;
			close(fd);
			eq_fail(err, "joining thread %d's counter to cpu %d's ring: %s",
				(int)o->threads[t], cpu, strerror(e));
			errno = e;
			return -1;
		}
		r->extra[r->nextra++] = fd;
	}
	return 0;
}

/* Data pages of a CPU's ring (a power of two, as the kernel wants). */
static size_t ring_pages(const struct perf_open_opts *o, size_t page, unsigned stack_size)
{
	double want;
	size_t n = RING_PAGES_DWARF;

	if (!(o->flags & PERF_REC_DWARF) || o->sideband)
		return RING_PAGES;
	/* a sample: the copy, the registers, its header and call chain */
	want = o->hz * ((double)stack_size + 1024) * RING_SECONDS_DWARF / (double)page;
	while (n < RING_PAGES_MAX && (double)n < want)
		n *= 2;
	return n;
}

struct perf_recorder *perf_recorder_open(pid_t pid, double hz, double jitter_pct,
					 unsigned seed, unsigned flags, struct eq_error *err)
{
	struct perf_open_opts o = { .pid = pid, .hz = hz, .jitter_pct = jitter_pct,
				    .seed = seed, .flags = flags };

	return perf_recorder_open_opts(&o, err);
}

struct perf_recorder *perf_recorder_open_opts(const struct perf_open_opts *o,
					      struct eq_error *err)
{
	struct perf_recorder *r = calloc(1, sizeof(*r));
	long page = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_CONF), c;
	pid_t pid = o->pid;

	if (!r) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	r->flags = o->sideband ? 0 : o->flags;
	/* dwarf: the kernel's frames still come from the kernel's own walk
	 * (its chain, user part left out), where kernel samples are taken */
	if ((r->flags & PERF_REC_DWARF) && !(r->flags & PERF_REC_CALLCHAIN) &&
	    (pid < 0 || !o->user_only)) {
		r->flags |= PERF_REC_CALLCHAIN;
		r->kernel_chain_only = 1;
	}
	r->stack_size = o->stack_size ? o->stack_size : PERF_REC_STACK_DEFAULT;
	r->system_wide = pid < 0;
	if (ncpu < 1)
		ncpu = 1;
	r->cpu = calloc((size_t)ncpu, sizeof(*r->cpu));
	r->pfd = calloc((size_t)ncpu, sizeof(*r->pfd));
	if (!r->cpu || !r->pfd) {
		perf_recorder_close(r);
		eq_fail(err, "out of memory for %ld CPUs' rings", ncpu);
		return NULL;
	}
	r->period_ns = o->sideband ? 0 : (uint64_t)(1e9 / o->hz);
	r->jitter = o->sideband ? 0 : o->jitter_pct;
	r->rng = o->seed ? o->seed : 1;
	r->data_size = ring_pages(o, (size_t)page, r->stack_size) * (size_t)page;
	r->ring_size = r->data_size + (size_t)page;
	/* Every CPU the kernel knows (the count is the machine's, not a
	 * constant); one that is offline now has no counter (ENODEV). */
	for (c = 0; c < ncpu; c++) {
		struct eq_error e;

		if (open_event(r, o, (int)c, &e) == 0)
			continue;
		if (errno == ENODEV) {
			r->offline++;
			continue;
		}
		*err = e;
		perf_recorder_close(r);
		return NULL;
	}
	if (!r->ncpu) {
		eq_fail(err, "perf_event_open(%s) for pid %d: no CPU is online",
			o->sideband ? "dummy" : "cpu-clock", (int)pid);
		perf_recorder_close(r);
		return NULL;
	}
	return r;
}

void perf_recorder_stack_stats(const struct perf_recorder *r, struct perf_stack_stats *st)
{
	st->copies = r->stacks;
	st->bytes = r->stack_bytes;
	st->full = r->stack_full;
	st->bad = r->stack_bad;
	st->size = r->stack_size;
	st->ring_kib = (unsigned)(r->data_size / 1024);
	st->ring_shrunk = r->ring_shrunk;
}

int perf_recorder_cpus(const struct perf_recorder *r, int *offline)
{
	if (offline)
		*offline = r->offline;
	return r->ncpu;
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

		if (r->system_wide && s->pid == 0)
			e.flags |= EQ_F_IDLE; /* the idle task */
		if ((r->flags & PERF_REC_DWARF) && sink->sample_stack) {
			struct eqp_ustack u;
			int k = ustack_of(r, s, h, &u);

			if (r->flags & PERF_REC_CALLCHAIN)
				chain_of(s, h, &cc);
			if (k < 0)
				r->stack_bad++;
			return sink->sample_stack(sink->ctx, &e,
						  (r->flags & PERF_REC_CALLCHAIN) ? &cc : NULL,
						  k > 0 ? &u : NULL);
		}
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

		return sink->fork(sink->ctx, f->ppid, f->ptid, f->pid, f->tid, f->time);
	}
	case PERF_RECORD_LOST:
		sink->lost(sink->ctx, 0, ((const struct lost_rec *)(const void *)h)->lost);
		return 0;
	default:
		return 0; /* EXIT, THROTTLE...: not needed for a profile */
	}
}

/* When a record happened: samples carry it in their body, every other
 * record in the sample_id_all trailer; 0 if it has neither. */
static uint64_t when(const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_SAMPLE) {
		const struct sample_rec *s = (const void *)h;

		return h->size >= sizeof(*s) ? s->time : 0;
	}
	return record_time(h);
}


/* n bytes at offset off of a ring of size bytes (a power of two), which
 * may wrap around its end: one copy, or two. */
static void ring_copy(void *dst, const unsigned char *data, size_t size, size_t off, size_t n)
{
	size_t first = size - off;

	if (n <= first) {
		memcpy(dst, data + off, n);
	} else {
		memcpy(dst, data + off, first);
		memcpy((unsigned char *)dst + first, data, n - first);
	}
}

/* Copies every record of one ring into the pending queue; returns the
 * latest time seen, or -1 with err. */
static int copy_ring(struct perf_recorder *r, struct cpu_ring *c, uint64_t *round_max,
		     struct eq_error *err)
{
	struct perf_event_mmap_page *meta = c->ring;
	const unsigned char *data = (const unsigned char *)c->ring + (r->ring_size - r->data_size);
	uint64_t head, tail;

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		struct pending *pd;
		size_t off = tail & (r->data_size - 1);

		/* records are 8-byte aligned, so a header never wraps; a
		 * record may: at most two copies */
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > r->data_size)
			return eq_fail(err, "perf ring of cpu %d: record of %u bytes at offset %zu is malformed",
				       c->cpu, h.size, off);
		if (EQ_GROW(r->buf, r->bufcap, r->buflen + h.size, 64) ||
		    EQ_GROW(r->pend, r->pendcap, r->npend + 1, 64))
			return eq_fail(err, "out of memory for perf records");
		ring_copy(r->buf + r->buflen, data, r->data_size, off, h.size);
		pd = &r->pend[r->npend++];
		*pd = (struct pending){ .time = when((const void *)(r->buf + r->buflen)),
					.order = r->order++, .off = r->buflen, .size = h.size };
		if (pd->time > *round_max)
			*round_max = pd->time;
		r->buflen += h.size;
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_offset(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Each CPU has its own ring, so a process's exec seen on one CPU and its
 * earlier mmap seen on another would be handed over in the wrong order:
 * records are sorted by time first, as perf report does.  A record not yet
 * read when this round read its ring was written after the previous round
 * had read every ring, so it is later than anything that round saw: the
 * records up to the previous round's latest time are final and go to the
 * sink; the rest wait for the next round (or the last, which takes all).
 */
static int drain_rounds(struct perf_recorder *r, int all, const struct eq_sink *sink,
			struct eq_error *err)
{
	uint64_t round_max = 0, limit = r->prev_round_max, start = monotonic_ns();
	size_t i, n, keep;
	int c;

	/* A quiet machine writes few records (a sideband for another source):
	 * what was timestamped a millisecond before the previous round began
	 * reading was in its ring by the end of that round, so it is final too. */
	if (r->prev_read_start > 1000000 && r->prev_read_start - 1000000 > limit)
		limit = r->prev_read_start - 1000000;
	r->prev_read_start = start;
	for (c = 0; c < r->ncpu; c++)
		if (copy_ring(r, &r->cpu[c], &round_max, err) < 0)
			return -1;
	if (r->npend)
		qsort(r->pend, r->npend, sizeof(*r->pend), by_time);
	for (n = 0; n < r->npend && (all || r->pend[n].time <= limit); n++)
		if (handle(r, (const void *)(r->buf + r->pend[n].off), sink) < 0)
			return -1;
	/* Keep the rest, packed at the start of the buffer: moved in the order
	 * they lie there, so no record is overwritten before it is moved (the
	 * next round sorts them by time again). */
	if (r->npend > n)
		qsort(r->pend + n, r->npend - n, sizeof(*r->pend), by_offset);
	for (i = n, keep = 0; i < r->npend; i++) {
		memmove(r->buf + keep, r->buf + r->pend[i].off, r->pend[i].size);
		r->pend[i].off = keep;
		keep += r->pend[i].size;
	}
	if (n && r->npend > n)
		memmove(r->pend, r->pend + n, (r->npend - n) * sizeof(*r->pend));
	r->npend -= n;
	r->horizon = all ? UINT64_MAX : limit;
	r->buflen = keep;
	if (round_max > r->prev_round_max)
		r->prev_round_max = round_max;
	return 0;
}

int perf_recorder_drain(struct perf_recorder *r, int timeout_ms,
			const struct eq_sink *sink, struct eq_error *err)
{
	int i;

	for (i = 0; i < r->ncpu; i++)
		r->pfd[i] = (struct pollfd){ .fd = r->cpu[i].fd, .events = POLLIN };
	if (poll(r->pfd, (nfds_t)r->ncpu, timeout_ms) < 0 && errno != EINTR)
		return eq_fail(err, "poll on the perf rings: %s", strerror(errno));
	if (drain_rounds(r, 0, sink, err) < 0)
		return -1;
	if (r->jitter > 0)
		for (i = 0; i < r->ncpu; i++) {
			uint64_t period = draw_period(r);

			ioctl(r->cpu[i].fd, PERF_EVENT_IOC_PERIOD, &period);
		}
	return 0;
}

uint64_t perf_recorder_horizon(const struct perf_recorder *r)
{
	return r->horizon;
}

int perf_recorder_finish(struct perf_recorder *r, const struct eq_sink *sink,
			 struct eq_error *err)
{
	return drain_rounds(r, 1, sink, err);
}

void perf_recorder_close(struct perf_recorder *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; r->cpu && i < r->ncpu; i++) {
		munmap(r->cpu[i].ring, r->ring_size);
		close(r->cpu[i].fd);
	}
	for (size_t k = 0; k < r->nextra; k++)
		close(r->extra[k]);
	free(r->extra);
	free(r->cpu);
	free(r->pfd);
	free(r->buf);
	free(r->pend);
	free(r);
}

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Iterations of a busy loop per ns of this thread's CPU time, over ms. */
static double spin_rate(double ms)
{
	volatile unsigned long sink = 0;
	double t0 = thread_cpu_ns(), t;
	unsigned long n = 0;

	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
		n += 1000;
		t = thread_cpu_ns();
	} while (t - t0 < ms * 1e6);
	(void)sink;
	return (double)n / (t - t0);
}

int perf_rate_probe(double hz, double ms, double *achieved, double *slowdown,
		    struct eq_error *err)
{
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 65 * page;
	struct perf_event_mmap_page *meta;
	const unsigned char *data;
	uint64_t head, tail, taken = 0;
	double base, sampled, t0, t1;
	void *ring;
	int fd;

	base = spin_rate(ms / 2);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = (uint64_t)(1e9 / hz);
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return eq_fail(err, "perf_event_open(cpu-clock) on the recorder itself: %s",
			       strerror(errno));
	ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		close(fd);
		return eq_fail(err, "mapping a perf ring of %zu KiB: %s", size / 1024, strerror(errno));
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = thread_cpu_ns();
	sampled = spin_rate(ms);
	t1 = thread_cpu_ns();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	meta = ring;
	data = (const unsigned char *)ring + page;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	/* samples the kernel took: those in the ring and those it lost */
	for (tail = 0; tail < head;) {
		struct perf_event_header h;
		size_t off = tail & (size - page - 1);

		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE)
			taken++;
		else if (h.type == PERF_RECORD_LOST) {
			struct lost_rec l;

			ring_copy(&l, data, size - page, off, sizeof(l));
			taken += l.lost;
		}
		tail += h.size;
	}
	munmap(ring, size);
	close(fd);
	*achieved = (double)taken / ((t1 - t0) / 1e9);
	*slowdown = sampled > 0 ? base / sampled : 0;
	return 0;
}
