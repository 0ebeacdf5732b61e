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
#include "file/eqp_merge.h"

static const char usage_text[] =
	"usage: eqprof merge TARGET.eqp BOARD.eqp -o OUT.eqp [--edges EDGES.eqp] [-q]\n\n"
	"  TARGET.eqp  energy-driven samples (eqprof record -e on the target), or\n"
	"              time-driven ones (record -t) with --edges\n"
	"  BOARD.eqp   the board's stream of the same run (eqprof board log)\n"
	"  -o OUT.eqp  one recording holding both, aligned; report and power read it\n"
	"  --edges E   for a time-driven TARGET: the board's interrupts as the same\n"
	"              target recorded them meanwhile (record -e -a running beside\n"
	"              record -t): the clocks meet at each matched edge\n"
	"              (power --by proc reads the result; docs/power.md)\n"
	"  -q          do not print the cross-check and the alignment\n";

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
	int i, n = 0, quiet = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--edges") && i + 1 < argc) {
			edges = argv[++i];
		} else if (!strcmp(argv[i], "-q")) {
			quiet = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (argv[i][0] == '-' || n == 2) {
			fprintf(stderr, "eqprof merge: unexpected argument '%s'\n%s", argv[i], usage_text);
			return 2;
		} else {
			in[n++] = argv[i];
		}
	}
	if (n != 2 || !out) {
		fputs(usage_text, stderr);
		return 2;
	}
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
