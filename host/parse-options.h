/*
 * parse-options.h - one option table per command, one parser (perf's and
 * git's parse-options are the model).
 *
 * A command describes each option once, in a table of struct eq_option:
 * its names, where its value goes, how the value is checked, and its help.
 * eq_parse_options() then parses argv against the table the same way for
 * every command:
 *
 *   --name VALUE, --name=VALUE, -x VALUE, -xVALUE, -qv (flags bundled);
 *   a long name may be shortened to any unambiguous prefix (as getopt_long
 *   and git allow); "--" ends the options; "-" alone is an argument;
 *   arguments may come between options, or end them (EQ_PARSE_STOP_AT_ARG,
 *   for commands that run a COMMAND [ARGS]...).
 *
 * The same table writes `eqprof CMD --help` (the synopsis, then every
 * option with its help) and `eqprof CMD --list-opts` (what the bash
 * completion in host/eqprof-completion.bash reads).  An error is one line
 * naming the option and what is wrong, then one line pointing at --help,
 * as git does.
 *
 * Modes.  Some options switch a command into another analysis with options
 * of its own (report --attribute async, power --by proc, record --target
 * cortexm).  The table says so: the switch is an entry with EQ_OPT_MODE
 * set, selecting a mode bit; options that belong to some modes only list
 * them in .modes.  An option given in a mode that does not take it is an
 * error naming both ("--trace does not go with --by proc"), and
 * `CMD --by proc --help` lists that mode's options only.
 */
#ifndef EQ_PARSE_OPTIONS_H
#define EQ_PARSE_OPTIONS_H

#include <stdio.h>

#include "util/eq_error.h"

struct eq_option;

/* Checks and stores arg (NULL for an option without a value); -1 with err
 * set says what is wrong with it (the message names the option itself). */
typedef int eq_option_fn(const struct eq_option *opt, const char *arg, struct eq_error *err);

enum eq_option_type {
	EQ_OPTION_END,
	EQ_OPTION_GROUP,    /* a heading in --help (help: the heading's text) */
	EQ_OPTION_ARG,      /* a positional argument, described in --help only */
	EQ_OPTION_FLAG,     /* no value: *(int *)value = defval */
	EQ_OPTION_STRING,   /* *(const char **)value = the value */
	EQ_OPTION_CALLBACK, /* cb(opt, value) */
};

/* .flags */
#define EQ_OPT_NOARG   0x01  /* a callback that takes no value */
#define EQ_OPT_OPTARG  0x02  /* the value may be left out: attached (-t4k,
				--x=V), or the next word when takes_next says */
#define EQ_OPT_MODE    0x04  /* given, it selects mode defmode (see above) */
#define EQ_OPT_REPEAT  0x08  /* may be given several times ([--x V]...) */

/* .complete: how bash completes the value */
#define EQ_COMPLETE_FILE "@file"
#define EQ_COMPLETE_DIR  "@dir"

struct eq_option {
	enum eq_option_type type;
	int short_name;            /* 'o', or 0 */
	const char *long_name;     /* "output", or NULL */
	void *value;
	const char *argh;          /* the value's name in --help: "FILE", "T" */
	const char *help;          /* lines separated by '\n' */
	unsigned flags;
	eq_option_fn *cb;
	int defval;                /* EQ_OPTION_FLAG: the value stored */
	unsigned modes;            /* the modes that take it (bits; 0: every mode) */
	unsigned defmode;          /* EQ_OPT_MODE: the mode it selects */
	const char *alias;         /* another long name for it ("comms") */
	const char *complete;      /* the value's words ("table csv json"), or
				      EQ_COMPLETE_FILE/DIR, or NULL */
	/* EQ_OPT_OPTARG: 1 when the next word is the value, 0 when it is not,
	 * -1 with err when it can be neither (record's -t [HZ] COMMAND) */
	int (*takes_next)(const char *word, struct eq_error *err);
};

/* The default mode (a command without modes has only this one). */
#define EQ_MODE_MAIN 0x1u

