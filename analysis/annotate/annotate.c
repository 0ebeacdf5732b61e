/* annotate.c - per-instruction and per-line energy of a procedure; see annotate.h. */
#include "annotate/annotate.h"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elfmod.h"
#include "util/units.h"
#include "util/grow.h"

struct pc_count {
	uint64_t off;
	uint64_t samples;
	const char *file;
	unsigned line;
};

struct func_acc {
	struct eq_annot_func f;
	struct pc_count *pcs;
	size_t npcs, cap;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int module_matches(const char *module, const char *want)
{
	if (!want)
		return 1;
	return !strcmp(module, want) || !strcmp(base_name(module), want);
}

static int add_pc(struct func_acc *fa, const struct eq_loc *loc)
{
	size_t i;

	for (i = 0; i < fa->npcs; i++) {
		if (fa->pcs[i].off == loc->module_off) {
			fa->pcs[i].samples++;
			return 0;
		}
	}
	if (EQ_GROW(fa->pcs, fa->cap, fa->npcs + 1, 32) < 0)
		return -1;
	fa->pcs[fa->npcs++] = (struct pc_count){ loc->module_off, 1, loc->file, loc->line };
	return 0;
}

static int cmp_pc(const void *a, const void *b)
{
	const struct pc_count *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* ---- reading and disassembling the procedure --------------------------- */

struct elf_facts {
	int machine;
	int is64;
	int thumb;              /* EM_ARM: the symbol's Thumb bit (st_value & 1) */
	uint64_t addr, size;    /* the procedure's link-time address and size */
};

/* Finds the procedure at file offset off: its address (through PT_LOAD)
 * and size (from .symtab or .dynsym). */
static int read_facts(Elf *e, uint64_t off, const char *name, struct elf_facts *fx)
{
	GElf_Ehdr eh;
	size_t i, nph;
	Elf_Scn *scn = NULL;
	int found = 0;

	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph) != 0)
		return -1;
	fx->machine = eh.e_machine;
	fx->is64 = gelf_getclass(e) == ELFCLASS64;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			fx->addr = off - ph.p_offset + ph.p_vaddr;
			found = 1;
			break;
		}
	}
	if (!found)
		return -1;
	fx->size = 0;
	fx->thumb = 0;
	while ((scn = elf_nextscn(e, scn)) != NULL && !fx->size) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k, n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < n; k++) {
			GElf_Sym sym;
			const char *sn;

			if (!gelf_getsym(d, (int)k, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			GElf_Addr thumb = fx->machine == EM_ARM ? 1 : 0;

			if ((sym.st_value & ~thumb) != fx->addr)
				continue;
			fx->thumb = (int)(sym.st_value & thumb);
			sn = elf_strptr(e, sh.sh_link, sym.st_name);
			if (sym.st_size && (!sn || !strcmp(sn, name) || !fx->size))
				fx->size = sym.st_size;
		}
	}
	return 0;
}

static int capstone_for(const struct elf_facts *fx, uint64_t addr_raw, cs_arch *arch, cs_mode *mode)
{
	switch (fx->machine) {
	case EM_X86_64: *arch = CS_ARCH_X86; *mode = CS_MODE_64; return 0;
	case EM_386:    *arch = CS_ARCH_X86; *mode = CS_MODE_32; return 0;
	case EM_AARCH64: *arch = CS_ARCH_ARM64; *mode = CS_MODE_ARM; return 0;
	case EM_ARM:
		*arch = CS_ARCH_ARM;
		*mode = (addr_raw & 1) ? CS_MODE_THUMB : CS_MODE_ARM;
		return 0;
	default:
		return -1;
	}
}

