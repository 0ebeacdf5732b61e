/*
 * test_parse_options.c - the one option parser (host/parse-options.c) on a
 * table of every kind of option: the spellings getopt_long and perf accept
 * (--x V, --x=V, -xV, -x V, bundled flags, unambiguous prefixes), "--" and
 * stopping at the first argument, optional values, modes, and the one-line
 * errors (unknown with a suggestion, ambiguous, missing or unwanted value,
 * an option of another mode).  Each expectation is what the grammar in
 * parse-options.h says, written out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd.h"
#include "parse-options.h"

struct opts {
	int flag, quiet, verbose, level;
	const char *out, *name;
	double duration;
	const char *rate;
	int calls;
	int fail;
};

static struct opts o;

static int count_cb(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct opts *v = opt->value;

	v->calls++;
	if (arg && !strcmp(arg, "bad"))
		return eq_fail(err, "--%s %s: a bad value", opt->long_name, arg);
	return 0;
}

static int rate_cb(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	*(const char **)opt->value = arg ? arg : "default";
	return 0;
}

/* The next word is a rate when it starts with a digit; "x" is an error. */
static int rate_next(const char *w, struct eq_error *err)
{
	if (!strcmp(w, "x"))
		return eq_fail(err, "-r x: neither a rate nor a command");
	return w[0] >= '0' && w[0] <= '9';
}

#define MODE_B 0x2u

static const struct eq_option table[] = {
	OPT_ARG("FILE", "a file"),
	OPT_FLAG('f', "flag", &o.flag, "a flag"),
	OPT_STRING('o', "output", &o.out, "FILE", "where"),
	OPT_STRING(0, "name", &o.name, "N", "a name"),
	{ .type = EQ_OPTION_STRING, .long_name = "names", .value = &o.name, .argh = "N",
	  .help = "several" },
	OPT_CALLBACK(0, "duration", &o.duration, "T", "how long", eq_opt_seconds),
	OPT_CALLBACK(0, "count", &o, "N", "counted", count_cb),
	OPT_SET_INT(0, "level-two", &o.level, 2, "level 2"),
	{ .type = EQ_OPTION_CALLBACK, .short_name = 'r', .long_name = "rate", .value = &o.rate,
	  .argh = "HZ", .help = "optional rate", .cb = rate_cb, .flags = EQ_OPT_OPTARG,
	  .takes_next = rate_next },
	OPT_GROUP("mode b:"),
	{ .type = EQ_OPTION_FLAG, .long_name = "bee", .value = &o.fail, .defval = 1,
	  .help = "into mode b", .flags = EQ_OPT_MODE, .defmode = MODE_B },
	{ .type = EQ_OPTION_FLAG, .long_name = "only-b", .value = &o.fail, .defval = 2,
	  .help = "mode b only", .modes = MODE_B },
	{ .type = EQ_OPTION_FLAG, .long_name = "only-main", .value = &o.fail, .defval = 3,
	  .help = "main only", .modes = EQ_MODE_MAIN, .alias = "main-only" },
	OPT_QUIET(&o.quiet, "quiet"),
	OPT_VERBOSE(&o.verbose, "verbose"),
	OPT_END(),
};

static const struct eq_command cmd = { .name = "t", .usage = "eqprof t [options] FILE\n",
				       .options = table, .mode_names = { NULL, "--bee" } };
static const struct eq_command stop_cmd = { .name = "t", .options = table,
					    .flags = EQ_PARSE_STOP_AT_ARG };

/* Parses the words (NULL-terminated) into o; the return of the parser. */
static int run(const struct eq_command *c, char *err, unsigned *mode, char **rest, ...)
{
	char *argv[32];
	va_list ap;
	struct eq_error e = { "" };
	int argc = 0, n;

	memset(&o, 0, sizeof(o));
	eq_verbosity = 0;
	argv[argc++] = "t";
	va_start(ap, rest);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	n = eq_parse_options_err(c, argc, argv, mode, &e);
	if (err)
		strcpy(err, e.msg);
	for (int i = 0; rest && i < n; i++)
		rest[i] = argv[i];
	return n;
}

static void spellings(void **state)
{
	char *rest[8];
	unsigned mode;

	assert_int_equal(run(&cmd, NULL, &mode, rest, "--output", "a", "x.eqp", "-f", NULL), 1);
	assert_string_equal(o.out, "a");
	assert_string_equal(rest[0], "x.eqp");
	assert_int_equal(o.flag, 1);
	assert_int_equal(mode, EQ_MODE_MAIN);
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "--output=b", NULL), 0);
	assert_string_equal(o.out, "b");
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "-oc", NULL), 0);
	assert_string_equal(o.out, "c");
	/* bundled flags, the last taking the next word */
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "-fqo", "d", NULL), 0);
	assert_string_equal(o.out, "d");
	assert_true(o.flag && o.quiet);
	assert_int_equal(eq_verbosity, -1);
	/* a value may start with '-' */
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "--name", "-x", NULL), 0);
	assert_string_equal(o.name, "-x");
	/* prefixes: unambiguous (--dur, --level), exact beats a longer name (--name) */
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "--dur=5", "--level", NULL), 0);
	assert_true(o.duration == 5.0);
	assert_int_equal(o.level, 2);
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "--name", "n", NULL), 0);
	/* aliases */
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "--main-only", NULL), 0);
	assert_int_equal(o.fail, 3);
	/* -v counts */
	assert_int_equal(run(&cmd, NULL, NULL, NULL, "-vv", NULL), 0);
	assert_int_equal(o.verbose, 2);
	assert_int_equal(eq_verbosity, 2);
}

