/*
 * power.h - power from energy-driven samples: intervals, summaries, traces,
 * histograms and regions (seed 001 section 6.1; docs/power.md).
 *
 * Between two consecutive energy-driven samples the device consumed exactly
 * one quantum E_q, so the average power over that interval is E_q / dt.
 * Everything here is built on one stream of such intervals, read in time
 * order from a recording's samples (energy-driven files) or from its board
 * stream (the board time-stamps every quantum it counts, so even a
 * time-driven recording has power when the board was attached).
 *
 * Interval i runs from sample i-1 to sample i and belongs to sample i: the
 * idle flag of the sample that ends an interval is the interval's, as in the
 * seed's histograms ("for y% of the samples, the power during the preceding
 * inter-sample interval was x W").
 */
#ifndef EQ_POWER_H
#define EQ_POWER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "util/range.h"

/* Where the intervals come from. */
enum power_basis {
	POWER_BASIS_AUTO = 0,  /* samples for energy-driven files, else the board */
	POWER_BASIS_SAMPLES,   /* energy-driven samples, each worth quantum_j */
	POWER_BASIS_BOARD,     /* board records: pulses * E_min each */
	POWER_BASIS_NONE,      /* no power in this recording (time-driven, no board) */
	POWER_BASIS_SOURCE,    /* an energy source read alongside time-driven samples
				  (record --energy): its first domain, between the
				  readings at which its value changed */
};

/* One inter-sample interval. */
struct power_iv {
	double t;        /* end, seconds since the first sample */
	double dt;       /* length in seconds, > 0 */
	double energy_j; /* energy consumed in it (several quanta after a loss) */
	uint32_t quanta; /* quanta it spans: 1, or more when samples were lost */
	uint8_t idle;    /* the sample ending it found the CPU idle */
	uint8_t idle_known; /* 0 for board intervals: the board cannot see idle */
};

/*
 * The input of the interval stream, independent of the file so benchmarks
 * and tests can feed arrays.  power_input_from_file() fills it from a
 * recording; power_input_free() releases what it allocated.
 */
struct power_input {
	const char *name;          /* shown in titles and tables */
	enum eqp_mode mode;
	enum power_basis basis;    /* resolved: SAMPLES, BOARD or NONE */
	const char *why_none;      /* BASIS_NONE: what the user should know */
	/* samples, in file order (chunks); sorted[] when they were not in time order */
	size_t nchunks;
	const struct eq_sample **chunks;
	size_t *counts;
	const struct eq_sample **sorted; /* NULL when the file order is time order */
	int unordered;             /* 1: order not established yet (power_input_order()) */
	uint64_t nsamples;
	double clock_hz;           /* target ticks per second */
	double quantum_j;          /* energy per sample (SAMPLES basis) */
	uint64_t lost_recorded;    /* drops the recorder counted (LOST chunks) */
	struct eqp_skipped skipped; /* what the file reader could not use */
	/* board stream (BOARD basis) */
	struct eqp_board_rec *board;
	size_t nboard;
	double board_clock_hz;
	double e_min_j;
	double vb_nominal;         /* 0: pulses are not scaled by the battery voltage */
	double dead_time_s;        /* 0: no dead-time correction of board records */
	/* energy source (SOURCE basis): readings of its first domain where the
	 * value changed, time in s on the target clock, cumulative J */
	double *src_t, *src_e;
	size_t nsrc;
	/* markers, target clock */
	size_t nmarkers;
	const struct eqp_marker **markers;
};

int power_input_from_file(struct power_input *in, const struct eqp_file *f,
			  enum power_basis want, struct eq_error *err);
/* The same, leaving the samples in file order (unordered = 1, no sort and no
 * 8 bytes per sample): for analyses that need no time order (counts per
 * location).  power_input_order() before walking intervals or samples. */
int power_input_from_file_unordered(struct power_input *in, const struct eqp_file *f,
				    enum power_basis want, struct eq_error *err);
/* Puts the samples in time order (a sorted index when the file order is
 * not); nothing when already done. */
int power_input_order(struct power_input *in, struct eq_error *err);
/* For arrays: one chunk of n samples (energy-driven, quantum_j each). */
int power_input_from_samples(struct power_input *in, const char *name,
			     const struct eq_sample *s, size_t n,
			     double clock_hz, double quantum_j, struct eq_error *err);
void power_input_free(struct power_input *in);

/* The energy of one board record: pulses x E_min, scaled by the battery
 * voltage over vb_nominal (0: not scaled) and corrected for the front end's
 * dead time per pulse (0: none); dt_s is the time since the previous record
 * (0 when unknown: no dead-time correction).  Used for recordings and for
 * the board as a live energy source (host/energy/board.c). */
