/*
 * procs.c - what exists before the recording starts: the names, maps and
 * threads of running processes, from /proc; see procs.h.
 */
#include "record/procs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *record_slurp(const char *path, size_t *len)
{
	FILE *in = fopen(path, "re");
	char *buf = NULL, *grown;
	size_t cap = 0, n = 0, got;

	if (!in)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				free(buf);
				fclose(in);
				return NULL;
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n, in);
		n += got;
	} while (got);
	fclose(in);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int snapshot_one(uint32_t pid, const struct eq_sink *sink)
{
	char path[64], *text, *line, *nl;
	size_t len;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	text = record_slurp(path, &len);
	if (!text)
		return 0; /* gone already, or a kernel thread we may not read */
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	rc = sink->comm(sink->ctx, pid, pid, 0, text, 1);
	free(text);
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	text = record_slurp(path, &len);
	for (line = text; rc == 0 && line && *line; line = nl + 1) {
		char keep;

		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		keep = nl[1];
		nl[1] = '\0';
		rc = sink->mmap(sink->ctx, pid, 0, line);
		nl[1] = keep;
		if (!keep)
			break;
	}
	free(text);
	return rc;
}

int record_threads_of(pid_t pid, pid_t **tids, struct eq_error *err)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	size_t n = 1, cap = 16;
	pid_t *v = malloc(cap * sizeof(*v));

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!v)
		return eq_fail(err, "out of memory");
	d = opendir(path);
	if (!d) {
		free(v);
		return eq_fail(err, "-p %d: %s: %s", (int)pid, path,
			       errno == ENOENT ? "no such process" : strerror(errno));
	}
	v[0] = pid;
	while ((e = readdir(d))) {
		pid_t t;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		t = (pid_t)strtol(e->d_name, NULL, 10);
		if (t == pid)
			continue;
		if (n == cap) {
			pid_t *g = realloc(v, 2 * cap * sizeof(*v));

			if (!g) {
				closedir(d);
				free(v);
				return eq_fail(err, "out of memory");
			}
			v = g;
			cap *= 2;
		}
		v[n++] = t;
	}
	closedir(d);
	*tids = v;
	return (int)n;
}

/* Names the threads of pid gave themselves (those unlike its own). */
static int snapshot_threads(uint32_t pid, const struct eq_sink *sink)
{
	char path[96], *own, *name;
	size_t len;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	own = record_slurp(path, &len);
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = own ? opendir(path) : NULL;
	while (d && rc == 0 && (e = readdir(d))) {
		uint32_t tid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		tid = (uint32_t)strtoul(e->d_name, NULL, 10);
		if (tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		name = record_slurp(path, &len);
		if (name && strcmp(name, own)) {
			if (len && name[len - 1] == '\n')
				name[len - 1] = '\0';
			rc = sink->comm(sink->ctx, pid, tid, 0, name, 0);
		}
		free(name);
	}
	if (d)
		closedir(d);
	free(own);
	return rc;
}

int record_proc_snapshot(pid_t pid, const struct eq_sink *sink, struct eq_error *err)
{
	DIR *d;
	struct dirent *e;

	if (pid > 0)
		return snapshot_one((uint32_t)pid, sink) < 0 || snapshot_threads((uint32_t)pid, sink) < 0
		       ? eq_fail(err, "recording pid %d's maps failed", (int)pid) : 0;
	d = opendir("/proc");
	if (!d)
		return eq_fail(err, "/proc: %s (is procfs mounted?)", strerror(errno));
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (snapshot_one((uint32_t)strtoul(e->d_name, NULL, 10), sink) < 0) {
			closedir(d);
			return eq_fail(err, "recording the maps of process %s failed", e->d_name);
		}
	}
	closedir(d);
	return 0;
}
