/*
 * trace_events.c - tracefs format files, raw tracepoint records, and their
 * pairing into power-state changes and device requests (trace_events.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/trace_events.h"
#include "util/grow.h"

const struct te_def te_defs[TE_NKINDS] = {
	[TE_CPU_FREQ] = { "power", "cpu_frequency", TE_G_POWER },
	[TE_CPU_IDLE] = { "power", "cpu_idle", TE_G_POWER },
	[TE_RQ_ISSUE] = { "block", "block_rq_issue", TE_G_BLOCK },
	[TE_RQ_COMPLETE] = { "block", "block_rq_complete", TE_G_BLOCK },
	[TE_NET_XMIT] = { "net", "net_dev_xmit", TE_G_NET },
	[TE_RQ_INSERT] = { "block", "block_rq_insert", TE_G_BLOCK },
};

#define PWR_EVENT_EXIT 4294967295u

/* "key:NUMBER;" at *p (after optional blanks); advances *p past the ';'. */
static int take_num(const char **p, const char *end, const char *key, uint64_t *v)
{
	const char *s = *p;
	size_t k = strlen(key);
	uint64_t x = 0;
	int digits = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(end - s) < k || memcmp(s, key, k))
		return -1;
	s += k;
	while (s < end && isdigit((unsigned char)*s)) {
		if (x > 100000000)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
		s++;
		digits++;
	}
	if (!digits || s >= end || *s != ';')
		return -1;
	*p = s + 1;
	*v = x;
	return 0;
}

/* One "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" line (without "field:"). */
static int parse_field(const char *s, const char *end, struct te_field *fl, const char *where,
		       unsigned line, struct eq_error *err)
{
	const char *semi = memchr(s, ';', (size_t)(end - s)), *nm, *ne;
	uint64_t off, size, sg = 0;
	size_t tl;

	memset(fl, 0, sizeof(*fl));
	if (!semi)
		return eq_fail(err, "%s:%u: field declaration without ';'", where, line);
	ne = semi;
	while (ne > s && (ne[-1] == ' ' || ne[-1] == '\t'))
		ne--;
	if (ne > s && ne[-1] == ']') {      /* NAME[N] */
		const char *br = ne - 1;

		while (br > s && *br != '[')
			br--;
		if (*br != '[')
			return eq_fail(err, "%s:%u: unbalanced ']' in field declaration", where, line);
		fl->array = 1;
		ne = br;
	}
	nm = ne;
	while (nm > s && (isalnum((unsigned char)nm[-1]) || nm[-1] == '_'))
		nm--;
	if (nm == ne || (size_t)(ne - nm) >= sizeof(fl->name))
		return eq_fail(err, "%s:%u: field declaration without a name (or one of %zu characters or more)",
			       where, line, sizeof(fl->name));
	memcpy(fl->name, nm, (size_t)(ne - nm));
	tl = (size_t)(nm - s);
	while (tl && (s[tl - 1] == ' ' || s[tl - 1] == '\t'))
		tl--;
	if (!tl)
		return eq_fail(err, "%s:%u: field '%s' has no type", where, line, fl->name);
	if (tl >= sizeof(fl->type))
		tl = sizeof(fl->type) - 1;
	memcpy(fl->type, s, tl);
	if (!strncmp(fl->type, "__data_loc ", 11))
		fl->loc = 1;
	else if (!strncmp(fl->type, "__rel_loc ", 10))
		fl->loc = 2;
	s = semi + 1;
	if (take_num(&s, end, "offset:", &off) < 0 || take_num(&s, end, "size:", &size) < 0)
		return eq_fail(err, "%s:%u: field '%s': expected 'offset:N;' and 'size:N;'", where, line,
			       fl->name);
	if (take_num(&s, end, "signed:", &sg) == 0 && sg > 1)
		return eq_fail(err, "%s:%u: field '%s': signed:%llu (0 or 1)", where, line, fl->name,
			       (unsigned long long)sg);
	if (off + size > 65535 || size == 0)
		return eq_fail(err, "%s:%u: field '%s': offset %llu size %llu is outside a record (at most 65535 bytes)",
			       where, line, fl->name, (unsigned long long)off, (unsigned long long)size);
	fl->offset = (uint32_t)off;
	fl->size = (uint32_t)size;
	fl->is_signed = (int)sg;
	return 0;
}

