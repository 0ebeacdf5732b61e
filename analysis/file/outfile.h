/*
 * outfile.h - outputs written atomically.
 *
 * Every file eqprof writes goes to "NAME.tmp.PID" first and is renamed over
 * NAME only when complete, so an existing output is never half-written and
 * a failed run leaves nothing behind.  "-" means standard output.
 */
#ifndef EQ_OUTFILE_H
#define EQ_OUTFILE_H

#include <stdio.h>

#include "eq_error.h"

struct eq_outfile {
	FILE *fp;           /* write here */
	char *path;         /* final name, NULL for stdout */
	char *tmp;          /* temporary name */
};

int eq_outfile_open(struct eq_outfile *o, const char *path, struct eq_error *err);
/* Flushes, fsyncs and renames; on any write error removes the temporary and fails. */
int eq_outfile_commit(struct eq_outfile *o, struct eq_error *err);
/* Abandons the output: removes the temporary. */
void eq_outfile_discard(struct eq_outfile *o);

#endif
