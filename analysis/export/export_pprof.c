/*
 * export_pprof.c - pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), encoded by hand and gzipped with zlib.
 *
 * Protocol buffers need little: varints, tags and length-delimited
 * submessages.  Repeated numbers (Sample.location_id, Sample.value) are
 * written unpacked, one tag each, which every protobuf parser accepts and
 * which `protoc --decode_raw` shows as plain numbers.
 *
 * Mapping: one Location per distinct (pid, pc) (with call chains, per
 * distinct frame: a caller's frame is its return address - 1, inside the
 * call), one Line in it (Function,
 * source line) or, in code inlined into it, one Line per inlined function,
 * innermost first, each at the line the next one called it from (what
 * pprof shows as inline frames); one Function per (procedure, file); one
 * Mapping per module and load address, with the module's build-id when the
 * recording has it.  One Sample per location, or with call chains (record
 * -g) one per distinct stack, its location_ids leaf first, then the
 * callers outwards (profile.proto's order).  Sample values: [samples,
 * energy in nJ] (time-driven: [samples, time in ns]); labels "pid" (num)
 * and "process" (string).
 */
#include "profile/callgraph.h"
#include "symbols/elfmod.h"
#include "export/export.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct pb {
	unsigned char *b;
	size_t len, cap;
	int oom;
};

static void pb_put(struct pb *p, const void *data, size_t n)
{
	if (p->oom)
		return;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		unsigned char *nb;

		while (cap < p->len + n)
			cap *= 2;
		nb = realloc(p->b, cap);
		if (!nb) {
			p->oom = 1;
			return;
		}
		p->b = nb;
		p->cap = cap;
	}
	memcpy(p->b + p->len, data, n);
	p->len += n;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	unsigned char buf[10];
	size_t n = 0;

	do {
		buf[n] = v & 0x7f;
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	pb_put(p, buf, n);
}

/* Field with a varint value (wire type 0). */
static void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
	pb_varint(p, (uint64_t)field << 3);
	pb_varint(p, v);
}

/* Length-delimited field (wire type 2): strings, bytes, submessages. */
static void pb_bytes(struct pb *p, unsigned field, const void *data, size_t n)
{
	pb_varint(p, (uint64_t)field << 3 | 2);
	pb_varint(p, n);
	pb_put(p, data, n);
}

static void pb_msg(struct pb *p, unsigned field, struct pb *sub)
{
	if (sub->oom)
		p->oom = 1;
	pb_bytes(p, field, sub->b, sub->len);
	sub->len = 0;
}

/* ---- string table ------------------------------------------------------- */

