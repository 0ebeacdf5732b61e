/*
 * test_outfile.c - outputs written safely (analysis/file/outfile.h): a
 * symlink planted at the temporary's name, a symlink, a FIFO and a device
 * as the output, kept permissions, an output that names an input, several
 * outputs all or nothing, folders swapped whole, and temporaries removed
 * when a signal ends the process.  Each case runs with unnamed (O_TMPFILE)
 * and with named temporaries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file/outfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/outfile-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *path(const char *name)
{
	static char p[8][256];
	static int k;

	k = (k + 1) % 8;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *p)
{
	static char buf[4096];
	FILE *f = fopen(p, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int write_out(const char *p, const char *text)
{
	struct eq_outfile o;
	struct eq_error err;

	if (eq_outfile_open(&o, p, &err) < 0)
		return -1;
	fputs(text, o.fp);
	return eq_outfile_commit(&o, &err);
}

/* Entries of dir other than the ones named. */
static int strays(const char *keep1, const char *keep2)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, keep1) && (!keep2 || strcmp(e->d_name, keep2)))
			n++;
	closedir(d);
	return n;
}

static void planted_symlink_is_not_followed(void **state)
{
	char planted[256];
	int named;

	(void)state;
	for (named = 0; named < 2; named++) {
		eq_outfile_no_tmpfile = named;
		put(path("victim"), "precious");
		snprintf(planted, sizeof(planted), "%s.tmp.%ld", path("out"), (long)getpid());
		assert_int_equal(symlink(path("victim"), planted), 0);
		assert_int_equal(write_out(path("out"), "result"), 0);
		assert_string_equal(get(path("victim")), "precious");
		assert_string_equal(get(path("out")), "result");
		unlink(planted);
		unlink(path("out"));
	}
	eq_outfile_no_tmpfile = 0;
}

