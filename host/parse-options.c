/*
 * parse-options.c - the one option parser of every eqprof command; see
 * parse-options.h.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse-options.h"
#include "util/units.h"

#define MAX_OPTIONS 128
#define HELP_COLUMN 20
#define EQ_PARSE_LIST (-3)  /* --list-opts was given */

struct parse {
	const struct eq_command *cmd;
	const struct eq_option *opts;
	size_t n;
	unsigned char given[MAX_OPTIONS];
	unsigned char given_short[MAX_OPTIONS]; /* last given by its short name */
	unsigned mode;                      /* 0 until a mode option is given */
	int mode_opt;                       /* the option that selected it */
	struct eq_error *err;
};

static int is_option(const struct eq_option *o)
{
	return o->type == EQ_OPTION_FLAG || o->type == EQ_OPTION_STRING ||
	       o->type == EQ_OPTION_CALLBACK;
}

static int takes_value(const struct eq_option *o)
{
	return o->type == EQ_OPTION_STRING ||
	       (o->type == EQ_OPTION_CALLBACK && !(o->flags & EQ_OPT_NOARG));
}

static unsigned bit_index(unsigned mode)
{
	unsigned i = 0;

	while (mode > 1) {
		mode >>= 1;
		i++;
	}
	return i;
}

static const char *mode_name(const struct eq_command *cmd, unsigned mode)
{
	unsigned i = bit_index(mode);

	return i < 8 && cmd->mode_names[i] ? cmd->mode_names[i] : "this mode";
}

/* ---- finding options ------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(*prev));
	}
	return prev[lb];
}

/* "; did you mean --by?" when one long name is close to what was typed. */
static void suggestion(const struct parse *p, const char *name, size_t len, char *buf, size_t size)
{
	char typed[64];
	const char *at = NULL;
	size_t i, k, best = 3, nbest = 0;

	buf[0] = '\0';
	if (len >= sizeof(typed))
		return;
	memcpy(typed, name, len);
	typed[len] = '\0';
	for (i = 0; i < p->n; i++) {
		/* the long name and its alias (--dsos for --dso) */
		const char *names[2] = { p->opts[i].long_name, p->opts[i].alias };

		if (!is_option(&p->opts[i]))
			continue;
		for (k = 0; k < 2; k++) {
			size_t d;

			if (!names[k])
				continue;
			d = edit_distance(typed, names[k]);
			if (d < best) {
				best = d;
				nbest = 1;
				at = names[k];
			} else if (d == best) {
				nbest++;
			}
		}
	}
	if (nbest == 1 && best <= (len > 4 ? 2u : 1u))
		snprintf(buf, size, "; did you mean --%s?", at);
}

static int name_is(const char *name, size_t len, const char *want)
{
	return want && strlen(want) == len && !strncmp(name, want, len);
}

/* The option called --name (len characters), exact or by an unambiguous
 * prefix; -1 with err. */
static long find_long(struct parse *p, const char *name, size_t len)
{
	size_t i, nprefix = 0, at = 0, used = 0;
	char list[512] = "", hint[96];

	for (i = 0; i < p->n; i++) {
		const struct eq_option *o = &p->opts[i];

		if (!is_option(o))
			continue;
		if (name_is(name, len, o->long_name) || name_is(name, len, o->alias))
			return (long)i;
	}
	for (i = 0; i < p->n; i++) {
		const struct eq_option *o = &p->opts[i];
		const char *hit = NULL;

		if (!is_option(o))
			continue;
		if (o->long_name && !strncmp(o->long_name, name, len))
			hit = o->long_name;
		else if (o->alias && !strncmp(o->alias, name, len))
			hit = o->alias;
		if (!hit)
			continue;
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s",
						 nprefix ? ", " : "", hit);
		nprefix++;
		at = i;
	}
	if (nprefix == 1 && len > 0)
		return (long)at;
	if (nprefix > 1 && len > 0)
		return eq_fail(p->err, "--%.*s is ambiguous: %s", (int)len, name, list);
	suggestion(p, name, len, hint, sizeof(hint));
	return eq_fail(p->err, "unknown option '--%.*s'%s", (int)len, name, hint);
}

static long find_short(struct parse *p, int c)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (is_option(&p->opts[i]) && p->opts[i].short_name == c)
			return (long)i;
	return eq_fail(p->err, "unknown option '-%c'", c);
}

/* "--name" or "-x", as the user wrote it (for messages). */
static const char *shown(const struct eq_option *o, int as_short, char *buf, size_t size)
{
	if (as_short || !o->long_name)
		snprintf(buf, size, "-%c", o->short_name);
	else
		snprintf(buf, size, "--%s", o->long_name);
	return buf;
}

