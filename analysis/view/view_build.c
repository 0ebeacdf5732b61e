/*
 * view_build.c - a recording folded into time buckets (view.h).
 *
 * Two passes: the power intervals (power.h's stream, whatever its basis)
 * spread over the buckets they overlap, then the samples in time order,
 * each located once per distinct (address space, pc, flags) and counted in
 * its bucket under every grouping.  Memory follows the buckets, the rows
 * and the distinct stacks, not the samples (but for an index that puts the
 * samples of an unordered recording in time order).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/callgraph.h"
#include "util/grow.h"
#include "view/view_priv.h"

#define NONE UINT32_MAX
#define PREFETCH_AHEAD 8

/* ---- sparse per-bucket lists ------------------------------------------- */

int eq_vcsr_init(struct vcsr *c, size_t nb, unsigned width)
{
	memset(c, 0, sizeof(*c));
	c->width = width;
	c->off = calloc(nb + 1, sizeof(*c->off));
	return c->off ? 0 : -1;
}

int eq_vcsr_push(struct vcsr *c, const uint32_t *v)
{
	if (EQ_GROW(c->v, c->cap, (c->n + 1) * c->width, 1024) < 0)
		return -1;
	memcpy(c->v + c->n * c->width, v, c->width * sizeof(*v));
	c->n++;
	return 0;
}

/* Buckets up to b (included) are complete. */
static void vcsr_close(struct vcsr *c, size_t from, size_t b)
{
	size_t k;

	for (k = from; k <= b; k++)
		c->off[k + 1] = (uint32_t)c->n;
}

