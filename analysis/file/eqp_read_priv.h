/*
 * eqp_read_priv.h - the reader's state, shared by eqp_read.c (parsing) and
 * eqp_access.c (queries) only.
 */
#ifndef EQP_READ_PRIV_H
#define EQP_READ_PRIV_H

#include "file/eqp.h"

struct sample_chunk {
	const struct eq_sample *s;
	size_t n;
	const unsigned char *chains; /* the CHNS payload after this chunk, or NULL */
	uint32_t *chain_off;         /* per sample: offset of its entry in chains
					(eqp_open_lazy(): NULL until checked) */
	/* the CHNS chunk (index, byte offset, payload bytes), its CRC and
	 * chns_state as crc_state (eqp_open_lazy(): checked on first use) */
	size_t chns_index, chns_off, chns_len;
	uint32_t chns_crc;
	int chns_state;
	const unsigned char *ustk;   /* the USTK payload after this chunk, or NULL */
	uint32_t *ustk_off;          /* per sample: offset of its entry in ustk */
	/* eqp_open_lazy(): the chunk (index, byte offset) and its CRC, checked
	 * on first use; crc_state is CRC_UNCHECKED, CRC_GOOD or CRC_BAD */
	size_t index, off;
	uint32_t crc;
	int crc_state;
};

enum { CRC_GOOD, CRC_UNCHECKED, CRC_BAD };

/* Checks chunk sc's CRC if not yet (eqp_read.c): 0 good, -1 bad. */
int eqp_check_chunk(const struct eqp_file *f, struct sample_chunk *sc);
/* Checks and indexes sc's call chains if not yet (or it has none): 0 good,
 * -1 bad, with err (if not NULL) as eqp_open() would have said it.  Safe
 * from several threads. */
int eqp_check_chains(const struct eqp_file *f, struct sample_chunk *sc, struct eq_error *err);

struct buildid {
	char *path, *hex;
};

struct image {
	char *module;
	const unsigned char *data;  /* into the file's bytes */
	size_t len;
};

#define VEC(type) struct { type *v; size_t n, cap; }

struct eqp_file {
	char *path;
	const unsigned char *base;
	size_t size;
	int mapped;
	int lazy;              /* eqp_open_lazy(): SAMP CRCs checked on first use */
	unsigned version;
	struct eqp_meta meta;
	char *target, *extra;
	char *extra_lines;     /* extra split into NUL-terminated lines */
	size_t extra_len;
	char warning[1024];
	int has_warning, has_end;
	struct eqp_skipped skipped;
	size_t cut_off, cut_chunk; /* truncated: where the partial chunk starts, its index */
	uint64_t nsamples;
	VEC(struct sample_chunk) samp;
	VEC(struct eqp_maps) maps;
	VEC(struct eqp_comm) comm;
	VEC(struct eqp_symtab) symt;
	VEC(struct eqp_lost) lost;
	VEC(struct eqp_marker) mark;
	VEC(struct eqp_board_rec) brec;
	VEC(struct eqp_pstate) psta;
	VEC(struct eqp_devreq) dreq;
	VEC(struct buildid) bids;
	VEC(struct image) imag;
	size_t last_samp_chunk; /* index of the last SAMP chunk + 1, 0 if none */
	int has_chains, has_ustacks;
	size_t last_chns_chunk; /* index of the last CHNS chunk + 1, 0 if none */
	VEC(struct eqp_board_segment) bseg; /* one per BINF */
	VEC(struct eqp_edomain) edom;       /* one per ESRC */
	VEC(struct eqp_ereading) erdg;
	/* eqp_maps_for()/eqp_comm_for(): per pid, index + 1 of its last MAPS
	 * and last process-name COMM chunk; open addressing on pid. */
	struct pid_slot { uint32_t pid; size_t maps, comm; } *pids;
	size_t pid_mask;
};

/* Builds f->pids once every chunk is read (eqp_access.c); -1 out of memory. */
int eqp_index_pids(struct eqp_file *f);

#endif