struct strtab {
	const char **s;        /* by index; s[0] = "" */
	size_t n, cap;
	size_t *hash;          /* open addressing: index + 1, 0 empty */
	size_t hcap;
	int oom;
};

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int strtab_rehash(struct strtab *t)
{
	size_t cap = t->hcap ? t->hcap * 2 : 1024, i, k;
	size_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (i = 0; i < t->n; i++) {
		for (k = str_hash(t->s[i]) & (cap - 1); h[k]; k = (k + 1) & (cap - 1))
			;
		h[k] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

/* Index of s in the table, adding it; 0 and t->oom when out of memory. */
static int64_t strtab_id(struct strtab *t, const char *s)
{
	size_t k;

	if (t->oom)
		return 0;
	if ((t->n + 1) * 2 > t->hcap && strtab_rehash(t) < 0) {
		t->oom = 1;
		return 0;
	}
	for (k = str_hash(s) & (t->hcap - 1); t->hash[k]; k = (k + 1) & (t->hcap - 1))
		if (!strcmp(t->s[t->hash[k] - 1], s))
			return (int64_t)t->hash[k] - 1;
	if (EQ_GROW(t->s, t->cap, t->n + 1, 256) < 0) {
		t->oom = 1;
		return 0;
	}
	t->s[t->n] = s;
	t->hash[k] = ++t->n;
	return (int64_t)t->n - 1;
}

/* ---- the profile ---------------------------------------------------------- */

struct ids {                   /* per loc_count entry */
	uint64_t mapping;
};

/* Functions by (name, file), both interned pointers; ids from 1. */
struct fun {
	const char *name, *file;
};

struct funtab {
	struct fun *v;             /* by id - 1 */
	size_t n, cap;
	size_t *slot;              /* id, 0 empty; open addressing */
	size_t mask;
	int oom;
};

static size_t fun_hash(const char *name, const char *file)
{
	return (size_t)((((uintptr_t)name * 0x9e3779b97f4a7c15ull) ^ (uintptr_t)file) >> 7);
}

static uint64_t fun_id(struct funtab *t, const char *name, const char *file)
{
	size_t j;

	if (t->oom)
		return 0;
	if (2 * (t->n + 1) > t->mask) {
		size_t mask = t->mask ? 2 * t->mask + 1 : 1023, i;
		size_t *slot = calloc(mask + 1, sizeof(*slot));

		if (!slot) {
			t->oom = 1;
			return 0;
		}
		for (i = 0; i < t->n; i++) {
			for (j = fun_hash(t->v[i].name, t->v[i].file) & mask; slot[j]; j = (j + 1) & mask)
				;
			slot[j] = i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->mask = mask;
	}
	for (j = fun_hash(name, file) & t->mask; t->slot[j]; j = (j + 1) & t->mask)
		if (t->v[t->slot[j] - 1].name == name && t->v[t->slot[j] - 1].file == file)
			return t->slot[j];
	if (EQ_GROW(t->v, t->cap, t->n + 1, 256) < 0) {
		t->oom = 1;
		return 0;
	}
	t->v[t->n] = (struct fun){ name, file };
	t->slot[j] = ++t->n;
	return t->n;
}

static uint64_t bias_of(const struct eq_loc *l)
{
	return l->pc - l->module_off;
}

/* Mapping ids.  Entries are sorted by module, so a module loaded at
 * several addresses (one per process) gets one mapping per address, found
 * in the short list of the current module's addresses. */
static int assign_ids(const struct loc_count *lc, size_t n, struct ids *id)
{
	uint64_t nmap = 0, *bias = NULL, *bias_id = NULL;
	size_t i, j, nb = 0, capb = 0, capi = 0;

	for (i = 0; i < n; i++) {
		const struct eq_loc *l = lc[i].loc, *prev = i ? lc[i - 1].loc : NULL;

		if (!prev || prev->module != l->module)
			nb = 0;
		for (j = 0; j < nb && bias[j] != bias_of(l); j++)
			;
		if (j == nb) {
			if (EQ_GROW(bias, capb, nb + 1, 8) < 0 || EQ_GROW(bias_id, capi, nb + 1, 8) < 0) {
				free(bias);
				free(bias_id);
				return -1;
			}
			bias[nb] = bias_of(l);
			bias_id[nb++] = ++nmap;
		}
		id[i].mapping = bias_id[j];
	}
	free(bias);
	free(bias_id);
	return 0;
}

static void put_value_type(struct pb *p, struct pb *sub, unsigned field,
			   int64_t type, int64_t unit)
{
	pb_uint(sub, 1, (uint64_t)type);
	pb_uint(sub, 2, (uint64_t)unit);
	pb_msg(p, field, sub);
}

static void put_sample(struct pb *p, struct pb *sub, struct pb *lab,
		       const struct loc_count *c, uint64_t loc_id, uint64_t unit,
		       struct strtab *st)
{
	pb_uint(sub, 1, loc_id);
	pb_uint(sub, 2, c->samples);
	pb_uint(sub, 2, c->samples * unit);
	pb_uint(lab, 1, (uint64_t)strtab_id(st, "pid"));
	pb_uint(lab, 3, c->loc->pid);
	pb_msg(sub, 3, lab);
	pb_uint(lab, 1, (uint64_t)strtab_id(st, "process"));
	pb_uint(lab, 2, (uint64_t)strtab_id(st, c->loc->exe ? c->loc->exe : "[unknown]"));
	pb_msg(sub, 3, lab);
	pb_msg(p, 2, sub);
}

/* loc pointer -> location id (index + 1 in the sorted loc_count array). */
struct loc_id {
	const struct eq_loc *loc;
	uint64_t id;
};

static int by_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct loc_id *)a)->loc;
	uintptr_t y = (uintptr_t)((const struct loc_id *)b)->loc;

	return (x > y) - (x < y);
}

static uint64_t id_of(const struct loc_id *v, size_t n, const struct eq_loc *l)
{
	struct loc_id key = { l, 0 };
	const struct loc_id *r = bsearch(&key, v, n, sizeof(*v), by_ptr);

	return r ? r->id : 0;
}

