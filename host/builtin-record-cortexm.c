/*
 * builtin-record-cortexm.c - eqprof record --target cortexm: samples from
 * a bare-metal Cortex-M application (isr/cortexm) into a recording.
 *
 *   eqprof record --target cortexm --port SPEC --elf APP.elf [-o OUT.eqp]
 *                 [--duration T] [--quantum E] [--baud N] [--idle T] [-q]
 *
 * `record` rather than a subcommand of its own: it is the same act as on
 * Linux (sample a running program, write an .eqp that report, annotate and
 * export read), only the target differs, as with perf record on another
 * machine's data.  The target runs on its own: nothing is started here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cmd.h"
#include "cortexm/cmrec.h"
#include "util/units.h"

/* o: the options builtin-record.c parsed (its table has the target's too) */
int cmd_record_cortexm(struct cm_rec_opts *op, int argc, char **argv)
{
	struct cm_rec_opts o = *op;
	struct cm_rec_result r;
	struct eq_error err = { "" };
	char cmd[4096];
	size_t n = 0;
	int i;

	for (i = 0; i < argc && n < sizeof(cmd) - 1; i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", i ? " " : "eqprof ", argv[i]);
	o.command = cmd;
	if (cm_record(&o, &r, &err) < 0) {
		eq_error_msg("%s", err.msg);
		return 1;
	}
	if (!o.quiet) {
		eq_note("%llu samples from %s into %s; lost %llu (ring full %llu, "
			"merged edges %llu, on the link %llu)%s%s",
			(unsigned long long)r.samples, o.port, o.out,
			(unsigned long long)(r.lost_ring + r.lost_merged + r.lost_link),
			(unsigned long long)r.lost_ring, (unsigned long long)r.lost_merged,
			(unsigned long long)r.lost_link,
			r.final_seen ? "" : "; the target sent no final status (counts up to its last one)",
			r.bad_frames ? "; some frames could not be decoded" : "");
	}
	return 0;
}
