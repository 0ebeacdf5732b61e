/*
 * perf_data.c - a perf.data twin of a synthetic recording (bench/speed).
 *
 * The layout is perf's (tools/perf/Documentation/perf.data-file-format.txt,
 * include/uapi/linux/perf_event.h): a struct perf_file_header, one
 * struct perf_file_attr (the event's attr and an empty ids section), then the
 * data section: PERF_RECORD_COMM and PERF_RECORD_MMAP2 for the process and
 * PERF_RECORD_SAMPLE for each sample, every record followed by its sample_id
 * (attr.sample_id_all) so that perf orders them by time. No feature sections:
 * perf report needs none, and resolves symbols from the mapped file itself.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "perf_data.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD)
#define FINISHED_ROUND 68 /* PERF_RECORD_FINISHED_ROUND, perf's own record type */

struct file_section { uint64_t offset, size; };

struct file_header {
	uint64_t magic; /* "PERFILE2" read as a little-endian u64 */
	uint64_t size;
	uint64_t attr_size;
	struct file_section attrs, data, event_types;
	uint64_t adds_features[4]; /* HEADER_FEAT_BITS = 256 */
};

struct file_attr {
	struct perf_event_attr attr;
	struct file_section ids;
};

/* What attr.sample_id_all appends to every other record: pid, tid, time, cpu. */
struct sample_id { uint32_t pid, tid; uint64_t time; uint32_t cpu, res; };

struct sample_rec {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t period;
};

struct perf_data {
	FILE *f;
	const char *path;
	uint64_t period, data_start, data_size;
	char buf[1 << 20];
};

static void fail(const struct perf_data *p, const char *why)
{
	fprintf(stderr, "speed_rec: %s: %s\n", p->path, why);
	exit(1);
}

static void put(struct perf_data *p, const void *v, size_t n)
{
	if (fwrite(v, 1, n, p->f) != n)
		fail(p, "cannot write (disk full?)");
	p->data_size += n;
}

struct perf_data *perf_data_create(const char *path, uint64_t period_ns)
{
	struct perf_data *p = calloc(1, sizeof(*p));
	struct file_header h = { 0 };
	struct file_attr a = { 0 };

	if (!p)
		exit(1);
	p->path = path;
	p->period = period_ns;
	if (!(p->f = fopen(path, "wb")))
		fail(p, "cannot create");
	setvbuf(p->f, p->buf, _IOFBF, sizeof(p->buf));
	a.attr.type = PERF_TYPE_SOFTWARE;
	a.attr.size = sizeof(a.attr);
	a.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	a.attr.sample_period = period_ns;
	a.attr.sample_type = SAMPLE_TYPE;
	a.attr.disabled = 1;
	a.attr.inherit = 1;
	a.attr.exclude_kernel = 1;
	a.attr.exclude_hv = 1;
	a.attr.mmap = 1;
	a.attr.comm = 1;
	a.attr.mmap2 = 1;
	a.attr.comm_exec = 1;
	a.attr.sample_id_all = 1;
	/* The header is written again at the end, with the data's size. */
	if (fwrite(&h, sizeof(h), 1, p->f) != 1 || fwrite(&a, sizeof(a), 1, p->f) != 1)
		fail(p, "cannot write");
	p->data_start = sizeof(h) + sizeof(a);
	return p;
}

void perf_data_process(struct perf_data *p, uint32_t pid, const char *comm, const char *maps)
{
	struct sample_id id = { .pid = pid, .tid = pid };
	struct perf_event_header h;
	char name[4096], perms[8];
	unsigned long long lo, hi, off;
	const char *line;
	size_t len = (strlen(comm) + 1 + 7) & ~(size_t)7;

	memset(name, 0, sizeof(name));
	strncpy(name, comm, sizeof(name) - 1);
	h = (struct perf_event_header){ PERF_RECORD_COMM, PERF_RECORD_MISC_USER,
		(uint16_t)(sizeof(h) + 8 + len + sizeof(id)) };
	put(p, &h, sizeof(h));
	put(p, &id, 8);
	put(p, name, len);
	put(p, &id, sizeof(id));
	for (line = maps; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		struct { uint64_t addr, len, pgoff; uint32_t maj, min; uint64_t ino, gen;
			 uint32_t prot, flags; } m = { 0 };
		size_t flen;

		memset(name, 0, sizeof(name));
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &lo, &hi, perms, &off,
			   name) != 5 || perms[2] != 'x')
			continue;
		flen = (strlen(name) + 1 + 7) & ~(size_t)7;
		m.addr = lo;
		m.len = hi - lo;
		m.pgoff = off;
		m.prot = 1 | 4; /* PROT_READ | PROT_EXEC */
		m.flags = 2;    /* MAP_PRIVATE */
		h = (struct perf_event_header){ PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
			(uint16_t)(sizeof(h) + 8 + sizeof(m) + flen + sizeof(id)) };
		put(p, &h, sizeof(h));
		put(p, &id, 8);
		put(p, &m, sizeof(m));
		put(p, name, flen);
		put(p, &id, sizeof(id));
	}
}

void perf_data_samples(struct perf_data *p, const struct eq_sample *s, size_t n)
{
	struct perf_event_header round = { FINISHED_ROUND, 0, sizeof(round) };
	struct sample_rec r = { .h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) },
				.period = p->period };
	size_t i;

	for (i = 0; i < n; i++) {
		r.ip = s[i].pc;
		r.pid = s[i].pid;
		r.tid = s[i].tid;
		r.time = s[i].time;
		r.cpu = s[i].cpu;
		put(p, &r, sizeof(r));
	}
	put(p, &round, sizeof(round));
}

void perf_data_close(struct perf_data *p)
{
	struct file_header h = { 0 };

	memcpy(&h.magic, "PERFILE2", 8);
	h.size = sizeof(h);
	h.attr_size = sizeof(struct file_attr);
	h.attrs = (struct file_section){ sizeof(h), sizeof(struct file_attr) };
	h.data = (struct file_section){ p->data_start, p->data_size };
	if (fflush(p->f) || fseek(p->f, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, p->f) != 1 ||
	    fclose(p->f))
		fail(p, "cannot write");
	free(p);
}
