/*
 * builtin-view.c - eqprof view: one self-contained HTML page to look at
 * recordings in a browser: power against time, a dragged range's energy
 * and code, time against energy, two runs (docs/viewer.md).
 *
 *   eqprof view FILE.eqp [MORE.eqp...] [-o PAGE.html] [--open|--no-open]
 *
 * The folding is analysis/view's; the page (HTML, script, styles) is built
 * from analysis/view/web by `make viewer` and found beside eqprof.  Time
 * against energy and two runs are what `eqprof compare` and `eqprof diff`
 * print (--format json), run here as perf runs its own commands.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "file/eqp.h"
#include "file/outfile.h"
#include "symbols/symbolize.h"
#include "util/units.h"
#include "view/view.h"

#define MAX_FILES 8

extern char **environ;

struct view_args {
	const char *out;
	int open;                   /* -1: by default */
	int quiet, verbose, lines;
	unsigned buckets;
	enum power_basis basis;
	struct eq_sym_options so;
	const char *files[MAX_FILES];
	int nfiles;
};

static int opt_buckets(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	unsigned long long n;

	if (eq_parse_uint(arg, "--buckets", EQ_VIEW_MAX_BUCKETS, &n, err) < 0 || n < 16)
		return eq_fail(err, "--buckets: give a whole number from 16 to 1048576");
	*(unsigned *)opt->value = (unsigned)n;
	return 0;
}

static int opt_source(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	static const char *const bases[] = { "auto", "samples", "board", "source" };
	int k;

	for (k = 0; k < 4 && strcmp(arg, bases[k]); k++)
		;
	if (k == 4)
		return eq_fail(err, "--source: use auto, samples, board or source");
	*(enum power_basis *)opt->value = k == 3 ? POWER_BASIS_SOURCE : (enum power_basis)k;
	return 0;
}

static int opt_no_build_id(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	((struct eq_sym_options *)opt->value)->check_build_id = 0;
	return 0;
}

static int parse_args(struct view_args *a, int argc, char **argv)
{
	const struct eq_option options[] = {
		OPT_ARG("FILE.eqp", "recordings (at most 8)"),
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &a->out,
		  .argh = "PAGE.html", .complete = EQ_COMPLETE_FILE,
		  .help = "where to write it (default: beside the first recording,\n"
			  ".eqp replaced by .html)" },
		OPT_SET_INT(0, "open", &a->open, 1,
			    "open it in the browser (xdg-open); the default when -o is\n"
			    "not given and a display is there"),
		OPT_SET_INT(0, "no-open", &a->open, 0, "never open it"),
		OPT_CALLBACK(0, "buckets", &a->buckets, "N",
			     "time buckets at most (default 16384): the finest detail\n"
			     "the page can show, and what its size grows with", opt_buckets),
		OPT_FLAG(0, "lines", &a->lines, "rows by source line too (reads DWARF line tables)"),
		{ .type = EQ_OPTION_CALLBACK, .long_name = "source", .value = &a->basis, .argh = "S",
		  .cb = opt_source, .complete = "auto samples board source",
		  .help = "where power comes from, as eqprof power --source" },
		{ .type = EQ_OPTION_STRING, .long_name = "symfs", .value = &a->so.symfs, .argh = "DIR",
		  .complete = EQ_COMPLETE_DIR,
		  .help = "find the target's binaries under DIR (its sysroot)" },
		OPT_CALLBACK_NOARG(0, "no-build-id-check", &a->so,
				   "use binaries even when their build-id differs", opt_no_build_id),
		OPT_QUIET(&a->quiet, "quiet: no line on where the page went"),
		OPT_VERBOSE(&a->verbose, "notes in full"),
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "view", .options = options,
		.usage = "eqprof view [options] FILE.eqp [MORE.eqp...]\n",
		.about = "Writes one HTML page that works offline (nothing is fetched when it opens;\n"
			 "it can be mailed) and shows power against time, the energy and code of a\n"
			 "dragged range, and, with two recordings, time against energy (a time- and\n"
			 "an energy-driven one) or the two runs overlaid (two of one kind).\n",
		.footer = "docs/viewer.md describes the page.\n",
	};
	int n, i;

	memset(a, 0, sizeof(*a));
	a->open = -1;
	a->so.check_build_id = 1;
	n = eq_parse_options(&cmd, argc, argv, NULL);
	if (n < 0)
		return n == EQ_PARSE_HELP ? 1 : 2;
	for (i = 0; i < n; i++) {
		if (a->nfiles == MAX_FILES)
			return eq_usage_error(&cmd, 0, "at most 8 recordings in one page");
		a->files[a->nfiles++] = argv[i];
	}
	if (!a->nfiles)
		return eq_usage_error(&cmd, 0, "give a recording (FILE.eqp)");
	return 0;
}

