/* callgraph.c - call stacks, inclusive profiles, flame-graph stacks; see callgraph.h. */
#include "profile/callgraph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stats.h"
#include "symbols/unwind.h"
#include "util/units.h"
#include "util/grow.h"

static const char unknown_name[] = "[unknown]";

const char *eq_frame_name(const struct eq_loc *l)
{
	/* an unresolved pc may have a region name (symbolize.h) */
	if (l->kind != EQ_LOC_NO_MODULE && l->proc)
		return l->proc;
	return unknown_name;
}

static const char *frame_module(const struct eq_loc *l)
{
	return l->module_base ? l->module_base : l->module;
}

/* ---- distinct stacks ------------------------------------------------------ */

/* The samples in time order, for the intervals (eq_stacks.priv_). */
struct stack_seq {
	uint32_t *seq;                /* stack index of each counted sample */
	uint64_t n, cap;
	struct eq_series_times times; /* every sample's, as eq_profile_build takes them */
};

static int seq_add(struct stack_seq *q, uint32_t stack)
{
	if (q->n == q->cap) {
		uint64_t ncap = q->cap ? 2 * q->cap : 4096;
		uint32_t *n = realloc(q->seq, ncap * sizeof(*n));

		if (!n)
			return -1;
		q->seq = n;
		q->cap = ncap;
	}
	q->seq[q->n++] = stack;
	return 0;
}

struct stack_set {
	size_t *slots;               /* stack index + 1; 0 empty */
	size_t mask;
	size_t cap;                  /* of stacks[] */
};

static size_t hash_frames(const struct eq_loc *const *f, size_t n)
{
	size_t h = 1469598103934665603ULL, i;

	for (i = 0; i < n; i++)
		h = (h ^ (size_t)(uintptr_t)f[i]) * 1099511628211ULL;
	return h ^ n;
}

static int set_grow(struct eq_stacks *st, struct stack_set *ss)
{
	size_t nmask = ss->mask ? ss->mask * 2 + 1 : 1023, i, j;
	size_t *ns = calloc(nmask + 1, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < st->nstacks; i++) {
		const struct eq_stack *k = &st->stacks[i];

		for (j = hash_frames(k->frames, k->depth) & nmask; ns[j]; j = (j + 1) & nmask)
			;
		ns[j] = i + 1;
	}
	free(ss->slots);
	ss->slots = ns;
	ss->mask = nmask;
	return 0;
}

/* The stack's index (counted once more), or -1 if out of memory. */
static long add_stack(struct eq_stacks *st, struct stack_set *ss,
		      const struct eq_loc **frames, size_t depth)
{
	size_t j;

	if ((st->nstacks + 1) * 2 > ss->mask && set_grow(st, ss) < 0)
		return -1;
	for (j = hash_frames(frames, depth) & ss->mask; ss->slots[j]; j = (j + 1) & ss->mask) {
		struct eq_stack *k = &st->stacks[ss->slots[j] - 1];

		if (k->depth == depth && !memcmp(k->frames, frames, depth * sizeof(*frames))) {
			k->samples++;
			return (long)(ss->slots[j] - 1);
		}
	}
	if (EQ_GROW(st->stacks, ss->cap, st->nstacks + 1, 256) < 0)
		return -1;
	st->stacks[st->nstacks].frames = malloc(depth * sizeof(*frames));
	if (!st->stacks[st->nstacks].frames)
		return -1;
	memcpy(st->stacks[st->nstacks].frames, frames, depth * sizeof(*frames));
	st->stacks[st->nstacks].depth = depth;
	st->stacks[st->nstacks].samples = 1;
	ss->slots[j] = ++st->nstacks;
	return (long)(st->nstacks - 1);
}

static const struct eq_stacks *sort_st;

/* Most samples first; ties in order of first sight (deterministic). */
static int cmp_stack_idx(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = sort_st->stacks[x].samples, sy = sort_st->stacks[y].samples;

	if (sx != sy)
		return sx < sy ? 1 : -1;
	return (x > y) - (x < y);
}

/* Orders the stacks by samples and renumbers the sample sequence. */
static int sort_stacks(struct eq_stacks *st, struct stack_seq *q)
{
	uint32_t *idx = malloc((st->nstacks ? st->nstacks : 1) * sizeof(*idx));
	uint32_t *inv = malloc((st->nstacks ? st->nstacks : 1) * sizeof(*inv));
	struct eq_stack *ns = malloc((st->nstacks ? st->nstacks : 1) * sizeof(*ns));
	size_t i;

	if (!idx || !inv || !ns) {
		free(idx);
		free(inv);
		free(ns);
		return -1;
	}
	for (i = 0; i < st->nstacks; i++)
		idx[i] = (uint32_t)i;
	sort_st = st;
	qsort(idx, st->nstacks, sizeof(*idx), cmp_stack_idx);
	for (i = 0; i < st->nstacks; i++) {
		ns[i] = st->stacks[idx[i]];
		inv[idx[i]] = (uint32_t)i;
	}
	for (i = 0; i < q->n; i++)
		q->seq[i] = inv[q->seq[i]];
	free(st->stacks);
	st->stacks = ns;
	free(idx);
	free(inv);
	return 0;
}

static double per_sample_of(const struct eqp_file *f)
{
	const struct eqp_meta *m = eqp_meta(f);

	if (m->mode == EQP_MODE_ENERGY)
		return m->quantum_j > 0 && isfinite(m->quantum_j) ? m->quantum_j : 0;
	return eq_profile_period_s(f);
}

/* frames[0] = leaf, then the located callers of chain cc (nf frames). */
static size_t chain_frames(struct eq_symbolizer *s, const struct eq_sample *smp,
			   const struct eq_loc *leaf, const struct eqp_callchain *cc, int nf,
			   const struct eq_loc **frames)
{
	size_t depth = 0, k;

	frames[depth++] = leaf;
	for (k = 0; k < (size_t)(nf > 0 ? nf : 0); k++) {
		struct eq_sample caller = *smp;

		/* inside the call instruction, not after it */
		caller.pc = cc->frames[k] ? cc->frames[k] - 1 : 0;
		caller.flags &= (uint16_t)~(EQ_F_KERNEL | EQ_F_IDLE);
		if (k < cc->nkernel)
			caller.flags |= EQ_F_KERNEL;
		frames[depth++] = eq_sym_lookup(s, &caller);
	}
	return depth;
}

size_t eq_sample_frames(const struct eqp_file *f, struct eq_symbolizer *s, size_t c, size_t i,
			const struct eq_sample *smp, const struct eq_loc **frames, int *had_chain)
{
	struct eqp_callchain cc;
	const struct eq_loc *leaf = eq_sym_lookup(s, smp);
	int nf;

	(void)f;
	nf = eq_sym_callchain(s, c, i, smp, &cc);
	*had_chain = nf > 0;
	return chain_frames(s, smp, leaf, &cc, nf, frames);
}

/* ---- raw chains interned -------------------------------------------------- */

struct eq_chain_slot {
	uint64_t hash;
	size_t off;                   /* of the key in the pool */
	uint32_t n;                   /* frame words (the key holds 2 more) */
	uint32_t id1;                 /* id + 1; 0: empty */
};

#define CHAIN_K 0x9E3779B97F4A7C15ULL

uint64_t eq_chain_hash(const uint64_t head[2], const uint64_t *w, size_t n)
{
	uint64_t h0 = (head[0] ^ 0x243F6A8885A308D3ULL) * CHAIN_K, h1 = (head[1] ^ n) * CHAIN_K;
	uint64_t h2 = 0x13198A2E03707344ULL, h3 = 0xA4093822299F31D0ULL;
	size_t i;

	/* four lanes, so that a deep chain is not one long chain of multiplies */
	for (i = 0; i + 3 < n; i += 4) {
		h0 = (h0 ^ w[i]) * CHAIN_K;
		h1 = (h1 ^ w[i + 1]) * CHAIN_K;
		h2 = (h2 ^ w[i + 2]) * CHAIN_K;
		h3 = (h3 ^ w[i + 3]) * CHAIN_K;
	}
	for (; i < n; i++)
		h0 = (h0 ^ w[i]) * CHAIN_K;
	h0 ^= (h1 + (h1 >> 31)) ^ (h2 >> 17) ^ (h2 << 29) ^ (h3 >> 41) ^ (h3 << 7);
	h0 ^= h0 >> 29;
	h0 *= 0xBF58476D1CE4E5B9ULL;
	return h0 ^ (h0 >> 32);
}

