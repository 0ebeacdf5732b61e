/*
 * recorder.c - the recording being written while samples arrive; see
 * recorder.h.
 */
#include "record/recorder.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/buildid.h"
#include "symbols/symfile.h"

/* One entry per process id, and one per thread id of a thread that has a
 * name of its own (pids and tids are one number space). */
struct proc {
	uint32_t pid;         /* 0 = empty slot (pid 0 is the idle task: never mapped) */
	char *maps;           /* accumulated /proc/PID/maps text */
	size_t len, cap;
	uint64_t maps_time;   /* when this address space began (exec), 0 = start */
	int dirty;            /* maps changed since the last MAPS chunk */
	char *comm;           /* process name, or a thread's own name */
	int thread;           /* a thread's entry (its tid), not a process's */
};

struct recorder {
	struct eqp_writer *w;
	struct eq_error err;  /* first error of a sink callback */
	int failed;
	struct proc *procs;   /* open addressing on pid */
	size_t nprocs, cap;
	char **files;         /* open addressing on path: build-ids already looked up */
	size_t nfiles, fcap;
	uint64_t lost_pending;
	uint32_t lost_source;
	struct recorder_stats st;
	uint64_t *kpcs;       /* open addressing: kernel pcs seen (samples, chains) */
	size_t nkpcs, kcap;
	int kpcs_failed;      /* out of memory: every kernel symbol is needed */
};

/* Remembers a kernel pc, so that only the kernel symbols the recording
 * needs are embedded (recorder_kernel_pcs). */
static void note_kpc(struct recorder *r, uint64_t pc)
{
	size_t i, mask;

	if (!pc || r->kpcs_failed)
		return;
	if (2 * (r->nkpcs + 1) > r->kcap) {
		size_t ncap = r->kcap ? 2 * r->kcap : 1024, j;
		uint64_t *n = calloc(ncap, sizeof(*n));

		if (!n) {
			r->kpcs_failed = 1;
			return;
		}
		for (j = 0; j < r->kcap; j++)
			if (r->kpcs[j]) {
				i = (size_t)(r->kpcs[j] * 0x9E3779B97F4A7C15ULL) & (ncap - 1);
				while (n[i])
					i = (i + 1) & (ncap - 1);
				n[i] = r->kpcs[j];
			}
		free(r->kpcs);
		r->kpcs = n;
		r->kcap = ncap;
	}
	mask = r->kcap - 1;
	for (i = (size_t)(pc * 0x9E3779B97F4A7C15ULL) & mask; r->kpcs[i]; i = (i + 1) & mask)
		if (r->kpcs[i] == pc)
			return;
	r->kpcs[i] = pc;
	r->nkpcs++;
}

static void note_kernel(struct recorder *r, const struct eq_sample *s, const struct eqp_callchain *cc)
{
	unsigned k;

	if (s->flags & EQ_F_KERNEL)
		note_kpc(r, s->pc);
	for (k = 0; cc && k < cc->nkernel; k++)
		note_kpc(r, cc->frames[k] - 1); /* looked up inside the call */
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int recorder_kernel_pcs(struct recorder *r, uint64_t **pcs, size_t *n)
{
	size_t i, k = 0;

	*pcs = NULL;
	*n = 0;
	if (r->kpcs_failed)
		return -1;
	if (!r->nkpcs)
		return 0;
	*pcs = malloc(r->nkpcs * sizeof(**pcs));
	if (!*pcs)
		return -1;
	for (i = 0; i < r->kcap; i++)
		if (r->kpcs[i])
			(*pcs)[k++] = r->kpcs[i];
	qsort(*pcs, k, sizeof(**pcs), cmp_u64);
	*n = k;
	return 0;
}

static size_t hash_u32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static size_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;  /* FNV-1a, 64-bit on any target */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return (size_t)h;
}

static int fail(struct recorder *r, const char *what, uint32_t pid)
{
	if (!r->failed)
		eq_fail(&r->err, "%s (pid %u)", what, pid);
	r->failed = 1;
	return -1;
}

static struct proc *proc_get(struct recorder *r, uint32_t pid, int create)
{
	size_t i;