int te_format_parse(const char *text, size_t len, const char *where, struct te_format *f,
		    struct eq_error *err)
{
	const char *p = text, *end = text + len;
	unsigned line = 0;
	int have_id = 0;

	memset(f, 0, sizeof(*f));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *s = p;

		line++;
		p = nl ? nl + 1 : end;
		while (s < le && (*s == ' ' || *s == '\t'))
			s++;
		if (memchr(s, '\0', (size_t)(le - s)))
			return eq_fail(err, "%s:%u: a NUL byte: not a tracefs format file", where, line);
		if ((size_t)(le - s) >= 5 && !memcmp(s, "name:", 5)) {
			size_t n;

			s += 5;
			while (s < le && *s == ' ')
				s++;
			n = (size_t)(le - s);
			if (!n || n >= sizeof(f->name))
				return eq_fail(err, "%s:%u: event name empty or too long", where, line);
			memcpy(f->name, s, n);
		} else if ((size_t)(le - s) >= 3 && !memcmp(s, "ID:", 3)) {
			char buf[16], *e;
			size_t n;
			unsigned long v;

			s += 3;
			while (s < le && *s == ' ')
				s++;
			n = (size_t)(le - s);
			if (!n || n >= sizeof(buf))
				return eq_fail(err, "%s:%u: ID: expected a number", where, line);
			memcpy(buf, s, n);
			buf[n] = '\0';
			errno = 0;
			v = strtoul(buf, &e, 10);
			if (*e || errno || v > 65535 || !isdigit((unsigned char)buf[0]))
				return eq_fail(err, "%s:%u: ID: '%s' is not an event id (0 to 65535)", where,
					       line, buf);
			f->id = (uint32_t)v;
			have_id = 1;
		} else if ((size_t)(le - s) >= 6 && !memcmp(s, "field:", 6)) {
			if (f->nfields == TE_MAX_FIELDS)
				return eq_fail(err, "%s:%u: more than %d fields", where, line, TE_MAX_FIELDS);
			if (parse_field(s + 6, le, &f->f[f->nfields], where, line, err) < 0)
				return -1;
			f->nfields++;
		} else if ((size_t)(le - s) >= 10 && !memcmp(s, "print fmt:", 10)) {
			break;
		}
		/* "format:" and blank lines */
	}
	if (!f->name[0])
		return eq_fail(err, "%s: no 'name:' line: not a tracefs format file", where);
	if (!have_id)
		return eq_fail(err, "%s: no 'ID:' line: not a tracefs format file", where);
	if (!f->nfields)
		return eq_fail(err, "%s: no 'field:' lines", where);
	return 0;
}

const struct te_field *te_field_find(const struct te_format *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nfields; i++)
		if (!strcmp(f->f[i].name, name))
			return &f->f[i];
	return NULL;
}

int te_get_uint(const struct te_field *fl, const unsigned char *raw, size_t n, uint64_t *v,
		struct eq_error *err)
{
	if ((size_t)fl->offset + fl->size > n)
		return eq_fail(err, "field '%s' (offset %u, %u bytes) is past the record's end (%zu bytes)",
			       fl->name, fl->offset, fl->size, n);
	switch (fl->size) {
	case 1:
		*v = raw[fl->offset];
		return 0;
	case 2: {
		uint16_t x;

		memcpy(&x, raw + fl->offset, 2);
		*v = x;
		return 0;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, raw + fl->offset, 4);
		*v = x;
		return 0;
	}
	case 8:
		memcpy(v, raw + fl->offset, 8);
		return 0;
	}
	return eq_fail(err, "field '%s' has %u bytes: not an integer", fl->name, fl->size);
}