static int chain_set_grow(struct eq_chain_set *cs)
{
	size_t nmask = cs->mask ? cs->mask * 2 + 1 : 1023, i, j;
	struct eq_chain_slot *ns = calloc(nmask + 1, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; cs->slots && i <= cs->mask; i++) {
		if (!cs->slots[i].id1)
			continue;
		for (j = cs->slots[i].hash & nmask; ns[j].id1; j = (j + 1) & nmask)
			;
		ns[j] = cs->slots[i];
	}
	free(cs->slots);
	cs->slots = ns;
	cs->mask = nmask;
	return 0;
}

long eq_chain_set_id(struct eq_chain_set *cs, uint64_t hash, const uint64_t head[2],
		     const uint64_t *w, size_t n, int *fresh)
{
	size_t j;

	*fresh = 0;
	if ((cs->count + 1) * 2 > cs->mask && chain_set_grow(cs) < 0)
		return -1;
	for (j = hash & cs->mask; cs->slots[j].id1; j = (j + 1) & cs->mask) {
		const struct eq_chain_slot *sl = &cs->slots[j];
		const uint64_t *k = cs->pool + sl->off;

		if (sl->hash == hash && sl->n == n && k[0] == head[0] && k[1] == head[1] &&
		    (!n || !memcmp(k + 2, w, n * sizeof(*w))))
			return (long)sl->id1 - 1;
	}
	if (n > UINT32_MAX - 2 || cs->count >= UINT32_MAX - 1 ||
	    EQ_GROW(cs->pool, cs->cap, cs->npool + n + 2, 4096) < 0)
		return -1;
	cs->pool[cs->npool] = head[0];
	cs->pool[cs->npool + 1] = head[1];
	if (n)
		memcpy(cs->pool + cs->npool + 2, w, n * sizeof(*w));
	cs->slots[j] = (struct eq_chain_slot){ .hash = hash, .off = cs->npool, .n = (uint32_t)n,
					       .id1 = (uint32_t)++cs->count };
	cs->npool += n + 2;
	*fresh = 1;
	return (long)cs->count - 1;
}

void eq_chain_set_free(struct eq_chain_set *cs)
{
	free(cs->slots);
	free(cs->pool);
	memset(cs, 0, sizeof(*cs));
}

/*
 * The keys of a sample's chain, so that equal keys have equal located
 * frames.  Its callers' places (chain_frames) depend on their addresses,
 * on the address space of the sample with its idle flag cleared (who), on
 * whether its pid is 0 and on which frames are the kernel's: the callers'
 * key.  Its leaf is either the location already looked up (recordings with
 * stack copies, whose leaf is looked up before unwinding, as
 * eq_sample_frames does), or what eq_sym_lookup keys its cache by: the pc
 * (none for idle samples: one place) and the kernel and idle bits, in that
 * same address space unless idle: the leaf's key.
 */
static inline uint32_t leaf_bits(const struct eq_sample *smp)
{
	if ((smp->flags & EQ_F_IDLE) || smp->pid == 0)
		return 2;
	return (smp->flags & EQ_F_KERNEL) ? 1 : 0;
}

static inline uint32_t callers_space(struct eq_symbolizer *s, int multi, const struct eq_sample *smp)
{
	struct eq_sample caller;

	if (!multi)
		return smp->pid;
	caller = *smp;
	caller.flags &= (uint16_t)~EQ_F_IDLE;
	return eq_sym_space_key(s, &caller);
}

static void callers_head(const struct eq_sample *smp, uint32_t who,
			 const struct eqp_callchain *cc, int nf, uint64_t head[2])
{
	head[0] = nf > 0 ? (uint64_t)who | (uint64_t)cc->nkernel << 32 | (uint64_t)(smp->pid == 0) << 63 : 0;
	head[1] = 0;
}

/* The key of the whole chain: the leaf's key and the callers'. */
static void chain_head(const struct eq_sample *smp, uint32_t who, const struct eq_loc *leaf,
		       const struct eqp_callchain *cc, int nf, uint64_t head[2])
{
	uint32_t kbits = leaf ? 3 : leaf_bits(smp);

	head[0] = leaf ? (uint64_t)(uintptr_t)leaf : kbits == 2 ? 0 : smp->pc;
	head[1] = (uint64_t)who | (uint64_t)(nf > 0 ? cc->nkernel : 0) << 32 |
		  (uint64_t)kbits << 48 | (uint64_t)(smp->pid == 0) << 63;
}

const char *eq_folded_frame_name(const struct eq_loc *l, char *buf, size_t n)
{
	const char *m = frame_module(l);

	if (l->kind == EQ_LOC_RESOLVED || l->kind == EQ_LOC_IDLE)
		return eq_frame_name(l);
	/* stripped code named by its region (symbolize.c name_region), as the
	 * report's rows name it, so a stack and a row say the same */
	if (l->kind == EQ_LOC_UNRESOLVED && l->proc)
		return l->proc;
	/* perf's habit: an otherwise unresolved frame is named by its module */
	if (!m || !strcmp(m, unknown_name))
		return unknown_name;
	snprintf(buf, n, "[%s]", m);
	return buf;
}

/* How the recording's chains were made: its header's call_graph=fp or
 * call_graph=dwarf,SIZE (record writes it). */
static void stacks_method(struct eq_stacks *st, const struct eqp_file *f)
{
	const char *cg = eqp_meta_get(f, "call_graph");

	st->fp_chains = cg && !strcmp(cg, "fp");
	if (cg && !strncmp(cg, "dwarf,", 6))
		st->copy_size = (unsigned)strtoul(cg + 6, NULL, 10);
}

struct eq_stacks *eq_stacks_build(const struct eqp_file *f, struct eq_symbolizer *s,
				  unsigned flags, struct eq_error *err)
{
	return eq_stacks_build_range(f, s, flags, NULL, err);
}

/*
 * The building of eq_stacks: distinct stacks by located frames (stack_set),
 * reached through the whole chain's key (eq_chain_set stacks: a chain seen
 * before costs no lookup).  A chain not seen before has its callers
 * located once per distinct callers' chain (their key and return
 * addresses: eq_chain_set callers, their locations kept in cpool), so that
 * a new leaf under known callers costs one lookup, not one per frame.
 */
struct stacks_pass {
	struct stack_set ss;
	struct eq_chain_set callers, stacks;
	const struct eq_loc **cpool;  /* located callers of each callers' id */
	size_t *coff;                 /* id -> its first in cpool */
	size_t npool, poolcap, coffcap;
	uint32_t *stack_of;           /* whole chain's id -> stack index */
	size_t *key_of;               /* whole chain's id -> its key in stacks.pool */
	size_t cap, keycap;
	struct chain_guess *guess;    /* 1 << GUESS_BITS: see chain_guessed */
	const struct eq_loc **frames;
	int multi;                    /* eq_sym_multi_space */
	int leaf_first;               /* the leaf is looked up for every sample */
};

/*
 * A sample's whole chain is most often one seen before with the same leaf
 * key and depth: guess[] remembers, by those, the chain last seen with
 * them, compared whole before it is taken (chain_guessed), so that such a
 * sample skips hashing its chain.  Ids stay those eq_chain_set_id gives.
 */
#define GUESS_BITS 12

struct chain_guess {
	uint32_t id1;                 /* id + 1; 0: none */
	uint32_t n;
};

static inline struct chain_guess *guess_slot(struct stacks_pass *p, const uint64_t head[2],
					     size_t n)
{
	uint64_t h = (head[0] ^ (head[1] * 0x9E3779B97F4A7C15ULL) ^ n) * 0xBF58476D1CE4E5B9ULL;

	return &p->guess[h >> (64 - GUESS_BITS)];
}

