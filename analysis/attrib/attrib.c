/*
 * attrib.c - asynchronous device energy to its causes; see attrib.h.
 */
#include "attrib/attrib.h"
#include "symbols/intern.h"
#include "util/units.h"
#include "util/grow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int eq_devmodel_parse(const char *text, struct eq_devmodel *m, struct eq_error *err)
{
	char buf[512], *w[16], *save = NULL, *tok;
	int n = 0, i;

	if (strlen(text) >= sizeof(buf))
		return eq_fail(err, "device model too long: %.40s...", text);
	strcpy(buf, text);
	for (tok = strtok_r(buf, " \t", &save); tok && n < 16; tok = strtok_r(NULL, " \t", &save))
		w[n++] = tok;
	m->active_w = m->tail_w = m->idle_w = m->tail_s = 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(w[i], "active") && i + 1 < n) {
			if (eq_parse_quantity(w[++i], "W", "active power", &m->active_w, err) < 0)
				return -1;
		} else if (!strcmp(w[i], "tail") && i + 2 < n) {
			if (eq_parse_quantity(w[i + 1], "s", "tail time", &m->tail_s, err) < 0 ||
			    eq_parse_quantity(w[i + 2], "W", "tail power", &m->tail_w, err) < 0)
				return -1;
			i += 2;
		} else if (!strcmp(w[i], "idle") && i + 1 < n) {
			if (eq_parse_quantity(w[++i], "W", "idle power", &m->idle_w, err) < 0)
				return -1;
		} else {
			return eq_fail(err, "device model '%s': '%s' is not 'active POWER', 'tail TIME POWER' "
				       "or 'idle POWER'", text, w[i]);
		}
	}
	if (!(m->active_w >= m->idle_w && m->tail_w >= m->idle_w && m->tail_s >= 0) ||
	    !isfinite(m->active_w + m->tail_w + m->idle_w + m->tail_s))
		return eq_fail(err, "device model '%s': active and tail power must be at least the idle "
			       "power, the tail time >= 0", text);
	return 0;
}

