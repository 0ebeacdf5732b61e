/*
 * fuzz_eqp.c - libFuzzer target over the .eqp reader.
 *
 * Opens the input as a recording and touches everything the reader exposes,
 * so an out-of-bounds read or bad length anywhere shows up under ASan.
 * By hand: build/fuzz/fuzz_eqp -max_total_time=600 test/format/corpus
 */
#include <stdlib.h>
#include <string.h>

#include "file/eqp.h"

static unsigned sink;

static void touch(const struct eqp_file *f)
{
	size_t i, k, n;

	for (i = 0; i < eqp_nsample_chunks(f); i++) {
		const struct eq_sample *s = eqp_sample_chunk(f, i, &n);

		for (k = 0; k < n; k++)
			sink += (unsigned)s[k].pc + s[k].flags;
	}
	for (i = 0; i < eqp_nmaps(f); i++)
		sink += (unsigned)strlen(eqp_maps_at(f, i)->text);
	for (i = 0; i < eqp_ncomm(f); i++)
		sink += (unsigned)strlen(eqp_comm_at(f, i)->name);
	for (i = 0; i < eqp_nsymtabs(f); i++) {
		const struct eqp_symtab *t = eqp_symtab_at(f, i);

		for (k = 0; k < t->nsyms; k++)
			sink += (unsigned)strlen(t->syms[k].name);
	}
	for (i = 0; i < eqp_nmarkers(f); i++)
		sink += (unsigned)strlen(eqp_marker_at(f, i)->label);
	for (i = 0; i < eqp_nboard_records(f); i++)
		sink += eqp_board_record_at(f, i)->pulses;
	sink += (unsigned)eqp_lost_total(f);
	if (eqp_board_info(f))
		sink += (unsigned)strlen(eqp_board_info(f)->firmware);
	if (eqp_meta_get(f, "command"))
		sink++;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct eq_error err;
	/* An exact-size heap copy: ASan then catches any read past the end. */
	unsigned char *copy = malloc(size ? size : 1);
	struct eqp_file *f;

	memcpy(copy, data, size);
	f = eqp_open_mem(copy, size, "fuzz.eqp", &err);
	if (f) {
		touch(f);
		eqp_close(f);
	}
	free(copy);
	return 0;
}
