/*
 * fuzz_parsers.c - libFuzzer target over the text parsers of eqprof import:
 * the first byte picks the parser (CSV samples, /proc/PID/maps, nm/kallsyms
 * symbol list; 'K': a merged recording's board_align_knots), the rest is
 * its input.  Parsers must accept or refuse with a
 * message, never crash, leak or read out of bounds; accepted maps and symbol
 * lists are then queried to exercise the lookups too.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <math.h>
#include <stdlib.h>

#include "file/csv_samples.h"
#include "align/knots.h"
#include "symbols/maps.h"
#include "symbols/symfile.h"
#include "symbols/symtab.h"

static void fuzz_csv(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct eq_csv_reader r;
	struct eq_sample s;
	struct eq_error err;

	if (!f)
		return;
	eq_csv_reader_init(&r, f, "fuzz.csv");
	while (eq_csv_next(&r, &s, &err) == 1)
		;
	eq_csv_reader_release(&r);
	fclose(f);
}

static void fuzz_maps(const uint8_t *data, size_t size)
{
	struct eq_maps m;
	struct eq_error err;
	size_t i;

	/* as a recorder's log: sorted, not overlapping, every span found */
	if (eq_maps_parse_log((const char *)data, size, "fuzz.maps", &m, &err) == 0) {
		for (i = 0; i < m.n; i++)
			if ((i && m.maps[i].start < m.maps[i - 1].end) || m.maps[i].end <= m.maps[i].start ||
			    eq_maps_find(&m, m.maps[i].end - 1) != &m.maps[i])
				__builtin_trap();
		eq_maps_release(&m);
	}
	if (eq_maps_parse((const char *)data, size, "fuzz.maps", &m, &err))
		return;
	for (i = 0; i < m.n; i++) {
		if (eq_maps_find(&m, m.maps[i].start) != &m.maps[i] ||
		    eq_maps_find(&m, m.maps[i].end - 1) != &m.maps[i])
			__builtin_trap();
		(void)strlen(m.maps[i].path);
	}
	(void)eq_maps_main_path(&m);
	eq_maps_release(&m);
}

static void fuzz_symfile(const uint8_t *data, size_t size)
{
	struct eq_symfile f;
	struct eq_error err;
	struct eq_symtab_index *x;
	size_t i;

	if (eq_symfile_parse((const char *)data, size, "fuzz.syms", &f, &err))
		return;
	x = eq_symtab_index_new(&(struct eqp_symtab){ "m", 1, f.n, f.syms });
	for (i = 0; x && i < f.n; i++) {
		const struct eqp_symbol *s = eq_symtab_index_find(x, f.syms[i].addr);

		if (!s || s->addr != f.syms[i].addr)
			__builtin_trap();
		(void)eq_symtab_index_find(x, f.syms[i].addr + 1);
	}
	eq_symtab_index_free(x);
	eq_symfile_release(&f);
}

/* A JIT's /tmp/perf-PID.map: the same inputs as the nm lists. */
static void fuzz_perfmap(const uint8_t *data, size_t size)
{
	struct eq_symfile f;
	struct eq_error err;
	size_t i;

	if (eq_perfmap_parse((const char *)data, size, "fuzz.map", &f, &err))
		return;
	for (i = 1; i < f.n; i++)
		if (f.syms[i].addr < f.syms[i - 1].addr)
			__builtin_trap();
	eq_symfile_release(&f);
}

/* board_align_knots (a header line of a merged recording): accepted knots
 * ascend in both clocks, and the map returns each knot's target time. */
static void fuzz_knots(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct eq_knots k;
	size_t i;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	if (eq_knots_parse(text, &k) == 0) {
		for (i = 0; i < k.n; i++) {
			double t = eq_knots_map(&k, k.board_ns[i]);

			if ((i && (k.board_ns[i] <= k.board_ns[i - 1] || k.target_ns[i] <= k.target_ns[i - 1])) ||
			    (k.n >= 2 && !(t >= k.target_ns[0] && t <= k.target_ns[k.n - 1])))
				__builtin_trap();
		}
		if (k.n && !isnan(eq_knots_map(&k, k.board_ns[0] - 1)))
			__builtin_trap();
		eq_knots_free(&k);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] == 'K') {
		fuzz_knots(data + 1, size - 1);
		return 0;
	}
	switch (data[0] % 3) {
	case 0: fuzz_csv(data + 1, size - 1); break;
	case 1: fuzz_maps(data + 1, size - 1); break;
	case 2: fuzz_symfile(data + 1, size - 1); fuzz_perfmap(data + 1, size - 1); break;
	}
	return 0;
}