/* ---- the page template ---------------------------------------------------- */

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * EQPROF_VIEWER, else beside the executable: the build tree's
 * viewer/viewer.html (build/eqprof, build/viewer/), or the installed
 * ../share/eqprof/viewer.html (PREFIX/bin/eqprof).
 */
static const char *find_template(char *buf, size_t size, char *tried, size_t tsize)
{
	const char *env = getenv("EQPROF_VIEWER");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	tried[0] = '\0';
	if (env && *env) {
		snprintf(tried, tsize, "%s (EQPROF_VIEWER)", env);
		return is_file(env) ? env : NULL;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	snprintf(buf, size, "%s/viewer/viewer.html", exe);
	if (is_file(buf))
		return buf;
	snprintf(tried, tsize, "%s", buf);
	snprintf(buf, size, "%s/../share/eqprof/viewer.html", exe);
	if (is_file(buf))
		return buf;
	snprintf(tried + strlen(tried), tsize - strlen(tried), " or %s", buf);
	return NULL;
}

/* ---- compare and diff, as their commands print them ----------------------- */

/* cmd(argc, argv) with its standard error kept aside and shown only when
 * it fails: its notes were already given for the recordings themselves. */
static int run_quietly(int (*cmd)(int, char **), int argc, char **argv)
{
	FILE *log = tmpfile();
	const char *name = eq_command();
	int saved = -1, rc, verbosity = eq_verbosity;
	char buf[4096];
	size_t n;

	fflush(stderr);
	if (log)
		saved = dup(2);
	if (saved >= 0)
		dup2(fileno(log), 2);
	rc = cmd(argc, argv);
	/* the inner command named itself and took -q: ours again */
	eq_set_command(name);
	eq_verbosity = verbosity;
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	if (log) {
		if (rc != 0) {
			rewind(log);
			while ((n = fread(buf, 1, sizeof(buf), log)) > 0)
				fwrite(buf, 1, n, stderr);
		}
		fclose(log);
	}
	return rc;
}

/* Runs `eqprof CMD FILES... --by BY --format json -q` into a temporary file
 * and returns its text (malloc'd), or NULL after a message. */
static char *run_json(int (*cmd)(int, char **), const char *name, const struct view_args *a,
		      const char *f1, const char *f2, const char *by)
{
	char tmpl[] = "/tmp/eqprof-view.XXXXXX", *argv[16], *text = NULL;
	int argc = 0, fd = mkstemp(tmpl), rc;
	FILE *f;
	long len;

	if (fd < 0) {
		eq_error_msg("a temporary file for %s: %s", name, strerror(errno));
		return NULL;
	}
	close(fd);
	argv[argc++] = (char *)name;
	argv[argc++] = (char *)f1;
	argv[argc++] = (char *)f2;
	argv[argc++] = "--by";
	argv[argc++] = (char *)by;
	argv[argc++] = "--format";
	argv[argc++] = "json";
	argv[argc++] = "-q";
	if (a->so.symfs) {
		argv[argc++] = "--symfs";
		argv[argc++] = (char *)a->so.symfs;
	}
	if (!a->so.check_build_id)
		argv[argc++] = "--no-build-id-check";
	argv[argc++] = "-o";
	argv[argc++] = tmpl;
	argv[argc] = NULL;
	rc = run_quietly(cmd, argc, argv);
	f = rc == 0 ? fopen(tmpl, "rb") : NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (text = malloc((size_t)len + 1))) {
		if (fread(text, 1, (size_t)len, f) != (size_t)len) {
			free(text);
			text = NULL;
		} else {
			text[len] = '\0';
		}
	}
	if (f)
		fclose(f);
	unlink(tmpl);
	if (!text)
		eq_error_msg("eqprof %s %s %s --by %s gave nothing to show", name, f1, f2, by);
	return text;
}