/* One sample per distinct stack: leaf first, then its callers. */
static void put_stack_sample(struct pb *p, struct pb *sub, struct pb *lab,
			     const struct eq_stack *sk, const struct loc_id *ids, size_t nids,
			     uint64_t unit, struct strtab *st)
{
	const struct eq_loc *leaf = sk->frames[0];
	size_t k;

	for (k = 0; k < sk->depth; k++)
		pb_uint(sub, 1, id_of(ids, nids, sk->frames[k]));
	pb_uint(sub, 2, sk->samples);
	pb_uint(sub, 2, sk->samples * unit);
	pb_uint(lab, 1, (uint64_t)strtab_id(st, "pid"));
	pb_uint(lab, 3, leaf->pid);
	pb_msg(sub, 3, lab);
	pb_uint(lab, 1, (uint64_t)strtab_id(st, "process"));
	pb_uint(lab, 2, (uint64_t)strtab_id(st, leaf->exe ? leaf->exe : "[unknown]"));
	pb_msg(sub, 3, lab);
	pb_msg(p, 2, sub);
}

#define MAX_INLINE 32

static void put_location(struct pb *p, struct pb *sub, struct pb *line,
			 const struct loc_count *c, uint64_t id, const struct ids *ids,
			 struct export_ctx *x, struct funtab *ft)
{
	const struct eq_loc *l = c->loc;
	struct eq_inline_frame in[MAX_INLINE];
	size_t n = eq_sym_inlines(x->sym, l, in, MAX_INLINE), k;

	pb_uint(sub, 1, id);
	pb_uint(sub, 2, ids->mapping);
	pb_uint(sub, 3, l->pc);
	if (n < 2) {
		pb_uint(line, 1, fun_id(ft, export_proc_name(l), l->file ? l->file : ""));
		pb_uint(line, 2, l->line);
		pb_msg(sub, 4, line);
	}
	/* innermost first, each frame at the line the next one called it from */
	for (k = 0; n >= 2 && k < n; k++) {
		const char *file = k ? in[k - 1].call_file : l->file;

		pb_uint(line, 1, fun_id(ft, in[k].name, file ? file : ""));
		pb_uint(line, 2, k ? in[k - 1].call_line : l->line);
		pb_msg(sub, 4, line);
	}
	pb_msg(p, 4, sub);
}

static void put_mappings(struct pb *p, struct pb *sub, const struct loc_count *lc,
			 size_t n, const struct ids *ids, struct strtab *st, const struct eqp_file *f)
{
	char key[4200];
	const char *bid;

	uint64_t next = 1;
	size_t i, j;

	for (i = 0; i < n; i++) {
		uint64_t limit = 0;

		if (ids[i].mapping != next)
			continue;
		next++;
		for (j = i; j < n; j++)
			if (ids[j].mapping == ids[i].mapping && lc[j].loc->pc + 1 > limit)
				limit = lc[j].loc->pc + 1;
		pb_uint(sub, 1, ids[i].mapping);
		pb_uint(sub, 2, bias_of(lc[i].loc));
		pb_uint(sub, 3, limit);
		pb_uint(sub, 4, 0);
		pb_uint(sub, 5, (uint64_t)strtab_id(st, lc[i].loc->module));
		snprintf(key, sizeof(key), "%s%s", EQ_BUILDID_KEY_PREFIX, lc[i].loc->module);
		if ((bid = eqp_meta_get(f, key)) != NULL)
			pb_uint(sub, 6, (uint64_t)strtab_id(st, bid));
		pb_uint(sub, 7, 1);    /* has_functions: do not symbolize again */
		pb_uint(sub, 8, 1);
		pb_uint(sub, 9, 1);
		pb_msg(p, 3, sub);
	}
}

static void put_functions(struct pb *p, struct pb *sub, const struct funtab *ft,
			  struct strtab *st)
{
	size_t i;

	for (i = 0; i < ft->n; i++) {
		int64_t name = strtab_id(st, ft->v[i].name);

		pb_uint(sub, 1, i + 1);
		pb_uint(sub, 2, (uint64_t)name);
		pb_uint(sub, 3, (uint64_t)name);
		pb_uint(sub, 4, (uint64_t)strtab_id(st, ft->v[i].file));
		pb_msg(p, 5, sub);
	}
}

static int gzip_out(FILE *out, const struct pb *p, struct eq_error *err)
{
	unsigned char buf[65536];
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer, as pprof expects. */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return eq_fail(err, "zlib: cannot start gzip compression");
	z.next_in = p->b;
	z.avail_in = (uInt)p->len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, Z_FINISH);
		fwrite(buf, 1, sizeof(buf) - z.avail_out, out);
	} while (rc == Z_OK);
	deflateEnd(&z);
	if (rc != Z_STREAM_END)
		return eq_fail(err, "zlib: gzip compression failed (%d)", rc);
	return ferror(out) ? eq_fail(err, "writing the pprof profile failed") : 0;
}

