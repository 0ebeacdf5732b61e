/*
 * report_common.h - what report and compare share: their options, loading a
 * recording into a profile (printing the reader's and symbolizer's warnings),
 * and writing the result atomically.
 */
#ifndef EQ_REPORT_COMMON_H
#define EQ_REPORT_COMMON_H

#include <stdio.h>

#include "file/eqp.h"
#include "parse-options.h"
#include "profile/profile.h"
#include "util/range.h"
#include "symbols/symbolize.h"
#include "profile/table.h"
#include "states/split.h"

#define EQ_REPORT_MAX_FILES 64
#define EQ_REPORT_MAX_NAMES 64

struct eq_loaded_profile;

struct eq_report_opts {
	const char *files[EQ_REPORT_MAX_FILES];
	int nfiles;
	int default_file;      /* files[0] was not named: EQ_DEFAULT_RECORDING */
	enum eq_by by;
	enum eq_format fmt;
	int exclude_idle;
	int no_build_id_check;
	const char *symfs;
	const char *out;       /* NULL or "-": standard output */
	int quiet;             /* -q: no progress line */
	int verbose;           /* -v: notes in full (a balanced board cross-check,
				  why samples have no symbol) */
	int children;          /* -1 auto (when the recording has call chains), 0, 1 */
	int inclusive;         /* report's inclusive view of one recording: for
				  one with call chains eq_report_load makes no
				  flat profile and leaves the checks to
				  eq_report_inclusive_checked */
	int call_graph;        /* --call-graph, -G: print the call tree under each row */
	int call_graph_callees;/* --call-graph=caller: what each row called (else
				  --call-graph=callee: who called it) */
	double percent_limit;  /* --percent-limit: leave out rows below this share (%) */
	enum eq_interval interval; /* --interval (EQ_IV_SAMPLING if not given) */
	int interval_given;
	int by_given;
	struct eq_keys keys;   /* --sort (keys.n == 0: not given) */
	int per_thread;        /* --per-thread */
	int per_row;           /* diff --per-row: each row at 95%, not family-wise */
	struct eq_range range; /* --from/--to: only the samples in this time range */
	const char *region;    /* --region NAME: from marker NAME to the next marker */
	/* --comm, --dso, --symbol: comma lists split in place in their buffers */
	struct eq_filter filter;
	const char *filter_names[3][EQ_REPORT_MAX_NAMES];
	unsigned char filter_hits[3][EQ_REPORT_MAX_NAMES];
	char filter_buf[3][4096];
	unsigned jobs;         /* -j/--jobs: threads (0: one; EQ_JOBS_ONLINE: the online CPUs) */
};

/* After every recording was loaded: a filter name that matched no sample is
 * an error naming what the recordings have instead (0 or -1). */
int eq_report_check_filter(const struct eq_report_opts *o,
			   struct eq_loaded_profile *lp, int n);

/*
 * Their options: each command's table (parse-options.h) lists the entries
 * below it takes, each storing into one struct eq_report_opts o (set up by
 * eq_report_opts_init); eq_report_args then takes the recordings named
 * (nfiles of them, or 1 to EQ_REPORT_MAX_FILES when nfiles is 0) and checks
 * the options together; 0, or 2 after a usage error.  The EQ_ROPT_ macros
 * make the table entries; more fields of struct eq_option (.modes) may
 * follow their arguments.
 */
void eq_report_opts_init(struct eq_report_opts *o);
/* Two sides of recordings, given as A.eqp B.eqp or A1... vs B1...: drops
 * the 'vs' from o->files and returns where the second side starts, or -1
 * after saying what is wrong in cmd's words: twice ('vs' twice), usage
 * (what to give) and more (the hint when more than two came without 'vs'). */
int eq_report_split_vs(struct eq_report_opts *o, const char *twice,
		       const char *usage, const char *more);
int eq_report_args(const struct eq_command *cmd, int nargs, char **args, int nfiles,
		   struct eq_report_opts *o);

eq_option_fn eq_ropt_by, eq_ropt_sort, eq_ropt_names, eq_ropt_percentage, eq_ropt_range,
	eq_ropt_percent_limit, eq_ropt_interval, eq_ropt_jobs;