int te_get_str(const struct te_field *fl, const unsigned char *raw, size_t n, char *buf,
	       size_t size, struct eq_error *err)
{
	size_t off, len, k;

	if (!size)
		return eq_fail(err, "field '%s': no room", fl->name);
	buf[0] = '\0';
	if ((size_t)fl->offset + fl->size > n)
		return eq_fail(err, "field '%s' (offset %u, %u bytes) is past the record's end (%zu bytes)",
			       fl->name, fl->offset, fl->size, n);
	if (fl->loc) {
		uint32_t v;

		if (fl->size != 4)
			return eq_fail(err, "field '%s': a %s of %u bytes (4 expected)", fl->name,
				       fl->loc == 1 ? "__data_loc" : "__rel_loc", fl->size);
		memcpy(&v, raw + fl->offset, 4);
		off = (v & 0xffff) + (fl->loc == 2 ? (size_t)fl->offset + 4 : 0);
		len = v >> 16;
		if (off + len > n)
			return eq_fail(err, "field '%s': its string (offset %zu, %zu bytes) is past the record's end (%zu bytes)",
				       fl->name, off, len, n);
	} else {
		off = fl->offset;
		len = fl->size;
	}
	for (k = 0; k < len && k + 1 < size && raw[off + k]; k++)
		buf[k] = (char)raw[off + k];
	buf[k] = '\0';
	return 0;
}

static int need(const struct te_format *f, const char *name, int str,
		const struct te_field **out, struct eq_error *err)
{
	const struct te_field *fl = te_field_find(f, name);

	*out = fl;
	if (!fl)
		return eq_fail(err, "event %s has no field '%s': this kernel's tracepoint differs from the ones eqprof reads",
			       f->name, name);
	if (str ? !(fl->array || fl->loc) :
	    (fl->array || fl->loc || !(fl->size == 1 || fl->size == 2 || fl->size == 4 || fl->size == 8)))
		return eq_fail(err, "event %s: field '%s' is '%s' of %u bytes: not %s", f->name, name,
			       fl->type, fl->size, str ? "a string" : "an integer");
	return 0;
}

int te_bind(struct te_event *ev, enum te_kind kind, const struct te_format *fmt,
	    struct eq_error *err)
{
	const struct te_format *f;

	memset(ev, 0, sizeof(*ev));
	ev->fmt = *fmt;
	f = &ev->fmt;
	ev->kind = kind;
	ev->id = f->id;
	if (strcmp(f->name, te_defs[kind].name))
		return eq_fail(err, "format of event '%s' given for %s:%s", f->name, te_defs[kind].sys,
			       te_defs[kind].name);
	if (need(f, "common_type", 0, &ev->common_type, err) < 0)
		return -1;
	switch (kind) {
	case TE_CPU_FREQ:
	case TE_CPU_IDLE:
		return need(f, "state", 0, &ev->a, err) < 0 || need(f, "cpu_id", 0, &ev->b, err) < 0 ? -1 : 0;
	case TE_RQ_ISSUE:
		if (need(f, "dev", 0, &ev->a, err) < 0 || need(f, "sector", 0, &ev->b, err) < 0 ||
		    need(f, "rwbs", 1, &ev->d, err) < 0)
			return -1;
		if (te_field_find(f, "bytes"))
			return need(f, "bytes", 0, &ev->c, err);
		ev->sectors = 1;
		return need(f, "nr_sector", 0, &ev->c, err);
	case TE_RQ_COMPLETE:
	case TE_RQ_INSERT:
		return need(f, "dev", 0, &ev->a, err) < 0 || need(f, "sector", 0, &ev->b, err) < 0 ? -1 : 0;
	case TE_NET_XMIT:
		return need(f, "len", 0, &ev->a, err) < 0 || need(f, "rc", 0, &ev->b, err) < 0 ||
		       need(f, "name", 1, &ev->c, err) < 0 ? -1 : 0;
	case TE_NKINDS:
		break;
	}
	return eq_fail(err, "unknown event kind %d", (int)kind);
}