/* ---- the page's data ------------------------------------------------------- */

static const char *const bys[] = { "exe", "module", "proc", "line" };

struct page {
	const struct view_args *a;
	struct eq_view *v[MAX_FILES];
	struct eqp_file *f[MAX_FILES];
	struct eq_symbolizer *s[MAX_FILES];
	const char *kind;           /* "compare", "diff" or NULL */
	int first, second;          /* the files compared: time, energy (or A, B) */
	char *json[4];              /* by exe, module, proc, line */
};

/* JSON of compare/diff output is trusted text from our own writer: it is put
 * in the script element with '<' escaped (names may hold "</script>"). */
static void put_json_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("\\u003c", out);
		else
			fputc(*s, out);
	}
}

static int page_data(FILE *out, void *arg, struct eq_error *err)
{
	struct page *p = arg;
	int i, k;

	fprintf(out, "{\"eqprof_view\": 1, \"generator\": \"eqprof %s\", \"runs\": [", EQPROF_VERSION);
	for (i = 0; i < p->a->nfiles; i++) {
		fputs(i ? ",\n " : "\n ", out);
		if (eq_view_write_json(out, p->v[i], err) < 0)
			return -1;
	}
	fputs("]", out);
	if (p->kind) {
		fprintf(out, ",\n \"%s\": {\"a\": %d, \"b\": %d", p->kind, p->first, p->second);
		for (k = 0; k < 4; k++)
			if (p->json[k]) {
				fprintf(out, ", \"%s\": ", bys[k]);
				put_json_text(out, p->json[k]);
			}
		fputs("}", out);
	}
	fputs("}\n", out);
	return ferror(out) ? eq_fail(err, "writing the page failed") : 0;
}

/* Two recordings: a time- and an energy-driven one are compared; two of
 * one kind are two runs (diff, first before second). */
static int two_recordings(struct page *p)
{
	enum eqp_mode m0, m1;
	int k, n = p->a->lines ? 4 : 3;

	if (p->a->nfiles != 2)
		return 0;
	m0 = eqp_meta(p->f[0])->mode;
	m1 = eqp_meta(p->f[1])->mode;
	if (m0 != m1) {
		p->kind = "compare";
		p->first = m0 == EQP_MODE_TIME ? 0 : 1;
		p->second = 1 - p->first;
	} else {
		p->kind = "diff";
		p->first = 0;
		p->second = 1;
	}
	for (k = 0; k < n; k++) {
		p->json[k] = run_json(m0 != m1 ? cmd_compare : cmd_diff, p->kind, p->a,
				      p->a->files[p->first], p->a->files[p->second], bys[k]);
		if (!p->json[k])
			return -1;
	}
	return 0;
}

/* ---- opening it ------------------------------------------------------------- */

static void open_page(const char *path)
{
	char *argv[] = { "xdg-open", (char *)path, NULL };
	pid_t pid;
	int st;

	if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ) != 0) {
		eq_error_msg("wrote %s; xdg-open is not there to open it: open it in a browser", path);
		return;
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		eq_error_msg("wrote %s; xdg-open could not open it: open it in a browser", path);
}

static char *default_out(const char *first)
{
	size_t n = strlen(first);
	char *s = malloc(n + 6);

	if (!s)
		return NULL;
	strcpy(s, first);
	if (n > 4 && !strcmp(s + n - 4, ".eqp"))
		s[n - 4] = '\0';
	strcat(s, ".html");
	return s;
}

static int load(struct page *p, int i, struct eq_error *err)
{
	const struct view_args *a = p->a;
	struct eq_view_opts vo = { .buckets = a->buckets, .basis = a->basis, .lines = a->lines,
				   .name = a->files[i] };
	size_t w;

	p->f[i] = eqp_open(a->files[i], err);
	if (!p->f[i])
		return -1;
	if (eqp_warning(p->f[i]))
		eq_warn("%s", eqp_warning(p->f[i]));
	p->s[i] = eq_sym_new(p->f[i], &a->so, err);
	if (!p->s[i])
		return -1;
	eq_sym_skip_lines(p->s[i], !a->lines);
	p->v[i] = eq_view_build(p->f[i], p->s[i], &vo, err);
	if (!p->v[i])
		return -1;
	for (w = 0; !a->quiet && w < eq_sym_nwarnings(p->s[i]); w++)
		eq_warn("%s", eq_sym_warning(p->s[i], w));
	return 0;
}

