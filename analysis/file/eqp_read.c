/*
 * eqp_read.c - reading .eqp recordings; see eqp.h and docs/format.md.
 *
 * The whole file is mapped read-only and walked chunk by chunk.  Every length
 * is checked against what is left of the file before it is used, and every
 * chunk's CRC is verified, so a corrupt file is refused with the chunk number,
 * type and byte offset, and nothing past the end of the map is ever touched.
 * A chunk that runs past the end of the file (or a missing END chunk) means
 * the recording was cut short: everything before it is kept and a warning
 * says what happened.  Metadata is copied out; samples stay in the map.
 */
#include "file/eqp.h"
#include "file/eqp_format.h"
#include "file/eqp_read_priv.h"
#include "file/crc32c.h"
#include "file/infile.h"
#include "util/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the walk is, for error messages. */
#ifndef EQP_FUZZING
#define EQP_FUZZING 0
#endif

struct cursor {
	struct eqp_file *f;
	size_t index;      /* chunk number, from 0 */
	size_t off;        /* byte offset of the chunk header */
	uint32_t type;
	const unsigned char *p; /* payload */
	uint64_t len;
};


#define PUSH(vec, val, c, err) \
	(EQ_GROW((vec).v, (vec).cap, (vec).n + 1, 16) < 0 \
		 ? chunk_fail(c, err, "out of memory") \
		 : ((vec).v[(vec).n++] = (val), 0))

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static double getf64(const unsigned char *p)
{
	double v;

	memcpy(&v, p, 8);
	return v;
}

static void type_name(uint32_t type, char out[5])
{
	int i;

	for (i = 0; i < 4; i++) {
		char c = (char)(type >> (8 * i));

		out[i] = (c >= 32 && c < 127) ? c : '?';
	}
	out[4] = '\0';
}

