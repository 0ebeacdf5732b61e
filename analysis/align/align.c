/*
 * align.c - board records against energy-driven samples (align.h).
 */
#include "align/align.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 2000          /* sample pairs scored at each end */

struct pt {
	uint64_t seq;
	double t;                /* target seconds */
};

static int by_seq(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct board {
	uint64_t qmin, qmax;
	double *t;               /* board seconds by seq - qmin; NAN where no record */
};

static double board_t(const struct board *b, int64_t q)
{
	if (q < (int64_t)b->qmin || q > (int64_t)b->qmax)
		return NAN;
	return b->t[q - (int64_t)b->qmin];
}

/*
 * The cost of K over the samples [i0, i1): for spans of 1, 4 and 16
 * samples, how far the target's span is from the board's, relative to the
 * board's and at most 1 (a late interrupt, a stalled simulation: outliers
 * do not decide).  Long spans average out the interrupt latency's spread;
 * the short ones see each quantum's jitter.  Every term is >= 0, so the sum
 * only grows: it stops once it passes `limit` (the caller then knows K
 * cannot matter) and returns what it has.
 */
static double cost(const struct pt *p, size_t i0, size_t i1, const struct board *b, int64_t k,
		   double limit)
{
	static const size_t spans[] = { 1, 4, 16 };
	double c = 0;
	size_t i, j;

	for (j = 0; j < sizeof(spans) / sizeof(spans[0]); j++)
		for (i = i0; i + spans[j] < i1; i++) {
			double bt0 = board_t(b, (int64_t)p[i].seq + k);
			double bt1 = board_t(b, (int64_t)p[i + spans[j]].seq + k);
			double d;

			if (isnan(bt0) || isnan(bt1) || bt1 <= bt0) {
				c += 1;
			} else {
				d = fabs((p[i + spans[j]].t - p[i].t) - (bt1 - bt0)) / (bt1 - bt0);
				c += d < 1 ? d : 1;
			}
			if (c > limit)
				return c;
		}
	return c;
}

/* the number of terms cost() adds over [i0, i1) */
static size_t cost_terms(size_t i0, size_t i1)
{
	static const size_t spans[] = { 1, 4, 16 };
	size_t j, n = 0;

	for (j = 0; j < sizeof(spans) / sizeof(spans[0]); j++)
		n += i1 - i0 > spans[j] ? i1 - i0 - spans[j] : 0;
	return n;
}

struct kcost {
	int64_t k;
	double c;
};

static int by_cost(const void *a, const void *b)
{
	const struct kcost *x = a, *y = b;

	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

#define SCREEN 48            /* samples of the quick first score of every K */

/*
 * The best K for the pairs in [i0, i1), or INT64_MIN when none fits.
 *
 * Every K the board's log allows is scored first on the window's first
 * SCREEN samples, then scored in full from the most promising on.  The
 * screen's terms are some of the full score's and no term is negative, so
 * a K screened above 1.3 x the best full score so far can be neither
 * the best nor a close second (the only use of the second): the decision is
 * the exhaustive search's, in a fraction of its time on a long board log.
 */
static int64_t best_k(const struct pt *p, size_t i0, size_t i1, const struct board *b)
{
	int64_t lo = (int64_t)b->qmin - (int64_t)p[i0].seq;
	int64_t hi = (int64_t)b->qmax - (int64_t)p[i1 - 1].seq;
	int64_t best = INT64_MIN;
	double bc = INFINITY, second = INFINITY;
	size_t np = cost_terms(i0, i1), nk, i;
	size_t screen_end = i1 - i0 > SCREEN ? i0 + SCREEN : i1;
	struct kcost *kc;

	if (hi < lo)
		return INT64_MIN;
	nk = (size_t)(hi - lo + 1);
	kc = malloc(nk * sizeof(*kc));
	if (!kc)
		return INT64_MIN;
	for (i = 0; i < nk; i++) {
		kc[i].k = lo + (int64_t)i;
		kc[i].c = cost(p, i0, screen_end, b, kc[i].k, INFINITY);
	}
	qsort(kc, nk, sizeof(*kc), by_cost);
	for (i = 0; i < nk; i++) {
		double c;

		if (kc[i].c > 1.3 * bc)
			break;
		c = cost(p, i0, i1, b, kc[i].k, 1.3 * bc);
		if (c < bc || (c == bc && kc[i].k < best)) {
			second = bc;
			bc = c;
			best = kc[i].k;
		} else if (c < second) {
			second = c;
		}
	}
	free(kc);
	/*
	 * A match worth the name: most spans within a third of the board's,
	 * and clearly better than any other K (interrupt latency that spreads
	 * as much as the quanta's own jitter leaves K ambiguous: refused).
	 */
	if (best != INT64_MIN && (bc > 0.35 * (double)np || second < 1.3 * bc))
		return INT64_MIN;
	return best;
}

static void fail(struct eq_align *a, const char *why)
{
	a->status = EQ_ALIGN_FAILED;
	snprintf(a->why, sizeof(a->why), "%s", why);
}

/* target = offset + rate * board over the pairs with K, residuals. */
static void fit(struct eq_align *a, const struct pt *p, size_t n, const struct board *b, int64_t k)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0, x0 = NAN, y0 = NAN, *res;
	size_t i, nr = 0;

	for (i = 0; i < n; i++) {
		double x = board_t(b, (int64_t)p[i].seq + k), y = p[i].t;

		if (isnan(x))
			continue;
		if (isnan(x0)) {
			x0 = x;
			y0 = y;
		}
		x -= x0;
		y -= y0;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		m++;
	}
	if (m < 2 || sxx * m - sx * sx <= 0)
		return;
	a->rate = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	a->offset_ns = ((sy - a->rate * sx) / m + y0 - a->rate * x0) * 1e9;
	a->matched = (uint64_t)m;
	res = malloc((size_t)m * sizeof(*res));
	if (!res)
		return;
	for (i = 0; i < n; i++) {
		double x = board_t(b, (int64_t)p[i].seq + k);

		if (isnan(x))
			continue;
		res[nr] = fabs(p[i].t * 1e9 - (a->offset_ns + a->rate * x * 1e9));
		a->resid_rms_ns += res[nr] * res[nr];
		nr++;
	}
	qsort(res, nr, sizeof(*res), by_double);
	a->resid_rms_ns = sqrt(a->resid_rms_ns / (double)nr);
	a->resid_p50_ns = res[nr / 2];
	a->resid_p99_ns = res[(size_t)((double)(nr - 1) * 0.99)];
	a->resid_max_ns = res[nr - 1];
	free(res);
}

/* The energy-driven samples of the CPU that took most of them (the others
 * counted), unsorted; NULL when there are none or memory ran out. */
static struct pt *target_points(const struct eqp_file *target, struct eq_align *a, size_t *np)
{
	uint64_t per_cpu[64] = { 0 }, most = 0;
	size_t c, i, n = 0, cap = 0, nchunks;
	struct pt *p;

	nchunks = eqp_nsample_chunks(target);
	for (c = 0; c < nchunks; c++) {
		size_t k, m;
		const struct eq_sample *s = eqp_sample_chunk(target, c, &m);

		for (k = 0; k < m; k++)
			if ((s[k].flags & EQ_F_ENERGY) && s[k].cpu < 64)
				per_cpu[s[k].cpu]++;
	}
	for (i = 0; i < 64; i++)
		if (per_cpu[i] > most) {
			most = per_cpu[i];
			a->cpu = (uint32_t)i;
		}
	if (!most)
		return NULL;
	for (i = 0; i < 64; i++)
		if (i != a->cpu)
			a->other_cpus += per_cpu[i];
	p = malloc((size_t)most * sizeof(*p));
	if (!p) {
		fail(a, "out of memory");
		return NULL;
	}
	cap = (size_t)most;
	for (c = 0; c < nchunks; c++) {
		size_t k, m;
		const struct eq_sample *s = eqp_sample_chunk(target, c, &m);

		for (k = 0; k < m && n < cap; k++)
			if ((s[k].flags & EQ_F_ENERGY) && s[k].cpu == a->cpu) {
				p[n].seq = s[k].seq;
				p[n].t = (double)s[k].time / eqp_meta(target)->clock_hz;
				n++;
			}
	}
	*np = n;
	return p;
}

/* The board's records indexed by quantum number (NAN where one was dropped);
 * -1 when the log is damaged or memory ran out. */
static int board_index(const struct eqp_file *board, size_t nrec, double clock,
		       struct eq_align *a, struct board *b)
{
	size_t i;

	b->qmin = UINT64_MAX;
	for (i = 0; i < nrec; i++) {
		const struct eqp_board_rec *r = eqp_board_record_at(board, i);

		if (r->seq < b->qmin)
			b->qmin = r->seq;
		if (r->seq > b->qmax)
			b->qmax = r->seq;
	}
	/*
	 * The board numbers every quantum, and a record dropped on the link
	 * leaves a gap: quanta spread much wider than the records are a
	 * damaged log (a bit flipped in a number), not one to index densely.
	 */
	if (b->qmax - b->qmin >= (uint64_t)nrec * 16 + (1u << 16)) {
		a->status = EQ_ALIGN_FAILED;
		snprintf(a->why, sizeof(a->why), "the board's %zu records are numbered across quanta "
			 "%llu..%llu, far more than a log with dropped records spans: is the board's log "
			 "damaged?", nrec, (unsigned long long)b->qmin, (unsigned long long)b->qmax);
		return -1;
	}
	b->t = malloc((size_t)(b->qmax - b->qmin + 1) * sizeof(*b->t));
	if (!b->t) {
		fail(a, "out of memory");
		return -1;
	}
	for (i = 0; i <= b->qmax - b->qmin; i++)
		b->t[i] = NAN;
	for (i = 0; i < nrec; i++) {
		const struct eqp_board_rec *r = eqp_board_record_at(board, i);

		b->t[r->seq - b->qmin] = (double)r->time / clock;
	}
	return 0;
}

void eq_align_compute(const struct eqp_file *target, const struct eqp_file *board,
		      struct eq_align *a)
{
	const struct eqp_board_info *bi = eqp_board_info(board);
	size_t nrec = eqp_nboard_records(board), i, n = 0;
	uint64_t last;
	struct board b = { 0 };
	struct pt *p = NULL;
	double clock;
	const char *sampler, *numbers;

	memset(a, 0, sizeof(*a));
	if (!bi || !nrec || eqp_meta(target)->mode != EQP_MODE_ENERGY)
		return;
	clock = bi->clock_hz;
	if (eqp_nboard_segments(board) > 1) {
		fail(a, "the board reset during its log: its quantum numbers restarted");
		return;
	}
	p = target_points(target, a, &n);
	if (!p)
		return;
	qsort(p, n, sizeof(*p), by_seq);
	a->samples = n;
	last = p[n - 1].seq;
	a->target_first = p[0].seq;
	for (i = 1; i < n; i++)
		a->duplicates += p[i].seq == p[i - 1].seq;
	a->target_total = last - p[0].seq + 1;
	a->target_lost = a->target_total - (n - a->duplicates);
	a->target_lost_outside = eqp_lost_total(target) > a->target_lost ?
				 eqp_lost_total(target) - a->target_lost : 0;

	if (board_index(board, nrec, clock, a, &b) < 0) {
		free(p);
		return;
	}
	if (n < 40 || b.qmax - b.qmin + 1 < n) {
		fail(a, n < 40 ? "too few energy-driven samples to match" :
		     "the board's log is shorter than the recording: start it before and stop it after");
		goto out;
	}
	sampler = eqp_meta_get(target, "sampler");
	numbers = eqp_meta_get(target, "seq_numbers");
	if ((sampler && strstr(sampler, "ivshmem")) || (numbers && !strcmp(numbers, "board"))) {
		/* the source numbers its interrupts with the board's quanta
		 * (ivshmem; record --target cortexm with a counter that holds them) */
		a->numbered = 1;
		a->k_start = a->k_end = 0;
	} else {
		/* the first and the last third at most: a loss in between shows */
		size_t w = n / 3 < WINDOW ? n / 3 : WINDOW;

		a->k_start = best_k(p, 0, w, &b);
		a->k_end = best_k(p, n - w, n, &b);
		if (a->k_start == INT64_MIN || a->k_end == INT64_MIN) {
			fail(a, "no stretch of the board's log matches the samples' intervals: is it the same run?");
			goto out;
		}
	}
	a->board_first = (uint64_t)((int64_t)p[0].seq + a->k_start);
	a->board_last = (uint64_t)((int64_t)last + a->k_end);
	if (a->board_first < b.qmin || a->board_last > b.qmax) {
		fail(a, "the board's log does not cover the recording: start it before and stop it after");
		goto out;
	}
	a->board_irqs = a->board_last - a->board_first + 1;
	a->unaccounted = (int64_t)a->board_irqs - (int64_t)(a->samples + a->target_lost);
	for (i = a->board_first; i <= a->board_last; i++)
		a->board_missing += isnan(board_t(&b, (int64_t)i));
	fit(a, p, n, &b, a->k_start);
	a->status = EQ_ALIGN_OK;
out:
	free(b.t);
	free(p);
}

void eq_align_print(FILE *out, const char *cmd, const struct eq_align *a)
{
	if (a->status == EQ_ALIGN_NONE)
		return;
	if (a->status == EQ_ALIGN_FAILED) {
		fprintf(out, "eqprof %s: board: cannot match the board's records with the samples: %s\n",
			cmd, a->why);
		return;
	}
	if (a->unaccounted == 0)
		fprintf(out, "eqprof %s: board: raised %llu interrupts (quanta %llu..%llu) during the recording; "
			"the target recorded %llu samples and counted %llu lost: balanced%s\n", cmd,
			(unsigned long long)a->board_irqs, (unsigned long long)a->board_first,
			(unsigned long long)a->board_last, (unsigned long long)a->samples,
			(unsigned long long)a->target_lost,
			a->numbered ? " (the target numbered its samples with the board's quanta)" :
			" (quanta matched by their timing)");
	else
		fprintf(out, "eqprof %s: board: MISMATCH: raised %llu interrupts (quanta %llu..%llu) during the "
			"recording, but the target recorded %llu samples and counted %llu lost: %lld %s "
			"(quantum offset %lld at the start, %lld at the end)\n", cmd,
			(unsigned long long)a->board_irqs, (unsigned long long)a->board_first,
			(unsigned long long)a->board_last, (unsigned long long)a->samples,
			(unsigned long long)a->target_lost,
			(long long)(a->unaccounted < 0 ? -a->unaccounted : a->unaccounted),
			a->unaccounted > 0 ? "interrupts lost without being counted" :
			"samples more than the board's interrupts",
			(long long)a->k_start, (long long)a->k_end);
	if (a->duplicates)
		fprintf(out, "eqprof %s: board: %llu samples repeat a quantum's number\n", cmd,
			(unsigned long long)a->duplicates);
	if (a->target_lost_outside)
		fprintf(out, "eqprof %s: board: the target also counted %llu lost before its first or after its last sample\n",
			cmd, (unsigned long long)a->target_lost_outside);
	if (a->other_cpus)
		fprintf(out, "eqprof %s: board: %llu energy-driven samples on CPUs other than %u were not matched\n",
			cmd, (unsigned long long)a->other_cpus, a->cpu);
	if (a->board_missing)
		fprintf(out, "eqprof %s: board: %llu of those quanta have no record in the board's stream (dropped on the link)\n",
			cmd, (unsigned long long)a->board_missing);
	if (a->matched >= 2)
		fprintf(out, "eqprof %s: board: clocks aligned on %llu matched interrupts: target = board x %.9f %+.3f ms; "
			"residual median %.3f ms, 99%% %.3f ms, max %.3f ms\n", cmd,
			(unsigned long long)a->matched, a->rate, a->offset_ns * 1e-6,
			a->resid_p50_ns * 1e-6, a->resid_p99_ns * 1e-6, a->resid_max_ns * 1e-6);
}

int eq_align_balanced(const struct eq_align *a)
{
	return a->status == EQ_ALIGN_OK && a->unaccounted == 0 && !a->duplicates &&
	       !a->target_lost_outside && !a->other_cpus && !a->board_missing;
}

void eq_align_check_file(FILE *out, const char *cmd, const struct eqp_file *f, int verbose)
{
	struct eq_align a;

	if (!eqp_board_info(f) || !eqp_nsamples(f))
		return;
	eq_align_compute(f, f, &a);
	if (verbose || !eq_align_balanced(&a))
		eq_align_print(out, cmd, &a);
}

int eq_align_extra(const struct eq_align *a, char *buf, size_t size)
{
	int n;

	if (a->status != EQ_ALIGN_OK)
		return snprintf(buf, size, "board_align=%s\n",
				a->status == EQ_ALIGN_NONE ? "none" : "failed");
	n = snprintf(buf, size,
		     "board_align=ok\nboard_align_cpu=%u\nboard_align_offset_ns=%.1f\nboard_align_rate=%.12f\n"
		     "board_align_matched=%llu\nboard_align_resid_p50_ns=%.0f\nboard_align_resid_p99_ns=%.0f\n"
		     "board_align_resid_max_ns=%.0f\nboard_crosscheck_irqs=%llu\nboard_crosscheck_first=%llu\n"
		     "board_crosscheck_samples=%llu\nboard_crosscheck_lost=%llu\nboard_crosscheck_unaccounted=%lld\n"
		     "board_crosscheck_matched_by=%s\n",
		     a->cpu, a->offset_ns, a->rate, (unsigned long long)a->matched, a->resid_p50_ns,
		     a->resid_p99_ns, a->resid_max_ns, (unsigned long long)a->board_irqs,
		     (unsigned long long)a->board_first, (unsigned long long)a->samples,
		     (unsigned long long)a->target_lost, (long long)a->unaccounted,
		     a->numbered ? "quantum-numbers" : "timing");
	return n;
}

char *eq_align_knots(const struct eqp_file *target, const struct eqp_file *board,
		     const struct eq_align *a, size_t *nknots, char *why, size_t whysize)
{
	const struct eqp_board_info *bi = eqp_board_info(board);
	size_t nrec = eqp_nboard_records(board), c, i, n = 0, cap = 0, len = 0, size;
	double *bt = NULL;
	uint64_t qmin = UINT64_MAX, qmax = 0;
	struct pt *p = NULL;
	char *out = NULL;
	double tclock = eqp_meta(target)->clock_hz;

	*nknots = 0;
	if (a->status != EQ_ALIGN_OK || !bi) {
		snprintf(why, whysize, "the board's records and the samples were not matched");
		return NULL;
	}
	if (a->k_start != a->k_end) {
		snprintf(why, whysize, "%lld interrupts went uncounted between the start and the end: "
			 "which sample took which edge is not known after them",
			 (long long)(a->k_end - a->k_start));
		return NULL;
	}
	for (i = 0; i < nrec; i++) {
		const struct eqp_board_rec *r = eqp_board_record_at(board, i);

		qmin = r->seq < qmin ? r->seq : qmin;
		qmax = r->seq > qmax ? r->seq : qmax;
	}
	bt = malloc((size_t)(qmax - qmin + 1) * sizeof(*bt));
	p = malloc((size_t)(a->samples ? a->samples : 1) * sizeof(*p));
	if (!bt || !p)
		goto oom;
	for (i = 0; i <= qmax - qmin; i++)
		bt[i] = NAN;
	for (i = 0; i < nrec; i++) {
		const struct eqp_board_rec *r = eqp_board_record_at(board, i);

		bt[r->seq - qmin] = (double)r->time / bi->clock_hz * 1e9;
	}
	cap = (size_t)a->samples;
	for (c = 0; c < eqp_nsample_chunks(target); c++) {
		size_t k, m;
		const struct eq_sample *s = eqp_sample_chunk(target, c, &m);

		for (k = 0; k < m && n < cap; k++)
			if ((s[k].flags & EQ_F_ENERGY) && s[k].cpu == a->cpu) {
				p[n].seq = s[k].seq;
				p[n].t = (double)s[k].time / tclock * 1e9;
				n++;
			}
	}
	qsort(p, n, sizeof(*p), by_seq);
	size = 64 + n * 44;
	out = malloc(size);
	if (!out)
		goto oom;
	len = (size_t)snprintf(out, size, "board_align_knots=");
	{
		double lb = -INFINITY, lt = -INFINITY;

		for (i = 0; i < n; i++) {
			int64_t q = (int64_t)p[i].seq + a->k_start;
			double b, t;

			if (q < (int64_t)qmin || q > (int64_t)qmax || isnan(b = bt[q - (int64_t)qmin]))
				continue;
			/* whole ns, as written; both clocks must advance: a repeated
			 * seq or a sample taken before the previous one's is no knot */
			b = round(b);
			t = round(p[i].t);
			if (!(b > lb) || !(t > lt) || !(fabs(b) < 1e18) || !(fabs(t) < 1e18))
				continue;
			len += (size_t)snprintf(out + len, size - len, "%s%.0f:%.0f", *nknots ? " " : "", b, t);
			lb = b;
			lt = t;
			++*nknots;
		}
	}
	snprintf(out + len, size - len, "\n");
	if (*nknots < 2) {
		snprintf(why, whysize, "fewer than two of the board's records match a sample");
		free(out);
		out = NULL;
	}
	free(bt);
	free(p);
	return out;
oom:
	snprintf(why, whysize, "out of memory");
	free(bt);
	free(p);
	return NULL;
}