int te_raw_type(const struct te_event *any, const unsigned char *raw, size_t n, uint32_t *id)
{
	uint64_t v;

	if (!any->common_type || te_get_uint(any->common_type, raw, n, &v, NULL) < 0)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

int te_decode(const struct te_event *ev, const unsigned char *raw, size_t n, struct te_rec *r,
	      struct eq_error *err)
{
	uint64_t a = 0, b = 0, c = 0, type;
	char rwbs[16];

	r->kind = ev->kind;
	if (te_get_uint(ev->common_type, raw, n, &type, err) < 0)
		return eq_fail_prefix(err, "%s", ev->fmt.name);
	if (type != ev->id)
		return eq_fail(err, "%s: a record of event id %llu, not %u", ev->fmt.name,
			       (unsigned long long)type, ev->id);
	switch (ev->kind) {
	case TE_CPU_FREQ:
	case TE_CPU_IDLE:
		if (te_get_uint(ev->a, raw, n, &a, err) < 0 || te_get_uint(ev->b, raw, n, &b, err) < 0)
			break;
		if (b > 65535)
			return eq_fail(err, "%s: cpu_id %llu is not a CPU", ev->fmt.name,
				       (unsigned long long)b);
		r->state = (uint32_t)a;
		r->cpu = (uint32_t)b;
		return 0;
	case TE_RQ_ISSUE:
		if (te_get_uint(ev->c, raw, n, &c, err) < 0 ||
		    te_get_str(ev->d, raw, n, rwbs, sizeof(rwbs), err) < 0)
			break;
		if (ev->sectors)
			c *= 512;
		if (c > UINT32_MAX)
			return eq_fail(err, "%s: %llu bytes in one request", ev->fmt.name,
				       (unsigned long long)c);
		r->bytes = (uint32_t)c;
		r->write = strchr(rwbs, 'W') != NULL;
		/* fall through */
	case TE_RQ_COMPLETE:
	case TE_RQ_INSERT:
		if (te_get_uint(ev->a, raw, n, &a, err) < 0 || te_get_uint(ev->b, raw, n, &b, err) < 0)
			break;
		r->dev = (uint32_t)a;
		r->sector = b;
		return 0;
	case TE_NET_XMIT:
		if (te_get_uint(ev->a, raw, n, &a, err) < 0 || te_get_uint(ev->b, raw, n, &b, err) < 0 ||
		    te_get_str(ev->c, raw, n, r->name, sizeof(r->name), err) < 0)
			break;
		r->bytes = (uint32_t)a;
		r->rc = (int32_t)(uint32_t)b;
		return 0;
	case TE_NKINDS:
		return eq_fail(err, "unknown event kind");
	}
	return eq_fail_prefix(err, "%s", ev->fmt.name);
}

/* ---- devices ---------------------------------------------------------------- */

int te_devtab_add(struct te_devtab *t, int net, uint32_t dev, const char *name)
{
	if (te_devtab_find(t, net, dev, name) >= 0)
		return 0;
	if (t->n == TE_MAX_DEVICES)
		return -1;
	t->d[t->n].net = net;
	t->d[t->n].dev = dev;
	snprintf(t->d[t->n].name, sizeof(t->d[t->n].name), "%s", name);
	t->n++;
	return 0;
}

int te_devtab_find(const struct te_devtab *t, int net, uint32_t dev, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->d[i].net == net && (net ? !strcmp(t->d[i].name, name) : t->d[i].dev == dev))
			return (int)i;
	return -1;
}

size_t te_devtab_meta(const struct te_devtab *t, char *buf, size_t size)
{
	size_t i, used = 0;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < t->n && used + 1 < size; i++) {
		int k = snprintf(buf + used, size - used, "device:%zu=%s\n", i, t->d[i].name);

		if (k < 0 || (size_t)k >= size - used) {
			buf[used] = '\0';   /* no half line */
			break;
		}
		used += (size_t)k;
	}
	return used;
}

/* ---- pairing ---------------------------------------------------------------- */

void te_pairer_init(struct te_pairer *p, const struct te_devtab *devs)
{
	memset(p, 0, sizeof(*p));
	p->devs = devs;
}

static int put_ps(struct te_pairer *p, const struct te_rec *r, uint16_t kind, uint32_t value)
{
	if (EQ_GROW(p->ps, p->capps, p->nps + 1, 64) < 0)
		return -1;
	p->ps[p->nps++] = (struct eqp_pstate){ .time = r->time, .cpu = (uint16_t)r->cpu,
					       .kind = kind, .value = value };
	p->st.pstates++;
	return 0;
}

