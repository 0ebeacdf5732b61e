/*
 * report_common.c - options, loading and output shared by report, compare
 * and diff, and by the analyses of one recording.
 */
#include <stdlib.h>
#include <string.h>

#include "align/align.h"
#include "cmd.h"
#include "energy/eprofile.h"
#include "file/outfile.h"
#include "parse-options.h"
#include "power/power.h"
#include "util/units.h"
#include "report_common.h"
#include "states/split.h"
#include "progress.h"

static const char *const filter_opt[3] = { "--comm", "--dso", "--symbol" };

/* --comm a,b,c: the names split in place in o's buffer for list w. */
static int parse_names(struct eq_report_opts *o, int w, const char *arg, struct eq_error *err)
{
	char *p = o->filter_buf[w], *tok, *save = NULL;
	size_t n = 0;

	if (strlen(arg) >= sizeof(o->filter_buf[w]))
		return eq_fail(err, "%s: the list is longer than %zu characters", filter_opt[w],
			       sizeof(o->filter_buf[w]) - 1);
	if (o->filter_names[w][0])
		return eq_fail(err, "%s given twice; give one comma-separated list", filter_opt[w]);
	strcpy(p, arg);
	for (tok = strtok_r(p, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == EQ_REPORT_MAX_NAMES)
			return eq_fail(err, "%s: at most %d names", filter_opt[w], EQ_REPORT_MAX_NAMES);
		o->filter_names[w][n++] = tok;
	}
	if (!n || strstr(arg, ",,") || arg[strlen(arg) - 1] == ',' || arg[0] == ',')
		return eq_fail(err, "%s '%s': give a comma-separated list of names "
			       "(an empty name matches nothing)", filter_opt[w], arg);
	if (w == 0) {
		o->filter.comm = o->filter_names[0];
		o->filter.ncomm = n;
		o->filter.hit_comm = o->filter_hits[0];
	} else if (w == 1) {
		o->filter.dso = o->filter_names[1];
		o->filter.ndso = n;
		o->filter.hit_dso = o->filter_hits[1];
	} else {
		o->filter.sym = o->filter_names[2];
		o->filter.nsym = n;
		o->filter.hit_sym = o->filter_hits[2];
	}
	return 0;
}

/* ---- the options report, compare and diff share (report_common.h) --------- */

void eq_report_opts_init(struct eq_report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->by = EQ_BY_PROC;
	o->fmt = EQ_FMT_TABLE;
	o->children = -1;
}

int eq_ropt_by(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_report_opts *o = opt->value;

	o->by_given = 1;
	return eq_by_parse_split(arg, &o->by, err);
}

int eq_ropt_sort(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return eq_keys_parse(arg, &((struct eq_report_opts *)opt->value)->keys, err);
}

int eq_ropt_names(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	int w = !strcmp(opt->long_name, "comm") ? 0 : !strcmp(opt->long_name, "dso") ? 1 : 2;

	return parse_names(opt->value, w, arg, err);
}

int eq_ropt_percentage(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_report_opts *o = opt->value;

	if (!strcmp(arg, "relative"))
		o->filter.relative = 1;
	else if (!strcmp(arg, "absolute"))
		o->filter.relative = 0;
	else
		return eq_fail(err, "--percentage: use absolute (shares of all samples, the default) "
			       "or relative (shares of the samples the filters keep)");
	return 0;
}

int eq_ropt_range(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_range *r = opt->value;

	return eq_range_parse(r, !strcmp(opt->long_name, "from") ? "--from" : "--to", arg, err);
}

int eq_ropt_percent_limit(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	double *v = opt->value;
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%")) || !(*v >= 0 && *v <= 100))
		return eq_fail(err, "--percent-limit: give a percentage from 0 to 100");
	return 0;
}

int eq_ropt_jobs(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	unsigned *v = opt->value;
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (end == arg || *end || *arg == '-' || n > EQ_SPLIT_MAX_JOBS)
		return eq_fail(err, "--jobs: give a number of threads from 1 to %d, or 0 for every online CPU",
			       EQ_SPLIT_MAX_JOBS);
	*v = n ? (unsigned)n : EQ_JOBS_ONLINE;
	return 0;
}

