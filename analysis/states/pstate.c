/*
 * pstate.c - per-CPU power-state timelines from PSTA events; see pstate.h.
 *
 * Events of one kind are sorted by (cpu, time) once; a lookup is a binary
 * search for the last event of that CPU at or before the sample's time.
 */
#include "states/pstate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct timeline {
	struct eqp_pstate *v;
	size_t n;
};

struct eq_pstates {
	struct timeline kind[3]; /* index EQP_PS_FREQ, EQP_PS_IDLE */
};

static int by_cpu_time(const void *x, const void *y)
{
	const struct eqp_pstate *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return 0;
}

struct eq_pstates *eq_pstates_new(const struct eqp_file *f, struct eq_error *err)
{
	struct eq_pstates *t = calloc(1, sizeof(*t));
	size_t i, n = eqp_npstates(f);
	unsigned k;

	if (!t)
		goto oom;
	for (k = EQP_PS_FREQ; k <= EQP_PS_IDLE; k++) {
		t->kind[k].v = malloc((n ? n : 1) * sizeof(struct eqp_pstate));
		if (!t->kind[k].v)
			goto oom;
	}
	for (i = 0; i < n; i++) {
		const struct eqp_pstate *e = eqp_pstate_at(f, i);

		/* kinds this reader does not know are left out (format.md) */
		if (e->kind == EQP_PS_FREQ || e->kind == EQP_PS_IDLE)
			t->kind[e->kind].v[t->kind[e->kind].n++] = *e;
	}
	/* stable for equal keys: events at one time keep file order (last wins) */
	for (k = EQP_PS_FREQ; k <= EQP_PS_IDLE; k++) {
		struct timeline *tl = &t->kind[k];

		for (i = 1; i < tl->n && by_cpu_time(&tl->v[i - 1], &tl->v[i]) <= 0; i++)
			;
		if (i < tl->n)
			qsort(tl->v, tl->n, sizeof(*tl->v), by_cpu_time);
	}
	return t;
oom:
	eq_pstates_free(t);
	eq_fail(err, "%s: out of memory reading its power states", eqp_path(f));
	return NULL;
}

void eq_pstates_free(struct eq_pstates *t)
{
	unsigned k;

	if (!t)
		return;
	for (k = 0; k < 3; k++)
		free(t->kind[k].v);
	free(t);
}

int eq_pstates_has(const struct eq_pstates *t, unsigned kind)
{
	return (kind == EQP_PS_FREQ || kind == EQP_PS_IDLE) && t->kind[kind].n > 0;
}

/* The last event of cpu at or before time, or NULL. */
static const struct eqp_pstate *find(const struct timeline *tl, uint16_t cpu, uint64_t time)
{
	size_t lo = 0, hi = tl->n;

	/* first event after (cpu, time) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct eqp_pstate *e = &tl->v[mid];

		if (e->cpu < cpu || (e->cpu == cpu && e->time <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || tl->v[lo - 1].cpu != cpu)
		return NULL;
	return &tl->v[lo - 1];
}

void eq_pstates_at(const struct eq_pstates *t, uint16_t cpu, uint64_t time,
		   uint32_t *khz, int *cstate)
{
	const struct eqp_pstate *e;

	e = find(&t->kind[EQP_PS_FREQ], cpu, time);
	*khz = e ? e->value : 0;
	e = find(&t->kind[EQP_PS_IDLE], cpu, time);
	*cstate = e ? (int)(e->value > 255 ? 255 : e->value) : -1;
}

const char *eq_freq_label(char *buf, size_t size, uint32_t khz)
{
	if (!khz)
		snprintf(buf, size, "?MHz");
	else if (khz >= 1000000 && khz % 1000 == 0)
		snprintf(buf, size, "%gGHz", khz / 1e6);
	else
		snprintf(buf, size, "%gMHz", khz / 1e3);
	return buf;
}

const char *eq_cstate_label(char *buf, size_t size, int cstate)
{
	if (cstate >= 0)
		snprintf(buf, size, "C%d", cstate);
	else
		snprintf(buf, size, "%s", cstate == -2 ? "idle" : "?");
	return buf;
}