struct eq_command {
	const char *name;          /* "report" (errors say "eqprof report: ...") */
	const char *usage;         /* synopsis lines, each "eqprof report ...\n" */
	const char *about;         /* a paragraph after the synopsis, or NULL */
	const struct eq_option *options;
	const char *footer;        /* text after the options, or NULL */
	unsigned flags;
	/* mode names for messages, by bit index ("--by proc"); [0] unused */
	const char *mode_names[8];
	unsigned mode;             /* the mode before any mode option (0: EQ_MODE_MAIN);
				      a command with subcommands sets it from the word */
};

/* .flags of struct eq_command */
#define EQ_PARSE_STOP_AT_ARG 0x1  /* the first argument ends the options */
#define EQ_PARSE_SUBCOMMANDS 0x2  /* the modes are subcommands ("board info") */

/* What eq_parse_options() returns when argv is not to be run. */
#define EQ_PARSE_HELP  (-1)      /* --help or --list-opts was printed: exit 0 */
#define EQ_PARSE_ERROR (-2)      /* the error was printed: exit 2 */
/* The exit status for such a return. */
#define EQ_PARSE_STATUS(n) ((n) == EQ_PARSE_HELP ? 0 : 2)

/*
 * Parses argv[1..argc) (argv[0] is the command's name) against cmd's
 * table.  The arguments that are not options are moved, in their order,
 * to argv[0..n); returns n, or EQ_PARSE_HELP / EQ_PARSE_ERROR after
 * printing.  *mode (if not NULL) gets the mode selected (EQ_MODE_MAIN
 * when no mode option was given).
 */
int eq_parse_options(const struct eq_command *cmd, int argc, char **argv, unsigned *mode);

/* The same, printing nothing: errors go to err (the option's message, no
 * "eqprof CMD:" prefix); --help returns EQ_PARSE_HELP, --list-opts -3. */
int eq_parse_options_err(const struct eq_command *cmd, int argc, char **argv, unsigned *mode,
			 struct eq_error *err);

/* `eqprof CMD --help` for mode (0: every mode) into out. */
void eq_usage(FILE *out, const struct eq_command *cmd, unsigned mode);

/* Prints "eqprof CMD: MESSAGE" and the line pointing at --help to stderr;
 * returns 2, the exit status of a usage error. */
int eq_usage_error(const struct eq_command *cmd, unsigned mode, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- building tables ------------------------------------------------------ */

#define OPT_END() { .type = EQ_OPTION_END }
#define OPT_GROUP(h) { .type = EQ_OPTION_GROUP, .help = (h) }
#define OPT_ARG(name, h) { .type = EQ_OPTION_ARG, .argh = (name), .help = (h) }
#define OPT_FLAG(s, l, v, h) \
	{ .type = EQ_OPTION_FLAG, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .defval = 1 }
#define OPT_SET_INT(s, l, v, d, h) \
	{ .type = EQ_OPTION_FLAG, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .defval = (d) }
#define OPT_STRING(s, l, v, a, h) \
	{ .type = EQ_OPTION_STRING, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h) }
#define OPT_CALLBACK(s, l, v, a, h, f) \
	{ .type = EQ_OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .cb = (f) }
#define OPT_CALLBACK_NOARG(s, l, v, h, f) \
	{ .type = EQ_OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .cb = (f), .flags = EQ_OPT_NOARG }

/* -q and -v, which every command takes: *v is set to 1 (and eq_verbosity,
 * cmd.h, to -1 or +1 per -v) */
#define OPT_QUIET(v, h) \
	{ .type = EQ_OPTION_CALLBACK, .short_name = 'q', .long_name = "quiet", .value = (v), \
	  .help = (h), .cb = eq_opt_quiet, .flags = EQ_OPT_NOARG }
#define OPT_VERBOSE(v, h) \
	{ .type = EQ_OPTION_CALLBACK, .short_name = 'v', .long_name = "verbose", .value = (v), \
	  .help = (h), .cb = eq_opt_verbose, .flags = EQ_OPT_NOARG | EQ_OPT_REPEAT }

/* Callbacks shared by many tables. */
eq_option_fn eq_opt_quiet;     /* int *: 1 */
eq_option_fn eq_opt_verbose;   /* int *: +1 */
eq_option_fn eq_opt_seconds;   /* double *: a time ("10s", "1500ms", "2.5"), above 0 */
eq_option_fn eq_opt_joules;    /* double *: an energy ("46uJ"), above 0 */

#endif