static void arguments(void **state)
{
	char *rest[8];

	/* between options, "-" is an argument, "--" ends the options */
	assert_int_equal(run(&cmd, NULL, NULL, rest, "a", "-f", "-", "--", "-o", "b", NULL), 4);
	assert_string_equal(rest[0], "a");
	assert_string_equal(rest[1], "-");
	assert_string_equal(rest[2], "-o");
	assert_string_equal(rest[3], "b");
	assert_null(o.out);
	/* the first argument ends the options (a command to run) */
	assert_int_equal(run(&stop_cmd, NULL, NULL, rest, "-f", "ls", "-o", "x", NULL), 3);
	assert_string_equal(rest[0], "ls");
	assert_string_equal(rest[1], "-o");
	assert_null(o.out);
}

static void optional_values(void **state)
{
	char err[1024], *rest[8];

	assert_int_equal(run(&stop_cmd, NULL, NULL, rest, "-r", "ls", NULL), 1);
	assert_string_equal(o.rate, "default");
	assert_int_equal(run(&stop_cmd, NULL, NULL, rest, "-r", "4000", "ls", NULL), 1);
	assert_string_equal(o.rate, "4000");
	assert_int_equal(run(&stop_cmd, NULL, NULL, rest, "-r4k", "ls", NULL), 1);
	assert_string_equal(o.rate, "4k");
	assert_int_equal(run(&stop_cmd, NULL, NULL, rest, "--rate=5", NULL), 0);
	assert_string_equal(o.rate, "5");
	assert_int_equal(run(&stop_cmd, err, NULL, NULL, "-r", "x", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "-r x: neither a rate nor a command");
}

static void errors(void **state)
{
	char err[1024];

	assert_int_equal(run(&cmd, err, NULL, NULL, "--outptu", "a", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "unknown option '--outptu'; did you mean --output?");
	assert_int_equal(run(&cmd, err, NULL, NULL, "--zzz", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "unknown option '--zzz'");
	assert_int_equal(run(&cmd, err, NULL, NULL, "-z", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "unknown option '-z'");
	assert_int_equal(run(&cmd, err, NULL, NULL, "--na", "x", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "--na is ambiguous: --name, --names");
	assert_int_equal(run(&cmd, err, NULL, NULL, "--output", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "--output needs a value: FILE");
	assert_int_equal(run(&cmd, err, NULL, NULL, "-o", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "-o needs a value: FILE");
	assert_int_equal(run(&cmd, err, NULL, NULL, "--flag=1", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "--flag takes no value (--flag=1 given)");
	assert_int_equal(run(&cmd, err, NULL, NULL, "--count", "bad", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "--count bad: a bad value");
	assert_int_equal(run(&cmd, err, NULL, NULL, "--duration", "0", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "--duration 0: must be more than 0");
}

static void modes(void **state)
{
	char err[1024];
	unsigned mode;

	assert_int_equal(run(&cmd, err, &mode, NULL, "--only-b", "--bee", NULL), 0);
	assert_int_equal(mode, MODE_B);
	assert_int_equal(run(&cmd, err, &mode, NULL, "--only-b", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "--only-b goes with --bee");
	assert_int_equal(run(&cmd, err, &mode, NULL, "--bee", "--only-main", NULL), EQ_PARSE_ERROR);
	assert_string_equal(err, "--only-main does not go with --bee");
	/* options of every mode go with both */
	assert_int_equal(run(&cmd, err, &mode, NULL, "--bee", "-o", "x", NULL), 0);
}

/* --help lists every option once, its value's name, aliases, groups. */
static void usage_text(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	eq_usage(f, &cmd, 0);
	fclose(f);
	assert_non_null(strstr(buf, "usage: eqprof t [options] FILE\n"));
	assert_non_null(strstr(buf, "\n  FILE              a file\n"));
	/* too wide for the help's column (20): the help on the next line, at
	 * the column, as perf's --help does */
	assert_non_null(strstr(buf, "\n  -o, --output FILE\n                    where\n"));
	assert_non_null(strstr(buf, "\n  -r, --rate [HZ]   optional rate\n"));
	assert_non_null(strstr(buf, "\n  --only-main, --main-only\n                    main only\n"));
	assert_non_null(strstr(buf, "\nmode b:\n  --bee"));
	assert_null(strstr(strstr(buf, "--output") + 1, "--output"));
	free(buf);
	/* one mode's help leaves the other mode's options out */
	f = open_memstream(&buf, &len);
	eq_usage(f, &cmd, MODE_B);
	fclose(f);
	assert_null(strstr(buf, "--only-main"));
	assert_non_null(strstr(buf, "--only-b"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spellings),
		cmocka_unit_test(arguments),
		cmocka_unit_test(optional_values),
		cmocka_unit_test(errors),
		cmocka_unit_test(modes),
		cmocka_unit_test(usage_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
