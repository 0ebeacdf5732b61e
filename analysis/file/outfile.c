/* outfile.c - atomic output files; see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int eq_outfile_open(struct eq_outfile *o, const char *path, struct eq_error *err)
{
	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		free(o->path);
		return eq_fail(err, "%s: out of memory", path);
	}
	o->fp = fopen(o->tmp, "wb");
	if (!o->fp) {
		int e = errno;

		eq_fail(err, "cannot create %s: %s (is the directory there and writable?)",
			o->tmp, strerror(e));
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return -1;
	}
	return 0;
}

static void outfile_free(struct eq_outfile *o)
{
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

int eq_outfile_commit(struct eq_outfile *o, struct eq_error *err)
{
	int bad;

	if (!o->path) {
		if (fflush(stdout) != 0)
			return eq_fail(err, "writing standard output: %s", strerror(errno));
		return 0;
	}
	bad = ferror(o->fp) | (fflush(o->fp) != 0) | (fsync(fileno(o->fp)) != 0);
	if (fclose(o->fp) != 0)
		bad = 1;
	o->fp = NULL;
	if (bad) {
		eq_fail(err, "writing %s failed: %s (disk full?); %s was left unchanged",
			o->tmp, strerror(errno), o->path);
		unlink(o->tmp);
		outfile_free(o);
		return -1;
	}
	if (rename(o->tmp, o->path) != 0) {
		eq_fail(err, "cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
		unlink(o->tmp);
		outfile_free(o);
		return -1;
	}
	outfile_free(o);
	return 0;
}

void eq_outfile_discard(struct eq_outfile *o)
{
	if (o->path) {
		if (o->fp)
			fclose(o->fp);
		unlink(o->tmp);
	}
	outfile_free(o);
}
