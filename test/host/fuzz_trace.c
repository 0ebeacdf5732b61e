/*
 * fuzz_trace.c - libFuzzer target over what record --events reads from the
 * kernel (host/record/trace_events.c): a tracefs format file, then raw records
 * decoded with it and paired into PSTA events and DREQ requests.
 *
 * Input: byte 0 the event kind (mod 5), bytes 1-2 the format's length L
 * (little-endian), L bytes of format text, then records, each a 2-byte
 * length and its bytes; record i has time i / 2 (so issues and completions
 * meet in every order).  Beyond "no crash, leak or undefined behaviour",
 * what is accepted must be writable: every request completes at or after
 * its issue, on a numbered device; every power state is of a known kind.
 * Run by test/host/fuzz-trace.sh over test/host/corpus-trace; longer by
 * hand: build/fuzz/fuzz_trace -max_total_time=600 -max_len=4096 COPY_OF_CORPUS
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/trace_events.h"

#define CHECK(x) do { if (!(x)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct te_format fmt;
	static struct te_event ev;
	struct te_devtab devs = { 0 };
	struct te_pairer p;
	struct eq_error err;
	size_t len, off, i = 0;
	enum te_kind kind;

	if (size < 3)
		return 0;
	kind = (enum te_kind)(data[0] % TE_NKINDS);
	len = (size_t)data[1] | (size_t)data[2] << 8;
	if (len > size - 3)
		len = size - 3;
	if (te_format_parse((const char *)data + 3, len, "fuzz", &fmt, &err) < 0) {
		CHECK(err.msg[0]);
		return 0;
	}
	CHECK(fmt.nfields > 0 && fmt.nfields <= TE_MAX_FIELDS);
	for (i = 0; i < fmt.nfields; i++)
		CHECK(fmt.f[i].size > 0 && fmt.f[i].offset + fmt.f[i].size <= 65535);
	if (te_bind(&ev, kind, &fmt, &err) < 0) {
		CHECK(err.msg[0]);
		return 0;
	}
	te_devtab_add(&devs, 0, 0, "disk0");
	te_devtab_add(&devs, 0, 254u << 20, "vda");
	te_devtab_add(&devs, 1, 0, "lo");
	te_pairer_init(&p, &devs);
	off = 3 + len;
	for (i = 0; off + 2 <= size; i++) {
		size_t n = (size_t)data[off] | (size_t)data[off + 1] << 8;
		unsigned char *raw;
		struct te_rec r;
		uint32_t id;

		off += 2;
		if (n > size - off)
			n = size - off;
		/* a copy of exactly n bytes: reads past it are caught */
		raw = malloc(n ? n : 1);
		CHECK(raw);
		memcpy(raw, data + off, n);
		off += n;
		memset(&r, 0, sizeof(r));
		if (te_raw_type(&ev, raw, n, &id) == 0 && te_decode(&ev, raw, n, &r, &err) == 0) {
			CHECK(id == ev.id);
			r.time = i / 2;
			r.pid = (uint32_t)i;
			CHECK(te_pairer_feed(&p, &r, &err) == 0);
		}
		free(raw);
	}
	te_pairer_finish(&p);
	for (i = 0; i < p.nrq; i++) {
		CHECK(p.rq[i].complete >= p.rq[i].issue);
		CHECK(p.rq[i].device < devs.n);
	}
	for (i = 0; i < p.nps; i++)
		CHECK(p.ps[i].kind == EQP_PS_FREQ || p.ps[i].kind == EQP_PS_IDLE);
	CHECK(p.npend == 0 && p.norph == 0);
	te_pairer_free(&p);
	return 0;
}
