/*
 * power_by.h - `eqprof power --by proc` (builtin-power-by.c): its options,
 * which power's one table lists in the --by proc group, and the analysis.
 */
#ifndef EQ_POWER_BY_H
#define EQ_POWER_BY_H

#include "parse-options.h"
#include "regress/regress.h"
#include "report_common.h"

struct power_by_args {
	struct eq_regress_opts ro;
	struct eq_paths models;  /* --device-model */
	const char *symfs;
};

void power_by_init(struct power_by_args *by);
eq_option_fn power_by_opt_primes, power_by_opt_seed, power_by_opt_min_share;

/* power's table entries of the --by proc mode (POWER_BY is its bit) */
#define POWER_BY_OPTIONS(by)                                                                    \
	{ .type = EQ_OPTION_ARG, .argh = "FILE.eqp", .modes = POWER_BY,                          \
	  .help = "time-driven samples with the energy of intervals on their clock:\n"             \
		  "- the board's stream: eqprof sim's time.eqp, or\n"                               \
		  "  'eqprof merge TIME.eqp BOARD.eqp --edges EDGES.eqp' of a\n"                    \
		  "  record -t run while record -e -a took the board's interrupts;\n"              \
		  "- an energy source's readings: record -t --energy SOURCE\n"                      \
		  "  (RAPL, battery, hwmon; docs/energy-sources.md)" },                             \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "primes", .value = &(by)->ro, .argh = "A:B", \
	  .cb = power_by_opt_primes, .modes = POWER_BY,                                         \
	  .help = "interval lengths: random primes in [A, B] of the board's\n"                  \
		  "quanta or of the source's updates (7:61)" },                                \
	{ .type = EQ_OPTION_STRING, .long_name = "domain", .value = &(by)->ro.domain,          \
	  .argh = "NAME", .modes = POWER_BY,                                                    \
	  .help = "the energy source's domain to fit (its name, kind or source:\n"             \
		  "package-0, psys, dram, BAT0); default: the board's stream when\n"          \
		  "the recording has one, else psys, else package, else the first" },          \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "seed", .value = &(by)->ro, .argh = "N",     \
	  .cb = power_by_opt_seed, .modes = POWER_BY,                                           \
	  .help = "of the random interval lengths (1)" },                                       \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "min-share", .value = &(by)->ro, .argh = "P", \
	  .cb = power_by_opt_min_share, .modes = POWER_BY,                                      \
	  .help = "procedures with less of the samples are fitted as one\n"                    \
		  "[other] column (0.5%)" },                                                    \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "device-model", .value = &(by)->models,      \
	  .argh = "FILE", .cb = eq_opt_path, .flags = EQ_OPT_REPEAT, .modes = POWER_BY,         \
	  .complete = EQ_COMPLETE_FILE,                                                         \
	  .help = "recordings with device requests: each device state's power\n"              \
		  "is fitted too; FILE gives the tail times (else the recording's)" },          \
	{ .type = EQ_OPTION_STRING, .long_name = "symfs", .value = &(by)->symfs, .argh = "DIR", \
	  .modes = POWER_BY, .complete = EQ_COMPLETE_DIR,                                       \
	  .help = "look the recorded files up under DIR (a target's root)" }

/* The fit of file, printed in fmt (table, csv, json) to out (NULL:
 * standard output); the exit status. */
int cmd_power_by(const struct power_by_args *by, const char *file, enum eq_format fmt,
		 const char *out);

#endif