	if (r->cap && pid) {
		for (i = hash_u32(pid) & (r->cap - 1); r->procs[i].pid; i = (i + 1) & (r->cap - 1))
			if (r->procs[i].pid == pid)
				return &r->procs[i];
	}
	if (!create || !pid)
		return NULL;
	if ((r->nprocs + 1) * 2 > r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64, j;
		struct proc *np = calloc(ncap, sizeof(*np));

		if (!np)
			return NULL;
		for (j = 0; j < r->cap; j++) {
			if (!r->procs[j].pid)
				continue;
			for (i = hash_u32(r->procs[j].pid) & (ncap - 1); np[i].pid; i = (i + 1) & (ncap - 1))
				;
			np[i] = r->procs[j];
		}
		free(r->procs);
		r->procs = np;
		r->cap = ncap;
	}
	for (i = hash_u32(pid) & (r->cap - 1); r->procs[i].pid; i = (i + 1) & (r->cap - 1))
		;
	r->procs[i] = (struct proc){ .pid = pid };
	r->nprocs++;
	return &r->procs[i];
}

/* The entry of a process, created (and counted) on first sight. */
static struct proc *process_get(struct recorder *r, uint32_t pid)
{
	size_t before = r->nprocs;
	struct proc *p = proc_get(r, pid, 1);

	if (p && r->nprocs != before)
		r->st.processes++;
	return p;
}

/* 1 when path is new (and remembers it), 0 when seen, -1 out of memory. */
static int file_first_seen(struct recorder *r, const char *path)
{
	size_t i;

	if ((r->nfiles + 1) * 2 > r->fcap) {
		size_t ncap = r->fcap ? r->fcap * 2 : 64, j;
		char **nf = calloc(ncap, sizeof(*nf));

		if (!nf)
			return -1;
		for (j = 0; j < r->fcap; j++) {
			if (!r->files[j])
				continue;
			for (i = hash_str(r->files[j]) & (ncap - 1); nf[i]; i = (i + 1) & (ncap - 1))
				;
			nf[i] = r->files[j];
		}
		free(r->files);
		r->files = nf;
		r->fcap = ncap;
	}
	for (i = hash_str(path) & (r->fcap - 1); r->files[i]; i = (i + 1) & (r->fcap - 1))
		if (!strcmp(r->files[i], path))
			return 0;
	r->files[i] = strdup(path);
	if (!r->files[i])
		return -1;
	r->nfiles++;
	return 1;
}

static int append(struct proc *p, const char *text, size_t n)
{
	if (p->len + n + 1 > p->cap) {
		size_t ncap = (p->len + n + 1) * 2;
		char *t = realloc(p->maps, ncap);

		if (!t)
			return -1;
		p->maps = t;
		p->cap = ncap;
	}
	memcpy(p->maps + p->len, text, n);
	p->len += n;
	p->maps[p->len] = '\0';
	p->dirty = 1;
	return 0;
}

/* The path of a maps line ("... inode  /path"), or NULL for anonymous and
 * [special] mappings. */
static const char *maps_path(const char *line, char *buf, size_t size)
{
	const char *slash = strchr(line, '/'), *nl;
	size_t len;

	if (!slash)
		return NULL;
	nl = strchr(slash, '\n');
	len = nl ? (size_t)(nl - slash) : strlen(slash);
	if (len >= size)
		return NULL;
	memcpy(buf, slash, len);
	buf[len] = '\0';
	return buf;
}

static int write_maps(struct recorder *r, struct proc *p);