eq_option_fn eq_opt_format;    /* enum eq_format *: table, csv or json */
/* A file given once or several times (--device-model): the paths in order. */
#define EQ_MAX_PATHS 16
struct eq_paths {
	const char *v[EQ_MAX_PATHS];
	size_t n;
};
eq_option_fn eq_opt_path;      /* struct eq_paths *: one more */

#define EQ_BY_WORDS "exe module proc line insn pid thread state freq cstate cpu mode"
#define EQ_SORT_WORDS "comm pid tid cpu dso sym srcline srcfile"

#define EQ_ROPT_BY(o, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "by", .value = (o), .argh = "G", .help = (h), \
	  .cb = eq_ropt_by, .complete = EQ_BY_WORDS, __VA_ARGS__ }
#define EQ_ROPT_SORT(o, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .short_name = 's', .long_name = "sort", .value = (o), \
	  .argh = "KEYS", .help = (h), .cb = eq_ropt_sort, .complete = EQ_SORT_WORDS, __VA_ARGS__ }
#define EQ_ROPT_FILTER(o, name, plural, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = (name), .alias = (plural), .value = (o), \
	  .argh = "NAMES", .help = (h), .cb = eq_ropt_names, __VA_ARGS__ }
#define EQ_ROPT_PERCENTAGE(o, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "percentage", .value = (o), .argh = "P", \
	  .help = (h), .cb = eq_ropt_percentage, .complete = "absolute relative", __VA_ARGS__ }
#define EQ_ROPT_RANGE(o, name, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = (name), .value = &(o)->range, .argh = "T", \
	  .help = (h), .cb = eq_ropt_range, __VA_ARGS__ }
#define EQ_ROPT_REGION(o, ...) \
	{ .type = EQ_OPTION_STRING, .long_name = "region", .value = &(o)->region, .argh = "NAME", \
	  .help = "only the samples from marker NAME to the next marker (a\n" \
		  "program marks with $EQPROF_MARKER_FD under eqprof record)", __VA_ARGS__ }
#define EQ_ROPT_INTERVAL(o, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "interval", .value = (o), .argh = "I", \
	  .help = (h), .cb = eq_ropt_interval, .complete = "sampling run-to-run", __VA_ARGS__ }
#define EQ_ROPT_JOBS(o, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .short_name = 'j', .long_name = "jobs", \
	  .value = &(o)->jobs, .argh = "N", .help = (h), .cb = eq_ropt_jobs, __VA_ARGS__ }
#define EQ_ROPT_PERCENT_LIMIT(o, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "percent-limit", .value = &(o)->percent_limit, \
	  .argh = "P", .help = (h), .cb = eq_ropt_percent_limit, __VA_ARGS__ }
#define EQ_OPT_FORMAT(v, h, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = "format", .value = (v), .argh = "F", \
	  .help = (h), .cb = eq_opt_format, .complete = "table csv json", __VA_ARGS__ }
#define EQ_OPT_OUTPUT(v, h, ...) \
	{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = (v), \
	  .argh = "OUT", .help = (h), .complete = EQ_COMPLETE_FILE, __VA_ARGS__ }
#define EQ_OPT_SYMFS(v, h, ...) \
	{ .type = EQ_OPTION_STRING, .long_name = "symfs", .value = (v), .argh = "DIR", \
	  .help = (h), .complete = EQ_COMPLETE_DIR, __VA_ARGS__ }

/* The rows compare and diff put side by side: the same keys, filters and
 * stretch on both sides. */
#define EQ_ROPT_TWO_SIDES(o)                                                                     \
	EQ_ROPT_SORT(o, "rows by sort keys instead (comm,pid,tid,cpu,dso,sym,...)"),           \
	EQ_ROPT_FILTER(o, "comm", "comms", "only samples in these threads or processes\n"     \
					   "(as in report)"),                                  \
	EQ_ROPT_FILTER(o, "dso", "dsos", "only samples in these modules"),                    \
	EQ_ROPT_FILTER(o, "symbol", "symbols", "only samples in these procedures"),           \
	EQ_ROPT_PERCENTAGE(o, "with filters, shares of all samples (absolute, default) or\n"  \
			      "of the samples kept (relative)"),                               \
	{ .type = EQ_OPTION_FLAG, .long_name = "per-thread", .value = &(o)->per_thread,         \
	  .defval = 1, .help = "a row per thread (--by thread; with --sort, tid first)" },      \
	EQ_ROPT_RANGE(o, "from", "only the samples after T seconds since each recording's\n"  \
				 "first sample"),                                              \
	EQ_ROPT_RANGE(o, "to", "only the samples up to T seconds since each recording's\n"    \
			       "first sample"),                                              \
	EQ_ROPT_REGION(o)

