/*
 * regress.c - power per procedure by regression; see regress.h.
 */
#include "regress/regress.h"
#include "align/align.h"
#include "attrib/attrib.h"
#include "power/power.h"
#include "profile/stats.h"
#include "util/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eq_regress_opts_default(struct eq_regress_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_prime = 7;
	o->max_prime = 61;
	o->seed = 1;
	o->min_share = 0.005;
	o->groups = 20;
}

/* ---- linear algebra ------------------------------------------------------- */

int eq_linsolve(double *a, double *b, size_t n)
{
	size_t i, j, k, p;

	for (k = 0; k < n; k++) {
		double best = 0, scale = 0;

		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				scale = fmax(scale, fabs(a[i * n + j]));
		for (p = k, i = k; i < n; i++)
			if (fabs(a[i * n + k]) > best) {
				best = fabs(a[i * n + k]);
				p = i;
			}
		if (!(best > 1e-13 * scale))
			return -1;
		if (p != k) {
			for (j = 0; j < n; j++) {
				double t = a[k * n + j];

				a[k * n + j] = a[p * n + j];
				a[p * n + j] = t;
			}
			double t = b[k];

			b[k] = b[p];
			b[p] = t;
		}
		for (i = k + 1; i < n; i++) {
			double f = a[i * n + k] / a[k * n + k];

			if (f == 0)
				continue;
			for (j = k; j < n; j++)
				a[i * n + j] -= f * a[k * n + j];
			b[i] -= f * b[k];
		}
	}
	for (k = n; k-- > 0;) {
		double s = b[k];

		for (j = k + 1; j < n; j++)
			s -= a[k * n + j] * b[j];
		b[k] = s / a[k * n + k];
	}
	return 0;
}

void eq_sym_eigen(double *a, size_t n, double *ev)
{
	size_t i, j, k, sweep;

	for (sweep = 0; sweep < 100; sweep++) {
		double off = 0;

		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				off += a[i * n + j] * a[i * n + j];
		if (off < 1e-30)
			break;
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				double aij = a[i * n + j], th, t, c, s;

				if (fabs(aij) < 1e-300)
					continue;
				th = (a[j * n + j] - a[i * n + i]) / (2 * aij);
				t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
				c = 1 / sqrt(t * t + 1);
				s = t * c;
				for (k = 0; k < n; k++) { /* columns i, j */
					double ki = a[k * n + i], kj = a[k * n + j];

					a[k * n + i] = c * ki - s * kj;
					a[k * n + j] = s * ki + c * kj;
				}
				for (k = 0; k < n; k++) { /* rows i, j */
					double ik = a[i * n + k], jk = a[j * n + k];

					a[i * n + k] = c * ik - s * jk;
					a[j * n + k] = s * ik + c * jk;
				}
			}
	}
	for (i = 0; i < n; i++)
		ev[i] = a[i * n + i];
}

/* ---- intervals ------------------------------------------------------------ */