static int on_sample(void *ctx, const struct eq_sample *s)
{
	struct recorder *r = ctx;
	struct proc *p;

	if (r->failed)
		return -1;
	/* A sample never reaches the file before the maps that explain it. */
	p = proc_get(r, s->pid, 0);
	if (p && p->dirty && write_maps(r, p) < 0) {
		r->failed = 1;
		return -1;
	}
	r->st.samples++;
	note_kernel(r, s, NULL);
	if (eqp_add_samples(r->w, s, 1, &r->err) < 0) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

static int on_sample_chain(void *ctx, const struct eq_sample *s, const struct eqp_callchain *cc)
{
	struct recorder *r = ctx;
	struct proc *p;

	if (r->failed)
		return -1;
	p = proc_get(r, s->pid, 0);
	if (p && p->dirty && write_maps(r, p) < 0) {
		r->failed = 1;
		return -1;
	}
	r->st.samples++;
	if (cc->nkernel + cc->nuser)
		r->st.chains++;
	note_kernel(r, s, cc);
	if (eqp_add_sample_chain(r->w, s, cc, &r->err) < 0) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

static int on_sample_stack(void *ctx, const struct eq_sample *s, const struct eqp_callchain *cc,
			   const struct eqp_ustack *u)
{
	struct recorder *r = ctx;
	struct proc *p;

	if (r->failed)
		return -1;
	p = proc_get(r, s->pid, 0);
	if (p && p->dirty && write_maps(r, p) < 0) {
		r->failed = 1;
		return -1;
	}
	r->st.samples++;
	if (cc && cc->nkernel + cc->nuser)
		r->st.chains++;
	if (u && u->abi)
		r->st.ustacks++;
	note_kernel(r, s, cc);
	if (eqp_add_sample_stack(r->w, s, cc, u, &r->err) < 0) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

static int on_mmap(void *ctx, uint32_t pid, uint64_t time, const char *line)
{
	struct recorder *r = ctx;
	struct proc *p = process_get(r, pid);
	char path[4096], hex[128];
	int first;

	(void)time;
	if (!p || append(p, line, strlen(line)) < 0)
		return fail(r, "out of memory for memory maps", pid);
	if (!maps_path(line, path, sizeof(path)))
		return 0;
	first = file_first_seen(r, path);
	if (first < 0)
		return fail(r, "out of memory for file names", pid);
	/* Looked up while the file is there: a short-lived file is not lost. */
	if (first && rec_build_id(path, hex, sizeof(hex)) == 0) {
		r->st.files++;
		if (eqp_add_buildid(r->w, path, hex, &r->err) < 0) {
			r->failed = 1;
			return -1;
		}
	}
	return 0;
}

static int write_maps(struct recorder *r, struct proc *p)
{
	if (!p->dirty)
		return 0;
	p->dirty = 0;
	r->st.maps_chunks++;
	return eqp_add_maps(r->w, p->pid, p->maps_time, p->maps ? p->maps : "", p->len, &r->err);
}

/* Replaces what an id's entry knew: a pid or tid the kernel gave out again
 * starts afresh (the old process's maps are written first, so their chunk
 * stays in the file). */
static int reuse(struct recorder *r, struct proc *p, uint64_t time)
{
	if (write_maps(r, p) < 0)
		return -1;
	p->len = 0;
	if (p->maps)
		p->maps[0] = '\0';
	p->maps_time = time;
	free(p->comm);
	p->comm = NULL;
	return 0;
}

static int set_name(struct recorder *r, struct proc *p, const char *name)
{
	char *n;

	if (p->comm && !strcmp(p->comm, name))
		return 0;
	n = strdup(name);
	if (!n)
		return -1;
	free(p->comm);
	p->comm = n;
	return 1;
}

/* A thread's own name, kept under its tid (tids and pids are one space). */
static int thread_named(struct recorder *r, uint32_t pid, uint32_t tid, uint64_t time,
			const char *name, int fresh)
{
	struct proc *t = proc_get(r, tid, 1);
	int changed;

	if (!t)
		return fail(r, "out of memory for a thread", tid);
	t->thread = 1;
	if (fresh && reuse(r, t, time) < 0)
		goto write_failed;
	changed = set_name(r, t, name);
	if (changed < 0)
		return fail(r, "out of memory for a thread name", tid);
	if (changed && eqp_add_thread_name(r->w, pid, tid, time, name, &r->err) < 0)
		goto write_failed;
	return 0;
write_failed:
	r->failed = 1;
	return -1;
}

static int on_comm(void *ctx, uint32_t pid, uint32_t tid, uint64_t time, const char *name,
		   int exec)
{
	struct recorder *r = ctx;
	struct proc *p;
	int changed;

	/* A thread that names itself does not rename its process. */
	if (tid != pid && !exec)
		return thread_named(r, pid, tid, time, name, 0);
	p = process_get(r, pid);
	if (!p)
		return fail(r, "out of memory for a process", pid);
	if (exec) {
		/* A new address space: what was mapped before is gone.  The
		 * old maps are written first, so their chunk stays in the file. */
		if (write_maps(r, p) < 0) {
			r->failed = 1;
			return -1;
		}
		p->len = 0;
		if (p->maps)
			p->maps[0] = '\0';
		p->maps_time = time;
		p->dirty = 1; /* even an empty map says the old one is gone */
	}
	changed = set_name(r, p, name);
	if (changed < 0)
		return fail(r, "out of memory for a process name", pid);
	if (changed && eqp_add_comm(r->w, pid, time, name, &r->err) < 0) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

static int on_fork(void *ctx, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid,
		   uint64_t time)
{
	struct recorder *r = ctx;
	struct proc *parent, *child, *creator;
	const char *name;
	int changed;

	/* The creating thread's own name, if it has one, is what the new
	 * task starts with (the kernel copies the caller's comm). */
	creator = ptid != ppid ? proc_get(r, ptid, 0) : NULL;
	if (pid == ppid) {
		/* A new thread shares its process's address space. */
		if (creator && creator->comm)
			return thread_named(r, pid, tid, time, creator->comm, 1);
		child = proc_get(r, tid, 0);
		if (child && reuse(r, child, time) < 0)
			goto write_failed;
		return 0;
	}
	child = process_get(r, pid);
	if (!child)
		return fail(r, "out of memory for a process", pid);
	if (reuse(r, child, time) < 0)
		goto write_failed;
	child->thread = 0;
	child->dirty = 1;
	parent = proc_get(r, ppid, 0);
	creator = ptid != ppid ? proc_get(r, ptid, 0) : NULL; /* the table may have grown */
	/* fork() copies the address space: the child starts with its parent's
	 * maps and name, until it execs or maps something of its own. */
	if (parent && parent->len && append(child, parent->maps, parent->len) < 0)
		return fail(r, "out of memory for memory maps", pid);
	name = creator && creator->comm ? creator->comm : parent ? parent->comm : NULL;
	if (!name)
		return 0;
	changed = set_name(r, child, name);
	if (changed < 0)
		return fail(r, "out of memory for a process name", pid);
	if (eqp_add_comm(r->w, pid, time, child->comm, &r->err) < 0)
		goto write_failed;
	return 0;
write_failed:
	r->failed = 1;
	return -1;
}

static void on_lost(void *ctx, uint32_t source, uint64_t count)
{
	struct recorder *r = ctx;

	r->st.lost += count;
	r->lost_pending += count;
	r->lost_source = source;
}

struct eq_sink recorder_sink(struct recorder *r)
{
	return (struct eq_sink){ r, on_sample, on_sample_chain, on_mmap, on_comm, on_fork, on_lost,
				 on_sample_stack };
}

/* The size of the recorder's own mapping that starts at base, or 0. */
static size_t own_mapping(unsigned long base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long start, end;
	char line[512];
	size_t size = 0;

	if (!f)
		return 0;
	while (!size && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start == base)
			size = end - start;
	fclose(f);
	return size;
}

/*
 * The kernel maps one vdso image into every process it starts, the
 * command's as the recorder's, and no machine has a file of it: its bytes
 * go into the recording as the "[vdso]" image (an IMAG chunk: the reader
 * takes its symbols from the image's own ELF symbol table, and --call-graph
 * dwarf unwinds through clock_gettime() and friends with its call-frame
 * information, as perf does with the vdso it saves), read from the
 * recorder's own copy
 * (the AT_SYSINFO_EHDR auxv entry and its mapping).  A machine without a
 * vdso has nothing to add.
 */
static int embed_vdso(struct recorder *r, struct eq_error *err)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	size_t size = base ? own_mapping(base) : 0;

	if (!size)
		return 0;
	return eqp_add_image(r->w, "[vdso]", (const void *)base, size, err);
}

/*
 * A JIT (node --perf-basic-prof, a JVM's perf agent) names the code it
 * generates in /tmp/perf-PID.map as it goes; the file is complete when the
 * recording ends, and may be gone or overwritten by the time of the report:
 * it goes into the recording as that process's table (absolute addresses).
 * As perf does, only a regular file owned by this user or root is read.
 */
static int embed_jit_map(struct recorder *r, uint32_t pid, struct eq_error *err)
{
	char path[64], *text = NULL;
	struct eq_symfile sf;
	struct eq_error bad;
	struct stat st;
	ssize_t got = 0;
	size_t len = 0;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_uid != getuid() && st.st_uid) ||
	    st.st_size > (1 << 28) || !(text = malloc((size_t)st.st_size + 1)))
		goto out;
	while (len < (size_t)st.st_size &&
	       (got = read(fd, text + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)got;
	if (eq_perfmap_parse(text, len, path, &sf, &bad) < 0) {
		r->st.jit_bad++;
		goto out;
	}
	if (sf.n) {
		struct eqp_symtab t = { path, 1, sf.n, sf.syms };

		rc = eqp_add_symtab(r->w, &t, err);
		r->st.jit_maps++;
	}
	eq_symfile_release(&sf);
out:
	free(text);
	close(fd);
	return rc;
}

struct recorder *recorder_open(const char *out, const struct eqp_meta *meta,
			       struct eq_error *err)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	r->w = eqp_create_flags(out, meta, EQP_W_RECORDING, err);
	if (!r->w) {
		free(r);
		return NULL;
	}
	if (embed_vdso(r, err) < 0) {
		recorder_discard(r);
		return NULL;
	}
	return r;
}

int recorder_tick(struct recorder *r, struct eq_error *err)
{
	size_t i;

	if (r->failed)
		goto failed;
	for (i = 0; i < r->cap; i++)
		if (r->procs[i].pid && write_maps(r, &r->procs[i]) < 0)
			goto write_failed;
	if (r->lost_pending) {
		if (eqp_add_lost(r->w, r->lost_source, r->lost_pending, &r->err) < 0)
			goto write_failed;
		r->lost_pending = 0;
	}
	if (eqp_flush(r->w, &r->err) < 0)
		goto write_failed;
	return 0;
write_failed:
	r->failed = 1;
failed:
	return eq_fail(err, "%s", r->err.msg);
}

int recorder_add_symtab(struct recorder *r, const struct eqp_symtab *t, struct eq_error *err)
{
	if (eqp_add_symtab(r->w, t, &r->err) < 0) {
		r->failed = 1;
		return eq_fail(err, "%s", r->err.msg);
	}
	return 0;
}

int recorder_add_energy_domain(struct recorder *r, const struct eqp_edomain *d,
			       struct eq_error *err)
{
	if (eqp_add_energy_domain(r->w, d, &r->err) < 0) {
		r->failed = 1;
		return eq_fail(err, "%s", r->err.msg);
	}
	return 0;
}

int recorder_add_energy_readings(struct recorder *r, const struct eqp_ereading *rd, size_t n,
				 struct eq_error *err)
{
	if (eqp_add_energy_readings(r->w, rd, n, &r->err) < 0) {
		r->failed = 1;
		return eq_fail(err, "%s", r->err.msg);
	}
	return 0;
}

int recorder_add_marker(struct recorder *r, uint64_t time, const char *label,
			struct eq_error *err)
{
	if (eqp_add_marker(r->w, time, label, &r->err) < 0) {
		r->failed = 1;
		return eq_fail(err, "%s", r->err.msg);
	}
	return 0;
}

int recorder_add_pstates(struct recorder *r, const struct eqp_pstate *ps, size_t n,
			  struct eq_error *err)
{
	if (n && eqp_add_pstates(r->w, ps, n, &r->err) < 0) {
		r->failed = 1;
		return eq_fail(err, "%s", r->err.msg);
	}
	return 0;
}

int recorder_add_devreqs(struct recorder *r, const struct eqp_devreq *rq, size_t n,
			 struct eq_error *err)
{
	if (n && eqp_add_devreqs(r->w, rq, n, &r->err) < 0) {
		r->failed = 1;
		return eq_fail(err, "%s", r->err.msg);
	}
	return 0;
}

static void free_recorder(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->cap; i++) {
		free(r->procs[i].maps);
		free(r->procs[i].comm);
	}
	for (i = 0; i < r->fcap; i++)
		free(r->files[i]);
	free(r->procs);
	free(r->files);
	free(r->kpcs);
	free(r);
}

int recorder_commit(struct recorder *r, struct eq_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < r->cap && !r->failed; i++)
		if (r->procs[i].pid && !r->procs[i].thread &&
		    embed_jit_map(r, r->procs[i].pid, &r->err) < 0)
			r->failed = 1;

	if (recorder_tick(r, err) < 0) {
		/* keep what was written: the unfinished file is the user's data */
		eqp_abandon(r->w);
		free_recorder(r);
		return -1;
	}
	rc = eqp_commit(r->w, err);
	free_recorder(r);
	return rc;
}

void recorder_discard(struct recorder *r)
{
	if (!r)
		return;
	eqp_discard(r->w);
	free_recorder(r);
}

const char *recorder_file(const struct recorder *r)
{
	return eqp_writer_file(r->w);
}

const struct recorder_stats *recorder_stats(const struct recorder *r)
{
	return &r->st;
}

const char *recorder_error(const struct recorder *r)
{
	return r->failed ? r->err.msg : NULL;
}