/* The id of the chain (head, w, n) if it is the one guessed, else -1. */
static inline long chain_guessed(const struct stacks_pass *p, const struct chain_guess *g,
				 const uint64_t head[2], const uint64_t *w, size_t n)
{
	const uint64_t *k;

	if (!g->id1 || g->n != n)
		return -1;
	k = p->stacks.pool + p->key_of[g->id1 - 1];
	if (k[0] != head[0] || k[1] != head[1] || (n && memcmp(k + 2, w, n * sizeof(*w))))
		return -1;
	return (long)g->id1 - 1;
}

static void pass_free(struct stacks_pass *p)
{
	free(p->ss.slots);
	eq_chain_set_free(&p->callers);
	eq_chain_set_free(&p->stacks);
	free(p->cpool);
	free(p->coff);
	free(p->stack_of);
	free(p->key_of);
	free(p->guess);
	free(p->frames);
}

/* The callers' id of the sample's chain cc (nf frames), located if new:
 * then the leaf is looked up first (into *leaf), as per-sample lookups
 * would.  -1 if out of memory. */
static long callers_id(struct stacks_pass *p, struct eq_symbolizer *s, const struct eq_sample *smp,
		       uint32_t who, const struct eqp_callchain *cc, int nf,
		       const struct eq_loc **leaf)
{
	size_t n = nf > 0 ? (size_t)nf : 0, d;
	uint64_t head[2];
	int fresh;
	long id;

	callers_head(smp, who, cc, nf, head);
	id = eq_chain_set_id(&p->callers, eq_chain_hash(head, cc->frames, n), head, cc->frames, n,
			     &fresh);
	if (id < 0 || !fresh)
		return id;
	if (!*leaf)
		*leaf = eq_sym_lookup(s, smp);
	d = chain_frames(s, smp, *leaf, cc, nf, p->frames);
	if (EQ_GROW(p->coff, p->coffcap, (size_t)id + 1, 1024) < 0 ||
	    EQ_GROW(p->cpool, p->poolcap, p->npool + d, 4096) < 0)
		return -1;
	p->coff[id] = p->npool;
	memcpy(p->cpool + p->npool, p->frames + 1, (d - 1) * sizeof(*p->frames));
	p->npool += d - 1;
	return id;
}

/* The stack of a whole chain seen for the first time (its id in
 * p->stacks): its key remembered, its frames located (the callers once per
 * callers' chain, then the leaf), counted once.  -1 if out of memory. */
static long first_stack(struct eq_stacks *st, struct stacks_pass *p, struct eq_symbolizer *s,
			const struct eq_sample *smp, uint32_t who, const struct eqp_callchain *cc,
			int nf, const struct eq_loc *leaf, long id)
{
	size_t n = nf > 0 ? (size_t)nf : 0;
	long cid, si;

	if (EQ_GROW(p->stack_of, p->cap, (size_t)id + 1, 1024) < 0 ||
	    EQ_GROW(p->key_of, p->keycap, (size_t)id + 1, 1024) < 0)
		return -1;
	p->key_of[id] = p->stacks.npool - n - 2;
	if ((cid = callers_id(p, s, smp, who, cc, nf, &leaf)) < 0)
		return -1;
	if (!leaf)
		leaf = eq_sym_lookup(s, smp);
	p->frames[0] = leaf;
	memcpy(p->frames + 1, p->cpool + p->coff[cid], n * sizeof(*p->frames));
	si = add_stack(st, &p->ss, p->frames, n + 1);
	if (si >= 0)
		p->stack_of[id] = (uint32_t)si;
	return si;
}

/* The stack index of sample i of chunk c (counted once more), or -1 if out
 * of memory.  leaf: the sample's location, or NULL to look it up only for a
 * chain not seen. */
static long sample_stack(struct eq_stacks *st, struct stacks_pass *p, struct eq_symbolizer *s,
			 size_t c, size_t i, const struct eq_sample *smp,
			 const struct eq_loc *leaf, int *chain)
{
	struct eqp_callchain cc;
	int nf = eq_sym_callchain(s, c, i, smp, &cc), fresh;
	uint32_t who = callers_space(s, p->multi, smp);
	uint64_t head[2];
	long id, si;
	size_t n = nf > 0 ? (size_t)nf : 0;
	struct chain_guess *g;

	*chain = nf > 0;
	chain_head(smp, who, p->leaf_first ? leaf : NULL, &cc, nf, head);
	g = guess_slot(p, head, n);
	if ((id = chain_guessed(p, g, head, cc.frames, n)) < 0) {
		id = eq_chain_set_id(&p->stacks, eq_chain_hash(head, cc.frames, n), head,
				     cc.frames, n, &fresh);
		if (id < 0)
			return -1;
		*g = (struct chain_guess){ .id1 = (uint32_t)id + 1, .n = (uint32_t)n };
		if (fresh)
			return first_stack(st, p, s, smp, who, &cc, nf, leaf, id);
	}
	si = p->stack_of[id];
	st->stacks[si].samples++;
	return si;
}

struct eq_stacks *eq_stacks_build_range(const struct eqp_file *f, struct eq_symbolizer *s,
					unsigned flags, const struct eq_range *range,
					struct eq_error *err)
{
	struct eq_stacks *st = calloc(1, sizeof(*st));
	struct stacks_pass p = { .frames = malloc((1 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*p.frames)),
				 .guess = calloc((size_t)1 << GUESS_BITS, sizeof(*p.guess)) };
	struct stack_seq *q = calloc(1, sizeof(*q));
	size_t c, i;
	int ranged = eq_range_active(range);
	struct eq_tick_range tr;
	uint64_t t0 = ranged ? eq_samples_t0(f) : 0;
	const struct eq_unwind_stats *us;
	uint64_t cut0;
	/* unwinding a stack copy may load modules: their warnings come in the
	 * order of the per-sample lookups, the leaf first */
	int leaf_first = eqp_has_ustacks(f);

	eq_range_ticks(range, eqp_meta(f)->clock_hz > 0 ? eqp_meta(f)->clock_hz : 1e9, &tr);
	if (!st || !p.frames || !p.guess || !q) {
		free(st);
		free(p.frames);
		free(p.guess);
		free(q);
		eq_fail(err, "out of memory");
		return NULL;
	}
	st->priv_ = q;
	p.multi = eq_sym_multi_space(s);
	p.leaf_first = leaf_first;
	q->times.clock_hz = eqp_meta(f)->clock_hz;
	st->mode = eqp_meta(f)->mode;
	st->per_sample = per_sample_of(f);
	st->note = eqp_meta_get(f, "note");
	stacks_method(st, f);
	us = eq_sym_unwind_stats(s);
	cut0 = us ? us->cut : 0;
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; i < n; i++) {
			const struct eq_loc *leaf = NULL;
			long si;
			int chain, idle;

			if (ranged && !eq_tick_range_has(&tr, smp[i].time - t0))
				continue;
			if (leaf_first)
				leaf = eq_sym_lookup(s, &smp[i]);
			eq_series_time(&q->times, smp[i].time, (smp[i].flags & EQ_F_LOST) != 0);
			/* the idle location is the one of idle samples (symbolize.h) */
			idle = leaf ? leaf->kind == EQ_LOC_IDLE : leaf_bits(&smp[i]) == 2;
			if ((flags & EQ_PROFILE_EXCLUDE_IDLE) && idle)
				continue;
			si = sample_stack(st, &p, s, c, i, &smp[i], leaf, &chain);
			st->with_chain += (uint64_t)chain;
			st->total_samples++;
			if (si >= 0 && !idle) {  /* its leaf is idle if the sample is */
				st->busy++;
				st->unchained += !chain;
			}
			if (si < 0 || seq_add(q, (uint32_t)si)) {
				pass_free(&p);
				eq_stacks_free(st);
				eq_fail(err, "out of memory for call stacks");
				return NULL;
			}
		}
	}
	pass_free(&p);
	us = eq_sym_unwind_stats(s);
	st->cut_stacks = us ? us->cut - cut0 : 0;
	if (sort_stacks(st, q)) {
		eq_stacks_free(st);
		eq_fail(err, "out of memory for call stacks");
		return NULL;
	}
	return st;
}

void eq_stacks_free(struct eq_stacks *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nstacks; i++)
		free(st->stacks[i].frames);
	free(st->stacks);
	if (st->priv_)
		free(((struct stack_seq *)st->priv_)->seq);
	free(st->priv_);
	free(st);
}