/* First to last sample, in file order (no time order needed). */
static double span_ns(const struct export_ctx *x)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t c, i;

	for (c = 0; c < x->in.nchunks; c++)
		for (i = 0; i < x->in.counts[c]; i++) {
			uint64_t t = x->in.chunks[c][i].time;

			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
	return lo <= hi ? (double)(hi - lo) / x->in.clock_hz * 1e9 : 0;
}

int export_pprof(FILE *out, struct export_ctx *x, struct eq_error *err)
{
	struct pb p = { 0 }, sub = { 0 }, sub2 = { 0 };
	struct strtab st = { 0 };
	struct funtab ft = { 0 };
	struct loc_count *lc;
	struct ids *ids;
	struct eq_stacks *stk = NULL;
	struct loc_id *byptr = NULL;
	uint64_t total;
	size_t i, n;
	int64_t unit_type;
	char line[200];
	int rc;

	if (eqp_has_callchains(x->f)) {
		stk = eq_stacks_build(x->f, x->sym, x->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0, err);
		if (!stk || export_stack_locs(stk, &lc, &n, err) < 0) {
			eq_stacks_free(stk);
			return -1;
		}
		byptr = malloc((n ? n : 1) * sizeof(*byptr));
		if (!byptr) {
			eq_stacks_free(stk);
			free(lc);
			return eq_fail(err, "out of memory");
		}
		for (i = 0; i < n; i++)
			byptr[i] = (struct loc_id){ lc[i].loc, i + 1 };
		qsort(byptr, n, sizeof(*byptr), by_ptr);
	} else if (export_count_locs(x, &lc, &n, &total, err) < 0) {
		return -1;
	}
	ids = calloc(n ? n : 1, sizeof(*ids));
	if (!ids || assign_ids(lc, n, ids) < 0) {
		free(ids);
		free(lc);
		free(byptr);
		eq_stacks_free(stk);
		return eq_fail(err, "out of memory");
	}
	strtab_id(&st, "");
	unit_type = strtab_id(&st, x->mode == EQP_MODE_ENERGY ? "energy" : "time");
	put_value_type(&p, &sub, 1, strtab_id(&st, "samples"), strtab_id(&st, "count"));
	put_value_type(&p, &sub, 1, unit_type, strtab_id(&st, x->unit_name));
	if (stk)
		for (i = 0; i < stk->nstacks; i++)
			put_stack_sample(&p, &sub, &sub2, &stk->stacks[i], byptr, n,
					 x->unit_per_sample, &st);
	else
		for (i = 0; i < n; i++)
			put_sample(&p, &sub, &sub2, &lc[i], i + 1, x->unit_per_sample, &st);
	put_mappings(&p, &sub, lc, n, ids, &st, x->f);
	for (i = 0; i < n; i++)
		put_location(&p, &sub, &sub2, &lc[i], i + 1, &ids[i], x, &ft);
	put_functions(&p, &sub, &ft, &st);
	pb_uint(&p, 9, (uint64_t)eqp_meta(x->f)->start_unix_ns);
	pb_uint(&p, 10, export_u64(span_ns(x)));
	put_value_type(&p, &sub, 11, unit_type, strtab_id(&st, x->unit_name));
	pb_uint(&p, 12, x->unit_per_sample);
	pb_uint(&p, 13, (uint64_t)strtab_id(&st, x->creator));
	if (x->in.skipped.chunks || x->in.skipped.bytes || x->in.skipped.truncated) {
		char sk[160];

		/* The string table keeps the pointer: line lives to the end. */
		snprintf(line, sizeof(line), "skipped (not in this profile): %s",
			 eqp_skipped_line(&x->in.skipped, sk, sizeof(sk)));
		pb_uint(&p, 13, (uint64_t)strtab_id(&st, line));
	}
	pb_uint(&p, 14, (uint64_t)unit_type);
	/* The string table last: every index above is now in it. */
	for (i = 0; i < st.n; i++)
		pb_bytes(&p, 6, st.s[i], strlen(st.s[i]));
	if (p.oom || sub.oom || sub2.oom || st.oom || ft.oom)
		rc = eq_fail(err, "out of memory encoding the pprof profile");
	else
		rc = gzip_out(out, &p, err);
	free(p.b);
	free(sub.b);
	free(sub2.b);
	free(st.s);
	free(st.hash);
	free(ft.v);
	free(ft.slot);
	free(ids);
	free(lc);
	free(byptr);
	eq_stacks_free(stk);
	return rc;
}
