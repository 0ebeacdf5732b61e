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

int cmd_merge(int argc, char **argv)
{
	const char *in[2] = { NULL, NULL }, *out = NULL, *edges = NULL;
	struct eqp_file *tf, *bf, *ef = NULL;
	char *knots = NULL, *all = NULL;
	size_t nknots = 0;
	struct eq_error err;
	struct eq_align a;
	const struct eqp_board_info *bi;
	double quantum;
	char extra[2048];
	struct merge_args ma;
	int i, quiet = 0;

	i = parse_merge_options(argc, argv, &ma);
	if (i != 1)
		return i;
	in[0] = ma.in[0];
	in[1] = ma.in[1];
	out = ma.out;
	edges = ma.edges;
	quiet = ma.quiet;
	tf = eqp_open(in[0], &err);
	if (!tf) {
		fprintf(stderr, "eqprof merge: %s\n", err.msg);
		return 1;
	}
	bf = eqp_open(in[1], &err);
	if (!bf) {
		fprintf(stderr, "eqprof merge: %s\n", err.msg);
		eqp_close(tf);
		return 1;
	}
	if (!eqp_nsamples(tf) || (eqp_meta(tf)->mode != EQP_MODE_ENERGY && !edges)) {
		fprintf(stderr, "eqprof merge: %s holds no energy-driven samples: give what 'eqprof record -e' wrote%s\n",
			in[0], eqp_nsamples(tf) ? ", or, for a time-driven recording, the board's interrupts the target "
			"recorded meanwhile (record -e -a beside record -t) as --edges E.eqp: nothing else ties its "
			"clock to the board's" : "");
		goto fail;
	}
	if (edges && eqp_meta(tf)->mode == EQP_MODE_ENERGY) {
		fprintf(stderr, "eqprof merge: %s is energy-driven: its own samples are the board's edges; "
			"--edges is for a time-driven recording\n", in[0]);
		goto fail;
	}
	if (!eqp_board_info(bf)) {
		fprintf(stderr, "eqprof merge: %s holds no board stream: give what 'eqprof board log' wrote\n",
			in[1]);
		goto fail;
	}
	bi = eqp_board_info(bf);
	quantum = bi->e_min_j * bi->quantum_pulses;
	if (edges) {
		const struct eqp_meta *tm = eqp_meta(tf), *em;
		uint64_t t0 = UINT64_MAX, t1 = 0, e0 = UINT64_MAX, e1 = 0;
		size_t c, k, m;
		char why[256];

		ef = eqp_open(edges, &err);
		if (!ef) {
			fprintf(stderr, "eqprof merge: %s\n", err.msg);
			goto fail;
		}
		em = eqp_meta(ef);
		if (em->mode != EQP_MODE_ENERGY || !eqp_nsamples(ef) || eqp_board_info(ef)) {
			fprintf(stderr, "eqprof merge: %s: --edges takes the energy-driven samples the target took of the "
				"board's interrupts (record -e -a, not merged)\n", edges);
			goto fail;
		}
		/* one clock: the same rate, the same target, the same boot (the
		 * wall clock less the samples' clock agrees within 2 s) */
		for (c = 0; c < eqp_nsample_chunks(tf); c++) {
			const struct eq_sample *s = eqp_sample_chunk(tf, c, &m);

			for (k = 0; k < m; k++) {
				t0 = s[k].time < t0 ? s[k].time : t0;
				t1 = s[k].time > t1 ? s[k].time : t1;
			}
		}
		for (c = 0; c < eqp_nsample_chunks(ef); c++) {
			const struct eq_sample *s = eqp_sample_chunk(ef, c, &m);

			for (k = 0; k < m; k++) {
				e0 = s[k].time < e0 ? s[k].time : e0;
				e1 = s[k].time > e1 ? s[k].time : e1;
			}
		}
		if (tm->clock_hz != em->clock_hz || strcmp(tm->target ? tm->target : "", em->target ? em->target : "") ||
		    (tm->start_unix_ns && em->start_unix_ns &&
		     fabs(((double)tm->start_unix_ns - (double)t0 / tm->clock_hz * 1e9) -
			  ((double)em->start_unix_ns - (double)e0 / em->clock_hz * 1e9)) > 2e9)) {
			fprintf(stderr, "eqprof merge: %s and %s were not recorded on one clock (another target, clock "
				"rate or boot): their times cannot be compared\n", in[0], edges);
			goto fail;
		}
		if (t1 <= e0 || t0 >= e1) {
			fprintf(stderr, "eqprof merge: %s (%.3f..%.3f s) and %s (%.3f..%.3f s) do not overlap: record the "
				"edges while the time-driven recording runs\n", in[0], t0 / tm->clock_hz,
				t1 / tm->clock_hz, edges, e0 / em->clock_hz, e1 / em->clock_hz);
			goto fail;
		}
		eq_align_compute(ef, bf, &a);
		if (!quiet)
			eq_align_print(stderr, "merge", &a);
		knots = eq_align_knots(ef, bf, &a, &nknots, why, sizeof(why));
		if (!knots) {
			fprintf(stderr, "eqprof merge: %s: its samples cannot tie the board's clock to the target's: %s\n",
				edges, a.status == EQ_ALIGN_FAILED ? a.why : why);
			goto fail;
		}
		if (!quiet && (t0 < e0 || t1 > e1))
			fprintf(stderr, "eqprof merge: warning: %s covers %.3f..%.3f s of the %.3f..%.3f s of %s: the "
				"board's intervals outside it are not used\n", edges, e0 / em->clock_hz,
				e1 / em->clock_hz, t0 / tm->clock_hz, t1 / tm->clock_hz, in[0]);
		quantum = 0; /* a time-driven recording's samples are no quanta */
		eqp_close(ef);
		ef = NULL;
	} else {
		eq_align_compute(tf, bf, &a);
	}
	eqp_close(tf);
	eqp_close(bf);
	if (!quiet && !edges)
		eq_align_print(stderr, "merge", &a);
	eq_align_extra(&a, extra, sizeof(extra));
	if (knots) {
		size_t xl = strlen(extra), kl = strlen(knots);
		int w = snprintf(NULL, 0, "board_align_from=%s\nboard_align_nknots=%zu\n", edges, nknots);

		all = malloc(xl + kl + (size_t)w + 1);
		if (!all) {
			fprintf(stderr, "eqprof merge: out of memory\n");
			free(knots);
			return 1;
		}
		memcpy(all, extra, xl);
		snprintf(all + xl, (size_t)w + 1, "board_align_from=%s\nboard_align_nknots=%zu\n", edges, nknots);
		memcpy(all + xl + w, knots, kl + 1);
		free(knots);
	}
	if (eqp_merge(in[0], in[1], all ? all : extra, quantum, out, &err) < 0) {
		fprintf(stderr, "eqprof merge: %s\n", err.msg);
		free(all);
		return 1;
	}
	free(all);
	if (!quiet)
		fprintf(stderr, "eqprof merge: wrote %s%s\n", out,
			edges ? " (the time-driven samples, the board's stream, the clocks' knots)" : "");
	return 0;
fail:
	if (ef)
		eqp_close(ef);
	free(knots);
	eqp_close(tf);
	eqp_close(bf);
	return 1;
}
