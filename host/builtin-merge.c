/*
 * builtin-merge.c - eqprof merge: a target's recording and the board's
 * stream of the same run as one recording, aligned (docs/hil.md).
 *
 *   eqprof merge TARGET.eqp BOARD.eqp -o OUT.eqp [-q]
 *
 * Matches the target's energy-driven samples with the board's records
 * (analysis/align), prints the loss cross-check and the clocks' alignment,
 * and writes OUT.eqp: the target's recording, the board's chunks after it,
 * the alignment in its header.  report and power check it again whenever a
 * recording holds both.
 */
#include <stdio.h>
#include <string.h>

#include "align.h"
#include "builtin.h"
#include "eqp_merge.h"

static const char usage_text[] =
	"usage: eqprof merge TARGET.eqp BOARD.eqp -o OUT.eqp [-q]\n\n"
	"  TARGET.eqp  energy-driven samples (eqprof record -e on the target)\n"
	"  BOARD.eqp   the board's stream of the same run (eqprof board log)\n"
	"  -o OUT.eqp  one recording holding both, aligned; report and power read it\n"
	"  -q          do not print the cross-check and the alignment\n";

int cmd_merge(int argc, char **argv)
{
	const char *in[2] = { NULL, NULL }, *out = NULL;
	struct eqp_file *tf, *bf;
	struct eq_error err;
	struct eq_align a;
	const struct eqp_board_info *bi;
	double quantum;
	char extra[2048];
	int i, n = 0, quiet = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
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
	if (eqp_meta(tf)->mode != EQP_MODE_ENERGY || !eqp_nsamples(tf)) {
		fprintf(stderr, "eqprof merge: %s holds no energy-driven samples: give what 'eqprof record -e' wrote\n",
			in[0]);
		goto fail;
	}
	if (!eqp_board_info(bf)) {
		fprintf(stderr, "eqprof merge: %s holds no board stream: give what 'eqprof board log' wrote\n",
			in[1]);
		goto fail;
	}
	bi = eqp_board_info(bf);
	quantum = bi->e_min_j * bi->quantum_pulses;
	eq_align_compute(tf, bf, &a);
	eqp_close(tf);
	eqp_close(bf);
	if (!quiet)
		eq_align_print(stderr, "merge", &a);
	eq_align_extra(&a, extra, sizeof(extra));
	if (eqp_merge(in[0], in[1], extra, quantum, out, &err) < 0) {
		fprintf(stderr, "eqprof merge: %s\n", err.msg);
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "eqprof merge: wrote %s\n", out);
	return 0;
fail:
	eqp_close(tf);
	eqp_close(bf);
	return 1;
}
