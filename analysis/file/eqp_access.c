/*
 * eqp_access.c - what a reader asks of an open recording; see eqp.h.
 * Kept apart from eqp_read.c so the parser stays about parsing.
 */
#include "file/eqp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/eqp_format.h"
#include "file/eqp_read_priv.h"

const char *eqp_path(const struct eqp_file *f) { return f->path; }
const struct eqp_meta *eqp_meta(const struct eqp_file *f) { return &f->meta; }
const char *eqp_warning(const struct eqp_file *f) { return f->has_warning ? f->warning : NULL; }
const struct eqp_skipped *eqp_skipped(const struct eqp_file *f) { return &f->skipped; }

const char *eqp_skipped_line(const struct eqp_skipped *s, char *buf, size_t size)
{
	if (!s->chunks && !s->bytes && !s->truncated) {
		snprintf(buf, size, "nothing");
		return buf;
	}
	snprintf(buf, size, "%llu chunk%s, %llu bytes, %llu samples%s",
		 (unsigned long long)s->chunks, s->chunks == 1 ? "" : "s",
		 (unsigned long long)s->bytes, (unsigned long long)s->samples,
		 s->truncated ? " (the recording was cut short)" : "");
	return buf;
}

void eqp_skipped_json(FILE *out, const struct eqp_skipped *s)
{
	fprintf(out, "{\"chunks\": %llu, \"bytes\": %llu, \"samples\": %llu, \"truncated\": %s}",
		(unsigned long long)s->chunks, (unsigned long long)s->bytes,
		(unsigned long long)s->samples, s->truncated ? "true" : "false");
}
unsigned eqp_version(const struct eqp_file *f) { return f->version; }

const char *eqp_meta_get(const struct eqp_file *f, const char *key)
{
	size_t klen = strlen(key);
	const char *line = f->extra_lines, *end = line + f->extra_len;

	/* extra_lines is the extra text with each '\n' turned into '\0'. */
	size_t i;

	for (; line && line < end; line += strlen(line) + 1)
		if (!strncmp(line, key, klen) && line[klen] == '=')
			return line + klen + 1;
	/* Build-ids also come as BIDS chunks, written when a file is first seen. */
	if (!strncmp(key, "buildid:", 8))
		for (i = f->bids.n; i--;)
			if (!strcmp(f->bids.v[i].path, key + 8))
				return f->bids.v[i].hex;
	return NULL;
}

uint64_t eqp_nsamples(const struct eqp_file *f) { return f->nsamples; }

int eqp_require_samples(const struct eqp_file *f, struct eq_error *err)
{
	if (f->nsamples)
		return 0;
	if (f->brec.n)
		return eq_fail(err, "%s: no samples, only the board's %zu energy records: this needs "
			       "samples ('eqprof power %s' and 'eqprof report %s' read the board's "
			       "records)", f->path, f->brec.n, f->path, f->path);
	if (f->skipped.truncated && f->cut_off)
		return eq_fail(err, "%s: no sample left: the file ends at byte %zu, inside chunk %zu "
			       "(which starts at byte offset %zu), before any complete chunk of samples "
			       "(%zu chunks read; the recording was cut short: copy it again whole, or "
			       "record again)", f->path, f->size, f->cut_chunk, f->cut_off, f->cut_chunk);
	if (f->skipped.truncated)
		return eq_fail(err, "%s: no sample: the file ends at byte %zu without an END chunk and "
			       "no sample before it (an unfinished recording: its recorder was killed "
			       "or is still running)", f->path, f->size);
	return eq_fail(err, "%s: the recording holds no sample (the command ended before the first "
		       "sample was taken? record a longer run, or at a higher rate with -t HZ)", f->path);
}
size_t eqp_nsample_chunks(const struct eqp_file *f) { return f->samp.n; }

const struct eq_sample *eqp_sample_chunk(const struct eqp_file *f, size_t i, size_t *n)
{
	if (i >= f->samp.n) {
		*n = 0;
		return NULL;
	}
	*n = f->samp.v[i].n;
	if (f->lazy)
		eqp_check_chunk(f, &f->samp.v[i]);
	return f->samp.v[i].s;
}

