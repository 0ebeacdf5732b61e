/*
 * fuzz_export.c - libFuzzer target over what `eqprof power` and `eqprof
 * export` do with a recording the reader accepted: the interval stream from
 * samples and from the board stream, summary, histogram, trace (every
 * interval, windowed, decimated, a close-up), regions between markers, and
 * all five export formats, with and without idle.  Built like the reader's
 * target (CRCs not checked, so mutations reach the contents); --symfs points
 * nowhere, so no file of this machine is opened whatever the maps name.
 * Everything is written to /dev/null.  Run by test/export/fuzz-export.sh
 * over test/export/corpus; longer by hand:
 *   build/fuzz/fuzz_export -max_total_time=600 -max_len=16384 COPY_OF_CORPUS
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "file/eqp.h"
#include "export/export.h"
#include "power/power.h"
#include "symbols/symbolize.h"

static int count_point(void *ctx, const struct power_point *p)
{
	if (!isfinite(p->t) || isnan(p->power_w))
		__builtin_trap();    /* a trace point the plot could not draw */
	++*(size_t *)ctx;
	return 0;
}

static void power_all(const struct eqp_file *f, FILE *out)
{
	static const enum power_basis bases[] = { POWER_BASIS_AUTO, POWER_BASIS_SAMPLES,
						  POWER_BASIS_BOARD };
	struct eq_error err;
	size_t b;

	for (b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		struct power_input in;
		struct power_summary s;
		struct power_hist h;
		struct power_region *reg = NULL;
		struct power_trace_opts o[3] = { { 1, 0, 0, 0 }, { 7, 0, 0, 64 }, { 3, 0.001, 0.5, 16 } };
		size_t n, i;

		if (power_input_from_file(&in, f, bases[b], &err) < 0)
			continue;
		if (power_summarize(&in, &s, &err) == 0)
			power_summary_print(out, &s, 1, (enum power_format)(b % 3));
		if (power_hist_init(&h, 0.05, &err) == 0) {
			const char *name = "fuzz";

			/* a glitch asks for up to 200,000 buckets: the same code
			 * writes them, slowly, so only shorter ones are written */
			if (power_hist_build(&h, &in, &err) == 0 && h.nbuckets <= 4096)
				power_hist_write_csv(out, &h, &name, 1, 1);
			power_hist_free(&h);
		}
		for (i = 0; i < 3; i++) {
			n = 0;
			(void)power_trace_walk(&in, &o[i], count_point, &n, &err);
		}
		(void)power_trace_write_csv(out, &in, &o[0], &err);
		if (power_regions_from_markers(&in, &reg, &n, &err) == 0) {
			power_region_print(out, reg, n, POWER_FMT_JSON);
			free(reg);
		}
		power_input_free(&in);
	}
}

static void export_all(const struct eqp_file *f, FILE *out)
{
	struct eq_sym_options opt = { .symfs = "/nonexistent-eqprof-fuzz-symfs",
				      .check_build_id = 1 };
	struct eq_error err;
	struct eq_symbolizer *s = eq_sym_new(f, &opt, &err);
	int idle, fmt;

	for (idle = 0; s && idle < 2; idle++) {
		struct export_ctx x;

		if (export_ctx_init(&x, f, s, idle, "eqprof fuzz", &err) < 0)
			continue;
		for (fmt = EXPORT_CALLGRIND; fmt <= EXPORT_CSV; fmt++)
			(void)export_write(out, (enum export_format)fmt, &x, &err);
		export_ctx_free(&x);
	}
	eq_sym_free(s);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct eq_error err;
	struct eqp_file *f = eqp_open_mem(data, size, "fuzz.eqp", &err);
	FILE *out;

	if (!f)
		return 0;
	out = fopen("/dev/null", "w");
	if (out) {
		power_all(f, out);
		export_all(f, out);
		fclose(out);
	}
	eqp_close(f);
	return 0;
}
