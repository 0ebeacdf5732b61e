/*
 * report_common.h - what report and compare share: their options, loading a
 * recording into a profile (printing the reader's and symbolizer's warnings),
 * and writing the result atomically.
 */
#ifndef EQ_REPORT_COMMON_H
#define EQ_REPORT_COMMON_H

#include <stdio.h>

#include "file/eqp.h"
#include "profile/profile.h"
#include "util/range.h"
#include "symbols/symbolize.h"
#include "profile/table.h"
#include "states/split.h"

/* What record writes and report reads when no file is named (perf.data's role). */
#define EQ_DEFAULT_RECORDING "eqprof.eqp"
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
};

/* After every recording was loaded: a filter name that matched no sample is
 * an error naming what the recordings have instead (0 or -1). */
int eq_report_check_filter(const char *cmd, const struct eq_report_opts *o,
			   struct eq_loaded_profile *lp, int n);

enum { EQ_ARGS_OK, EQ_ARGS_HELP, EQ_ARGS_BAD };

/* Parses argv (argv[0] = cmd) with nfiles positional recordings, or with
 * 1 to EQ_REPORT_MAX_FILES when nfiles is 0. */
int eq_report_parse_args(const char *cmd, const char *usage, int argc, char **argv,
			 int nfiles, struct eq_report_opts *o);

struct eq_loaded_profile {
	struct eqp_file *file;
	struct eq_symbolizer *sym;
	struct eq_profile *profile;
	struct eq_split_store *split; /* --by exe,state...: what the rows point into */
	int ranged;                   /* built over --from/--to (or --region) only */
	struct eq_range range;        /* that range: --from/--to, or --region resolved in this file */
};

/* Opens path and builds its profile at o->by; prints errors; 0 or -1. */
int eq_report_load(const char *cmd, const char *path, const struct eq_report_opts *o,
		   struct eq_loaded_profile *lp);
void eq_report_unload(struct eq_loaded_profile *lp);

/* Prints p (or, when print is given, calls it) into o->out atomically.
 * Returns the exit status (0 or 1). */
int eq_report_write(const char *cmd, const struct eq_report_opts *o,
		    const struct eq_profile *p,
		    void (*print)(FILE *out, const void *arg), const void *arg);

/*
 * What the analyses of one recording beside report's profiles share
 * (power --by proc, report --attribute async): the options --format,
 * -o/--output and --symfs, opening the recording with its symbolizer
 * (warnings printed), and writing the result atomically, never over the
 * recording.  Add EQ_ONE_LONGOPTS to the command's getopt_long table and
 * pass each option to eq_one_option() first.
 */
#define EQ_ONE_LONGOPTS \
	{ "format", required_argument, NULL, 'f' }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "symfs", required_argument, NULL, 'S' }

struct eq_one {
	enum eq_format fmt;
	const char *out;              /* NULL: standard output */
	struct eq_sym_options so;
	const char *file;
	struct eqp_file *f;
	struct eq_symbolizer *s;
};

void eq_one_init(struct eq_one *o);
/* 1: getopt's c was one of EQ_ONE_LONGOPTS (or -o) and is taken; 0: not
 * one of them; -1: a bad value, err says why. */
int eq_one_option(struct eq_one *o, int c, const char *arg, struct eq_error *err);
/* Opens path and its symbolizer (line tables not read); 0, or -1 printed
 * as "eqprof CMD: ...". */
int eq_one_open(const char *cmd, struct eq_one *o, const char *path);
/* print(fp, arg) into o->out atomically; the exit status (0 or 1). */
int eq_one_write(const char *cmd, const struct eq_one *o,
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
