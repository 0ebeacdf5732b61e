/*
 * maps.c - parser for the /proc/PID/maps text format.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/maps.h"
#include "util/grow.h"

struct cursor {
	const char *p, *end;  /* the current line, without its newline */
	const char *name;
	unsigned lineno;
};

static int fail_field(const struct cursor *c, const char *field, struct eq_error *err)
{
	return eq_fail(err, "%s:%u: bad %s field in maps line; expected "
		       "'START-END PERMS OFFSET DEV INODE [PATH]' as in /proc/PID/maps",
		       c->name, c->lineno, field);
}

static int read_hex(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	while (c->p < c->end && isxdigit((unsigned char)*c->p)) {
		if (digits++ >= 16)
			return -1;
		v = v * 16 + (uint64_t)(isdigit((unsigned char)*c->p) ?
			*c->p - '0' : (tolower((unsigned char)*c->p) - 'a' + 10));
		c->p++;
	}
	*out = v;
	return digits ? 0 : -1;
}

static int expect(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -1;
	c->p++;
	return 0;
}

static void skip_spaces(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static int parse_perms(struct cursor *c, unsigned *perms)
{
	static const char want[3] = { 'r', 'w', 'x' };
	int i;

	if (c->end - c->p < 4)
		return -1;
	*perms = 0;
	for (i = 0; i < 3; i++) {
		if (c->p[i] == want[i])
			*perms |= 1u << i;
		else if (c->p[i] != '-')
			return -1;
	}
	if (c->p[3] != 'p' && c->p[3] != 's')
		return -1;
	c->p += 4;
	return 0;
}

/* Parses one line into *m; the path is returned as [*path, *path_end). */
static int parse_line(struct cursor *c, struct eq_map *m, const char **path,
		      const char **path_end, struct eq_error *err)
{
	uint64_t dev_major, dev_minor, inode = 0;
	int digits = 0;

	if (read_hex(c, &m->start) || expect(c, '-') || read_hex(c, &m->end))
		return fail_field(c, "address range", err);
	if (m->end <= m->start)
		return eq_fail(err, "%s:%u: mapping ends (0x%llx) before it starts (0x%llx)",
			       c->name, c->lineno, (unsigned long long)m->end,
			       (unsigned long long)m->start);
	if (expect(c, ' ') || parse_perms(c, &m->perms))
		return fail_field(c, "permissions", err);
	if (expect(c, ' ') || read_hex(c, &m->offset))
		return fail_field(c, "offset", err);
	if (expect(c, ' ') || read_hex(c, &dev_major) || expect(c, ':') ||
	    read_hex(c, &dev_minor))
		return fail_field(c, "device", err);
	if (expect(c, ' '))
		return fail_field(c, "inode", err);
	while (c->p < c->end && isdigit((unsigned char)*c->p) && digits < 20) {
		inode = inode * 10 + (uint64_t)(*c->p++ - '0');
		digits++;
	}
	if (!digits || (c->p < c->end && *c->p != ' ' && *c->p != '\t'))
		return fail_field(c, "inode", err);
	skip_spaces(c);
	*path = c->p;
	*path_end = c->end;
	while (*path_end > *path && isspace((unsigned char)(*path_end)[-1]))
		(*path_end)--;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct eq_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int check_overlaps(const struct eq_maps *m, const char *name, struct eq_error *err)
{
	size_t i;

	for (i = 1; i < m->n; i++)
		if (m->maps[i].start < m->maps[i - 1].end)
			return eq_fail(err, "%s: mappings overlap at 0x%llx; a maps file "
				       "describes one process at one time",
				       name, (unsigned long long)m->maps[i].start);
	return 0;
}

/* Every line of text, in the order written (sorted by start when sort). */
static int read_maps(const char *text, size_t len, const char *name, int sort,
		     struct eq_maps *out, struct eq_error *err)
{
	struct eq_maps m = { 0 };
	struct cursor c = { .name = name };
	const char *p = text, *end = text + len;
	size_t cap = 0, used = 0;

	/* Paths are copied into one block no larger than the text. */
	m.strings = malloc(len + 1);
	if (!m.strings)
		return eq_fail(err, "%s: out of memory", name);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *path = NULL, *path_end = NULL;
		struct eq_map map;

		c.p = p;
		c.end = nl ? nl : end;
		c.lineno++;
		p = nl ? nl + 1 : end;
		skip_spaces(&c);
		if (c.p == c.end)
			continue;
		if (memchr(c.p, '\0', (size_t)(c.end - c.p))) {
			fail_field(&c, "text (NUL byte)", err);
			goto fail;
		}
		if (parse_line(&c, &map, &path, &path_end, err))
			goto fail;
		if (EQ_GROW(m.maps, cap, m.n + 1, 16) < 0) {
			eq_fail(err, "%s: out of memory", name);
			goto fail;
		}
		memcpy(m.strings + used, path, (size_t)(path_end - path));
		map.path = (const char *)(uintptr_t)used; /* fixed up below */
		used += (size_t)(path_end - path);
		m.strings[used++] = '\0';
		m.maps[m.n++] = map;
	}
	for (size_t i = 0; i < m.n; i++)
		m.maps[i].path = m.strings + (uintptr_t)m.maps[i].path;
	if (m.n && sort)
		qsort(m.maps, m.n, sizeof(*m.maps), by_start);
	*out = m;
	return 0;
fail:
	free(m.maps);
	free(m.strings);
	return -1;
}

int eq_maps_parse(const char *text, size_t len, const char *name,
		  struct eq_maps *out, struct eq_error *err)
{
	struct eq_maps m;

	if (read_maps(text, len, name, 1, &m, err))
		return -1;
	if (check_overlaps(&m, name, err)) {
		eq_maps_release(&m);
		return -1;
	}
	*out = m;
	return 0;
}

/* A boundary of a mapping in the log: where line `idx` starts or ends. */
struct edge {
	uint64_t at;
	size_t idx;
	int start;
};

static int by_at(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* Max-heap of line numbers: the latest line covering a point owns it. */
static void heap_push(size_t *h, size_t *n, size_t v)
{
	size_t i = (*n)++;

	for (; i && h[(i - 1) / 2] < v; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

static void heap_pop(size_t *h, size_t *n)
{
	size_t v = h[--*n], i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
}

int eq_maps_parse_log(const char *text, size_t len, const char *name,
		      struct eq_maps *out, struct eq_error *err)
{
	struct eq_maps in, m = { 0 };
	struct edge *e = NULL;
	size_t *heap = NULL, nheap = 0, ne, i, k;
	unsigned char *gone = NULL;

	if (read_maps(text, len, name, 0, &in, err))
		return -1;
	ne = 2 * in.n;
	e = malloc((ne ? ne : 1) * sizeof(*e));
	heap = malloc((in.n ? in.n : 1) * sizeof(*heap));
	gone = calloc(in.n ? in.n : 1, 1);
	m.maps = malloc((ne ? ne : 1) * sizeof(*m.maps));
	if (!e || !heap || !gone || !m.maps) {
		eq_fail(err, "%s: out of memory", name);
		goto fail;
	}
	for (i = 0; i < in.n; i++) {
		e[2 * i] = (struct edge){ in.maps[i].start, i, 1 };
		e[2 * i + 1] = (struct edge){ in.maps[i].end, i, 0 };
	}
	qsort(e, ne, sizeof(*e), by_at);
	/* Sweep the boundaries: between two of them the latest line that
	 * covers the span owns it (a later mmap replaces what it overlaps,
	 * as the kernel did); neighbouring spans of one line join again. */
	for (k = 0; k < ne; k++) {
		uint64_t from = e[k].at, to;

		if (e[k].start)
			heap_push(heap, &nheap, e[k].idx);
		else
			gone[e[k].idx] = 1;
		while (nheap && gone[heap[0]])
			heap_pop(heap, &nheap);
		if (k + 1 == ne || !nheap || (to = e[k + 1].at) == from)
			continue;
		{
			const struct eq_map *src = &in.maps[heap[0]];
			struct eq_map *last = m.n ? &m.maps[m.n - 1] : NULL;

			if (last && last->end == from && last->path == src->path &&
			    last->perms == src->perms &&
			    last->offset + (from - last->start) == src->offset + (from - src->start)) {
				last->end = to;
				continue;
			}
			m.maps[m.n++] = (struct eq_map){ from, to, src->offset + (from - src->start),
							 src->perms, src->path };
		}
	}
	m.strings = in.strings;
	in.strings = NULL;
	free(in.maps);
	free(e);
	free(heap);
	free(gone);
	*out = m;
	return 0;
fail:
	free(e);
	free(heap);
	free(gone);
	free(m.maps);
	eq_maps_release(&in);
	return -1;
}

void eq_maps_release(struct eq_maps *m)
{
	free(m->maps);
	free(m->strings);
	memset(m, 0, sizeof(*m));
}

const struct eq_map *eq_maps_find(const struct eq_maps *m, uint64_t pc)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < m->maps[mid].start)
			hi = mid;
		else if (pc >= m->maps[mid].end)
			lo = mid + 1;
		else
			return &m->maps[mid];
	}
	return NULL;
}

const char *eq_maps_main_path(const struct eq_maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->maps[i].path[0] && m->maps[i].path[0] != '[')
			return m->maps[i].path;
	return NULL;
}