static int put_rq(struct te_pairer *p, const struct eqp_devreq *q)
{
	if (EQ_GROW(p->rq, p->caprq, p->nrq + 1, 64) < 0)
		return -1;
	p->rq[p->nrq++] = *q;
	p->st.devreqs++;
	return 0;
}

/* Orphan completions wait this many for their issue (a ring read before
 * the issue was written); the oldest go beyond that. */
#define TE_MAX_ORPHANS 4096

/* A block request issued: paired with its insert (the task that queued it)
 * and with a completion read first, else pending until it completes. */
static int rq_issue(struct te_pairer *p, const struct te_rec *r, struct eq_error *err)
{
	struct eqp_devreq q = { .issue = r->time, .complete = r->time, .pc = r->pc,
				.pid = r->pid, .tid = r->tid,
				.flags = r->write ? EQP_DREQ_F_WRITE : 0, .bytes = r->bytes };
	size_t i;
	int d;

	d = te_devtab_find(p->devs, 0, r->dev, NULL);
	if (d < 0) {
		p->st.unknown_dev++;
		return 0;
	}
	q.device = (uint16_t)d;
	/* queued through an I/O scheduler by another task: that one caused it */
	for (i = 0; i < p->nins; i++)
		if (p->ins[i].dev == r->dev && p->ins[i].sector == r->sector) {
			q.pid = p->ins[i].r.pid;
			q.tid = p->ins[i].r.tid;
			q.pc = p->ins[i].r.pc;
			p->st.from_insert++;
			p->ins[i] = p->ins[--p->nins];
			break;
		}
	/* its completion may have been read first (another CPU's ring) */
	for (i = 0; i < p->norph; i++)
		if (p->orph[i].dev == r->dev && p->orph[i].sector == r->sector &&
		    p->orph[i].r.complete >= r->time) {
			q.complete = p->orph[i].r.complete;
			p->orph[i] = p->orph[--p->norph];
			return put_rq(p, &q) < 0 ? eq_fail(err, "out of memory") : 0;
		}
	for (i = 0; i < p->npend; i++)
		if (p->pend[i].dev == r->dev && p->pend[i].sector == r->sector) {
			/* issued again (the driver was busy), maybe by a
			 * worker: the service starts now, the cause stays */
			p->st.requeued++;
			p->pend[i].r.issue = p->pend[i].r.complete = q.issue;
			return 0;
		}
	if (EQ_GROW(p->pend, p->cappend, p->npend + 1, 64) < 0)
		return eq_fail(err, "out of memory");
	p->pend[p->npend++] = (struct te_pend){ .dev = r->dev, .sector = r->sector, .r = q };
	return 0;
}

/* A block request completed: its pending issue is finished, else it waits
 * as an orphan for an issue read later. */
static int rq_complete(struct te_pairer *p, const struct te_rec *r, struct eq_error *err)
{
	size_t i;

	for (i = 0; i < p->npend; i++)
		if (p->pend[i].dev == r->dev && p->pend[i].sector == r->sector &&
		    p->pend[i].r.issue <= r->time) {
			struct eqp_devreq q = p->pend[i].r;

			q.complete = r->time;
			p->pend[i] = p->pend[--p->npend];
			return put_rq(p, &q) < 0 ? eq_fail(err, "out of memory") : 0;
		}
	if (te_devtab_find(p->devs, 0, r->dev, NULL) < 0)
		return 0;    /* counted at its issue */
	if (p->norph == TE_MAX_ORPHANS) {
		memmove(p->orph, p->orph + 1, (p->norph - 1) * sizeof(*p->orph));
		p->norph--;
		p->st.unissued++;
	}
	if (EQ_GROW(p->orph, p->caporph, p->norph + 1, 64) < 0)
		return eq_fail(err, "out of memory");
	p->orph[p->norph++] = (struct te_pend){ .dev = r->dev, .sector = r->sector,
						.r = { .issue = r->time, .complete = r->time } };
	return 0;
}

/* A block request queued through an I/O scheduler: its task is remembered
 * for the issue. */
