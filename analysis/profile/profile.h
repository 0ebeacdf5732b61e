/*
 * profile.h - energy or time profiles: samples grouped by executable,
 * module, procedure, source line or instruction, with shares, energies or
 * times and 95% confidence intervals.
 *
 * An energy-driven recording gives an energy profile (each sample is one
 * quantum of energy, quantum_j joules); a time-driven recording gives a time
 * profile (each sample stands for 1 / nominal_hz seconds).  The share of a
 * row is samples / total.  Its 95% interval answers one of two questions
 * (stats.h): the sampling interval (this run's share: the variance of
 * systematic samples, from the lag-1 correlation of the time-ordered
 * samples) or the run-to-run interval (another run's: batch means over
 * blocks of consecutive samples, or the spread over several recordings).
 * eq_profile_build computes both design effects; eq_profile_set_interval
 * picks the one ci95_low/ci95_high show.
 *
 * Rows are ordered by samples, most first; ties by name then module, so the
 * output is deterministic.
 */
#ifndef EQ_PROFILE_H
#define EQ_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "util/range.h"
#include "profile/stats.h"
#include "symbols/symbolize.h"

struct eq_intern;

enum eq_by {
	EQ_BY_EXE,
	EQ_BY_MODULE,
	EQ_BY_PROC,
	EQ_BY_LINE,
	EQ_BY_INSN,
	EQ_BY_PID,      /* one row per process: "PID:NAME" */
	EQ_BY_THREAD,   /* one row per thread: "TID:NAME", its own name if it gave
			   itself one, else its process's */
};

/* "exe", "module", "proc", "line", "insn", "pid", "thread" -> *by; else an
 * error naming them. */
int eq_by_parse(const char *text, enum eq_by *by, struct eq_error *err);
const char *eq_by_name(enum eq_by by);

/*
 * Groupings split by power state, CPU and mode (states/split.h builds
 * their profiles): `--by state`, `--by exe,state`, `--by proc,freq,mode`.
 * Such a `by` is composite: EQ_BY_SPLIT | a granularity | split bits.
 */
#define EQ_BY_SPLIT      0x100     /* an enum eq_by value with this bit is composite */
#define EQ_BY_NONE       0x7       /* composite without a granularity: rows are states */
#define EQ_SPLIT_STATE   0x01      /* frequency and idle state: "206MHz C0" */
#define EQ_SPLIT_FREQ    0x02      /* "206MHz" */
#define EQ_SPLIT_CSTATE  0x04      /* "C0", "C1" */
#define EQ_SPLIT_CPU     0x08      /* "cpu0" */
#define EQ_SPLIT_MODE    0x10      /* "user", "kernel", "idle" */

/* The granularity of a composite by (EQ_BY_NONE: none) and its split bits. */
#define EQ_BY_PRIMARY(by) ((unsigned)(by) & 0xff)
#define EQ_BY_SPLITS(by)  (((unsigned)(by) >> 12) & 0xff)
#define EQ_BY_MAKE(primary, splits) \
	((enum eq_by)(EQ_BY_SPLIT | (unsigned)(primary) | (unsigned)(splits) << 12))

/* "exe,state", "state", "proc,cpu,mode"... -> *by (composite or plain);
 * an error names what is allowed. */
int eq_by_parse_split(const char *text, enum eq_by *by, struct eq_error *err);
/* "exe,state" for a composite by (a static string). */
const char *eq_split_by_name(enum eq_by by);

/*
 * Sort keys (report --sort comm,dso,sym, perf's habit): a row per distinct
 * combination of the keys' values, a column per key.
 *   comm     the thread's name (its process's unless it named itself)
 *   pid      the process: "PID:NAME"
 *   tid      the thread: "TID:NAME"
 *   cpu      the CPU the sample was taken on
 *   dso      the module (basename; the path in JSON's module)
 *   sym      the procedure ("[unknown]" per module when no symbol covers it)
 *   srcline  "file:line" (the procedure when the pc has no line)
 *   srcfile  the source file (the module when the pc has no line)
 */
enum eq_key {
	EQ_KEY_COMM,
	EQ_KEY_PID,
	EQ_KEY_TID,
	EQ_KEY_CPU,
	EQ_KEY_DSO,
	EQ_KEY_SYM,
	EQ_KEY_SRCLINE,
	EQ_KEY_SRCFILE,
};
#define EQ_KEYS_MAX 8

