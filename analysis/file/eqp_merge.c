/*
 * eqp_merge.c - a target's recording and a board's stream as one recording
 * (eqp_merge.h, docs/format.md "Merged recordings").
 *
 * Chunk by chunk, so nothing the target recorded is reinterpreted: the
 * target's HEAD gets extra lines (how the two were aligned), every other
 * chunk of the target is copied as it is, the board's BINF, BREC and BEND
 * chunks follow in their order, and a new END counts them all.  Both inputs
 * are opened with the full reader first, so damage is refused before
 * anything is written; the output is written atomically (outfile.h).
 */
#include "file/eqp_merge.h"

#include <stdlib.h>
#include <string.h>

#include "file/crc32c.h"
#include "file/infile.h"
#include "file/outfile.h"

#define HDR 16

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes one chunk (header, payload, CRC, padding). */
static int put_chunk(FILE *f, const char *type, const unsigned char *payload, uint64_t len)
{
	unsigned char h[HDR], c[4], pad[8] = { 0 };
	uint32_t crc;
	size_t np = (size_t)((8 - (len + 4) % 8) % 8);

	memcpy(h, type, 4);
	put32(h + 4, 0);
	put64(h + 8, len);
	crc = eq_crc32c(eq_crc32c(0, h, HDR), payload, (size_t)len);
	put32(c, crc);
	return fwrite(h, 1, HDR, f) == HDR && fwrite(payload, 1, (size_t)len, f) == len &&
	       fwrite(c, 1, 4, f) == 4 && fwrite(pad, 1, np, f) == np ? 0 : -1;
}

struct walk {
	const unsigned char *d;
	size_t len, off;
};

/* The next chunk: 1 with type/payload/len set, 0 at END or the end. */
static int next_chunk(struct walk *w, char type[5], const unsigned char **payload, uint64_t *len)
{
	uint64_t l, total;

	if (w->off + HDR > w->len)
		return 0;
	memcpy(type, w->d + w->off, 4);
	type[4] = 0;
	l = le64(w->d + w->off + 8);
	if (l > w->len - w->off - HDR - 4)
		return 0;	/* the reader accepted it: a truncated tail */
	if (!strcmp(type, "END "))
		return 0;
	*payload = w->d + w->off + HDR;
	*len = l;
	total = HDR + l + 4;
	w->off += (size_t)(total + (8 - total % 8) % 8);
	return 1;
}

int eqp_merge(const char *target, const char *board, const char *extra, double quantum_j,
	      const char *out, struct eq_error *err)
{
	struct eqp_file *tf, *bf;
	char *td = NULL, *bd = NULL, type[5];
	size_t tlen, blen;
	struct walk w;
	struct eq_outfile o;
	const unsigned char *pl;
	unsigned char *head = NULL, endp[16];
	uint64_t len, nchunks = 0, nsamples;
	int rc = -1;

	tf = eqp_open(target, err);
	if (!tf)
		return -1;
	nsamples = eqp_nsamples(tf);
	if (eqp_nboard_records(tf) || eqp_board_info(tf)) {
		eqp_close(tf);
		return eq_fail(err, "%s already holds a board stream: merge a target's recording with a board log", target);
	}
	eqp_close(tf);
	bf = eqp_open(board, err);
	if (!bf)
		return -1;
	if (!eqp_board_info(bf)) {
		eqp_close(bf);
		return eq_fail(err, "%s holds no board stream (BINF): give what `eqprof board log` wrote", board);
	}
	eqp_close(bf);
	if (eq_input_read(target, &td, &tlen, err) < 0 || eq_input_read(board, &bd, &blen, err) < 0)
		goto out;
	if (eq_outfile_open(&o, out, err) < 0)
		goto out;
	if (fwrite(td, 1, HDR, o.fp) != HDR)
		goto werr;
	w = (struct walk){ (const unsigned char *)td, tlen, HDR };
	while (next_chunk(&w, type, &pl, &len)) {
		if (!strcmp(type, "HEAD") && len >= 48) {
			/* target description, then the extra lines: append ours */
			uint32_t t = le32(pl + 40), x;
			size_t xl = strlen(extra), nl;

			if (44 + (uint64_t)t + 4 > len)
				goto bad;
			x = le32(pl + 44 + t);
			if (48 + (uint64_t)t + x > len)
				goto bad;
			nl = (size_t)len + xl;
			head = malloc(nl);
			if (!head) {
				eq_fail(err, "out of memory");
				goto discard;
			}
			memcpy(head, pl, 48 + t + x);
			memcpy(head + 48 + t + x, extra, xl);
			memcpy(head + 48 + t + x + xl, pl + 48 + t + x, (size_t)len - 48 - t - x);
			put32(head + 44 + t, (uint32_t)(x + xl));
			if (quantum_j > 0 && le64(head + 8) == 0) {
				uint64_t bits;

				memcpy(&bits, &quantum_j, sizeof(bits));
				put64(head + 8, bits);
			}
			if (put_chunk(o.fp, "HEAD", head, nl) < 0)
				goto werr;
		} else if (put_chunk(o.fp, type, pl, len) < 0) {
			goto werr;
		}
		nchunks++;
	}
	w = (struct walk){ (const unsigned char *)bd, blen, HDR };
	while (next_chunk(&w, type, &pl, &len)) {
		if (strcmp(type, "BINF") && strcmp(type, "BREC") && strcmp(type, "BEND"))
			continue;
		if (put_chunk(o.fp, type, pl, len) < 0)
			goto werr;
		nchunks++;
	}
	put64(endp, nsamples);
	put64(endp + 8, nchunks);
	if (put_chunk(o.fp, "END ", endp, 16) < 0)
		goto werr;
	rc = eq_outfile_commit(&o, err);
	goto out;
bad:
	eq_fail(err, "%s: its HEAD chunk is malformed", target);
	goto discard;
werr:
	eq_fail(err, "%s: write failed", out);
discard:
	eq_outfile_discard(&o);
out:
	free(head);
	free(td);
	free(bd);
	return rc;
}