static void symlink_output_is_written_through(void **state)
{
	struct stat st;

	(void)state;
	put(path("real"), "old");
	assert_int_equal(symlink("real", path("link")), 0);
	assert_int_equal(write_out(path("link"), "new"), 0);
	assert_int_equal(lstat(path("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(get(path("real")), "new");
	/* a dangling link is refused, not replaced */
	assert_int_equal(symlink("missing", path("dangling")), 0);
	assert_int_equal(write_out(path("dangling"), "x"), -1);
	assert_int_equal(lstat(path("dangling"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

static void devices_and_fifos_are_written_into(void **state)
{
	struct stat st;
	struct eq_error err;
	struct eq_outfile o;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(write_out("/dev/null", "discarded"), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* a FIFO with a reader gets the bytes and stays a FIFO */
	assert_int_equal(mkfifo(path("fifo"), 0600), 0);
	pid = fork();
	if (pid == 0) {
		char *got = get(path("fifo"));

		_exit(got && !strcmp(got, "through the pipe") ? 0 : 1);
	}
	assert_int_equal(write_out(path("fifo"), "through the pipe"), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(lstat(path("fifo"), &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* a directory is refused, saying so */
	assert_int_equal(eq_outfile_open(&o, dir, &err), -1);
	assert_non_null(strstr(err.msg, "a directory"));
}

static void existing_mode_is_kept(void **state)
{
	struct stat st;
	int named;

	(void)state;
	for (named = 0; named < 2; named++) {
		eq_outfile_no_tmpfile = named;
		put(path("secret"), "x");
		assert_int_equal(chmod(path("secret"), 0600), 0);
		assert_int_equal(write_out(path("secret"), "rewritten"), 0);
		assert_int_equal(stat(path("secret"), &st), 0);
		assert_int_equal(st.st_mode & 07777, 0600);
		assert_int_equal(strays("secret", NULL), 0);
		unlink(path("secret"));
	}
	eq_outfile_no_tmpfile = 0;
}

static void output_naming_an_input_is_refused(void **state)
{
	struct eq_error err;
	const char *in[2];

	(void)state;
	put(path("run.eqp"), "data");
	assert_int_equal(symlink("run.eqp", path("alias")), 0);
	in[0] = NULL;
	in[1] = path("run.eqp");
	assert_int_equal(eq_output_not_input(path("alias"), in, 2, &err), -1);
	assert_non_null(strstr(err.msg, "is the input"));
	assert_int_equal(eq_output_not_input(path("other"), in, 2, &err), 0);
	assert_int_equal(eq_output_not_input("-", in, 2, &err), 0);
}

static void several_outputs_all_or_nothing(void **state)
{
	struct eq_outfile a, b;
	struct eq_outfile *all[2] = { &a, &b };
	struct eq_error err;

	(void)state;
	assert_int_equal(eq_outfile_open(&a, path("one"), &err), 0);
	assert_int_equal(eq_outfile_open(&b, path("two"), &err), 0);
	fputs("1", a.fp);
	fputs("2", b.fp);
	assert_int_equal(eq_outfile_commit_all(all, 2, &err), 0);
	assert_string_equal(get(path("one")), "1");
	assert_string_equal(get(path("two")), "2");
	/* a write error in the second: neither is replaced */
	assert_int_equal(eq_outfile_open(&a, path("one"), &err), 0);
	assert_int_equal(eq_outfile_open(&b, path("two"), &err), 0);
	fputs("A", a.fp);
	fputs("B", b.fp);
	/* the second one's writes fail, as on a full disk */
	{
		int ro = open("/dev/null", O_RDONLY);

		assert_true(ro >= 0 && dup2(ro, fileno(b.fp)) >= 0);
		close(ro);
	}
	assert_int_equal(eq_outfile_commit_all(all, 2, &err), -1);
	assert_string_equal(get(path("one")), "1");
	assert_string_equal(get(path("two")), "2");
	assert_int_equal(strays("one", "two"), 0);
}

static const char *const sim_names[] = { "energy.eqp", "truth.json", NULL };

static int write_dir(const char *d, const char *text)
{
	struct eq_outdir od;
	struct eq_outfile o;
	struct eq_error err;
	size_t i;

	if (eq_outdir_open(&od, d, sim_names, &err) < 0)
		return -1;
	for (i = 0; sim_names[i]; i++) {
		if (eq_outdir_file(&od, &o, sim_names[i], &err) < 0) {
			eq_outdir_discard(&od);
			return -1;
		}
		fputs(text, o.fp);
		if (eq_outfile_commit(&o, &err) < 0) {
			eq_outdir_discard(&od);
			return -1;
		}
	}
	return eq_outdir_commit(&od, &err);
}

static void folders_are_swapped_whole(void **state)
{
	char p[300];

	(void)state;
	/* missing parents are created */
	assert_int_equal(write_dir(path("a/b/run"), "seed1"), 0);
	snprintf(p, sizeof(p), "%s/truth.json", path("a/b/run"));
	assert_string_equal(get(p), "seed1");
	assert_int_equal(write_dir(path("a/b/run"), "seed2"), 0);
	assert_string_equal(get(p), "seed2");
	snprintf(p, sizeof(p), "%s/energy.eqp", path("a/b/run"));
	assert_string_equal(get(p), "seed2");
	/* a folder holding someone else's file is not touched */
	snprintf(p, sizeof(p), "%s/notes.txt", path("a/b/run"));
	put(p, "mine");
	assert_int_equal(write_dir(path("a/b/run"), "seed3"), -1);
	assert_string_equal(get(p), "mine");
	snprintf(p, sizeof(p), "%s/truth.json", path("a/b/run"));
	assert_string_equal(get(p), "seed2");
}

/* A child writes an output and is ended by a signal halfway: nothing is
 * left, not even a named temporary. */
static void signal_leaves_no_temporary(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	size_t k;

	(void)state;
	for (k = 0; k < 3; k++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			struct eq_outfile o;
			struct eq_outdir d;
			struct eq_error err;

			eq_outfile_no_tmpfile = 1;
			if (eq_outfile_open(&o, path("half"), &err) < 0 ||
			    eq_outdir_open(&d, path("halfdir"), sim_names, &err) < 0)
				_exit(3);
			fputs("half of it", o.fp);
			fflush(o.fp);
			raise(sigs[k]);
			_exit(4);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]);
		assert_int_equal(strays("", NULL), 0);
	}
}

/* A recording is kept under its temporary name when its writer dies. */
static void recording_survives_a_kill(void **state)
{
	pid_t pid;
	int status;
	char tmp[300];

	(void)state;
	pid = fork();
	if (pid == 0) {
		struct eq_outfile o;
		struct eq_error err;

		if (eq_outfile_open_flags(&o, path("rec.eqp"), EQ_OUT_RECORDING, &err) < 0)
			_exit(3);
		fputs("samples so far", o.fp);
		eq_outfile_flush(&o, &err);
		raise(SIGTERM);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path("rec.eqp"), (long)pid);
	assert_string_equal(get(tmp), "samples so far");
	assert_null(get(path("rec.eqp")));
	unlink(tmp);
}

int main(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	size_t k;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(planted_symlink_is_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(symlink_output_is_written_through, setup, teardown),
		cmocka_unit_test_setup_teardown(devices_and_fifos_are_written_into, setup, teardown),
		cmocka_unit_test_setup_teardown(existing_mode_is_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(output_naming_an_input_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(several_outputs_all_or_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(folders_are_swapped_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(signal_leaves_no_temporary, setup, teardown),
		cmocka_unit_test_setup_teardown(recording_survives_a_kill, setup, teardown),
	};

	/* A suite started in the background (`make check &` from a script)
	 * inherits SIGINT ignored, and the outfile layer, as careful tools do,
	 * leaves an ignored signal ignored: signal_leaves_no_temporary's
	 * children must die of these signals, whatever started the suite. */
	for (k = 0; k < sizeof(stops) / sizeof(stops[0]); k++)
		signal(stops[k], SIG_DFL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