double power_board_record_j(const struct eqp_board_rec *r, double e_min_j, double vb_nominal,
			    double dead_time_s, double dt_s);

/* Walks the intervals in time order. */
struct power_iter {
	const struct power_input *in;
	size_t chunk, idx;         /* next sample */
	uint64_t pos;              /* next position in sorted[] or board[] */
	int have_prev;
	uint64_t t_first, t_prev;
	uint32_t seq_prev;
	uint16_t cpu_prev;
	double board_mean_j;       /* energy of a quantum the board dropped */
	/* Board basis: where the board reset (seq restarts: a new segment of
	 * the log), no interval spans the restart. */
	uint64_t board_gaps;       /* records missing inside segments (seq gaps) */
	double restart_j;          /* quanta that began a later segment */
	double restart_gap_s;      /* time between segments (the board was not counting) */
};

void power_iter_init(struct power_iter *it, const struct power_input *in);
/* 1 and *iv filled, or 0 at the end. */
int power_iter_next(struct power_iter *it, struct power_iv *iv);
/* The samples themselves in time order (exports), whatever the basis. */
const struct eq_sample *power_iter_sample(struct power_iter *it);
/* End of the last interval, seconds since the first sample (board basis:
 * since the first board record). */
double power_input_span(const struct power_input *in);
/* Seconds since the first sample of a target-clock time (markers). */
double power_rel_time(const struct power_input *in, uint64_t t);

/* ---- summary (seed 001 Table 4) ---------------------------------------- */

struct power_summary {
	const char *name;
	enum eqp_mode mode;
	enum power_basis basis;
	const char *why_none;      /* basis NONE: why there is no power */
	uint64_t samples;          /* samples in the file */
	uint64_t idle_samples;     /* with EQ_F_IDLE */
	uint64_t lost;             /* lost samples (recorder count or seq gaps, the larger) */
	double duration_s;         /* first to last sample (or board record) */
	uint64_t intervals;        /* intervals walked */
	uint64_t quanta;           /* quanta in those intervals */
	double freq_hz;            /* average sampling frequency: samples per second */
	double quantum_j;          /* mean energy per quantum, 0 if no power */
	double power_w;            /* average power over the duration; NAN if none */
	double energy_j;           /* total energy; NAN if none */
	double idle_pct;           /* percentage of samples in idle */
	struct eqp_skipped skipped; /* what the file reader could not use */
};

int power_summarize(const struct power_input *in, struct power_summary *s,
		    struct eq_error *err);

enum power_format { POWER_FMT_TABLE, POWER_FMT_CSV, POWER_FMT_JSON };
void power_summary_print(FILE *out, const struct power_summary *s, size_t n,
			 enum power_format fmt);
/*
 * The same, for n recordings of repeated runs of the same work: after the
 * rows, the mean over the runs of duration, average power and energy, their
 * standard deviation and the half-width of the 95% interval of the mean
 * (Student's t, n - 1 degrees of freedom); recordings without power are
 * left out of the power and energy statistics.
 */
struct power_runs_stat {
	unsigned n;           /* values (recordings with the quantity) */
	double mean, sd, ci95; /* sd and ci95 NaN below 2 values */
};
void power_runs_stat(const struct power_summary *s, size_t n, int which,
		     struct power_runs_stat *out);
enum { POWER_RUNS_DURATION, POWER_RUNS_POWER, POWER_RUNS_ENERGY, POWER_RUNS_N };
void power_summary_print_runs(FILE *out, const struct power_summary *s, size_t n,
			      enum power_format fmt);

/*
 * power --runs, per procedure (power_procs.c): each procedure's value in
 * every run and its mean, SD and 95% interval of the mean over the runs.
 * The value is the joules of the energy source's first domain when every
 * recording was made with one (record -t --energy; eprofile.h's estimate),
 * else the samples' energy when every recording is energy-driven with a
 * known quantum, else the samples' time in s.  A procedure missing from a
 * run counts 0 there.
 */
enum power_procs_kind { POWER_PROCS_SOURCE, POWER_PROCS_SAMPLES_J, POWER_PROCS_TIME };
struct power_proc_row {
	char *name, *module;
	double *v;              /* per run */
	double mean, sd, ci95;  /* sd, ci95 NaN with one run */
};
struct power_procs {
	enum power_procs_kind kind;
	const char *unit;       /* "J" or "s" */
	char source[256];       /* where the values come from, for the heading */
	size_t nruns, nrows;
	const char *const *names; /* the runs' names */
	struct power_proc_row *rows; /* by mean, most first */
	double total_mean;
	size_t cap_;
	char domain_[64];
};
struct power_procs *power_procs_build(const struct eqp_file *const *f, const char *const *names,
				      size_t n, struct eq_error *err);