struct interval {
	double t0, t1;      /* seconds on the samples' clock */
	double energy_j;
	uint32_t quanta;
	uint32_t n;         /* samples in it */
	uint32_t na;        /* 1: fitted */
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int is_prime(unsigned n)
{
	unsigned d;

	if (n < 2)
		return 0;
	for (d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

struct ivs {
	struct interval *v;
	size_t n, cap;
};

static int iv_push(struct ivs *l, const struct interval *iv)
{
	if (EQ_GROW(l->v, l->cap, l->n + 1, 1024) < 0)
		return -1;
	l->v[l->n++] = *iv;
	return 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static int make_primes(const struct eq_regress_opts *o, unsigned *primes, unsigned *np,
		       struct eq_error *err)
{
	unsigned p;

	*np = 0;
	for (p = o->min_prime; p <= o->max_prime && *np < 256; p++)
		if (is_prime(p))
			primes[(*np)++] = p;
	if (!*np)
		return eq_fail(err, "no prime between %u and %u for the interval lengths", o->min_prime,
			       o->max_prime);
	return 0;
}

/*
 * The board's times on the samples' clock.  eqprof sim's recordings share
 * one clock; a recording `eqprof merge --edges` wrote carries the matched
 * edges (knots: each quantum's edge on both clocks, interpolated between);
 * one merge aligned otherwise carries the linear fit of the two clocks.
 */
struct clockmap {
	enum { CM_SAME, CM_KNOTS, CM_LINEAR } kind;
	struct eq_knots knots;
	double offset_ns, rate;
};

/* Seconds on the samples' clock of board time `ticks`; NAN when unknown. */
static double cm_map(const struct clockmap *cm, uint64_t ticks, double board_hz)
{
	double b = (double)ticks / board_hz;

	switch (cm->kind) {
	case CM_KNOTS:
		return eq_knots_map(&cm->knots, b * 1e9) * 1e-9;
	case CM_LINEAR:
		return (cm->offset_ns + cm->rate * b * 1e9) * 1e-9;
	default:
		return b;
	}
}

/* How the recording's board stream meets its samples' clock, or an error
 * that says what to record. */
static int clockmap_of(const struct eqp_file *f, struct clockmap *cm, char *how, size_t howsize,
		       struct eq_error *err)
{
	const char *al = eqp_meta_get(f, "board_align"), *kn = eqp_meta_get(f, "board_align_knots");
	const char *off = eqp_meta_get(f, "board_align_offset_ns"), *rate = eqp_meta_get(f, "board_align_rate");

	memset(cm, 0, sizeof(*cm));
	if (eqp_meta_get(f, "simulator")) {
		cm->kind = CM_SAME;
		snprintf(how, howsize, "the board's stream (eqprof sim: one clock)");
		return 0;
	}
	if (kn) {
		if (eq_knots_parse(kn, &cm->knots) < 0 || cm->knots.n < 2)
			return eq_fail(err, "%s: header field board_align_knots is malformed (pairs "
				       "BOARD_NS:TARGET_NS ascending in both); merge it again", eqp_path(f));
		cm->kind = CM_KNOTS;
		snprintf(how, howsize, "the board's stream, its clock tied to the samples' at %zu edges "
			 "(eqprof merge --edges)", cm->knots.n);
		return 0;
	}
	if (al && !strcmp(al, "ok") && off && rate) {
		char *e1, *e2;

		cm->offset_ns = strtod(off, &e1);
		cm->rate = strtod(rate, &e2);
		if (*e1 || *e2 || !isfinite(cm->offset_ns) || !(cm->rate > 0))
			return eq_fail(err, "%s: header fields board_align_offset_ns/board_align_rate are "
				       "malformed; merge it again", eqp_path(f));
		cm->kind = CM_LINEAR;
		snprintf(how, howsize, "the board's stream, on the samples' clock by eqprof merge's "
			 "alignment (target = board x %.9f %+.3f ms)", cm->rate, cm->offset_ns * 1e-6);
		return 0;
	}
	return eq_fail(err, "%s: its board stream and its samples share no known clock (%s): record "
		       "the board's interrupts on the target while the time-driven recording runs "
		       "(eqprof record -e -a beside record -t) and join the three with 'eqprof merge "
		       "TIME.eqp BOARD.eqp --edges EDGES.eqp -o OUT.eqp'; or record -t --energy SOURCE",
		       eqp_path(f), al ? "eqprof merge could not align them" :
		       "it was not made by eqprof merge or eqprof sim");
}

/* The board's quanta cut into runs of random prime lengths; a run stops
 * (and is dropped) at a record gap, a new segment or where the clocks'
 * mapping is unknown. */
static int make_intervals(const struct eqp_file *f, const struct eq_regress_opts *o,
			  const struct clockmap *cm, struct ivs *out, uint64_t *dropped,
			  struct eq_error *err)
{
	unsigned primes[256], np;
	size_t sgi, i;
	uint64_t rng = o->seed;

	if (make_primes(o, primes, &np, err) < 0)
		return -1;
	for (sgi = 0; sgi < eqp_nboard_segments(f); sgi++) {
		const struct eqp_board_segment *sg = eqp_board_segment_at(f, sgi);
		const struct eqp_board_info *bi = &sg->info;
		struct interval cur = { 0 };
		unsigned want = primes[splitmix(&rng) % np];
		int open = 0;

		for (i = sg->first_record; i < sg->first_record + sg->nrecords; i++) {
			const struct eqp_board_rec *r = eqp_board_record_at(f, i);
			const struct eqp_board_rec *q = i > sg->first_record ? eqp_board_record_at(f, i - 1) : NULL;
			double t = cm_map(cm, r->time, bi->clock_hz), dt;

			if (isnan(t)) { /* outside the knots */
				if (open && cur.quanta)
					++*dropped;
				open = 0;
				continue;
			}
			if (!open || !q || r->seq != q->seq + 1 || (r->flags & EQP_BOARD_F_DROPPED) ||
			    r->time <= q->time || !(t > cur.t1)) {
				if (open && cur.quanta)
					++*dropped;
				cur = (struct interval){ .t0 = t, .t1 = t };
				open = 1;
				continue;
			}
			dt = (double)(r->time - q->time) / bi->clock_hz; /* board seconds */
			cur.energy_j += power_board_record_j(r, bi->e_min_j, bi->vb_nominal_v, bi->dead_time_s, dt);
			cur.quanta++;
			cur.t1 = t;
			if (cur.quanta == want) {
				if (iv_push(out, &cur) < 0)
					return eq_fail(err, "out of memory");
				cur = (struct interval){ .t0 = t, .t1 = t };
				want = primes[splitmix(&rng) % np];
			}
		}
	}
	return 0;
}

/* ---- an energy source's readings (record -t --energy) ---------------------- */

/* The domain to fit: --domain (its name, its kind or the source as given),
 * else the first psys, else the first package, else the first. */
static const struct eqp_edomain *pick_domain(const struct eqp_file *f, const char *want,
					     struct eq_error *err)
{
	size_t i, n = eqp_nenergy_domains(f);
	static const char *const pref[] = { "psys", "package" };
	char names[512];
	size_t len = 0;

	if (want) {
		for (i = 0; i < n; i++) {
			const struct eqp_edomain *d = eqp_energy_domain_at(f, i);

			if (!strcmp(d->name, want) || !strcmp(d->spec, want))
				return d;
		}
		for (i = 0; i < n; i++)
			if (!strcmp(eqp_energy_domain_at(f, i)->kind, want))
				return eqp_energy_domain_at(f, i);
		for (i = 0; i < n && len < sizeof(names) - 80; i++)
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s (%s)", i ? ", " : "",
						eqp_energy_domain_at(f, i)->name, eqp_energy_domain_at(f, i)->kind);
		eq_fail(err, "%s: no energy domain '%s'; it has: %s", eqp_path(f), want, n ? names : "none");
		return NULL;
	}
	for (size_t k = 0; k < 2; k++)
		for (i = 0; i < n; i++)
			if (!strcmp(eqp_energy_domain_at(f, i)->kind, pref[k]))
				return eqp_energy_domain_at(f, i);
	return n ? eqp_energy_domain_at(f, 0) : NULL;
}

/*
 * Intervals between the domain's updates (readings whose value changed):
 * runs of random prime numbers of updates.  A reading's change happened
 * after the previous reading and by this one; the interval's ends are the
 * readings' times, so the more often the recorder reads against the
 * source's update period, the sharper they are (docs/power.md).  A gap of
 * more than 8 median update spacings (the recorder stalled) ends a run.
 */
static int make_energy_intervals(const struct eqp_file *f, const struct eqp_edomain *d,
				 const struct eq_regress_opts *o, struct ivs *out, uint64_t *dropped,
				 double *update_s, struct eq_error *err)
{
	unsigned primes[256], np;
	size_t i, n = eqp_nenergy_readings(f), nc = 0, k;
	double clock = eqp_meta(f)->clock_hz > 0 ? eqp_meta(f)->clock_hz : 1e9, *t = NULL, *e = NULL;
	double *gaps = NULL, med = 0;
	uint64_t rng = o->seed;
	int first = 1;

	if (make_primes(o, primes, &np, err) < 0)
		return -1;
	t = malloc((n ? n : 1) * sizeof(double));
	e = malloc((n ? n : 1) * sizeof(double));
	gaps = malloc((n ? n : 1) * sizeof(double));
	if (!t || !e || !gaps) {
		free(t);
		free(e);
		free(gaps);
		return eq_fail(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct eqp_ereading *r = eqp_energy_reading_at(f, i);

		if (r->domain != d->index)
			continue;
		if (!first && !(r->flags & EQP_EREAD_F_CHANGED))
			continue;
		first = 0;
		t[nc] = (double)r->time / clock;
		e[nc] = r->energy_j;
		if (nc && !(t[nc] > t[nc - 1]))
			continue; /* out of order: not an update */
		nc++;
	}
	for (k = 1; k < nc; k++)
		gaps[k - 1] = t[k] - t[k - 1];
	if (nc > 1) { /* the median spacing of the updates */
		qsort(gaps, nc - 1, sizeof(double), cmp_double);
		med = gaps[(nc - 1) / 2];
	}
	*update_s = med;
	{
		struct interval cur = { 0 };
		unsigned want = primes[splitmix(&rng) % np];
		double e0 = 0;

		for (k = 0; k < nc; k++) {
			if (!k || t[k] - t[k - 1] > 8 * med) {
				if (k && cur.quanta)
					++*dropped;
				cur = (struct interval){ .t0 = t[k], .t1 = t[k] };
				e0 = e[k];
				continue;
			}
			cur.quanta++;
			cur.t1 = t[k];
			cur.energy_j = e[k] - e0;
			if (cur.quanta == want) {
				if (iv_push(out, &cur) < 0) {
					free(t);
					free(e);
					free(gaps);
					return eq_fail(err, "out of memory");
				}
				cur = (struct interval){ .t0 = t[k], .t1 = t[k] };
				e0 = e[k];
				want = primes[splitmix(&rng) % np];
			}
		}
	}
	free(t);
	free(e);
	free(gaps);
	return 0;
}

/* ---- columns: one per procedure ------------------------------------------ */

struct column {
	const char *module, *proc;   /* key (interned by the symbolizer) */
	const char *name, *base;
	uint64_t samples;
	size_t merged_into;          /* final column */
};

struct colset {
	struct column *v;
	size_t n, cap;
	uint32_t *slots;             /* index + 1 */
	size_t mask;
};

static size_t col_hash(const char *m, const char *p)
{
	uint64_t h = (uint64_t)(uintptr_t)m * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)p * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ h >> 29);
}

static long col_of(struct colset *c, const struct eq_loc *loc)
{
	const char *m = loc->kind == EQ_LOC_IDLE ? "[idle]" : loc->module;
	const char *p = loc->kind == EQ_LOC_IDLE ? "[idle]" : loc->proc;
	size_t j;

	if (2 * (c->n + 1) > c->mask) {
		size_t mask = c->mask ? 2 * c->mask + 1 : 255, i;
		uint32_t *s = calloc(mask + 1, sizeof(*s));

		if (!s)
			return -1;
		for (i = 0; i < c->n; i++) {
			for (j = col_hash(c->v[i].module, c->v[i].proc) & mask; s[j]; j = (j + 1) & mask)
				;
			s[j] = (uint32_t)(i + 1);
		}
		free(c->slots);
		c->slots = s;
		c->mask = mask;
	}
	for (j = col_hash(m, p) & c->mask; c->slots[j]; j = (j + 1) & c->mask) {
		struct column *x = &c->v[c->slots[j] - 1];

		if (x->module == m && x->proc == p)
			return (long)(c->slots[j] - 1);
	}
	if (EQ_GROW(c->v, c->cap, c->n + 1, 64) < 0)
		return -1;
	c->v[c->n] = (struct column){ .module = m, .proc = p,
				      .name = loc->kind == EQ_LOC_IDLE ? "[idle]" : p ? p : "[unknown]",
				      .base = loc->kind == EQ_LOC_IDLE ? "[idle]" : loc->module_base };
	c->slots[j] = (uint32_t)(c->n + 1);
	return (long)c->n++;
}

/* ---- the fit ---------------------------------------------------------------- */

struct hit {
	uint32_t iv, col;
};

struct sums {          /* per jackknife group */
	double *ab, *va, *vb, *xx, *vx; /* D'WD (k x k; D = A - B), unused, unused, X'WX, X'Wy */
};

/* The fit over sums laid out as gs[].ab: D'WD, X'WX, (unused k), (unused k),
 * X'Wy; c > 0: corrected for errors in the times (D'WD / c estimates their
 * covariance), c = 0: plain weighted least squares. */
static int solve_fit(const double *sums, size_t k, double c, double *beta, double *work)
{
	const double *dd = sums, *xx = sums + k * k, *vx = xx + k * k + 2 * k;

	if (c > 0) { /* least squares less the sampling errors' covariance */
		size_t i;

		for (i = 0; i < k * k; i++)
			work[i] = xx[i] - dd[i] / c;
		memcpy(beta, vx, k * sizeof(double));
		return eq_linsolve(work, beta, k);
	}
	memcpy(work, xx, k * k * sizeof(double));
	memcpy(beta, vx, k * sizeof(double));
	return eq_linsolve(work, beta, k);
}

static int cmp_rows(const void *x, const void *y)
{
	const struct eq_regress_row *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* ---- devices: their states' times ------------------------------------------- */

#define MAX_DEV_COLS 32

struct devcols {
	size_t ncols;
	char names[MAX_DEV_COLS][80];
	struct eq_dev_piece *pc;     /* unit power; request's device and tail pick the column */
	size_t np;
	size_t col_of[MAX_DEV_COLS / 2][2]; /* [device][tail] -> column, SIZE_MAX: none */
	const struct eqp_file *f;
	char err[512];
};

static int fit_devices(const struct eqp_file *f, const struct eq_regress_opts *o, struct devcols *d)
{
	struct eq_devmodel m[MAX_DEV_COLS / 2];
	struct eqp_devreq *req;
	struct eq_error e;
	size_t nreq = eqp_ndevreqs(f), ndev = 0, i, k;
	double t_end = 0, clock = eqp_meta(f)->clock_hz > 0 ? eqp_meta(f)->clock_hz : 1e9;

	d->f = f;
	for (i = 0; i < nreq; i++)
		if ((size_t)eqp_devreq_at(f, i)->device + 1 > ndev)
			ndev = (size_t)eqp_devreq_at(f, i)->device + 1;
	if (ndev > MAX_DEV_COLS / 2) {
		snprintf(d->err, sizeof(d->err), "%.300s: device number %zu: at most %d devices are fitted",
			 eqp_path(f), ndev - 1, MAX_DEV_COLS / 2);
		return -1;
	}
	for (i = 0; i < ndev; i++) {
		char key[96];
		const char *name, *text = NULL;

		snprintf(key, sizeof(key), "device:%zu", i);
		name = eqp_meta_get(f, key);
		snprintf(m[i].name, sizeof(m[i].name), "%s", name ? name : "device");
		for (k = 0; k < o->nmodels; k++)
			if (!strcmp(o->models[k].name, m[i].name))
				break;
		if (k < o->nmodels) {
			m[i].tail_s = o->models[k].tail_s;
		} else {
			snprintf(key, sizeof(key), "device_model:%.60s", m[i].name);
			text = eqp_meta_get(f, key);
			if (!text || eq_devmodel_parse(text, &m[i], &e) < 0) {
				snprintf(d->err, sizeof(d->err), "%.200s: device '%.40s': its tail time is needed to fit its "
					 "power per state: give --device-model FILE (a line '%.40s active POWER tail TIME "
					 "POWER idle POWER'; only the tail time is used)", eqp_path(f), m[i].name, m[i].name);
				return -1;
			}
		}
		/* unit power: a piece's length is the state's time */
		m[i].active_w = 1;
		m[i].tail_w = m[i].tail_s > 0 ? 1 : 0;
		m[i].idle_w = 0;
		d->col_of[i][0] = d->ncols;
		snprintf(d->names[d->ncols++], sizeof(d->names[0]), "%.60s:active", m[i].name);
		d->col_of[i][1] = SIZE_MAX;
		if (m[i].tail_s > 0) {
			d->col_of[i][1] = d->ncols;
			snprintf(d->names[d->ncols++], sizeof(d->names[0]), "%.60s:tail", m[i].name);
		}
	}
	for (k = 0; k < eqp_nboard_records(f); k++)
		t_end = fmax(t_end, (double)eqp_board_record_at(f, k)->time / eqp_board_info(f)->clock_hz);
	req = malloc((nreq ? nreq : 1) * sizeof(*req));
	if (!req) {
		snprintf(d->err, sizeof(d->err), "out of memory");
		return -1;
	}
	for (i = 0; i < nreq; i++)
		req[i] = *eqp_devreq_at(f, i);
	if (eq_dev_pieces(req, nreq, clock, m, ndev, t_end, &d->pc, &d->np, &e) < 0) {
		free(req);
		snprintf(d->err, sizeof(d->err), "%.500s", e.msg);
		return -1;
	}
	/* the column of each piece, kept in its request field */
	for (i = 0; i < d->np; i++)
		d->pc[i].request = d->col_of[req[d->pc[i].request].device][d->pc[i].tail];
	free(req);
	return 0;
}

/* Seconds of column col's state in (t0, t1]. */
static double dev_time(const struct devcols *d, size_t col, double t0, double t1)
{
	double s = 0;
	size_t i;

	for (i = 0; i < d->np; i++)
		if (d->pc[i].request == col)
			s += fmax(0, fmin(t1, d->pc[i].t1) - fmax(t0, d->pc[i].t0));
	return s;
}

/* ---- the fit, phase by phase (eq_regress_fit) --------------------------- */

/* What the phases of one fit share. */
struct fit {
	const struct eqp_file *f;
	struct eq_regress_opts o;
	double clock;             /* the samples' clock (Hz) */
	struct clockmap cm;       /* board quanta onto the samples' clock */
	char from[320], unit[96]; /* where the energy came from; the intervals' unit */
	double update_s;          /* an energy source's update period */
	struct ivs ivs;
	uint64_t dropped;         /* intervals not fitted */
	struct colset cols;       /* every procedure sampled */
	struct hit *hits;         /* every sample: its interval and procedure */
	size_t nhits, caphits;
	uint64_t total;
	size_t *final;            /* a procedure's fitted column (SIZE_MAX: none) */
	long other;               /* the [other] column, or -1 */
	struct devcols dev;
	size_t kproc, k, G, nfit; /* procedure columns, all columns, groups, intervals */
	uint64_t *colsamp;
	double quarter_ss, half_ss;
	double *xall, *dall, *cnt, *work, *beta, *jk, *ols;
	struct sums *gs;          /* per jackknife group; gs[G] the totals */
};

static int fit_oom(const struct fit *F, struct eq_error *err)
{
	return eq_fail(err, "power per procedure of %s: out of memory", eqp_path(F->f));
}

/* The intervals and the energy in each: the board's quanta, or an energy
 * source's updates. */
static int fit_intervals(struct fit *F, struct eq_error *err)
{
	const struct eqp_file *f = F->f;
	const struct eq_regress_opts *o = &F->o;

	if (eqp_meta(f)->mode != EQP_MODE_TIME)
		return eq_fail(err, "%s is energy-driven: power per procedure by regression needs "
			       "time-driven samples (what ran) beside the energy of each interval: record "
			       "with -t while the board logs and its interrupts are recorded (eqprof merge "
			       "--edges joins them), or record -t --energy SOURCE (eqprof sim writes such a "
			       "time.eqp)", eqp_path(f));
	if (!o->domain && eqp_nboard_records(f) >= 2) {
		if (clockmap_of(f, &F->cm, F->from, sizeof(F->from), err) < 0)
			return -1;
		snprintf(F->unit, sizeof(F->unit), "board quanta");
		if (make_intervals(f, o, &F->cm, &F->ivs, &F->dropped, err) < 0)
			return -1;
	} else if (eqp_nenergy_domains(f)) {
		const struct eqp_edomain *d = pick_domain(f, o->domain, err);

		if (!d || make_energy_intervals(f, d, o, &F->ivs, &F->dropped, &F->update_s, err) < 0)
			return -1;
		snprintf(F->from, sizeof(F->from), "%s: %s (%s), intervals of its updates (every %.3g ms)",
			 d->spec, d->name, d->kind, F->update_s * 1e3);
		snprintf(F->unit, sizeof(F->unit), "updates of %.80s", d->name);
	} else if (o->domain) {
		return eq_fail(err, "%s has no energy source's readings (--domain %s): record with -t "
			       "--energy SOURCE (eqprof sources lists this machine's)", eqp_path(f),
			       o->domain);
	} else {
		return eq_fail(err, "%s has no board stream and no energy source's readings: power per "
			       "procedure by regression needs the energy of every interval beside the "
			       "time-driven samples; record -t --energy SOURCE (RAPL, a battery, hwmon), "
			       "or record -t with the board attached and its interrupts recorded "
			       "meanwhile, joined by eqprof merge --edges (eqprof sim's time.eqp has "
			       "both)", eqp_path(f));
	}
	if (F->ivs.n < 4)
		return eq_fail(err, "%s: only %zu intervals of %u-%u %s; record longer", eqp_path(f),
			       F->ivs.n, o->min_prime, o->max_prime, F->unit);
	return 0;
}

/* The interval ending at or after t that t falls inside, or ivs->n. */
static size_t interval_of(const struct ivs *ivs, double t)
{
	size_t lo = 0, hi = ivs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ivs->v[mid].t1 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ivs->n && t > ivs->v[lo].t0 ? lo : ivs->n;
}

/* Every sample: its interval and its procedure. */
static int fit_hits(struct fit *F, struct eq_symbolizer *s, struct eq_error *err)
{
	size_t c, i;

	for (c = 0; c < eqp_nsample_chunks(F->f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(F->f, c, &n);

		for (i = 0; smp && i < n; i++) {
			size_t iv = interval_of(&F->ivs, (double)smp[i].time / F->clock);
			long col;

			if (iv == F->ivs.n)
				continue;
			col = col_of(&F->cols, eq_sym_lookup(s, &smp[i]));
			if (col < 0 || EQ_GROW(F->hits, F->caphits, F->nhits + 1, 4096) < 0)
				return fit_oom(F, err);
			F->hits[F->nhits++] = (struct hit){ (uint32_t)iv, (uint32_t)col };
			F->ivs.v[iv].n++;
			F->cols.v[col].samples++;
			F->total++;
		}
	}
	if (!F->total || !F->cols.n)
		return eq_fail(err, "%s: no time-driven sample falls inside the intervals of %s; are "
			       "they of one run?", eqp_path(F->f), F->unit);
	return 0;
}

/* The columns: a procedure each, small ones sharing [other]; then the
 * devices' states. */
static int fit_columns(struct fit *F, struct eq_error *err)
{
	const struct colset *cols = &F->cols;
	double least = F->o.min_share * (double)F->total;
	uint64_t small = 0;
	size_t i, ncols = 0;

	F->final = malloc(cols->n * sizeof(*F->final));
	if (!F->final)
		return fit_oom(F, err);
	for (i = 0; i < cols->n; i++)
		if ((double)cols->v[i].samples < least)
			small += cols->v[i].samples;
	for (i = 0; i < cols->n; i++) {
		if ((double)cols->v[i].samples >= least) {
			F->final[i] = ncols++;
		} else if (small >= EQ_MIN_COLUMN_SAMPLES) {
			if (F->other < 0)
				F->other = (long)ncols++;
			F->final[i] = (size_t)F->other;
		} else { /* too few to fit: their intervals are left out */
			F->final[i] = SIZE_MAX;
		}
	}
	/* Devices with requests (DREQ): a column per state (active, tail) whose
	 * time in each interval the requests give exactly; its coefficient is
	 * the device's power above idle in that state, the procedures' then
	 * exclude it (a device model fitted by least squares). */
	if (eqp_ndevreqs(F->f) && fit_devices(F->f, &F->o, &F->dev) < 0)
		return eq_fail(err, "%s", F->dev.err);
	F->kproc = ncols;
	F->k = ncols + F->dev.ncols;
	return 0;
}

static int fit_alloc(struct fit *F, struct eq_error *err)
{
	size_t k = F->k, G = F->G, g;

	F->cnt = calloc(3 * k, sizeof(double));
	F->colsamp = calloc(k, sizeof(*F->colsamp));
	F->work = malloc((k * k + k) * sizeof(double));
	F->beta = malloc(k * sizeof(double));
	F->ols = malloc(k * sizeof(double));
	F->jk = malloc(G * k * sizeof(double));
	F->gs = calloc(G + 1, sizeof(*F->gs));
	F->xall = calloc(F->ivs.n * k + 1, sizeof(double));
	F->dall = calloc(F->ivs.n * k + 1, sizeof(double));
	if (!F->cnt || !F->work || !F->beta || !F->ols || !F->jk || !F->gs || !F->colsamp ||
	    !F->xall || !F->dall)
		return fit_oom(F, err);
	for (g = 0; g <= G; g++) {
		struct sums *S = &F->gs[g];

		S->ab = calloc(2 * k * k + 3 * k, sizeof(double));
		if (!S->ab)
			return fit_oom(F, err);
		S->xx = S->ab + k * k;
		S->va = S->xx + k * k;
		S->vb = S->va + k;
		S->vx = S->vb + k;
	}
	return 0;
}

/* Interval j's times per column from its samples sorted[0..nh) (xall), the
 * halves' and quarters' differences (dall, the sums of squares); 0, or -1
 * when it is not fitted. */
static int interval_times(struct fit *F, size_t j, const struct hit *sorted, size_t nh)
{
	struct interval *iv = &F->ivs.v[j];
	double D = iv->t1 - iv->t0, *cnt = F->cnt, *X = F->xall + j * F->k, *Dd = F->dall + j * F->k;
	double n0 = (double)((iv->n + 1) / 2), n1 = (double)(iv->n / 2);
	double q0 = (double)((iv->n + 3) / 4), q2 = (double)((iv->n + 1) / 4);
	size_t h, p;

	for (h = 0; h < nh && F->final[sorted[h].col] != SIZE_MAX; h++)
		;
	if (!(iv->n >= 2 && D > 0) || h < nh)
		return -1;
	for (h = 0; h < nh; h++) {
		size_t col = F->final[sorted[h].col];

		F->colsamp[col]++;
		X[col] += D / iv->n;
		/* even- less odd-numbered samples' times: A - B */
		Dd[col] += h % 2 ? -D / n1 : D / n0;
		/* every 4th sample from the 1st less every 4th from the 3rd */
		if (h % 4 == 0)
			cnt[col] += D / q0;
		else if (h % 4 == 2)
			cnt[col] -= D / q2;
	}
	for (p = 0; p < F->dev.ncols; p++) /* the devices' exact times */
		X[F->kproc + p] = dev_time(&F->dev, p, iv->t0, iv->t1);
	if (iv->n >= 4) {
		for (p = 0; p < F->kproc; p++) {
			F->quarter_ss += cnt[p] * cnt[p] / D;
			F->half_ss += Dd[p] * Dd[p] / D;
		}
	}
	memset(cnt, 0, F->kproc * sizeof(double));
	return 0;
}

/* The weighted sums of each jackknife group from the fitted intervals
 * (nok of them, in time order, G groups of consecutive ones). */
static void group_sums(struct fit *F, size_t nok)
{
	size_t j, p, gi = 0, k = F->k;

	for (j = 0; j < F->ivs.n; j++) {
		const struct interval *iv = &F->ivs.v[j];
		double w = 1 / (iv->t1 - iv->t0), *X = F->xall + j * k, *Dd = F->dall + j * k;
		size_t q;
		struct sums *S;

		if (!iv->na)
			continue;
		S = &F->gs[gi * F->G / nok];
		gi++;
		for (p = 0; p < k; p++) {
			if (X[p] != 0)
				for (q = 0; q < k; q++)
					S->xx[p * k + q] += w * X[p] * X[q];
			if (Dd[p] != 0)
				for (q = 0; q < k; q++)
					S->ab[p * k + q] += w * Dd[p] * Dd[q];
			S->vx[p] += w * X[p] * iv->energy_j;
		}
		F->nfit++;
	}
	for (j = 0; j < F->G; j++) /* totals in gs[G] */
		for (p = 0; p < 2 * k * k + 3 * k; p++)
			F->gs[F->G].ab[p] += F->gs[j].ab[p];
}

/* The intervals' times per column and the groups' sums (the fit's input). */
static int fit_accumulate(struct fit *F, struct eq_error *err)
{
	size_t *start = calloc(F->ivs.n + 1, sizeof(size_t));
	struct hit *sorted = malloc((F->nhits ? F->nhits : 1) * sizeof(*sorted));
	size_t i, j, nok = 0;

	if (!start || !sorted) {
		free(start);
		free(sorted);
		return fit_oom(F, err);
	}
	/* hits are in sample order, intervals in time order: group the hits of
	 * each interval (a stable sort by interval) */
	for (i = 0; i < F->nhits; i++)
		start[F->hits[i].iv + 1]++;
	for (i = 0; i < F->ivs.n; i++)
		start[i + 1] += start[i];
	for (i = 0; i < F->nhits; i++)
		sorted[start[F->hits[i].iv]++] = F->hits[i];
	for (i = F->ivs.n; i > 0; i--)
		start[i] = start[i - 1];
	start[0] = 0;
	/* each interval's times per procedure, from all its samples */
	for (j = 0; j < F->ivs.n; j++) {
		F->ivs.v[j].na = interval_times(F, j, sorted + start[j], start[j + 1] - start[j]) == 0;
		if (F->ivs.v[j].na)
			nok++;
		else
			F->dropped++;
	}
	free(start);
	free(sorted);
	group_sums(F, nok);
	if (F->nfit < F->k + 2)
		return eq_fail(err, "%s: %zu usable intervals for %zu procedures; record longer or "
			       "raise --min-share so that fewer procedures are fitted", eqp_path(F->f),
			       F->nfit, F->k);
	return 0;
}

/* The coefficients (errors-in-variables and the other estimator). */
static void fit_solve(struct fit *F, struct eq_regress *r)
{
	size_t k = F->k, i;
	double *ab = F->gs[F->G].ab;
	double ratio = F->half_ss > 0 ? F->quarter_ss / F->half_ss : 4;

	/* How the times' sampling error grows with the spacing of the samples:
	 * variance x 2^g for twice the spacing, g = 1 for independent samples,
	 * 2 for a regular timer (the error is the edges' rounding).  The
	 * quarters' difference over the halves' is 2^g, and the covariance of
	 * the errors of X is D'WD / (4 (2^g - 1)) (docs/power.md). */
	ratio = ratio < 2 ? 2 : ratio > 4 ? 4 : ratio;
	r->spacing_ratio = F->half_ss > 0 ? F->quarter_ss / F->half_ss : NAN;
	r->eiv_divisor = F->o.plain ? 0 : 4 * (ratio - 1);
	if (solve_fit(ab, k, r->eiv_divisor, F->beta, F->work) < 0) {
		/* reported, every coefficient flagged: the table still says which
		 * procedures and how much of the time they took */
		for (i = 0; i < k; i++)
			F->beta[i] = NAN;
		snprintf(r->warning, sizeof(r->warning),
			 "the procedures' times are collinear (some always run in the same proportions): no "
			 "power can be told apart; fit fewer (--min-share) or record a run where they alternate "
			 "differently");
	}
	/* the other estimator, for comparison */
	if (solve_fit(ab, k, F->o.plain ? 4 * (fmin(fmax(r->spacing_ratio, 2), 4) - 1) : 0, F->ols,
		      F->work) < 0)
		for (i = 0; i < k; i++)
			F->ols[i] = NAN;
}

/* Each coefficient's standard error and interval: jackknife, leaving one
 * group out at a time. */
static int fit_jackknife(struct fit *F, struct eq_regress *r, struct eq_error *err)
{
	size_t k = F->k, G = F->G, g, i;
	double *buf = malloc((2 * k * k + 3 * k) * sizeof(double)), *jk = F->jk;
	unsigned bad = 0;

	if (!buf)
		return fit_oom(F, err);
	for (g = 0; g < G; g++) {
		for (i = 0; i < 2 * k * k + 3 * k; i++)
			buf[i] = F->gs[G].ab[i] - F->gs[g].ab[i];
		if (solve_fit(buf, k, r->eiv_divisor, jk + g * k, F->work) < 0) {
			bad++;
			for (i = 0; i < k; i++)
				jk[g * k + i] = NAN;
		}
	}
	free(buf);
	for (i = 0; i < k; i++) {
		double mean = 0, ss = 0, tq = eq_t95(G - 1), b = F->beta[i];
		struct eq_regress_row *row = &r->rows[i];

		for (g = 0; g < G; g++)
			mean += jk[g * k + i] / G;
		for (g = 0; g < G; g++)
			ss += (jk[g * k + i] - mean) * (jk[g * k + i] - mean);
		row->power_w = b;
		row->se_w = bad ? NAN : sqrt((G - 1.0) / G * ss);
		row->ci95_low = b - tq * row->se_w;
		row->ci95_high = b + tq * row->se_w;
		row->other_w = F->ols[i];
	}
	return 0;
}

/* Collinearity: the condition number of the weighted design with unit
 * columns and each column's variance inflation; rows flagged. */
static int fit_collinearity(struct fit *F, struct eq_regress *r, struct eq_error *err)
{
	size_t k = F->k, i, j;
	double *C = malloc(k * k * sizeof(double)), *ev = malloc(k * sizeof(double));
	double lmin = INFINITY, lmax = 0, *xx = F->gs[F->G].xx, *ab = F->gs[F->G].ab;

	if (!C || !ev) {
		free(C);
		free(ev);
		return fit_oom(F, err);
	}
	/* The weighted design with unit columns, the sampling errors'
	 * covariance taken out as in the fit (X'WX - D'WD / c estimates
	 * the true times' T'WT): noise must not pass for independent
	 * variation.  Not positive definite: some combination of the
	 * procedures has no variation left (condition number infinite). */
	for (i = 0; i < k * k; i++)
		C[i] = xx[i] - (r->eiv_divisor > 0 ? ab[i] / r->eiv_divisor : 0);
	for (i = 0; i < k; i++)
		ev[i] = C[i * k + i] > 0 ? 1 / sqrt(C[i * k + i]) : 0;
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			C[i * k + j] *= ev[i] * ev[j];
	memcpy(F->work, C, k * k * sizeof(double));
	eq_sym_eigen(F->work, k, ev);
	for (i = 0; i < k; i++) {
		lmin = fmin(lmin, ev[i]);
		lmax = fmax(lmax, ev[i]);
	}
	r->condition = lmin > 0 ? sqrt(lmax / lmin) : INFINITY; /* indefinite: no information */
	for (i = 0; i < k; i++) {
		double *e = ev; /* reuse as the unit vector / solution */

		memcpy(F->work, C, k * k * sizeof(double));
		memset(e, 0, k * sizeof(double));
		e[i] = 1;
		r->rows[i].vif = eq_linsolve(F->work, e, k) < 0 || !(e[i] > 0) ? INFINITY : e[i];
		if (!(r->rows[i].vif <= EQ_VIF_WARN))
			r->rows[i].flagged |= EQ_FLAG_COLLINEAR;
		/* an interval reaching zero or below: the fit cannot tell this
		 * procedure's power from nothing (too little independent
		 * variation of its time across intervals) */
		if (!(r->rows[i].ci95_low > 0) || !isfinite(r->rows[i].power_w))
			r->rows[i].flagged |= EQ_FLAG_IMPRECISE;
	}
	free(C);
	free(ev);
	return 0;
}

/* The rows' names, samples and time shares, the totals; sorted. */
static int fit_rows(struct fit *F, struct eq_regress *r, struct eq_error *err)
{
	size_t k = F->k, i, j;

	for (i = 0; i < F->cols.n; i++) {
		struct eq_regress_row *row;

		if (F->final[i] == SIZE_MAX)
			continue;
		row = &r->rows[F->final[i]];
		row->samples = F->colsamp[F->final[i]];
		if ((long)F->final[i] == F->other) {
			row->name = "[other]";
			row->module = "";
		} else {
			row->name = F->cols.v[i].name;
			row->module = F->cols.v[i].base ? F->cols.v[i].base : "";
		}
	}
	for (j = 0; j < F->ivs.n; j++) {
		const struct interval *iv = &F->ivs.v[j];

		if (iv->na) {
			r->quanta += iv->quanta;
			r->seconds += iv->t1 - iv->t0;
			r->energy_j += iv->energy_j;
			r->samples += iv->n;
		}
	}
	for (i = 0; i < k; i++)
		r->rows[i].time_share = r->samples ? (double)r->rows[i].samples / (double)r->samples : 0;
	if (F->dev.ncols) { /* the device rows' names outlive dev */
		r->priv_ = malloc(sizeof(F->dev.names));
		if (!r->priv_)
			return fit_oom(F, err);
		memcpy(r->priv_, F->dev.names, sizeof(F->dev.names));
	}
	for (i = 0; i < F->dev.ncols; i++) {
		struct eq_regress_row *row = &r->rows[F->kproc + i];
		double tsum = 0;

		for (j = 0; j < F->ivs.n; j++)
			if (F->ivs.v[j].na)
				tsum += F->xall[j * k + F->kproc + i];
		row->name = ((const char (*)[80])r->priv_)[i];
		row->module = "[device]";
		row->time_share = r->seconds > 0 ? tsum / r->seconds : 0;
	}
	qsort(r->rows, k, sizeof(*r->rows), cmp_rows);
	if (r->condition > EQ_COND_WARN && !r->warning[0])
		snprintf(r->warning, sizeof(r->warning),
			 "condition number %.0f: procedures that run together cannot be told apart; "
			 "the flagged coefficients are meaningless", r->condition);
	return 0;
}

static void fit_free(struct fit *F)
{
	size_t g;

	if (F->gs)
		for (g = 0; g <= F->G; g++)
			free(F->gs[g].ab);
	free(F->gs);
	free(F->final);
	free(F->cnt);
	free(F->xall);
	free(F->dall);
	free(F->colsamp);
	free(F->work);
	free(F->beta);
	free(F->ols);
	free(F->jk);
	free(F->hits);
	free(F->ivs.v);
	free(F->cols.v);
	free(F->cols.slots);
	free(F->dev.pc);
	eq_knots_free(&F->cm.knots);
}

struct eq_regress *eq_regress_fit(const struct eqp_file *f, struct eq_symbolizer *s,
				  const struct eq_regress_opts *opts, struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	struct fit F = { .f = f, .other = -1 };
	struct eq_regress *r = NULL;

	if (opts)
		F.o = *opts;
	else
		eq_regress_opts_default(&F.o);
	if (!F.o.groups)
		F.o.groups = 20;
	F.G = F.o.groups;
	F.clock = m->clock_hz > 0 ? m->clock_hz : 1e9;
	if (fit_intervals(&F, err) < 0 || fit_hits(&F, s, err) < 0 || fit_columns(&F, err) < 0 ||
	    fit_alloc(&F, err) < 0 || fit_accumulate(&F, err) < 0)
		goto out;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->rows = calloc(F.k, sizeof(*r->rows)))) {
		fit_oom(&F, err);
		goto fail;
	}
	r->nrows = F.k;
	r->nintervals = F.nfit;
	r->groups = (unsigned)F.G;
	r->min_prime = F.o.min_prime;
	r->max_prime = F.o.max_prime;
	r->seed = F.o.seed;
	r->dropped_intervals = F.dropped;
	snprintf(r->energy_from, sizeof(r->energy_from), "%s", F.from);
	snprintf(r->unit, sizeof(r->unit), "%s", F.unit);
	r->update_s = F.update_s;
	fit_solve(&F, r);
	if (fit_jackknife(&F, r, err) < 0 || fit_collinearity(&F, r, err) < 0 ||
	    fit_rows(&F, r, err) < 0)
		goto fail;
	goto out;
fail:
	eq_regress_free(r);
	r = NULL;
out:
	fit_free(&F);
	return r;
}

void eq_regress_free(struct eq_regress *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->priv_);
	free(r);
}

/* ---- output ---------------------------------------------------------------- */

/* , "key": value, or null when not a number (JSON has no NaN or infinity) */
static void json_num(FILE *out, const char *key, double v)
{
	if (isfinite(v))
		fprintf(out, ", \"%s\": %.9g", key, v);
	else
		fprintf(out, ", \"%s\": null", key);
}

void eq_regress_print(FILE *out, const struct eq_regress *r, const char *source,
		      enum eq_format fmt)
{
	size_t i;