int eq_devmodel_read(const char *path, struct eq_devmodel *models, size_t max, size_t *n,
		     struct eq_error *err)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned ln = 0;

	if (!f)
		return eq_fail(err, "%s: cannot open the device model: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *name, *hash = strchr(line, '#');
		struct eq_error e;

		ln++;
		if (hash)
			*hash = '\0';
		p[strcspn(p, "\r\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue;
		name = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
		if (*n == max) {
			fclose(f);
			return eq_fail(err, "%s:%u: more than %zu devices", path, ln, max);
		}
		if (strlen(name) >= sizeof(models[*n].name) || eq_devmodel_parse(p, &models[*n], &e) < 0) {
			fclose(f);
			return eq_fail(err, "%s:%u: %s", path, ln,
				       strlen(name) >= sizeof(models[*n].name) ? "device name too long" : e.msg);
		}
		strcpy(models[*n].name, name);
		++*n;
	}
	fclose(f);
	return 0;
}

/* ---- pieces ---------------------------------------------------------------- */

struct ord {
	double t0, t1;
	size_t i;
};

static int by_t0(const void *x, const void *y)
{
	const struct ord *a = x, *b = y;

	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int push_piece(struct eq_dev_piece **v, size_t *n, size_t *cap, struct eq_dev_piece p)
{
	if (EQ_GROW(*v, *cap, *n + 1, 256) < 0)
		return -1;
	(*v)[(*n)++] = p;
	return 0;
}

int eq_dev_pieces(const struct eqp_devreq *req, size_t nreq, double clock_hz,
		  const struct eq_devmodel *model, size_t ndev, double t_end,
		  struct eq_dev_piece **pieces, size_t *npieces, struct eq_error *err)
{
	struct ord *o = malloc((nreq ? nreq : 1) * sizeof(*o));
	struct eq_dev_piece *v = NULL;
	size_t n = 0, cap = 0, i, dev;

	*pieces = NULL;
	*npieces = 0;
	if (!o)
		return eq_fail(err, "out of memory");
	for (i = 0; i < nreq; i++)
		o[i] = (struct ord){ req[i].issue / clock_hz, req[i].complete / clock_hz, i };
	qsort(o, nreq, sizeof(*o), by_t0);
	for (dev = 0; dev < ndev; dev++) {
		const struct eq_devmodel *m = &model[dev];
		double busy = -INFINITY;
		size_t last = SIZE_MAX;

		for (i = 0; i <= nreq; i++) {
			double t0;

			if (i < nreq && req[o[i].i].device != dev)
				continue;
			t0 = i < nreq ? o[i].t0 : t_end;
			if (last != SIZE_MAX && t0 > busy) {
				double te = fmin(fmin(busy + m->tail_s, t0), t_end);

				if (te > busy && m->tail_w > m->idle_w &&
				    push_piece(&v, &n, &cap, (struct eq_dev_piece){ busy, te, m->tail_w - m->idle_w,
										   last, 1 }) < 0)
					goto oom;
			}
			if (i == nreq)
				break;
			if (fmin(o[i].t1, t_end) > fmax(o[i].t0, busy) && m->active_w > m->idle_w &&
			    push_piece(&v, &n, &cap, (struct eq_dev_piece){ fmax(o[i].t0, busy), fmin(o[i].t1, t_end),
									   m->active_w - m->idle_w, o[i].i, 0 }) < 0)
				goto oom;
			if (o[i].t1 > busy) {
				busy = o[i].t1;
				last = o[i].i;
			}
		}
	}
	free(o);
	*pieces = v;
	*npieces = n;
	return 0;
oom:
	free(o);
	free(v);
	return eq_fail(err, "out of memory");
}

/* ---- attribution --------------------------------------------------------- */

struct key { const char *name, *module; };

struct priv {
	struct eq_intern *strings;
};

static long row_index(struct eq_attrib *a, size_t *cap, const char *name, const char *module)
{
	size_t i;

	for (i = 0; i < a->nrows; i++)
		if (a->rows[i].name == name && a->rows[i].module == module)
			return (long)i;
	if (EQ_GROW(a->rows, *cap, a->nrows + 1, 64) < 0)
		return -1;
	a->rows[a->nrows] = (struct eq_attrib_row){ .name = name, .module = module };
	return (long)a->nrows++;
}

/* The row of a location at the granularity (names interned). */
static void names_of(struct eq_intern *st, enum eq_by by, const struct eq_loc *loc, uint32_t pid,
		     const char **name, const char **module)
{
	if (loc->kind == EQ_LOC_IDLE) {
		*name = *module = "[idle]";
		return;
	}
	switch (by) {
	case EQ_BY_PID:
		*name = eq_internf(st, "%u:%s", pid, loc->exe);
		*module = loc->exe;
		return;
	case EQ_BY_PROC:
		*name = loc->proc ? loc->proc : "[unknown]";
		*module = loc->module_base ? loc->module_base : "";
		return;
	default:
		*name = loc->exe;
		*module = loc->exe;
		return;
	}
}

static int move_add(struct eq_attrib *a, size_t *cap, const char *from, const char *to, double e,
		    uint64_t samples)
{
	size_t i;

	for (i = 0; i < a->nmoves; i++)
		if (a->moves[i].from == from && a->moves[i].to == to) {
			a->moves[i].energy_j += e;
			a->moves[i].samples += samples;
			return 0;
		}
	if (EQ_GROW(a->moves, *cap, a->nmoves + 1, 32) < 0)
		return -1;
	a->moves[a->nmoves++] = (struct eq_attrib_move){ from, to, e, samples };
	return 0;
}

static int piece_by_t0(const void *x, const void *y)
{
	const struct eq_dev_piece *a = x, *b = y;

	return (a->t0 > b->t0) - (a->t0 < b->t0);
}

/* Every piece from `first` that started by t has ended by t?  Only the
 * first one is checked: pieces of one device do not overlap, and a long
 * one of another device keeps `first` where it is (correct, a little slower). */
static int first_done(const struct eq_dev_piece *p, size_t first, size_t n, double t)
{
	(void)n;
	return p[first].t1 <= t;
}

static int by_after(const void *x, const void *y)
{
	const struct eq_attrib_row *a = x, *b = y;

	if (a->after_j != b->after_j)
		return a->after_j > b->after_j ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_energy(const void *x, const void *y)
{
	const struct eq_attrib_move *a = x, *b = y;

	if (a->energy_j != b->energy_j)
		return a->energy_j > b->energy_j ? -1 : 1;
	return strcmp(a->from, b->from);
}

/* What the steps of one attribution share (eq_attrib_build). */
struct walk {
	const struct eqp_file *f;
	struct eq_symbolizer *s;
	struct eq_attrib *a;
	struct priv *pv;
	enum eq_by by;
	double clock, t_prev, t_last;
	struct eq_devmodel model[64];
	size_t ndev;
	struct eqp_devreq *req;
	size_t nreq;
	struct eq_dev_piece *pc;     /* the devices' pieces, by start time */
	size_t np, first;            /* pieces before first ended before t_prev */
	double *owed;                /* per request: energy its cause is owed */
	size_t *pend, npend;         /* requests owed something */
	unsigned char *inpend;
	long *cause_row;             /* per request */
	long last_row;
	size_t caprows, capmoves;
};

static int walk_oom(const struct walk *W, struct eq_error *err)
{
	return eq_fail(err, "device attribution of %s: out of memory", eqp_path(W->f));
}

/* The devices: names from "device:N=NAME", models from the files given,
 * else the recording's. */
static int attrib_devices(struct walk *W, const struct eq_devmodel *models, size_t nmodels,
			  struct eq_error *err)
{
	const struct eqp_file *f = W->f;
	struct eq_attrib *a = W->a;
	size_t i;

	for (i = 0; i < W->nreq; i++)
		if ((size_t)eqp_devreq_at(f, i)->device + 1 > W->ndev)
			W->ndev = (size_t)eqp_devreq_at(f, i)->device + 1;
	if (W->ndev > 64)
		return eq_fail(err, "%s: device number %zu: at most 64 devices", eqp_path(f), W->ndev - 1);
	a->devices = calloc(W->ndev, sizeof(*a->devices));
	if (!a->devices)
		return walk_oom(W, err);
	a->ndevices = W->ndev;
	for (i = 0; i < W->ndev; i++) {
		struct eq_devmodel *dm = &W->model[i];
		char key[64];
		const char *name, *text = NULL;
		size_t k;

		snprintf(key, sizeof(key), "device:%zu", i);
		name = eqp_meta_get(f, key);
		a->devices[i].name = name = name ? name : eq_internf(W->pv->strings, "device %zu", i);
		for (k = 0; k < nmodels && strcmp(models[k].name, name); k++)
			;
		if (k < nmodels) {
			*dm = models[k];
		} else {
			snprintf(key, sizeof(key), "device_model:%s", name);
			text = eqp_meta_get(f, key);
			if (!text)
				return eq_fail(err, "%s: no power model for device '%s': give one with "
					       "--device-model FILE (a line '%s active POWER tail TIME POWER "
					       "idle POWER')", eqp_path(f), name, name);
			if (eq_devmodel_parse(text, dm, err) < 0)
				return -1;
			snprintf(dm->name, sizeof(dm->name), "%s", name);
		}
		a->devices[i].model = *dm;
	}
	return 0;
}

/* The requests: their pieces of device power, each one's cause row, the
 * devices' energy. */
static int attrib_requests(struct walk *W, struct eq_error *err)
{
	const struct eqp_file *f = W->f;
	struct eq_attrib *a = W->a;
	size_t i, c, nreq = W->nreq;

	W->req = malloc(nreq * sizeof(*W->req));
	W->owed = calloc(nreq, sizeof(*W->owed));
	W->pend = malloc(nreq * sizeof(*W->pend));
	W->inpend = calloc(nreq, 1);
	W->cause_row = malloc(nreq * sizeof(*W->cause_row));
	if (!W->req || !W->owed || !W->cause_row || !W->pend || !W->inpend)
		return walk_oom(W, err);
	for (i = 0; i < nreq; i++)
		W->req[i] = *eqp_devreq_at(f, i);
	/* the span of the samples: the pieces need an end */
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (i = 0; smp && i < n; i++)
			W->t_last = fmax(W->t_last, smp[i].time / W->clock);
	}
	if (eq_dev_pieces(W->req, nreq, W->clock, W->model, W->ndev, W->t_last, &W->pc, &W->np,
			  err) < 0)
		return -1;
	for (i = 0; i < nreq; i++) {
		struct eqp_devreq *r = &W->req[i];
		struct eq_sample q = { .time = r->issue, .pc = r->pc, .pid = r->pid, .tid = r->tid };
		const char *name, *module;

		a->devices[r->device].requests++;
		names_of(W->pv->strings, W->by, eq_sym_lookup(W->s, &q), r->pid, &name, &module);
		if ((W->cause_row[i] = row_index(a, &W->caprows, name, module)) < 0)
			return walk_oom(W, err);
	}
	for (i = 0; i < W->np; i++) {
		const struct eq_dev_piece *p = &W->pc[i];
		struct eq_attrib_device *d = &a->devices[W->req[p->request].device];
		double e = p->power * (fmin(p->t1, W->t_last) - p->t0);

		if (e <= 0)
			continue;
		*(p->tail ? &d->tail_j : &d->active_j) += e;
		d->energy_j += e;
	}
	/* pieces by start time; those that ended before the previous sample
	 * are skipped from then on */
	qsort(W->pc, W->np, sizeof(*W->pc), piece_by_t0);
	return 0;
}

/* The device energy of (t_prev, t] to what each request's cause is owed. */
static void accrue(struct walk *W, double t)
{
	const struct eq_dev_piece *ps = W->pc;
	size_t j;

	while (W->first < W->np && ps[W->first].t1 <= W->t_prev && ps[W->first].t0 <= W->t_prev &&
	       first_done(ps, W->first, W->np, W->t_prev))
		W->first++;
	for (j = W->first; j < W->np && ps[j].t0 < t; j++) {
		double x0 = fmax(W->t_prev, ps[j].t0), x1 = fmin(t, ps[j].t1);
		size_t rq = ps[j].request;

		if (x1 > x0) {
			W->owed[rq] += ps[j].power * (x1 - x0);
			if (!W->inpend[rq]) {
				W->inpend[rq] = 1;
				W->pend[W->npend++] = rq;
			}
		}
	}
}

/* Moves e from row to the cause row of request rq. */
static int move(struct walk *W, long row, long to, double e)
{
	struct eq_attrib *a = W->a;

	a->rows[row].moved_out_j += e;
	a->rows[to].moved_in_j += e;
	a->moved_j += e;
	return move_add(a, &W->capmoves, a->rows[row].name, a->rows[to].name, e, 0);
}

/* The sample of row holds the device energy of its interval: up to a whole
 * quantum of what the causes are owed moves from its row to theirs, in
 * proportion; more than a quantum (a model above the measurement) is
 * carried forward. */
static int settle(struct walk *W, long row)
{
	double due = 0, take, scale;
	size_t q, j;

	for (q = 0; q < W->npend; q++)
		due += W->owed[W->pend[q]];
	take = fmin(due, W->a->quantum_j);
	scale = due > 0 ? take / due : 0;
	for (q = 0; q < W->npend; q++) {
		size_t rq = W->pend[q];
		double e = W->owed[rq] * scale;

		W->owed[rq] -= e;
		if (W->cause_row[rq] != row && e > 0 && move(W, row, W->cause_row[rq], e) < 0)
			return -1;
	}
	/* keep only the requests still owed something */
	for (q = 0, j = 0; q < W->npend; q++)
		if (W->owed[W->pend[q]] > 1e-15)
			W->pend[j++] = W->pend[q];
		else
			W->inpend[W->pend[q]] = 0;
	W->npend = j;
	return 0;
}

/* Walks the samples in time order; per sample, the device energy of its
 * interval goes to what each cause is owed, and a cause owed a whole
 * quantum takes the sample. */
static int attrib_walk(struct walk *W, struct eq_error *err)
{
	struct eq_attrib *a = W->a;
	size_t c, i;

	for (c = 0; c < eqp_nsample_chunks(W->f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(W->f, c, &n);

		for (i = 0; smp && i < n; i++) {
			double t = smp[i].time / W->clock;
			const char *name, *module;
			long row;

			names_of(W->pv->strings, W->by, eq_sym_lookup(W->s, &smp[i]), smp[i].pid, &name,
				 &module);
			if ((row = row_index(a, &W->caprows, name, module)) < 0)
				return walk_oom(W, err);
			a->rows[row].samples++;
			a->rows[row].before_j += a->quantum_j;
			a->samples++;
			W->last_row = row;
			if (!isnan(W->t_prev) && t > W->t_prev)
				accrue(W, t);
			W->t_prev = t;
			if (settle(W, row) < 0)
				return walk_oom(W, err);
		}
	}
	return 0;
}

/* What is still owed (less than a quantum per request): moved as a
 * fraction of the last sample's row, so that no energy is lost; then the
 * totals, rows and moves in order. */
static int attrib_finish(struct walk *W, struct eq_error *err)
{
	struct eq_attrib *a = W->a;
	long last = W->last_row;
	size_t i;

	for (i = 0; last >= 0 && i < W->nreq; i++)
		if (W->owed[i] > 0 && W->cause_row[i] != last) {
			const struct eq_attrib_row *r = &a->rows[last];
			double e = fmin(W->owed[i], r->before_j + r->moved_in_j - r->moved_out_j);

			if (e > 0 && move(W, last, W->cause_row[i], e) < 0)
				return walk_oom(W, err);
		}
	a->total_j = (double)a->samples * a->quantum_j;
	for (i = 0; i < a->nrows; i++) {
		struct eq_attrib_row *r = &a->rows[i];

		r->after_j = r->before_j - r->moved_out_j + r->moved_in_j;
		r->share_after = a->total_j > 0 ? r->after_j / a->total_j : 0;
	}
	qsort(a->rows, a->nrows, sizeof(*a->rows), by_after);
	qsort(a->moves, a->nmoves, sizeof(*a->moves), by_energy);
	return 0;
}

struct eq_attrib *eq_attrib_build(const struct eqp_file *f, struct eq_symbolizer *s, enum eq_by by,
				  const struct eq_devmodel *models, size_t nmodels,
				  struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	struct walk *W = calloc(1, sizeof(*W));
	struct eq_attrib *a = calloc(1, sizeof(*a));
	struct priv *pv = calloc(1, sizeof(*pv));
	int rc = -1;

	if (a)
		a->priv_ = pv;
	if (!W || !a || !pv || !(pv->strings = eq_intern_new())) {
		eq_fail(err, "device attribution of %s: out of memory", eqp_path(f));
		goto out;
	}
	*W = (struct walk){ .f = f, .s = s, .a = a, .pv = pv, .by = by, .nreq = eqp_ndevreqs(f),
			    .clock = m->clock_hz > 0 ? m->clock_hz : 1e9, .t_prev = NAN,
			    .last_row = -1 };
	a->by = by;
	a->quantum_j = m->quantum_j;
	if (m->mode != EQP_MODE_ENERGY || !(m->quantum_j > 0))
		eq_fail(err, "%s is %s: moving device energy to its causes needs energy-driven samples "
			"(each worth a known quantum); record with -e and the board (eqprof sim writes "
			"energy.eqp so)", eqp_path(f), m->mode == EQP_MODE_ENERGY ?
			"energy-driven without a known quantum" : "time-driven");
	else if (!W->nreq)
		eq_fail(err, "%s has no device requests (DREQ chunks, docs/format.md): nothing says which "
			"code asked the devices for their energy; record them (eqprof record -a logs the "
			"kernel's block and net tracepoints, --events block,net, as root; eqprof sim "
			"does for its devices)", eqp_path(f));
	else if (attrib_devices(W, models, nmodels, err) == 0 && attrib_requests(W, err) == 0 &&
		 attrib_walk(W, err) == 0 && attrib_finish(W, err) == 0)
		rc = 0;
out:
	if (W) {
		free(W->pc);
		free(W->req);
		free(W->owed);
		free(W->pend);
		free(W->inpend);
		free(W->cause_row);
		free(W);
	}
	if (rc == 0)
		return a;
	eq_attrib_free(a);
	if (!a && pv) {
		eq_intern_free(pv->strings);
		free(pv);
	}
	return NULL;
}

void eq_attrib_free(struct eq_attrib *a)
{
	struct priv *pv;

	if (!a)
		return;
	pv = a->priv_;
	if (pv) {
		eq_intern_free(pv->strings);
		free(pv);
	}
	free(a->rows);
	free(a->moves);
	free(a->devices);
	free(a);
}

void eq_attrib_print(FILE *out, const struct eq_attrib *a, const char *source, enum eq_format fmt)
{
	size_t i;
	char q[32];

	if (fmt == EQ_FMT_JSON) {
		fputs("{\"source\": ", out);
		eq_json_string(out, source);
		fprintf(out, ", \"by\": \"%s\", \"attribute\": \"async\", \"quantum_j\": %.9g, \"samples\": %llu, "
			"\"energy_j\": %.9g, \"moved_j\": %.9g,\n \"devices\": [", eq_by_name(a->by), a->quantum_j,
			(unsigned long long)a->samples, a->total_j, a->moved_j);
		for (i = 0; i < a->ndevices; i++) {
			const struct eq_attrib_device *d = &a->devices[i];

			fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
			eq_json_string(out, d->name);
			fprintf(out, ", \"active_w\": %.9g, \"tail_s\": %.9g, \"tail_w\": %.9g, \"idle_w\": %.9g, "
				"\"requests\": %zu, \"energy_j\": %.9g, \"active_j\": %.9g, \"tail_j\": %.9g}",
				d->model.active_w, d->model.tail_s, d->model.tail_w, d->model.idle_w, d->requests,
				d->energy_j, d->active_j, d->tail_j);
		}
		fputs("\n ],\n \"rows\": [", out);
		for (i = 0; i < a->nrows; i++) {
			const struct eq_attrib_row *r = &a->rows[i];

			fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
			eq_json_string(out, r->name);
			fputs(", \"module\": ", out);
			eq_json_string(out, r->module);
			fprintf(out, ", \"samples\": %llu, \"before_j\": %.9g, \"moved_out_j\": %.9g, "
				"\"moved_in_j\": %.9g, \"after_j\": %.9g, \"share_after\": %.9g}",
				(unsigned long long)r->samples, r->before_j, r->moved_out_j, r->moved_in_j,
				r->after_j, r->share_after);
		}
		fputs("\n ],\n \"moves\": [", out);
		for (i = 0; i < a->nmoves; i++) {
			fprintf(out, "%s\n  {\"from\": ", i ? "," : "");
			eq_json_string(out, a->moves[i].from);
			fputs(", \"to\": ", out);
			eq_json_string(out, a->moves[i].to);
			fprintf(out, ", \"energy_j\": %.9g, \"samples\": %llu}", a->moves[i].energy_j,
				(unsigned long long)a->moves[i].samples);
		}
		fputs("\n ]}\n", out);
		return;
	}
	if (fmt == EQ_FMT_CSV) {
		fputs("name,module,samples,before_j,moved_out_j,moved_in_j,after_j,share_after\n", out);
		for (i = 0; i < a->nrows; i++) {
			const struct eq_attrib_row *r = &a->rows[i];

			eq_csv_field(out, r->name);
			fputc(',', out);
			eq_csv_field(out, r->module);
			fprintf(out, ",%llu,%.9g,%.9g,%.9g,%.9g,%.9g\n", (unsigned long long)r->samples,
				r->before_j, r->moved_out_j, r->moved_in_j, r->after_j, r->share_after);
		}
		return;
	}
	fprintf(out, "# energy profile by %s of %s, device energy moved to the code that asked for it\n",
		eq_by_name(a->by), source);
	fprintf(out, "# %llu samples x %s = %.4g J; %.4g J moved (%.1f%%)\n", (unsigned long long)a->samples,
		eq_format_quantity(q, sizeof(q), a->quantum_j, "J"), a->total_j, a->moved_j,
		a->total_j > 0 ? 100 * a->moved_j / a->total_j : 0);
	for (i = 0; i < a->ndevices; i++) {
		const struct eq_attrib_device *d = &a->devices[i];

		fprintf(out, "# device %s: %zu requests; model active %.4g W, tail %.3g s at %.4g W, idle %.4g W: "
			"%.4g J above idle (%.4g J active, %.4g J tail)\n", d->name, d->requests, d->model.active_w,
			d->model.tail_s, d->model.tail_w, d->model.idle_w, d->energy_j, d->active_j, d->tail_j);
	}
	fprintf(out, eq_by_module_column(a->by) ? "%8s %10s %11s %11s %10s  %-20s %s\n" :
		"%8s %10s %11s %11s %10s  %.0s%s\n", "share", "as sampled", "moved out", "moved in",
		"after", "module", eq_by_name(a->by));
	for (i = 0; i < a->nrows; i++) {
		const struct eq_attrib_row *r = &a->rows[i];

		fprintf(out, eq_by_module_column(a->by) ? "%7.2f%% %8.4g J %9.4g J %9.4g J %8.4g J  %-20s %s\n" :
			"%7.2f%% %8.4g J %9.4g J %9.4g J %8.4g J  %.0s%s\n", 100 * r->share_after,
			r->before_j, r->moved_out_j, r->moved_in_j, r->after_j, r->module, r->name);
	}
	if (a->nmoves) {
		fputs("# moved:\n", out);
		for (i = 0; i < a->nmoves; i++)
			fprintf(out, "#   %.4g J from %s to %s\n", a->moves[i].energy_j, a->moves[i].from,
				a->moves[i].to);
	}
}
