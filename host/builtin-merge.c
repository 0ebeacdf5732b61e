/*
 * builtin-merge.c - eqprof merge: a target's recording and the board's
 * stream of the same run as one recording, aligned (docs/hil.md).
 *
 *   eqprof merge TARGET.eqp BOARD.eqp -o OUT.eqp [--edges EDGES.eqp] [-q]
 *
 * Matches the target's energy-driven samples with the board's records
 * (analysis/align), prints the loss cross-check and the clocks' alignment,
 * and writes OUT.eqp: the target's recording, the board's chunks after it,
 * the alignment in its header.  report and power check it again whenever a
 * recording holds both.
 *
 * A time-driven TARGET has no sample at the board's edges: its clock meets
 * the board's only through EDGES.eqp, an energy-driven recording of the
 * same target clock taken during the same run (record -e beside record -t).
 * EDGES is matched with the board, and the matched edges (each quantum's
 * edge on both clocks: board_align_knots) go into OUT.eqp's header, where
 * `power --by proc` maps the board's intervals onto the samples' clock.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align/align.h"
#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "file/eqp_merge.h"

struct merge_args {
	const char *in[2], *out, *edges;
	int quiet, verbose;
};

/* merge's options into a; 1 to run, 0 after --help, 2 after an error. */
static int parse_merge_options(int argc, char **argv, struct merge_args *a)
{
	const struct eq_option options[] = {
		OPT_ARG("TARGET.eqp", "energy-driven samples (eqprof record -e on the target), or\n"
				      "time-driven ones (record -t) with --edges"),
		OPT_ARG("BOARD.eqp", "the board's stream of the same run (eqprof board log)"),
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &a->out,
		  .argh = "OUT.eqp", .complete = EQ_COMPLETE_FILE,
		  .help = "one recording holding both, aligned; report and power read it" },
		{ .type = EQ_OPTION_STRING, .long_name = "edges", .value = &a->edges, .argh = "E",
		  .complete = EQ_COMPLETE_FILE,
		  .help = "for a time-driven TARGET: the board's interrupts as the same\n"
			  "target recorded them meanwhile (record -e -a running beside\n"
			  "record -t): the clocks meet at each matched edge\n"
			  "(power --by proc reads the result; docs/power.md)" },
		OPT_QUIET(&a->quiet, "do not print the cross-check and the alignment"),
		OPT_VERBOSE(&a->verbose, "notes in full"),
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "merge", .options = options,
		.usage = "eqprof merge TARGET.eqp BOARD.eqp -o OUT.eqp [--edges EDGES.eqp] [-q]\n",
	};
	int n;

	memset(a, 0, sizeof(*a));
	n = eq_parse_options(&cmd, argc, argv, NULL);
	if (n < 0)
		return EQ_PARSE_STATUS(n);
	if (n > 2)
		return eq_usage_error(&cmd, 0, "unexpected argument '%s'", argv[2]);
	if (n < 2)
		return eq_usage_error(&cmd, 0, "give the target's recording and the board's: "
				      "TARGET.eqp BOARD.eqp");
	if (!a->out)
		return eq_usage_error(&cmd, 0, "-o OUT.eqp is required");
	a->in[0] = argv[0];
	a->in[1] = argv[1];
	return 1;
}

/* The first and last sample time of f (its clock's ticks). */
static void sample_span(const struct eqp_file *f, uint64_t *t0, uint64_t *t1)
{
	size_t c, k, m;

	*t0 = UINT64_MAX;
	*t1 = 0;
	for (c = 0; c < eqp_nsample_chunks(f); c++) {
		const struct eq_sample *s = eqp_sample_chunk(f, c, &m);

		for (k = 0; k < m; k++) {
			*t0 = s[k].time < *t0 ? s[k].time : *t0;
			*t1 = s[k].time > *t1 ? s[k].time : *t1;
		}
	}
}

/* The target's and the board's recordings are what merge takes. */
static int check_inputs(const struct merge_args *ma, const struct eqp_file *tf,
			const struct eqp_file *bf)
{
	if (!eqp_nsamples(tf) || (eqp_meta(tf)->mode != EQP_MODE_ENERGY && !ma->edges)) {
		eq_error_msg("%s holds no energy-driven samples: give what 'eqprof record -e' wrote%s",
			     ma->in[0], eqp_nsamples(tf) ? ", or, for a time-driven recording, the board's "
			     "interrupts the target recorded meanwhile (record -e -a beside record -t) as "
			     "--edges E.eqp: nothing else ties its clock to the board's" : "");
		return -1;
	}
	if (ma->edges && eqp_meta(tf)->mode == EQP_MODE_ENERGY) {
		eq_error_msg("%s is energy-driven: its own samples are the board's edges; --edges is for "
			     "a time-driven recording", ma->in[0]);
		return -1;
	}
	if (!eqp_board_info(bf)) {
		eq_error_msg("%s holds no board stream: give what 'eqprof board log' wrote", ma->in[1]);
		return -1;
	}
	return 0;
}

