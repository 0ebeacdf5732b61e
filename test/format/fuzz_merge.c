/*
 * fuzz_merge.c - libFuzzer target over `eqprof merge`: the alignment of a
 * target's energy samples with a board's stream (analysis/align) and the
 * merged file's writer (analysis/file/eqp_merge.c), then the merged file
 * read back with its cross-check.
 *
 * The input is a pair: a u32 (little-endian) length of the target's bytes,
 * the target recording, then the board log (test/format/corpus-merge, made
 * by test/format/make-merge-corpus.py: one pair matched by timing, one
 * numbered by quanta).  Built like the reader's target (CRCs not checked, so
 * mutations reach the contents).  eqp_merge works on paths: the two inputs
 * and the output live in a directory of this process under $TMPDIR, removed
 * at exit.  Run by test/format/fuzz-merge.sh; longer by hand:
 *   build/fuzz/fuzz_merge -max_total_time=600 -max_len=8192 COPY_OF_CORPUS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "align/align.h"
#include "file/eqp.h"
#include "file/eqp_merge.h"

static char dir[256], tpath[300], bpath[300], opath[300];
static FILE *devnull;
static unsigned sink;

static void cleanup(void)
{
	unlink(tpath);
	unlink(bpath);
	unlink(opath);
	rmdir(dir);
}

static int setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/eqprof-fuzz-merge.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(tpath, sizeof(tpath), "%s/target.eqp", dir);
	snprintf(bpath, sizeof(bpath), "%s/board.eqp", dir);
	snprintf(opath, sizeof(opath), "%s/merged.eqp", dir);
	devnull = fopen("/dev/null", "w");
	atexit(cleanup);
	return devnull ? 0 : -1;
}

static int put(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct eq_error err;
	struct eqp_file *tf, *bf, *mf;
	struct eq_align a;
	char extra[2048];
	uint32_t tlen;
	size_t i;

	if (!devnull && setup() < 0)
		abort();
	if (size < 4)
		return 0;
	tlen = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	       (uint32_t)data[3] << 24;
	if (tlen > size - 4)
		tlen = (uint32_t)(size - 4);
	if (put(tpath, data + 4, tlen) < 0 || put(bpath, data + 4 + tlen, size - 4 - tlen) < 0)
		abort();
	tf = eqp_open(tpath, &err);
	bf = eqp_open(bpath, &err);
	if (tf && bf) {
		eq_align_compute(tf, bf, &a);
		eq_align_print(devnull, "merge", &a);
		eq_align_extra(&a, extra, sizeof(extra));
		{ /* merge --edges: the matched edges as knots, read back */
			char why[256], *kt;
			size_t nk = 0;
			struct eq_knots k;

			kt = eq_align_knots(tf, bf, &a, &nk, why, sizeof(why));
			if (kt) {
				if (strncmp(kt, "board_align_knots=", 18) || kt[strlen(kt) - 1] != '\n')
					__builtin_trap();
				kt[strlen(kt) - 1] = '\0';
				if (eq_knots_parse(kt + 18, &k) < 0 || k.n != nk)
					__builtin_trap(); /* merge wrote knots the reader refuses */
				eq_knots_free(&k);
				free(kt);
			}
		}
		unlink(opath);
		if (eqp_merge(tpath, bpath, extra, 1e-3, opath, &err) == 0) {
			mf = eqp_open(opath, &err);
			if (!mf)
				__builtin_trap(); /* merge wrote what the reader refuses */
			if (eqp_nsamples(mf) != eqp_nsamples(tf) ||
			    eqp_nboard_records(mf) != eqp_nboard_records(bf))
				__builtin_trap(); /* something was lost on the way */
			eq_align_check_file(devnull, "report", mf, 1);
			for (i = 0; i < eqp_nboard_records(mf); i++)
				sink += eqp_board_record_at(mf, i)->pulses;
			eqp_close(mf);
		}
	}
	if (tf)
		eqp_close(tf);
	if (bf)
		eqp_close(bf);
	return 0;
}
