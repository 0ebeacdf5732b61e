/*
 * builtin-report.c - eqprof report: the energy (or time) profile of a
 * recording by executable, module, procedure, line or instruction.
 *
 *   eqprof report FILE.eqp [--by exe|module|proc|line|insn] [--exclude-idle]
 *                 [--format table|csv|json] [--symfs DIR] [-o OUT]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "eqp.h"
#include "outfile.h"
#include "profile.h"
#include "report_common.h"
#include "table.h"

static const char usage_text[] =
	"usage: eqprof report FILE.eqp [--by exe|module|proc|line|insn] [--exclude-idle]\n"
	"                     [--format table|csv|json] [--symfs DIR] [-o OUT] [-q]\n"
	"\n"
	"  --by G            group samples by exe, module, proc (default), line or insn\n"
	"  --exclude-idle    leave idle samples out and renormalize the shares\n"
	"  --format F        table (default), csv or json (schema in docs/guide.md)\n"
	"  --symfs DIR       find the target's binaries under DIR (its sysroot)\n"
	"  --no-build-id-check  use binaries even when their build-id differs\n"
	"  -o OUT            write to OUT (atomically) instead of standard output\n"
	"  -q                no progress line (shown only on a terminal, for long runs)\n";

int cmd_report(int argc, char **argv)
{
	struct eq_report_opts o;
	struct eq_loaded_profile lp;
	int rc;

	rc = eq_report_parse_args("report", usage_text, argc, argv, 1, &o);
	if (rc != EQ_ARGS_OK)
		return rc == EQ_ARGS_HELP ? 0 : 2;
	if (eq_report_load("report", o.files[0], &o, &lp))
		return 1;
	rc = eq_report_write("report", &o, lp.profile, NULL, NULL);
	eq_report_unload(&lp);
	return rc;
}