static int chunk_fail(const struct cursor *c, struct eq_error *err,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int chunk_fail(const struct cursor *c, struct eq_error *err,
		      const char *fmt, ...)
{
	char what[512], tn[5];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	type_name(c->type, tn);
	return eq_fail(err, "%s: chunk %zu (%s) at byte offset %zu: %s; the file is corrupt",
		       c->f->path, c->index, tn, c->off, what);
}

/* A chunk whose stored checksum is not the one its bytes give. */
static int crc_fail(const struct cursor *c, uint32_t stored, uint32_t computed,
		    struct eq_error *err)
{
	return chunk_fail(c, err, "checksum mismatch (stored %08x, computed %08x)", stored, computed);
}

/* A string inside the payload: copied out NUL-terminated. */
static char *take_string(const struct cursor *c, uint64_t at, uint64_t len,
			 const char *field, struct eq_error *err)
{
	char *s;

	if (len > EQP_MAX_STRING || at > c->len || len > c->len - at) {
		chunk_fail(c, err, "%s of %llu bytes at payload offset %llu runs past the chunk's %llu bytes",
			   field, (unsigned long long)len, (unsigned long long)at,
			   (unsigned long long)c->len);
		return NULL;
	}
	s = malloc(len + 1);
	if (!s) {
		chunk_fail(c, err, "out of memory for %s", field);
		return NULL;
	}
	memcpy(s, c->p + at, len);
	s[len] = '\0';
	return s;
}

/* v is a number, not infinite, and at least min (NaN fails every test). */
static int finite_at_least(double v, double min)
{
	return isfinite(v) && v >= min;
}

static int need(const struct cursor *c, uint64_t n, struct eq_error *err)
{
	if (c->len < n)
		return chunk_fail(c, err, "payload is %llu bytes, at least %llu expected",
				  (unsigned long long)c->len, (unsigned long long)n);
	return 0;
}

static int parse_head(struct cursor *c, struct eq_error *err)
{
	struct eqp_file *f = c->f;
	uint32_t tlen, xlen;

	if (need(c, EQP_HEAD_FIXED_LEN + 8, err) < 0)
		return -1;
	f->meta.mode = (enum eqp_mode)get32(c->p);
	if (f->meta.mode != EQP_MODE_ENERGY && f->meta.mode != EQP_MODE_TIME)
		return chunk_fail(c, err, "mode %u is neither 1 (energy) nor 2 (time)",
				  (unsigned)f->meta.mode);
	f->meta.quantum_j = getf64(c->p + 8);
	f->meta.nominal_hz = getf64(c->p + 16);
	f->meta.clock_hz = getf64(c->p + 24);
	f->meta.start_unix_ns = (int64_t)get64(c->p + 32);
	if (!finite_at_least(f->meta.quantum_j, 0) || f->meta.quantum_j > EQP_MAX_QUANTUM_J)
		return chunk_fail(c, err, "quantum %g J is not a number from 0 (unknown) to %g J",
				  f->meta.quantum_j, EQP_MAX_QUANTUM_J);
	if (!finite_at_least(f->meta.nominal_hz, 0))
		return chunk_fail(c, err, "sampling rate %g Hz is not a finite number >= 0 (0: unknown)",
				  f->meta.nominal_hz);
	/* Times are ticks / clock: a clock so slow that 2^64 ticks are not a
	 * finite number of seconds makes every analysis meaningless. */
	if (!finite_at_least(f->meta.clock_hz, 0) || !isfinite(18446744073709551615.0 / f->meta.clock_hz) ||
	    f->meta.clock_hz > EQP_MAX_CLOCK_HZ)
		return chunk_fail(c, err, "target clock %g Hz is not a number > 0 "
				  "(> 1e-289, so that any time in ticks is a finite number of seconds) "
				  "and at most %g Hz", f->meta.clock_hz, EQP_MAX_CLOCK_HZ);
	tlen = get32(c->p + EQP_HEAD_FIXED_LEN);
	f->target = take_string(c, EQP_HEAD_FIXED_LEN + 4, tlen, "target", err);
	if (!f->target)
		return -1;
	if (need(c, EQP_HEAD_FIXED_LEN + 8ull + tlen, err) < 0)
		return -1;
	xlen = get32(c->p + EQP_HEAD_FIXED_LEN + 4 + tlen);
	f->extra = take_string(c, EQP_HEAD_FIXED_LEN + 8ull + tlen, xlen, "extra", err);
	if (!f->extra)
		return -1;
	f->extra_len = xlen;
	f->extra_lines = malloc(xlen + 1);
	if (!f->extra_lines)
		return chunk_fail(c, err, "out of memory");
	memcpy(f->extra_lines, f->extra, xlen + 1);
	for (char *nl = f->extra_lines; (nl = strchr(nl, '\n')); nl++)
		*nl = '\0';
	f->meta.target = f->target;
	f->meta.extra = f->extra;
	return 0;
}

static int parse_samp(struct cursor *c, struct eq_error *err)
{
	struct sample_chunk sc;
	uint64_t count;

	if (need(c, EQP_SAMP_HDR_LEN, err) < 0)
		return -1;
	count = get32(c->p);
	if (c->len != EQP_SAMP_HDR_LEN + count * sizeof(struct eq_sample))
		return chunk_fail(c, err, "%llu samples need %llu bytes but the payload has %llu",
				  (unsigned long long)count,
				  (unsigned long long)(EQP_SAMP_HDR_LEN + count * sizeof(struct eq_sample)),
				  (unsigned long long)c->len);
	sc = (struct sample_chunk){ .s = (const struct eq_sample *)(const void *)(c->p + EQP_SAMP_HDR_LEN),
				    .n = count, .index = c->index, .off = c->off,
				    .crc_state = CRC_GOOD };
	c->f->nsamples += count;
	c->f->last_samp_chunk = c->index + 1;
	return PUSH(c->f->samp, sc, c, err);
}

/* CHNS: the call chains of the samples of the SAMP chunk just before it.
 * Its head: it follows a SAMP chunk and has as many chains as that one
 * has samples.  The chunk's sample chunk into *out. */
static int chns_head(struct cursor *c, struct sample_chunk **out, struct eq_error *err)
{
	struct sample_chunk *sc;
	uint64_t count;

	if (need(c, EQP_CHNS_HDR_LEN, err) < 0)
		return -1;
	if (!c->f->samp.n || c->f->last_samp_chunk != c->index)
		return chunk_fail(c, err, "call chains that follow no sample chunk");
	sc = &c->f->samp.v[c->f->samp.n - 1];
	count = get32(c->p);
	if (count != sc->n)
		return chunk_fail(c, err, "%llu call chains for a chunk of %zu samples",
				  (unsigned long long)count, sc->n);
	*out = sc;
	return 0;
}

/* The places of sc's chains in c's payload from chain *i at payload
 * offset *off on, into v, up to the first whose head does not lie below
 * upto (upto: the payload's length, all of them): 0, or -1 when one does
 * not fit the chunk. */
static int chns_walk(const struct cursor *c, const struct sample_chunk *sc, uint32_t *v,
		     size_t *i, uint64_t *off, uint64_t upto, struct eq_error *err)
{
	for (; *i < sc->n && (upto == c->len || *off + EQP_CHAIN_HDR_LEN <= upto); ++*i) {
		uint64_t nk, nu, o = *off;

		if (c->len - o < EQP_CHAIN_HDR_LEN)
			return chunk_fail(c, err, "call chain %zu runs past the end of the chunk", *i);
		nk = (uint64_t)c->p[o] | (uint64_t)c->p[o + 1] << 8;
		nu = (uint64_t)c->p[o + 2] | (uint64_t)c->p[o + 3] << 8;
		if (nk > EQP_MAX_CHAIN || nu > EQP_MAX_CHAIN ||
		    (nk + nu) * 8 > c->len - o - EQP_CHAIN_HDR_LEN)
			return chunk_fail(c, err, "call chain %zu of %llu+%llu frames does not fit the chunk",
					  *i, (unsigned long long)nk, (unsigned long long)nu);
		v[*i] = (uint32_t)o;
		*off = o + EQP_CHAIN_HDR_LEN + (nk + nu) * 8;
	}
	if (upto == c->len && *off != c->len)
		return chunk_fail(c, err, "%llu bytes after the last call chain",
				  (unsigned long long)(c->len - *off));
	return 0;
}

/* Bytes of a CHNS payload checksummed at a time, each piece's chains then
 * found while it is in the first-level cache. */
#define CHNS_PIECE ((size_t)16 << 10)

/*
 * Where each of sc's chains starts in c's payload, into a new *idx (the
 * caller frees it): 0, or -1 when one does not fit the chunk.  With crc
 * (not NULL): the chunk's checksum (its header's and payload's) into *crc
 * as well, in the same pass: the walk from one chain's head to the next
 * waits on each, so each piece is checksummed and then walked while in the
 * first-level cache, not after the whole 1 MiB (over the issue's 726,916
 * samples with call chains: report --by proc --no-children 0.93x,
 * --children 0.95x, export --format folded 0.97x).  The caller compares
 * *crc first: the walk's verdict is the file's only when the checksum is
 * right, and its first damage is the one a walk after the checksum finds.
 */
static int chns_index(const struct cursor *c, const struct sample_chunk *sc, uint32_t **idx,
		      uint32_t *crc, struct eq_error *err)
{
	uint64_t off = EQP_CHNS_HDR_LEN, at = 0, step;
	uint32_t *v = malloc((sc->n ? sc->n : 1) * sizeof(*v));
	struct eq_error first;
	size_t i = 0;
	int bad = 0;

	*idx = NULL;
	if (crc) {
		*crc = eq_crc32c(0, c->p - EQP_CHUNK_HDR_LEN, EQP_CHUNK_HDR_LEN);
		for (; at < c->len; at += step) {
			step = c->len - at < CHNS_PIECE ? c->len - at : CHNS_PIECE;
			*crc = eq_crc32c(*crc, c->p + at, step);
			if (v && !bad && at + step < c->len)
				bad = chns_walk(c, sc, v, &i, &off, at + step, &first) < 0;
		}
	}
	if (!v)
		return chunk_fail(c, err, "out of memory for %zu call chains", sc->n);
	if (bad || chns_walk(c, sc, v, &i, &off, c->len, &first) < 0) {
		free(v);
		*err = first;
		return -1;
	}
	*idx = v;
	return 0;
}

/* chns_index with the chunk's checksum compared with stored first (as
 * eqp_open() checks any chunk): 0, or -1 with the first damage in err. */
static int chns_checked_index(const struct cursor *c, const struct sample_chunk *sc,
			      uint32_t stored, uint32_t **idx, struct eq_error *err)
{
	struct eq_error why;
	uint32_t crc;
	int bad = chns_index(c, sc, idx, &crc, &why) < 0;

	if (crc != stored && !EQP_FUZZING) {
		free(*idx);
		*idx = NULL;
		return crc_fail(c, stored, crc, err);
	}
	if (bad)
		*err = why;
	return bad ? -1 : 0;
}

/* The chunk's chains now theirs (indexed: idx, or NULL when deferred). */
static void chns_take(struct cursor *c, struct sample_chunk *sc, uint32_t *idx)
{
	sc->chain_off = idx;
	sc->chains = c->p;
	sc->chns_index = c->index;
	sc->chns_off = c->off;
	sc->chns_len = c->len;
	sc->chns_state = idx ? CRC_GOOD : CRC_UNCHECKED;
	if (!idx)
		sc->chns_crc = get32(c->p + c->len);
	c->f->has_chains = 1;
	c->f->last_chns_chunk = c->index + 1;
}

static int parse_chns(struct cursor *c, struct eq_error *err)
{
	struct sample_chunk *sc;
	uint32_t *idx;

	if (chns_head(c, &sc, err) < 0 || chns_index(c, sc, &idx, NULL, err) < 0)
		return -1;
	chns_take(c, sc, idx);
	return 0;
}

/*
 * A CHNS chunk whose head is right (chns_head), opened: 1, or -1 when it is
 * damaged (as the generic path would say it: its checksum first); 0 for
 * any other chunk, which the generic path opens (its checksum, then its
 * parser).  Its checksum and the places of its chains are found in one
 * pass (chns_index); or, from eqp_open_lazy(), when its chains are first
 * asked for (eqp_sample_callchain) or by eqp_verify: a report that reads
 * no chain reads them once, where eqp_verify checks them, and one that
 * reads them checks each chunk just before it reads its chains, while its
 * bytes are in the cache for that pass (issue 30: --children).
 */
static int chns_open(struct cursor *c, struct eq_error *err)
{
	struct sample_chunk *sc;
	struct eq_error why;
	uint32_t *idx;

	if (c->type != EQP_CHUNK_CHNS || chns_head(c, &sc, &why) < 0)
		return 0;
	if (c->f->lazy) {
		chns_take(c, sc, NULL);
		return 1;
	}
	if (chns_checked_index(c, sc, get32(c->p + c->len), &idx, err) < 0)
		return -1;
	chns_take(c, sc, idx);
	return 1;
}

/* USTK: the user stack copies of the samples of the SAMP chunk before it
 * (right after it, or after its CHNS). */
static int parse_ustk(struct cursor *c, struct eq_error *err)
{
	struct sample_chunk *sc;
	uint64_t count, mask, off = EQP_USTK_HDR_LEN, nregs;
	size_t i;

	if (need(c, EQP_USTK_HDR_LEN, err) < 0)
		return -1;
	if (!c->f->samp.n || (c->f->last_samp_chunk != c->index &&
			      !(c->f->last_samp_chunk + 1 == c->index &&
				c->f->last_chns_chunk == c->index)))
		return chunk_fail(c, err, "stack copies that follow no sample chunk");
	sc = &c->f->samp.v[c->f->samp.n - 1];
	if (sc->ustk)
		return chunk_fail(c, err, "a second USTK chunk for one sample chunk");
	count = get32(c->p);
	mask = get64(c->p + 8);
	nregs = (uint64_t)__builtin_popcountll(mask);
	if (count != sc->n)
		return chunk_fail(c, err, "%llu stack copies for a chunk of %zu samples",
				  (unsigned long long)count, sc->n);
	sc->ustk_off = malloc((sc->n ? sc->n : 1) * sizeof(*sc->ustk_off));
	if (!sc->ustk_off)
		return chunk_fail(c, err, "out of memory for %zu stack copies", sc->n);
	for (i = 0; i < sc->n; i++) {
		uint64_t abi, size, len;

		if (c->len - off < EQP_USTK_ENT_LEN)
			return chunk_fail(c, err, "stack copy %zu runs past the end of the chunk", i);
		abi = get32(c->p + off);
		size = get32(c->p + off + 4);
		if (abi > 2)
			return chunk_fail(c, err, "stack copy %zu: register ABI %llu is not 0, 1 or 2",
					  i, (unsigned long long)abi);
		if (size > EQP_MAX_USTACK || (!abi && size))
			return chunk_fail(c, err, "stack copy %zu of %llu bytes (at most %u, none without registers)",
					  i, (unsigned long long)size, EQP_MAX_USTACK);
		len = EQP_USTK_ENT_LEN + (abi ? nregs * 8 : 0) + (size + 7) / 8 * 8;
		if (len > c->len - off)
			return chunk_fail(c, err, "stack copy %zu of %llu bytes does not fit the chunk",
					  i, (unsigned long long)size);
		sc->ustk_off[i] = (uint32_t)off;
		off += len;
	}
	if (off != c->len)
		return chunk_fail(c, err, "%llu bytes after the last stack copy",
				  (unsigned long long)(c->len - off));
	sc->ustk = c->p;
	c->f->has_ustacks = 1;
	return 0;
}

/* MAPS, COMM and MARK: u32 pid, u32 tid (COMM; else reserved), u64 time, text. */
static char *parse_text(struct cursor *c, uint32_t *pid, uint32_t *tid, uint64_t *time,
			struct eq_error *err)
{
	if (need(c, 16, err) < 0)
		return NULL;
	*pid = get32(c->p);
	*tid = get32(c->p + 4);
	*time = get64(c->p + 8);
	return take_string(c, 16, c->len - 16, "text", err);
}

static int parse_maps(struct cursor *c, struct eq_error *err)
{
	struct eqp_maps m;
	uint32_t reserved;
	char *text = parse_text(c, &m.pid, &reserved, &m.time, err);

	if (!text)
		return -1;
	m.text = text;
	m.len = c->len - 16;
	if (PUSH(c->f->maps, m, c, err) < 0) {
		free(text);
		return -1;
	}
	return 0;
}

static int parse_comm(struct cursor *c, struct eq_error *err)
{
	struct eqp_comm m;
	char *name = parse_text(c, &m.pid, &m.tid, &m.time, err);

	if (!name)
		return -1;
	m.name = name;
	if (PUSH(c->f->comm, m, c, err) < 0) {
		free(name);
		return -1;
	}
	return 0;
}

static int parse_mark(struct cursor *c, struct eq_error *err)
{
	struct eqp_marker m;
	uint32_t unused, reserved;
	char *label = parse_text(c, &unused, &reserved, &m.time, err);

	if (!label)
		return -1;
	m.label = label;
	if (PUSH(c->f->mark, m, c, err) < 0) {
		free(label);
		return -1;
	}
	return 0;
}

/* BIDS: u32 path length P, u32 build-id length H, path, build-id (hex). */
static int parse_bids(struct cursor *c, struct eq_error *err)
{
	struct buildid b;
	uint32_t plen, hlen;

	if (need(c, 8, err) < 0)
		return -1;
	plen = get32(c->p);
	hlen = get32(c->p + 4);
	if (8ull + plen + hlen != c->len)
		return chunk_fail(c, err, "a path of %u and a build-id of %u bytes do not make %llu bytes",
				  plen, hlen, (unsigned long long)c->len);
	b.path = take_string(c, 8, plen, "path", err);
	if (!b.path)
		return -1;
	b.hex = take_string(c, 8ull + plen, hlen, "build-id", err);
	if (!b.hex || PUSH(c->f->bids, b, c, err) < 0) {
		free(b.path);
		free(b.hex);
		return -1;
	}
	return 0;
}

/* IMAG: u32 name length M, u32 reserved, u64 image length L, name, zeros
 * to a multiple of 8, image. */
static int parse_imag(struct cursor *c, struct eq_error *err)
{
	struct image im;
	uint64_t mlen, len, at;

	if (need(c, 16, err) < 0)
		return -1;
	mlen = get32(c->p);
	len = get64(c->p + 8);
	at = 16 + mlen + (8 - mlen % 8) % 8;
	if (mlen > 4096 || len > EQP_MAX_IMAGE || at + len != c->len)
		return chunk_fail(c, err, "a name of %llu and an image of %llu bytes do not make %llu bytes",
				  (unsigned long long)mlen, (unsigned long long)len,
				  (unsigned long long)c->len);
	im.module = take_string(c, 16, mlen, "module name", err);
	if (!im.module)
		return -1;
	im.data = c->p + at;
	im.len = (size_t)len;
	if (PUSH(c->f->imag, im, c, err) < 0) {
		free(im.module);
		return -1;
	}
	return 0;
}

static void free_symtab(struct eqp_symtab *t)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++)
		free((char *)t->syms[i].name);
	free((void *)t->syms);
	free((char *)t->module);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct eqp_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int parse_symt_entries(struct cursor *c, struct eqp_symtab *t,
			      uint32_t nsyms, uint64_t off, struct eq_error *err)
{
	struct eqp_symbol *syms;
	uint32_t i;

	/* Each entry takes at least 20 bytes: bound nsyms before allocating. */
	if (nsyms > (c->len - off) / 20)
		return chunk_fail(c, err, "%u symbols cannot fit in %llu bytes",
				  nsyms, (unsigned long long)(c->len - off));
	syms = calloc(nsyms ? nsyms : 1, sizeof(*syms));
	if (!syms)
		return chunk_fail(c, err, "out of memory for %u symbols", nsyms);
	t->syms = syms;
	for (i = 0; i < nsyms; i++) {
		if (need(c, off + 20, err) < 0)
			return -1;
		syms[i].addr = get64(c->p + off);
		syms[i].size = get64(c->p + off + 8);
		syms[i].name = take_string(c, off + 20, get32(c->p + off + 16),
					   "symbol name", err);
		if (!syms[i].name)
			return -1;
		t->nsyms = i + 1;
		off += 20 + get32(c->p + off + 16);
	}
	if (off != c->len)
		return chunk_fail(c, err, "%llu bytes left after the last symbol",
				  (unsigned long long)(c->len - off));
	qsort(syms, nsyms, sizeof(*syms), cmp_sym);
	return 0;
}

