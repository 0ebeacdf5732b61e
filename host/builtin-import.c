/*
 * builtin-import.c - eqprof import: CSV samples + maps + names -> .eqp.
 *
 *   eqprof import --samples S.csv (--energy QUANTUM | --time HZ) -o OUT.eqp
 *                 [--maps PID=FILE]... [--comm PID=NAME]... [options]
 *
 * Everything is checked before the output exists: maps files are parsed
 * (errors name file and line), samples are streamed into a writer that only
 * becomes OUT.eqp on commit, so a bad line leaves no output behind.  The
 * build-id of every mapped file readable here is stored in the header, so a
 * later report can tell when a binary was rebuilt since.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "progress.h"
#include "file/csv_samples.h"
#include "symbols/elfmod.h"
#include "file/eqp.h"
#include "file/infile.h"
#include "file/outfile.h"
#include "symbols/maps.h"
#include "symbols/symfile.h"
#include "symbols/symbolize.h"
#include "util/units.h"

#define MAX_PROCS 1024
#define BATCH 4096

struct pid_arg {
	uint32_t pid;
	const char *value;       /* FILE for --maps, NAME for --comm */
	char *text;              /* --maps: file contents */
	size_t len;
};

struct symtab_arg {
	const char *module;      /* NULL: [kernel.kallsyms] */
	const char *file;
	char *text;
	size_t len;
	struct eq_symfile syms;
};

#define MAX_SYMTABS 64

/* --image: the bytes of a mapping no file backs (the vdso). */
struct image_arg {
	const char *module, *file;
	char *data;
	size_t len;
};

struct import_opts {
	const char *samples, *out, *target, *symfs;
	struct symtab_arg symtabs[MAX_SYMTABS];
	size_t nsymtabs;
	struct image_arg images[MAX_SYMTABS];
	size_t nimages;
	int have_energy, have_time;
	double quantum_j, hz;
	struct pid_arg maps[MAX_PROCS], comm[MAX_PROCS];
	size_t nmaps, ncomm;
	int quiet, have_kallsyms;
};

static int parse_pid_arg(const char *opt, const char *text, struct pid_arg *out,
			 const struct pid_arg *earlier, size_t nearlier, struct eq_error *err)
{
	const char *eq = strchr(text, '=');
	unsigned long long pid;
	char num[32];

	if (!eq || eq == text || !eq[1] || (size_t)(eq - text) >= sizeof(num))
		return eq_fail(err, "%s %s: expected PID=VALUE", opt, text);
	memcpy(num, text, (size_t)(eq - text));
	num[eq - text] = '\0';
	if (eq_parse_uint(num, opt, UINT32_MAX, &pid, err))
		return -1;
	for (size_t i = 0; i < nearlier; i++)
		if (earlier[i].pid == pid)
			return eq_fail(err, "%s: pid %llu given twice", opt, pid);
	out->pid = (uint32_t)pid;
	out->value = eq + 1;
	return 0;
}

static int parse_symtab_arg(const char *opt, const char *module_eq_file, const char *file,
			    struct symtab_arg *out, struct eq_error *err)
{
	char *eq;

	if (!module_eq_file) {
		out->file = file;   /* the caller refuses a second --kallsyms */
		return 0;
	}
	eq = strrchr(module_eq_file, '=');
	if (!eq || eq == module_eq_file || !eq[1])
		return eq_fail(err, "%s %s: expected MODULE=FILE", opt, module_eq_file);
	*eq = '\0';   /* argv is ours to cut */
	out->module = module_eq_file;
	out->file = eq + 1;
	return 0;
}

/* ---- the options ----------------------------------------------------------- */

static int opt_symtab(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct import_opts *o = opt->value;
	int kallsyms = !strcmp(opt->long_name, "kallsyms");

	if (kallsyms && o->have_kallsyms++)
		return eq_fail(err, "--kallsyms given twice");
	if (o->nsymtabs == MAX_SYMTABS)
		return eq_fail(err, "more than %d symbol tables", MAX_SYMTABS);
	return parse_symtab_arg("--symtab", kallsyms ? NULL : arg, arg, &o->symtabs[o->nsymtabs++],
				err);
}

static int opt_image(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct import_opts *o = opt->value;
	struct symtab_arg a = { 0 };

	if (o->nimages == MAX_SYMTABS)
		return eq_fail(err, "more than %d --image", MAX_SYMTABS);
	if (parse_symtab_arg("--image", arg, arg, &a, err))
		return -1;
	if (a.module[0] == '/')
		return eq_fail(err, "--image %s: %s is a file: its symbols are read from it (or --symfs)",
			       a.module, a.module);
	o->images[o->nimages].module = a.module;
	o->images[o->nimages++].file = a.file;
	return 0;
}