int eq_ropt_interval(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_report_opts *o = opt->value;

	o->interval_given = 1;
	return eq_interval_parse(arg, &o->interval, err);
}

int eq_opt_format(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return eq_format_parse(arg, opt->value, err);
}

int eq_opt_path(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct eq_paths *p = opt->value;

	if (p->n == EQ_MAX_PATHS)
		return eq_fail(err, "--%s %s: at most %d of them", opt->long_name, arg, EQ_MAX_PATHS);
	p->v[p->n++] = arg;
	return 0;
}

/* --per-thread is perf's: the thread first. */
static int per_thread(struct eq_report_opts *o, struct eq_error *err)
{
	unsigned k;

	if (o->by_given && o->by != EQ_BY_THREAD)
		return eq_fail(err, "--per-thread is --by thread; it cannot go with --by another");
	if (!o->keys.n) {
		o->by = EQ_BY_THREAD;
		return 0;
	}
	for (k = 0; k < o->keys.n && o->keys.k[k] != EQ_KEY_TID; k++)
		;
	if (k < o->keys.n)
		return 0;
	if (o->keys.n == EQ_KEYS_MAX)
		return eq_fail(err, "--per-thread adds the tid key: too many keys");
	memmove(&o->keys.k[1], &o->keys.k[0], o->keys.n * sizeof(o->keys.k[0]));
	o->keys.k[0] = EQ_KEY_TID;
	o->keys.n++;
	return 0;
}

int eq_report_args(const struct eq_command *cmd, int nargs, char **args, int nfiles,
		   struct eq_report_opts *o)
{
	struct eq_error err;
	int n = 0;

	for (; n < nargs; n++) {
		if (n == (nfiles ? nfiles : EQ_REPORT_MAX_FILES))
			return eq_usage_error(cmd, 0, "too many recordings given");
		o->files[n] = args[n];
	}
	if (n == 0 && nfiles <= 1) {
		/* as perf report reads perf.data: what `eqprof record` wrote */
		o->files[0] = EQ_DEFAULT_RECORDING;
		o->default_file = 1;
		n = 1;
	}
	o->nfiles = n;
	if (n < nfiles)
		return eq_usage_error(cmd, 0, "give two recordings: TIME.eqp ENERGY.eqp");
	if (o->keys.n && o->by_given)
		return eq_usage_error(cmd, 0, "--by and --sort both say how rows are made; give one "
				      "(--sort comm,dso,sym; --by proc is --sort sym,dso)");
	if (o->per_thread && per_thread(o, &err) < 0)
		return eq_usage_error(cmd, 0, "%s", err.msg);
	return 0;
}

struct report_progress {
	const char *cmd;
	struct eq_progress line;
};

/* Twice a second; nothing at all when the profile is done within half a second. */
static void show_progress(uint64_t done, uint64_t total, void *arg)
{
	struct report_progress *rp = arg;

	eq_progress_samples(&rp->line, rp->cmd, done, total);
}

/*
 * A symbolizer warning that is why a module's samples have no symbol (its
 * file missing, another build): rows that are not named by symbols (--by
 * exe, module, pid) do not need it, as perf says nothing of symbols in a
 * --sort comm table.
 */
static int noted_elsewhere(const struct eq_profile *p, const char *warning)
{
	size_t i;

	for (i = 0; i < p->nunresolved; i++)
		if (p->unresolved[i].why == warning)
			return !eq_profile_uses_symbols(p);
	return 0;
}

/*
 * --region NAME: from the first marker labelled NAME (a program's own,
 * `record` EQPROF_MARKER_FD; the simulator's phases; the board's) to the
 * next marker, or to the end; as --from/--to in seconds since the first
 * sample.  An unknown name lists the markers there are.
 */