static int parse_symt(struct cursor *c, struct eq_error *err)
{
	struct eqp_symtab t = { 0 };
	uint32_t mlen;

	if (need(c, 12, err) < 0)
		return -1;
	t.absolute = get32(c->p) != 0;
	mlen = get32(c->p + 8);
	t.module = take_string(c, 12, mlen, "module name", err);
	if (!t.module || parse_symt_entries(c, &t, get32(c->p + 4), 12ull + mlen, err) < 0 ||
	    PUSH(c->f->symt, t, c, err) < 0) {
		free_symtab(&t);
		return -1;
	}
	return 0;
}

static int parse_lost(struct cursor *c, struct eq_error *err)
{
	struct eqp_lost l;

	if (c->len != 16)
		return chunk_fail(c, err, "payload is %llu bytes, 16 expected",
				  (unsigned long long)c->len);
	l.source = get32(c->p);
	l.count = get64(c->p + 8);
	return PUSH(c->f->lost, l, c, err);
}

/* The segment the next board records belong to (the last BINF's), if any. */
static struct eqp_board_segment *last_segment(struct eqp_file *f)
{
	return f->bseg.n ? &f->bseg.v[f->bseg.n - 1] : NULL;
}

static int parse_binf(struct cursor *c, struct eq_error *err)
{
	struct eqp_file *f = c->f;
	struct eqp_board_segment seg, *prev = last_segment(f);
	uint64_t flen, tail;
	char *fw;

	if (need(c, 32, err) < 0)
		return -1;
	memset(&seg, 0, sizeof(seg));
	fw = take_string(c, 32, get32(c->p + 28), "firmware", err);
	if (!fw)
		return -1;
	seg.info.clock_hz = getf64(c->p);
	seg.info.e_min_j = getf64(c->p + 8);
	seg.info.quantum_pulses = get32(c->p + 16);
	seg.info.jitter_pct = get32(c->p + 20);
	seg.info.vcomp = get32(c->p + 24);
	seg.info.firmware = fw;
	/* Optional fields follow the text: voltage and dead time, then the
	 * segment; a shorter chunk leaves them 0. */
	flen = get32(c->p + 28);
	tail = c->len - 32 - flen;
	if (tail >= 16) {
		seg.info.vb_nominal_v = getf64(c->p + 32 + flen);
		seg.info.dead_time_s = getf64(c->p + 40 + flen);
	}
	if (tail >= 32) {
		seg.info.segment = get32(c->p + 48 + flen);
		seg.info.boot_cause = get32(c->p + 52 + flen);
		seg.info.time_offset = get64(c->p + 56 + flen);
	}
	/*
	 * Beyond being finite, the bounds keep every energy and power a
	 * reader derives finite: a record's energy is pulses (< 2^32) x E_min
	 * x its voltage (< 4295 V) / the nominal voltage, over at least one
	 * tick.  No board ticks faster than 1 THz, counts pulses worth more
	 * than 1 J or refers them to a battery below 1 mV or above 1 kV (the
	 * fuzz target found a nominal voltage of 5e-310 V: infinite watts).
	 */
	if (!finite_at_least(seg.info.clock_hz, 0) ||
	    !isfinite(18446744073709551615.0 / seg.info.clock_hz) || seg.info.clock_hz > EQP_MAX_CLOCK_HZ ||
	    !finite_at_least(seg.info.e_min_j, 0) || seg.info.e_min_j > 1 ||
	    !finite_at_least(seg.info.vb_nominal_v, 0) ||
	    (seg.info.vb_nominal_v != 0 && (seg.info.vb_nominal_v < 1e-3 || seg.info.vb_nominal_v > 1e3)) ||
	    !finite_at_least(seg.info.dead_time_s, 0) || seg.info.dead_time_s > 1) {
		free(fw);
		return chunk_fail(c, err, "board clock %g Hz (must be > 0 and at most 1 THz), E_min %g J "
				  "(0 to 1 J), battery voltage %g V (0: unknown, else 1 mV to 1 kV) or dead "
				  "time %g s (0: unknown, at most 1 s) is out of range",
				  seg.info.clock_hz, seg.info.e_min_j, seg.info.vb_nominal_v,
				  seg.info.dead_time_s);
	}
	if (seg.info.segment != f->bseg.n) {
		free(fw);
		return chunk_fail(c, err, "board segment %u where segment %zu comes next",
				  seg.info.segment, f->bseg.n);
	}
	/* Records before the first BINF belong to the first segment. */
	seg.first_record = prev ? f->brec.n : 0;
	if (prev)
		prev->nrecords = f->brec.n - prev->first_record;
	seg.nrecords = f->brec.n - seg.first_record;
	if (PUSH(f->bseg, seg, c, err) < 0) {
		free(fw);
		return -1;
	}
	return 0;
}