size_t eqp_sample_chunk_len(const struct eqp_file *f, size_t i)
{
	return i < f->samp.n ? f->samp.v[i].n : 0;
}

int eqp_has_callchains(const struct eqp_file *f)
{
	return f->has_chains || f->has_ustacks;
}

int eqp_has_ustacks(const struct eqp_file *f)
{
	return f->has_ustacks;
}

int eqp_sample_ustack(const struct eqp_file *f, size_t c, size_t i, struct eqp_ustack *u)
{
	const struct sample_chunk *sc;
	const unsigned char *h, *e;
	uint32_t abi, size;

	memset(u, 0, sizeof(*u));
	if (c >= f->samp.n || i >= f->samp.v[c].n || !f->samp.v[c].ustk)
		return 0;
	sc = &f->samp.v[c];
	h = sc->ustk;
	e = h + sc->ustk_off[i];
	memcpy(&u->arch, h + 4, 4);
	memcpy(&u->regs_mask, h + 8, 8);
	memcpy(&abi, e, 4);
	memcpy(&size, e + 4, 4);
	if (!abi)
		return 0;
	u->abi = abi;
	u->nregs = (unsigned)__builtin_popcountll(u->regs_mask);
	/* entries start 8-aligned in an 8-aligned payload */
	u->regs = (const uint64_t *)(const void *)(e + EQP_USTK_ENT_LEN);
	u->size = size;
	u->stack = e + EQP_USTK_ENT_LEN + 8 * (size_t)u->nregs;
	return 1;
}

int eqp_sample_callchain(const struct eqp_file *f, size_t c, size_t i,
			 struct eqp_callchain *cc)
{
	const struct sample_chunk *sc;
	const unsigned char *e;

	memset(cc, 0, sizeof(*cc));
	if (c >= f->samp.n || i >= f->samp.v[c].n || !f->samp.v[c].chains)
		return 0;
	sc = &f->samp.v[c];
	if (__atomic_load_n(&sc->chns_state, __ATOMIC_ACQUIRE) != CRC_GOOD &&
	    eqp_check_chains(f, (struct sample_chunk *)sc, NULL) < 0)
		return 0;           /* damaged: eqp_verify() says so */
	e = sc->chains + sc->chain_off[i];
	cc->nkernel = (unsigned)e[0] | (unsigned)e[1] << 8;
	cc->nuser = (unsigned)e[2] | (unsigned)e[3] << 8;
	/* entries start 8-aligned in an 8-aligned payload: frames are u64-aligned */
	cc->frames = (const uint64_t *)(const void *)(e + EQP_CHAIN_HDR_LEN);
	return (int)(cc->nkernel + cc->nuser);
}

size_t eqp_nmaps(const struct eqp_file *f) { return f->maps.n; }
const struct eqp_maps *eqp_maps_at(const struct eqp_file *f, size_t i)
{
	return i < f->maps.n ? &f->maps.v[i] : NULL;
}

static size_t pid_hash(uint32_t pid)
{
	return (size_t)(((uint64_t)pid * 0x9e3779b97f4a7c15ull) >> 29);
}

static struct pid_slot *pid_find(const struct eqp_file *f, uint32_t pid, int add)
{
	size_t j;

	for (j = pid_hash(pid) & f->pid_mask; f->pids[j].maps || f->pids[j].comm;
	     j = (j + 1) & f->pid_mask)
		if (f->pids[j].pid == pid)
			return &f->pids[j];
	if (!add)
		return NULL;
	f->pids[j].pid = pid;
	return &f->pids[j];
}

/* Later chunks overwrite earlier ones: each slot ends with the last. */
int eqp_index_pids(struct eqp_file *f)
{
	size_t want = f->maps.n + f->comm.n, size = 16, i;

	while (size < 2 * want)
		size *= 2;
	if (!(f->pids = calloc(size, sizeof(*f->pids))))
		return -1;
	f->pid_mask = size - 1;
	for (i = 0; i < f->maps.n; i++)
		pid_find(f, f->maps.v[i].pid, 1)->maps = i + 1;
	for (i = 0; i < f->comm.n; i++)
		if (f->comm.v[i].tid == 0 || f->comm.v[i].tid == f->comm.v[i].pid)
			pid_find(f, f->comm.v[i].pid, 1)->comm = i + 1;
	return 0;
}

