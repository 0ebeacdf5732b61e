/*
 * power.c - the interval stream behind every power analysis; see power.h.
 *
 * A recording is read in place (eqp.h maps it); only when its samples are
 * not in time order (several rings drained one after the other) do we build
 * a sorted array of pointers to them.  Board records are copied, as the
 * reader hands them out one at a time.
 */
#include "profile/compare.h"
#include "power/power.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WHY_TIME_NO_BOARD \
	"time-driven recording without board data: power needs an energy-driven " \
	"recording (the board's interrupts, or eqprof sim) or the board's stream in the file"
#define WHY_NO_QUANTUM \
	"energy-driven recording with unknown quantum (header quantum 0, no board info): " \
	"it gives energy shares only; re-import it with --energy QUANTUM"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int cmp_sample_ptr(const void *a, const void *b)
{
	const struct eq_sample *x = *(const struct eq_sample *const *)a;
	const struct eq_sample *y = *(const struct eq_sample *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/* Samples drained ring after ring are not in time order: sort pointers. */
static int order_samples(struct power_input *in, struct eq_error *err)
{
	uint64_t prev = 0, k = 0;
	size_t c, i;
	int sorted = 1;

	for (c = 0; c < in->nchunks && sorted; c++)
		for (i = 0; i < in->counts[c]; i++) {
			if (in->chunks[c][i].time < prev) {
				sorted = 0;
				break;
			}
			prev = in->chunks[c][i].time;
		}
	if (sorted)
		return 0;
	in->sorted = malloc(in->nsamples * sizeof(*in->sorted));
	if (!in->sorted)
		return eq_fail(err, "%s: out of memory sorting %llu samples by time",
			       in->name, (unsigned long long)in->nsamples);
	for (c = 0; c < in->nchunks; c++)
		for (i = 0; i < in->counts[c]; i++)
			in->sorted[k++] = &in->chunks[c][i];
	qsort(in->sorted, in->nsamples, sizeof(*in->sorted), cmp_sample_ptr);
	return 0;
}

static int cmp_board(const void *a, const void *b)
{
	const struct eqp_board_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return 0;
}

static int load_board(struct power_input *in, const struct eqp_file *f,
		      struct eq_error *err)
{
	const struct eqp_board_info *bi = eqp_board_info(f);
	const char *vnom = eqp_meta_get(f, "vb_nominal");
	size_t i, n = eqp_nboard_records(f);

	if (!bi || n == 0)
		return 0;
	in->board = malloc(n * sizeof(*in->board));
	if (!in->board)
		return eq_fail(err, "%s: out of memory for %zu board records", in->name, n);
	for (i = 0; i < n; i++)
		in->board[i] = *eqp_board_record_at(f, i);
	qsort(in->board, n, sizeof(*in->board), cmp_board);
	in->nboard = n;
	in->board_clock_hz = bi->clock_hz;
	in->e_min_j = bi->e_min_j;
	in->vb_nominal = bi->vb_nominal_v > 0 ? bi->vb_nominal_v : vnom ? strtod(vnom, NULL) : 0.0;
	if (!(in->vb_nominal > 0))
		in->vb_nominal = 0.0;
	in->dead_time_s = bi->dead_time_s;
	return 0;
}

/* The first energy-source domain's readings at which its value changed
 * (every reading of a power sensor): a coarse gauge's repeated values are
 * not intervals of zero power. */
static int load_source(struct power_input *in, const struct eqp_file *f, struct eq_error *err)
{
	const struct eqp_edomain *d = eqp_energy_domain_at(f, 0);
	size_t i, n = eqp_nenergy_readings(f);

	if (!d || n < 2)
		return 0;
	in->src_t = malloc(n * sizeof(*in->src_t));
	in->src_e = malloc(n * sizeof(*in->src_e));
	if (!in->src_t || !in->src_e)
		return eq_fail(err, "%s: out of memory for %zu energy readings", in->name, n);
	for (i = 0; i < n; i++) {
		const struct eqp_ereading *r = eqp_energy_reading_at(f, i);
		double t = (double)r->time / in->clock_hz;

		if (r->domain != 0 || (in->nsrc && !(t > in->src_t[in->nsrc - 1])))
			continue;
		if (in->nsrc && d->type != 3 && !(r->flags & EQP_EREAD_F_CHANGED))
			continue;
		in->src_t[in->nsrc] = t;
		in->src_e[in->nsrc++] = r->energy_j;
	}
	return 0;
}

static int resolve_basis(struct power_input *in, const struct eqp_file *f,
			 enum power_basis want, struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	const struct eqp_board_info *bi = eqp_board_info(f);
	int board_ok = in->nboard >= 2 && in->board_clock_hz > 0 && in->e_min_j > 0;

	in->quantum_j = m->quantum_j;
	if (in->quantum_j <= 0 && bi)
		in->quantum_j = bi->quantum_pulses * bi->e_min_j;
	if (want == POWER_BASIS_BOARD) {
		if (!board_ok)
			return eq_fail(err, "%s: --source board: the recording has no usable board stream "
				       "(needs board info and at least two board records)", in->name);
		in->basis = POWER_BASIS_BOARD;
		return 0;
	}
	if (want == POWER_BASIS_SOURCE) {
		if (in->nsrc < 2)
			return eq_fail(err, "%s: --source source: the recording has no energy source readings "
				       "(record -t --energy SOURCE makes them)", in->name);
		in->basis = POWER_BASIS_SOURCE;
		return 0;
	}
	if (want == POWER_BASIS_SAMPLES && m->mode != EQP_MODE_ENERGY)
		return eq_fail(err, "%s: --source samples: this is a time-driven recording; "
			       "its samples carry no energy (try --source board)", in->name);
	if (m->mode == EQP_MODE_ENERGY) {
		in->basis = in->quantum_j > 0 ? POWER_BASIS_SAMPLES : POWER_BASIS_NONE;
		in->why_none = WHY_NO_QUANTUM;
		/* No quantum, or no samples at all (`eqprof board log` writes
		 * only the board stream): the board's records give the power. */
		if ((in->basis == POWER_BASIS_NONE || in->nsamples < 2) && board_ok &&
		    want == POWER_BASIS_AUTO)
			in->basis = POWER_BASIS_BOARD;
		return 0;
	}
	in->basis = board_ok ? POWER_BASIS_BOARD : in->nsrc >= 2 ? POWER_BASIS_SOURCE : POWER_BASIS_NONE;
	in->why_none = WHY_TIME_NO_BOARD;
	return 0;
}

static int input_from_file(struct power_input *in, const struct eqp_file *f,
			   enum power_basis want, int order, struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	size_t c, i;

	memset(in, 0, sizeof(*in));
	in->name = base_name(eqp_path(f));
	in->mode = m->mode;
	in->clock_hz = m->clock_hz > 0 ? m->clock_hz : 1e9;
	in->nchunks = eqp_nsample_chunks(f);
	in->chunks = calloc(in->nchunks ? in->nchunks : 1, sizeof(*in->chunks));
	in->counts = calloc(in->nchunks ? in->nchunks : 1, sizeof(*in->counts));
	in->nmarkers = eqp_nmarkers(f);
	in->markers = calloc(in->nmarkers ? in->nmarkers : 1, sizeof(*in->markers));
	if (!in->chunks || !in->counts || !in->markers) {
		power_input_free(in);
		return eq_fail(err, "%s: out of memory", in->name);
	}
	for (c = 0; c < in->nchunks; c++) {
		in->chunks[c] = eqp_sample_chunk(f, c, &in->counts[c]);
		in->nsamples += in->counts[c];
	}
	for (i = 0; i < in->nmarkers; i++)
		in->markers[i] = eqp_marker_at(f, i);
	in->lost_recorded = eqp_lost_total(f);
	in->skipped = *eqp_skipped(f);
	in->unordered = 1;
	if ((order && power_input_order(in, err) < 0) || load_board(in, f, err) < 0 ||
	    load_source(in, f, err) < 0 || resolve_basis(in, f, want, err) < 0) {
		power_input_free(in);
		return -1;
	}
	return 0;
}

int power_input_from_file(struct power_input *in, const struct eqp_file *f,
			  enum power_basis want, struct eq_error *err)
{
	return input_from_file(in, f, want, 1, err);
}

int power_input_from_file_unordered(struct power_input *in, const struct eqp_file *f,
				    enum power_basis want, struct eq_error *err)
{
	return input_from_file(in, f, want, 0, err);
}

int power_input_order(struct power_input *in, struct eq_error *err)
{
	if (!in->unordered)
		return 0;
	if (order_samples(in, err) < 0)
		return -1;
	in->unordered = 0;
	return 0;
}

int power_input_from_samples(struct power_input *in, const char *name,
			     const struct eq_sample *s, size_t n,
			     double clock_hz, double quantum_j, struct eq_error *err)
{
	memset(in, 0, sizeof(*in));
	in->name = name;
	in->mode = EQP_MODE_ENERGY;
	in->basis = quantum_j > 0 ? POWER_BASIS_SAMPLES : POWER_BASIS_NONE;
	in->why_none = WHY_NO_QUANTUM;
	in->clock_hz = clock_hz;
	in->quantum_j = quantum_j;
	in->nchunks = 1;
	in->chunks = malloc(sizeof(*in->chunks));
	in->counts = malloc(sizeof(*in->counts));
	if (!in->chunks || !in->counts) {
		power_input_free(in);
		return eq_fail(err, "%s: out of memory", name);
	}
	in->chunks[0] = s;
	in->counts[0] = n;
	in->nsamples = n;
	if (order_samples(in, err) < 0) {
		power_input_free(in);
		return -1;
	}
	return 0;
}

void power_input_free(struct power_input *in)
{
	free(in->chunks);
	free(in->counts);
	free(in->sorted);
	free(in->board);
	free(in->src_t);
	free(in->src_e);
	free(in->markers);
	memset(in, 0, sizeof(*in));
}

/* ---- iterating ------------------------------------------------------------ */

double power_board_record_j(const struct eqp_board_rec *r, double e_min_j, double vb_nominal,
			    double dead_time_s, double dt_s)
{
	double e = (double)r->pulses * e_min_j, busy;

	/* One pulse is E_min at the nominal voltage; the charge per pulse is
	 * fixed, so its energy scales with the battery voltage. */
	if (vb_nominal > 0 && r->vbat_uv > 0)
		e *= r->vbat_uv * 1e-6 / vb_nominal;
	/* While the 555 discharges the capacitor (dead time) current is not
	 * counted: the pulses cover only dt - pulses * dead_time of the interval
	 * (docs/hardware.md).  Past half the interval the rate is implausible. */
	busy = dt_s > 0 ? r->pulses * dead_time_s / dt_s : 0;
	if (busy > 0 && busy < 0.5)
		e /= 1 - busy;
	return e;
}

static double board_rec_energy(const struct power_input *in, const struct eqp_board_rec *r,
			       double dt_s)
{
	return power_board_record_j(r, in->e_min_j, in->vb_nominal, in->dead_time_s, dt_s);
}

void power_iter_init(struct power_iter *it, const struct power_input *in)
{
	size_t i;
	double sum = 0;

	assert(!in->unordered);  /* power_input_order() first */
	memset(it, 0, sizeof(*it));
	it->in = in;
	if (in->basis == POWER_BASIS_BOARD && in->nboard) {
		for (i = 0; i < in->nboard; i++)
			sum += board_rec_energy(in, &in->board[i], i == 0 ? 0 :
						(double)(in->board[i].time - in->board[i - 1].time) /
						in->board_clock_hz);
		it->board_mean_j = sum / in->nboard;
	}
}

static const struct eq_sample *next_sample(struct power_iter *it)
{
	const struct power_input *in = it->in;

	if (in->sorted)
		return it->pos < in->nsamples ? in->sorted[it->pos++] : NULL;
	while (it->chunk < in->nchunks && it->idx >= in->counts[it->chunk]) {
		it->chunk++;
		it->idx = 0;
	}
	if (it->chunk >= in->nchunks)
		return NULL;
	return &in->chunks[it->chunk][it->idx++];
}

const struct eq_sample *power_iter_sample(struct power_iter *it)
{
	return next_sample(it);
}

static int next_from_samples(struct power_iter *it, struct power_iv *iv)
{
	const struct power_input *in = it->in;
	const struct eq_sample *s;
	uint32_t pending = 0;

	while ((s = next_sample(it))) {
		uint32_t q = 1;

		if (!it->have_prev) {
			it->have_prev = 1;
			it->t_first = it->t_prev = s->time;
			it->seq_prev = s->seq;
			continue;
		}
		if ((s->flags & EQ_F_LOST) && s->seq - it->seq_prev > 1 &&
		    s->seq - it->seq_prev < (1u << 24))
			q = s->seq - it->seq_prev;
		it->seq_prev = s->seq;
		pending += q;
		if (s->time == it->t_prev)
			continue; /* same timestamp: its quanta go into the next interval */
		iv->t = (double)(s->time - it->t_first) / in->clock_hz;
		iv->dt = (double)(s->time - it->t_prev) / in->clock_hz;
		iv->quanta = pending;
		iv->energy_j = in->quantum_j * pending;
		iv->idle = (s->flags & EQ_F_IDLE) != 0;
		iv->idle_known = 1;
		it->t_prev = s->time;
		return 1;
	}
	return 0;
}

static int next_from_board(struct power_iter *it, struct power_iv *iv)
{
	const struct power_input *in = it->in;
	double pending = 0;
	uint32_t quanta = 0;

	while (it->pos < in->nboard) {
		const struct eqp_board_rec *r = &in->board[it->pos++];

		if (!it->have_prev) {
			it->have_prev = 1;
			it->t_first = it->t_prev = r->time;
			it->seq_prev = r->seq;
			continue;
		}
		if (r->seq <= it->seq_prev) {
			/* seq restarted: the board reset and the log went on with a
			 * new segment (docs/format.md, BINF).  Nothing was counted
			 * in between: start afresh from this record. */
			it->restart_j += board_rec_energy(in, r, 0);
			it->restart_gap_s += (double)(r->time - it->t_prev) / in->board_clock_hz;
			it->t_prev = r->time;
			it->seq_prev = r->seq;
			continue;
		}
		if (r->seq - it->seq_prev > 1 && r->seq - it->seq_prev < (1u << 24)) {
			/* Dropped records: their quanta happened, at the mean size. */
			quanta += r->seq - it->seq_prev - 1;
			pending += (r->seq - it->seq_prev - 1) * it->board_mean_j;
			it->board_gaps += r->seq - it->seq_prev - 1;
		}
		it->seq_prev = r->seq;
		quanta++;
		pending += board_rec_energy(in, r, (double)(r->time - it->t_prev) /
					    in->board_clock_hz);
		if (r->time == it->t_prev)
			continue;
		iv->t = (double)(r->time - it->t_first) / in->board_clock_hz;
		iv->dt = (double)(r->time - it->t_prev) / in->board_clock_hz;
		iv->quanta = quanta;
		iv->energy_j = pending;
		iv->idle = 0;
		iv->idle_known = 0;
		it->t_prev = r->time;
		return 1;
	}
	return 0;
}

/* Source basis: one interval between consecutive changed readings. */
static int next_from_source(struct power_iter *it, struct power_iv *iv)
{
	const struct power_input *in = it->in;
	size_t k = (size_t)it->pos + 1;

	if (k >= in->nsrc)
		return 0;
	it->pos = k;
	iv->t = in->src_t[k] - in->src_t[0];
	iv->dt = in->src_t[k] - in->src_t[k - 1];
	iv->energy_j = in->src_e[k] - in->src_e[k - 1];
	iv->quanta = 1;
	iv->idle = 0;
	iv->idle_known = 0;
	return 1;
}

int power_iter_next(struct power_iter *it, struct power_iv *iv)
{
	switch (it->in->basis) {
	case POWER_BASIS_SOURCE:
		return next_from_source(it, iv);
	case POWER_BASIS_SAMPLES:
		return next_from_samples(it, iv);
	case POWER_BASIS_BOARD:
		return next_from_board(it, iv);
	default:
		return 0;
	}
}

static uint64_t first_sample_time(const struct power_input *in)
{
	size_t c;

	if (in->sorted)
		return in->nsamples ? in->sorted[0]->time : 0;
	for (c = 0; c < in->nchunks; c++)
		if (in->counts[c])
			return in->chunks[c][0].time;
	return 0;
}

double power_rel_time(const struct power_input *in, uint64_t t)
{
	uint64_t t0 = first_sample_time(in);

	return ((double)t - (double)t0) / in->clock_hz;
}

/* ---- summary ---------------------------------------------------------------- */

static void count_samples(const struct power_input *in, struct power_summary *s)
{
	uint64_t tmin = UINT64_MAX, tmax = 0, gaps = 0;
	size_t c, i;

	for (c = 0; c < in->nchunks; c++)
		for (i = 0; i < in->counts[c]; i++) {
			const struct eq_sample *x = &in->chunks[c][i];

			s->idle_samples += (x->flags & EQ_F_IDLE) != 0;
			if (x->time < tmin)
				tmin = x->time;
			if (x->time > tmax)
				tmax = x->time;
		}
	if (in->basis == POWER_BASIS_SAMPLES) {
		struct power_iter it;
		struct power_iv iv;

		power_iter_init(&it, in);
		while (power_iter_next(&it, &iv)) {
			s->intervals++;
			s->quanta += iv.quanta;
		}
		/* Every sample after the first is one quantum; more are losses. */
		gaps = s->quanta + 1 > in->nsamples ? s->quanta + 1 - in->nsamples : 0;
	}
	s->samples = in->nsamples;
	s->lost = in->lost_recorded > gaps ? in->lost_recorded : gaps;
	/* The rate is the quanta between the first and the last sample, from
	 * seq: losses the recorder counted that left no seq gap inside that span
	 * (samples dropped after the last stored one, interrupts that merged
	 * before the ISR ran) cannot be placed in it.  Counting them in the rate
	 * over-estimated power by 0.1-0.5% when a ring overflowed at the end;
	 * they count in the total energy. */
	s->duration_s = in->nsamples > 1 ? (double)(tmax - tmin) / in->clock_hz : 0;
}

static void board_totals(const struct power_input *in, struct power_summary *s,
			 double *energy_in_intervals, double *board_span)
{
	struct power_iter it;
	struct power_iv iv;

	power_iter_init(&it, in);
	*energy_in_intervals = 0;
	while (power_iter_next(&it, &iv))
		*energy_in_intervals += iv.energy_j;
	/* The time the board was counting: not the gaps where it restarted. */
	*board_span = (double)(in->board[in->nboard - 1].time - in->board[0].time) /
		      in->board_clock_hz - it.restart_gap_s;
	/* Total: the first record's quantum (and each later segment's first)
	 * as well as every interval's. */
	s->energy_j = *energy_in_intervals + board_rec_energy(in, &in->board[0], 0) + it.restart_j;
	s->quantum_j = it.board_mean_j;
	/* Records missing from the stream are losses even when the file has no
	 * LOST chunk saying so (older board logs). */
	if (it.board_gaps > s->lost)
		s->lost = it.board_gaps;
}

int power_summarize(const struct power_input *in, struct power_summary *s,
		    struct eq_error *err)
{
	double e_iv, span;

	memset(s, 0, sizeof(*s));
	s->name = in->name;
	s->mode = in->mode;
	s->basis = in->basis;
	s->skipped = in->skipped;
	s->power_w = s->energy_j = NAN;
	count_samples(in, s);
	if (in->nsamples < 2 && in->basis != POWER_BASIS_BOARD && in->basis != POWER_BASIS_SOURCE)
		return eq_fail(err, "%s: %llu sample(s): a summary needs at least two",
			       in->name, (unsigned long long)in->nsamples);
	if (s->duration_s > 0)
		s->freq_hz = (in->basis == POWER_BASIS_SAMPLES ? (double)s->quanta :
			      (double)(in->nsamples - 1)) / s->duration_s;
	s->idle_pct = in->nsamples ? 100.0 * s->idle_samples / in->nsamples : 0;
	switch (in->basis) {
	case POWER_BASIS_SAMPLES:
		s->quantum_j = in->quantum_j;
		s->power_w = s->duration_s > 0 ? in->quantum_j * s->freq_hz : NAN;
		s->energy_j = in->quantum_j * (double)(s->samples + s->lost);
		break;
	case POWER_BASIS_SOURCE:
		span = in->src_t[in->nsrc - 1] - in->src_t[0];
		s->energy_j = in->src_e[in->nsrc - 1] - in->src_e[0];
		s->power_w = span > 0 ? s->energy_j / span : NAN;
		s->duration_s = span;
		break;
	case POWER_BASIS_BOARD:
		board_totals(in, s, &e_iv, &span);
		s->power_w = span > 0 ? e_iv / span : NAN;
		if (s->duration_s == 0)
			s->duration_s = span;
		break;
	default:
		s->why_none = in->why_none;
		break;
	}
	return 0;
}

/* ---- per-row power for compare ---------------------------------------------- */

static double file_span_s(const struct eqp_file *f)
{
	uint64_t tmin = UINT64_MAX, tmax = 0;
	size_t c, i, n;
	double hz = eqp_meta(f)->clock_hz > 0 ? eqp_meta(f)->clock_hz : 1e9;

	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		const struct eq_sample *s = eqp_sample_chunk(f, c, &n);

		for (i = 0; i < n; i++) {
			if (s[i].time < tmin)
				tmin = s[i].time;
			if (s[i].time > tmax)
				tmax = s[i].time;
		}
	}
	return tmax > tmin ? (double)(tmax - tmin) / hz : 0;
}

int power_row_context(const struct eqp_file *time_file,
		      const struct eqp_file *energy_file,
		      struct power_row_ctx *ctx, struct eq_error *err)
{
	const struct eqp_meta *em = eqp_meta(energy_file);
	const struct eqp_meta *tm = eqp_meta(time_file);
	const struct eqp_board_info *bi = eqp_board_info(energy_file);
	uint64_t n = eqp_nsamples(time_file);
	double span;

	memset(ctx, 0, sizeof(*ctx));
	ctx->quantum_j = em->quantum_j;
	if (ctx->quantum_j <= 0 && bi)
		ctx->quantum_j = bi->quantum_pulses * bi->e_min_j;
	if (em->mode != EQP_MODE_ENERGY || ctx->quantum_j <= 0)
		return eq_fail(err, "%s: per-row power needs an energy-driven recording with a known quantum",
			       eqp_path(energy_file));
	/* Seconds per time sample: the measured span is better than the nominal
	 * rate, which the jittered timer only meets on average. */
	span = file_span_s(time_file);
	if (n > 1 && span > 0)
		ctx->time_per_sample_s = span / (double)(n - 1);
	else if (tm->nominal_hz > 0)
		ctx->time_per_sample_s = 1.0 / tm->nominal_hz;
	else
		return eq_fail(err, "%s: per-row power needs a time-driven recording with a duration or a nominal rate",
			       eqp_path(time_file));
	return 0;
}

double power_per_row(const struct power_row_ctx *ctx, uint64_t energy_samples,
		     uint64_t time_samples)
{
	if (time_samples == 0 || ctx->time_per_sample_s <= 0)
		return NAN;
	return (double)energy_samples * ctx->quantum_j /
	       ((double)time_samples * ctx->time_per_sample_s);
}

void eq_comparison_set_power(struct eq_comparison *c, const struct power_row_ctx *ctx)
{
	size_t i;

	for (i = 0; i < c->nrows; i++)
		c->rows[i].power_w = power_per_row(ctx, c->rows[i].energy_samples,
						   c->rows[i].time_samples);
	c->has_power = 1;
}