void eq_vcsr_free(struct vcsr *c)
{
	free(c->off);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* ---- buckets and edges ------------------------------------------------- */

/* Edge k's time: k x w ticks, as range.h turns a typed time into a double. */
static double edge(const struct eq_view *v, size_t k)
{
	return (double)((uint64_t)k * v->w) / v->clock_hz;
}

static size_t guess(const struct eq_view *v, double t)
{
	double g = floor(t * v->clock_hz / (double)v->w);

	return g < 0 ? 0 : g >= (double)v->nb ? v->nb - 1 : (size_t)g;
}

/* The bucket an interval ending at t belongs to: edge k < t <= edge k+1. */
static size_t bucket_of_end(const struct eq_view *v, double t)
{
	size_t k = guess(v, t);

	while (k > 0 && t <= edge(v, k))
		k--;
	while (k + 1 < v->nb && t > edge(v, k + 1))
		k++;
	return k;
}

/* The bucket holding a start a: edge k <= a < edge k+1. */
static size_t bucket_of_start(const struct eq_view *v, double a)
{
	size_t k = guess(v, a);

	while (k > 0 && a < edge(v, k))
		k--;
	while (k + 1 < v->nb && a >= edge(v, k + 1))
		k++;
	return k;
}

/* ---- pass 1: power ------------------------------------------------------- */

static int alloc_power(struct eq_view *v)
{
	size_t nb = v->nb;

	v->e = calloc(nb, sizeof(*v->e));
	v->nint = calloc(nb, sizeof(*v->nint));
	v->nidle_int = calloc(nb, sizeof(*v->nidle_int));
	v->pmin = malloc(nb * sizeof(*v->pmin));
	v->pmax = malloc(nb * sizeof(*v->pmax));
	v->se = calloc(nb + 1, sizeof(*v->se));
	v->sa = calloc(nb + 1, sizeof(*v->sa));
	v->sb = calloc(nb + 1, sizeof(*v->sb));
	v->board_drops = calloc(nb, sizeof(*v->board_drops));
	if (!v->e || !v->nint || !v->nidle_int || !v->pmin || !v->pmax || !v->se || !v->sa ||
	    !v->sb || !v->board_drops || eq_vcsr_init(&v->hist, nb, 3) < 0)
		return -1;
	for (size_t k = 0; k < nb; k++)
		v->pmin[k] = v->pmax[k] = NAN;
	return 0;
}

#define NFINE (POWER_LOG_DECADES * POWER_FINE_PER_DECADE)

/* Fine-bin counts of the bucket being filled: dense, with the bins used. */
struct bins {
	uint32_t all[NFINE], idle[NFINE];
	uint32_t used[NFINE];
	size_t n;
};

static inline void bins_add(struct bins *b, int bin, int idle)
{
	if (!b->all[bin])
		b->used[b->n++] = (uint32_t)bin;
	b->all[bin]++;
	b->idle[bin] += (uint32_t)idle;
}

static int cmp_u32(const void *x, const void *y);

static int bins_flush(struct eq_view *v, struct bins *b)
{
	size_t i;

	if (b->n)
		qsort(b->used, b->n, sizeof(*b->used), cmp_u32);
	for (i = 0; i < b->n; i++) {
		uint32_t k = b->used[i], e[3] = { k, b->all[k], b->idle[k] };

		if (eq_vcsr_push(&v->hist, e) < 0)
			return -1;
		b->all[k] = b->idle[k] = 0;
	}
	b->n = 0;
	return 0;
}

static void spread(struct eq_view *v, const struct power_iv *iv)
{
	double a = iv->t - iv->dt, b = iv->t;
	size_t ka = bucket_of_start(v, a), kb = bucket_of_end(v, b), j;

	for (j = ka; j <= kb; j++) {
		double lo = a > edge(v, j) ? a : edge(v, j);
		double hi = b < edge(v, j + 1) ? b : edge(v, j + 1);

		if (hi > lo)
			v->e[j] += iv->energy_j * (hi - lo) / iv->dt;
		if (j > ka && a < edge(v, j) && edge(v, j) < b) {
			v->se[j] = iv->energy_j;
			v->sa[j] = a;
			v->sb[j] = b;
		}
	}
}

/*
 * power_log_bin(p, FINE) without a logarithm for every interval: the
 * lowest power of each bin, found once by bisection over the doubles with
 * power_log_bin itself, and a search among them.  A power within a
 * billionth of a bin's edge asks power_log_bin (so the bin is its bin
 * whatever the last digit of log10 does there).
 */
struct fine_bins {
	double lo[NFINE + 1];  /* lo[k]: the least power in bin k or above (k >= 1) */
};

static double first_in_bin(int k)
{
	double lo = power_log_bin_edge(k, POWER_FINE_PER_DECADE) * 0.999;
	double hi = power_log_bin_edge(k, POWER_FINE_PER_DECADE) * 1.001;
	uint64_t a, b;

	memcpy(&a, &lo, sizeof(a));   /* positive doubles order as their bits */
	memcpy(&b, &hi, sizeof(b));
	while (b - a > 1) {   /* bin(a) < k <= bin(b) */
		uint64_t m = a + (b - a) / 2;
		double x;

		memcpy(&x, &m, sizeof(x));
		if (power_log_bin(x, POWER_FINE_PER_DECADE) >= k)
			b = m;
		else
			a = m;
	}
	memcpy(&hi, &b, sizeof(hi));
	return hi;
}

static void fine_bins_init(struct fine_bins *fb)
{
	int k;

	fb->lo[0] = 0;
	for (k = 1; k < NFINE; k++)
		fb->lo[k] = first_in_bin(k);
	fb->lo[NFINE] = INFINITY;
}

static int fine_bin(const struct fine_bins *fb, double p, int guess)
{
	int k = guess, est;

	if (!(p > 1e-12) || !(p < 1e12))
		return power_log_bin(p, POWER_FINE_PER_DECADE);
	if (!(p >= fb->lo[k] && p < fb->lo[k + 1])) {
		/* log2 p within 0.09 from its bits: a few bins off at most */
		uint64_t bits;
		double l2;

		memcpy(&bits, &p, sizeof(bits));
		l2 = (double)((int)(bits >> 52 & 0x7ff) - 1023) +
		     (double)(bits & 0xfffffffffffffull) / 4503599627370496.0;
		est = (int)floor(l2 * 0.30102999566398120 * POWER_FINE_PER_DECADE) +
		      12 * POWER_FINE_PER_DECADE;
		k = est < 0 ? 0 : est > NFINE - 1 ? NFINE - 1 : est;
		while (k > 0 && fb->lo[k] > p)
			k--;
		while (k + 1 < NFINE && fb->lo[k + 1] <= p)
			k++;
	}
	if (p < fb->lo[k] * (1 + 1e-9) || p > fb->lo[k + 1] * (1 - 1e-9))
		return power_log_bin(p, POWER_FINE_PER_DECADE);
	return k;
}

/* The bucket being filled by pass 1, with its edges. */
struct pcur {
	size_t k;
	double lo, hi;        /* edge(k), edge(k + 1) */
};

static void pcur_set(const struct eq_view *v, struct pcur *c, size_t k)
{
	c->k = k;
	c->lo = edge(v, k);
	c->hi = edge(v, k + 1);
}

static int fold_power(struct eq_view *v, const struct power_input *in)
{
	struct power_iter it;
	struct power_iv iv;
	struct bins *bins = calloc(1, sizeof(*bins));
	struct fine_bins *fb = malloc(sizeof(*fb));
	struct pcur pc;
	size_t cur = 0, closed = 0, k;
	int first = 1, rc = -1, bin = 0;

	if (!fb || !bins)
		goto out;
	fine_bins_init(fb);
	pcur_set(v, &pc, 0);
	power_iter_init(&it, in);
	while (power_iter_next(&it, &iv)) {
		double p = iv.energy_j / iv.dt, a = iv.t - iv.dt, b = iv.t;

		if (first) {
			v->cov_a = a;
			first = 0;
		}
		v->cov_b = b;
		/* most intervals lie inside one bucket: the one of the last */
		if (!(a >= pc.lo && b <= pc.hi && b > pc.lo))
			pcur_set(v, &pc, bucket_of_end(v, b));
		if (a >= pc.lo && b <= pc.hi) {
			if (b > a)
				v->e[pc.k] += iv.energy_j * (b - a) / iv.dt;
		} else {
			spread(v, &iv);
		}
		k = pc.k;
		if (k > cur) {
			if (bins_flush(v, bins) < 0)
				goto out;
			vcsr_close(&v->hist, closed, cur);
			/* buckets between hold nothing: empty lists */
			vcsr_close(&v->hist, cur + 1, k - 1);
			closed = k;
			cur = k;
		}
		v->nint[k]++;
		v->nidle_int[k] += iv.idle;
		if (!iv.idle_known)
			v->idle_known = 0;
		if (!(p >= v->pmin[k]))
			v->pmin[k] = p;
		if (!(p <= v->pmax[k]))
			v->pmax[k] = p;
		bin = fine_bin(fb, p, bin);
		bins_add(bins, bin, iv.idle);
	}
	if (bins_flush(v, bins) < 0)
		goto out;
	vcsr_close(&v->hist, closed, v->nb - 1);
	rc = 0;
out:
	free(bins);
	free(fb);
	return rc;
}

/* Board records missing from the stream (seq gaps) and the board's resets,
 * on the board basis's axis. */
static int board_events(struct eq_view *v, const struct power_input *in, const struct eqp_file *f)
{
	size_t i, n = eqp_nboard_segments(f);
	double t;

	if (in->basis != POWER_BASIS_BOARD || !in->nboard)
		return 0;
	for (i = 1; i < in->nboard; i++) {
		uint32_t gap = in->board[i].seq - in->board[i - 1].seq;

		if (in->board[i].seq > in->board[i - 1].seq && gap > 1 && gap < (1u << 24)) {
			t = (double)(in->board[i].time - in->board[0].time) / in->board_clock_hz;
			v->board_drops[bucket_of_end(v, t)] += gap - 1;
		}
	}
	v->resets = calloc(n ? n : 1, sizeof(*v->resets));
	if (!v->resets)
		return -1;
	for (i = 0; i < n; i++) {
		const struct eqp_board_segment *sg = eqp_board_segment_at(f, i);

		if (sg->has_end) {
			v->stalls += sg->end.stalls;
			v->stall_s += sg->end.stall_s;
		}
		if (i == 0 || !sg->nrecords)
			continue;
		t = (double)(eqp_board_record_at(f, sg->first_record)->time - in->board[0].time) /
		    in->board_clock_hz;
		v->resets[v->nresets++] = t;
	}
	return 0;
}

/* ---- pass 2: samples ------------------------------------------------------- */

/* The samples in time order: the file's, or an index when it is unordered. */
struct walk {
	const struct eqp_file *f;
	uint64_t *order;      /* chunk << 32 | index, time order; NULL: file order */
	uint64_t n, k;
	size_t c, i;
};

static const struct eqp_file *sort_file;

static int cmp_order(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	size_t n;
	const struct eq_sample *p = eqp_sample_chunk(sort_file, a >> 32, &n) + (uint32_t)a;
	const struct eq_sample *q = eqp_sample_chunk(sort_file, b >> 32, &n) + (uint32_t)b;

	if (p->time != q->time)
		return p->time < q->time ? -1 : 1;
	return (p->seq > q->seq) - (p->seq < q->seq);
}

static int walk_init(struct walk *w, const struct eqp_file *f)
{
	size_t c, i, n;
	uint64_t prev = 0, k = 0;
	int ordered = 1;

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->n = eqp_nsamples(f);
	for (c = 0; c < eqp_nsample_chunks(f) && ordered; c++) {
		const struct eq_sample *s = eqp_sample_chunk(f, c, &n);

		for (i = 0; s && i < n; i++) {
			if (s[i].time < prev) {
				ordered = 0;
				break;
			}
			prev = s[i].time;
		}
	}
	if (ordered)
		return 0;
	w->order = malloc((w->n ? w->n : 1) * sizeof(*w->order));
	if (!w->order)
		return -1;
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		eqp_sample_chunk(f, c, &n);
		for (i = 0; i < n; i++)
			w->order[k++] = (uint64_t)c << 32 | i;
	}
	w->n = k;
	sort_file = f;  /* qsort has no argument; one build at a time sorts */
	qsort(w->order, k, sizeof(*w->order), cmp_order);
	return 0;
}