const struct eqp_maps *eqp_maps_for(const struct eqp_file *f, uint32_t pid)
{
	const struct pid_slot *p = pid_find(f, pid, 0);

	return p && p->maps ? &f->maps.v[p->maps - 1] : NULL;
}

size_t eqp_ncomm(const struct eqp_file *f) { return f->comm.n; }
const struct eqp_comm *eqp_comm_at(const struct eqp_file *f, size_t i)
{
	return i < f->comm.n ? &f->comm.v[i] : NULL;
}

const char *eqp_comm_for(const struct eqp_file *f, uint32_t pid)
{
	const struct pid_slot *p = pid_find(f, pid, 0);

	return p && p->comm ? f->comm.v[p->comm - 1].name : NULL;
}

const void *eqp_image(const struct eqp_file *f, const char *module, size_t *len)
{
	size_t i;

	for (i = f->imag.n; i--;)
		if (!strcmp(f->imag.v[i].module, module)) {
			*len = f->imag.v[i].len;
			return f->imag.v[i].data;
		}
	*len = 0;
	return NULL;
}

size_t eqp_nsymtabs(const struct eqp_file *f) { return f->symt.n; }
const struct eqp_symtab *eqp_symtab_at(const struct eqp_file *f, size_t i)
{
	return i < f->symt.n ? &f->symt.v[i] : NULL;
}

size_t eqp_nlost(const struct eqp_file *f) { return f->lost.n; }
const struct eqp_lost *eqp_lost_at(const struct eqp_file *f, size_t i)
{
	return i < f->lost.n ? &f->lost.v[i] : NULL;
}

uint64_t eqp_lost_total(const struct eqp_file *f)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < f->lost.n; i++)
		t += f->lost.v[i].count;
	return t;
}

size_t eqp_nmarkers(const struct eqp_file *f) { return f->mark.n; }
const struct eqp_marker *eqp_marker_at(const struct eqp_file *f, size_t i)
{
	return i < f->mark.n ? &f->mark.v[i] : NULL;
}

size_t eqp_ndevreqs(const struct eqp_file *f) { return f->dreq.n; }
const struct eqp_devreq *eqp_devreq_at(const struct eqp_file *f, size_t i)
{
	return i < f->dreq.n ? &f->dreq.v[i] : NULL;
}

size_t eqp_npstates(const struct eqp_file *f) { return f->psta.n; }
const struct eqp_pstate *eqp_pstate_at(const struct eqp_file *f, size_t i)
{
	return i < f->psta.n ? &f->psta.v[i] : NULL;
}

const struct eqp_board_info *eqp_board_info(const struct eqp_file *f)
{
	return f->bseg.n ? &f->bseg.v[0].info : NULL;
}

size_t eqp_nboard_segments(const struct eqp_file *f) { return f->bseg.n; }
const struct eqp_board_segment *eqp_board_segment_at(const struct eqp_file *f, size_t i)
{
	return i < f->bseg.n ? &f->bseg.v[i] : NULL;
}

size_t eqp_nboard_records(const struct eqp_file *f) { return f->brec.n; }
const struct eqp_board_rec *eqp_board_record_at(const struct eqp_file *f, size_t i)
{
	return i < f->brec.n ? &f->brec.v[i] : NULL;
}

size_t eqp_nenergy_domains(const struct eqp_file *f) { return f->edom.n; }

const struct eqp_edomain *eqp_energy_domain_at(const struct eqp_file *f, size_t i)
{
	return i < f->edom.n ? &f->edom.v[i] : NULL;
}

size_t eqp_nenergy_readings(const struct eqp_file *f) { return f->erdg.n; }

const struct eqp_ereading *eqp_energy_reading_at(const struct eqp_file *f, size_t i)
{
	return i < f->erdg.n ? &f->erdg.v[i] : NULL;
}
