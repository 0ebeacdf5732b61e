/*
 * builtin-import.c - eqprof import: CSV samples + maps + names -> .eqp.
 *
 *   eqprof import --samples S.csv [--maps PID=FILE]... [--comm PID=NAME]...
 *                 (--energy QUANTUM | --time HZ) [--target TEXT] -o OUT.eqp
 *                 [--kallsyms FILE] [--symtab MODULE=FILE]... [--image MODULE=FILE]...
 *                 [--symfs DIR] [-q]
 *
 * Everything is checked before the output exists: maps files are parsed
 * (errors name file and line), samples are streamed into a writer that only
 * becomes OUT.eqp on commit, so a bad line leaves no output behind.  The
 * build-id of every mapped file readable here is stored in the header, so a
 * later report can tell when a binary was rebuilt since.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
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

static const char usage_text[] =
	"usage: eqprof import --samples S.csv [--maps PID=FILE]... [--comm PID=NAME]...\n"
	"                     (--energy QUANTUM | --time HZ) [--target TEXT] -o OUT.eqp\n"
	"                     [--kallsyms FILE] [--symtab MODULE=FILE]... [--image MODULE=FILE]...\n"
	"                     [--symfs DIR] [-q]\n"
	"\n"
	"  --samples S.csv   samples, header " EQ_CSV_HEADER "\n"
	"  --maps PID=FILE   memory map of process PID in /proc/PID/maps format\n"
	"  --comm PID=NAME   name of process PID (default: its executable's name)\n"
	"  --energy Q        energy-driven samples, Q joules each (e.g. 2.94mJ)\n"
	"  --time HZ         time-driven samples at HZ per second (e.g. 349Hz)\n"
	"  --target TEXT     what was profiled, stored in the recording\n"
	"  --kallsyms FILE   the target kernel's /proc/kallsyms, for kernel samples\n"
	"  --symtab MODULE=FILE  nm-style symbols of MODULE (a path in the maps) with\n"
	"                    addresses as offsets into its file, for modules whose ELF\n"
	"                    the report machine will not have\n"
	"  --image MODULE=FILE  the ELF image of MODULE, a mapping no file backs (the\n"
	"                    vdso: --image [vdso]=FILE), for its symbols and frames\n"
	"  --symfs DIR       read mapped files under DIR to record their build-ids\n"
	"  -o OUT.eqp        the recording to write (atomically)\n"
	"  -q                no progress line (it is only shown on a terminal anyway)\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("eqprof import: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	fputs(usage_text, stderr);
	return 2;
}

static int parse_pid_arg(const char *opt, const char *text, struct pid_arg *out,
			 const struct pid_arg *earlier, size_t nearlier)
{
	const char *eq = strchr(text, '=');
	unsigned long long pid;
	struct eq_error err;
	char num[32];

	if (!eq || eq == text || !eq[1] || (size_t)(eq - text) >= sizeof(num)) {
		fprintf(stderr, "eqprof import: %s %s: expected PID=VALUE\n", opt, text);
		return -1;
	}
	memcpy(num, text, (size_t)(eq - text));
	num[eq - text] = '\0';
	if (eq_parse_uint(num, opt, UINT32_MAX, &pid, &err)) {
		fprintf(stderr, "eqprof import: %s\n", err.msg);
		return -1;
	}
	for (size_t i = 0; i < nearlier; i++)
		if (earlier[i].pid == pid) {
			fprintf(stderr, "eqprof import: %s: pid %llu given twice\n", opt, pid);
			return -1;
		}
	out->pid = (uint32_t)pid;
	out->value = eq + 1;
	return 0;
}

static int parse_symtab_arg(const char *opt, const char *module_eq_file, const char *file,
			    struct symtab_arg *out)
{
	char *eq;

	if (!module_eq_file) {
		out->file = file;   /* the caller refuses a second --kallsyms */
		return 0;
	}
	eq = strrchr(module_eq_file, '=');
	if (!eq || eq == module_eq_file || !eq[1]) {
		fprintf(stderr, "eqprof import: %s %s: expected MODULE=FILE\n", opt, module_eq_file);
		return -1;
	}
	*eq = '\0';   /* argv is ours to cut */
	out->module = module_eq_file;
	out->file = eq + 1;
	return 0;
}