/* Where compare and diff find the binaries and write. */
#define EQ_ROPT_FILES_OUT(o)                                                                     \
	EQ_OPT_FORMAT(&(o)->fmt, "table (default), csv or json (schema in docs/guide.md)"),     \
	EQ_OPT_SYMFS(&(o)->symfs, "find the target's binaries under DIR (its sysroot)"),        \
	{ .type = EQ_OPTION_FLAG, .long_name = "no-build-id-check",                             \
	  .value = &(o)->no_build_id_check, .defval = 1,                                        \
	  .help = "use binaries even when their build-id differs" },                            \
	EQ_OPT_OUTPUT(&(o)->out, "write to OUT (atomically) instead of standard output")

struct eq_loaded_profile {
	struct eqp_file *file;
	struct eq_symbolizer *sym;
	struct eq_profile *profile;
	struct eq_split_store *split; /* --by exe,state...: what the rows point into */
	int ranged;                   /* built over --from/--to (or --region) only */
	struct eq_range range;        /* that range: --from/--to, or --region resolved in this file */
	int inclusive;                /* o->inclusive and call chains: no profile; the
				         checks to come (eq_report_inclusive_checked) */
};

/* Opens path and builds its profile at o->by; prints errors; 0 or -1. */
int eq_report_load(const char *path, const struct eq_report_opts *o,
		   struct eq_loaded_profile *lp);
void eq_report_unload(struct eq_loaded_profile *lp);
/* With lp->inclusive, after the stacks are made and before anything is
 * printed: the recording checked (every chunk not read yet: the first
 * damage in the file, as eqp_open() says it) and what is said of it and of
 * its symbols, as eq_report_load says them of a flat profile; 0, or -1
 * with the error printed. */
int eq_report_inclusive_checked(const struct eq_report_opts *o, struct eq_loaded_profile *lp);

/* Prints p (or, when print is given, calls it) into o->out atomically.
 * Returns the exit status (0 or 1). */
/* The heading of a recording without samples, a board log, for
 * eq_report_write(o, NULL, eq_report_print_board_log, lp): what it holds
 * ("# board log F: 500 board records (1.479 J in 1.597 s) and no samples;
 * lost 0"), where a profile's would say "0 samples ... = 0 J". */
void eq_report_print_board_log(FILE *out, const void *arg);

int eq_report_write(const struct eq_report_opts *o,
		    const struct eq_profile *p,
		    void (*print)(FILE *out, const void *arg), const void *arg);

/*
 * What the analyses of one recording beside report's profiles share
 * (power --by proc, report --attribute async): the options --format,
 * -o/--output and --symfs (the tables' EQ_OPT_FORMAT, EQ_OPT_OUTPUT and
 * EQ_OPT_SYMFS into the fields below), opening the recording with its
 * symbolizer (warnings printed), and writing the result atomically, never
 * over the recording.
 */
struct eq_one {
	enum eq_format fmt;
	const char *out;              /* NULL: standard output */
	struct eq_sym_options so;
	const char *file;
	struct eqp_file *f;
	struct eq_symbolizer *s;
};

void eq_one_init(struct eq_one *o);
/* Opens path and its symbolizer (line tables not read); 0, or -1 printed
 * as "eqprof CMD: ...". */
int eq_one_open(struct eq_one *o, const char *path);
/* print(fp, arg) into o->out atomically; the exit status (0 or 1). */
int eq_one_write(const struct eq_one *o,
		 void (*print)(FILE *out, const void *arg), const void *arg);
void eq_one_close(struct eq_one *o);

/*
 * A JSON object with one member added: first(out, first_arg) writes the
 * object, member(out, member_arg) the value of "key".  Returns 0, or -1
 * when there was no memory to splice the two (then {"key": value} alone,
 * still JSON, was written).
 */
int eq_json_add_member(FILE *out, void (*first)(FILE *out, const void *arg), const void *first_arg,
		       const char *key, void (*member)(FILE *out, const void *arg),
		       const void *member_arg);

#endif