static int region_range(const struct eqp_file *f, const char *name, struct eq_range *r,
			struct eq_error *err)
{
	uint64_t t0 = eq_samples_t0(f);
	double hz = eqp_meta(f)->clock_hz > 0 ? eqp_meta(f)->clock_hz : 1e9;
	size_t i, n = eqp_nmarkers(f), len = 0;
	char list[512] = "";

	if (r->has_from || r->has_to)
		return eq_fail(err, "--region %s: give either --region or --from/--to", name);
	for (i = 0; i < n; i++) {
		const struct eqp_marker *m = eqp_marker_at(f, i);

		if (strcmp(m->label, name))
			continue;
		r->has_from = 1;
		r->from_s = m->time > t0 ? (double)(m->time - t0) / hz : 0;
		for (i++; i < n; i++) {
			const struct eqp_marker *next = eqp_marker_at(f, i);

			if (next->time > m->time) {
				r->has_to = 1;
				r->to_s = (double)(next->time - t0) / hz;
				break;
			}
		}
		return 0;
	}
	for (i = 0; i < n && len + 1 < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'", i ? ", " : "",
					eqp_marker_at(f, i)->label);
	return eq_fail(err, "%s: --region %s: no marker of that name; %s%s", eqp_path(f), name,
		       n ? "the recording has " : "the recording has no markers (a program "
		       "being recorded makes them by writing to $EQPROF_MARKER_FD)", list);
}

/* A board log's energy and duration ("1.479 J", "1.597 s"), or "" when
 * its records give none. */
static void board_totals(const struct eqp_file *f, char e[32], char t[32])
{
	struct power_input in;
	struct power_summary s;
	struct eq_error err;

	e[0] = t[0] = '\0';
	if (power_input_from_file(&in, f, POWER_BASIS_BOARD, &err) == 0) {
		if (power_summarize(&in, &s, &err) == 0 && s.energy_j == s.energy_j) {
			eq_format_quantity(e, 32, s.energy_j, "J");
			eq_format_quantity(t, 32, s.duration_s, "s");
		}
		power_input_free(&in);
	}
}

/* "500 board records (1.479 J in 1.597 s)" */
static void board_holds(char *buf, size_t size, const struct eqp_file *f)
{
	char e[32], t[32];

	board_totals(f, e, t);
	snprintf(buf, size, "%zu board records%s%s%s%s%s", eqp_nboard_records(f), *e ? " (" : "",
		 e, *e ? " in " : "", t, *e ? ")" : "");
}

/* A board log: energy over time, no samples; what it holds, in one line. */
static void note_board_only(const char *path, const struct eqp_file *f)
{
	char holds[128];

	board_holds(holds, sizeof(holds), f);
	eq_error_msg("note: %s holds %s and no samples: "
		"nothing ties its energy to code; 'eqprof power %s' shows it over time",
		path, holds, path);
}

void eq_report_print_board_log(FILE *out, const void *arg)
{
	const struct eq_loaded_profile *lp = arg;
	char holds[128];

	board_holds(holds, sizeof(holds), lp->file);
	fprintf(out, "# board log %s: %s and no samples; lost %llu\n", eqp_path(lp->file), holds,
		(unsigned long long)lp->profile->lost_samples);
}

/*
 * The recording's chunks all checked (eqp_open_lazy() checks sample and
 * call chain chunks as a pass reads them), then what is said of the file:
 * -1 if one is damaged, said as eqp_open() would have said it.
 */
static int file_checked(const char *path, const struct eq_report_opts *o,
			struct eq_loaded_profile *lp)
{
	struct eq_error err;

	if (eqp_verify(lp->file, &err) < 0) {
		eq_error_msg("%s", err.msg);
		return -1;
	}
	if (eqp_warning(lp->file))
		eq_warn("%s", eqp_warning(lp->file));
	if (!eqp_nsamples(lp->file))
		note_board_only(path, lp->file);
	eq_align_check_file(stderr, eq_command(), lp->file, o->verbose);
	return 0;
}

