/*
 * infile.c - inputs opened safely; see infile.h.
 */
#include "file/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SYMLINKS 40            /* as the kernel's path walk */
#define MAX_WALK     (64u << 10)   /* longest path after symlinks are spliced in */

const char *eq_file_type(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

int eq_root_open(struct eq_root *r, const char *dir, struct eq_error *err)
{
	r->path = NULL;
	r->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0)
		return eq_fail(err, "%s: cannot use as a root folder: %m", dir);
	r->path = strdup(dir);
	if (!r->path) {
		close(r->fd);
		r->fd = -1;
		return eq_fail(err, "%s: out of memory", dir);
	}
	return 0;
}

void eq_root_close(struct eq_root *r)
{
	if (r->path)
		close(r->fd);
	free(r->path);
	r->path = NULL;
	r->fd = -1;
}

/* ---- resolving beneath a root without openat2 --------------------------- */

struct walk {
	int *fds;                  /* fds[0] = the root (not ours), then each dir */
	size_t n, cap;
};

static void walk_reset(struct walk *w)
{
	while (w->n > 1)
		close(w->fds[--w->n]);
}

static int walk_push(struct walk *w, int fd)
{
	if (w->n == w->cap) {
		size_t cap = w->cap * 2;
		int *v = realloc(w->fds, cap * sizeof(*v));

		if (!v) {
			close(fd);
			errno = ENOMEM;
			return -1;
		}
		w->fds = v;
		w->cap = cap;
	}
	w->fds[w->n++] = fd;
	return 0;
}

/* rest = target + "/" + tail, where tail may point into rest itself. */
static int splice_link(char **rest, const char *target, size_t tlen, const char *tail)
{
	size_t len = strlen(tail);
	char *s;

	if (tlen + len + 2 > MAX_WALK) {
		errno = ENAMETOOLONG;
		return -1;
	}
	s = malloc(tlen + len + 2);
	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(s, target, tlen);
	s[tlen] = '/';
	memcpy(s + tlen + 1, tail, len + 1);
	free(*rest);
	*rest = s;
	return 0;
}

/*
 * Resolves path beneath rootfd as if rootfd were "/": on success *dirfd is a
 * new descriptor of the folder holding the last component and name the last
 * component (not a symlink when looked at; "." when the path names a folder).
 * ".." is taken on the held descriptors, so a folder moved out of the root
 * meanwhile cannot lead outside it.
 */
static int walk_in_root(int rootfd, const char *path, int *dirfd, char *name, size_t size)
{
	struct walk w = { .fds = malloc(16 * sizeof(int)), .n = 1, .cap = 16 };
	char *rest = strdup(path), *p, target[PATH_MAX];
	int links = 0, rc = -1, save;

	if (!w.fds || !rest) {
		errno = ENOMEM;
		goto out;
	}
	w.fds[0] = rootfd;
	for (p = rest;;) {
		struct stat st;
		char *end, comp[NAME_MAX + 1];
		size_t len;
		int last, fd;
		ssize_t tl;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0) {                /* nothing left: the folder itself */
			snprintf(name, size, ".");
			break;
		}
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		last = strspn(p, "/") == strlen(p);
		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			if (comp[1] == '.' && w.n > 1)
				close(w.fds[--w.n]);
			if (last) {
				snprintf(name, size, ".");
				break;
			}
			continue;
		}
		if (fstatat(w.fds[w.n - 1], comp, &st, AT_SYMLINK_NOFOLLOW) < 0)
			goto out;
		if (S_ISLNK(st.st_mode)) {
			if (++links > MAX_SYMLINKS) {
				errno = ELOOP;
				goto out;
			}
			tl = readlinkat(w.fds[w.n - 1], comp, target, sizeof(target));
			if (tl < 0)
				goto out;
			if ((size_t)tl == sizeof(target)) {
				errno = ENAMETOOLONG;
				goto out;
			}
			if (target[0] == '/')
				walk_reset(&w);
			if (splice_link(&rest, target, (size_t)tl, p) < 0)
				goto out;
			p = rest;
			continue;
		}
		if (last) {
			if (len >= size) {
				errno = ENAMETOOLONG;
				goto out;
			}
			memcpy(name, comp, len + 1);
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			goto out;
		}
		fd = openat(w.fds[w.n - 1], comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || walk_push(&w, fd) < 0)
			goto out;
	}
	*dirfd = fcntl(w.fds[w.n - 1], F_DUPFD_CLOEXEC, 0);
	rc = *dirfd < 0 ? -1 : 0;
out:
	save = errno;
	if (w.fds)
		walk_reset(&w);
	free(w.fds);
	free(rest);
	errno = save;
	return rc;
}

