/*
 * split.c - profiles split by power state, CPU and mode; see split.h.
 *
 * Each sample is located as usual (eq_sym_lookup), then given a label from
 * its state (power-state timelines of pstate.h, its cpu and flags).  The
 * pair (location, label) becomes a location of its own whose name carries
 * the label, and the ordinary aggregation (eq_agg, time-ordered so both
 * intervals are estimated) groups those.
 */
#include "states/split.h"
#include "symbols/intern.h"
#include "states/pstate.h"
#include "util/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the profile -------------------------------------------------------- */

struct pair {
	const struct eq_loc *loc;
	const char *label;
	struct eq_loc *split;  /* the located sample with the label in its name */
};

struct eq_split_store {
	struct eq_intern *strings;
	struct pair *slots;
	size_t mask, n;
	struct eq_loc **locs;  /* every split location, to free */
	size_t nlocs, caplocs;
};

void eq_split_store_free(struct eq_split_store *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nlocs; i++)
		free(st->locs[i]);
	free(st->locs);
	free(st->slots);
	eq_intern_free(st->strings);
	free(st);
}

static size_t pair_hash(const struct eq_loc *loc, const char *label)
{
	uint64_t h = (uint64_t)(uintptr_t)loc * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)label * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ h >> 31);
}

static int store_grow(struct eq_split_store *st)
{
	size_t mask = st->mask ? 2 * st->mask + 1 : 1023, i, j;
	struct pair *slots = calloc(mask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; st->slots && i <= st->mask; i++)
		if (st->slots[i].loc) {
			for (j = pair_hash(st->slots[i].loc, st->slots[i].label) & mask; slots[j].loc;
			     j = (j + 1) & mask)
				;
			slots[j] = st->slots[i];
		}
	free(st->slots);
	st->slots = slots;
	st->mask = mask;
	return 0;
}

/* The location of a sample at loc with this label, made on first sight. */
static const struct eq_loc *split_loc(struct eq_split_store *st, enum eq_by primary,
				      const struct eq_loc *loc, const char *label)
{
	struct eq_loc *x;
	size_t j;
	const char *named;

	if (2 * (st->n + 1) > st->mask && store_grow(st) < 0)
		return NULL;
	for (j = pair_hash(loc, label) & st->mask; st->slots[j].loc; j = (j + 1) & st->mask)
		if (st->slots[j].loc == loc && st->slots[j].label == label)
			return st->slots[j].split;
	if (EQ_GROW(st->locs, st->caplocs, st->nlocs + 1, 256) < 0)
		return NULL;
	x = malloc(sizeof(*x));
	if (!x)
		return NULL;
	st->locs[st->nlocs++] = x;
	*x = *loc;
	/* the name the row is keyed and shown by gets the label.  Alone (no
	 * granularity), a row pools idle and running samples (--by freq, cpu),
	 * so its module column must not depend on which came first (rows are
	 * joined on name and module when pooled or compared): it is the label
	 * for both (docs/guide.md, "Power states") */
	if (loc->kind == EQ_LOC_IDLE) {
		named = x->proc = (unsigned)primary == EQ_BY_NONE ? label
			  : eq_internf(st->strings, "%s [%s]", loc->proc ? loc->proc : "[idle]", label);
		x->module = x->proc;
		if ((unsigned)primary == EQ_BY_NONE)
			x->module_base = label;
	} else if ((unsigned)primary == EQ_BY_NONE) {
		named = x->exe = label;
		x->module_base = label;
	} else if (primary == EQ_BY_EXE || primary == EQ_BY_PID) {
		named = x->exe = eq_internf(st->strings, "%s [%s]", loc->exe, label);
	} else if (primary == EQ_BY_MODULE) {
		named = x->module = eq_internf(st->strings, "%s [%s]", loc->module, label);
	} else { /* EQ_BY_PROC: a pc no symbol covers is "[unknown]" */
		named = x->proc = eq_internf(st->strings, "%s [%s]",
					     loc->proc ? loc->proc : "[unknown]", label);
		if (!loc->proc)
			x->kind = EQ_LOC_RESOLVED;
	}
	if (!named)
		return NULL;
	st->slots[j] = (struct pair){ loc, label, x };
	st->n++;
	return x;
}

/* The label of a sample's state: the parts the split asks for, in a fixed
 * order (cpu, mode, frequency, idle state). */