/* What is said of a loaded recording once it is checked: the energy
 * source's note over a range, and the symbolizer's warnings, but those the
 * flat profile notes of its rows already (all of them when there is no
 * flat profile: the inclusive view's every row reads the symbols). */
static void loaded_notes(const char *path, const struct eq_loaded_profile *lp)
{
	size_t i;

	if (lp->ranged && ep_has_energy(lp->file))
		eq_error_msg("note: %s: the energy source's joules per row are of the whole "
			"recording; --from/--to shows shares and times only", path);
	for (i = 0; i < eq_sym_nwarnings(lp->sym); i++)
		if (!lp->profile || !noted_elsewhere(lp->profile, eq_sym_warning(lp->sym, i)))
			eq_warn("%s", eq_sym_warning(lp->sym, i));
}

int eq_report_load(const char *path, const struct eq_report_opts *o,
		   struct eq_loaded_profile *lp)
{
	struct eq_sym_options so = { .symfs = o->symfs,
				     .check_build_id = !o->no_build_id_check };
	struct eq_error err;

	memset(lp, 0, sizeof(*lp));
	/* the samples' CRCs are checked as the profile reads them, and all of
	 * them before anything is said */
	lp->file = eqp_open_lazy(path, &err);
	/* a board log holds energy over time and no samples: its totals and
	 * losses are still the report's (what power shows over time) */
	if (lp->file && !eqp_nboard_records(lp->file) && eqp_require_samples(lp->file, &err) < 0) {
		eqp_close(lp->file);
		lp->file = NULL;
	}
	if (!lp->file) {
		eq_error_msg("%s", err.msg);
		if (o->default_file)
			eq_error_msg("no recording was named, so %s was read (what 'eqprof record' writes); give FILE.eqp",
				     path);
		return -1;
	}
	lp->range = o->range;
	if (o->region && region_range(lp->file, o->region, &lp->range, &err) < 0) {
		if (file_checked(path, o, lp) == 0)
			eq_error_msg("%s", err.msg);
		eq_report_unload(lp);
		return -1;
	}
	lp->sym = eq_sym_new(lp->file, &so, &err);
	if (lp->sym)
		eq_sym_skip_lines(lp->sym, o->keys.n ? !eq_keys_need_lines(&o->keys) :
				  o->by != EQ_BY_LINE);
	/* the inclusive view prints the call graph, made from the stacks
	 * (builtin-report.c report_children), not a flat profile */
	lp->inclusive = o->inclusive && eqp_has_callchains(lp->file);
	if (lp->sym && lp->inclusive) {
		lp->ranged = eq_range_active(&lp->range);
		return 0;
	}
	if (lp->sym) {
		struct report_progress pr = { .cmd = eq_command() };
		struct eq_profile_opts po = { .flags = o->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0,
					      .keys = &o->keys, .filter = &o->filter,
					      .jobs = o->jobs };

		eq_progress_start(&pr.line, o->quiet, 0.5);
		po.range = &lp->range;
		lp->ranged = eq_range_active(&lp->range);
		if ((unsigned)o->by & EQ_BY_SPLIT) { /* --by exe,state...: analysis/states */
			if (lp->ranged)
				eq_fail(&err, "--by with state, freq, cstate, cpu or mode cannot be "
					"combined with --from/--to (yet): leave one of them out");
			else if (o->keys.n || eq_filter_active(&o->filter))
				eq_fail(&err, "--by with state, freq, cstate, cpu or mode cannot be "
					"combined with --sort, --comm, --dso or --symbol (yet): "
					"leave one of them out");
			else
				lp->profile = eq_split_profile_build(lp->file, lp->sym, o->by,
							     o->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0,
							     &lp->split, &err);
		} else {
			po.progress = pr.line.enabled ? show_progress : NULL;
			po.progress_arg = &pr;
			lp->profile = eq_profile_build_opts(lp->file, lp->sym, o->by, &po, &err);
		}
	}
	if (file_checked(path, o, lp) < 0) {
		eq_report_unload(lp);
		return -1;
	}
	if (!lp->profile) {
		eq_error_msg("%s", err.msg);
		eq_report_unload(lp);
		return -1;
	}
	eq_profile_set_interval(lp->profile, o->interval);
	lp->profile->verbose = o->verbose;
	if (lp->ranged && o->region)
		lp->profile->range_name = o->region;
	loaded_notes(path, lp);
	return 0;
}

