/*
 * plot.c - running gnuplot; see plot.h.
 *
 * The plot commands are written by the caller into a script file after a
 * placeholder for the terminal; plot_render() writes a second script that
 * sets the terminal and output and then loads the caller's, so a failing
 * plot leaves the caller's script intact for the error message.
 */
#include "power/plot.h"
#include "file/outfile.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum plot_kind plot_kind_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot)
		return PLOT_NONE;
	if (!strcasecmp(dot, ".png"))
		return PLOT_PNG;
	if (!strcasecmp(dot, ".svg"))
		return PLOT_SVG;
	if (!strcasecmp(dot, ".pdf"))
		return PLOT_PDF;
	if (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"))
		return PLOT_JPEG;
	return PLOT_NONE;
}

int plot_check_output(const char *path, const char *what, struct eq_error *err)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	if (!strcmp(path, "-") || plot_kind_of(path) != PLOT_NONE ||
	    (dot && (!slash || dot > slash) && !strcasecmp(dot, ".csv")))
		return 0;
	return eq_fail(err, "%s %s: the name says neither data nor a picture: give .csv for the data, "
		       "or " PLOT_FORMATS " for a plot drawn by gnuplot", what, path);
}

static const char *const kind_ext[] = { "", "png", "svg", "pdf", "jpg" };

int plot_begin(struct plot *p, struct eq_error *err)
{
	const char *tmp = getenv("TMPDIR");

	memset(p, 0, sizeof(*p));
	snprintf(p->dir, sizeof(p->dir), "%s/eqprof-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->dir))
		return eq_fail(err, "cannot create a temporary directory %s for gnuplot: %s",
			       p->dir, strerror(errno));
	snprintf(p->script_path, sizeof(p->script_path), "%s/plot.gp", p->dir);
	p->script = fopen(p->script_path, "w");
	if (!p->script) {
		eq_fail(err, "cannot create %s: %s", p->script_path, strerror(errno));
		plot_end(p);
		return -1;
	}
	return 0;
}

FILE *plot_data(struct plot *p, char *path, size_t size, struct eq_error *err)
{
	FILE *f;

	snprintf(path, size, "%s/data%d.dat", p->dir, p->ndata++);
	f = fopen(path, "w");
	if (!f)
		eq_fail(err, "cannot create %s: %s", path, strerror(errno));
	return f;
}

void plot_quote(FILE *script, const char *s)
{
	fputc('\'', script);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', script);
		if (*s != '\n')
			fputc(*s, script);
	}
	fputc('\'', script);
}

static int write_driver(struct plot *p, const char *img, enum plot_kind kind,
			int width, int height, char *driver, size_t size,
			struct eq_error *err)
{
	FILE *f;

	snprintf(driver, size, "%s/driver.gp", p->dir);
	f = fopen(driver, "w");
	if (!f)
		return eq_fail(err, "cannot create %s: %s", driver, strerror(errno));
	switch (kind) {
	case PLOT_PNG:
		fprintf(f, "set terminal pngcairo enhanced size %d,%d font 'DejaVu Sans,11'\n",
			width, height);
		break;
	case PLOT_PDF:
		/* cairo's pdf is in inches: 100 pixels an inch keeps the proportions */
		fprintf(f, "set terminal pdfcairo enhanced size %.2fin,%.2fin font 'DejaVu Sans,9'\n",
			width / 100.0, height / 100.0);
		break;
	case PLOT_JPEG:
		fprintf(f, "set terminal jpeg enhanced size %d,%d font 'DejaVu Sans,11' "
			   "background rgb 'white'\n", width, height);
		break;
	default:
		fprintf(f, "set terminal svg enhanced size %d,%d font 'DejaVu Sans,12' "
			   "background rgb 'white'\n", width, height);
	}
	fputs("set output ", f);
	plot_quote(f, img);
	fputs("\nload ", f);
	plot_quote(f, p->script_path);
	fputs("\nset output\n", f);
	if (fclose(f) != 0)
		return eq_fail(err, "writing %s failed: %s", driver, strerror(errno));
	return 0;
}

/* gnuplot's stderr, for the error message: its last line says what failed. */
static void last_lines(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0) {
		long len = ftell(f);

		fseek(f, len > (long)size - 1 ? len - (long)size + 1 : 0, SEEK_SET);
	}
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	for (n = 0; buf[n]; n++)
		if (buf[n] == '\n')
			buf[n] = ' ';
	fclose(f);
}

static int run_gnuplot(const char *driver, const char *errlog, struct eq_error *err)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "gnuplot", (char *)driver, NULL };
	char tail[400];
	pid_t pid;
	int rc, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return eq_fail(err, "cannot run gnuplot: %s (install gnuplot-nox: scripts/deps)",
			       strerror(rc));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return eq_fail(err, "waiting for gnuplot: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	last_lines(errlog, tail, sizeof(tail));
	if (WIFSIGNALED(status))
		return eq_fail(err, "gnuplot was killed by signal %d: %s",
			       WTERMSIG(status), tail);
	return eq_fail(err, "gnuplot failed with status %d: %s", WEXITSTATUS(status), tail);
}

/* gnuplot draws into the plot's private folder (no name anyone else can
 * plant), the image is checked, then copied into the output. */