/* ---- inclusive profile ---------------------------------------------------- */

static size_t hash_pair(const char *a, const char *b)
{
	return ((size_t)(uintptr_t)a * 0x9E3779B97F4A7C15ULL) ^ ((size_t)(uintptr_t)b >> 3);
}

static int cmp_row(const void *a, const void *b)
{
	const struct eq_cg_row *x = a, *y = b;
	int c;

	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

/* Rows of every stack: rows[off[s]] .. rows[off[s + 1] - 1], ascending. */
struct stack_rows {
	size_t *off;
	uint32_t *rows;
	size_t n, cap;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int sr_add(struct stack_rows *sr, uint32_t row)
{
	if (EQ_GROW(sr->rows, sr->cap, sr->n + 1, 1024) < 0)
		return -1;
	sr->rows[sr->n++] = row;
	return 0;
}

/* Adds w to cnt[r] for every row in exactly one of stacks a and b. */
static void symdiff(const struct stack_rows *sr, uint32_t a, uint32_t b, double w, double *cnt)
{
	size_t i = sr->off[a], ie = sr->off[a + 1], j = sr->off[b], je = sr->off[b + 1];

	while (i < ie || j < je) {
		if (j == je || (i < ie && sr->rows[i] < sr->rows[j])) {
			cnt[sr->rows[i++]] += w;
		} else if (i == ie || sr->rows[j] < sr->rows[i]) {
			cnt[sr->rows[j++]] += w;
		} else {
			i++;
			j++;
		}
	}
}

/*
 * How often each ordered pair of different stacks follows one another
 * (at lag 1 or 2): the rows that differ between two stacks are found once
 * per distinct pair, not once per sample.  The counts are whole numbers
 * below 2^53, so adding a pair's count at once gives the same doubles as
 * adding 1 per sample.
 */
struct pair_count {
	uint64_t key;                 /* a << 32 | b, a != b; 0 empty */
	uint64_t n;
};

struct pair_set {
	struct pair_count *v;
	size_t mask, count;
};

static int pair_add(struct pair_set *ps, uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)a << 32 | b;
	size_t j;

	if ((ps->count + 1) * 2 > ps->mask) {
		size_t nmask = ps->mask ? ps->mask * 2 + 1 : 1023, i;
		struct pair_count *nv = calloc(nmask + 1, sizeof(*nv));

		if (!nv)
			return -1;
		for (i = 0; ps->v && i <= ps->mask; i++) {
			if (!ps->v[i].key)
				continue;
			for (j = (ps->v[i].key * CHAIN_K) >> 20 & nmask; nv[j].key; j = (j + 1) & nmask)
				;
			nv[j] = ps->v[i];
		}
		free(ps->v);
		ps->v = nv;
		ps->mask = nmask;
	}
	for (j = (key * CHAIN_K) >> 20 & ps->mask; ps->v[j].key; j = (j + 1) & ps->mask)
		if (ps->v[j].key == key) {
			ps->v[j].n++;
			return 0;
		}
	ps->v[j] = (struct pair_count){ .key = key, .n = 1 };
	ps->count++;
	return 0;
}

/* A block's samples of each row set (in[set], the sets touched listed in
 * touched[0..nt-1]) added to their rows' counts of block b. */
static void block_flush(const struct stack_rows *sr, const uint32_t *rep, uint64_t *in,
			const uint32_t *touched, size_t nt, unsigned nblocks, unsigned b, double *blk)
{
	size_t t, i;

	for (t = 0; t < nt; t++) {
		uint32_t set = touched[t], sg = rep[set];

		for (i = sr->off[sg]; i < sr->off[sg + 1]; i++)
			blk[(size_t)sr->rows[i] * nblocks + b] += (double)in[set];
		in[set] = 0;
	}
}

struct cg_batches {
	const double *blk;            /* nrows x nblocks counts */
};

static void cg_row_batches(void *arg, size_t i, unsigned nblocks, double *c, size_t stride)
{
	const struct cg_batches *a = arg;
	unsigned b;

	for (b = 0; b < nblocks; b++)
		c[b * stride] += a->blk[i * nblocks + b];
}

/*
 * Stacks with the same set of rows (the same procedures: stacks that
 * differ in their pcs only) have the same indicators: row_sets numbers the
 * distinct sets (set[stack]) and names a stack of each (rep[set]).
 */
struct row_sets {
	uint32_t *set, *rep;
	size_t n;
};

static int row_sets_make(struct row_sets *rs, const struct stack_rows *sr, size_t nstacks)
{
	struct eq_chain_set cs = { 0 };
	uint64_t *w = NULL, head[2] = { 0, 0 };
	size_t cap = 0, i, k;
	int rc = -1;

	if (!(rs->set = malloc((nstacks ? nstacks : 1) * sizeof(*rs->set))) ||
	    !(rs->rep = malloc((nstacks ? nstacks : 1) * sizeof(*rs->rep))))
		goto out;
	for (i = 0; i < nstacks; i++) {
		size_t len = sr->off[i + 1] - sr->off[i];
		int fresh;
		long id;

		if (EQ_GROW(w, cap, len + 1, 256) < 0)
			goto out;
		for (k = 0; k < len; k++)
			w[k] = sr->rows[sr->off[i] + k];
		if ((id = eq_chain_set_id(&cs, eq_chain_hash(head, w, len), head, w, len, &fresh)) < 0)
			goto out;
		rs->set[i] = (uint32_t)id;
		if (fresh)
			rs->rep[id] = (uint32_t)i;
	}
	rs->n = cs.count;
	rc = 0;
out:
	eq_chain_set_free(&cs);
	free(w);
	return rc;
}

/* Pairs of row sets (a, b), a != b, counted: those of the first DENSE_SETS
 * sets (the stacks are numbered most samples first, and the sets in order
 * of their first stack: the most frequent sets come first) in a dense
 * array, the others in a pair_set. */
#define DENSE_SETS 256

struct pair_counts {
	uint64_t *dense;              /* DENSE_SETS x DENSE_SETS */
	struct pair_set hashed;
};

static inline int pc_add(struct pair_counts *pc, uint32_t a, uint32_t b)
{
	if (a < DENSE_SETS && b < DENSE_SETS) {
		pc->dense[(size_t)a * DENSE_SETS + b]++;
		return 0;
	}
	return pair_add(&pc->hashed, a, b);
}

static void pc_symdiff(const struct pair_counts *pc, const struct row_sets *rs,
		       const struct stack_rows *sr, double *cnt)
{
	size_t a, b, i;
	uint64_t k;

	for (i = 0; pc->hashed.v && i <= pc->hashed.mask; i++)
		if ((k = pc->hashed.v[i].key))
			symdiff(sr, rs->rep[k >> 32], rs->rep[(uint32_t)k], (double)pc->hashed.v[i].n, cnt);
	for (a = 0; a < DENSE_SETS && a < rs->n; a++)
		for (b = 0; b < DENSE_SETS && b < rs->n; b++)
			if (pc->dense[a * DENSE_SETS + b])
				symdiff(sr, rs->rep[a], rs->rep[b], (double)pc->dense[a * DENSE_SETS + b], cnt);
}

/* The lag-1 and lag-2 pairs of different row sets (into s->rows.d) and
 * the blocks' counts of every row (blk) over the samples in time order. */
static int cg_series_counts(const struct stack_seq *q, size_t nstacks, const struct stack_rows *sr,
			    struct eq_series *s, double *block_m, double *blk)
{
	struct pair_counts lag[2] = { { 0 } };
	struct row_sets rs = { 0 };
	uint64_t *in = NULL;
	uint32_t *touched = NULL, p1 = 0, p2 = 0;
	size_t nt = 0, ns;
	unsigned nblocks = s->nblocks, b, cur = 0;
	uint64_t n = q ? q->n : 0, g;
	int rc = -1;

	if (row_sets_make(&rs, sr, nstacks) < 0)
		goto out;
	ns = rs.n ? rs.n : 1;
	if (!(lag[0].dense = calloc(DENSE_SETS * DENSE_SETS, sizeof(uint64_t))) ||
	    !(lag[1].dense = calloc(DENSE_SETS * DENSE_SETS, sizeof(uint64_t))))
		goto out;
	if (nblocks && (!(in = calloc(ns, sizeof(*in))) || !(touched = malloc(ns * sizeof(*touched)))))
		goto out;
	for (g = 0; g < n; g++) {
		uint32_t sg = rs.set[q->seq[g]];

		if (g >= 1 && p1 != sg && pc_add(&lag[0], sg, p1) < 0)
			goto out;
		if (g >= 2 && p2 != sg && pc_add(&lag[1], sg, p2) < 0)
			goto out;
		p2 = p1;
		p1 = sg;
		if (nblocks) {
			b = (unsigned)(g * nblocks / n);
			if (b != cur) {
				block_flush(sr, rs.rep, in, touched, nt, nblocks, cur, blk);
				nt = 0;
				cur = b;
			}
			block_m[b]++;
			if (!in[sg]++)
				touched[nt++] = sg;
		}
	}
	if (nblocks)
		block_flush(sr, rs.rep, in, touched, nt, nblocks, cur, blk);
	pc_symdiff(&lag[0], &rs, sr, s->rows.d[0]);
	pc_symdiff(&lag[1], &rs, sr, s->rows.d[1]);
	rc = 0;
out:
	for (b = 0; b < 2; b++) {
		free(lag[b].dense);
		free(lag[b].hashed.v);
	}
	free(rs.set);
	free(rs.rep);
	free(in);
	free(touched);
	return rc;
}

/* Both design effects of every row (callgraph.h), rows in creation order. */
static int cg_intervals(struct eq_callgraph *cg, const struct stack_rows *sr)
{
	const struct eq_stacks *st = cg->st;
	const struct stack_seq *q = st->priv_;
	static const struct eq_series_times none;
	uint64_t n = q ? q->n : 0;
	unsigned nblocks = eq_series_nblocks(n);
	double *blk = NULL, block_m[EQ_BATCHES_MAX] = { 0 };
	struct eq_series s = { .m = (double)n, .n = (double)n, .nblocks = nblocks,
			       .block_m = block_m, .nrows = cg->nrows,
			       .timer = st->mode == EQP_MODE_TIME, .times = q ? &q->times : &none,
			       .batches = cg_row_batches };
	struct eq_series_out o;
	struct cg_batches cb;
	size_t i;

	if (eq_series_rows_alloc(&s.rows, cg->nrows) < 0)
		return -1;
	if ((nblocks && !(blk = calloc((cg->nrows ? cg->nrows : 1) * nblocks, sizeof(double)))) ||
	    cg_series_counts(q, st->nstacks, sr, &s, block_m, blk) < 0) {
		eq_series_rows_free(&s.rows);
		free(blk);
		return -1;
	}
	for (i = 0; i < cg->nrows; i++)
		s.rows.k[i] = (double)cg->rows[i].children;
	cb.blk = blk;
	s.arg = &cb;
	eq_series_intervals(&s, &o);
	for (i = 0; i < cg->nrows; i++) {
		cg->rows[i].deff_sampling = s.rows.deff_sampling[i];
		cg->rows[i].deff_run = s.rows.deff_run[i];
		cg->rows[i].df_run = s.rows.df_run[i];
	}
	cg->ordered = 1;
	cg->batches = o.batches;
	cg->batch_lag1 = o.lag1;
	cg->batch_s = o.batch_s;
	eq_series_rows_free(&s.rows);
	free(blk);
	return 0;
}

void eq_callgraph_set_interval(struct eq_callgraph *cg, enum eq_interval iv)
{
	size_t i;
	double n = (double)cg->st->total_samples;

	cg->interval = iv;
	for (i = 0; i < cg->nrows; i++) {
		struct eq_cg_row *r = &cg->rows[i];
		double deff = iv == EQ_IV_RUN ? r->deff_run : r->deff_sampling;
		double z = iv == EQ_IV_RUN ? eq_t95(r->df_run) : EQ_Z95;

		eq_wilson_eff(r->children_share, deff > 0 ? n / deff : INFINITY, z, &r->ci95_low,
			      &r->ci95_high);
	}
}

struct eq_callgraph *eq_callgraph_build(const struct eq_stacks *st, struct eq_error *err)
{
	struct eq_callgraph *cg = calloc(1, sizeof(*cg));
	size_t *slots = NULL, mask = 0, cap = 0, i, j, k;
	size_t *seen = NULL, seen_cap = 0;     /* row -> last stack index + 1 that held it */
	struct stack_rows sr = { 0 };

	if (!cg || !(sr.off = calloc(st->nstacks + 1, sizeof(*sr.off))))
		goto oom;
	cg->st = st;
	for (i = 0; i < st->nstacks; i++) {
		const struct eq_stack *sk = &st->stacks[i];

		sr.off[i] = sr.n;

		for (k = 0; k < sk->depth; k++) {
			const char *name = eq_frame_name(sk->frames[k]);
			const char *mod = frame_module(sk->frames[k]);
			size_t h;

			if ((cg->nrows + 1) * 2 > mask) {
				size_t nmask = mask ? mask * 2 + 1 : 255, r;
				size_t *ns = calloc(nmask + 1, sizeof(*ns));

				if (!ns)
					goto oom;
				for (r = 0; r < cg->nrows; r++) {
					for (h = hash_pair(cg->rows[r].name, cg->rows[r].module) & nmask; ns[h];
					     h = (h + 1) & nmask)
						;
					ns[h] = r + 1;
				}
				free(slots);
				slots = ns;
				mask = nmask;
			}
			for (h = hash_pair(name, mod) & mask; slots[h]; h = (h + 1) & mask)
				if (cg->rows[slots[h] - 1].name == name && cg->rows[slots[h] - 1].module == mod)
					break;
			if (!slots[h]) {
				if (EQ_GROW(cg->rows, cap, cg->nrows + 1, 64) < 0 ||
				    EQ_GROW(seen, seen_cap, cg->nrows + 1, 64) < 0)
					goto oom;
				memset(&cg->rows[cg->nrows], 0, sizeof(cg->rows[0]));
				cg->rows[cg->nrows].name = name;
				cg->rows[cg->nrows].module = mod;
				seen[cg->nrows] = 0;
				slots[h] = ++cg->nrows;
			}
			j = slots[h] - 1;
			/* recursion: a procedure counts once per stack */
			if (seen[j] == i + 1)
				continue;
			seen[j] = i + 1;
			cg->rows[j].children += sk->samples;
			if (k == 0)
				cg->rows[j].self += sk->samples;
			if (sr_add(&sr, (uint32_t)j))
				goto oom;
		}
		qsort(sr.rows + sr.off[i], sr.n - sr.off[i], sizeof(*sr.rows), cmp_u32);
	}
	sr.off[st->nstacks] = sr.n;
	free(slots);
	slots = NULL;
	free(seen);
	seen = NULL;
	for (j = 0; j < cg->nrows; j++) {
		struct eq_cg_row *r = &cg->rows[j];
		uint64_t n = st->total_samples;

		r->children_share = n ? (double)r->children / n : 0;
		r->self_share = n ? (double)r->self / n : 0;
	}
	if (cg_intervals(cg, &sr))
		goto oom;
	eq_callgraph_set_interval(cg, EQ_IV_SAMPLING);
	free(sr.off);
	free(sr.rows);
	if (cg->nrows)
		qsort(cg->rows, cg->nrows, sizeof(*cg->rows), cmp_row);
	return cg;
oom:
	free(sr.off);
	free(sr.rows);
	free(slots);
	free(seen);
	eq_callgraph_free(cg);
	eq_fail(err, "out of memory for the call graph");
	return NULL;
}

void eq_callgraph_free(struct eq_callgraph *cg)
{
	if (!cg)
		return;
	free(cg->rows);
	free(cg);
}

/* ---- the stacks that hold each row --------------------------------------- */

/* Where each row is: for row r (in cg->rows' order), the stacks that hold
 * it, ascending, each with the row's outermost frame in it, so that a
 * row's paths and tree visit those stacks only, not every stack. */
struct row_where {
	uint32_t stack, at;
};

struct row_index {
	size_t *off;                  /* row r: e[off[r]] .. e[off[r + 1] - 1] */
	struct row_where *e;
};

struct where_tmp {
	uint32_t row;
	struct row_where w;
};

static void row_index_free(struct row_index *ri)
{
	free(ri->off);
	free(ri->e);
	ri->off = NULL;
	ri->e = NULL;
}

/* The row of frame l (cg's rows by name and module in slots), or -1. */
static long row_of(const struct eq_callgraph *cg, const size_t *slots, size_t mask,
		   const struct eq_loc *l)
{
	const char *name = eq_frame_name(l), *mod = frame_module(l);
	size_t h;

	for (h = hash_pair(name, mod) & mask; slots[h]; h = (h + 1) & mask)
		if (cg->rows[slots[h] - 1].name == name && cg->rows[slots[h] - 1].module == mod)
			return (long)slots[h] - 1;
	return -1;
}

static int row_index_make(struct row_index *ri, const struct eq_callgraph *cg)
{
	const struct eq_stacks *st = cg->st;
	size_t mask = 255, i, k, n = 0, cap = 0, *slots, h;
	uint32_t *last = calloc(cg->nrows ? cg->nrows : 1, sizeof(*last));
	struct where_tmp *tmp = NULL;
	int rc = -1;

	ri->off = NULL;
	ri->e = NULL;
	while (mask < 2 * cg->nrows)
		mask = mask * 2 + 1;
	slots = calloc(mask + 1, sizeof(*slots));
	if (!slots || !last)
		goto out;
	for (i = 0; i < cg->nrows; i++) {
		for (h = hash_pair(cg->rows[i].name, cg->rows[i].module) & mask; slots[h];
		     h = (h + 1) & mask)
			;
		slots[h] = i + 1;
	}
	/* each stack's rows from the outermost frame in: the first sight of a
	 * row is its outermost frame */
	for (i = 0; i < st->nstacks; i++) {
		const struct eq_stack *sk = &st->stacks[i];

		for (k = sk->depth; k-- > 0;) {
			long r = row_of(cg, slots, mask, sk->frames[k]);

			if (r < 0 || last[r] == i + 1)
				continue;
			last[r] = (uint32_t)(i + 1);
			if (EQ_GROW(tmp, cap, n + 1, 1024) < 0)
				goto out;
			tmp[n++] = (struct where_tmp){ (uint32_t)r, { (uint32_t)i, (uint32_t)k } };
		}
	}
	/* by row, stacks ascending within (a counting sort keeps their order) */
	if (!(ri->off = calloc(cg->nrows + 1, sizeof(*ri->off))) ||
	    !(ri->e = malloc((n ? n : 1) * sizeof(*ri->e))))
		goto out;
	for (i = 0; i < n; i++)
		ri->off[tmp[i].row + 1]++;
	for (i = 0; i < cg->nrows; i++)
		ri->off[i + 1] += ri->off[i];
	memset(last, 0, (cg->nrows ? cg->nrows : 1) * sizeof(*last));
	for (i = 0; i < n; i++)
		ri->e[ri->off[tmp[i].row] + last[tmp[i].row]++] = tmp[i].w;
	rc = 0;
out:
	if (rc)
		row_index_free(ri);
	free(slots);
	free(last);
	free(tmp);
	return rc;
}

/* ---- call paths to a row ---------------------------------------------- */

struct path {
	const struct eq_stack *stack; /* a stack that holds the row */
	size_t at;                    /* the row's outermost frame in it */
	uint64_t samples;
};

/* 1 when frame at..depth-1 of a equals that of b (by name and module). */
static int same_path(const struct path *a, const struct path *b)
{
	size_t i;

	if (a->stack->depth - a->at != b->stack->depth - b->at)
		return 0;
	for (i = 0; a->at + i < a->stack->depth; i++) {
		const struct eq_loc *x = a->stack->frames[a->at + i], *y = b->stack->frames[b->at + i];

		if (eq_frame_name(x) != eq_frame_name(y) || frame_module(x) != frame_module(y))
			return 0;
	}
	return 1;
}

static int cmp_path(const void *a, const void *b)
{
	const struct path *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* Distinct paths from the outermost caller to row r (the row index's
 * row), most samples first. */
static struct path *paths_to(const struct eq_stacks *st, const struct row_index *ri, size_t r,
			     size_t *np)
{
	struct path *p = NULL;
	size_t n = 0, i, q;

	for (i = ri->off[r]; i < ri->off[r + 1]; i++) {
		const struct eq_stack *sk = &st->stacks[ri->e[i].stack];
		struct path cur = { sk, ri->e[i].at, sk->samples };

		for (q = 0; q < n; q++)
			if (same_path(&p[q], &cur)) {
				p[q].samples += cur.samples;
				break;
			}
		if (q < n)
			continue;
		if (!(n & (n + 1)) || n == 0) {
			struct path *np2 = realloc(p, (n + 1) * 2 * sizeof(*p));

			if (!np2) {
				free(p);
				*np = 0;
				return NULL;
			}
			p = np2;
		}
		p[n++] = cur;
	}
	if (n)
		qsort(p, n, sizeof(*p), cmp_path);
	*np = n;
	return p;
}


/* ---- call trees under a row (perf's graph) ------------------------------ */

struct tnode {
	const char *name, *module;
	uint64_t samples;
	size_t first, next;           /* first child, next sibling: index + 1, 0 for none */
};

struct tree {
	struct tnode *n;
	size_t len, cap;
	size_t *slots, mask;          /* nodes by (parent, name, module): index + 1 */
	size_t *parent;               /* of each node */
	size_t pcap;
	int bad;                      /* out of memory: print nothing */
};

static size_t hash_child(size_t parent, const char *name, const char *mod)
{
	return (hash_pair(name, mod) ^ parent) * 0x9E3779B97F4A7C15ULL >> 7;
}

static int tree_slots_grow(struct tree *t)
{
	size_t nmask = t->mask ? 2 * t->mask + 1 : 255, i, h;
	size_t *ns = calloc(nmask + 1, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 1; i < t->len; i++) {
		for (h = hash_child(t->parent[i], t->n[i].name, t->n[i].module) & nmask; ns[h];
		     h = (h + 1) & nmask)
			;
		ns[h] = i + 1;
	}
	free(t->slots);
	t->slots = ns;
	t->mask = nmask;
	return 0;
}

/* The child of parent for frame l, made (first among its siblings) when new. */
static size_t tree_child(struct tree *t, size_t parent, const struct eq_loc *l)
{
	const char *name = eq_frame_name(l), *mod = frame_module(l);
	size_t h;

	if ((t->len + 1) * 2 > t->mask && tree_slots_grow(t) < 0) {
		t->bad = 1;
		return SIZE_MAX;
	}
	for (h = hash_child(parent, name, mod) & t->mask; t->slots[h]; h = (h + 1) & t->mask) {
		size_t k = t->slots[h] - 1;

		if (t->parent[k] == parent && t->n[k].name == name && t->n[k].module == mod)
			return k;
	}
	if (EQ_GROW(t->n, t->cap, t->len + 1, 64) < 0 ||
	    EQ_GROW(t->parent, t->pcap, t->len + 1, 64) < 0) {
		t->bad = 1;
		return SIZE_MAX;
	}
	t->n[t->len] = (struct tnode){ .name = name, .module = mod, .next = t->n[parent].first };
	t->parent[t->len] = parent;
	t->slots[h] = t->len + 1;
	t->n[parent].first = ++t->len;
	return t->len - 1;
}

/* The row's frames of every stack that holds it, from the row outwards to
 * the outermost caller (callers) or inwards to the leaf (callees). */
static void tree_build(struct tree *t, const struct eq_stacks *st, const struct eq_cg_row *r,
		       const struct row_index *ri, size_t ir, int callees)
{
	size_t i, k, at, node;

	if (EQ_GROW(t->n, t->cap, 1, 64) < 0 || EQ_GROW(t->parent, t->pcap, 1, 64) < 0) {
		t->bad = 1;
		return;
	}
	t->n[0] = (struct tnode){ .name = r->name, .module = r->module };
	t->parent[0] = SIZE_MAX;
	t->len = 1;
	for (i = ri->off[ir]; i < ri->off[ir + 1] && !t->bad; i++) {
		const struct eq_stack *sk = &st->stacks[ri->e[i].stack];

		at = ri->e[i].at;
		t->n[0].samples += sk->samples;
		node = 0;
		if (callees)
			for (k = at; k-- > 0 && node != SIZE_MAX;) {
				node = tree_child(t, node, sk->frames[k]);
				if (node != SIZE_MAX)
					t->n[node].samples += sk->samples;
			}
		else
			for (k = at + 1; k < sk->depth && node != SIZE_MAX; k++) {
				node = tree_child(t, node, sk->frames[k]);
				if (node != SIZE_MAX)
					t->n[node].samples += sk->samples;
			}
	}
}

struct tree_print {
	FILE *out;
	const struct tree *t;
	uint64_t total;               /* the row's samples: percentages are of them */
	double limit;                 /* branches below this percentage are left out */
	int width;
	char prefix[4096];
};

static void tree_line(struct tree_print *tp, size_t plen, const char *branch, const char *name)
{
	char line[8192];
	int n = snprintf(line, sizeof(line), "%.*s%s%s", (int)plen, tp->prefix, branch, name);

	if (tp->width > 8 && n > tp->width)
		snprintf(line + tp->width - 2, sizeof(line) - (size_t)tp->width + 2, "..");
	/* no trailing blanks */
	for (n = (int)strlen(line); n > 0 && line[n - 1] == ' '; n--)
		line[n - 1] = '\0';
	fprintf(tp->out, "%s\n", line);
}

static int cmp_tnode_idx(const void *a, const void *b, void *arg)
{
	const struct tnode *n = arg;
	uint64_t x = n[*(const size_t *)a].samples, y = n[*(const size_t *)b].samples;

	return x < y ? 1 : x > y ? -1 : strcmp(n[*(const size_t *)a].name, n[*(const size_t *)b].name);
}

/* Children of node i at prefix length plen: a single child that holds all
 * of the node's samples continues straight down, as perf draws it; several
 * (or one holding less) branch with their share of the row. */
static void tree_children(struct tree_print *tp, size_t i, size_t plen, unsigned depth)
{
	const struct tnode *n = tp->t->n;
	size_t kids[256], nk = 0, k, j;
	char branch[48];

	for (k = n[i].first; k && nk < 256; k = n[k - 1].next)
		if (100.0 * (double)n[k - 1].samples >= tp->limit * (double)tp->total)
			kids[nk++] = k - 1;
	if (!nk || depth > 512)
		return;
	qsort_r(kids, nk, sizeof(kids[0]), cmp_tnode_idx, (void *)n);
	if (nk == 1 && n[kids[0]].samples == n[i].samples) {
		tree_line(tp, plen, "", n[kids[0]].name);
		tree_children(tp, kids[0], plen, depth + 1);
		return;
	}
	for (j = 0; j < nk; j++) {
		int last = j + 1 == nk;
		size_t w;

		tree_line(tp, plen, "|", "");
		w = (size_t)snprintf(branch, sizeof(branch), "%s--%.2f%%--", last ? " " : "|",
				     100.0 * (double)n[kids[j]].samples / (double)tp->total);
		tree_line(tp, plen, branch, n[kids[j]].name);
		if (plen + w + 1 >= sizeof(tp->prefix))
			continue;
		/* the branch's column goes on below it while siblings follow */
		memset(tp->prefix + plen, ' ', w);
		tp->prefix[plen] = last ? ' ' : '|';
		tree_children(tp, kids[j], plen + w, depth + 1);
	}
}

/*
 * Under a row, as perf report's graph: who called it (or what it called)
 * with each branch's share of the row's samples.
 *
 *             |
 *             ---leaf
 *                |
 *                |--74.89%--b
 *                |          main
 *                |
 *                 --24.89%--a
 *                           main
 */
static void print_tree(FILE *out, const struct eq_stacks *st, const struct eq_cg_row *r,
		       const struct row_index *ri, size_t ir, const struct eq_cg_print *o)
{
	struct tree t = { 0 };
	struct tree_print tp = { .out = out, .t = &t, .limit = o->path_limit, .width = o->width };

	tree_build(&t, st, r, ri, ir, o->callees);
	if (!t.bad && t.n[0].samples) {
		tp.total = t.n[0].samples;
		memset(tp.prefix, ' ', 15);
		tree_line(&tp, 12, "|", "");
		tree_line(&tp, 12, "---", t.n[0].name);
		tree_children(&tp, 0, 15, 0);
		fputc('\n', out);
	}
	free(t.n);
	free(t.slots);
	free(t.parent);
}

/* ---- printing ------------------------------------------------------------- */

static const char *unit(const struct eq_stacks *st)
{
	return st->mode == EQP_MODE_ENERGY ? "J" : "s";
}

/* The flat profile's description of the interval, for these rows. */
static void describe_interval(FILE *out, const struct eq_callgraph *cg)
{
	struct eq_profile p = { .interval = cg->interval, .ordered = cg->ordered,
				.batches = cg->batches, .batch_lag1 = cg->batch_lag1,
				.batch_s = cg->batch_s };

	eq_interval_describe(out, &p);
}

/*
 * Why callers are missing, when the recording says: frame pointers that
 * the code does not keep (-g on -O2 code: "836 samples, 9 with a call
 * chain"), or stack copies too short for the frames above them (only
 * stacks whose unwinding did stop at the copy's end: a full copy is the
 * rule, not a sign of anything cut).
 */
static void print_chain_notes(FILE *out, const struct eq_stacks *st)
{
	if (st->fp_chains && st->busy && 2 * st->unchained > st->busy)
		fprintf(out, "# note: %llu of %llu samples outside idle have no caller: -g follows frame "
			"pointers, which code built without -fno-omit-frame-pointer does not keep (gcc and "
			"clang omit them from -O1 on); record with --call-graph dwarf, which unwinds from "
			"the DWARF call-frame information\n", (unsigned long long)st->unchained,
			(unsigned long long)st->busy);
	if (st->cut_stacks)
		fprintf(out, "# note: %llu sample%s (%.1f%%) ha%s a stack cut off at the end of its "
			"%u-byte copy: callers above it are missing (record with --call-graph dwarf,%u)\n",
			(unsigned long long)st->cut_stacks, st->cut_stacks == 1 ? "" : "s",
			100.0 * (double)st->cut_stacks / (double)(st->total_samples ? st->total_samples : 1),
			st->cut_stacks == 1 ? "s" : "ve", st->copy_size,
			st->copy_size && st->copy_size <= 32768 ? 2 * st->copy_size : 65528);
}

static void print_table(FILE *out, const struct eq_callgraph *cg, const struct eq_cg_print *o)
{
	const struct eq_stacks *st = cg->st;
	struct row_index ri = { 0 };
	char b1[32], b2[32];
	size_t i;
	/* out of memory: no trees, as when a tree could not be made */
	int trees = o->call_paths && row_index_make(&ri, cg) == 0;

	fprintf(out, "# %s profile with call chains of %s\n",
		st->mode == EQP_MODE_ENERGY ? "energy" : "time", o->source);
	fprintf(out, "# %llu samples, %llu with a call chain", (unsigned long long)st->total_samples,
		(unsigned long long)st->with_chain);
	if (st->per_sample > 0)
		fprintf(out, "; %s a sample", eq_format_quantity(b1, sizeof(b1), st->per_sample, unit(st)));
	fputs("\n# children: the procedure and everything it called; self: the procedure alone\n", out);
	print_chain_notes(out, st);
	describe_interval(out, cg);
	if (st->note)
		fprintf(out, "# note: %s\n", st->note);
	fprintf(out, "%9s %8s %9s %10s  %-19s %-20s %s\n", "children", "self", "samples",
		st->mode == EQP_MODE_ENERGY ? "energy" : "time", "95% CI of children", "module", "proc");
	for (i = 0; i < cg->nrows; i++) {
		const struct eq_cg_row *r = &cg->rows[i];

		if (100.0 * r->children_share < o->percent_limit)
			continue;
		fprintf(out, "%8.2f%% %7.2f%% %9llu %10s  [%6.2f%%, %6.2f%%]   %-20s %s\n",
			100 * r->children_share, 100 * r->self_share, (unsigned long long)r->children,
			st->per_sample > 0 ? eq_format_quantity(b2, sizeof(b2), r->children * st->per_sample, unit(st)) : "-",
			100 * r->ci95_low, 100 * r->ci95_high, r->module ? r->module : "", r->name);
		if (trees)
			print_tree(out, st, r, &ri, i, o);
	}
	row_index_free(&ri);
}

static void print_csv(FILE *out, const struct eq_callgraph *cg, const struct eq_cg_print *o)
{
	const struct eq_stacks *st = cg->st;
	const char *u = st->mode == EQP_MODE_ENERGY ? "energy_j" : "time_s";
	size_t i;

	fprintf(out, "name,module,children_samples,children_share,self_samples,self_share,children_%s,self_%s,ci95_low,ci95_high\n",
		u, u);
	for (i = 0; i < cg->nrows; i++) {
		const struct eq_cg_row *r = &cg->rows[i];

		if (100.0 * r->children_share < o->percent_limit)
			continue;
		eq_csv_field(out, r->name);
		fputc(',', out);
		eq_csv_field(out, r->module ? r->module : "");
		fprintf(out, ",%llu,%.8f,%llu,%.8f,", (unsigned long long)r->children, r->children_share,
			(unsigned long long)r->self, r->self_share);
		if (st->per_sample > 0)
			fprintf(out, "%.9g,%.9g", r->children * st->per_sample, r->self * st->per_sample);
		else
			fputc(',', out);
		fprintf(out, ",%.8f,%.8f\n", r->ci95_low, r->ci95_high);
	}
}

static void print_json(FILE *out, const struct eq_callgraph *cg, const struct eq_cg_print *o)
{
	const struct eq_stacks *st = cg->st;
	const char *u = st->mode == EQP_MODE_ENERGY ? "energy_j" : "time_s";
	size_t i, k, m, printed = 0;
	struct row_index ri = { 0 };
	int have_ri = o->call_paths && row_index_make(&ri, cg) == 0;

	fprintf(out, "{\n  \"mode\": \"%s\",\n  \"by\": \"proc\",\n  \"children\": true,\n  \"%s\": ",
		st->mode == EQP_MODE_ENERGY ? "energy" : "time",
		st->mode == EQP_MODE_ENERGY ? "quantum_j" : "period_s");
	eq_json_number(out, st->per_sample > 0 ? st->per_sample : NAN);
	fprintf(out, ",\n  \"total_samples\": %llu,\n  \"samples_with_chain\": %llu,",
		(unsigned long long)st->total_samples, (unsigned long long)st->with_chain);
	{
		struct eq_profile p = { .interval = cg->interval, .ordered = cg->ordered,
					.batches = cg->batches };

		fprintf(out, "\n  \"interval\": \"%s\", \"interval_method\": \"%s\", "
			"\"batches\": %u, \"batch_s\": ", eq_interval_name(cg->interval),
			eq_interval_method(&p), cg->batches);
	}
	eq_json_number(out, cg->batch_s > 0 ? cg->batch_s : NAN);
	fputs(", \"batch_lag1\": ", out);
	eq_json_number(out, cg->batches ? cg->batch_lag1 : NAN);
	fputs(",\n  \"rows\": [", out);
	for (i = 0; i < cg->nrows; i++) {
		const struct eq_cg_row *r = &cg->rows[i];

		if (100.0 * r->children_share < o->percent_limit)
			continue;
		fputs(printed++ ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		eq_json_string(out, r->name);
		fputs(", \"module\": ", out);
		eq_json_string(out, r->module ? r->module : "");
		fprintf(out, ", \"children_samples\": %llu, \"children_share\": %.8f, \"self_samples\": %llu, \"self_share\": %.8f",
			(unsigned long long)r->children, r->children_share, (unsigned long long)r->self,
			r->self_share);
		fprintf(out, ", \"children_%s\": ", u);
		eq_json_number(out, st->per_sample > 0 ? r->children * st->per_sample : NAN);
		fprintf(out, ", \"self_%s\": ", u);
		eq_json_number(out, st->per_sample > 0 ? r->self * st->per_sample : NAN);
		fprintf(out, ", \"ci95_low\": %.8f, \"ci95_high\": %.8f, \"deff\": ", r->ci95_low,
			r->ci95_high);
		eq_json_number(out, cg->interval == EQ_IV_RUN ? r->deff_run : r->deff_sampling);
		if (o->call_paths) {
			size_t np;
			/* out of memory: no paths, as when they could not be made */
			struct path *p = have_ri ? paths_to(st, &ri, i, &np) : NULL;

			if (!p)
				np = 0;

			fputs(", \"paths\": [", out);
			for (k = 0; k < np; k++) {
				fprintf(out, "%s{\"samples\": %llu, \"frames\": [", k ? ", " : "",
					(unsigned long long)p[k].samples);
				for (m = p[k].stack->depth; m-- > p[k].at;) {
					eq_json_string(out, eq_frame_name(p[k].stack->frames[m]));
					if (m > p[k].at)
						fputs(", ", out);
				}
				fputs("]}", out);
			}
			fputc(']', out);
			free(p);
		}
		fputc('}', out);
	}
	fputs("\n  ]\n}\n", out);
	row_index_free(&ri);
}

void eq_callgraph_print(FILE *out, const struct eq_callgraph *cg, const struct eq_cg_print *o)
{
	if (o->fmt == EQ_FMT_JSON)
		print_json(out, cg, o);
	else if (o->fmt == EQ_FMT_CSV)
		print_csv(out, cg, o);
	else
		print_table(out, cg, o);
}

/* ---- folded stacks ---------------------------------------------------------- */

int eq_folded_put(char **key, size_t *len, size_t *cap, const char *name, int sep)
{
	size_t need = strlen(name) + 2;

	if (*len + need + 1 > *cap) {
		size_t ncap = (*len + need + 1) * 2;
		char *n = realloc(*key, ncap);

		if (!n)
			return -1;
		*key = n;
		*cap = ncap;
	}
	if (sep)
		(*key)[(*len)++] = ';';
	for (; *name; name++)
		(*key)[(*len)++] = *name == ';' ? ':' : *name == '\n' ? ' ' : *name;
	(*key)[*len] = '\0';
	return 0;
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct eq_folded *)a)->key, ((const struct eq_folded *)b)->key);
}

