/*
 * proto_fuzz.c - libFuzzer target for the board protocol receiver: any
 * byte stream through fw_deframer_push() must neither crash nor read out
 * of bounds, and every message it accepts must re-encode to a frame that
 * decodes to the same message.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static void check_reencode(const struct fw_msg *m)
{
	uint8_t frame[FW_FRAME_WIRE_MAX];
	struct fw_deframer d;
	struct fw_msg back;
	size_t n = fw_frame_encode(m, frame, sizeof(frame)), i;
	int r = 0;

	if (n == 0)
		abort();
	fw_deframer_init(&d);
	for (i = 0; i < n; i++)
		r = fw_deframer_push(&d, frame[i], &back);
	if (r != 1 || back.type != m->type || back.tag != m->tag)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fw_deframer d;
	struct fw_msg m;
	size_t i;

	fw_deframer_init(&d);
	for (i = 0; i < size; i++) {
		int r = fw_deframer_push(&d, data[i], &m);

		if (r == 1)
			check_reencode(&m);
		else if (r < 0 && fw_err_name(r)[0] == 0)
			abort();
	}
	return 0;
}