/* --maps PID=FILE, --comm PID=NAME */
static int opt_pid(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct import_opts *o = opt->value;
	int maps = !strcmp(opt->long_name, "maps");
	struct pid_arg *v = maps ? o->maps : o->comm;
	size_t *n = maps ? &o->nmaps : &o->ncomm;

	if (*n == MAX_PROCS)
		return eq_fail(err, "more than %d --%s", MAX_PROCS, opt->long_name);
	if (parse_pid_arg(maps ? "--maps" : "--comm", arg, &v[*n], v, *n, err))
		return -1;
	(*n)++;
	return 0;
}

static int opt_energy(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct import_opts *o = opt->value;

	if (eq_parse_quantity(arg, "J", "--energy", &o->quantum_j, err))
		return -1;
	if (o->quantum_j <= 0 || o->quantum_j > EQP_MAX_QUANTUM_J)
		return eq_fail(err, "--energy %s: give a positive energy such as 2.94mJ (at most %g J)",
			       arg, EQP_MAX_QUANTUM_J);
	o->have_energy = 1;
	return 0;
}

static int opt_time(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	struct import_opts *o = opt->value;

	if (eq_parse_quantity(arg, "Hz", "--time", &o->hz, err))
		return -1;
	if (o->hz <= 0)
		return eq_fail(err, "--time %s: give a positive rate such as 349Hz", arg);
	o->have_time = 1;
	return 0;
}

#define STR(l, field, a, h, ...) \
	{ .type = EQ_OPTION_STRING, .long_name = (l), .value = &o->field, .argh = (a), \
	  .help = (h), __VA_ARGS__ }
#define CB(l, a, h, f, ...) \
	{ .type = EQ_OPTION_CALLBACK, .long_name = (l), .value = o, .argh = (a), .help = (h), \
	  .cb = (f), __VA_ARGS__ }

static int parse_args(int argc, char **argv, struct import_opts *o)
{
	const struct eq_option options[] = {
		STR("samples", samples, "S.csv", "samples, header " EQ_CSV_HEADER,
		    .complete = EQ_COMPLETE_FILE),
		CB("maps", "PID=FILE", "memory map of process PID in /proc/PID/maps format", opt_pid,
		   .flags = EQ_OPT_REPEAT),
		CB("comm", "PID=NAME", "name of process PID (default: its executable's name)", opt_pid,
		   .flags = EQ_OPT_REPEAT),
		CB("energy", "Q", "energy-driven samples, Q joules each (e.g. 2.94mJ)", opt_energy),
		CB("time", "HZ", "time-driven samples at HZ per second (e.g. 349Hz)", opt_time),
		STR("target", target, "TEXT", "what was profiled, stored in the recording"),
		CB("kallsyms", "FILE", "the target kernel's /proc/kallsyms, for kernel samples",
		   opt_symtab, .complete = EQ_COMPLETE_FILE),
		CB("symtab", "MODULE=FILE", "nm-style symbols of MODULE (a path in the maps) with\n"
					    "addresses as offsets into its file, for modules whose ELF\n"
					    "the report machine will not have", opt_symtab,
		   .flags = EQ_OPT_REPEAT),
		CB("image", "MODULE=FILE", "the ELF image of MODULE, a mapping no file backs (the\n"
					   "vdso: --image [vdso]=FILE), for its symbols and frames",
		   opt_image, .flags = EQ_OPT_REPEAT),
		STR("symfs", symfs, "DIR", "read mapped files under DIR to record their build-ids",
		    .complete = EQ_COMPLETE_DIR),
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &o->out,
		  .argh = "OUT.eqp", .complete = EQ_COMPLETE_FILE,
		  .help = "the recording to write (atomically)" },
		OPT_QUIET(&o->quiet, "no progress line (it is only shown on a terminal anyway)"),
		OPT_VERBOSE(NULL, "notes in full"),
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "import", .options = options,
		.usage = "eqprof import --samples S.csv (--energy QUANTUM | --time HZ) -o OUT.eqp [options]\n",
	};
	int n = eq_parse_options(&cmd, argc, argv, NULL);

	if (n < 0)
		return n == EQ_PARSE_HELP ? 1 : 2;
	if (n > 0)
		return eq_usage_error(&cmd, 0, "unexpected argument '%s'", argv[0]);
	if (!o->samples)
		return eq_usage_error(&cmd, 0, "--samples S.csv is required");
	if (!o->out)
		return eq_usage_error(&cmd, 0, "-o OUT.eqp is required");
	if (o->have_energy == o->have_time)
		return eq_usage_error(&cmd, 0, "give exactly one of --energy QUANTUM and --time HZ");
	return 0;
}