void power_procs_free(struct power_procs *pp);
/* Table: the rows below 0.1% of the mean total summed in a line; JSON: an
 * object {"unit", "source", "runs": [...], "rows": [{"name", "module",
 * "values", "mean", "sd", "ci95"}]}.  CSV is not written (the summary's
 * CSV is one table). */
void power_procs_print(FILE *out, const struct power_procs *pp, enum power_format fmt);

/* ---- histogram (Figures 9, 10, 11) ------------------------------------- */

struct power_hist {
	double bucket_w;           /* width of a bucket; bucket k is [k*w, (k+1)*w) */
	unsigned per_decade;       /* > 0: log buckets instead (power_log_bin), bucket_w unused */
	size_t nbuckets;           /* used so far */
	size_t cap;
	uint64_t *all, *idle;      /* intervals per bucket; idle ones also in idle[] */
	uint64_t total, total_idle;
	int idle_known;
};

int power_hist_init(struct power_hist *h, double bucket_w, struct eq_error *err);
/* Log buckets: per_decade of them per decade (1 to 128, dividing 128). */
int power_hist_init_log(struct power_hist *h, unsigned per_decade, struct eq_error *err);
/* Bucket k's lower and upper edges in W (either kind). */
double power_hist_lo(const struct power_hist *h, size_t k);
double power_hist_hi(const struct power_hist *h, size_t k);
/* Only the intervals ending in (t0, t1] (edges as range.h makes them). */
int power_hist_build_range(struct power_hist *h, const struct power_input *in,
			   double t0, double t1, struct eq_error *err);
int power_hist_add(struct power_hist *h, const struct power_iv *iv,
		   struct eq_error *err);
int power_hist_build(struct power_hist *h, const struct power_input *in,
		     struct eq_error *err);
void power_hist_free(struct power_hist *h);
/* Percentage of all intervals in bucket k (all, idle or busy ones). */
double power_hist_pct(const struct power_hist *h, size_t k, int which);
#define POWER_HIST_ALL  0
#define POWER_HIST_IDLE 1
#define POWER_HIST_BUSY 2
/* The bucket holding the most intervals of a kind. */
size_t power_hist_peak(const struct power_hist *h, int which);

/* CSV: bucket_lo_w,bucket_hi_w,then pct per recording (and idle/busy split). */
int power_hist_write_csv(FILE *out, const struct power_hist *h,
			 const char *const *names, size_t n, int split_idle);

/* ---- trace (Figures 6, 7) ---------------------------------------------- */

struct power_trace_opts {
	unsigned window;           /* moving window in intervals, >= 1 */
	double t0, t1;             /* close-up, seconds; t1 <= t0 means everything */
	size_t max_points;         /* 0: every interval; else decimate to min/max per column */
};

/* One point of a trace. */
struct power_point {
	double t, power_w;
	int idle;                  /* -1 unknown */
};

typedef int (*power_point_fn)(void *ctx, const struct power_point *p);

/* Calls fn for every (windowed) interval in the range, decimated if asked. */
int power_trace_walk(const struct power_input *in, const struct power_trace_opts *o,
		     power_point_fn fn, void *ctx, struct eq_error *err);
/*
 * Envelope of a long trace, as Joulescope and the PPK2 fold a long capture:
 * time [t0, t1] (o's range, else the whole recording) cut into ncolumns
 * columns of equal width (one a pixel column of a plot); each column that
 * holds intervals (by their end) gets the lowest and highest (windowed)
 * interval power, the mean power (their energy over their time: a
 * time-weighted mean), and the share of their time spent in idle
 * intervals (NAN where the input cannot tell idle, the board's stream).
 */
struct power_column {
	double t0, t1;             /* the column's span, seconds */
	double min_w, max_w, mean_w;
	double idle_share;         /* 0..1 of the intervals' time; NAN unknown */
	uint64_t intervals;
};

typedef int (*power_column_fn)(void *ctx, const struct power_column *c);

int power_envelope_walk(const struct power_input *in, const struct power_trace_opts *o,
			size_t ncolumns, power_column_fn fn, void *ctx, struct eq_error *err);
/* Intervals (by their end) inside o's range, or all of them. */
uint64_t power_trace_count(const struct power_input *in, const struct power_trace_opts *o);
/* Like snprintf(buf, size, "%.*f", decimals, v), faster for 0 <= v < 9e18/10^d. */
size_t power_fmt_fixed(char *buf, size_t size, double v, int decimals);
/* CSV: time_s,power_w,idle (one row an interval). */
int power_trace_write_csv(FILE *out, const struct power_input *in,
			  const struct power_trace_opts *o, struct eq_error *err);

