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
#include "cortexm/cmrec.h"
#include "util/units.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: eqprof record --target cortexm --port SPEC --elf APP.elf [-o OUT.eqp]\n"
		"                     [--duration T] [--quantum E] [--baud N] [--idle T] [-q]\n\n"
		"  --port SPEC    where the target's drain sends its frames (docs/target-cortexm.md):\n"
		"                 tty:/dev/ttyUSB0 (its UART through a USB serial adapter),\n"
		"                 unix:PATH (a socket, e.g. QEMU's -chardev socket,server=on),\n"
		"                 file:PATH (a semihosting file or a capture; read as it grows)\n"
		"  --elf APP.elf  the application as linked: symbols, handler names, callers\n"
		"  --baud N       tty and ftdi ports (default 115200)\n"
		"  --duration T   stop after T (default: the target's final status, the link's\n"
		"                 end, or Ctrl-C)\n"
		"  --idle T       file: stop after T without new bytes (default 2s)\n"
		"  --quantum E    energy-driven: the board's energy per interrupt (eqprof board info)\n"
		"  -o OUT.eqp     output recording (default eqprof.eqp)\n"
		"  -q             no progress line and no summary\n");
}

static int parse(int argc, char **argv, struct cm_rec_opts *o, struct eq_error *err)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long long u;

		if (!strcmp(a, "--target") && v) {
			if (strcmp(v, "cortexm"))
				return eq_fail(err, "--target %s: the targets are cortexm (and, without "
					       "--target, this Linux machine)", v);
			i++;
		} else if (!strcmp(a, "--port") && v) {
			o->port = argv[++i];
		} else if (!strcmp(a, "--elf") && v) {
			o->elf = argv[++i];
		} else if (!strcmp(a, "-o") && v) {
			o->out = argv[++i];
		} else if (!strcmp(a, "--duration") && v) {
			if (eq_parse_quantity(argv[++i], "s", "--duration", &o->duration, err) < 0)
				return -1;
		} else if (!strcmp(a, "--idle") && v) {
			if (eq_parse_quantity(argv[++i], "s", "--idle", &o->idle_s, err) < 0)
				return -1;
		} else if (!strcmp(a, "--quantum") && v) {
			if (eq_parse_quantity(argv[++i], "J", "--quantum", &o->quantum_j, err) < 0)
				return -1;
		} else if (!strcmp(a, "--baud") && v) {
			if (eq_parse_uint(argv[++i], "--baud", 20000000, &u, err) < 0)
				return -1;
			o->baud = (unsigned)u;
		} else if (!strcmp(a, "-q")) {
			o->quiet = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else {
			return eq_fail(err, "%s: unknown option or missing value (eqprof record --target cortexm --help)", a);
		}
	}
	if (!o->port)
		return eq_fail(err, "--port is missing: where does the target's drain send its frames? (tty:/dev/ttyUSB0, unix:PATH, file:PATH)");
	return 0;
}

int cmd_record_cortexm(int argc, char **argv)
{
	struct cm_rec_opts o = { .out = "eqprof.eqp", .baud = 115200, .idle_s = 2 };
	struct cm_rec_result r;
	struct eq_error err = { "" };
	char cmd[4096];
	size_t n = 0;
	int i;

	if (parse(argc, argv, &o, &err) < 0) {
		fprintf(stderr, "eqprof record: %s\n", err.msg);
		return 2;
	}
	for (i = 0; i < argc && n < sizeof(cmd) - 1; i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", i ? " " : "eqprof ", argv[i]);
	o.command = cmd;
	if (cm_record(&o, &r, &err) < 0) {
		fprintf(stderr, "eqprof record: %s\n", err.msg);
		return 1;
	}
	if (!o.quiet) {
		fprintf(stderr, "eqprof record: %llu samples from %s into %s; lost %llu (ring full %llu, "
			"merged edges %llu, on the link %llu)%s%s\n",
			(unsigned long long)r.samples, o.port, o.out,
			(unsigned long long)(r.lost_ring + r.lost_merged + r.lost_link),
			(unsigned long long)r.lost_ring, (unsigned long long)r.lost_merged,
			(unsigned long long)r.lost_link,
			r.final_seen ? "" : "; the target sent no final status (counts up to its last one)",
			r.bad_frames ? "; some frames could not be decoded" : "");
	}
	return 0;
}