static const struct eq_sample *walk_next(struct walk *w, size_t *c, size_t *i)
{
	size_t n;
	const struct eq_sample *s;

	if (w->order) {
		if (w->k >= w->n)
			return NULL;
		*c = w->order[w->k] >> 32;
		*i = (uint32_t)w->order[w->k++];
		return eqp_sample_chunk(w->f, *c, &n) + *i;
	}
	for (;;) {
		if (w->c >= eqp_nsample_chunks(w->f))
			return NULL;
		s = eqp_sample_chunk(w->f, w->c, &n);
		if (s && w->i < n) {
			*c = w->c;
			*i = w->i++;
			return &s[*i];
		}
		w->c++;
		w->i = 0;
	}
}

/*
 * (address space, pc, kernel/idle flags) -> its place, looked up once.  A
 * place is a distinct tuple of rows (few: one per procedure or line), so
 * the places stay in cache; the pc table is the one random access a
 * sample costs, and it is prefetched a few samples ahead.
 */
struct place {
	uint32_t row[EQ_VIEW_NGROUP];
	uint32_t flat_stack;  /* (exe, proc) without call chains */
};

struct pc_slot {
	uint64_t pc;
	uint32_t who;
	uint32_t tag;         /* place + 1 | flags << 28; 0: empty */
};

struct places {
	struct pc_slot *slots;
	size_t mask, count;
	struct place *v;      /* distinct row tuples */
	size_t n, cap;
	uint32_t *tslots;     /* place + 1, by the tuple's hash */
	size_t tmask;
};

static inline size_t pc_hash(uint64_t pc, uint32_t who)
{
	return (size_t)(((pc ^ ((uint64_t)who << 32)) * 0x9e3779b97f4a7c15ull) >> 20);
}