struct eq_keys {
	unsigned n;
	enum eq_key k[EQ_KEYS_MAX];
};

/* "comm,dso,sym" -> *keys (each key once, at most EQ_KEYS_MAX); else an
 * error naming the bad key and the keys that exist. */
int eq_keys_parse(const char *text, struct eq_keys *keys, struct eq_error *err);
const char *eq_key_name(enum eq_key k);
/* 1 when the keys need source lines (srcline, srcfile). */
int eq_keys_need_lines(const struct eq_keys *keys);

/*
 * Sample filters (report --comm, --dso, --symbol: perf's --comms, --dsos,
 * --symbols): a sample is kept when every list given has a name that
 * matches it (names are exact or shell patterns, fnmatch):
 *   comm    the thread's name or its process's
 *   dso     the module's basename or path
 *   sym     the procedure's name
 * What the others are of: relative = 0 (perf's "absolute", the default):
 * shares stay shares of all samples, the left-out samples are counted in
 * filtered_samples; relative = 1: shares of the kept samples only.
 */
struct eq_filter {
	const char *const *comm; size_t ncomm;
	const char *const *dso; size_t ndso;
	const char *const *sym; size_t nsym;
	int relative;
	/* optional, filled in by eq_profile_build_opts: 1 for each name above
	 * that matched some sample (whatever the other lists said) */
	unsigned char *hit_comm, *hit_dso, *hit_sym;
};

/* 1 when f selects anything (some list given). */
int eq_filter_active(const struct eq_filter *f);
/* 1 when the sample at loc, in a thread named thread of a process named
 * loc->exe, passes f (thread may be NULL when f has no comm list). */
int eq_filter_match(const struct eq_filter *f, const struct eq_loc *loc, const char *thread);

struct eq_row {
	const char *name;     /* exe: process name; module: module path;
				 proc: symbol or "[unknown]"; line: "file:line"
				 (or the proc name when the pc has no line);
				 insn: "proc+0xoff" or "[unknown] module+0xoff";
				 pid: "PID:NAME"; thread: "TID:NAME" */
	const char *module;   /* module basename (exe rows: the exe name again;
				 pid rows: the process name; thread rows:
				 "PID:NAME" of the process) */
	uint32_t pid, tid;    /* pid and thread rows (tid: thread rows only) */
	const struct eq_loc *loc; /* a sample's location in this row (proc, file,
				     line, module_off of line and insn rows) */
	uint64_t samples;
	double share;         /* samples / total_samples, 0..1 */
	double ci95_low;      /* 95% interval of share: the profile's interval */
	double ci95_high;
	double deff_sampling; /* variance of share over the binomial p(1-p)/total:
				 this run's share (systematic sampling) */
	double deff_run;      /* ... against another run (batch means) */
	unsigned df_run;      /* degrees of freedom of deff_run (batches - 1) */
	double amount;        /* energy in J (energy mode) or time in s (time mode);
				 NaN when the quantum / rate is unknown */
	const char *fields[EQ_KEYS_MAX]; /* with sort keys: each key's value, in
				 the order of eq_profile.keys; name is them joined */
};

/* Samples in a module that no symbol covers, and why (eq_sym_module_note). */
struct eq_unresolved {
	const char *module;   /* path, "[unknown]" (no mapping), "[kernel.kallsyms]" */
	const char *why;      /* NULL if not known */
	uint64_t samples;
};