/* Reads and parses every --kallsyms and --symtab file. */
static int load_symtabs(struct import_opts *o, struct eq_error *err)
{
	size_t i;

	for (i = 0; i < o->nsymtabs; i++) {
		struct symtab_arg *a = &o->symtabs[i];

		if (eq_input_read(a->file, &a->text, &a->len, err) ||
		    eq_symfile_parse(a->text, a->len, a->file, &a->syms, err))
			return -1;
		if (!a->syms.n)
			return eq_fail(err, "%s: no code symbols (types T, t, W, w) in it", a->file);
	}
	return 0;
}

/* Reads every --image file: an ELF image, as the kernel maps the vdso. */
static int load_images(struct import_opts *o, struct eq_error *err)
{
	size_t i;

	for (i = 0; i < o->nimages; i++) {
		struct image_arg *a = &o->images[i];

		if (eq_input_read(a->file, &a->data, &a->len, err))
			return -1;
		if (a->len < 64 || memcmp(a->data, "\177ELF", 4))
			return eq_fail(err, "--image %s=%s: %s is not an ELF image (the vdso's "
				       "bytes, as perf keeps them in ~/.debug/[vdso]/)",
				       a->module, a->file, a->file);
	}
	return 0;
}

/* Reads and validates every --maps file; appends build-ids to extra. */
static int load_maps(struct import_opts *o, const struct eq_root *root, char **extra,
		     size_t *extra_len, struct eq_error *err)
{
	size_t i, j;

	for (i = 0; i < o->nmaps; i++) {
		struct pid_arg *a = &o->maps[i];
		struct eq_maps m;

		if (eq_input_read(a->value, &a->text, &a->len, err))
			return -1;
		if (eq_maps_parse(a->text, a->len, a->value, &m, err))
			return -1;
		for (j = 0; j < m.n; j++) {
			const char *path = m.maps[j].path;
			char hex[128], *grown;
			struct eq_error ignore;
			size_t need;

			if (path[0] != '/' || strchr(path, '=') || strchr(path, '\n') ||
			    (j > 0 && !strcmp(path, m.maps[j - 1].path)) ||
			    eq_elf_build_id_in(root, path, hex, sizeof(hex), &ignore))
				continue;
			need = strlen(EQ_BUILDID_KEY_PREFIX) + strlen(path) + strlen(hex) + 3;
			grown = realloc(*extra, *extra_len + need);
			if (!grown) {
				eq_maps_release(&m);
				return eq_fail(err, "out of memory");
			}
			*extra = grown;
			*extra_len += (size_t)sprintf(*extra + *extra_len, "%s%s=%s\n",
						      EQ_BUILDID_KEY_PREFIX, path, hex);
		}
		eq_maps_release(&m);
	}
	return 0;
}

static int add_maps_and_names(struct eqp_writer *w, const struct import_opts *o,
			      struct eq_error *err)
{
	size_t i;

	for (i = 0; i < o->nmaps; i++)
		if (eqp_add_maps(w, o->maps[i].pid, 0, o->maps[i].text, o->maps[i].len, err))
			return -1;
	for (i = 0; i < o->ncomm; i++)
		if (eqp_add_comm(w, o->comm[i].pid, 0, o->comm[i].value, err))
			return -1;
	for (i = 0; i < o->nsymtabs; i++) {
		const struct symtab_arg *a = &o->symtabs[i];
		struct eqp_symtab t = {
			.module = a->module ? a->module : "[kernel.kallsyms]",
			/* the kernel and its modules ("[ext4]", kallsyms lines): pcs */
			.absolute = !a->module || a->module[0] == '[',
			.nsyms = a->syms.n,
			.syms = a->syms.syms,
		};

		if (eqp_add_symtab(w, &t, err))
			return -1;
	}
	for (i = 0; i < o->nimages; i++)
		if (eqp_add_image(w, o->images[i].module, o->images[i].data, o->images[i].len, err))
			return -1;
	return 0;
}