static const char *sample_label(struct eq_split_store *st, const struct eq_pstates *ps,
				unsigned splits, const struct eq_sample *smp)
{
	char buf[128], f[32], c[16];
	size_t len = 0;
	uint32_t khz = 0;
	int cstate = -1;

	buf[0] = '\0';
	if (splits & (EQ_SPLIT_STATE | EQ_SPLIT_FREQ | EQ_SPLIT_CSTATE)) {
		eq_pstates_at(ps, smp->cpu, smp->time, &khz, &cstate);
		/* A sample that interrupted code found the CPU running (C0); an
		 * idle one is in the idle state logged, "idle" if none says
		 * which (or the log says running: the ISR's wake-up came first). */
		if (!(smp->flags & EQ_F_IDLE))
			cstate = 0;
		else if (cstate <= 0)
			cstate = -2;
	}
#define ADD(...) (len += (size_t)snprintf(buf + len, sizeof(buf) - len, __VA_ARGS__))
	if (splits & EQ_SPLIT_CPU)
		ADD("%scpu%u", len ? " " : "", smp->cpu);
	if (splits & EQ_SPLIT_MODE)
		ADD("%s%s", len ? " " : "", (smp->flags & EQ_F_IDLE) ? "idle" :
		    (smp->flags & EQ_F_KERNEL) ? "kernel" : "user");
	if (splits & (EQ_SPLIT_STATE | EQ_SPLIT_FREQ))
		ADD("%s%s", len ? " " : "", eq_freq_label(f, sizeof(f), khz));
	if (splits & (EQ_SPLIT_STATE | EQ_SPLIT_CSTATE))
		ADD("%s%s", len ? " " : "", eq_cstate_label(c, sizeof(c), cstate));
#undef ADD
	return eq_intern(st->strings, buf);
}

/*
 * The quanta (or ticks) cut at a state's changes.  A state lasting
 * thousands of samples has its samples in one stretch, and the sampling
 * variance from the lag-1 correlation (telegraph model) goes to the
 * rounding of that stretch, which it estimates from the run lengths, a
 * little low.  Counted directly in each CPU's sample sequence:
 *  - each change of the label moves the stretches on both sides by a
 *    uniform fraction of a sample (variance 1/12 each);
 *  - the run's first and last sample sit at a boundary whose error is
 *    one-sided, up to a whole sample (second moment 1/3);
 *  - a run of one sample inside another label's stretch stands for
 *    stretches shorter than a sample (a process waking in idle: the
 *    recorder itself), most of them never sampled: their count is a
 *    Bernoulli draw with a variance about its mean, and when none lands the
 *    idle stretch is over-counted by what they took.  The samples that do
 *    land are few, so their rate is pooled over the run: a lone sample of
 *    one label inside a long stretch of another, or of one process between
 *    two of another in a stretch of one label (the same wake-ups while
 *    work runs), with a Poisson upper bound on their number (w + 2 sqrt(w)
 *    + 2).  An idle sample is exposed when a wake-up at its place would
 *    change its label (--by cstate, state, mode; not freq nor cpu), and so
 *    is the row that wake-up would go to; a row's variance from wake-ups
 *    is that rate times its exposed samples (or 5/6 per lone sample it
 *    holds, if more);
 *  - the board's quantum jitter moves every boundary by up to J% of a
 *    quantum more (its running offset is bounded by the firmware:
 *    (J/100)^2/3 each; a timer's drift is in the model already, cv^2).
 * The row's sampling variance is at least their sum, and at most the
 * binomial one from this floor (docs/guide.md, "Power states").  Rows of a
 * label alone (--by state, freq, cstate, cpu, mode); after a granularity
 * the rows follow the code, as procedures do.
 */
#define LONG_RUN 16 /* samples: a stretch that wake-ups cut without being seen */

struct bounds {
	struct { const char *label; double mid, ends, single, exposed; } *v;
	size_t n, cap;
	struct {
		uint16_t cpu;
		size_t lastv, prevv;   /* the current run's label, the one before */
		uint64_t runlen;
		int have_prev;
		uint64_t prevlen;      /* the length of the run before */
		uint32_t pid[2];       /* the last two samples' processes */
	} cpus[64];
	size_t ncpus;
	uint64_t wakeups, samples; /* lone samples seen (wake-ups), all samples */
};

