/*
 * eqp_write.c - writing .eqp recordings; see eqp.h and docs/format.md.
 *
 * Samples are buffered and written EQP_SAMPLES_PER_CHUNK at a time (fewer
 * with stacks: EQP_W_STACK_BYTES), so a recording cut short by a crash
 * loses at most one buffer, and a reader can still use everything before it.  The file only gets its final name in
 * eqp_commit(), after the END chunk and an fsync.
 */
#include "file/eqp.h"
#include "file/eqp_format.h"
#include "file/outfile.h"
#include "file/crc32c.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct eqp_writer {
	struct eq_outfile out;
	unsigned flags;
	struct eq_sample *buf;
	size_t nbuf;
	unsigned char *chains;  /* CHNS entries of the samples in buf */
	size_t chains_len, chains_cap;
	int has_chains;
	unsigned char *ustk;    /* USTK entries of the samples in buf */
	size_t ustk_len, ustk_cap;
	int has_ustk;
	uint32_t ustk_arch;     /* of every stack this writer was given */
	uint64_t ustk_mask;
	uint64_t nsamples;
	uint64_t nchunks;
	int failed;
	char *iobuf;            /* the file's stdio buffer */
};

/*
 * Samples with stacks go out once their chains and stack copies reach
 * this many bytes, before EQP_SAMPLES_PER_CHUNK: 4096 stack copies of 8 KiB
 * would make one write of 32 MiB, during which a recorder drains no ring
 * (and loses samples); 1 MiB a time spreads the work evenly.
 */
#define EQP_W_STACK_BYTES (1u << 20)
#define EQP_W_BUFFER (1u << 20)

struct part {
	const void *p;
	size_t len;
};

static void put16(unsigned char *b, uint16_t v)
{
	memcpy(b, &v, 2);
}

static void put32(unsigned char *b, uint32_t v)
{
	memcpy(b, &v, 4); /* the format is little-endian, like every host we build for */
}

static void put64(unsigned char *b, uint64_t v)
{
	memcpy(b, &v, 8);
}

static int write_chunk(struct eqp_writer *w, uint32_t type,
		       const struct part *parts, size_t nparts,
		       struct eq_error *err)
{
	static const unsigned char zeros[EQP_ALIGN];
	unsigned char hdr[EQP_CHUNK_HDR_LEN], crcb[EQP_CHUNK_CRC_LEN];
	uint64_t len = 0;
	uint32_t crc;
	size_t i, pad;

	if (w->failed)
		return eq_fail(err, "%s: an earlier write failed", w->out.path);
	for (i = 0; i < nparts; i++)
		len += parts[i].len;
	put32(hdr, type);
	put32(hdr + 4, 0);
	put64(hdr + 8, len);
	crc = eq_crc32c(0, hdr, sizeof(hdr));
	fwrite(hdr, 1, sizeof(hdr), w->out.fp);
	for (i = 0; i < nparts; i++) {
		if (!parts[i].len)
			continue;
		crc = eq_crc32c(crc, parts[i].p, parts[i].len);
		fwrite(parts[i].p, 1, parts[i].len, w->out.fp);
	}
	put32(crcb, crc);
	fwrite(crcb, 1, sizeof(crcb), w->out.fp);
	pad = (EQP_ALIGN - (len + EQP_CHUNK_CRC_LEN) % EQP_ALIGN) % EQP_ALIGN;
	fwrite(zeros, 1, pad, w->out.fp);
	if (ferror(w->out.fp)) {
		w->failed = 1;
		return eq_fail(err, "writing %s: %s (disk full?)", w->out.tmp, strerror(errno));
	}
	w->nchunks++;
	/* A recording's chunks go to the kernel as they are made: a recorder
	 * killed at any moment leaves every chunk but the one in hand. */
	if ((w->flags & EQP_W_RECORDING) && type != EQP_CHUNK_SAMP && fflush(w->out.fp) != 0) {
		w->failed = 1;
		return eq_fail(err, "writing %s: %s (disk full?)", w->out.tmp, strerror(errno));
	}
	return 0;
}

static int write_head(struct eqp_writer *w, const struct eqp_meta *m,
		      struct eq_error *err)
{
	unsigned char fixed[EQP_HEAD_FIXED_LEN], tlen[4], xlen[4];
	const char *target = m->target ? m->target : "";
	const char *extra = m->extra ? m->extra : "";
	struct part parts[5];

