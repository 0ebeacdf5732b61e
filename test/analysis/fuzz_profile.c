/*
 * fuzz_profile.c - libFuzzer target over everything report does with a
 * recording once the reader accepted it: symbolization from its maps,
 * names and embedded symbol tables (kallsyms, modules), profiles at every
 * granularity with and without idle, all three output formats, and a
 * comparison.  Built like the reader's target (CRCs not checked, so
 * mutations reach the contents).  --symfs points nowhere: no file on this
 * machine is opened, whatever paths the maps name.
 * By hand: build/fuzz/fuzz_profile -max_total_time=600 test/analysis/corpus-eqp
 */
#include <stdio.h>
#include <stdlib.h>

#include "profile/compare.h"
#include "file/eqp.h"
#include "profile/profile.h"
#include "states/split.h"
#include "attrib/attrib.h"
#include "symbols/symbolize.h"
#include "profile/table.h"

static void print_all(const struct eq_profile *p, FILE *out)
{
	eq_profile_print(out, p, EQ_FMT_TABLE, "fuzz.eqp");
	eq_profile_print(out, p, EQ_FMT_CSV, "fuzz.eqp");
	eq_profile_print(out, p, EQ_FMT_JSON, "fuzz.eqp");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct eq_sym_options opt = { .symfs = "/nonexistent-eqprof-fuzz-symfs",
				      .check_build_id = 1 };
	struct eq_profile *first = NULL;
	struct eq_symbolizer *s;
	struct eq_error err;
	struct eqp_file *f = eqp_open_mem(data, size, "fuzz.eqp", &err);
	FILE *out = fopen("/dev/null", "w");
	int by;

	if (!f || !out)
		goto done;
	s = eq_sym_new(f, &opt, &err);
	for (by = EQ_BY_EXE; s && by <= EQ_BY_INSN; by++) {
		struct eq_profile *p = eq_profile_build(f, s, (enum eq_by)by,
							by & 1 ? EQ_PROFILE_EXCLUDE_IDLE : 0, &err);

		if (!p)
			continue;
		print_all(p, out);
		if (!first) {
			first = p;
			continue;
		}
		if (first->by == p->by) {
			struct eq_comparison *c = eq_compare(first, p, "a", "b", EQ_IV_RUN);

			if (c)
				eq_comparison_print(out, c, EQ_FMT_JSON);
			eq_comparison_free(c);
		}
		eq_profile_free(p);
	}
	if (s) { /* power states (PSTA) and the split profiles of analysis/states */
		static const char *const splits[] = { "state", "exe,freq,cstate", "proc,cpu,mode" };
		size_t i;

		for (i = 0; i < sizeof(splits) / sizeof(splits[0]); i++) {
			struct eq_split_store *st;
			struct eq_profile *p;
			enum eq_by sb;

			if (eq_by_parse_split(splits[i], &sb, &err))
				continue;
			p = eq_split_profile_build(f, s, sb, i & 1 ? EQ_PROFILE_EXCLUDE_IDLE : 0, &st, &err);
			if (p)
				print_all(p, out);
			eq_profile_free(p);
			eq_split_store_free(st);
		}
	}
	if (s) { /* device requests (DREQ) and their attribution (analysis/attrib) */
		struct eq_attrib *a = eq_attrib_build(f, s, EQ_BY_EXE, NULL, 0, &err);

		if (a)
			eq_attrib_print(out, a, "fuzz", EQ_FMT_JSON);
		eq_attrib_free(a);
	}
	eq_profile_free(first);
	eq_sym_free(s);
done:
	if (out)
		fclose(out);
	if (f)
		eqp_close(f);
	return 0;
}