static int parse_bend(struct cursor *c, struct eq_error *err)
{
	struct eqp_board_segment *seg = last_segment(c->f);
	struct eqp_board_end *e;
	uint64_t *counts[9];
	size_t i;

	if (need(c, EQP_BEND_LEN, err) < 0)
		return -1;
	if (!seg || get32(c->p) != seg->info.segment || seg->has_end)
		return chunk_fail(c, err, "the end of board segment %u, which is not the open one",
				  get32(c->p));
	e = &seg->end;
	e->segment = get32(c->p);
	e->reason = get32(c->p + 4);
	counts[0] = &e->records; counts[1] = &e->missing; counts[2] = &e->dropped;
	counts[3] = &e->bad_frames; counts[4] = &e->quanta; counts[5] = &e->late;
	counts[6] = &e->late_unrecorded; counts[7] = &e->board_rx_errors; counts[8] = &e->stalls;
	for (i = 0; i < 9; i++)
		*counts[i] = get64(c->p + 8 + 8 * i);
	e->stall_s = getf64(c->p + 80);
	if (!(e->stall_s >= 0) || e->stall_s > 1e12)
		return chunk_fail(c, err, "stall time is negative, infinite or not a number");
	seg->has_end = 1;
	return 0;
}

static int parse_brec(struct cursor *c, struct eq_error *err)
{
	uint64_t count, i;

	if (need(c, EQP_BREC_HDR_LEN, err) < 0)
		return -1;
	count = get32(c->p);
	if (c->len != EQP_BREC_HDR_LEN + count * EQP_BREC_LEN)
		return chunk_fail(c, err, "%llu board records need %llu bytes but the payload has %llu",
				  (unsigned long long)count,
				  (unsigned long long)(EQP_BREC_HDR_LEN + count * EQP_BREC_LEN),
				  (unsigned long long)c->len);
	for (i = 0; i < count; i++) {
		struct eqp_board_rec r;

		memcpy(&r, c->p + EQP_BREC_HDR_LEN + i * EQP_BREC_LEN, sizeof(r));
		if (PUSH(c->f->brec, r, c, err) < 0)
			return -1;
	}
	if (last_segment(c->f))
		last_segment(c->f)->nrecords += count;
	return 0;
}