	memset(fixed, 0, sizeof(fixed));
	put32(fixed, (uint32_t)m->mode);
	memcpy(fixed + 8, &m->quantum_j, 8);
	memcpy(fixed + 16, &m->nominal_hz, 8);
	memcpy(fixed + 24, &m->clock_hz, 8);
	put64(fixed + 32, (uint64_t)m->start_unix_ns);
	put32(tlen, (uint32_t)strlen(target));
	put32(xlen, (uint32_t)strlen(extra));
	parts[0] = (struct part){ fixed, sizeof(fixed) };
	parts[1] = (struct part){ tlen, 4 };
	parts[2] = (struct part){ target, strlen(target) };
	parts[3] = (struct part){ xlen, 4 };
	parts[4] = (struct part){ extra, strlen(extra) };
	return write_chunk(w, EQP_CHUNK_HEAD, parts, 5, err);
}

static int check_meta(const char *path, const struct eqp_meta *m,
		      struct eq_error *err)
{
	if (m->mode != EQP_MODE_ENERGY && m->mode != EQP_MODE_TIME)
		return eq_fail(err, "%s: mode must be energy or time", path);
	if (!(m->quantum_j >= 0 && m->quantum_j <= EQP_MAX_QUANTUM_J) || !(m->nominal_hz >= 0) ||
	    !isfinite(m->nominal_hz) || !(m->clock_hz > 0 && m->clock_hz <= EQP_MAX_CLOCK_HZ))
		return eq_fail(err, "%s: quantum (0 to %g J), rate and clock (> 0, at most %g Hz) must "
			       "be non-negative numbers in range", path, EQP_MAX_QUANTUM_J,
			       EQP_MAX_CLOCK_HZ);
	return 0;
}

struct eqp_writer *eqp_create(const char *path, const struct eqp_meta *meta,
			      struct eq_error *err)
{
	return eqp_create_flags(path, meta, 0, err);
}

struct eqp_writer *eqp_create_flags(const char *path, const struct eqp_meta *meta,
				    unsigned flags, struct eq_error *err)
{
	unsigned char fh[EQP_FILE_HDR_LEN];
	struct eqp_writer *w;

	if (check_meta(path, meta, err) < 0)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (w)
		w->buf = malloc(EQP_SAMPLES_PER_CHUNK * sizeof(*w->buf));
	if (!w || !w->buf) {
		free(w);
		eq_fail(err, "%s: out of memory", path);
		return NULL;
	}
	w->flags = flags;
	if (eq_outfile_open_flags(&w->out, path,
				  (flags & EQP_W_RECORDING) ? EQ_OUT_RECORDING : 0, err) < 0) {
		free(w->buf);
		free(w);
		return NULL;
	}
	/* whole blocks of EQP_W_BUFFER bytes to the kernel, at offsets that
	 * are multiples of it, but where a chunk is flushed on its own (glibc
	 * takes a size only with a buffer) */
	if (w->out.fp != stdout && (w->iobuf = malloc(EQP_W_BUFFER)))
		setvbuf(w->out.fp, w->iobuf, _IOFBF, EQP_W_BUFFER);
	memset(fh, 0, sizeof(fh));
	memcpy(fh, EQP_MAGIC, EQP_MAGIC_LEN);
	fh[8] = EQP_VERSION_MAJOR;
	fh[10] = EQP_VERSION_MINOR;
	fwrite(fh, 1, sizeof(fh), w->out.fp);
	if (write_head(w, meta, err) < 0) {
		eqp_discard(w);
		return NULL;
	}
	return w;
}