static int parse_args(int argc, char **argv, struct import_opts *o)
{
	static const struct option longopts[] = {
		{ "samples", required_argument, NULL, 's' },
		{ "maps", required_argument, NULL, 'm' },
		{ "comm", required_argument, NULL, 'c' },
		{ "energy", required_argument, NULL, 'e' },
		{ "time", required_argument, NULL, 't' },
		{ "target", required_argument, NULL, 'T' },
		{ "kallsyms", required_argument, NULL, 'K' },
		{ "symtab", required_argument, NULL, 'Y' },
		{ "image", required_argument, NULL, 'I' },
		{ "symfs", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct eq_error err;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'q': o->quiet = 1; break;
		case 's': o->samples = optarg; break;
		case 'o': o->out = optarg; break;
		case 'T': o->target = optarg; break;
		case 'F': o->symfs = optarg; break;
		case 'K':
			if (o->have_kallsyms++)
				return usage_error("--kallsyms given twice");
			/* fall through */
		case 'Y':
			if (o->nsymtabs == MAX_SYMTABS)
				return usage_error("more than %d symbol tables", MAX_SYMTABS);
			if (parse_symtab_arg("--symtab", c == 'K' ? NULL : optarg, optarg,
					     &o->symtabs[o->nsymtabs++]))
				return 2;
			break;
		case 'I': {
			struct symtab_arg a = { 0 };

			if (o->nimages == MAX_SYMTABS)
				return usage_error("more than %d --image", MAX_SYMTABS);
			if (parse_symtab_arg("--image", optarg, optarg, &a) || a.module[0] == '/') {
				if (a.module && a.module[0] == '/')
					fprintf(stderr, "eqprof import: --image %s: %s is a file: its "
						"symbols are read from it (or --symfs)\n", a.module, a.module);
				return 2;
			}
			o->images[o->nimages].module = a.module;
			o->images[o->nimages++].file = a.file;
			break;
		}
		case 'm':
			if (o->nmaps == MAX_PROCS)
				return usage_error("more than %d --maps", MAX_PROCS);
			if (parse_pid_arg("--maps", optarg, &o->maps[o->nmaps], o->maps, o->nmaps))
				return 2;
			o->nmaps++;
			break;
		case 'c':
			if (o->ncomm == MAX_PROCS)
				return usage_error("more than %d --comm", MAX_PROCS);
			if (parse_pid_arg("--comm", optarg, &o->comm[o->ncomm], o->comm, o->ncomm))
				return 2;
			o->ncomm++;
			break;
		case 'e':
			if (eq_parse_quantity(optarg, "J", "--energy", &o->quantum_j, &err))
				return usage_error("%s", err.msg);
			if (o->quantum_j <= 0 || o->quantum_j > EQP_MAX_QUANTUM_J)
				return usage_error("--energy %s: give a positive energy such as 2.94mJ "
						   "(at most %g J)", optarg, EQP_MAX_QUANTUM_J);
			o->have_energy = 1;
			break;
		case 't':
			if (eq_parse_quantity(optarg, "Hz", "--time", &o->hz, &err))
				return usage_error("%s", err.msg);
			if (o->hz <= 0)
				return usage_error("--time %s: give a positive rate such as 349Hz",
						   optarg);
			o->have_time = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->samples)
		return usage_error("--samples S.csv is required");
	if (!o->out)
		return usage_error("-o OUT.eqp is required");
	if (o->have_energy == o->have_time)
		return usage_error("give exactly one of --energy QUANTUM and --time HZ");
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
		fprintf(stderr, "eqprof import: %s\n", err.msg);
	else if (count == 0)
		fprintf(stderr, "eqprof import: warning: %s has no samples; %s holds none\n",
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
		fputs("eqprof import: out of memory\n", stderr);
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
