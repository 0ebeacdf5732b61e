/*
 * outfile.h - outputs written the way careful tools write them.
 *
 * A regular output (or a name that does not exist yet) is written to a
 * temporary file in the same folder and renamed over NAME only when it is
 * complete, so an existing output is never half-written and a failed run
 * leaves nothing behind:
 *
 *  - the temporary is an unnamed O_TMPFILE where the file system has them
 *    (nothing can be left behind, even by SIGKILL), linked in at commit; else
 *    "NAME.tmp.PID[.N]" created with O_EXCL | O_NOFOLLOW, so a name planted
 *    by someone else (a symlink to a victim) is never opened;
 *  - an existing output keeps its permission bits (and owner, where allowed);
 *  - a symlink given as NAME is written through: its target is replaced, the
 *    link stays;
 *  - a character device or FIFO (/dev/null, a pipe made with mkfifo) is
 *    written straight into, never replaced; a directory, block device or
 *    socket is refused, saying which;
 *  - "-" means standard output.
 *
 * Named temporaries are removed on every exit path: on failure, on
 * eq_outfile_discard(), at exit(), and on SIGINT, SIGTERM, SIGHUP and SIGPIPE
 * (the handler removes them and re-raises the signal).  A *recording*
 * (EQ_OUT_RECORDING: `record`, `board log`) is different: its samples cannot
 * be made again, so it is always a named "NAME.tmp.PID" that survives a
 * crash or SIGKILL as a readable (unfinished) recording; its writer stops
 * cleanly on SIGINT/SIGTERM and commits.
 */
#ifndef EQ_OUTFILE_H
#define EQ_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "util/eq_error.h"

enum {
	EQ_OUT_RECORDING = 0x1, /* keep the named temporary if the process dies */
};

struct eq_outfile {
	FILE *fp;           /* write here */
	char *path;         /* final name as given, NULL for stdout */
	char *target;       /* the file actually replaced (path, or a symlink's target) */
	char *tmp;          /* named temporary, or NULL (O_TMPFILE, write-through, stdout) */
	int through;        /* 1: writing straight into a device or FIFO */
	int slot;           /* cleanup registration, -1 if none */
	unsigned flags;
	mode_t mode;        /* permission bits to give the result */
	int keep_mode;      /* 1: an existing file's mode (and owner) is kept */
	uid_t uid;
	gid_t gid;
};

int eq_outfile_open(struct eq_outfile *o, const char *path, struct eq_error *err);
int eq_outfile_open_flags(struct eq_outfile *o, const char *path, unsigned flags,
			  struct eq_error *err);
/* Flushes, fsyncs and moves into place; on any write error removes the
 * temporary, leaves NAME unchanged and fails. */
int eq_outfile_commit(struct eq_outfile *o, struct eq_error *err);
/* Abandons the output: removes the temporary. */
void eq_outfile_discard(struct eq_outfile *o);
/* Closes the output and leaves the temporary where it is (an unfinished
 * recording is the user's data). */
void eq_outfile_abandon(struct eq_outfile *o);
/* Pushes what was written so far to the kernel (a recording's chunks then
 * survive the process being killed). */
int eq_outfile_flush(struct eq_outfile *o, struct eq_error *err);

/* Refuses an output that names one of the inputs (the same file, by device
 * and inode, through any name or link): "export run.eqp -o run.eqp" would
 * destroy the recording it reads.  NULL entries are skipped. */
int eq_output_not_input(const char *out, const char *const *inputs, size_t n,
			struct eq_error *err);

/* Several outputs of one command, all or nothing: commits each only when all
 * have been written; on any failure discards every one. */
int eq_outfile_commit_all(struct eq_outfile *const *o, size_t n, struct eq_error *err);

/*
 * A folder of outputs, all or nothing (`eqprof sim -o DIR`): files are
 * written into a temporary sibling folder "DIR.tmp.PID" and the folder is
 * renamed to DIR when every file is complete.  If DIR already exists it must
 * hold only files the same command writes (`names`, NULL-terminated): it is
 * swapped for the new folder atomically (renameat2 RENAME_EXCHANGE) and the
 * old one removed, so DIR never mixes two runs.  Missing parents of DIR are
 * created.  The temporary folder is removed on failure and on the signals
 * above.
 */
struct eq_outdir {
	char *path;         /* DIR as given */
	char *tmp;          /* the temporary folder */
	const char *const *names;
	int slot;
};

int eq_outdir_open(struct eq_outdir *d, const char *path, const char *const *names,
		   struct eq_error *err);
/* Opens NAME inside the temporary folder (must be one of d->names). */
int eq_outdir_file(struct eq_outdir *d, struct eq_outfile *o, const char *name,
		   struct eq_error *err);
int eq_outdir_commit(struct eq_outdir *d, struct eq_error *err);
void eq_outdir_discard(struct eq_outdir *d);

/* Tests: 1 makes every temporary a named one, as on a file system without
 * O_TMPFILE. */
extern int eq_outfile_no_tmpfile;

/* Creates every missing folder of path's parent (mkdir -p of dirname). */
int eq_mkdir_parents(const char *path, struct eq_error *err);

#endif