/* "eqprof import: 12.0M samples (3.1M/s, 3.9 s)" */
static void show_progress(struct eq_progress *line, uint64_t count)
{
	double t = eq_progress_elapsed(line);

	eq_progress_show(line, "eqprof import: %.1fM samples (%.1fM/s, %.1f s)",
			 (double)count / 1e6, t > 0 ? (double)count / t / 1e6 : 0.0, t);
}

/* Streams the CSV into w; sets the mode flag and numbers samples in order. */
static int copy_samples(struct eqp_writer *w, const struct import_opts *o, FILE *in,
			uint64_t *count, struct eq_error *err)
{
	static struct eq_sample batch[BATCH];
	struct eq_csv_reader r;
	struct eq_progress line;
	size_t n = 0;
	int rc;

	eq_progress_start(&line, o->quiet, 0.5);
	eq_csv_reader_init(&r, in, o->samples);
	while ((rc = eq_csv_next(&r, &batch[n], err)) == 1) {
		/* Look at the clock only every 2^20 samples: it is the hot loop. */
		if ((*count & 0xfffff) == 0xfffff && eq_progress_due(&line))
			show_progress(&line, *count + 1);
		if (o->have_energy)
			batch[n].flags |= EQ_F_ENERGY;
		else
			batch[n].flags &= (uint16_t)~EQ_F_ENERGY;
		batch[n].seq = (uint32_t)(*count)++;
		if (++n == BATCH) {
			if (eqp_add_samples(w, batch, n, err))
				rc = -1;
			n = 0;
			if (rc < 0)
				break;
		}
	}
	if (rc == 0 && n && eqp_add_samples(w, batch, n, err))
		rc = -1;
	if (line.shown)
		show_progress(&line, *count);
	eq_progress_end(&line, 1);
	eq_csv_reader_release(&r);
	return rc;
}

static int run_import(struct import_opts *o)
{
	struct eqp_meta meta = { 0 };
	struct eqp_writer *w;
	struct eq_error err;
	char *extra = NULL, target[512];
	size_t extra_len = 0;
	uint64_t count = 0;
	struct eq_root root = { .fd = -1 };
	FILE *in;
	int rc = 1;

	if (o->symfs && eq_root_open(&root, o->symfs, &err) < 0) {
		eq_fail_prefix(&err, "--symfs");
		goto out;
	}
	if (load_maps(o, o->symfs ? &root : NULL, &extra, &extra_len, &err) ||
	    load_symtabs(o, &err) || load_images(o, &err))
		goto out;
	in = eq_input_fopen(o->samples, &err);
	if (!in)
		goto out;
	snprintf(target, sizeof(target), "imported from %s", o->samples);
	meta.mode = o->have_energy ? EQP_MODE_ENERGY : EQP_MODE_TIME;
	meta.quantum_j = o->have_energy ? o->quantum_j : 0;
	meta.nominal_hz = o->have_time ? o->hz : 0;
	meta.clock_hz = 1e9;
	meta.target = o->target ? o->target : target;
	meta.extra = extra;
	{
		const char *inputs[MAX_PROCS + 1];
		size_t k;

		inputs[0] = o->samples;
		for (k = 0; k < o->nmaps; k++)
			inputs[k + 1] = o->maps[k].value;
		if (eq_output_not_input(o->out, inputs, o->nmaps + 1, &err) < 0) {
			fclose(in);
			goto out;
		}
	}
	w = eqp_create(o->out, &meta, &err);
	if (w && (add_maps_and_names(w, o, &err) || copy_samples(w, o, in, &count, &err))) {
		eqp_discard(w);
		w = NULL;
	} else if (w && eqp_commit(w, &err) == 0) {
		rc = 0;
	}
	fclose(in);
out:
	if (rc)
		eq_error_msg("%s", err.msg);
	else if (count == 0)
		eq_warn("%s has no samples; %s holds none",
			o->samples, o->out);
	free(extra);
	if (o->symfs)
		eq_root_close(&root);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts *o = calloc(1, sizeof(*o));
	size_t i;
	int rc;

	if (!o) {
		eq_error_msg("out of memory");
		return 1;
	}
	rc = parse_args(argc, argv, o);
	if (rc == 0)
		rc = run_import(o);
	else if (rc == 1)
		rc = 0;   /* --help */
	for (i = 0; i < o->nmaps; i++)
		free(o->maps[i].text);
	for (i = 0; i < o->nimages; i++)
		free(o->images[i].data);
	for (i = 0; i < o->nsymtabs; i++) {
		free(o->symtabs[i].text);
		eq_symfile_release(&o->symtabs[i].syms);
	}
	free(o);
	return rc;
}