struct eq_profile {
	enum eq_by by;
	enum eqp_mode mode;
	double quantum_j;     /* energy mode: J per sample (0 = unknown) */
	double period_s;      /* time mode: s per sample (0 = unknown) */
	int exclude_idle;
	uint64_t total_samples; /* samples the shares are of (idle removed if asked) */
	uint64_t idle_samples;  /* idle samples in the file */
	uint64_t lost_samples;  /* drops the recording reports (eqp_lost_total) */
	uint64_t lost_marks;    /* samples flagged EQ_F_LOST: losses happened just
				   before each (eq_profile_build only) */
	struct eqp_skipped skipped; /* what the reader could not use (eq_profile_build only) */
	const char *note;     /* the recording's "note" header line (record: why
				 kernel samples were excluded), or NULL */
	size_t nrows;
	struct eq_row *rows;
	/* eq_profile_build only, and not by pid or thread: samples whose pc no
	 * symbol covers, per module, most first (idle excluded if asked) */
	uint64_t unresolved_samples;
	size_t nunresolved;
	struct eq_unresolved *unresolved;
	enum eq_interval interval; /* what ci95_low/high of the rows are */
	int ordered;          /* 1: built from the time-ordered samples (both
				 intervals estimated); 0: eq_agg_* (binomial) */
	unsigned batches;     /* run-to-run: batches of the batch means, or
				 recordings pooled; 0 when too few samples */
	double batch_lag1;    /* pooled lag-1 correlation of the batch means */
	double batch_s;       /* seconds per batch (0 = unknown) */
	unsigned recordings;  /* > 1: pooled from that many recordings */
	double pooled_amount; /* pooled: the recordings' energy or time added up,
				 known when each has its quantum or rate even
				 though they differ (0 = unknown) */
	double interval_cv2;  /* time mode: squared coefficient of variation of
				 the intervals between samples (timer jitter) */
	struct eq_keys keys;  /* sort keys (keys.n == 0: rows by `by`) */
	int filtered;         /* a sample filter was applied */
	int filter_relative;  /* ... and the shares are of the kept samples only */
	uint64_t filtered_samples; /* samples the filter left out (counted in
				 total_samples unless filter_relative) */
	int ranged;           /* built over a --from/--to range: */
	double range_from_s, range_to_s; /* its ends (range.h edges; +-inf open) */
	const char *range_name; /* the --region NAME it is, or NULL (--from/--to) */
	int verbose;          /* printing: notes in full (-v), not one line */
	struct eq_intern *strings_; /* private: backing store of row names */
};

#define EQ_PROFILE_EXCLUDE_IDLE 0x1

/*
 * Walks every sample of f once, looks each up in s and groups them.  Memory
 * depends on the number of distinct pcs, not on the number of samples.
 */
struct eq_profile *eq_profile_build(const struct eqp_file *f,
				    struct eq_symbolizer *s, enum eq_by by,
				    unsigned flags, struct eq_error *err);

/* The same, calling progress(done, total, arg) after every sample chunk
 * (progress decides itself how often to show anything). */
typedef void eq_progress_fn(uint64_t done, uint64_t total, void *arg);
struct eq_profile *eq_profile_build_progress(const struct eqp_file *f,
					     struct eq_symbolizer *s, enum eq_by by,
					     unsigned flags, eq_progress_fn *progress,
					     void *arg, struct eq_error *err);
void eq_profile_free(struct eq_profile *p);

/* Everything eq_profile_build does, and: rows by sort keys (keys NULL or
 * keys->n == 0: by `by`), samples filtered by filter (NULL: none). */
struct eq_profile_opts {
	unsigned flags;                 /* EQ_PROFILE_EXCLUDE_IDLE */
	const struct eq_keys *keys;
	const struct eq_filter *filter;
	eq_progress_fn *progress;
	void *progress_arg;
	/* --from/--to (range.h): only the samples in the range, walked in time
	 * order (what the viewer's sums of time buckets reproduce); NULL or
	 * no end given: every sample, in file order */
	const struct eq_range *range;
	/* threads for the samples: 0 or 1, one; EQ_JOBS_ONLINE, the online
	 * CPUs, fewer for a recording of few samples (EQ_SPLIT_MIN_SAMPLES
	 * each at least); N, up to N.  The profile is the same bytes whatever the number: rows by
	 * pc (no --sort, filter, range, --exclude-idle; not by pid or
	 * thread) split by sample chunk, the rest on one thread. */
	unsigned jobs;
};
#define EQ_SPLIT_MIN_SAMPLES (1u << 20)
#define EQ_SPLIT_MAX_JOBS 64
#define EQ_JOBS_ONLINE (~0u)
struct eq_profile *eq_profile_build_opts(const struct eqp_file *f, struct eq_symbolizer *s,
					 enum eq_by by, const struct eq_profile_opts *o,
					 struct eq_error *err);