static long bounds_label(struct bounds *b, const char *label)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->v[i].label == label)
			return (long)i;
	if (EQ_GROW(b->v, b->cap, b->n + 1, 16) < 0)
		return -1;
	b->v[b->n].label = label;
	b->v[b->n].mid = b->v[b->n].ends = b->v[b->n].single = 0;
	b->v[b->n].exposed = 0;
	return (long)b->n++;
}

static int bounds_add(struct bounds *b, uint16_t cpu, uint32_t pid, const char *label)
{
	size_t c;
	long i = bounds_label(b, label);

	if (i < 0)
		return -1;
	b->samples++;
	for (c = 0; c < b->ncpus && b->cpus[c].cpu != cpu; c++)
		;
	/* a process seen for one sample inside a long stretch of one label
	 * (the recorder waking while work runs): the same wakes cut the other
	 * labels' stretches unseen */
	if (c < b->ncpus && b->cpus[c].lastv == (size_t)i && b->cpus[c].runlen >= 2 &&
	    b->cpus[c].pid[1] != b->cpus[c].pid[0] && b->cpus[c].pid[1] != pid)
		b->wakeups++;
	if (c < b->ncpus) {
		b->cpus[c].pid[0] = b->cpus[c].pid[1];
		b->cpus[c].pid[1] = pid;
	}
	if (c == b->ncpus) {
		if (b->ncpus == sizeof(b->cpus) / sizeof(b->cpus[0]))
			return 0; /* more CPUs than kept: the telegraph model alone */
		b->ncpus++;
		b->cpus[c].cpu = cpu;
		b->cpus[c].have_prev = 0;
		b->cpus[c].runlen = 0;
		b->cpus[c].prevlen = 0;
		b->cpus[c].pid[0] = b->cpus[c].pid[1] = pid;
		b->v[i].ends++; /* the CPU's first sample */
	} else if (b->cpus[c].lastv != (size_t)i) {
		/* a run of the last label ended here */
		if (b->cpus[c].runlen == 1 && b->cpus[c].have_prev && b->cpus[c].prevv == (size_t)i) {
			b->v[b->cpus[c].lastv].single++;  /* a lone sample inside this label */
			b->v[i].single++;
			if (b->cpus[c].prevlen >= LONG_RUN)
				b->wakeups++;
		}
		b->cpus[c].prevlen = b->cpus[c].runlen;
		b->v[b->cpus[c].lastv].mid++;
		b->v[i].mid++;
		b->cpus[c].prevv = b->cpus[c].lastv;
		b->cpus[c].have_prev = 1;
		b->cpus[c].runlen = 0;
	}
	b->cpus[c].lastv = (size_t)i;
	b->cpus[c].runlen++;
	return 0;
}

/* An idle sample labelled idle_label: a wake-up there would move it to
 * woke_label; when the two differ, both rows are exposed to unseen
 * wake-ups. */
static int bounds_exposed(struct bounds *b, const char *idle_label, const char *woke_label)
{
	long i, j;

	if (idle_label == woke_label)
		return 0;
	if ((i = bounds_label(b, idle_label)) < 0 || (j = bounds_label(b, woke_label)) < 0)
		return -1;
	b->v[i].exposed++;
	b->v[j].exposed++;
	return 0;
}

static void bounds_apply(struct bounds *b, struct eq_profile *p, double jitter)
{
	size_t c, i, j;

	for (c = 0; c < b->ncpus; c++)   /* each CPU's last sample */
		b->v[b->cpus[c].lastv].ends++;
	for (i = 0; i < p->nrows; i++) {
		struct eq_row *r = &p->rows[i];
		double k = (double)r->samples, m = (double)p->total_samples, pr = m > 0 ? k / m : 0;

		if (!(pr > 0 && pr < 1))
			continue;
		for (j = 0; j < b->n; j++)
			if (!strcmp(b->v[j].label, r->name)) {
				/* idle stretches (and the rows a wake-up in them
				 * moves samples to) are cut by the wake-ups seen
				 * elsewhere at their rate */
				double w = (double)b->wakeups, wup = w + 2 * sqrt(w) + 2;
				double wake = fmax(b->v[j].single * 5 / 6, wup * b->v[j].exposed / (double)b->samples);
				double v = b->v[j].mid / 12 + b->v[j].ends / 3 + wake +
					   (b->v[j].mid + b->v[j].ends) * jitter * jitter / 3;
				double deff = fmin(v / (k * (1 - pr)), 1);

				if (deff > r->deff_sampling)
					r->deff_sampling = deff;
				break;
			}
	}
	eq_profile_set_interval(p, p->interval);
}

