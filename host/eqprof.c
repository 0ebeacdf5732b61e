/*
 * eqprof.c - the eqprof command: finds the subcommand and runs it.
 *
 * Subcommands are declared weak so that a build can leave one out (for
 * example `board` on a machine without libftdi1) and say so, rather than
 * fail to link.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cmd.h"

#pragma weak cmd_import
#pragma weak cmd_report
#pragma weak cmd_compare
#pragma weak cmd_power
#pragma weak cmd_export
#pragma weak cmd_sim
#pragma weak cmd_record
#pragma weak cmd_board
#pragma weak cmd_annotate
#pragma weak cmd_diff
#pragma weak cmd_stat
#pragma weak cmd_sources
#pragma weak cmd_merge
#pragma weak cmd_view

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "import",  cmd_import,  "turn a CSV of samples plus maps into a recording (.eqp)" },
	{ "report",  cmd_report,  "energy or time profile by exe, module, proc, line or insn" },
	{ "compare", cmd_compare, "time profile against energy profile of the same work" },
	{ "power",   cmd_power,   "power summary, power-vs-time trace, power histogram" },
	{ "export",  cmd_export,  "write pprof, callgrind, folded stacks, Chrome trace or CSV" },
	{ "sim",     cmd_sim,     "simulate a device, the board and both samplings" },
	{ "record",  cmd_record,  "run a command and record energy- or time-driven samples" },
	{ "board",   cmd_board,   "talk to the energy-counter board over USB" },
	{ "annotate", cmd_annotate, "energy per instruction and source line of one procedure" },
	{ "diff",    cmd_diff,    "did my change save energy? two runs (or sets of runs) row by row" },
	{ "stat",    cmd_stat,    "energy per domain of a command over repeated runs, minus the idle baseline" },
	{ "merge",   cmd_merge,   "a target's recording and the board's stream of the run as one, aligned" },
	{ "sources", cmd_sources, "the energy sources this machine offers (RAPL, battery, hwmon, board)" },
	{ "view",    cmd_view,    "one HTML page: drag over power against time, see that range's energy and code" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: eqprof COMMAND [ARGS]...\n\n"
		     "eqprof finds the code that spends the battery.\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s%s\n", commands[i].name, commands[i].help,
			commands[i].fn ? "" : " (not in this build)");
	fprintf(out, "\n'eqprof COMMAND --help' describes one command; docs/guide.md has the rest.\n"
		     "--list-cmds (and 'eqprof COMMAND --list-opts') are for shell completion\n"
		     "(host/eqprof-completion.bash).\n");
}

/* Built as eqprof-record (host/record/module.mk: the recorder alone, for
 * a target), the program is `eqprof record`: `eqprof-record -e -- CMD`,
 * and `eqprof-record record ...` too. */
static int as_recorder(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	return !strcmp(base ? base + 1 : argv0, "eqprof-record") && cmd_record;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc > 0 && as_recorder(argv[0]) && !(argc > 1 && !strcmp(argv[1], "record")))
		return cmd_record(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--list-cmds")) {
		for (i = 0; i < NCOMMANDS; i++)
			if (commands[i].fn)
				printf("%s\n", commands[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("eqprof %s\n", EQPROF_VERSION);
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		if (!commands[i].fn) {
			eq_error_msg("'%s' is not part of this build", argv[1]);
			return 2;
		}
		return commands[i].fn(argc - 1, argv + 1);
	}
	eq_error_msg("'%s' is not an eqprof command; 'eqprof --help' lists them", argv[1]);
	return 2;
}