	if (fmt == EQ_FMT_JSON) {
		fputs("{\"source\": ", out);
		eq_json_string(out, source);
		fputs(", \"energy_from\": ", out);
		eq_json_string(out, r->energy_from);
		fputs(", \"interval_unit\": ", out);
		eq_json_string(out, r->unit);
		fprintf(out, ", \"method\": \"%s\", \"eiv_divisor\": %.6g, "
			"\"intervals\": %zu, \"quanta\": %llu, \"samples\": %llu, \"seconds\": %.9g, "
			"\"energy_j\": %.9g, \"primes\": [%u, %u], \"seed\": %llu, \"jackknife_groups\": %u, "
			"\"dropped_intervals\": %llu, \"condition_number\": %.6g, \"vif_warn\": %g, "
			"\"condition_warn\": %g, \"warning\": ",
			r->eiv_divisor > 0 ? "weighted least squares corrected for the times' sampling errors" :
			"weighted least squares", r->eiv_divisor, r->nintervals, (unsigned long long)r->quanta, (unsigned long long)r->samples,
			r->seconds, r->energy_j, r->min_prime, r->max_prime, (unsigned long long)r->seed,
			r->groups, (unsigned long long)r->dropped_intervals,
			isfinite(r->condition) ? r->condition : -1, EQ_VIF_WARN, EQ_COND_WARN);
		if (r->warning[0])
			eq_json_string(out, r->warning);
		else
			fputs("null", out);
		fputs(",\n \"rows\": [", out);
		for (i = 0; i < r->nrows; i++) {
			const struct eq_regress_row *w = &r->rows[i];

			fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
			eq_json_string(out, w->name);
			fputs(", \"module\": ", out);
			eq_json_string(out, w->module);
			fprintf(out, ", \"samples\": %llu, \"time_share\": %.9g", (unsigned long long)w->samples,
				w->time_share);
			json_num(out, "power_w", w->power_w);
			json_num(out, "se_w", w->se_w);
			json_num(out, "ci95_low", w->ci95_low);
			json_num(out, "ci95_high", w->ci95_high);
			json_num(out, r->eiv_divisor > 0 ? "plain_w" : "corrected_w", w->other_w);
			json_num(out, "vif", w->vif);
			fprintf(out, ", \"flagged\": %s, \"collinear\": %s, \"imprecise\": %s}",
				w->flagged ? "true" : "false", (w->flagged & EQ_FLAG_COLLINEAR) ? "true" : "false",
				(w->flagged & EQ_FLAG_IMPRECISE) ? "true" : "false");
		}
		fputs("\n ]}\n", out);
		return;
	}
	if (fmt == EQ_FMT_CSV) {
		fprintf(out, "name,module,samples,time_share,power_w,se_w,ci95_low,ci95_high,%s,vif,flagged\n",
			r->eiv_divisor > 0 ? "plain_w" : "corrected_w");
		for (i = 0; i < r->nrows; i++) {
			const struct eq_regress_row *w = &r->rows[i];

			eq_csv_field(out, w->name);
			fputc(',', out);
			eq_csv_field(out, w->module);
			fprintf(out, ",%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%d\n",
				(unsigned long long)w->samples, w->time_share, w->power_w, w->se_w,
				w->ci95_low, w->ci95_high, w->other_w, w->vif, w->flagged);
		}
		return;
	}
	fprintf(out, "# power per procedure by regression on %s\n", source);
	fprintf(out, "# energy from %s\n", r->energy_from);
	fprintf(out, "# %zu intervals of %u-%u %s (random primes, seed %llu): %.3g s, %.4g J, "
		"%llu time-driven samples\n", r->nintervals, r->min_prime, r->max_prime, r->unit,
		(unsigned long long)r->seed, r->seconds, r->energy_j, (unsigned long long)r->samples);
	if (r->eiv_divisor > 0)
		fprintf(out, "# device power while each procedure runs; fit: least squares, weights 1/interval, corrected\n"
			"# for the times' sampling errors (their covariance: halves' difference / %.3g);\n",
			r->eiv_divisor);
	else
		fprintf(out, "# device power while each procedure runs; fit: least squares, weights 1/interval;\n");
	fprintf(out, "# 95%% intervals from a %u-group jackknife; condition number %.3g\n", r->groups, r->condition);
	fprintf(out, "%10s  %-23s %9s %7s %8s %6s  %-20s %s\n", "power", "95% CI", "SE", "VIF",
		"samples", "time", "module", "procedure");
	for (i = 0; i < r->nrows; i++) {
		const struct eq_regress_row *w = &r->rows[i];
		char ci[64];

		snprintf(ci, sizeof(ci), "[%.4g, %.4g] W", w->ci95_low, w->ci95_high);
		fprintf(out, "%8.4g W  %-23s %7.3g W %7.3g %8llu %5.1f%%  %-20s %s%s\n", w->power_w, ci,
			w->se_w, w->vif, (unsigned long long)w->samples, 100 * w->time_share,
			w->module, w->name, (w->flagged & EQ_FLAG_COLLINEAR) ? "  ! collinear: meaningless" :
			(w->flagged & EQ_FLAG_IMPRECISE) ? "  ! not told apart from zero" : "");
	}
	if (r->dropped_intervals)
		fprintf(out, "# %llu intervals not fitted (a gap in the energy readings, or too few samples in them)\n",
			(unsigned long long)r->dropped_intervals);
	if (r->warning[0])
		fprintf(out, "# warning: %s\n", r->warning);
}