static int needs_events(const struct eqp_file *f, const struct eq_pstates *ps, unsigned splits,
			struct eq_error *err)
{
	const char *what = NULL;

	if ((splits & EQ_SPLIT_FREQ) && !eq_pstates_has(ps, EQP_PS_FREQ))
		what = "CPU-frequency";
	else if ((splits & EQ_SPLIT_CSTATE) && !eq_pstates_has(ps, EQP_PS_IDLE))
		what = "idle-state";
	else if ((splits & EQ_SPLIT_STATE) && !eq_pstates_has(ps, EQP_PS_FREQ) &&
		 !eq_pstates_has(ps, EQP_PS_IDLE))
		what = "power-state";
	if (!what)
		return 0;
	return eq_fail(err, "%s has no %s changes (PSTA chunks, docs/format.md), so its samples cannot be "
		       "grouped by them: record them (eqprof record -a logs the kernel's power:cpu_frequency "
		       "and power:cpu_idle tracepoints, --events power, as root; eqprof sim always "
		       "does), or group by cpu or mode, which every recording has", eqp_path(f), what);
}

struct eq_profile *eq_split_profile_build(const struct eqp_file *f, struct eq_symbolizer *s,
					  enum eq_by by, unsigned flags,
					  struct eq_split_store **store, struct eq_error *err)
{
	const struct eqp_meta *m = eqp_meta(f);
	unsigned splits = EQ_BY_SPLITS(by), primary = EQ_BY_PRIMARY(by);
	struct eq_split_store *st = calloc(1, sizeof(*st));
	struct eq_pstates *ps = eq_pstates_new(f, err);
	struct eq_agg *a = NULL;
	struct eq_profile *p = NULL;
	struct bounds bd = { 0 };
	const struct eqp_board_info *bi = eqp_board_info(f);
	uint64_t lost_marks = 0;
	size_t c, k;

	*store = NULL;
	if (!ps)
		goto out;
	if (st)
		st->strings = eq_intern_new();
	if (!st || !st->strings)
		goto oom;
	if (needs_events(f, ps, splits, err) < 0)
		goto out;
	a = eq_agg_new(primary == EQ_BY_NONE ? EQ_BY_EXE : (enum eq_by)primary, flags, err);
	if (!a || eq_agg_order(a, eqp_nsamples(f), m->clock_hz, err) < 0)
		goto out;
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(f, c, &n);

		for (k = 0; smp && k < n; k++) {
			const struct eq_loc *loc = eq_sym_lookup(s, &smp[k]);
			const char *label = sample_label(st, ps, splits, &smp[k]);

			if (!label || !(loc = split_loc(st, (enum eq_by)primary, loc, label)))
				goto oom;
			if (primary == EQ_BY_NONE && bounds_add(&bd, smp[k].cpu, smp[k].pid, label) < 0)
				goto oom;
			if (primary == EQ_BY_NONE && (smp[k].flags & EQ_F_IDLE)) {
				/* what a wake-up here would be labelled */
				struct eq_sample woke = smp[k];
				const char *wl;

				woke.flags &= (uint16_t)~EQ_F_IDLE;
				wl = sample_label(st, ps, splits, &woke);
				if (!wl || bounds_exposed(&bd, label, wl) < 0)
					goto oom;
			}
			if (eq_agg_add_sample(a, loc, smp[k].time, err) < 0)
				goto out;
			lost_marks += !!(smp[k].flags & EQ_F_LOST);
		}
	}
	p = eq_agg_finish(a, m->mode, m->quantum_j,
			  m->mode == EQP_MODE_TIME ? eq_profile_period_s(f) : 0,
			  eqp_lost_total(f), err);
	a = NULL;
	if (p && p->ordered && primary == EQ_BY_NONE)
		bounds_apply(&bd, p, m->mode == EQP_MODE_ENERGY && bi ? bi->jitter_pct / 100.0 : 0);
	if (p) {
		p->by = by;
		p->lost_marks = lost_marks;
		p->skipped = *eqp_skipped(f);
		*store = st;
		st = NULL;
	}
	goto out;
oom:
	eq_fail(err, "profile of %s: out of memory", eqp_path(f));
out:
	free(bd.v);
	eq_agg_free(a);
	eq_pstates_free(ps);
	eq_split_store_free(st);
	return p;
}
