/*
 * csv_samples.h - samples as CSV text, the import format of DESIGN.md:
 *
 *   time_ns,pc,pid,tid,cpu,flags
 *   1000000,0x401136,4242,4242,0,4
 *
 * time_ns, pid, tid, cpu and flags are decimal (flags may also be 0x hex);
 * pc is 0x hex or decimal.  Blank lines and lines starting with '#' are
 * skipped; CRLF line ends are accepted.  Every error names the source, the
 * line number and the field.
 */
#ifndef EQ_CSV_SAMPLES_H
#define EQ_CSV_SAMPLES_H

#include <stdio.h>

#include "util/eq_error.h"
#include "eq_sample.h"

#define EQ_CSV_HEADER "time_ns,pc,pid,tid,cpu,flags"

struct eq_csv_reader {
	FILE *in;
	const char *name;     /* for messages */
	unsigned long lineno;
	int header_seen;
	char *line;           /* getline buffer */
	size_t cap;
};

void eq_csv_reader_init(struct eq_csv_reader *r, FILE *in, const char *name);
void eq_csv_reader_release(struct eq_csv_reader *r);

/* Next sample into *s (seq 0): 1, or 0 at the end, or -1 with err. */
int eq_csv_next(struct eq_csv_reader *r, struct eq_sample *s, struct eq_error *err);

/* Parses one data line (no newline) - exposed for tests. */
int eq_csv_parse_line(const char *line, const char *name, unsigned long lineno,
		      struct eq_sample *s, struct eq_error *err);

#endif