int plot_render_to(struct plot *p, struct eq_outfile *o, const char *out, int width,
		   int height, struct eq_error *err)
{
	enum plot_kind kind = plot_kind_of(out);
	char driver[320], errlog[320], img[320], buf[65536];
	FILE *f;
	size_t n;

	if (kind == PLOT_NONE)
		return eq_fail(err, "%s: a plot is written as " PLOT_FORMATS, out);
	if (fclose(p->script) != 0) {
		p->script = NULL;
		return eq_fail(err, "writing %s failed: %s", p->script_path, strerror(errno));
	}
	p->script = NULL;
	snprintf(img, sizeof(img), "%s/image.%s", p->dir, kind_ext[kind]);
	snprintf(errlog, sizeof(errlog), "%s/gnuplot.log", p->dir);
	if (write_driver(p, img, kind, width, height, driver, sizeof(driver), err) < 0 ||
	    run_gnuplot(driver, errlog, err) < 0 ||
	    plot_check_image(img, kind, err) < 0)
		return eq_fail_prefix(err, "plotting %s", out);
	f = fopen(img, "rb");
	if (!f)
		return eq_fail(err, "plotting %s: cannot read %s: %s", out, img, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, o->fp) != n)
			break;
	if (ferror(f) || ferror(o->fp)) {
		fclose(f);
		return eq_fail(err, "writing %s failed: %s (disk full?)", out, strerror(errno));
	}
	fclose(f);
	return 0;
}

int plot_render(struct plot *p, const char *out, int width, int height,
		struct eq_error *err)
{
	struct eq_outfile o;

	if (plot_kind_of(out) == PLOT_NONE)
		return eq_fail(err, "%s: a plot is written as " PLOT_FORMATS, out);
	if (eq_outfile_open(&o, out, err) < 0)
		return -1;
	if (plot_render_to(p, &o, out, width, height, err) < 0) {
		eq_outfile_discard(&o);
		return -1;
	}
	return eq_outfile_commit(&o, err);
}

void plot_end(struct plot *p)
{
	DIR *d;
	struct dirent *e;
	char path[600];

	if (p->script)
		fclose(p->script);
	p->script = NULL;
	if (!p->dir[0])
		return;
	d = opendir(p->dir);
	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", p->dir, e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(p->dir);
	p->dir[0] = '\0';
}

/* The last bytes of f (at most size - 1), NUL-terminated; their number. */
static size_t file_tail(FILE *f, unsigned char *buf, size_t size)
{
	long len;
	size_t n;

	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0)
		return 0;
	if (fseek(f, len > (long)size - 1 ? len - (long)size + 1 : 0, SEEK_SET) != 0)
		return 0;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	return n;
}

/* NULL when head (n bytes) and tail (t bytes) are a complete image of kind,
 * else what is wrong. */
static const char *image_fault(enum plot_kind kind, const unsigned char *head, size_t n,
			       const unsigned char *tail, size_t t)
{
	static const unsigned char png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

	switch (kind) {
	case PLOT_PNG:
		if (n < 8 || memcmp(head, png_sig, 8) != 0)
			return "not a PNG image (no PNG signature)";
		/* A complete PNG ends with the IEND chunk. */
		if (t < 8 || memcmp(tail + t - 8, "IEND", 4) != 0)
			return "PNG image is incomplete (no IEND chunk)";
		return NULL;
	case PLOT_SVG:
		if (!strstr((const char *)head, "<svg"))
			return "not an SVG image (no <svg> root)";
		if (!strstr((const char *)tail, "</svg>"))
			return "SVG image is incomplete (no </svg>)";
		return NULL;
	case PLOT_PDF:
		if (n < 5 || memcmp(head, "%PDF-", 5) != 0)
			return "not a PDF document (no %PDF- header)";
		if (!strstr((const char *)tail, "%%EOF"))
			return "PDF document is incomplete (no %%EOF)";
		return NULL;
	case PLOT_JPEG:
		if (n < 3 || head[0] != 0xff || head[1] != 0xd8 || head[2] != 0xff)
			return "not a JPEG image (no SOI marker)";
		if (t < 2 || tail[t - 2] != 0xff || tail[t - 1] != 0xd9)
			return "JPEG image is incomplete (no EOI marker)";
		return NULL;
	default:
		return "not an image kind";
	}
}

int plot_check_image(const char *path, enum plot_kind kind, struct eq_error *err)
{
	unsigned char head[512], tail[32];
	struct stat st;
	FILE *f = fopen(path, "rb");
	size_t n, t;
	const char *why;

	if (!f)
		return eq_fail(err, "%s: gnuplot wrote no image: %s", path, strerror(errno));
	n = fread(head, 1, sizeof(head) - 1, f);
	head[n] = '\0';
	if (fstat(fileno(f), &st) != 0)
		st.st_size = 0;
	t = file_tail(f, tail, sizeof(tail));
	fclose(f);
	why = image_fault(kind, head, n, tail, t);
	if (why)
		return eq_fail(err, "%s: %s", path, why);
	if (st.st_size < 1000)
		return eq_fail(err, "%s: image is only %lld bytes: gnuplot drew nothing",
			       path, (long long)st.st_size);
	return 0;
}