/* ---- regions ------------------------------------------------------------ */

struct power_region {
	char label[128];
	double t0, t1;             /* seconds since the first sample */
	double time_s, energy_j, power_w;
	uint64_t samples;          /* samples that end inside (t0, t1] */
};

/* Energy between two times: intervals overlapping the edges count in
 * proportion (the power is taken as constant within an interval). */
int power_region_measure(const struct power_input *in, struct power_region *r,
			 struct eq_error *err);
/* Regions between consecutive markers, and from the last marker to the end
 * of the recording when samples follow it; *out is malloc'd. */
int power_regions_from_markers(const struct power_input *in,
			       struct power_region **out, size_t *n,
			       struct eq_error *err);
void power_region_print(FILE *out, const struct power_region *r, size_t n,
			enum power_format fmt);

/* ---- a range: power --from/--to, and what eqprof view shows -------------- */

/*
 * Power histograms on a logarithmic axis: bin k of `per_decade` bins per
 * decade holds powers in [10^(k/n - 12), 10^((k+1)/n - 12)) W, so bin 0
 * starts at 1 pW; powers <= 1 pW fall in bin 0, above 1 TW in the last.
 * A bin of n bins per decade is exactly the union of 128/n bins of the
 * finest (POWER_FINE_PER_DECADE) when n divides 128, which is how the
 * viewer re-bins its fine counts.  The median of a range is the centre of
 * the fine bin that holds it (to 1/128 of a decade, +-0.9%).
 */
#define POWER_FINE_PER_DECADE 128
#define POWER_LOG_DECADES 24            /* 1 pW .. 1 TW */
int power_log_bin(double power_w, unsigned per_decade);
double power_log_bin_edge(int bin, unsigned per_decade);  /* its lower edge, W */
double power_log_bin_centre(int bin, unsigned per_decade); /* geometric centre, W */

/*
 * A range [t0, t1] of the interval stream (edges as range.h makes them,
 * +-inf when open).  Energy: every interval's share of its time inside
 * (as power_region_measure), with the bounds that hold whatever the power
 * did inside the intervals the ends cut: lo counts only the intervals
 * wholly inside, hi the cut ones wholly.  Peak, minimum, median, idle and
 * the histogram are of the intervals ending inside (t0, t1], like regions'
 * samples; samples are the recording's samples in the range (range.h).
 */
struct power_range {
	double t0, t1;              /* edges asked (s) */
	double from_s, to_s;        /* the stretch measured: t0, t1 clipped to the stream */
	double duration_s;
	double energy_j, energy_lo_j, energy_hi_j;
	double power_w;             /* energy_j / duration_s */
	double peak_w, min_w;       /* NaN with no interval */
	double median_w;            /* centre of the fine bin of the median interval; NaN */
	uint64_t intervals, idle_intervals;
	int idle_known;             /* 0: the board or a source: idle unknown */
	uint64_t samples, idle_samples; /* the recording's samples in the range */
	struct power_hist fine;     /* intervals per fine log bin (all and idle) */
};

/* Fills r for [t0, t1]; power_range_free() releases r->fine. */
int power_range_measure(const struct power_input *in, const struct eq_range *range,
			double clock_hz, struct power_range *r, struct eq_error *err);
void power_range_free(struct power_range *r);
/* The bin of the interval of rank ceil(n/2) in a histogram of log bins. */
int power_hist_median_bin(const struct power_hist *h);
/* Table, CSV or JSON; battery_j > 0 adds the battery life at the range's
 * average power. */
void power_range_print(FILE *out, const struct power_range *r, const char *const *names,
		       size_t n, double battery_j, const char *battery_text, enum power_format fmt);

/* ---- per-row average power for `eqprof compare` ------------------------- */

/*
 * Both recordings of the same work: the energy recording says how much
 * energy a row (exe, proc, line...) drew (its samples * quantum), the time
 * recording how long it ran (its samples * seconds per time sample).
 */
struct power_row_ctx {
	double quantum_j;          /* joules per energy-driven sample */
	double time_per_sample_s;  /* seconds per time-driven sample */
};

int power_row_context(const struct eqp_file *time_file,
		      const struct eqp_file *energy_file,
		      struct power_row_ctx *ctx, struct eq_error *err);
/* Average power of one row in watts; NAN when it has no time samples. */
double power_per_row(const struct power_row_ctx *ctx, uint64_t energy_samples,
		     uint64_t time_samples);

struct eq_comparison;
/* Fills every row's average power (power_per_row(): its energy over its
 * time), for recordings of the same work.  Without it rows print no power. */
void eq_comparison_set_power(struct eq_comparison *c, const struct power_row_ctx *ctx);

#endif