/* Whether the profile uses AVX2 where the CPU has it (the default; the
 * environment's EQPROF_SIMD=0 turns it off): its count loop takes plain
 * samples four at a time, and its intervals read four rows' batch counts
 * at a time.  The same profile either way.  0, or -1 when asked for on a
 * CPU without AVX2 (then unchanged).  For tests. */
int eq_profile_use_simd(int on);

/* Whether the profile counts the samples that need nothing special in its
 * fast loops (1, the default) or every one of them one at a time as the
 * others (0): the same profile either way.  For tests. */
void eq_profile_fast_loops(int on);

/* The most cells the batch counts' table may have (a byte a row and
 * block; beyond, they go to the log alone): cells, 0 for no table, or
 * EQ_BATCH_TABLE_AUTO (the default: 8 a sample, and a million more).  The
 * same profile either way.  For tests. */
#define EQ_BATCH_TABLE_AUTO SIZE_MAX
void eq_profile_batch_table(size_t cells);

/* Sets every row's ci95_low/high to the interval iv (Wilson score interval
 * at the effective sample size total / deff, z or Student's t). */
void eq_profile_set_interval(struct eq_profile *p, enum eq_interval iv);

/*
 * Several recordings of the same work as one profile: rows joined by name
 * and module, samples summed, share = pooled samples / pooled total, and
 * the run-to-run design effect from the spread of the recordings' shares
 * (each recording one batch: nprof - 1 degrees of freedom); the sampling
 * one from the recordings' sampling variances.  The profiles must have the
 * same mode, granularity and idle handling, and outlive the pooled profile
 * (its rows' names and locations are theirs).
 */
struct eq_profile *eq_profile_pool(struct eq_profile *const *profs, size_t nprof,
				   struct eq_error *err);

/* The row with this name and module (module NULL: any), or NULL. */
const struct eq_row *eq_profile_find(const struct eq_profile *p,
				     const char *name, const char *module);

/*
 * Lower-level grouping for other analyses (power per procedure, exports):
 * add located samples one at a time, then finish into a profile.
 */
struct eq_agg;
struct eq_agg *eq_agg_new(enum eq_by by, unsigned flags, struct eq_error *err);
/* Adds weight samples at loc (loc from eq_sym_lookup, so it stays valid). */
int eq_agg_add(struct eq_agg *a, const struct eq_loc *loc, uint64_t weight,
	       struct eq_error *err);
/*
 * Samples one at a time in their time order (a simulator, a test): call
 * eq_agg_order first with how many samples will come, then
 * eq_agg_add_sample for each; eq_agg_finish then estimates both intervals
 * exactly as eq_profile_build does.  (Profiles made with eq_agg_add have no
 * order: their intervals are binomial.)
 */
int eq_agg_order(struct eq_agg *a, uint64_t nsamples, double clock_hz, struct eq_error *err);
int eq_agg_add_sample(struct eq_agg *a, const struct eq_loc *loc, uint64_t time,
		      struct eq_error *err);
/* Builds the profile (consumes a); mode/quantum/period describe a sample. */
struct eq_profile *eq_agg_finish(struct eq_agg *a, enum eqp_mode mode,
				 double quantum_j, double period_s,
				 uint64_t lost_samples, struct eq_error *err);
void eq_agg_free(struct eq_agg *a);

/*
 * The rows a location falls in, without counting anything (the viewer's
 * per-bucket counts, analysis/view): the index of loc's row at the
 * aggregator's granularity, created on first sight and named exactly as
 * profiles name it; -1 when out of memory.  Indices and names stay valid
 * while a lives.
 */
long eq_agg_row(struct eq_agg *a, const struct eq_loc *loc);
size_t eq_agg_nrows(const struct eq_agg *a);
void eq_agg_row_name(const struct eq_agg *a, size_t i, const char **name, const char **module);

/* The time of the recording's first sample (the earliest), the origin of
 * --from/--to; 0 when it has none. */
uint64_t eq_samples_t0(const struct eqp_file *f);

/* Seconds per sample of a time-driven recording: 1 / nominal_hz, else the
 * mean interval between the first and last sample; 0 if unknowable. */
double eq_profile_period_s(const struct eqp_file *f);

#endif