static int disassemble(struct func_acc *fa, struct eq_symbolizer *s, struct eq_elfmod *em,
		       const char *host, struct eq_error *err)
{
	struct eq_annot_func *f = &fa->f;
	struct elf_facts fx;
	unsigned char *code = NULL;
	uint64_t last = fa->pcs[fa->npcs - 1].off;
	cs_arch arch;
	cs_mode mode;
	csh cs;
	cs_insn *ins = NULL;
	size_t n, i;
	ssize_t got;
	Elf *e;
	int fd, rc = -1;

	fd = eq_sym_module_open(s, host, &(struct eq_error){ "" });
	if (fd < 0) {
		f->why = "its ELF file could not be opened";
		return 0;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || read_facts(e, f->start_off, f->name, &fx) < 0) {
		f->why = "its ELF file has no loadable segment at the procedure";
		goto out_ok;
	}
	f->start_addr = fx.addr;
	f->size = fx.size ? fx.size : last - f->start_off + 16;
	if (f->size > (16u << 20)) {
		f->why = "the procedure is larger than 16 MiB";
		goto out_ok;
	}
	/* the Thumb bit is in the symbol, not in the address */
	if (capstone_for(&fx, fx.addr | (uint64_t)fx.thumb, &arch, &mode) < 0) {
		f->why = "capstone does not disassemble this architecture";
		goto out_ok;
	}
	code = malloc(f->size);
	if (!code) {
		eq_fail(err, "out of memory for %llu bytes of %s", (unsigned long long)f->size, f->name);
		goto out;
	}
	got = pread(fd, code, f->size, (off_t)f->start_off);
	if (got <= 0) {
		f->why = "the procedure's bytes could not be read";
		goto out_ok;
	}
	if (cs_open(arch, mode, &cs) != CS_ERR_OK) {
		f->why = "capstone could not be started";
		goto out_ok;
	}
	n = cs_disasm(cs, code, (size_t)got, fx.addr, 0, &ins);
	f->insns = calloc(n ? n : 1, sizeof(*f->insns));
	if (!f->insns) {
		cs_free(ins, n);
		cs_close(&cs);
		eq_fail(err, "out of memory for %zu instructions", n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct eq_annot_insn *in = &f->insns[i];
		uint64_t poff;

		in->addr = ins[i].address;
		in->off = f->start_off + (ins[i].address - fx.addr);
		snprintf(in->text, sizeof(in->text), "%s%s%s", ins[i].mnemonic,
			 ins[i].op_str[0] ? " " : "", ins[i].op_str);
		if (em)
			eq_elfmod_lookup(em, in->off, &poff, &in->file, &in->line);
	}
	f->ninsns = n;
	cs_free(ins, n);
	cs_close(&cs);
	if (!n)
		f->why = "capstone decoded no instruction";
out_ok:
	rc = 0;
out:
	free(code);
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* Puts each sampled pc's count on the instruction that holds it; pcs that
 * fall outside the disassembly are listed on their own. */
static int place_samples(struct func_acc *fa, struct eq_error *err)
{
	struct eq_annot_func *f = &fa->f;
	size_t i, k = 0, extra = 0;

	for (i = 0; i < fa->npcs; i++) {
		const struct pc_count *pc = &fa->pcs[i];

		while (k + 1 < f->ninsns && f->insns[k + 1].off <= pc->off)
			k++;
		if (f->ninsns && pc->off >= f->insns[k].off &&
		    (k + 1 < f->ninsns || pc->off < f->start_off + f->size)) {
			f->insns[k].samples += pc->samples;
			continue;
		}
		extra++;
	}
	if (!extra)
		return 0;
	{
		struct eq_annot_insn *n = realloc(f->insns, (f->ninsns + extra) * sizeof(*n));

		if (!n)
			return eq_fail(err, "out of memory");
		f->insns = n;
	}
	for (i = 0; i < fa->npcs; i++) {
		const struct pc_count *pc = &fa->pcs[i];
		int inside = 0;

		for (k = 0; k < f->ninsns && f->insns[k].text[0]; k++)
			if (pc->off >= f->insns[k].off &&
			    (k + 1 < f->ninsns ? pc->off < f->insns[k + 1].off
					       : pc->off < f->start_off + f->size))
				inside = 1;
		if (inside)
			continue;
		f->insns[f->ninsns++] = (struct eq_annot_insn){
			.addr = f->start_addr + (pc->off - f->start_off), .off = pc->off,
			.file = pc->file, .line = pc->line, .samples = pc->samples };
	}
	return 0;
}

static int cmp_insn(const void *a, const void *b)
{
	const struct eq_annot_insn *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_line(const void *a, const void *b)
{
	const struct eq_annot_line *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if ((x->file == NULL) != (y->file == NULL))
		return x->file ? -1 : 1;
	if (x->file && strcmp(x->file, y->file))
		return strcmp(x->file, y->file);
	return x->line < y->line ? -1 : x->line > y->line;
}

static int build_lines(struct eq_annot_func *f, struct eq_error *err)
{
	size_t i, k;

	f->lines = calloc(f->ninsns ? f->ninsns : 1, sizeof(*f->lines));
	if (!f->lines)
		return eq_fail(err, "out of memory");
	for (i = 0; i < f->ninsns; i++) {
		const struct eq_annot_insn *in = &f->insns[i];

		if (!in->samples)
			continue;
		for (k = 0; k < f->nlines; k++)
			if (f->lines[k].line == in->line &&
			    (f->lines[k].file == in->file ||
			     (f->lines[k].file && in->file && !strcmp(f->lines[k].file, in->file))))
				break;
		if (k == f->nlines)
			f->lines[f->nlines++] = (struct eq_annot_line){ in->file, in->line, 0 };
		f->lines[k].samples += in->samples;
	}
	qsort(f->lines, f->nlines, sizeof(*f->lines), cmp_line);
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func_acc *x = a, *y = b;

	if (x->f.samples != y->f.samples)
		return x->f.samples < y->f.samples ? 1 : -1;
	return strcmp(x->f.module, y->f.module);
}

static double per_sample(const struct eqp_file *f)
{
	const struct eqp_meta *m = eqp_meta(f);

	if (m->mode == EQP_MODE_ENERGY)
		return m->quantum_j > 0 && isfinite(m->quantum_j) ? m->quantum_j : 0;
	return m->nominal_hz > 0 && isfinite(m->nominal_hz) ? 1.0 / m->nominal_hz : 0;
}

struct eq_annotation *eq_annotate(const struct eqp_file *file, struct eq_symbolizer *s,
				  const char *symbol, const char *module,
				  struct eq_error *err)
{
	struct eq_annotation *a = calloc(1, sizeof(*a));
	struct func_acc *acc = NULL;
	size_t nacc = 0, c, i, j;

	if (!a) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	a->symbol = symbol;
	a->mode = eqp_meta(file)->mode;
	a->per_sample = per_sample(file);
	for (c = 0; c < eqp_nsample_chunks(file); c++) {
		size_t n;
		const struct eq_sample *smp = eqp_sample_chunk(file, c, &n);

		for (i = 0; i < n; i++) {
			const struct eq_loc *loc = eq_sym_lookup(s, &smp[i]);
			uint64_t start;

			a->total_samples++;
			if (loc->kind != EQ_LOC_RESOLVED || !loc->proc || strcmp(loc->proc, symbol) ||
			    !module_matches(loc->module, module))
				continue;
			start = loc->module_off - loc->proc_off;
			for (j = 0; j < nacc; j++)
				if (acc[j].f.module == loc->module && acc[j].f.start_off == start)
					break;
			if (j == nacc) {
				struct func_acc *na = realloc(acc, (nacc + 1) * sizeof(*na));

				if (!na)
					goto oom;
				acc = na;
				memset(&acc[nacc], 0, sizeof(acc[nacc]));
				acc[nacc].f.name = loc->proc;
				acc[nacc].f.module = loc->module;
				acc[nacc].f.start_off = start;
				nacc++;
			}
			acc[j].f.samples++;
			if (add_pc(&acc[j], loc) < 0)
				goto oom;
		}
	}
	if (!nacc) {
		eq_fail(err, "no sample landed in a procedure named '%s'%s%s; 'eqprof report --by proc' lists the procedures that have samples",
			symbol, module ? " in " : "", module ? module : "");
		goto fail;
	}
	qsort(acc, nacc, sizeof(*acc), cmp_func);
	a->funcs = calloc(nacc, sizeof(*a->funcs));
	if (!a->funcs)
		goto oom;
	for (j = 0; j < nacc; j++) {
		struct func_acc *fa = &acc[j];
		const char *host = NULL;
		struct eq_elfmod *em;

		qsort(fa->pcs, fa->npcs, sizeof(*fa->pcs), cmp_pc);
		em = eq_sym_module_elf(s, fa->f.module, &host);
		fa->f.host_path = host;
		fa->f.start_addr = fa->f.start_off; /* until the ELF says otherwise */
		if (!em || !host)
			fa->f.why = "its ELF file is not on this machine (the recording's own symbol table named the procedure; give --symfs DIR if you have the file)";
		else if (disassemble(fa, s, em, host, err) < 0)
			goto fail;
		if (place_samples(fa, err) < 0)
			goto fail;
		qsort(fa->f.insns, fa->f.ninsns, sizeof(*fa->f.insns), cmp_insn);
		if (build_lines(&fa->f, err) < 0)
			goto fail;
		a->funcs[j] = fa->f;
		memset(&fa->f, 0, sizeof(fa->f));
		a->nfuncs = j + 1;
	}
	for (j = 0; j < nacc; j++) {
		free(acc[j].pcs);
		free(acc[j].f.insns);
		free(acc[j].f.lines);
	}
	free(acc);
	return a;
oom:
	eq_fail(err, "out of memory annotating %s", symbol);
fail:
	for (j = 0; j < nacc; j++) {
		free(acc[j].pcs);
		free(acc[j].f.insns);
		free(acc[j].f.lines);
	}
	free(acc);
	eq_annotation_free(a);
	return NULL;
}

void eq_annotation_free(struct eq_annotation *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nfuncs; i++) {
		free(a->funcs[i].insns);
		free(a->funcs[i].lines);
	}
	free(a->funcs);
	free(a);
}

/* ---- printing ------------------------------------------------------------ */

/* Line text of a source file, for the table (NULL when it cannot be read). */
struct source {
	const char *path;
	char **lines;
	size_t n;
};

static void source_load(struct source *src, const char *path)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (src->path == path)
		return;
	for (size_t i = 0; i < src->n; i++)
		free(src->lines[i]);
	free(src->lines);
	memset(src, 0, sizeof(*src));
	src->path = path;
	if (!path || !(fp = fopen(path, "r")))
		return;
	while ((len = getline(&line, &cap, fp)) >= 0 && src->n < 1000000) {
		char **nl = realloc(src->lines, (src->n + 1) * sizeof(*nl));

		if (!nl)
			break;
		src->lines = nl;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		src->lines[src->n++] = strdup(line);
	}
	free(line);
	fclose(fp);
}

static void source_free(struct source *src)
{
	source_load(src, NULL);
}

static const char *amount_unit(const struct eq_annotation *a)
{
	return a->mode == EQP_MODE_ENERGY ? "J" : "s";
}

static void print_amount(FILE *out, const struct eq_annotation *a, uint64_t samples)
{
	char buf[32];

	if (a->per_sample > 0)
		fprintf(out, "%10s", eq_format_quantity(buf, sizeof(buf),
							samples * a->per_sample, amount_unit(a)));
	else
		fprintf(out, "%10s", "-");
}

static void print_table(FILE *out, const struct eq_annotation *a, const char *source,
			int show_source)
{
	struct source src = { 0 };
	size_t i, k;

	for (i = 0; i < a->nfuncs; i++) {
		const struct eq_annot_func *f = &a->funcs[i];
		const char *lastf = NULL;
		unsigned lastl = 0;

		fprintf(out, "%s# %s profile of %s in %s, from %s\n", i ? "\n" : "",
			a->mode == EQP_MODE_ENERGY ? "energy" : "time", f->name, f->module, source);
		fprintf(out, "# %llu samples", (unsigned long long)f->samples);
		if (a->per_sample > 0) {
			char b[32];

			fprintf(out, " = %s", eq_format_quantity(b, sizeof(b), f->samples * a->per_sample,
								 amount_unit(a)));
		}
		fprintf(out, ", %.2f%% of the recording's %llu\n",
			a->total_samples ? 100.0 * f->samples / a->total_samples : 0,
			(unsigned long long)a->total_samples);
		if (f->why)
			fprintf(out, "# no disassembly: %s; sampled addresses only\n", f->why);
		if (f->nlines && f->lines[0].file) {
			fputs("# hottest lines:", out);
			for (k = 0; k < f->nlines && k < 5; k++)
				if (f->lines[k].file)
					fprintf(out, " %s:%u (%.1f%%)", base_name(f->lines[k].file),
						f->lines[k].line, 100.0 * f->lines[k].samples / f->samples);
			fputc('\n', out);
		}
		fprintf(out, "   share   samples    %s  address           instruction\n",
			a->mode == EQP_MODE_ENERGY ? "energy" : "  time");
		for (k = 0; k < f->ninsns; k++) {
			const struct eq_annot_insn *in = &f->insns[k];

			if (in->file && (in->line != lastl || !lastf || strcmp(in->file, lastf))) {
				source_load(&src, show_source ? in->file : NULL);
				fprintf(out, "%*s%s:%u", 39, "", base_name(in->file), in->line);
				if (in->line && in->line <= src.n)
					fprintf(out, "   %s", src.lines[in->line - 1]);
				fputc('\n', out);
				lastf = in->file;
				lastl = in->line;
			}
			if (in->samples)
				fprintf(out, "%7.2f%% %9llu ", 100.0 * in->samples / f->samples,
					(unsigned long long)in->samples);
			else
				fprintf(out, "%8s %9s ", "", "");
			if (in->samples)
				print_amount(out, a, in->samples);
			else
				fprintf(out, "%10s", "");
			fprintf(out, "  %16llx  %s\n", (unsigned long long)in->addr,
				in->text[0] ? in->text : "(sampled pc)");
		}
	}
	source_free(&src);
}

static void print_csv(FILE *out, const struct eq_annotation *a)
{
	size_t i, k;

	fprintf(out, "proc,module,address,offset,instruction,file,line,samples,share,%s\n",
		a->mode == EQP_MODE_ENERGY ? "energy_j" : "time_s");
	for (i = 0; i < a->nfuncs; i++) {
		const struct eq_annot_func *f = &a->funcs[i];

		for (k = 0; k < f->ninsns; k++) {
			const struct eq_annot_insn *in = &f->insns[k];

			eq_csv_field(out, f->name);
			fputc(',', out);
			eq_csv_field(out, f->module);
			fprintf(out, ",0x%llx,0x%llx,", (unsigned long long)in->addr,
				(unsigned long long)in->off);
			eq_csv_field(out, in->text);
			fputc(',', out);
			eq_csv_field(out, in->file ? in->file : "");
			fprintf(out, ",%u,%llu,%.8f,", in->line, (unsigned long long)in->samples,
				f->samples ? (double)in->samples / f->samples : 0);
			if (a->per_sample > 0)
				fprintf(out, "%.9g", in->samples * a->per_sample);
			fputc('\n', out);
		}
	}
}

static void json_amount(FILE *out, const struct eq_annotation *a, uint64_t samples)
{
	fprintf(out, ", \"%s\": ", a->mode == EQP_MODE_ENERGY ? "energy_j" : "time_s");
	eq_json_number(out, a->per_sample > 0 ? samples * a->per_sample : NAN);
}

static void print_json(FILE *out, const struct eq_annotation *a)
{
	size_t i, k;

	fputs("{\n  \"symbol\": ", out);
	eq_json_string(out, a->symbol);
	fprintf(out, ",\n  \"mode\": \"%s\",\n  \"%s\": ",
		a->mode == EQP_MODE_ENERGY ? "energy" : "time",
		a->mode == EQP_MODE_ENERGY ? "quantum_j" : "period_s");
	eq_json_number(out, a->per_sample > 0 ? a->per_sample : NAN);
	fprintf(out, ",\n  \"total_samples\": %llu,\n  \"functions\": [",
		(unsigned long long)a->total_samples);
	for (i = 0; i < a->nfuncs; i++) {
		const struct eq_annot_func *f = &a->funcs[i];

		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		eq_json_string(out, f->name);
		fputs(", \"module\": ", out);
		eq_json_string(out, f->module);
		fputs(", \"elf\": ", out);
		if (f->host_path)
			eq_json_string(out, f->host_path);
		else
			fputs("null", out);
		fprintf(out, ", \"address\": %llu, \"offset\": %llu, \"size\": %llu, \"samples\": %llu, \"share_of_recording\": ",
			(unsigned long long)f->start_addr, (unsigned long long)f->start_off,
			(unsigned long long)f->size, (unsigned long long)f->samples);
		eq_json_number(out, a->total_samples ? (double)f->samples / a->total_samples : 0);
		json_amount(out, a, f->samples);
		fprintf(out, ", \"disassembled\": %s, \"why_not\": ", f->why ? "false" : "true");
		if (f->why)
			eq_json_string(out, f->why);
		else
			fputs("null", out);
		fputs(",\n     \"instructions\": [", out);
		for (k = 0; k < f->ninsns; k++) {
			const struct eq_annot_insn *in = &f->insns[k];

			fprintf(out, "%s\n       {\"address\": %llu, \"offset\": %llu, \"text\": ",
				k ? "," : "", (unsigned long long)in->addr, (unsigned long long)in->off);
			eq_json_string(out, in->text);
			fputs(", \"file\": ", out);
			if (in->file)
				eq_json_string(out, in->file);
			else
				fputs("null", out);
			fprintf(out, ", \"line\": %u, \"samples\": %llu, \"share\": ", in->line,
				(unsigned long long)in->samples);
			eq_json_number(out, f->samples ? (double)in->samples / f->samples : 0);
			json_amount(out, a, in->samples);
			fputc('}', out);
		}
		fputs("],\n     \"lines\": [", out);
		for (k = 0; k < f->nlines; k++) {
			const struct eq_annot_line *l = &f->lines[k];

			fprintf(out, "%s\n       {\"file\": ", k ? "," : "");
			if (l->file)
				eq_json_string(out, l->file);
			else
				fputs("null", out);
			fprintf(out, ", \"line\": %u, \"samples\": %llu, \"share\": ", l->line,
				(unsigned long long)l->samples);
			eq_json_number(out, f->samples ? (double)l->samples / f->samples : 0);
			json_amount(out, a, l->samples);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs("\n  ]\n}\n", out);
}

void eq_annotation_print(FILE *out, const struct eq_annotation *a, enum eq_format fmt,
			 const char *source, int show_source)
{
	if (fmt == EQ_FMT_JSON)
		print_json(out, a);
	else if (fmt == EQ_FMT_CSV)
		print_csv(out, a);
	else
		print_table(out, a, source, show_source);
}