/* PSTA: u32 count, u32 reserved, count x (u64 time, u16 cpu, u16 kind, u32 value). */
static int parse_psta(struct cursor *c, struct eq_error *err)
{
	uint64_t count, i;

	if (need(c, EQP_PSTA_HDR_LEN, err) < 0)
		return -1;
	count = get32(c->p);
	if (c->len != EQP_PSTA_HDR_LEN + count * EQP_PSTA_LEN)
		return chunk_fail(c, err, "%llu power-state events need %llu bytes but the payload has %llu",
				  (unsigned long long)count,
				  (unsigned long long)(EQP_PSTA_HDR_LEN + count * EQP_PSTA_LEN),
				  (unsigned long long)c->len);
	for (i = 0; i < count; i++) {
		const unsigned char *b = c->p + EQP_PSTA_HDR_LEN + i * EQP_PSTA_LEN;
		struct eqp_pstate ps;

		ps.time = get64(b);
		memcpy(&ps.cpu, b + 8, 2);
		memcpy(&ps.kind, b + 10, 2);
		ps.value = get32(b + 12);
		if (PUSH(c->f->psta, ps, c, err) < 0)
			return -1;
	}
	return 0;
}

/* DREQ: u32 count, u32 reserved, count x 40-byte requests (eqp.h). */
static int parse_dreq(struct cursor *c, struct eq_error *err)
{
	uint64_t count, i;

	if (need(c, EQP_DREQ_HDR_LEN, err) < 0)
		return -1;
	count = get32(c->p);
	if (c->len != EQP_DREQ_HDR_LEN + count * EQP_DREQ_LEN)
		return chunk_fail(c, err, "%llu device requests need %llu bytes but the payload has %llu",
				  (unsigned long long)count,
				  (unsigned long long)(EQP_DREQ_HDR_LEN + count * EQP_DREQ_LEN),
				  (unsigned long long)c->len);
	for (i = 0; i < count; i++) {
		const unsigned char *b = c->p + EQP_DREQ_HDR_LEN + i * EQP_DREQ_LEN;
		struct eqp_devreq r;

		r.issue = get64(b);
		r.complete = get64(b + 8);
		r.pc = get64(b + 16);
		r.pid = get32(b + 24);
		r.tid = get32(b + 28);
		memcpy(&r.device, b + 32, 2);
		memcpy(&r.flags, b + 34, 2);
		r.bytes = get32(b + 36);
		if (r.complete < r.issue)
			return chunk_fail(c, err, "device request %llu completes (%llu) before it is issued (%llu)",
					  (unsigned long long)i, (unsigned long long)r.complete,
					  (unsigned long long)r.issue);
		if (PUSH(c->f->dreq, r, c, err) < 0)
			return -1;
	}
	return 0;
}

static int parse_esrc(struct cursor *c, struct eq_error *err)
{
	struct eqp_edomain d;
	char *str[5] = { 0 };
	uint64_t at = EQP_ESRC_FIXED_LEN;
	size_t i;

	if (need(c, EQP_ESRC_FIXED_LEN, err) < 0)
		return -1;
	memset(&d, 0, sizeof(d));
	d.index = get32(c->p);
	d.type = get32(c->p + 4);
	d.range = getf64(c->p + 8);
	d.resolution = getf64(c->p + 16);
	d.update_s = getf64(c->p + 24);
	if (d.index != c->f->edom.n)
		return chunk_fail(c, err, "energy domain %u where domain %zu comes next",
				  d.index, c->f->edom.n);
	if (d.type < 1 || d.type > 3)
		return chunk_fail(c, err, "energy domain type %u (1 counter, 2 store, 3 power)", d.type);
	if (!finite_at_least(d.range, 0) || !finite_at_least(d.resolution, 0) ||
	    !finite_at_least(d.update_s, 0))
		return chunk_fail(c, err, "energy domain range %g J, resolution %g or update period %g s "
				  "is negative or not a finite number", d.range, d.resolution, d.update_s);
	for (i = 0; i < 5; i++) {
		uint64_t len = get32(c->p + 32 + 4 * i);

		str[i] = take_string(c, at, len, "energy domain text", err);
		if (!str[i])
			goto bad;
		at += len;
	}
	if (at != c->len) {
		chunk_fail(c, err, "%llu bytes left after the energy domain's texts",
			   (unsigned long long)(c->len - at));
		goto bad;
	}
	d.spec = str[0];
	d.name = str[1];
	d.kind = str[2];
	d.path = str[3];
	d.update_how = str[4];
	if (PUSH(c->f->edom, d, c, err) < 0)
		goto bad;
	return 0;
bad:
	for (i = 0; i < 5; i++)
		free(str[i]);
	return -1;
}

_Static_assert(sizeof(struct eqp_ereading) == EQP_ERDG_LEN, "ERDG records are stored as is");

static int parse_erdg(struct cursor *c, struct eq_error *err)
{
	uint64_t count, i;

	if (need(c, EQP_ERDG_HDR_LEN, err) < 0)
		return -1;
	count = get32(c->p);
	if (c->len != EQP_ERDG_HDR_LEN + count * EQP_ERDG_LEN)
		return chunk_fail(c, err, "%llu energy readings need %llu bytes but the payload has %llu",
				  (unsigned long long)count,
				  (unsigned long long)(EQP_ERDG_HDR_LEN + count * EQP_ERDG_LEN),
				  (unsigned long long)c->len);
	for (i = 0; i < count; i++) {
		struct eqp_ereading r;

		memcpy(&r, c->p + EQP_ERDG_HDR_LEN + i * EQP_ERDG_LEN, sizeof(r));
		if (r.domain >= c->f->edom.n)
			return chunk_fail(c, err, "energy reading %llu names domain %u; %zu domains came before it",
					  (unsigned long long)i, r.domain, c->f->edom.n);
		if (!isfinite(r.energy_j) || !isfinite(r.raw))
			return chunk_fail(c, err, "energy reading %llu is not a finite number",
					  (unsigned long long)i);
		if (PUSH(c->f->erdg, r, c, err) < 0)
			return -1;
	}
	return 0;
}