static int flush_samples(struct eqp_writer *w, struct eq_error *err)
{
	unsigned char hdr[EQP_SAMP_HDR_LEN] = { 0 };
	struct part parts[2];
	size_t n = w->nbuf;

	if (!n)
		return 0;
	put32(hdr, (uint32_t)n);
	parts[0] = (struct part){ hdr, sizeof(hdr) };
	parts[1] = (struct part){ w->buf, n * sizeof(*w->buf) };
	w->nbuf = 0;
	if (write_chunk(w, EQP_CHUNK_SAMP, parts, 2, err) < 0)
		return -1;
	if (w->has_chains) {
		parts[1] = (struct part){ w->chains, w->chains_len };
		w->chains_len = 0;
		if (write_chunk(w, EQP_CHUNK_CHNS, parts, 2, err) < 0)
			return -1;
	}
	if (w->has_ustk) {
		unsigned char uh[EQP_USTK_HDR_LEN];

		put32(uh, (uint32_t)n);
		put32(uh + 4, w->ustk_arch);
		put64(uh + 8, w->ustk_mask);
		parts[0] = (struct part){ uh, sizeof(uh) };
		parts[1] = (struct part){ w->ustk, w->ustk_len };
		w->ustk_len = 0;
		if (write_chunk(w, EQP_CHUNK_USTK, parts, 2, err) < 0)
			return -1;
	}
	return 0;
}

/* Appends one USTK entry (u NULL or abi 0: no stack). */
static int add_ustk(struct eqp_writer *w, const struct eqp_ustack *u, struct eq_error *err)
{
	unsigned abi = u ? u->abi : 0;
	size_t nregs = abi ? (size_t)__builtin_popcountll(w->ustk_mask) : 0;
	size_t size = abi ? u->size : 0;
	size_t need = EQP_USTK_ENT_LEN + 8 * nregs + (size + 7) / 8 * 8;
	unsigned char *e;

	if (abi > 2 || size > EQP_MAX_USTACK)
		return eq_fail(err, "%s: a stack copy of %zu bytes (ABI %u) is over the %u-byte limit",
			       w->out.path, size, abi, EQP_MAX_USTACK);
	if (abi && (u->arch != w->ustk_arch || u->regs_mask != w->ustk_mask))
		return eq_fail(err, "%s: stack copies of one recording must have one register set",
			       w->out.path);
	if (w->ustk_len + need > w->ustk_cap) {
		size_t ncap = (w->ustk_len + need) * 2;
		unsigned char *nb = realloc(w->ustk, ncap);

		if (!nb)
			return eq_fail(err, "%s: out of memory for stack copies", w->out.path);
		w->ustk = nb;
		w->ustk_cap = ncap;
	}
	e = w->ustk + w->ustk_len;
	memset(e, 0, EQP_USTK_ENT_LEN);
	put32(e, abi);
	put32(e + 4, (uint32_t)size);
	if (abi) {
		memcpy(e + EQP_USTK_ENT_LEN, u->regs, 8 * nregs);
		if (size)
			memcpy(e + EQP_USTK_ENT_LEN + 8 * nregs, u->stack, size);
	}
	/* only the padding to 8 bytes is cleared: the copy fills the rest */
	memset(e + EQP_USTK_ENT_LEN + 8 * nregs + size, 0, need - EQP_USTK_ENT_LEN - 8 * nregs - size);
	w->ustk_len += need;
	return 0;
}

/* Appends one CHNS entry (cc NULL: no stack). */
static int add_chain(struct eqp_writer *w, const struct eqp_callchain *cc, struct eq_error *err)
{
	unsigned nk = cc ? cc->nkernel : 0, nu = cc ? cc->nuser : 0;
	size_t need = EQP_CHAIN_HDR_LEN + (size_t)(nk + nu) * 8;
	unsigned char *e;

	if (nk > EQP_MAX_CHAIN || nu > EQP_MAX_CHAIN)
		return eq_fail(err, "%s: a call chain of %u+%u frames is over the %u-frame limit",
			       w->out.path, nk, nu, EQP_MAX_CHAIN);
	if (w->chains_len + need > w->chains_cap) {
		size_t ncap = (w->chains_len + need) * 2;
		unsigned char *nb = realloc(w->chains, ncap);

		if (!nb)
			return eq_fail(err, "%s: out of memory for call chains", w->out.path);
		w->chains = nb;
		w->chains_cap = ncap;
	}
	e = w->chains + w->chains_len;
	memset(e, 0, EQP_CHAIN_HDR_LEN);
	e[0] = (unsigned char)nk;
	e[1] = (unsigned char)(nk >> 8);
	e[2] = (unsigned char)nu;
	e[3] = (unsigned char)(nu >> 8);
	if (nk + nu)
		memcpy(e + EQP_CHAIN_HDR_LEN, cc->frames, (size_t)(nk + nu) * 8);
	w->chains_len += need;
	return 0;
}