int eq_folded_write(FILE *out, struct eq_folded *fo, size_t n, struct eq_error *err)
{
	size_t i, k;

	qsort(fo, n, sizeof(*fo), cmp_folded);
	for (i = 0; i < n; i = k) {
		uint64_t sum = 0;

		for (k = i; k < n && !strcmp(fo[k].key, fo[i].key); k++)
			sum += fo[k].samples;
		fprintf(out, "%s %llu\n", fo[i].key, (unsigned long long)sum);
	}
	eq_folded_free(fo, n);
	return ferror(out) ? eq_fail(err, "writing the folded stacks failed") : 0;
}

void eq_folded_free(struct eq_folded *fo, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(fo[i].key);
	free(fo);
}

int eq_stacks_write_folded(FILE *out, const struct eq_stacks *st, struct eq_error *err)
{
	struct eq_folded *fo = calloc(st->nstacks ? st->nstacks : 1, sizeof(*fo));
	size_t i, k, n = 0;

	if (!fo)
		return eq_fail(err, "out of memory");
	for (i = 0; i < st->nstacks; i++) {
		const struct eq_stack *sk = &st->stacks[i];
		const struct eq_loc *leaf = sk->frames[0];
		char *key = NULL;
		size_t len = 0, cap = 0;
		int bad = eq_folded_put(&key, &len, &cap, leaf->exe ? leaf->exe : unknown_name, 0);

		for (k = sk->depth; k-- > 0 && !bad;) {
			char b[600];

			bad = eq_folded_put(&key, &len, &cap, eq_folded_frame_name(sk->frames[k], b, sizeof(b)), 1);
		}
		if (bad) {
			free(key);
			eq_folded_free(fo, n);
			return eq_fail(err, "out of memory");
		}
		fo[n].key = key;
		fo[n++].samples = sk->samples;
	}
	return eq_folded_write(out, fo, n, err);
}