static int parse_end(struct cursor *c, struct eq_error *err)
{
	uint64_t n, chunks;

	if (c->len != 16)
		return chunk_fail(c, err, "payload is %llu bytes, 16 expected",
				  (unsigned long long)c->len);
	n = get64(c->p);
	chunks = get64(c->p + 8);
	if (n != c->f->nsamples)
		return chunk_fail(c, err, "END says %llu samples, the chunks hold %llu",
				  (unsigned long long)n, (unsigned long long)c->f->nsamples);
	if (chunks != c->index)
		return chunk_fail(c, err, "END says %llu chunks came before it, there were %zu",
				  (unsigned long long)chunks, c->index);
	c->f->has_end = 1;
	return 0;
}

static int parse_chunk(struct cursor *c, struct eq_error *err)
{
	if (c->index == 0 && c->type != EQP_CHUNK_HEAD)
		return chunk_fail(c, err, "the first chunk must be HEAD");
	switch (c->type) {
	case EQP_CHUNK_HEAD:
		if (c->index != 0)
			return chunk_fail(c, err, "HEAD may only be the first chunk");
		return parse_head(c, err);
	case EQP_CHUNK_SAMP: return parse_samp(c, err);
	case EQP_CHUNK_MAPS: return parse_maps(c, err);
	case EQP_CHUNK_COMM: return parse_comm(c, err);
	case EQP_CHUNK_SYMT: return parse_symt(c, err);
	case EQP_CHUNK_LOST: return parse_lost(c, err);
	case EQP_CHUNK_MARK: return parse_mark(c, err);
	case EQP_CHUNK_BINF: return parse_binf(c, err);
	case EQP_CHUNK_BREC: return parse_brec(c, err);
	case EQP_CHUNK_BIDS: return parse_bids(c, err);
	case EQP_CHUNK_IMAG: return parse_imag(c, err);
	case EQP_CHUNK_CHNS: return parse_chns(c, err);
	case EQP_CHUNK_USTK: return parse_ustk(c, err);
	case EQP_CHUNK_BEND: return parse_bend(c, err);
	case EQP_CHUNK_PSTA: return parse_psta(c, err);
	case EQP_CHUNK_DREQ: return parse_dreq(c, err);
	case EQP_CHUNK_ESRC: return parse_esrc(c, err);
	case EQP_CHUNK_ERDG: return parse_erdg(c, err);
	case EQP_CHUNK_END:  return parse_end(c, err);
	default:
		return 1; /* a newer writer's chunk: its CRC was checked, skip it */
	}
}

/* The most any writer puts in a chunk of this type (docs/format.md); 0 for
 * a type this reader does not know. */
static uint64_t max_len(uint32_t type)
{
	switch (type) {
	case EQP_CHUNK_HEAD: return EQP_HEAD_FIXED_LEN + 8 + 2ull * EQP_MAX_STRING;
	case EQP_CHUNK_SAMP:
		return EQP_SAMP_HDR_LEN + EQP_SAMPLES_PER_CHUNK * (uint64_t)sizeof(struct eq_sample);
	case EQP_CHUNK_BREC: return EQP_BREC_HDR_LEN + EQP_SAMPLES_PER_CHUNK * (uint64_t)EQP_BREC_LEN;
	case EQP_CHUNK_PSTA: return EQP_PSTA_HDR_LEN + EQP_SAMPLES_PER_CHUNK * (uint64_t)EQP_PSTA_LEN;
	case EQP_CHUNK_DREQ: return EQP_DREQ_HDR_LEN + EQP_SAMPLES_PER_CHUNK * (uint64_t)EQP_DREQ_LEN;
	case EQP_CHUNK_ERDG: return EQP_ERDG_HDR_LEN + EQP_SAMPLES_PER_CHUNK * (uint64_t)EQP_ERDG_LEN;
	case EQP_CHUNK_ESRC: return EQP_ESRC_FIXED_LEN + 5ull * 4096;
	case EQP_CHUNK_MAPS:
	case EQP_CHUNK_COMM:
	case EQP_CHUNK_MARK: return 16 + (uint64_t)EQP_MAX_STRING;
	case EQP_CHUNK_BIDS: return 8 + (uint64_t)EQP_MAX_STRING + 128;
	case EQP_CHUNK_IMAG: return 16 + 4096 + (uint64_t)EQP_MAX_IMAGE;
	case EQP_CHUNK_BINF: return 32 + (uint64_t)EQP_MAX_STRING + 16;
	case EQP_CHUNK_LOST:
	case EQP_CHUNK_END:  return 16;
	case EQP_CHUNK_CHNS:
		return EQP_CHNS_HDR_LEN + EQP_SAMPLES_PER_CHUNK *
		       (EQP_CHAIN_HDR_LEN + 2ull * EQP_MAX_CHAIN * 8);
	case EQP_CHUNK_USTK:
		return EQP_USTK_HDR_LEN + EQP_SAMPLES_PER_CHUNK *
		       (EQP_USTK_ENT_LEN + 8ull * EQP_MAX_USTACK_REGS + EQP_MAX_USTACK);
	case EQP_CHUNK_BEND: return 64 << 10;   /* 88 now; room for fields newer writers add */
	case EQP_CHUNK_SYMT: return EQP_MAX_CHUNK;
	default:             return 0;
	}
}

/* An intact chunk of a known type (length in bounds, CRC right) at off. */
static int intact_chunk_at(const struct eqp_file *f, size_t off)
{
	uint32_t type;
	uint64_t len, max;

	if (f->size - off < EQP_CHUNK_HDR_LEN + EQP_CHUNK_CRC_LEN)
		return 0;
	type = get32(f->base + off);
	len = get64(f->base + off + 8);
	max = max_len(type);
	if (!max || len > max || len > f->size - off - EQP_CHUNK_HDR_LEN - EQP_CHUNK_CRC_LEN)
		return 0;
	return EQP_FUZZING ||
	       eq_crc32c(0, f->base + off, EQP_CHUNK_HDR_LEN + len) ==
	       get32(f->base + off + EQP_CHUNK_HDR_LEN + len);
}

/* Byte offset of the first intact chunk at or after from, or 0. */
static size_t next_intact_chunk(const struct eqp_file *f, size_t from)
{
	size_t off = from + (EQP_ALIGN - from % EQP_ALIGN) % EQP_ALIGN;

	for (; off < f->size && f->size - off >= EQP_CHUNK_HDR_LEN + EQP_CHUNK_CRC_LEN;
	     off += EQP_ALIGN)
		if (intact_chunk_at(f, off))
			return off;
	return 0;
}

/* The recording was cut short at c: everything from c->off on is skipped. */
static void set_truncated(struct eqp_file *f, const struct cursor *c,
			  const char *why)
{
	size_t left = f->size - c->off;

	f->skipped.chunks++;
	f->skipped.bytes += left;
	f->skipped.truncated = 1;
	f->cut_off = c->off;
	f->cut_chunk = c->index;
	/* A partial sample chunk: its count says how many samples went with it. */
	if (c->type == EQP_CHUNK_SAMP && left >= EQP_CHUNK_HDR_LEN + 4 &&
	    get32(f->base + c->off + EQP_CHUNK_HDR_LEN) <= EQP_SAMPLES_PER_CHUNK)
		f->skipped.samples += get32(f->base + c->off + EQP_CHUNK_HDR_LEN);
	f->has_warning = 1;
	snprintf(f->warning, sizeof(f->warning),
		 "%s is truncated, an unfinished recording (no END chunk: its recorder was killed, is still running, or the copy was cut short): %s at byte offset %zu (chunk %zu); read the %zu complete chunks before it (%llu samples), skipped the %zu bytes after (%llu samples)",
		 f->path, why, c->off, c->index, c->index,
		 (unsigned long long)f->nsamples, left, (unsigned long long)f->skipped.samples);
}

