/* outfile.c - outputs written atomically and safely; see outfile.h. */
#include "file/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- removal of temporaries on exit and on signals ---------------------
 *
 * A fixed table the signal handler can walk without allocating: each slot
 * holds a temporary file, or a temporary folder with the names that may be
 * in it.  Pointers are published after the strings they point to are
 * complete, and cleared before those strings are freed.
 */
#define NSLOTS 32

struct slot {
	char *volatile file;               /* a named temporary file */
	char *volatile dir;                /* a temporary folder ... */
	const char *const *volatile names; /* ... and the names written in it */
};

static struct slot slots[NSLOTS];
int eq_outfile_no_tmpfile;
static int handlers_installed;
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void remove_slot(struct slot *s)
{
	char buf[PATH_MAX];
	char *f = s->file, *d = s->dir;
	const char *const *n = s->names;
	size_t dl, nl;

	if (f)
		unlink(f);
	if (!d)
		return;
	dl = strlen(d);
	for (; n && *n; n++) {
		nl = strlen(*n);
		if (dl + 1 + nl + 1 > sizeof(buf))
			continue;
		memcpy(buf, d, dl);
		buf[dl] = '/';
		memcpy(buf + dl + 1, *n, nl + 1);
		unlink(buf);
	}
	rmdir(d);
}

static void remove_all(void)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		remove_slot(&slots[i]);
}

static void on_signal(int sig)
{
	int e = errno;

	remove_all();
	signal(sig, SIG_DFL);
	errno = e;
	raise(sig);
}

static void install_handlers(void)
{
	struct sigaction sa, old;
	size_t i;

	if (handlers_installed)
		return;
	handlers_installed = 1;
	atexit(remove_all);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++) {
		/* Leave alone a signal the program handles or ignores itself. */
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(cleanup_signals[i], &sa, NULL);
	}
}

/*
 * Creating a temporary and taking its slot is one step for the signals
 * that remove temporaries: they are held between the two (and delivered,
 * to the handler, right after), so a SIGTERM in between cannot leave the
 * temporary behind.  The same holds while a folder is swapped the slow way.
 */
static void hold_signals(sigset_t *saved)
{
	sigset_t set;
	size_t i;

	install_handlers();
	sigemptyset(&set);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, saved);
}

static void release_signals(const sigset_t *saved)
{
	sigprocmask(SIG_SETMASK, saved, NULL);
}

static int slot_take(char *file, char *dir, const char *const *names)
{
	int i;

	install_handlers();
	for (i = 0; i < NSLOTS; i++) {
		if (!slots[i].file && !slots[i].dir) {
			slots[i].names = names;
			slots[i].dir = dir;
			slots[i].file = file;
			return i;
		}
	}
	return -1; /* more than NSLOTS outputs at once: still removed on every normal path */
}

static void slot_release(int i)
{
	if (i < 0 || i >= NSLOTS)
		return;
	slots[i].file = NULL;
	slots[i].dir = NULL;
	slots[i].names = NULL;
}

/* ---- single outputs ---------------------------------------------------- */

static mode_t current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static const char *file_type(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	return "not a regular file";
}

static void outfile_free(struct eq_outfile *o)
{
	free(o->path);
	free(o->target);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	o->slot = -1;
}

/* A temporary beside target: unnamed where the file system allows and the
 * output is not a recording, else a fresh name opened O_EXCL | O_NOFOLLOW. */