int eqp_add_sample_chain(struct eqp_writer *w, const struct eq_sample *s,
			 const struct eqp_callchain *cc, struct eq_error *err)
{
	if (!w->has_chains) {
		size_t i;

		/* samples already in hand get empty chains */
		w->has_chains = 1;
		for (i = 0; i < w->nbuf; i++)
			if (add_chain(w, NULL, err) < 0)
				return -1;
	}
	if (add_chain(w, cc, err) < 0)
		return -1;
	if (w->has_ustk && add_ustk(w, NULL, err) < 0)
		return -1;
	w->buf[w->nbuf++] = *s;
	w->nsamples++;
	if (w->nbuf == EQP_SAMPLES_PER_CHUNK || w->chains_len + w->ustk_len >= EQP_W_STACK_BYTES)
		return flush_samples(w, err);
	return 0;
}

int eqp_add_sample_stack(struct eqp_writer *w, const struct eq_sample *s,
			 const struct eqp_callchain *cc, const struct eqp_ustack *u,
			 struct eq_error *err)
{
	size_t i;

	if (!w->has_ustk) {
		if (!u || !u->abi)
			return cc ? eqp_add_sample_chain(w, s, cc, err) : eqp_add_samples(w, s, 1, err);
		/* the first stack sets the register set; samples in hand get none */
		w->has_ustk = 1;
		w->ustk_arch = u->arch;
		w->ustk_mask = u->regs_mask;
		if ((size_t)__builtin_popcountll(u->regs_mask) > EQP_MAX_USTACK_REGS)
			return eq_fail(err, "%s: too many registers in a stack copy", w->out.path);
		for (i = 0; i < w->nbuf; i++)
			if (add_ustk(w, NULL, err) < 0)
				return -1;
	}
	if (add_ustk(w, u, err) < 0)
		return -1;
	if (cc || w->has_chains) {
		if (!w->has_chains) {
			w->has_chains = 1;
			for (i = 0; i < w->nbuf; i++)
				if (add_chain(w, NULL, err) < 0)
					return -1;
		}
		if (add_chain(w, cc, err) < 0)
			return -1;
	}
	w->buf[w->nbuf++] = *s;
	w->nsamples++;
	if (w->nbuf == EQP_SAMPLES_PER_CHUNK || w->chains_len + w->ustk_len >= EQP_W_STACK_BYTES)
		return flush_samples(w, err);
	return 0;
}

int eqp_flush(struct eqp_writer *w, struct eq_error *err)
{
	if (flush_samples(w, err) < 0)
		return -1;
	if (fflush(w->out.fp) != 0) {
		w->failed = 1;
		return eq_fail(err, "writing %s: %s (disk full?)",
			       w->out.tmp ? w->out.tmp : w->out.path, strerror(errno));
	}
	return 0;
}

const char *eqp_writer_file(const struct eqp_writer *w)
{
	return w->out.tmp ? w->out.tmp : w->out.path ? w->out.path : "standard output";
}

int eqp_add_image(struct eqp_writer *w, const char *module, const void *data, size_t len,
		  struct eq_error *err)
{
	static const unsigned char zeros[8];
	unsigned char hdr[16];
	size_t mlen = strlen(module);
	struct part parts[4];

	if (mlen > 4096 || len > EQP_MAX_IMAGE)
		return eq_fail(err, "%s: the image of %s (%zu bytes) is too large to embed (at most %u)",
			       w->out.path, module, len, EQP_MAX_IMAGE);
	put32(hdr, (uint32_t)mlen);
	put32(hdr + 4, 0);
	put64(hdr + 8, len);
	parts[0] = (struct part){ hdr, sizeof(hdr) };
	parts[1] = (struct part){ module, mlen };
	parts[2] = (struct part){ zeros, (8 - mlen % 8) % 8 };  /* the image 8-byte aligned */
	parts[3] = (struct part){ data, len };
	return write_chunk(w, EQP_CHUNK_IMAG, parts, 4, err);
}

int eqp_add_buildid(struct eqp_writer *w, const char *path, const char *hex,
		    struct eq_error *err)
{
	unsigned char hdr[8];
	size_t plen = strlen(path), hlen = strlen(hex);
	struct part parts[3];