/* --edges E.eqp of time-driven tf: E on tf's clock, overlapping it. */
static int check_edges(const struct merge_args *ma, const struct eqp_file *tf,
		       const struct eqp_file *ef)
{
	const struct eqp_meta *tm = eqp_meta(tf), *em = eqp_meta(ef);
	uint64_t t0, t1, e0, e1;

	if (em->mode != EQP_MODE_ENERGY || !eqp_nsamples(ef) || eqp_board_info(ef)) {
		eq_error_msg("%s: --edges takes the energy-driven samples the target took of the board's "
			     "interrupts (record -e -a, not merged)", ma->edges);
		return -1;
	}
	sample_span(tf, &t0, &t1);
	sample_span(ef, &e0, &e1);
	/* one clock: the same rate, the same target, the same boot (the wall
	 * clock less the samples' clock agrees within 2 s) */
	if (tm->clock_hz != em->clock_hz ||
	    strcmp(tm->target ? tm->target : "", em->target ? em->target : "") ||
	    (tm->start_unix_ns && em->start_unix_ns &&
	     fabs(((double)tm->start_unix_ns - (double)t0 / tm->clock_hz * 1e9) -
		  ((double)em->start_unix_ns - (double)e0 / em->clock_hz * 1e9)) > 2e9)) {
		eq_error_msg("%s and %s were not recorded on one clock (another target, clock rate or "
			     "boot): their times cannot be compared", ma->in[0], ma->edges);
		return -1;
	}
	if (t1 <= e0 || t0 >= e1) {
		eq_error_msg("%s (%.3f..%.3f s) and %s (%.3f..%.3f s) do not overlap: record the edges "
			     "while the time-driven recording runs", ma->in[0], t0 / tm->clock_hz,
			     t1 / tm->clock_hz, ma->edges, e0 / em->clock_hz, e1 / em->clock_hz);
		return -1;
	}
	if (!ma->quiet && (t0 < e0 || t1 > e1))
		eq_warn("%s covers %.3f..%.3f s of the %.3f..%.3f s of %s: the board's intervals "
			"outside it are not used", ma->edges, e0 / em->clock_hz, e1 / em->clock_hz,
			t0 / tm->clock_hz, t1 / tm->clock_hz, ma->in[0]);
	return 0;
}

/* --edges: the board matched with the edges' samples; the knots (each
 * matched quantum's edge on both clocks, malloc'd) into *knots. */
static int edge_knots(const struct merge_args *ma, const struct eqp_file *tf,
		      const struct eqp_file *bf, struct eq_align *a, char **knots, size_t *nknots)
{
	struct eq_error err;
	struct eqp_file *ef = eqp_open(ma->edges, &err);
	char why[256];
	int rc = -1;

	if (!ef) {
		eq_error_msg("%s", err.msg);
		return -1;
	}
	if (check_edges(ma, tf, ef) == 0) {
		eq_align_compute(ef, bf, a);
		if (!ma->quiet)
			eq_align_print(stderr, "merge", a);
		*knots = eq_align_knots(ef, bf, a, nknots, why, sizeof(why));
		if (*knots)
			rc = 0;
		else
			eq_error_msg("%s: its samples cannot tie the board's clock to the target's: %s",
				     ma->edges, a->status == EQ_ALIGN_FAILED ? a->why : why);
	}
	eqp_close(ef);
	return rc;
}

/* The header's lines: the alignment's, then the knots' (malloc'd). */
static char *header_extra(const struct merge_args *ma, const struct eq_align *a, const char *knots,
			  size_t nknots)
{
	char extra[2048], *all;
	size_t xl, kl;
	int w;

	eq_align_extra(a, extra, sizeof(extra));
	xl = strlen(extra);
	kl = knots ? strlen(knots) : 0;
	w = knots ? snprintf(NULL, 0, "board_align_from=%s\nboard_align_nknots=%zu\n", ma->edges,
			     nknots) : 0;
	all = malloc(xl + kl + (size_t)w + 1);
	if (!all)
		return NULL;
	memcpy(all, extra, xl + 1);
	if (knots) {
		snprintf(all + xl, (size_t)w + 1, "board_align_from=%s\nboard_align_nknots=%zu\n",
			 ma->edges, nknots);
		memcpy(all + xl + w, knots, kl + 1);
	}
	return all;
}

int cmd_merge(int argc, char **argv)
{
	struct eqp_file *tf = NULL, *bf = NULL;
	char *knots = NULL, *all = NULL;
	size_t nknots = 0;
	struct eq_error err;
	struct eq_align a;
	const struct eqp_board_info *bi;
	double quantum;
	struct merge_args ma;
	int rc;

	rc = parse_merge_options(argc, argv, &ma);
	if (rc != 1)
		return rc;
	rc = 1;
	tf = eqp_open(ma.in[0], &err);
	if (tf)
		bf = eqp_open(ma.in[1], &err);
	if (!tf || !bf) {
		eq_error_msg("%s", err.msg);
		goto out;
	}
	if (check_inputs(&ma, tf, bf) < 0)
		goto out;
	bi = eqp_board_info(bf);
	quantum = bi->e_min_j * bi->quantum_pulses;
	if (ma.edges) {
		if (edge_knots(&ma, tf, bf, &a, &knots, &nknots) < 0)
			goto out;
		quantum = 0; /* a time-driven recording's samples are no quanta */
	} else {
		eq_align_compute(tf, bf, &a);
		if (!ma.quiet)
			eq_align_print(stderr, "merge", &a);
	}
	eqp_close(tf);
	eqp_close(bf);
	tf = bf = NULL;
	all = header_extra(&ma, &a, knots, nknots);
	if (!all)
		eq_error_msg("out of memory");
	else if (eqp_merge(ma.in[0], ma.in[1], all, quantum, ma.out, &err) < 0)
		eq_error_msg("%s", err.msg);
	else
		rc = 0;
	if (rc == 0 && !ma.quiet)
		eq_note("wrote %s%s", ma.out, ma.edges ? " (the time-driven samples, the board's "
			"stream, the clocks' knots)" : "");
out:
	free(all);
	free(knots);
	if (tf)
		eqp_close(tf);
	if (bf)
		eqp_close(bf);
	return rc;
}