/*
 * Two recordings on one page share their bucket edges (the coarser one's
 * width, when both count time on one clock): a range dragged over both is
 * then the same --from/--to in each, as compare and diff take it.  The
 * recording with the finer buckets is folded again.
 */
static int same_edges(struct page *p, struct eq_error *err)
{
	const struct view_args *a = p->a;
	uint64_t w0, w1;
	int fine;
	struct eq_view_opts vo = { .buckets = a->buckets, .basis = a->basis, .lines = a->lines };

	if (a->nfiles != 2 || eq_view_clock_hz(p->v[0]) != eq_view_clock_hz(p->v[1]))
		return 0;
	w0 = eq_view_bucket_ticks(p->v[0]);
	w1 = eq_view_bucket_ticks(p->v[1]);
	if (w0 == w1)
		return 0;
	fine = w0 < w1 ? 0 : 1;
	vo.name = a->files[fine];
	vo.w_ticks = w0 < w1 ? w1 : w0;
	eq_view_free(p->v[fine]);
	p->v[fine] = eq_view_build(p->f[fine], p->s[fine], &vo, err);
	return p->v[fine] ? 0 : -1;
}

int cmd_view(int argc, char **argv)
{
	static struct view_args a;
	struct page p = { .a = &a };
	struct eq_outfile of;
	struct eq_error err;
	char tbuf[PATH_MAX + 64], tried[2 * PATH_MAX + 64], *out = NULL;
	const char *tmpl;
	int rc, i, open_it;

	rc = parse_args(&a, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	tmpl = find_template(tbuf, sizeof(tbuf), tried, sizeof(tried));
	if (!tmpl) {
		eq_error_msg("the viewer page is not built (no %s): run 'make viewer' in eqprof's "
			     "source tree (it needs Node.js and npm, and fetches its libraries once "
			     "from the npm registry), or set EQPROF_VIEWER to a viewer.html", tried);
		return 1;
	}
	out = a.out ? strdup(a.out) : default_out(a.files[0]);
	rc = 1;
	if (!out)
		goto done;
	for (i = 0; i < a.nfiles; i++)
		if (load(&p, i, &err) < 0) {
			eq_error_msg("%s", err.msg);
			goto done;
		}
	if (same_edges(&p, &err) < 0) {
		eq_error_msg("%s", err.msg);
		goto done;
	}
	if (two_recordings(&p) < 0)
		goto done;
	if (eq_output_not_input(out, a.files, (size_t)a.nfiles, &err) < 0 ||
	    eq_outfile_open(&of, out, &err) < 0) {
		eq_error_msg("%s", err.msg);
		goto done;
	}
	if (eq_view_write_page(of.fp, tmpl, page_data, &p, &err) < 0) {
		eq_outfile_discard(&of);
		eq_error_msg("%s", err.msg);
		goto done;
	}
	if (eq_outfile_commit(&of, &err) < 0) {
		eq_error_msg("%s", err.msg);
		goto done;
	}
	rc = 0;
	open_it = a.open == 1 || (a.open == -1 && !a.out &&
				  ((getenv("DISPLAY") && *getenv("DISPLAY")) ||
				   (getenv("WAYLAND_DISPLAY") && *getenv("WAYLAND_DISPLAY"))));
	if (open_it)
		open_page(out);
	else if (!a.quiet && !a.out)
		eq_note("wrote %s: open it in a browser", out);
done:
	for (i = 0; i < a.nfiles; i++) {
		eq_view_free(p.v[i]);
		eq_sym_free(p.s[i]);
		if (p.f[i])
			eqp_close(p.f[i]);
	}
	for (i = 0; i < 4; i++)
		free(p.json[i]);
	free(out);
	return rc;
}