	if (plen > EQP_MAX_STRING || hlen > 128)
		return eq_fail(err, "%s: build-id record for %s is too long", w->out.path, path);
	put32(hdr, (uint32_t)plen);
	put32(hdr + 4, (uint32_t)hlen);
	parts[0] = (struct part){ hdr, sizeof(hdr) };
	parts[1] = (struct part){ path, plen };
	parts[2] = (struct part){ hex, hlen };
	return write_chunk(w, EQP_CHUNK_BIDS, parts, 3, err);
}

int eqp_add_samples(struct eqp_writer *w, const struct eq_sample *s, size_t n,
		    struct eq_error *err)
{
	size_t take;

	while (n) {
		take = EQP_SAMPLES_PER_CHUNK - w->nbuf;
		if (take > n)
			take = n;
		memcpy(w->buf + w->nbuf, s, take * sizeof(*s));
		if (w->has_chains) {
			size_t i;

			for (i = 0; i < take; i++)
				if (add_chain(w, NULL, err) < 0)
					return -1;
		}
		if (w->has_ustk) {
			size_t i;

			for (i = 0; i < take; i++)
				if (add_ustk(w, NULL, err) < 0)
					return -1;
		}
		w->nbuf += take;
		w->nsamples += take;
		s += take;
		n -= take;
		if (w->nbuf == EQP_SAMPLES_PER_CHUNK && flush_samples(w, err) < 0)
			return -1;
	}
	return 0;
}

/* MAPS, COMM and MARK share a shape: two fixed words, a time, then text. */
static int add_text_chunk(struct eqp_writer *w, uint32_t type, uint32_t pid,
			  uint32_t tid, uint64_t time, const char *text, size_t len,
			  struct eq_error *err)
{
	unsigned char hdr[16] = { 0 };
	struct part parts[2];

	if (len > EQP_MAX_STRING)
		return eq_fail(err, "%s: text of %zu bytes is over the %u-byte limit",
			       w->out.path, len, EQP_MAX_STRING);
	put32(hdr, pid);
	put32(hdr + 4, tid);
	put64(hdr + 8, time);
	parts[0] = (struct part){ hdr, sizeof(hdr) };
	parts[1] = (struct part){ text, len };
	return write_chunk(w, type, parts, 2, err);
}

int eqp_add_maps(struct eqp_writer *w, uint32_t pid, uint64_t time,
		 const char *text, size_t len, struct eq_error *err)
{
	return add_text_chunk(w, EQP_CHUNK_MAPS, pid, 0, time, text, len, err);
}

int eqp_add_comm(struct eqp_writer *w, uint32_t pid, uint64_t time,
		 const char *name, struct eq_error *err)
{
	return add_text_chunk(w, EQP_CHUNK_COMM, pid, 0, time, name, strlen(name), err);
}

int eqp_add_thread_name(struct eqp_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
			const char *name, struct eq_error *err)
{
	return add_text_chunk(w, EQP_CHUNK_COMM, pid, tid, time, name, strlen(name), err);
}

int eqp_add_marker(struct eqp_writer *w, uint64_t time, const char *label,
		   struct eq_error *err)
{
	return add_text_chunk(w, EQP_CHUNK_MARK, 0, 0, time, label, strlen(label), err);
}

int eqp_add_symtab(struct eqp_writer *w, const struct eqp_symtab *t,
		   struct eq_error *err)
{
	size_t i, mlen = strlen(t->module), size = 12 + mlen, off;
	unsigned char *p;
	int rc;

	for (i = 0; i < t->nsyms; i++)
		size += 20 + strlen(t->syms[i].name);
	p = malloc(size);
	if (!p)
		return eq_fail(err, "%s: out of memory for symbol table of %s",
			       w->out.path, t->module);
	put32(p, t->absolute ? 1 : 0);
	put32(p + 4, (uint32_t)t->nsyms);
	put32(p + 8, (uint32_t)mlen);
	memcpy(p + 12, t->module, mlen);
	off = 12 + mlen;
	for (i = 0; i < t->nsyms; i++) {
		size_t nlen = strlen(t->syms[i].name);

		put64(p + off, t->syms[i].addr);
		put64(p + off + 8, t->syms[i].size);
		put32(p + off + 16, (uint32_t)nlen);
		memcpy(p + off + 20, t->syms[i].name, nlen);
		off += 20 + nlen;
	}
	rc = write_chunk(w, EQP_CHUNK_SYMT, &(struct part){ p, size }, 1, err);
	free(p);
	return rc;
}