static int open_temp(struct eq_outfile *o, struct eq_error *err)
{
	sigset_t saved;
	int fd = -1, n;

#ifdef O_TMPFILE
	if (!(o->flags & EQ_OUT_RECORDING) && !eq_outfile_no_tmpfile &&
	    access("/proc/self/fd", X_OK) == 0) {
		char *dir = dir_of(o->target);

		if (!dir)
			return eq_fail(err, "%s: out of memory", o->path);
		fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		free(dir);
		if (fd >= 0)
			return fd;
		/* EOPNOTSUPP, EISDIR (old kernels), ...: fall back to a name */
	}
#endif
	for (n = 0; n < 100; n++) {
		int r = n ? asprintf(&o->tmp, "%s.tmp.%ld.%d", o->target, (long)getpid(), n)
			  : asprintf(&o->tmp, "%s.tmp.%ld", o->target, (long)getpid());

		if (r < 0) {
			o->tmp = NULL;
			return eq_fail(err, "%s: out of memory", o->path);
		}
		hold_signals(&saved);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			if (!(o->flags & EQ_OUT_RECORDING))
				o->slot = slot_take(o->tmp, NULL, NULL);
			release_signals(&saved);
			return fd;
		}
		release_signals(&saved);
		if (errno != EEXIST) {
			int e = errno;

			eq_fail(err, "cannot create %s: %s (is the directory there and writable?)",
				o->tmp, strerror(e));
			free(o->tmp);
			o->tmp = NULL;
			return -1;
		}
		free(o->tmp);
		o->tmp = NULL;
	}
	return eq_fail(err, "cannot create a temporary file beside %s: 100 names taken", o->path);
}

int eq_outfile_open_flags(struct eq_outfile *o, const char *path, unsigned flags,
			  struct eq_error *err)
{
	struct stat st;
	int fd, exists;

	memset(o, 0, sizeof(*o));
	o->slot = -1;
	o->flags = flags;
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	if (!*path)
		return eq_fail(err, "an empty output name was given");
	o->path = strdup(path);
	if (!o->path)
		return eq_fail(err, "%s: out of memory", path);
	exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT) {
		eq_fail(err, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	if (exists && S_ISLNK(st.st_mode)) {
		char *real;

		if (stat(path, &st) != 0) {
			eq_fail(err, "%s is a symbolic link to a missing file; give the name of the file to write",
				path);
			goto fail;
		}
		real = realpath(path, NULL);
		if (!real) {
			eq_fail(err, "cannot resolve the symbolic link %s: %s", path, strerror(errno));
			goto fail;
		}
		o->target = real; /* written through: the link stays, its target is replaced */
	} else {
		o->target = strdup(path);
		if (!o->target) {
			eq_fail(err, "%s: out of memory", path);
			goto fail;
		}
	}
	if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			eq_fail(err, "cannot write %s (%s): %s", path, file_type(st.st_mode),
				strerror(errno));
			goto fail;
		}
		o->through = 1;
	} else if (exists && !S_ISREG(st.st_mode)) {
		eq_fail(err, "cannot write %s: it is %s, not a file; give a file name",
			path, file_type(st.st_mode));
		goto fail;
	} else {
		if (exists) {
			o->mode = st.st_mode & 07777;
			o->keep_mode = 1;
			o->uid = st.st_uid;
			o->gid = st.st_gid;
		} else {
			o->mode = 0666 & ~current_umask();
		}
		fd = open_temp(o, err);
		if (fd < 0)
			goto fail;
	}
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		eq_fail(err, "%s: %s", path, strerror(errno));
		close(fd);
		if (o->tmp)
			unlink(o->tmp);
		goto fail;
	}
	return 0;
fail:
	slot_release(o->slot);
	outfile_free(o);
	return -1;
}

int eq_outfile_open(struct eq_outfile *o, const char *path, struct eq_error *err)
{
	return eq_outfile_open_flags(o, path, 0, err);
}

int eq_outfile_flush(struct eq_outfile *o, struct eq_error *err)
{
	if (fflush(o->fp) != 0 || ferror(o->fp))
		return eq_fail(err, "writing %s: %s (disk full?)", o->tmp ? o->tmp : o->path ? o->path : "standard output",
			       strerror(errno));
	return 0;
}