static int check_file_header(struct eqp_file *f, struct eq_error *err)
{
	if (f->size < EQP_FILE_HDR_LEN || memcmp(f->base, EQP_MAGIC, EQP_MAGIC_LEN) != 0)
		return eq_fail(err, "%s: not an eqprof recording (bad magic at byte offset 0); make one with 'eqprof import', 'record' or 'sim'",
			       f->path);
	f->version = (unsigned)f->base[8] | (unsigned)f->base[9] << 8;
	if (f->version != EQP_VERSION_MAJOR)
		return eq_fail(err, "%s: format version %u, this eqprof reads version %u; use a matching eqprof",
			       f->path, f->version, EQP_VERSION_MAJOR);
	return 0;
}

/* Walks the chunks; returns -1 on corruption, 0 otherwise (truncation is a warning). */
static int walk(struct eqp_file *f, struct eq_error *err)
{
	struct cursor c = { .f = f, .off = EQP_FILE_HDR_LEN };
	uint64_t total;
	uint32_t crc;
	int rc, defer;

	for (; c.off < f->size && !f->has_end; c.index++) {
		size_t left = f->size - c.off;

		c.type = 0;
		if (left < EQP_CHUNK_HDR_LEN) {
			set_truncated(f, &c, "a partial chunk header");
			break;
		}
		c.type = get32(f->base + c.off);
		c.len = get64(f->base + c.off + 8);
		/* Lengths no writer makes are damage, wherever the chunk ends. */
		if (c.len > (max_len(c.type) ? max_len(c.type) : EQP_MAX_CHUNK))
			return chunk_fail(&c, err, "length %llu is more than any writer puts in such a chunk (%llu bytes at most)",
					  (unsigned long long)c.len,
					  (unsigned long long)(max_len(c.type) ? max_len(c.type) : EQP_MAX_CHUNK));
		if (c.len > left - EQP_CHUNK_HDR_LEN ||
		    left - EQP_CHUNK_HDR_LEN - c.len < EQP_CHUNK_CRC_LEN) {
			/* A recording cut short ends in its partial chunk; if an
			 * intact chunk follows, the length itself is damaged. */
			size_t next = next_intact_chunk(f, c.off + EQP_CHUNK_HDR_LEN);
			char tn[5];

			if (next) {
				type_name(get32(f->base + next), tn);
				return chunk_fail(&c, err, "its length of %llu bytes runs past the end of the file, yet an intact %s chunk starts at byte offset %zu: the length is damaged",
						  (unsigned long long)c.len, tn, next);
			}
			set_truncated(f, &c, "the last chunk runs past the end of the file");
			break;
		}
		c.p = f->base + c.off + EQP_CHUNK_HDR_LEN;
		/* eqp_open_lazy(): a sample chunk whose count fits its length is
		 * checked on first use (the rest of it is only numbers) */
		defer = f->lazy && c.type == EQP_CHUNK_SAMP && c.len >= EQP_SAMP_HDR_LEN &&
			c.len == EQP_SAMP_HDR_LEN + get32(c.p) * (uint64_t)sizeof(struct eq_sample);
		if ((rc = chns_open(&c, err)) != 0) {
			if (rc < 0)
				return -1;
			rc = 0;
		} else {
			crc = defer ? 0 : eq_crc32c(eq_crc32c(0, f->base + c.off, EQP_CHUNK_HDR_LEN),
						    c.p, c.len);
			/* The fuzz build skips the CRC so mutations reach the parsers behind it. */
			if (!defer && crc != get32(c.p + c.len) && !EQP_FUZZING)
				return crc_fail(&c, get32(c.p + c.len), crc, err);
			rc = parse_chunk(&c, err);
			if (rc < 0)
				return -1;
		}
		if (defer) {
			f->samp.v[f->samp.n - 1].crc = get32(c.p + c.len);
			f->samp.v[f->samp.n - 1].crc_state = CRC_UNCHECKED;
		}
		total = EQP_CHUNK_HDR_LEN + c.len + EQP_CHUNK_CRC_LEN;
		total += (EQP_ALIGN - total % EQP_ALIGN) % EQP_ALIGN;
		if (rc == 1) {                 /* a type this reader does not know */
			f->skipped.chunks++;
			f->skipped.bytes += total > left ? left : total;
		}
		c.off = total > f->size - c.off ? f->size : c.off + total;
	}
	if (f->has_end && c.off < f->size) {
		f->skipped.bytes += f->size - c.off;
		f->has_warning = 1;
		snprintf(f->warning, sizeof(f->warning),
			 "%s: %zu bytes after the END chunk (at byte offset %zu) ignored",
			 f->path, f->size - c.off, c.off);
	}
	if (!f->has_end)
		f->skipped.truncated = 1;
	if (c.index == 0)
		return eq_fail(err, "%s: no HEAD chunk at byte offset %d; the file is empty or cut short after its first bytes",
			       f->path, EQP_FILE_HDR_LEN);
	if (!f->has_end && !f->has_warning) {
		f->has_warning = 1;
		snprintf(f->warning, sizeof(f->warning),
			 "%s is an unfinished recording (no END chunk: its recorder was killed, is still running, or the copy was cut short); read %zu chunks (%llu samples)",
			 f->path, c.index, (unsigned long long)f->nsamples);
	}
	return 0;
}

int eqp_check_chunk(const struct eqp_file *f, struct sample_chunk *sc)
{
	int st = __atomic_load_n(&sc->crc_state, __ATOMIC_ACQUIRE);

	if (st == CRC_UNCHECKED) {
		const unsigned char *h = f->base + sc->off;
		uint32_t crc = eq_crc32c(eq_crc32c(0, h, EQP_CHUNK_HDR_LEN), h + EQP_CHUNK_HDR_LEN,
					 EQP_SAMP_HDR_LEN + sc->n * sizeof(struct eq_sample));

		st = crc == sc->crc || EQP_FUZZING ? CRC_GOOD : CRC_BAD;
		__atomic_store_n(&sc->crc_state, st, __ATOMIC_RELEASE);
	}
	return st == CRC_BAD ? -1 : 0;
}

/* The cursor of sc's CHNS chunk, for its messages. */
static struct cursor chns_cursor(const struct eqp_file *f, const struct sample_chunk *sc)
{
	return (struct cursor){ .f = (struct eqp_file *)f, .index = sc->chns_index,
				.off = sc->chns_off, .type = EQP_CHUNK_CHNS, .p = sc->chains,
				.len = sc->chns_len };
}