int eqp_add_lost(struct eqp_writer *w, uint32_t source, uint64_t count,
		 struct eq_error *err)
{
	unsigned char b[16] = { 0 };

	put32(b, source);
	put64(b + 8, count);
	return write_chunk(w, EQP_CHUNK_LOST, &(struct part){ b, sizeof(b) }, 1, err);
}

int eqp_add_board_info(struct eqp_writer *w, const struct eqp_board_info *bi,
		       struct eq_error *err)
{
	const char *fw = bi->firmware ? bi->firmware : "";
	unsigned char b[32], tail[32];
	struct part parts[3];

	memcpy(b, &bi->clock_hz, 8);
	memcpy(b + 8, &bi->e_min_j, 8);
	put32(b + 16, bi->quantum_pulses);
	put32(b + 20, bi->jitter_pct);
	put32(b + 24, bi->vcomp);
	put32(b + 28, (uint32_t)strlen(fw));
	memcpy(tail, &bi->vb_nominal_v, 8);
	memcpy(tail + 8, &bi->dead_time_s, 8);
	put32(tail + 16, bi->segment);
	put32(tail + 20, bi->boot_cause);
	put64(tail + 24, bi->time_offset);
	parts[0] = (struct part){ b, sizeof(b) };
	parts[1] = (struct part){ fw, strlen(fw) };
	parts[2] = (struct part){ tail, sizeof(tail) };
	return write_chunk(w, EQP_CHUNK_BINF, parts, 3, err);
}

/* A chunk's records after their 8-byte header (u32 count, u32 reserved). */
_Static_assert(EQP_BREC_HDR_LEN == 8 && EQP_PSTA_HDR_LEN == 8 && EQP_DREQ_HDR_LEN == 8 &&
	       EQP_ERDG_HDR_LEN == 8, "record chunks share their header");

typedef void rec_encoder(unsigned char *b, const void *rec);

/*
 * The n records at recs (size bytes apart) as chunks of type, up to
 * EQP_SAMPLES_PER_CHUNK a chunk, len bytes a record in the file: each
 * written by enc, or, enc NULL, as it is in memory (the struct's layout is
 * the file's).
 */
static int write_records(struct eqp_writer *w, uint32_t type, const void *recs, size_t size,
			 size_t n, size_t len, rec_encoder *enc, struct eq_error *err)
{
	const unsigned char *r = recs;
	unsigned char hdr[8] = { 0 }, *buf = NULL;
	struct part parts[2];
	size_t take, i;
	int rc = 0;

	if (enc && n && !(buf = malloc(EQP_SAMPLES_PER_CHUNK * len)))
		return eq_fail(err, "%s: out of memory", eqp_writer_file(w));
	for (; n && rc == 0; r += take * size, n -= take) {
		take = n > EQP_SAMPLES_PER_CHUNK ? EQP_SAMPLES_PER_CHUNK : n;
		for (i = 0; enc && i < take; i++)
			enc(buf + i * len, r + i * size);
		put32(hdr, (uint32_t)take);
		parts[0] = (struct part){ hdr, sizeof(hdr) };
		parts[1] = (struct part){ enc ? buf : r, take * len };
		rc = write_chunk(w, type, parts, 2, err);
	}
	free(buf);
	return rc;
}

int eqp_add_board_records(struct eqp_writer *w, const struct eqp_board_rec *r,
			  size_t n, struct eq_error *err)
{
	return write_records(w, EQP_CHUNK_BREC, r, sizeof(*r), n, sizeof(*r), NULL, err);
}

static void put_pstate(unsigned char *b, const void *rec)
{
	const struct eqp_pstate *ps = rec;

	put64(b, ps->time);
	put16(b + 8, ps->cpu);
	put16(b + 10, ps->kind);
	put32(b + 12, ps->value);
}

