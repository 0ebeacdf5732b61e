/*
 * infile.h - inputs opened the way careful tools open them.
 *
 * Everything eqprof reads by name (recordings, the ELF files a recording's
 * maps name, import's --samples, --maps, --kallsyms and --symtab files,
 * separate debug files) goes through here, because the name may come from a
 * file someone else made: a crafted recording can name a FIFO (an open that
 * never returns), a tty or any device.  So:
 *
 *  - the path is looked at first without opening it (a device is never
 *    opened at all), then opened O_RDONLY | O_NONBLOCK | O_NOCTTY (a FIFO
 *    swapped in between cannot block, a tty cannot become the controlling
 *    terminal), then fstat'ed: only a regular file, the same one that was
 *    looked at, is accepted; O_NONBLOCK is cleared again;
 *  - a failure names the path and what it is ("a FIFO, not a regular file").
 *
 * Beneath a root (--symfs DIR): the path is resolved as if DIR were "/":
 * "..", absolute symlinks and "/../.." cannot leave DIR (openat2 with
 * RESOLVE_IN_ROOT where the kernel has it, else the same walk done here one
 * component at a time on directory descriptors, so nothing can be swapped in
 * between).
 */
#ifndef EQ_INFILE_H
#define EQ_INFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/eq_error.h"

/* A folder that paths are resolved beneath. */
struct eq_root {
	int fd;             /* O_PATH | O_DIRECTORY */
	char *path;         /* as given, for messages */
};

int eq_root_open(struct eq_root *r, const char *dir, struct eq_error *err);
void eq_root_close(struct eq_root *r);

/* A readable descriptor of the regular file at path (beneath root when root
 * is not NULL), or -1: err says why, and errno is ENOENT/ENOTDIR when the
 * file is simply not there (callers that look for optional files can stay
 * quiet then), EINVAL when it is not a regular file. */
int eq_input_open(const struct eq_root *root, const char *path, struct eq_error *err);
/* The same as a stdio stream ("r"). */
FILE *eq_input_fopen(const char *path, struct eq_error *err);
/* The whole file, NUL-terminated (*len excludes the NUL); *text is malloc'd. */
int eq_input_read(const char *path, char **text, size_t *len, struct eq_error *err);

/* "a FIFO", "a directory", "a character device"...: what a mode is. */
const char *eq_file_type(mode_t mode);

/* The resolution done when openat2 is missing (exposed for its tests):
 * an O_PATH descriptor of path beneath root, symlinks followed inside it. */
int eq_resolve_in_root_walk(int rootfd, const char *path);
/* 0: resolve beneath roots with that walk even where openat2 exists (tests). */
void eq_input_use_openat2(int use);

#endif