static int places_grow(struct places *p)
{
	size_t mask = p->mask ? 2 * p->mask + 1 : 4095, i, j;
	struct pc_slot *s = calloc(mask + 1, sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; p->slots && i <= p->mask; i++) {
		if (!p->slots[i].tag)
			continue;
		for (j = pc_hash(p->slots[i].pc, p->slots[i].who) & mask; s[j].tag; j = (j + 1) & mask)
			;
		s[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = s;
	p->mask = mask;
	return 0;
}

static uint64_t hash_rows(const uint32_t *r, size_t n);

/* The place of a tuple of rows (added when new), or -1 out of memory. */
static long place_intern(struct places *p, const struct place *pl, int ngroups)
{
	size_t j, i;

	if (2 * (p->n + 1) > p->tmask) {
		size_t mask = p->tmask ? 2 * p->tmask + 1 : 255;
		uint32_t *t = calloc(mask + 1, sizeof(*t));

		if (!t)
			return -1;
		for (i = 0; i < p->n; i++) {
			for (j = hash_rows(p->v[i].row, (size_t)ngroups) & mask; t[j]; j = (j + 1) & mask)
				;
			t[j] = (uint32_t)(i + 1);
		}
		free(p->tslots);
		p->tslots = t;
		p->tmask = mask;
	}
	for (j = hash_rows(pl->row, (size_t)ngroups) & p->tmask; p->tslots[j]; j = (j + 1) & p->tmask)
		if (!memcmp(p->v[p->tslots[j] - 1].row, pl->row, (size_t)ngroups * sizeof(uint32_t)))
			return (long)p->tslots[j] - 1;
	if (EQ_GROW(p->v, p->cap, p->n + 1, 256) < 0 || p->n + 1 >= 0x0fffffffu)
		return -1;
	p->v[p->n] = *pl;
	p->tslots[j] = (uint32_t)++p->n;
	return (long)p->n - 1;
}

/* Stacks: interned arrays of rows. */
struct stack_set {
	uint32_t *slots;      /* stack + 1 */
	size_t mask;
};

static uint64_t hash_rows(const uint32_t *r, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ r[i]) * 1099511628211ull;
	return h ^ n;
}

static int stacks_grow(struct eq_view *v, struct stack_set *ss)
{
	size_t mask = ss->mask ? 2 * ss->mask + 1 : 1023, i, j;
	uint32_t *s = calloc(mask + 1, sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < v->nstacks; i++) {
		const uint32_t *st = v->stk + v->stk_at[i];

		for (j = hash_rows(st + 1, st[0]) & mask; s[j]; j = (j + 1) & mask)
			;
		s[j] = (uint32_t)(i + 1);
	}
	free(ss->slots);
	ss->slots = s;
	ss->mask = mask;
	return 0;
}

static long stack_id(struct eq_view *v, struct stack_set *ss, const uint32_t *rows, size_t n)
{
	size_t j;

	if (2 * (v->nstacks + 1) > ss->mask && stacks_grow(v, ss) < 0)
		return -1;
	for (j = hash_rows(rows, n) & ss->mask; ss->slots[j]; j = (j + 1) & ss->mask) {
		const uint32_t *st = v->stk + v->stk_at[ss->slots[j] - 1];

		if (st[0] == n && !memcmp(st + 1, rows, n * sizeof(*rows)))
			return (long)ss->slots[j] - 1;
	}
	if (EQ_GROW(v->stk, v->stk_cap, v->stk_n + n + 1, 4096) < 0 ||
	    EQ_GROW(v->stk_at, v->stacks_cap, v->nstacks + 1, 1024) < 0)
		return -1;
	v->stk_at[v->nstacks] = (uint32_t)v->stk_n;
	v->stk[v->stk_n++] = (uint32_t)n;
	memcpy(v->stk + v->stk_n, rows, n * sizeof(*rows));
	v->stk_n += n;
	ss->slots[j] = (uint32_t)++v->nstacks;
	return (long)v->nstacks - 1;
}

/* A dense accumulator of the bucket being filled, with the entries touched. */
struct accum {
	uint32_t *cnt;
	size_t cap;
	uint32_t *touched;
	size_t nt, tcap;
};

static int accum_add(struct accum *a, uint32_t i, uint32_t by)
{
	if (i >= a->cap) {
		size_t cap = a->cap ? a->cap : 256, old = a->cap;
		uint32_t *n;

		while (cap <= i)
			cap *= 2;
		n = realloc(a->cnt, cap * sizeof(*n));
		if (!n)
			return -1;
		memset(n + old, 0, (cap - old) * sizeof(*n));
		a->cnt = n;
		a->cap = cap;
	}
	if (!a->cnt[i]) {
		if (EQ_GROW(a->touched, a->tcap, a->nt + 1, 256) < 0)
			return -1;
		a->touched[a->nt++] = i;
	}
	a->cnt[i] += by;
	return 0;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return (a > b) - (a < b);
}

struct samples_pass {
	struct eq_view *v;
	struct eq_symbolizer *s;
	struct places pl;
	struct stack_set ss;
	struct accum stacks;
	const struct eq_loc **frames;
	uint32_t *rows;       /* scratch: a stack's rows */
	size_t cur;           /* bucket being filled */
	size_t closed;        /* buckets below this are complete */
	long pend_lo, pend_hi; /* edges waiting for the 2nd sample after them */
	uint32_t prev_row[EQ_VIEW_NGROUP][2];
	uint64_t t_last;
	int have_prev;
	int multi;            /* eq_sym_multi_space(): the pid is not the space */
	size_t b_cur;         /* the bucket of the last sample: (b_lo, b_hi] ticks */
	uint64_t b_lo, b_hi;
};

/* Room for rows below n in every dense per-row array of g. */
static int group_reserve(struct vgroup *g, size_t n)
{
	size_t cap = g->rows_cap ? g->rows_cap : 256, old = g->rows_cap;
	uint32_t *a, *b, *c;

	if (n <= g->rows_cap)
		return 0;
	while (cap < n)
		cap *= 2;
	if (!(a = realloc(g->cnt, cap * sizeof(*a))))
		return -1;
	g->cnt = a;
	if (!(b = realloc(g->tr1, cap * sizeof(*b))))
		return -1;
	g->tr1 = b;
	if (!(c = realloc(g->tr2, cap * sizeof(*c))))
		return -1;
	g->tr2 = c;
	memset(g->cnt + old, 0, (cap - old) * sizeof(*g->cnt));
	memset(g->tr1 + old, 0, (cap - old) * sizeof(*g->tr1));
	memset(g->tr2 + old, 0, (cap - old) * sizeof(*g->tr2));
	g->rows_cap = cap;
	return EQ_GROW(g->touched, g->touched_cap, cap, 256);
}

/* Row r is in the bucket being filled (the dense arrays hold it: every row
 * of a place was reserved when the place was made; touched holds at most
 * one entry a row). */
static inline void group_touch(struct vgroup *g, uint32_t r)
{
	if (!g->cnt[r] && !g->tr1[r] && !g->tr2[r])
		g->touched[g->ntouched++] = r;
}

/* Sample pair (row, prev) lag apart, counted in the later one's bucket. */
static inline void group_pair(struct vgroup *g, uint32_t row, uint32_t prev, uint32_t *tr)
{
	if (prev == NONE || prev == row)
		return;
	group_touch(g, prev);
	tr[row]++;
	tr[prev]++;
}

static int flush_bucket(struct samples_pass *sp)
{
	struct eq_view *v = sp->v;
	int gi;
	size_t i;

	for (gi = 0; gi < v->ngroups; gi++) {
		struct vgroup *g = &v->g[gi];

		if (g->ntouched)
			qsort(g->touched, g->ntouched, sizeof(*g->touched), cmp_u32);
		for (i = 0; i < g->ntouched; i++) {
			uint32_t r = g->touched[i], e[4] = { r, g->cnt[r], g->tr1[r], g->tr2[r] };

			if (eq_vcsr_push(&g->csr, e) < 0)
				return -1;
			g->cnt[r] = g->tr1[r] = g->tr2[r] = 0;
		}
		g->ntouched = 0;
		vcsr_close(&g->csr, sp->closed, sp->cur);
	}
	if (sp->stacks.nt)
		qsort(sp->stacks.touched, sp->stacks.nt, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < sp->stacks.nt; i++) {
		uint32_t k = sp->stacks.touched[i], e[2] = { k, sp->stacks.cnt[k] };

		if (eq_vcsr_push(&v->scsr, e) < 0)
			return -1;
		sp->stacks.cnt[k] = 0;
	}
	sp->stacks.nt = 0;
	vcsr_close(&v->scsr, sp->closed, sp->cur);
	sp->closed = sp->cur + 1;
	return 0;
}

static const enum eq_by group_by[EQ_VIEW_NGROUP] = { EQ_BY_EXE, EQ_BY_MODULE, EQ_BY_PROC,
						     EQ_BY_LINE };

/* The place of a pc seen for the first time: its rows (room made for them
 * in the per-bucket counts), interned. */
static long place_new(struct samples_pass *sp, const struct eq_sample *smp)
{
	struct eq_view *v = sp->v;
	const struct eq_loc *loc = eq_sym_lookup(sp->s, smp);
	struct place p;
	uint32_t flat[2];
	long r, k;
	int gi;

	memset(&p, 0, sizeof(p));
	for (gi = 0; gi < v->ngroups; gi++) {
		if ((r = eq_agg_row(v->g[gi].agg, loc)) < 0 ||
		    group_reserve(&v->g[gi], (size_t)r + 1) < 0)
			return -1;
		p.row[gi] = (uint32_t)r;
	}
	flat[0] = p.row[EQ_VIEW_EXE];
	flat[1] = p.row[EQ_VIEW_PROC];
	if ((k = stack_id(v, &sp->ss, flat, 2)) < 0)
		return -1;
	p.flat_stack = (uint32_t)k;
	return place_intern(&sp->pl, &p, v->ngroups);
}

static inline uint32_t space_of(struct samples_pass *sp, const struct eq_sample *smp)
{
	return sp->multi ? eq_sym_space_key(sp->s, smp) : smp->pid;
}

static const struct place *place_of(struct samples_pass *sp, const struct eq_sample *smp)
{
	struct places *pl = &sp->pl;
	uint32_t who = space_of(sp, smp);
	uint32_t kf = (uint32_t)(smp->flags & (EQ_F_KERNEL | EQ_F_IDLE)) << 28;
	size_t j = pc_hash(smp->pc, who) & pl->mask;
	long k;

	for (; pl->slots[j].tag; j = (j + 1) & pl->mask)
		if (pl->slots[j].pc == smp->pc && pl->slots[j].who == who &&
		    (pl->slots[j].tag & 0xf0000000u) == kf)
			return &pl->v[(pl->slots[j].tag & 0x0fffffffu) - 1];
	if ((k = place_new(sp, smp)) < 0)
		return NULL;
	pl->slots[j] = (struct pc_slot){ .pc = smp->pc, .who = who, .tag = kf | (uint32_t)(k + 1) };
	if (2 * ++pl->count > pl->mask && places_grow(pl) < 0)
		return NULL;
	return &pl->v[k];
}

/* The stack of a sample with its call chain: exe, callers outermost first, leaf. */
static long chain_stack(struct samples_pass *sp, const struct place *p, size_t c, size_t i,
			const struct eq_sample *smp)
{
	struct eq_view *v = sp->v;
	size_t depth, k;
	int had;
	long r;

	depth = eq_sample_frames(v->f, sp->s, c, i, smp, sp->frames, &had);
	if (!had)
		return p->flat_stack;
	v->with_chain++;
	sp->rows[0] = p->row[EQ_VIEW_EXE];
	for (k = 0; k < depth; k++) {
		if ((r = eq_agg_row(v->g[EQ_VIEW_PROC].agg, sp->frames[depth - 1 - k])) < 0)
			return -1;
		sp->rows[1 + k] = (uint32_t)r;
	}
	return stack_id(v, &sp->ss, sp->rows, depth + 1);
}

/* The edges between the previous sample's bucket and this one's get their
 * samples around them. */
static void mark_edges(struct samples_pass *sp, size_t b, const struct place *p, double dt)
{
	struct eq_view *v = sp->v;
	long k, lo = sp->have_prev ? (long)sp->cur + 1 : 0;
	int gi;

	for (k = sp->pend_lo; k <= sp->pend_hi; k++) {
		for (gi = 0; gi < v->ngroups; gi++)
			v->g[gi].edge_rows[4 * k + 3] = (int32_t)p->row[gi];
		v->edge_bk[2 * k + 1] = (int32_t)b;
	}
	sp->pend_lo = 0;
	sp->pend_hi = -1;
	if (sp->have_prev && (size_t)lo > b)
		return;
	for (k = lo; k <= (long)b; k++) {
		for (gi = 0; gi < v->ngroups; gi++) {
			int32_t *e = &v->g[gi].edge_rows[4 * k];

			e[0] = sp->prev_row[gi][1] == NONE ? -1 : (int32_t)sp->prev_row[gi][1];
			e[1] = sp->prev_row[gi][0] == NONE ? -1 : (int32_t)sp->prev_row[gi][0];
			e[2] = (int32_t)p->row[gi];
		}
		v->edge_bk[2 * k] = (int32_t)b;
		v->xdt[k] = dt;
	}
	sp->pend_lo = lo;
	sp->pend_hi = (long)b;
}

static int add_sample(struct samples_pass *sp, const struct eq_sample *smp, size_t c, size_t i)
{
	struct eq_view *v = sp->v;
	uint64_t rel = smp->time - v->t0;
	const struct place *p = place_of(sp, smp);
	size_t b;
	double dt = NAN;
	long st;
	int gi;

	if (!p)
		return -1;
	/* the bucket: most samples fall in the one of the sample before */
	if (rel > sp->b_lo && rel <= sp->b_hi) {
		b = sp->b_cur;
	} else {
		b = rel == 0 ? 0 : (size_t)((rel - 1) / v->w);
		if (b >= v->nb)
			b = v->nb - 1;
		sp->b_cur = b;
		sp->b_lo = (uint64_t)b * v->w;
		sp->b_hi = b + 1 == v->nb ? UINT64_MAX : (uint64_t)(b + 1) * v->w;
	}
	if (sp->have_prev && !(smp->flags & EQ_F_LOST) && smp->time >= sp->t_last)
		dt = (double)(smp->time - sp->t_last);
	mark_edges(sp, b, p, dt);
	if (!sp->have_prev || b > sp->cur) {
		if (sp->have_prev && flush_bucket(sp) < 0)
			return -1;
		/* buckets skipped by a gap are complete and empty */
		if (b > sp->closed) {
			for (gi = 0; gi < v->ngroups; gi++)
				vcsr_close(&v->g[gi].csr, sp->closed, b - 1);
			vcsr_close(&v->scsr, sp->closed, b - 1);
		}
		sp->closed = b;
		sp->cur = b;
	}
	v->ns[b]++;
	v->nidle[b] += (smp->flags & EQ_F_IDLE) != 0;
	v->nlost[b] += (smp->flags & EQ_F_LOST) != 0;
	if (!isnan(dt)) {
		v->dtn[b]++;
		v->dts[b] += dt;
		v->dts2[b] += dt * dt;
	}
	sp->t_last = smp->time;
	for (gi = 0; gi < v->ngroups; gi++) {
		struct vgroup *g = &v->g[gi];
		uint32_t r = p->row[gi];

		group_touch(g, r);
		group_pair(g, r, sp->prev_row[gi][0], g->tr1);
		group_pair(g, r, sp->prev_row[gi][1], g->tr2);
		g->cnt[r]++;
		sp->prev_row[gi][1] = sp->prev_row[gi][0];
		sp->prev_row[gi][0] = r;
	}
	st = v->chains ? chain_stack(sp, p, c, i, smp) : (long)p->flat_stack;
	if (st < 0 || accum_add(&sp->stacks, (uint32_t)st, 1) < 0)
		return -1;
	sp->have_prev = 1;
	return 0;
}

static int alloc_samples(struct eq_view *v)
{
	size_t nb = v->nb, k;
	int gi;

	v->ns = calloc(nb, sizeof(*v->ns));
	v->nidle = calloc(nb, sizeof(*v->nidle));
	v->nlost = calloc(nb, sizeof(*v->nlost));
	v->dtn = calloc(nb, sizeof(*v->dtn));
	v->dts = calloc(nb, sizeof(*v->dts));
	v->dts2 = calloc(nb, sizeof(*v->dts2));
	v->xdt = malloc((nb + 1) * sizeof(*v->xdt));
	v->edge_bk = malloc(2 * (nb + 1) * sizeof(*v->edge_bk));
	if (!v->ns || !v->nidle || !v->nlost || !v->dtn || !v->dts || !v->dts2 || !v->xdt ||
	    !v->edge_bk || eq_vcsr_init(&v->scsr, nb, 2) < 0)
		return -1;
	for (k = 0; k <= nb; k++) {
		v->xdt[k] = NAN;
		v->edge_bk[2 * k] = v->edge_bk[2 * k + 1] = -1;
	}
	for (gi = 0; gi < v->ngroups; gi++) {
		struct vgroup *g = &v->g[gi];

		g->by = group_by[gi];
		if (!(g->agg = eq_agg_new(g->by, 0, NULL)) || eq_vcsr_init(&g->csr, nb, 4) < 0 ||
		    !(g->edge_rows = malloc(4 * (nb + 1) * sizeof(*g->edge_rows))))
			return -1;
		for (k = 0; k < 4 * (nb + 1); k++)
			g->edge_rows[k] = -1;
	}
	return 0;
}

/* After the last sample: the edges past it have it and the one before behind them. */
static void close_edges(struct samples_pass *sp)
{
	struct eq_view *v = sp->v;
	size_t k;
	int gi;

	if (!sp->have_prev)
		return;
	for (k = sp->cur + 1; k <= v->nb; k++)
		for (gi = 0; gi < v->ngroups; gi++) {
			int32_t *e = &v->g[gi].edge_rows[4 * k];

			e[0] = sp->prev_row[gi][1] == NONE ? -1 : (int32_t)sp->prev_row[gi][1];
			e[1] = (int32_t)sp->prev_row[gi][0];
		}
}

static int fold_samples(struct eq_view *v, struct eq_symbolizer *s)
{
	struct samples_pass sp = { .v = v, .s = s, .pend_lo = 0, .pend_hi = -1 };
	struct walk w = { 0 };
	const struct eq_sample *smp;
	size_t c, i;
	int gi, rc = -1;

	for (gi = 0; gi < EQ_VIEW_NGROUP; gi++)
		sp.prev_row[gi][0] = sp.prev_row[gi][1] = NONE;
	if (alloc_samples(v) < 0 || walk_init(&w, v->f) < 0 || places_grow(&sp.pl) < 0)
		goto out;
	if (v->chains) {
		sp.frames = malloc((1 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*sp.frames));
		sp.rows = malloc((2 + 2 * EQP_MAX_CHAIN_FRAMES) * sizeof(*sp.rows));
		if (!sp.frames || !sp.rows)
			goto out;
	}
	sp.multi = eq_sym_multi_space(s);
	if (w.order) {
		while ((smp = walk_next(&w, &c, &i)))
			if (add_sample(&sp, smp, c, i) < 0)
				goto out;
	} else {
		for (c = 0; c < eqp_nsample_chunks(v->f); c++) {
			size_t n;
			const struct eq_sample *ck = eqp_sample_chunk(v->f, c, &n);

			for (i = 0; ck && i < n; i++) {
				/* random pcs miss the cache: ask for a later sample's slot now */
				if (!sp.multi && i + PREFETCH_AHEAD < n)
					__builtin_prefetch(&sp.pl.slots[pc_hash(ck[i + PREFETCH_AHEAD].pc,
										ck[i + PREFETCH_AHEAD].pid) &
									sp.pl.mask]);
				if (add_sample(&sp, &ck[i], c, i) < 0)
					goto out;
			}
		}
	}
	if (flush_bucket(&sp) < 0)
		goto out;
	for (gi = 0; gi < v->ngroups; gi++)
		vcsr_close(&v->g[gi].csr, sp.closed, v->nb - 1);
	vcsr_close(&v->scsr, sp.closed, v->nb - 1);
	close_edges(&sp);
	rc = 0;
out:
	free(w.order);
	free(sp.pl.slots);
	free(sp.pl.v);
	free(sp.pl.tslots);
	free(sp.ss.slots);
	free(sp.stacks.cnt);
	free(sp.stacks.touched);
	free(sp.frames);
	free(sp.rows);
	return rc;
}

/* ---- the whole ----------------------------------------------------------- */

/* Buckets: about two samples each up to the limit, w whole ticks each,
 * covering the samples and the power stream. */
static void choose_buckets(struct eq_view *v, const struct eq_view_opts *o, double power_span_s)
{
	uint64_t span = 0, last = 0, want;
	size_t c, i, n;

	for (c = 0; c < eqp_nsample_chunks(v->f); c++) {
		const struct eq_sample *s = eqp_sample_chunk(v->f, c, &n);

		for (i = 0; s && i < n; i++)
			if (s[i].time > last)
				last = s[i].time;
	}
	span = last > v->t0 ? last - v->t0 : 0;
	v->span_s = (double)span / v->clock_hz;
	if (power_span_s * v->clock_hz > (double)span)
		span = (uint64_t)ceil(power_span_s * v->clock_hz);
	span += 1;            /* room for rounding at the last edge */
	want = o && o->buckets ? o->buckets : EQ_VIEW_DEFAULT_BUCKETS;
	if (want > EQ_VIEW_MAX_BUCKETS)
		want = EQ_VIEW_MAX_BUCKETS;
	/* by default no finer than about two samples a bucket */
	if (!(o && o->buckets) && want > v->nsamples / 2)
		want = v->nsamples / 2 >= 64 ? v->nsamples / 2 : 64;
	v->w = (span + want - 1) / want;
	if (o && o->w_ticks) {
		/* the same edges as another recording's, unless that makes
		 * more buckets than a page may hold */
		uint64_t nb = (span + o->w_ticks - 1) / o->w_ticks;

		if (nb <= EQ_VIEW_MAX_BUCKETS)
			v->w = o->w_ticks;
	}
	if (!v->w)
		v->w = 1;
	v->nb = (size_t)((span + v->w - 1) / v->w);
	if (!v->nb)
		v->nb = 1;
}

static int markers(struct eq_view *v)
{
	size_t i;

	v->nmarkers = eqp_nmarkers(v->f);
	v->marker_t = calloc(v->nmarkers ? v->nmarkers : 1, sizeof(*v->marker_t));
	v->marker_label = calloc(v->nmarkers ? v->nmarkers : 1, sizeof(*v->marker_label));
	if (!v->marker_t || !v->marker_label)
		return -1;
	for (i = 0; i < v->nmarkers; i++) {
		const struct eqp_marker *m = eqp_marker_at(v->f, i);

		v->marker_t[i] = ((double)m->time - (double)v->t0) / v->clock_hz;
		v->marker_label[i] = m->label;
	}
	return 0;
}

static double stream_span(const struct power_input *in)
{
	return in->basis == POWER_BASIS_NONE ? 0 : power_input_span(in);
}

struct eq_view *eq_view_build(const struct eqp_file *f, struct eq_symbolizer *s,
			      const struct eq_view_opts *o, struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	struct eq_view *v = calloc(1, sizeof(*v));
	struct power_input in;
	int have_in = 0;

	if (!v) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	v->f = f;
	v->path = eqp_path(f);
	v->name = o && o->name ? o->name : v->path;
	v->mode = m->mode;
	v->clock_hz = m->clock_hz > 0 ? m->clock_hz : 1e9;
	v->decimals = eq_range_decimals(v->clock_hz);
	v->nsamples = eqp_nsamples(f);
	v->lost_total = eqp_lost_total(f);
	v->nominal_hz = m->nominal_hz;
	v->period_s = m->mode == EQP_MODE_TIME ? eq_profile_period_s(f) : 0;
	v->t0 = eq_samples_t0(f);
	v->target = m->target;
	v->note = eqp_meta_get(f, "note");
	v->ngroups = o && o->lines ? EQ_VIEW_NGROUP : EQ_VIEW_LINE;
	v->chains = eqp_has_callchains(f);
	if (v->nsamples == 0) {
		eq_fail(err, "%s: the recording has no samples", v->path);
		goto fail;
	}
	if (power_input_from_file(&in, f, o ? o->basis : POWER_BASIS_AUTO, err) < 0)
		goto fail;
	have_in = 1;
	v->basis = in.basis;
	v->why_none = in.why_none;
	v->quantum_j = in.quantum_j;
	v->has_power = in.basis == POWER_BASIS_SAMPLES || in.basis == POWER_BASIS_BOARD ||
		       in.basis == POWER_BASIS_SOURCE;
	v->idle_known = 1;
	choose_buckets(v, o, v->has_power ? stream_span(&in) : 0);
	if (alloc_power(v) < 0 || markers(v) < 0)
		goto oom;
	if (v->has_power && (fold_power(v, &in) < 0 || board_events(v, &in, f) < 0))
		goto oom;
	if (!v->has_power)
		vcsr_close(&v->hist, 0, v->nb - 1);
	if (fold_samples(v, s) < 0)
		goto oom;
	power_input_free(&in);
	return v;
oom:
	eq_fail(err, "%s: out of memory folding %llu samples into %zu buckets", v->path,
		(unsigned long long)v->nsamples, v->nb);
fail:
	if (have_in)
		power_input_free(&in);
	eq_view_free(v);
	return NULL;
}

void eq_view_free(struct eq_view *v)
{
	int gi;

	if (!v)
		return;
	free(v->e);
	free(v->nint);
	free(v->nidle_int);
	free(v->pmin);
	free(v->pmax);
	free(v->se);
	free(v->sa);
	free(v->sb);
	eq_vcsr_free(&v->hist);
	free(v->ns);
	free(v->nidle);
	free(v->nlost);
	free(v->dtn);
	free(v->dts);
	free(v->dts2);
	free(v->xdt);
	free(v->edge_bk);
	for (gi = 0; gi < EQ_VIEW_NGROUP; gi++) {
		struct vgroup *g = &v->g[gi];

		eq_agg_free(g->agg);
		eq_vcsr_free(&g->csr);
		free(g->edge_rows);
		free(g->cnt);
		free(g->tr1);
		free(g->tr2);
		free(g->touched);
	}
	free(v->stk);
	free(v->stk_at);
	eq_vcsr_free(&v->scsr);
	free(v->marker_t);
	free(v->marker_label);
	free(v->board_drops);
	free(v->resets);
	free(v);
}

uint64_t eq_view_bucket_ticks(const struct eq_view *v)
{
	return v->w;
}

double eq_view_clock_hz(const struct eq_view *v)
{
	return v->clock_hz;
}

size_t eq_view_nbuckets(const struct eq_view *v)
{
	return v->nb;
}

double eq_view_bucket_s(const struct eq_view *v)
{
	return (double)v->w / v->clock_hz;
}