int eq_resolve_in_root_walk(int rootfd, const char *path)
{
	char name[NAME_MAX + 1];
	int dirfd, fd, save;

	if (walk_in_root(rootfd, path, &dirfd, name, sizeof(name)) < 0)
		return -1;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	save = errno;
	close(dirfd);
	errno = save;
	return fd;
}

/* ---- opening ------------------------------------------------------------ */

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/*
 * openat2 says EAGAIN when a ".." met a rename or a mount anywhere on the
 * machine while it resolved (openat2(2): "the caller may choose to retry"):
 * with a renamer beside it, 993 calls in 200 000 here.  Retried; if every
 * try races, look_and_open() walks the path itself.
 */
#define OPENAT2_TRIES 16

static int openat2_in_root(int rootfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd, tries = 0;

	do
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && ++tries < OPENAT2_TRIES);
	return fd;
}

static int no_openat2;

void eq_input_use_openat2(int use)
{
	no_openat2 = !use;
}

/* Looks at path (beneath root) without opening it, then opens it for
 * reading without blocking; *look and *st describe the two. */
static int look_and_open(const struct eq_root *root, const char *path,
			 struct stat *look, struct stat *st)
{
	char name[NAME_MAX + 1];
	int fd, dirfd, save;

	if (!root) {
		if (stat(path, look) < 0)
			return -1;
		if (!S_ISREG(look->st_mode))
			return -2;
		fd = open(path, READ_FLAGS);
	} else if (!no_openat2 && (fd = openat2_in_root(root->fd, path, O_PATH | O_CLOEXEC)) >= 0) {
		if (fstat(fd, look) < 0) {
			save = errno;
			close(fd);
			errno = save;
			return -1;
		}
		close(fd);
		if (!S_ISREG(look->st_mode))
			return -2;
		fd = openat2_in_root(root->fd, path, READ_FLAGS);
	} else if (!no_openat2 && errno != ENOSYS && errno != EPERM && errno != EAGAIN) {
		return -1;               /* the kernel resolved it and said no */
	} else {
		if (no_openat2 || errno != EAGAIN)
			no_openat2 = 1;  /* an old kernel, or a filter that forbids it */
		if (walk_in_root(root->fd, path, &dirfd, name, sizeof(name)) < 0)
			return -1;
		if (fstatat(dirfd, name, look, AT_SYMLINK_NOFOLLOW) < 0) {
			save = errno;
			close(dirfd);
			errno = save;
			return -1;
		}
		if (!S_ISREG(look->st_mode)) {
			close(dirfd);
			return -2;
		}
		fd = openat(dirfd, name, READ_FLAGS | O_NOFOLLOW);
		save = errno;
		close(dirfd);
		errno = save;
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		save = errno;
		close(fd);
		errno = save;
		return -1;
	}
	return fd;
}

int eq_input_open(const struct eq_root *root, const char *path, struct eq_error *err)
{
	struct stat look = { 0 }, st = { 0 };
	char where[4200];
	int fd, save;

	if (root)
		snprintf(where, sizeof(where), "%s (under %s)", path, root->path);
	else
		snprintf(where, sizeof(where), "%s", path);
	fd = look_and_open(root, path, &look, &st);
	if (fd == -2) {
		errno = EINVAL;
		return eq_fail(err, "%s is %s, not a regular file",
			       where, eq_file_type(look.st_mode));
	}
	if (fd < 0) {
		save = errno;
		eq_fail(err, "%s: cannot open: %s", where, strerror(save));
		errno = save;
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != look.st_dev || st.st_ino != look.st_ino) {
		close(fd);
		errno = EINVAL;
		return eq_fail(err, "%s was replaced while being opened (now %s); refusing to read it",
			       where, eq_file_type(st.st_mode));
	}
	/* A regular file never blocks; reads should not see EAGAIN either way. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		save = errno;
		close(fd);
		errno = save;
		return eq_fail(err, "%s: %s", where, strerror(save));
	}
	return fd;
}

FILE *eq_input_fopen(const char *path, struct eq_error *err)
{
	int fd = eq_input_open(NULL, path, err);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		eq_fail(err, "%s: %m", path);
		close(fd);
	}
	return f;
}

int eq_input_read(const char *path, char **text, size_t *len, struct eq_error *err)
{
	int fd = eq_input_open(NULL, path, err);
	char *buf = NULL;
	size_t cap = 0, n = 0;
	ssize_t got;

	if (fd < 0)
		return -1;
	for (;;) {
		if (cap - n < 65536) {
			char *grown = realloc(buf, cap + 65536 + 1);

			if (!grown) {
				free(buf);
				close(fd);
				return eq_fail(err, "%s: out of memory", path);
			}
			buf = grown;
			cap += 65536;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	if (got < 0) {
		eq_fail(err, "%s: read error: %m", path);
		free(buf);
		close(fd);
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}