/* Step 1 of a commit: everything written, synced and closed. */
static int finish_write(struct eq_outfile *o, struct eq_error *err)
{
	int bad, fd;

	if (!o->path) {
		if (fflush(stdout) != 0)
			return eq_fail(err, "writing standard output: %s", strerror(errno));
		return 0;
	}
	fd = fileno(o->fp);
	bad = ferror(o->fp) | (fflush(o->fp) != 0);
	if (!bad && !o->through) {
		if (o->keep_mode && geteuid() == 0)
			(void)!fchown(fd, o->uid, o->gid);
		bad = fchmod(fd, o->mode) != 0 || fsync(fd) != 0;
	}
	if (fclose(o->fp) != 0)
		bad = 1;
	o->fp = NULL;
	if (bad)
		return eq_fail(err, "writing %s failed: %s (disk full?); %s was left unchanged",
			       o->tmp ? o->tmp : o->path, strerror(errno), o->path);
	return 0;
}

/* Step 2: move into place (nothing to do when written through). */
static int place(struct eq_outfile *o, struct eq_error *err)
{
	if (!o->path || o->through)
		return 0;
	if (rename(o->tmp, o->target) != 0) {
		eq_fail(err, "cannot rename %s to %s: %s%s", o->tmp, o->target, strerror(errno),
			(o->flags & EQ_OUT_RECORDING) ? "; the recording is kept under the first name" : "");
		if (!(o->flags & EQ_OUT_RECORDING))
			unlink(o->tmp);
		return -1;
	}
	return 0;
}

/* An O_TMPFILE gets a name (an O_EXCL-like link, then renamed) before its
 * descriptor is closed. */
static int link_unnamed(struct eq_outfile *o, int fd, struct eq_error *err)
{
	sigset_t saved;
	char proc[64];
	int n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (n = 0; n < 100; n++) {
		int r = n ? asprintf(&o->tmp, "%s.tmp.%ld.%d", o->target, (long)getpid(), n)
			  : asprintf(&o->tmp, "%s.tmp.%ld", o->target, (long)getpid());

		if (r < 0) {
			o->tmp = NULL;
			return eq_fail(err, "%s: out of memory", o->path);
		}
		hold_signals(&saved);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0) {
			o->slot = slot_take(o->tmp, NULL, NULL);
			release_signals(&saved);
			return 0;
		}
		release_signals(&saved);
		if (errno != EEXIST) {
			eq_fail(err, "cannot link the finished output to %s: %s", o->tmp, strerror(errno));
			free(o->tmp);
			o->tmp = NULL;
			return -1;
		}
		free(o->tmp);
		o->tmp = NULL;
	}
	return eq_fail(err, "cannot name the finished output beside %s: 100 names taken", o->path);
}

static int prepare(struct eq_outfile *o, struct eq_error *err)
{
	/* An unnamed temporary must be linked while its descriptor is open;
	 * it is complete and synced first, so that the named moment between
	 * link and rename is as short as it can be (and where NAME does not
	 * exist yet, there is none: the link is the final name). */
	if (o->path && !o->through && !o->tmp) {
		int fd = fileno(o->fp);
		char proc[64];

		if (ferror(o->fp) || fflush(o->fp) != 0 || fchmod(fd, o->mode) != 0 || fsync(fd) != 0)
			return eq_fail(err, "writing %s failed: %s (disk full?); %s was left unchanged",
				       o->path, strerror(errno), o->path);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, o->target, AT_SYMLINK_FOLLOW) == 0) {
			o->through = 1; /* in place: nothing left to rename */
			fclose(o->fp);
			o->fp = NULL;
			return 0;
		}
		if (errno != EEXIST)
			return eq_fail(err, "cannot create %s: %s", o->target, strerror(errno));
		if (link_unnamed(o, fd, err) < 0)
			return -1;
	}
	return finish_write(o, err);
}

static void release(struct eq_outfile *o)
{
	slot_release(o->slot);
	outfile_free(o);
}

int eq_outfile_commit(struct eq_outfile *o, struct eq_error *err)
{
	if (prepare(o, err) < 0 || place(o, err) < 0) {
		if (o->flags & EQ_OUT_RECORDING)
			eq_outfile_abandon(o); /* the samples cannot be made again */
		else
			eq_outfile_discard(o);
		return -1;
	}
	release(o);
	return 0;
}

