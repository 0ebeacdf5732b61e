/*
 * cmrec.h - `eqprof record --target cortexm`: the frames isr/cortexm's
 * drain sends (firmware/portable/proto.h, TSAMPLE/TINFO/TSTATUS) into a
 * recording (docs/target-cortexm.md).
 *
 * The samples keep the target's fields (time in its ticks, rate in the
 * header); the recording gets the application's ELF as the one address
 * space of pid 1 (MAPS), the application's name and each exception
 * number's handler as thread names (COMM: `report --by thread`), the
 * stacked LR as a one-frame call chain where the ELF's call-frame
 * information says it is the return address (CHNS), and every loss as a
 * LOST chunk by cause: 0 the target's ring was full, 1 edges that merged
 * before the handler ran, 2 frames damaged or missing on the link.
 */
#ifndef CM_REC_H
#define CM_REC_H

#include <stdint.h>

#include "util/eq_error.h"

struct cm_rec_opts {
	const char *port;        /* unix:PATH, file:PATH, tty:PATH, ftdi:[SERIAL], PATH */
	const char *elf;         /* the application (for MAPS, handler names, LR rules) */
	const char *out;
	const char *command;     /* the command line, for the header */
	unsigned baud;           /* tty/ftdi */
	double duration;         /* s; 0 = until the target's final status or EOF */
	double quantum_j;        /* energy-driven: J per sample, 0 unknown */
	double idle_s;           /* file: stop after this long without new bytes */
	int quiet;
};

struct cm_rec_result {
	uint64_t samples, lost_ring, lost_merged, lost_link, bad_frames, chains;
	uint64_t spurious;
	int final_seen;
};

int cm_record(const struct cm_rec_opts *o, struct cm_rec_result *res, struct eq_error *err);

#endif