int eqp_add_pstates(struct eqp_writer *w, const struct eqp_pstate *ps, size_t n,
		    struct eq_error *err)
{
	return write_records(w, EQP_CHUNK_PSTA, ps, sizeof(*ps), n, EQP_PSTA_LEN, put_pstate,
			     err);
}

static void put_devreq(unsigned char *b, const void *rec)
{
	const struct eqp_devreq *r = rec;

	put64(b, r->issue);
	put64(b + 8, r->complete);
	put64(b + 16, r->pc);
	put32(b + 24, r->pid);
	put32(b + 28, r->tid);
	put16(b + 32, r->device);
	put16(b + 34, r->flags);
	put32(b + 36, r->bytes);
}

int eqp_add_devreqs(struct eqp_writer *w, const struct eqp_devreq *r, size_t n,
		    struct eq_error *err)
{
	return write_records(w, EQP_CHUNK_DREQ, r, sizeof(*r), n, EQP_DREQ_LEN, put_devreq, err);
}

int eqp_add_board_end(struct eqp_writer *w, const struct eqp_board_end *e,
		      struct eq_error *err)
{
	unsigned char b[EQP_BEND_LEN];
	const uint64_t counts[9] = { e->records, e->missing, e->dropped, e->bad_frames,
				     e->quanta, e->late, e->late_unrecorded, e->board_rx_errors,
				     e->stalls };
	size_t i;

	put32(b, e->segment);
	put32(b + 4, e->reason);
	for (i = 0; i < 9; i++)
		put64(b + 8 + 8 * i, counts[i]);
	memcpy(b + 80, &e->stall_s, 8);
	return write_chunk(w, EQP_CHUNK_BEND, &(struct part){ b, sizeof(b) }, 1, err);
}

int eqp_add_energy_domain(struct eqp_writer *w, const struct eqp_edomain *d,
			  struct eq_error *err)
{
	const char *str[5] = { d->spec, d->name, d->kind, d->path, d->update_how };
	unsigned char b[EQP_ESRC_FIXED_LEN];
	struct part parts[6];
	size_t i;

	put32(b, d->index);
	put32(b + 4, d->type);
	memcpy(b + 8, &d->range, 8);
	memcpy(b + 16, &d->resolution, 8);
	memcpy(b + 24, &d->update_s, 8);
	parts[0] = (struct part){ b, sizeof(b) };
	for (i = 0; i < 5; i++) {
		if (!str[i])
			str[i] = "";
		put32(b + 32 + 4 * i, (uint32_t)strlen(str[i]));
		parts[i + 1] = (struct part){ str[i], strlen(str[i]) };
	}
	return write_chunk(w, EQP_CHUNK_ESRC, parts, 6, err);
}

int eqp_add_energy_readings(struct eqp_writer *w, const struct eqp_ereading *r, size_t n,
			    struct eq_error *err)
{
	return write_records(w, EQP_CHUNK_ERDG, r, sizeof(*r), n, sizeof(*r), NULL, err);
}

/* After the file is closed (its stdio buffer is ours). */
static void free_writer(struct eqp_writer *w)
{
	free(w->buf);
	free(w->chains);
	free(w->ustk);
	free(w->iobuf);
	free(w);
}

int eqp_commit(struct eqp_writer *w, struct eq_error *err)
{
	unsigned char end[16];
	int rc;

	if (flush_samples(w, err) < 0)
		goto failed;
	put64(end, w->nsamples);
	put64(end + 8, w->nchunks);
	if (write_chunk(w, EQP_CHUNK_END, &(struct part){ end, sizeof(end) }, 1, err) < 0)
		goto failed;
	if ((w->flags & EQP_W_RECORDING) && eq_outfile_flush(&w->out, err) < 0)
		goto failed;
	rc = eq_outfile_commit(&w->out, err);
	free_writer(w);
	return rc;
failed:
	/* A recording's unfinished file stays: it holds samples that cannot be
	 * made again; anything else is removed. */
	if (w->flags & EQP_W_RECORDING)
		eqp_abandon(w);
	else
		eqp_discard(w);
	return -1;
}

void eqp_abandon(struct eqp_writer *w)
{
	if (!w)
		return;
	eq_outfile_abandon(&w->out);
	free_writer(w);
}

void eqp_discard(struct eqp_writer *w)
{
	if (!w)
		return;
	eq_outfile_discard(&w->out);
	free_writer(w);
}