void eq_outfile_discard(struct eq_outfile *o)
{
	if (o->path) {
		if (o->fp)
			fclose(o->fp);
		if (o->tmp)
			unlink(o->tmp);
	}
	release(o);
}

void eq_outfile_abandon(struct eq_outfile *o)
{
	if (o->fp) {
		if (o->path)
			fclose(o->fp);
		else
			fflush(o->fp);
	}
	release(o);
}

int eq_outfile_commit_all(struct eq_outfile *const *o, size_t n, struct eq_error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		rc = prepare(o[i], err);
	if (rc < 0) {
		for (i = 0; i < n; i++)
			eq_outfile_discard(o[i]);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (rc == 0 && place(o[i], err) < 0)
			rc = -1;
		if (rc < 0)
			eq_outfile_discard(o[i]);
		else
			release(o[i]);
	}
	return rc;
}

int eq_output_not_input(const char *out, const char *const *inputs, size_t n,
			struct eq_error *err)
{
	struct stat so, si;
	size_t i;

	if (!out || strcmp(out, "-") == 0 || stat(out, &so) != 0 || !S_ISREG(so.st_mode))
		return 0;
	for (i = 0; i < n; i++) {
		if (!inputs[i] || stat(inputs[i], &si) != 0)
			continue;
		if (si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return eq_fail(err, "the output %s is the input %s: writing it would destroy what is being read; choose another output name",
				       out, inputs[i]);
	}
	return 0;
}

/* ---- folders of outputs ------------------------------------------------ */

int eq_mkdir_parents(const char *path, struct eq_error *err)
{
	char *p = dir_of(path), *s;
	struct stat st;

	if (!p)
		return eq_fail(err, "%s: out of memory", path);
	for (s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			eq_fail(err, "cannot create the folder %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
			eq_fail(err, "cannot create a folder under %s: it is not a folder", p);
			free(p);
			return -1;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return 0;
}

static int is_ours(const struct eq_outdir *d, const char *name)
{
	const char *const *n;

	for (n = d->names; *n; n++)
		if (strcmp(*n, name) == 0)
			return 1;
	return 0;
}

int eq_outdir_open(struct eq_outdir *d, const char *path, const char *const *names,
		   struct eq_error *err)
{
	sigset_t saved;
	int n;

	memset(d, 0, sizeof(*d));
	d->slot = -1;
	d->names = names;
	if (!*path)
		return eq_fail(err, "an empty output folder name was given");
	if (eq_mkdir_parents(path, err) < 0)
		return -1;
	d->path = strdup(path);
	if (!d->path)
		return eq_fail(err, "%s: out of memory", path);
	/* trailing slashes would make "DIR/.tmp.PID" */
	while (strlen(d->path) > 1 && d->path[strlen(d->path) - 1] == '/')
		d->path[strlen(d->path) - 1] = '\0';
	for (n = 0; n < 100; n++) {
		int r = n ? asprintf(&d->tmp, "%s.tmp.%ld.%d", d->path, (long)getpid(), n)
			  : asprintf(&d->tmp, "%s.tmp.%ld", d->path, (long)getpid());

		if (r < 0) {
			d->tmp = NULL;
			break;
		}
		hold_signals(&saved);
		if (mkdir(d->tmp, 0777) == 0) {
			d->slot = slot_take(NULL, d->tmp, d->names);
			release_signals(&saved);
			return 0;
		}
		release_signals(&saved);
		if (errno != EEXIST) {
			eq_fail(err, "cannot create the folder %s: %s", d->tmp, strerror(errno));
			free(d->tmp);
			free(d->path);
			memset(d, 0, sizeof(*d));
			return -1;
		}
		free(d->tmp);
		d->tmp = NULL;
	}
	eq_fail(err, "cannot create a temporary folder beside %s", path);
	free(d->path);
	memset(d, 0, sizeof(*d));
	return -1;
}

int eq_outdir_file(struct eq_outdir *d, struct eq_outfile *o, const char *name,
		   struct eq_error *err)
{
	int fd;

	memset(o, 0, sizeof(*o));
	o->slot = -1;
	if (!is_ours(d, name))
		return eq_fail(err, "internal error: %s is not one of the files of %s", name, d->path);
	if (asprintf(&o->tmp, "%s/%s", d->tmp, name) < 0 ||
	    asprintf(&o->path, "%s/%s", d->path, name) < 0) {
		free(o->tmp);
		return eq_fail(err, "%s: out of memory", d->path);
	}
	o->target = strdup(o->tmp);
	o->mode = 0666 & ~current_umask();
	o->through = 0;
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(o->fp = fdopen(fd, "wb"))) {
		eq_fail(err, "cannot create %s: %s", o->tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		outfile_free(o);
		return -1;
	}
	return 0;
}

/* Removes a folder that holds only our names. */
static void remove_tree(const struct eq_outdir *d, const char *dir)
{
	const char *const *n;
	char *p;

	for (n = d->names; *n; n++) {
		if (asprintf(&p, "%s/%s", dir, *n) >= 0) {
			unlink(p);
			free(p);
		}
	}
	rmdir(dir);
}

/* Returns the first entry of an existing DIR that is not ours, or NULL. */
static char *foreign_entry(const struct eq_outdir *d, struct eq_error *err, int *bad)
{
	DIR *dp = opendir(d->path);
	struct dirent *e;
	char *found = NULL;

	*bad = 0;
	if (!dp) {
		*bad = 1;
		eq_fail(err, "cannot read the folder %s: %s", d->path, strerror(errno));
		return NULL;
	}
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!is_ours(d, e->d_name)) {
			found = strdup(e->d_name);
			break;
		}
	}
	closedir(dp);
	return found;
}

int eq_outdir_commit(struct eq_outdir *d, struct eq_error *err)
{
	struct stat st;
	int fd, bad;
	char *foreign;

	fd = open(d->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	if (lstat(d->path, &st) != 0) {
		if (rename(d->tmp, d->path) != 0) {
			eq_fail(err, "cannot rename %s to %s: %s", d->tmp, d->path, strerror(errno));
			eq_outdir_discard(d);
			return -1;
		}
		goto done;
	}
	if (!S_ISDIR(st.st_mode)) {
		eq_fail(err, "cannot write the folder %s: a file of that name is there", d->path);
		eq_outdir_discard(d);
		return -1;
	}
	foreign = foreign_entry(d, err, &bad);
	if (bad || foreign) {
		if (foreign)
			eq_fail(err, "%s already exists and holds '%s', which this command does not write; choose a new folder or empty it",
				d->path, foreign);
		free(foreign);
		eq_outdir_discard(d);
		return -1;
	}
	/* Swap the two folders in one step, then remove the old one (now at tmp). */
	if (renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->path, RENAME_EXCHANGE) != 0) {
		char *old = NULL;
		sigset_t saved;
		int e;

		/* no exchange (an old kernel or file system): two renames, with
		 * no signal between them to leave the folder missing */
		hold_signals(&saved);
		if (asprintf(&old, "%s.old.%ld", d->path, (long)getpid()) < 0 ||
		    rename(d->path, old) != 0 || rename(d->tmp, d->path) != 0) {
			e = errno;
			if (old)
				rename(old, d->path);
			release_signals(&saved);
			eq_fail(err, "cannot replace the folder %s: %s", d->path, strerror(e));
			free(old);
			eq_outdir_discard(d);
			return -1;
		}
		remove_tree(d, old);
		release_signals(&saved);
		free(old);
	} else {
		remove_tree(d, d->tmp);
	}
done:
	slot_release(d->slot);
	free(d->tmp);
	free(d->path);
	memset(d, 0, sizeof(*d));
	d->slot = -1;
	return 0;
}

void eq_outdir_discard(struct eq_outdir *d)
{
	if (d->tmp)
		remove_tree(d, d->tmp);
	slot_release(d->slot);
	free(d->tmp);
	free(d->path);
	memset(d, 0, sizeof(*d));
	d->slot = -1;
}