/* "a (812 samples), b (3), ..." of the n loaded recordings at key k. */
static void list_names(FILE *out, const struct eq_report_opts *o, struct eq_loaded_profile *lp,
		       int n, enum eq_key k)
{
	struct eq_keys keys = { .n = 1, .k = { k } };
	struct eq_profile *profs[EQ_REPORT_MAX_FILES] = { 0 }, *p = NULL;
	struct eq_profile_opts po = { .flags = o->exclude_idle ? EQ_PROFILE_EXCLUDE_IDLE : 0,
				      .keys = &keys, .jobs = o->jobs };
	struct eq_error err;
	size_t i, shown;
	int j, built = 0;

	for (j = 0; j < n; j++, built++)
		if (!(profs[j] = eq_profile_build_opts(lp[j].file, lp[j].sym, EQ_BY_PROC, &po, &err)))
			goto out;
	p = n > 1 ? eq_profile_pool(profs, (size_t)n, &err) : profs[0];
	if (!p)
		goto out;
	shown = p->nrows < 12 ? p->nrows : 12;
	for (i = 0; i < shown; i++)
		fprintf(out, "%s%s (%llu%s)", i ? ", " : "", p->rows[i].fields[0],
			(unsigned long long)p->rows[i].samples, i ? "" : " samples");
	if (p->nrows > shown)
		fprintf(out, " and %zu more", p->nrows - shown);
	if (!p->nrows)
		fputs("no samples at all", out);
out:
	if (n > 1)
		eq_profile_free(p);
	for (j = 0; j < built; j++)
		eq_profile_free(profs[j]);
}

int eq_report_check_filter(const struct eq_report_opts *o,
			   struct eq_loaded_profile *lp, int n)
{
	static const char *const what[3] = { "a thread or process", "a module", "a procedure" };
	static const enum eq_key key[3] = { EQ_KEY_COMM, EQ_KEY_DSO, EQ_KEY_SYM };
	size_t counts[3] = { o->filter.ncomm, o->filter.ndso, o->filter.nsym };
	int w, bad = 0;
	size_t i, len;
	char *names;
	FILE *m;

	for (w = 0; w < 3; w++)
		for (i = 0; i < counts[w]; i++) {
			if (o->filter_hits[w][i])
				continue;
			names = NULL;
			m = open_memstream(&names, &len);
			if (m) {
				list_names(m, o, lp, n, key[w]);
				fclose(m);
			}
			eq_error_msg("%s %s: no sample is in %s of that name; %s: %s",
				     filter_opt[w], o->filter_names[w][i], what[w],
				     n > 1 ? "the recordings have" : "the recording has",
				     names ? names : "(out of memory listing them)");
			free(names);
			bad = 1;
		}
	return bad ? -1 : 0;
}

int eq_report_inclusive_checked(const struct eq_report_opts *o, struct eq_loaded_profile *lp)
{
	const char *path = eqp_path(lp->file);

	if (!lp->inclusive)
		return 0;
	if (file_checked(path, o, lp) < 0)
		return -1;
	loaded_notes(path, lp);
	lp->inclusive = 0;
	return 0;
}

void eq_report_unload(struct eq_loaded_profile *lp)
{
	eq_profile_free(lp->profile);
	eq_split_store_free(lp->split);
	eq_sym_free(lp->sym);
	if (lp->file)
		eqp_close(lp->file);
	memset(lp, 0, sizeof(*lp));
}