int eqp_check_chains(const struct eqp_file *f, struct sample_chunk *sc, struct eq_error *err)
{
	int st = __atomic_load_n(&sc->chns_state, __ATOMIC_ACQUIRE);
	struct eq_error ignore;
	struct cursor c;
	uint32_t *idx, *none = NULL;

	if (st == CRC_GOOD || !sc->chains)
		return 0;
	if (st == CRC_BAD && !err)
		return -1;
	/* (checked again for the message: the same bytes give the same one) */
	c = chns_cursor(f, sc);
	if (chns_checked_index(&c, sc, sc->chns_crc, &idx, err ? err : &ignore) < 0) {
		__atomic_store_n(&sc->chns_state, CRC_BAD, __ATOMIC_RELEASE);
		return -1;
	}
	/* another thread may have made the same index first: its stays */
	if (!__atomic_compare_exchange_n(&sc->chain_off, &none, idx, 0, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		free(idx);
	__atomic_store_n(&sc->chns_state, CRC_GOOD, __ATOMIC_RELEASE);
	return 0;
}

const struct eq_sample *eqp_sample_chunk_unchecked(const struct eqp_file *f, size_t i,
						   size_t *n, struct eqp_chunk_check *ck)
{
	const struct sample_chunk *sc;

	ck->on = 0;
	if (i >= f->samp.n) {
		*n = 0;
		return NULL;
	}
	sc = &f->samp.v[i];
	*n = sc->n;
	if (f->lazy && __atomic_load_n(&sc->crc_state, __ATOMIC_ACQUIRE) == CRC_UNCHECKED) {
		const unsigned char *h = f->base + sc->off;

		ck->on = 1;
		ck->crc = eq_crc32c(eq_crc32c(0, h, EQP_CHUNK_HDR_LEN), h + EQP_CHUNK_HDR_LEN,
				    EQP_SAMP_HDR_LEN);
	}
	return sc->s;
}

void eqp_chunk_check_feed(struct eqp_chunk_check *ck, const struct eq_sample *s, size_t n)
{
	if (ck->on)
		ck->crc = eq_crc32c(ck->crc, s, n * sizeof(*s));
}

void eqp_chunk_check_end(const struct eqp_file *f, size_t i, struct eqp_chunk_check *ck)
{
	struct sample_chunk *sc;

	if (!ck->on || i >= f->samp.n)
		return;
	sc = &f->samp.v[i];
	__atomic_store_n(&sc->crc_state, ck->crc == sc->crc || EQP_FUZZING ? CRC_GOOD : CRC_BAD,
			 __ATOMIC_RELEASE);
	ck->on = 0;
}

int eqp_verify(const struct eqp_file *f, struct eq_error *err)
{
	size_t i;

	for (i = 0; i < f->samp.n; i++) {
		struct sample_chunk *sc = &f->samp.v[i];

		if (eqp_check_chunk(f, sc) < 0) {
			const unsigned char *h = f->base + sc->off;
			struct cursor c = { .f = (struct eqp_file *)f, .index = sc->index,
					    .off = sc->off, .type = EQP_CHUNK_SAMP };

			return crc_fail(&c, sc->crc, eq_crc32c(eq_crc32c(0, h, EQP_CHUNK_HDR_LEN),
							      h + EQP_CHUNK_HDR_LEN,
							      EQP_SAMP_HDR_LEN +
								      sc->n * sizeof(struct eq_sample)),
					err);
		}
		/* its chains, which follow it in the file */
		if (eqp_check_chains(f, sc, err) < 0)
			return -1;
	}
	return 0;
}

static struct eqp_file *open_image(const void *buf, size_t len, const char *name,
				   int mapped, int lazy, struct eq_error *err)
{
	struct eqp_file *f = calloc(1, sizeof(*f));

	if (!f || !(f->path = strdup(name))) {
		free(f);
		eq_fail(err, "%s: out of memory", name);
		return NULL;
	}
	f->base = buf;
	f->size = len;
	f->mapped = mapped;
	f->lazy = lazy;
	if (check_file_header(f, err) < 0 || walk(f, err) < 0) {
		struct eq_error first;

		/* a sample chunk before the damage that eqp_open() would have
		 * refused first */
		if (lazy && eqp_verify(f, &first) < 0)
			*err = first;
		eqp_close(f);
		return NULL;
	}
	if (eqp_index_pids(f) < 0) {
		eq_fail(err, "%s: out of memory indexing %zu processes", name, f->maps.n + f->comm.n);
		eqp_close(f);
		return NULL;
	}
	return f;
}

struct eqp_file *eqp_open_mem(const void *buf, size_t len, const char *name,
			      struct eq_error *err)
{
	return open_image(buf, len, name, 0, 0, err);
}

static struct eqp_file *open_path(const char *path, int lazy, struct eq_error *err)
{
	struct stat st;
	void *map;
	int fd = eq_input_open(NULL, path, err);   /* regular files only, never blocks */

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		eq_fail(err, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (st.st_size == 0) {
		close(fd);
		eq_fail(err, "%s: empty file (0 bytes); not an eqprof recording", path);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		eq_fail(err, "cannot map %s: %s", path, strerror(errno));
		return NULL;
	}
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	return open_image(map, (size_t)st.st_size, path, 1, lazy, err);
}

struct eqp_file *eqp_open(const char *path, struct eq_error *err)
{
	return open_path(path, 0, err);
}

struct eqp_file *eqp_open_lazy(const char *path, struct eq_error *err)
{
	return open_path(path, 1, err);
}

void eqp_close(struct eqp_file *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->maps.n; i++)
		free((char *)f->maps.v[i].text);
	for (i = 0; i < f->comm.n; i++)
		free((char *)f->comm.v[i].name);
	for (i = 0; i < f->mark.n; i++)
		free((char *)f->mark.v[i].label);
	for (i = 0; i < f->symt.n; i++)
		free_symtab(&f->symt.v[i]);
	for (i = 0; i < f->bids.n; i++) {
		free(f->bids.v[i].path);
		free(f->bids.v[i].hex);
	}
	free(f->bids.v);
	for (i = 0; i < f->imag.n; i++)
		free(f->imag.v[i].module);
	free(f->imag.v);
	free(f->maps.v);
	free(f->comm.v);
	free(f->mark.v);
	free(f->psta.v);
	free(f->dreq.v);
	free(f->symt.v);
	for (i = 0; i < f->samp.n; i++) {
		free(f->samp.v[i].chain_off);
		free(f->samp.v[i].ustk_off);
	}
	free(f->samp.v);
	free(f->lost.v);
	free(f->brec.v);
	for (i = 0; i < f->bseg.n; i++)
		free((char *)f->bseg.v[i].info.firmware);
	free(f->bseg.v);
	for (i = 0; i < f->edom.n; i++) {
		free((char *)f->edom.v[i].spec);
		free((char *)f->edom.v[i].name);
		free((char *)f->edom.v[i].kind);
		free((char *)f->edom.v[i].path);
		free((char *)f->edom.v[i].update_how);
	}
	free(f->edom.v);
	free(f->erdg.v);
	free(f->pids);
	free(f->target);
	free(f->extra);
	free(f->extra_lines);
	if (f->mapped)
		munmap((void *)f->base, f->size);
	free(f->path);
	free(f);
}