/* ---- applying them ------------------------------------------------------- */

static int apply(struct parse *p, size_t i, const char *arg, const char *as)
{
	const struct eq_option *o = &p->opts[i];

	if (p->given[i] < 255)
		p->given[i]++;
	p->given_short[i] = as[0] == '-' && as[1] != '-';
	if (o->flags & EQ_OPT_MODE) {
		if (p->mode && p->mode != o->defmode)
			return eq_fail(p->err, "%s: give one of %s and %s", as,
				       mode_name(p->cmd, p->mode), mode_name(p->cmd, o->defmode));
		p->mode = o->defmode;
		p->mode_opt = (int)i;
	}
	switch (o->type) {
	case EQ_OPTION_FLAG:
		*(int *)o->value = o->defval;
		return 0;
	case EQ_OPTION_STRING:
		*(const char **)o->value = arg;
		return 0;
	case EQ_OPTION_CALLBACK:
		return o->cb(o, arg, p->err);
	default:
		return eq_fail(p->err, "%s: not an option", as);
	}
}

/* --name[=value] at argv[*k]; *k moves past a value taken from the next word. */
static int parse_long(struct parse *p, int argc, char **argv, int *k)
{
	const char *name = argv[*k] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	long i = find_long(p, name, len);
	const struct eq_option *o;
	char as[80];

	if (i < 0)
		return -1;
	o = &p->opts[i];
	shown(o, 0, as, sizeof(as));
	if (!takes_value(o)) {
		if (eq)
			return eq_fail(p->err, "%s takes no value (%s given)", as, argv[*k]);
		return apply(p, (size_t)i, NULL, argv[*k]);
	}
	if (eq)
		return apply(p, (size_t)i, eq + 1, argv[*k]);
	if (o->flags & EQ_OPT_OPTARG) {
		const char *typed = argv[*k], *value = NULL;
		int take = 0;

		if (*k + 1 < argc && o->takes_next && (take = o->takes_next(argv[*k + 1], p->err)) < 0)
			return -1;
		if (take)
			value = argv[++*k];
		return apply(p, (size_t)i, value, typed);
	}
	if (*k + 1 >= argc)
		return eq_fail(p->err, "%s needs a value%s%s", as, o->argh ? ": " : "",
			       o->argh ? o->argh : "");
	*k += 1;
	return apply(p, (size_t)i, argv[*k], argv[*k - 1]);
}

/* -abc: flags bundled, the last may take a value (-ofile, -o file). */
static int parse_short(struct parse *p, int argc, char **argv, int *k)
{
	const char *s = argv[*k] + 1;

	for (; *s; s++) {
		long i = find_short(p, *s);
		const struct eq_option *o;
		char as[8];

		if (i < 0)
			return -1;
		o = &p->opts[i];
		shown(o, 1, as, sizeof(as));
		if (!takes_value(o)) {
			if (apply(p, (size_t)i, NULL, as) < 0)
				return -1;
			continue;
		}
		if (s[1])
			return apply(p, (size_t)i, s + 1, as);
		if (o->flags & EQ_OPT_OPTARG) {
			const char *value = NULL;
			int take = 0;

			if (*k + 1 < argc && o->takes_next &&
			    (take = o->takes_next(argv[*k + 1], p->err)) < 0)
				return -1;
			if (take)
				value = argv[++*k];
			return apply(p, (size_t)i, value, as);
		}
		if (*k + 1 >= argc)
			return eq_fail(p->err, "%s needs a value%s%s", as, o->argh ? ": " : "",
				       o->argh ? o->argh : "");
		*k += 1;
		return apply(p, (size_t)i, argv[*k], as);
	}
	return 0;
}

/* Every option given belongs to the mode selected. */
static int check_modes(struct parse *p)
{
	unsigned mode = p->mode ? p->mode : p->cmd->mode ? p->cmd->mode : EQ_MODE_MAIN;
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct eq_option *o = &p->opts[i];
		char as[80];

		if (!p->given[i] || !o->modes || (o->modes & mode))
			continue;
		shown(o, p->given_short[i], as, sizeof(as));
		if (p->cmd->flags & EQ_PARSE_SUBCOMMANDS)
			return eq_fail(p->err, "%s is not an option of '%s %s' (it goes with '%s %s')",
				       as, p->cmd->name, mode_name(p->cmd, mode), p->cmd->name,
				       mode_name(p->cmd, o->modes));
		if (p->mode)
			return eq_fail(p->err, "%s does not go with %s", as, mode_name(p->cmd, mode));
		return eq_fail(p->err, "%s goes with %s", as, mode_name(p->cmd, o->modes));
	}
	return 0;
}

