/*
 * table.h - a profile printed for people (table), spreadsheets (csv) and
 * scripts (json).  The JSON schema is documented in docs/guide.md and is
 * stable: mode, by, quantum_j / period_s, total_samples, idle_samples,
 * lost_samples, exclude_idle, interval, interval_method, recordings,
 * batches, batch_s, batch_lag1, rows[] with name, module, samples, share,
 * energy_j or time_s, ci95_low, ci95_high, deff (plus file/line on line rows
 * and offset on insn rows).
 */
#ifndef EQ_TABLE_H
#define EQ_TABLE_H

#include <stdio.h>

#include "util/eq_error.h"
#include "profile/profile.h"

enum eq_format { EQ_FMT_TABLE, EQ_FMT_CSV, EQ_FMT_JSON };

/* "table", "csv", "json" -> *fmt; else an error naming them. */
int eq_format_parse(const char *text, enum eq_format *fmt, struct eq_error *err);

/* source names the recording in the table's heading. */
void eq_profile_print(FILE *out, const struct eq_profile *p, enum eq_format fmt,
		      const char *source);

/* How p's intervals were made: "systematic", "batch-means", "recordings"
 * or "binomial". */
const char *eq_interval_method(const struct eq_profile *p);
/* The "# 95% intervals: ..." line (and a warning when the batch means are
 * still correlated). */
void eq_interval_describe(FILE *out, const struct eq_profile *p);

/* Writers shared with compare: CSV field and JSON string with escaping. */
/* 0 when rows at `by` are named by what a module column would repeat (by
 * exe, by states alone: "wmplayer [206MHz C0]" twice): tables leave the
 * column out (CSV and JSON keep their module fields). */
int eq_by_module_column(enum eq_by by);

/* Are the rows named by symbols (procedures, lines, instructions)? */
int eq_profile_uses_symbols(const struct eq_profile *p);

void eq_csv_field(FILE *out, const char *s);
void eq_json_string(FILE *out, const char *s);
/* A JSON number; NaN and infinities become null. */
void eq_json_number(FILE *out, double v);

#endif