static int rq_insert(struct te_pairer *p, const struct te_rec *r, struct eq_error *err)
{
	size_t i;

	if (te_devtab_find(p->devs, 0, r->dev, NULL) < 0)
		return 0;
	for (i = 0; i < p->nins; i++)
		if (p->ins[i].dev == r->dev && p->ins[i].sector == r->sector)
			break;
	if (i == p->nins) {
		if (p->nins == TE_MAX_ORPHANS) {   /* merged away, never issued */
			memmove(p->ins, p->ins + 1, (p->nins - 1) * sizeof(*p->ins));
			p->nins--;
		}
		if (EQ_GROW(p->ins, p->capins, p->nins + 1, 64) < 0)
			return eq_fail(err, "out of memory");
		i = p->nins++;
	}
	p->ins[i] = (struct te_pend){ .dev = r->dev, .sector = r->sector,
				      .r = { .pid = r->pid, .tid = r->tid, .pc = r->pc } };
	return 0;
}

int te_pairer_feed(struct te_pairer *p, const struct te_rec *r, struct eq_error *err)
{
	int d;

	if (r->kind >= TE_NKINDS)
		return 0;
	p->st.events[r->kind]++;
	switch (r->kind) {
	case TE_CPU_FREQ:
		if (put_ps(p, r, EQP_PS_FREQ, r->state) < 0)
			goto oom;
		return 0;
	case TE_CPU_IDLE:
		if (put_ps(p, r, EQP_PS_IDLE, r->state == PWR_EVENT_EXIT ? 0 : r->state) < 0)
			goto oom;
		return 0;
	case TE_RQ_ISSUE:
		return rq_issue(p, r, err);
	case TE_RQ_COMPLETE:
		return rq_complete(p, r, err);
	case TE_RQ_INSERT:
		return rq_insert(p, r, err);
	case TE_NET_XMIT: {
		struct eqp_devreq q = { .issue = r->time, .complete = r->time, .pc = r->pc,
					.pid = r->pid, .tid = r->tid, .flags = EQP_DREQ_F_WRITE,
					.bytes = r->bytes };

		if (r->rc != 0) {
			p->st.net_refused++;
			return 0;
		}
		d = te_devtab_find(p->devs, 1, 0, r->name);
		if (d < 0) {
			p->st.unknown_dev++;
			return 0;
		}
		q.device = (uint16_t)d;
		return put_rq(p, &q) < 0 ? eq_fail(err, "out of memory") : 0;
	}
	case TE_NKINDS:
		break;
	}
	return 0;
oom:
	return eq_fail(err, "out of memory");
}

void te_pairer_finish(struct te_pairer *p)
{
	p->st.in_flight += p->npend;
	p->st.unissued += p->norph;
	p->npend = p->norph = p->nins = 0;
}

void te_pairer_free(struct te_pairer *p)
{
	free(p->ps);
	free(p->rq);
	free(p->pend);
	free(p->orph);
	free(p->ins);
	memset(p, 0, sizeof(*p));
}

/* ---- ordering ----------------------------------------------------------- */

int te_order_push(struct te_order *o, const struct te_rec *r)
{
	if (EQ_GROW(o->r, o->cap, o->n + 1, 64) < 0)
		return -1;
	o->r[o->n++] = *r;
	return 0;
}

static int causal_rank(enum te_kind k)
{
	return k == TE_RQ_INSERT ? 0 : k == TE_RQ_ISSUE ? 1 : k == TE_RQ_COMPLETE ? 3 : 2;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct te_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return causal_rank(x->kind) - causal_rank(y->kind);
}

int te_order_flush(struct te_order *o, struct te_pairer *p, uint64_t upto, struct eq_error *err)
{
	size_t i;

	if (o->n)
		qsort(o->r, o->n, sizeof(*o->r), cmp_rec);
	for (i = 0; i < o->n && o->r[i].time < upto; i++)
		if (te_pairer_feed(p, &o->r[i], err) < 0)
			return -1;
	if (i && i < o->n)
		memmove(o->r, o->r + i, (o->n - i) * sizeof(*o->r));
	o->n -= i;
	return 0;
}

void te_order_free(struct te_order *o)
{
	free(o->r);
	memset(o, 0, sizeof(*o));
}