/* The mode argv selects, looked for before parsing (for --help). */
static unsigned scan_mode(const struct eq_command *cmd, int argc, char **argv)
{
	const struct eq_option *o;
	int k;

	for (k = 1; k < argc && strcmp(argv[k], "--"); k++)
		for (o = cmd->options; o->type != EQ_OPTION_END; o++) {
			size_t len;

			if (!(o->flags & EQ_OPT_MODE) || !o->long_name || strncmp(argv[k], "--", 2))
				continue;
			len = strlen(o->long_name);
			if (!strncmp(argv[k] + 2, o->long_name, len) &&
			    (argv[k][2 + len] == '\0' || argv[k][2 + len] == '='))
				return o->defmode;
		}
	return 0;
}

static int is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

static void list_opts(FILE *out, const struct eq_command *cmd, unsigned mode);

int eq_parse_options_err(const struct eq_command *cmd, int argc, char **argv, unsigned *mode,
			 struct eq_error *err)
{
	struct parse p = { .cmd = cmd, .opts = cmd->options, .mode_opt = -1, .err = err };
	int k, nargs = 0, rc = 0;

	while (p.opts[p.n].type != EQ_OPTION_END)
		p.n++;
	if (p.n > MAX_OPTIONS)
		return eq_fail(err, "internal: more than %d options", MAX_OPTIONS);
	for (k = 1; k < argc && rc == 0; k++) {
		const char *a = argv[k];

		if (!strcmp(a, "--")) {
			for (k++; k < argc; k++)
				argv[nargs++] = argv[k];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (cmd->flags & EQ_PARSE_STOP_AT_ARG) {
				for (; k < argc; k++)
					argv[nargs++] = argv[k];
				break;
			}
			argv[nargs++] = argv[k];
			continue;
		}
		if (is_help(a))
			return EQ_PARSE_HELP;
		if (!strcmp(a, "--list-opts"))
			return EQ_PARSE_LIST;
		rc = a[1] == '-' ? parse_long(&p, argc, argv, &k) : parse_short(&p, argc, argv, &k);
	}
	if (rc == 0)
		rc = check_modes(&p);
	if (rc < 0)
		return EQ_PARSE_ERROR;
	if (mode)
		*mode = p.mode ? p.mode : cmd->mode ? cmd->mode : EQ_MODE_MAIN;
	return nargs;
}

int eq_parse_options(const struct eq_command *cmd, int argc, char **argv, unsigned *mode)
{
	struct eq_error err;
	unsigned m;
	int n;

	eq_set_command(cmd->name);
	n = eq_parse_options_err(cmd, argc, argv, &m, &err);
	if (n == EQ_PARSE_HELP || n == EQ_PARSE_LIST) {
		/* the mode from the words before: --by proc --help */
		m = scan_mode(cmd, argc, argv);
		if (!m)
			m = cmd->mode;
		if (n == EQ_PARSE_HELP)
			eq_usage(stdout, cmd, m);
		else
			list_opts(stdout, cmd, m);
		return EQ_PARSE_HELP;
	}
	if (n == EQ_PARSE_ERROR) {
		m = scan_mode(cmd, argc, argv);
		eq_usage_error(cmd, m ? m : cmd->mode, "%s", err.msg);
		return EQ_PARSE_ERROR;
	}
	if (mode)
		*mode = m;
	return n;
}

int eq_usage_error(const struct eq_command *cmd, unsigned mode, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "eqprof %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (mode && mode != EQ_MODE_MAIN)
		fprintf(stderr, "\n'eqprof %s %s --help' lists its options\n", cmd->name,
			mode_name(cmd, mode));
	else
		fprintf(stderr, "\n'eqprof %s --help' lists the options\n", cmd->name);
	return 2;
}

/* ---- --help and --list-opts ------------------------------------------------ */

static int in_mode(const struct eq_option *o, unsigned mode)
{
	return !mode || !o->modes || (o->modes & mode);
}

/* "  -o, --output FILE" */
static size_t left_part(const struct eq_option *o, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "  ");

	if (o->type == EQ_OPTION_ARG)
		return n + (size_t)snprintf(buf + n, size - n, "%s", o->argh);
	if (o->short_name)
		n += (size_t)snprintf(buf + n, size - n, "-%c%s", o->short_name,
				      o->long_name ? ", " : "");
	if (o->long_name)
		n += (size_t)snprintf(buf + n, size - n, "--%s", o->long_name);
	if (o->alias)
		n += (size_t)snprintf(buf + n, size - n, ", --%s", o->alias);
	/* -t [HZ] when the next word may be the value, --call-graph[=callee]
	 * when only an attached one is */
	if (o->argh && takes_value(o))
		n += (size_t)snprintf(buf + n, size - n,
				      !(o->flags & EQ_OPT_OPTARG) ? " %s" :
				      o->takes_next ? " [%s]" : "[=%s]", o->argh);
	return n;
}