int eq_report_write(const struct eq_report_opts *o,
		    const struct eq_profile *p,
		    void (*print)(FILE *out, const void *arg), const void *arg)
{
	struct eq_outfile out;
	struct eq_error err;
	char source[4096];

	if (o->nfiles > 1)
		snprintf(source, sizeof(source), "%s and %d more recording%s (pooled)", o->files[0],
			 o->nfiles - 1, o->nfiles > 2 ? "s" : "");
	else
		snprintf(source, sizeof(source), "%s", o->files[0]);
	if (eq_output_not_input(o->out, o->files, (size_t)o->nfiles, &err) ||
	    eq_outfile_open(&out, o->out ? o->out : "-", &err)) {
		eq_error_msg("%s", err.msg);
		return 1;
	}
	if (print)
		print(out.fp, arg);
	else
		eq_profile_print(out.fp, p, o->fmt, source);
	if (eq_outfile_commit(&out, &err)) {
		eq_error_msg("%s", err.msg);
		return 1;
	}
	return 0;
}

void eq_one_init(struct eq_one *o)
{
	memset(o, 0, sizeof(*o));
	o->fmt = EQ_FMT_TABLE;
	o->so.check_build_id = 1;
}

int eq_one_open(struct eq_one *o, const char *path)
{
	struct eq_error err;

	o->file = path;
	o->f = eqp_open(path, &err);
	if (!o->f || eqp_require_samples(o->f, &err) < 0) {
		eq_error_msg("%s", err.msg);
		if (o->f)
			eqp_close(o->f);
		o->f = NULL;
		return -1;
	}
	if (eqp_warning(o->f))
		eq_warn("%s", eqp_warning(o->f));
	o->s = eq_sym_new(o->f, &o->so, &err);
	if (!o->s) {
		eq_error_msg("%s", err.msg);
		return -1;
	}
	eq_sym_skip_lines(o->s, 1);
	return 0;
}

int eq_one_write(const struct eq_one *o,
		 void (*print)(FILE *out, const void *arg), const void *arg)
{
	struct eq_outfile of;
	struct eq_error err;

	if (eq_output_not_input(o->out, &o->file, 1, &err) ||
	    eq_outfile_open(&of, o->out ? o->out : "-", &err)) {
		eq_error_msg("%s", err.msg);
		return 1;
	}
	print(of.fp, arg);
	if (eq_outfile_commit(&of, &err)) {
		eq_error_msg("%s", err.msg);
		return 1;
	}
	return 0;
}

void eq_one_close(struct eq_one *o)
{
	eq_sym_free(o->s);
	if (o->f)
		eqp_close(o->f);
	o->s = NULL;
	o->f = NULL;
}

int eq_json_add_member(FILE *out, void (*first)(FILE *out, const void *arg), const void *first_arg,
		       const char *key, void (*member)(FILE *out, const void *arg),
		       const void *member_arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc = 0;

	if (mem) {
		first(mem, first_arg);
		fclose(mem);
	}
	while (buf && len && buf[len - 1] != '}')
		len--;
	if (!buf || !len) {
		fputs("{", out);
		rc = -1;
	} else {
		fwrite(buf, 1, len - 1, out);
		fputs(",\n ", out);
	}
	eq_json_string(out, key);
	fputs(": ", out);
	member(out, member_arg);
	fputs("}\n", out);
	free(buf);
	return rc;
}

int eq_report_split_vs(struct eq_report_opts *o, const char *twice,
		       const char *usage, const char *more)
{
	const char *files[EQ_REPORT_MAX_FILES];
	int i, nf = 0, split = -1;

	for (i = 0; i < o->nfiles; i++) {
		if (!strcmp(o->files[i], "vs")) {
			if (split >= 0) {
				eq_error_msg("'vs' given twice; %s", twice);
				return -1;
			}
			split = nf;
			continue;
		}
		files[nf++] = o->files[i];
	}
	if (split < 0)
		split = nf == 2 ? 1 : -1;
	if (o->default_file || split <= 0 || split >= nf) {
		eq_error_msg("%s%s\n'eqprof %s --help' lists the options", usage,
			nf > 2 && split < 0 ? more : "", eq_command());
		return -1;
	}
	for (i = 0; i < nf; i++)
		o->files[i] = files[i];
	o->nfiles = nf;
	return split;
}