static void print_option(FILE *out, const struct eq_option *o)
{
	char left[160];
	size_t n = left_part(o, left, sizeof(left));
	const char *h = o->help ? o->help : "", *nl;

	fputs(left, out);
	/* a left part too wide for the column: the help starts on the next
	 * line, at the column, as perf's does */
	if (n + 2 > HELP_COLUMN && *h)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else if (*h)
		fprintf(out, "%*s", (int)(HELP_COLUMN - n), "");
	for (;;) {
		nl = strchr(h, '\n');
		fprintf(out, "%.*s\n", nl ? (int)(nl - h) : (int)strlen(h), h);
		if (!nl || !nl[1])
			break;
		h = nl + 1;
		fprintf(out, "%*s", HELP_COLUMN, "");
	}
}

void eq_usage(FILE *out, const struct eq_command *cmd, unsigned mode)
{
	const struct eq_option *o;
	const char *u = cmd->usage, *nl;
	int first = 1, pending_group = 0;
	const char *group = NULL;

	while (u && *u) {
		nl = strchr(u, '\n');
		fprintf(out, "%s%.*s\n", first ? "usage: " : "       ",
			nl ? (int)(nl - u) : (int)strlen(u), u);
		first = 0;
		u = nl ? nl + 1 : u + strlen(u);
	}
	if (cmd->about)
		fprintf(out, "\n%s", cmd->about);
	fputc('\n', out);
	for (o = cmd->options; o->type != EQ_OPTION_END; o++) {
		if (o->type == EQ_OPTION_GROUP) {
			group = o->help;
			pending_group = 1;
			continue;
		}
		if (!in_mode(o, mode))
			continue;
		if (pending_group) {
			fprintf(out, "\n%s\n", group);
			pending_group = 0;
		}
		print_option(out, o);
	}
	if (cmd->footer)
		fprintf(out, "\n%s", cmd->footer);
}

/* One line per name: NAME, a tab, then how its value completes ("" for
 * none, "=" for any word, "@file", "@dir", or the words).  A value that
 * may be left out has a prefix: "[=]" when only an attached one is its
 * value (--call-graph=callee, -Gcallee: the next word is not), "[ ]" when
 * the next word may be too (record's -t [HZ]). */
static void list_opts(FILE *out, const struct eq_command *cmd, unsigned mode)
{
	const struct eq_option *o;

	for (o = cmd->options; o->type != EQ_OPTION_END; o++) {
		const char *kind, *optional = "";

		if (!is_option(o) || !in_mode(o, mode))
			continue;
		kind = !takes_value(o) ? "" : o->complete ? o->complete : "=";
		if (takes_value(o) && (o->flags & EQ_OPT_OPTARG))
			optional = o->takes_next ? "[ ]" : "[=]";
		if (o->short_name)
			fprintf(out, "-%c\t%s%s\n", o->short_name, optional, kind);
		if (o->long_name)
			fprintf(out, "--%s\t%s%s\n", o->long_name, optional, kind);
		if (o->alias)
			fprintf(out, "--%s\t%s%s\n", o->alias, optional, kind);
	}
	fprintf(out, "--help\t\n");
}

/* ---- callbacks many tables share ------------------------------------------- */

int eq_opt_quiet(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	if (opt->value)
		*(int *)opt->value = 1;
	eq_verbosity = -1;
	return 0;
}

int eq_opt_verbose(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	if (opt->value)
		*(int *)opt->value += 1;
	eq_verbosity = eq_verbosity < 0 ? 1 : eq_verbosity + 1;
	return 0;
}

static int positive_quantity(const struct eq_option *opt, const char *arg, const char *unit,
			     struct eq_error *err)
{
	char what[80];
	double *v = opt->value;

	snprintf(what, sizeof(what), "--%s", opt->long_name);
	if (eq_parse_quantity(arg, unit, what, v, err) < 0)
		return -1;
	if (!(*v > 0))
		return eq_fail(err, "%s %s: must be more than 0", what, arg);
	return 0;
}

int eq_opt_seconds(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return positive_quantity(opt, arg, "s", err);
}

int eq_opt_joules(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return positive_quantity(opt, arg, "J", err);
}
