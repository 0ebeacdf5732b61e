/*
 * test_extent.c - the extent of a pc (eq_sym_lookup_extent: the pcs around
 * it that symbolize alike) checked against eq_sym_lookup itself at every
 * pc of real ELF code (this program, libc, the vdso from the recording's
 * saved image) and of an embedded table with sizeless, overlapping,
 * aliased and tiny symbols, gaps and a symbol across two mappings; the
 * pc -> row map of analysis/profile built on it (pcmap.h); and --by proc
 * and --by module profiles, which use both, against rows counted from
 * eq_sym_lookup sample by sample.
 *
 * The expected values come from eq_sym_lookup, which the extents do not
 * use to find their edges (they come from the symbol index, the CFI and
 * the maps), and from counting by hand.  The DWARF lines, which elfmod
 * copies from libdw once per CU, are checked against libdw itself asked
 * pc by pc (dwfl_module_getsrc, dwfl_lineinfo) in a session of its own.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include <cmocka.h>

#include "file/eqp.h"
#include "profile/pcmap.h"
#include "profile/profile.h"
#include "symbols/elfmod.h"
#include "symbols/intern.h"
#include "symbols/maps.h"
#include "symbols/symbolize.h"
#include "test/lib/xorshift.h"

#define T0 1000  /* every sample's time: after the maps */

/* A fake module known by its embedded table (file offsets), in two
 * adjacent mappings, and one whose table has absolute addresses. */
static const char app_maps[] =
	"401000-40a000 r-xp 00001000 00:00 0 /target/app\n"
	"40a000-40c000 r-xp 0000a000 00:00 0 /target/app\n"
	"500000-502000 r-xp 00000000 00:00 0 /target/abs\n"
	"600000-601000 rw-p 00000000 00:00 0 \n";
static const struct eqp_symbol app_syms[] = {
	{ 0x1010, 0x100, "alpha" },      /* 0x1000-0x100f: before every symbol */
	{ 0x1110, 0, "beta" },           /* sizeless: up to gamma */
	{ 0x1800, 0x400, "gamma" },      /* overlapped by delta: */
	{ 0x1900, 0x10, "delta" },       /* after it nothing, up to alias */
	{ 0x2000, 0x20, "alias_weak" },
	{ 0x2000, 0x20, "alias" },
	{ 0x3000, 0x7, "eps" },          /* three in one 16-byte granule */
	{ 0x3007, 0x3, "zeta" },
	{ 0x300a, 0x100, "eta" },
	{ 0x9ff0, 0x40, "across" },      /* over the two mappings' edge */
	{ 0xb003, 0, "omega" },          /* the last, sizeless: 1 MiB reach */
};
static const struct eqp_symbol abs_syms[] = {
	{ 0x500100, 0x50, "abs_one" }, { 0x500400, 0, "abs_two" },
};

struct fixture {
	char path[64];
	struct eqp_file *f;
	struct eq_symbolizer *s;
	struct { uint64_t start, end; char path[256]; } code[64];  /* pid 10's r-xp */
	size_t ncode;
};

static char *self_maps(size_t *len)
{
	FILE *in = fopen("/proc/self/maps", "r");
	char *text = calloc(1, 1 << 20);

	assert_non_null(in);
	assert_non_null(text);
	*len = fread(text, 1, (1 << 20) - 1, in);
	fclose(in);
	return text;
}

static void find_code(struct fixture *fx, const char *maps)
{
	const char *line = maps;

	while (*line && fx->ncode < 64) {
		unsigned long long a, b;
		char perm[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perm, &at) == 3 &&
		    perm[2] == 'x') {
			const char *end = strchr(line + at, '\n');
			size_t n = end ? (size_t)(end - line - at) : strlen(line + at);

			fx->code[fx->ncode].start = a;
			fx->code[fx->ncode].end = b;
			snprintf(fx->code[fx->ncode].path, sizeof(fx->code[0].path), "%.*s", (int)n,
				 line + at);
			fx->ncode++;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : "";
	}
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct eqp_meta meta = { .mode = EQP_MODE_ENERGY, .quantum_j = 0.001, .clock_hz = 1e9,
				 .target = "unit test" };
	struct eqp_symtab app = { "/target/app", 0, sizeof(app_syms) / sizeof(app_syms[0]),
				  app_syms };
	struct eqp_symtab abs = { "/target/abs", 1, 2, abs_syms };
	struct eq_sample one = { .time = T0, .pc = 0x401020, .pid = 11, .tid = 11 };
	struct eq_error err;
	struct eqp_writer *w;
	size_t len, i;
	char *maps = self_maps(&len);

	assert_non_null(fx);
	find_code(fx, maps);
	snprintf(fx->path, sizeof(fx->path), "/tmp/test_extent.%d.eqp", (int)getpid());
	w = eqp_create(fx->path, &meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_maps(w, 10, 0, maps, len, &err), 0);
	assert_int_equal(eqp_add_maps(w, 11, 0, app_maps, strlen(app_maps), &err), 0);
	assert_int_equal(eqp_add_symtab(w, &app, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &abs, &err), 0);
	/* the vdso's bytes, as eqprof record saves them */
	for (i = 0; i < fx->ncode; i++)
		if (!strcmp(fx->code[i].path, "[vdso]") && getauxval(AT_SYSINFO_EHDR))
			assert_int_equal(eqp_add_image(w, "[vdso]",
						       (const void *)getauxval(AT_SYSINFO_EHDR),
						       fx->code[i].end - fx->code[i].start, &err), 0);
	assert_int_equal(eqp_add_samples(w, &one, 1, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	free(maps);
	fx->f = eqp_open(fx->path, &err);
	assert_non_null(fx->f);
	fx->s = eq_sym_new(fx->f, NULL, &err);
	assert_non_null(fx->s);
	eq_sym_skip_lines(fx->s, 1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	eq_sym_free(fx->s);
	eqp_close(fx->f);
	unlink(fx->path);
	free(fx);
	return 0;
}

/* What the extent promises to keep: the loc's kind, kernel-ness, exe,
 * module and procedure (the same pointers: strings are interned). */
static void same_place(const struct eq_loc *want, const struct eq_loc *got, uint64_t pc,
		       uint64_t from, int lines)
{
	/* a line's extent (eq_sym_lookup_line_extent) keeps file and line too */
	if (lines && (want->file != got->file || want->line != got->line))
		fail_msg("pc 0x%llx in the line extent of 0x%llx: %s:%u, not %s:%u",
			 (unsigned long long)pc, (unsigned long long)from,
			 got->file ? got->file : "-", got->line, want->file ? want->file : "-",
			 want->line);
	if (want->kind != got->kind || want->kernel != got->kernel || want->exe != got->exe ||
	    want->module != got->module || want->module_base != got->module_base ||
	    want->proc != got->proc)
		fail_msg("pc 0x%llx in the extent of 0x%llx: %s %s (kind %d), not %s %s (kind %d)",
			 (unsigned long long)pc, (unsigned long long)from, got->module,
			 got->proc ? got->proc : "-", got->kind, want->module,
			 want->proc ? want->proc : "-", want->kind);
}

/*
 * Every pc of [from, to] of pid's space, extent by extent: each extent
 * holds its pc, stays in its mapping, and every pc in it (dense), or its
 * two ends and 8 others (not dense), symbolizes as the pc did.  Returns
 * the number of extents.
 */
static size_t walk_by(struct fixture *fx, uint32_t pid, uint16_t flags, uint64_t from,
		      uint64_t to, int dense, int lines)
{
	struct eq_sample smp = { .time = T0, .pid = pid, .tid = pid, .flags = flags };
	uint64_t pc = from, first, last, q, seed = 0x9e3779b97f4a7c15ull ^ from;
	size_t n = 0;

	for (;;) {
		const struct eq_loc *loc, *at;
		const struct eq_maps *maps;
		const struct eq_map *map;
		uint64_t lo, hi;
		int k;

		smp.pc = pc;
		loc = lines ? eq_sym_lookup_line_extent(fx->s, &smp, &first, &last) :
			      eq_sym_lookup_extent(fx->s, &smp, &first, &last);
		assert_true(first <= pc && pc <= last);
		n++;
		maps = eq_sym_space_maps(fx->s, &smp);
		map = maps ? eq_maps_find(maps, pc) : NULL;
		if (map && !(flags & (EQ_F_KERNEL | EQ_F_IDLE)))
			assert_true(first >= map->start && last < map->end);
		lo = first > from ? first : from;
		hi = last < to ? last : to;
		for (q = lo; q <= hi; q = dense || q == hi ? q + 1 : hi) {
			smp.pc = q;
			at = eq_sym_lookup(fx->s, &smp);
			same_place(loc, at, q, pc, lines);
			if (q == hi)
				break;
		}
		for (k = 0; !dense && k < 8 && hi > lo; k++) {
			smp.pc = lo + eq_xorshift64(&seed) % (hi - lo);
			at = eq_sym_lookup(fx->s, &smp);
			same_place(loc, at, smp.pc, pc, lines);
		}
		if (last >= to)
			return n;
		pc = last + 1;
	}
}

static size_t walk(struct fixture *fx, uint32_t pid, uint16_t flags, uint64_t from, uint64_t to,
		   int dense)
{
	return walk_by(fx, pid, flags, from, to, dense, 0);
}

static void embedded_table_every_pc(void **state)
{
	struct fixture *fx = *state;

	/* both mappings of the fake app, the absolute one, the anonymous
	 * one and the unmapped pcs around them, pc by pc */
	assert_true(walk(fx, 11, 0, 0x400f00, 0x40c100, 1) > 20);
	assert_true(walk(fx, 11, 0, 0x4fff00, 0x502100, 1) >= 5);
	assert_int_equal(walk(fx, 11, 0, 0x600000, 0x6000ff, 1), 0x100);
}

static void embedded_table_extents(void **state)
{
	struct fixture *fx = *state;
	struct eq_sample smp = { .time = T0, .pid = 11, .tid = 11 };
	static const struct { uint64_t pc, first, last; } want[] = {
		{ 0x401000, 0x401000, 0x40100f },  /* before the first symbol */
		{ 0x401010, 0x401010, 0x40110f },  /* alpha */
		{ 0x401110, 0x401110, 0x4017ff },  /* beta, sizeless, up to gamma */
		{ 0x4018ff, 0x401800, 0x4018ff },  /* gamma, up to delta */
		{ 0x40190f, 0x401900, 0x40190f },  /* delta */
		{ 0x401910, 0x401910, 0x401fff },  /* nothing: gamma does not resume */
		{ 0x402000, 0x402000, 0x40201f },  /* alias */
		{ 0x403006, 0x403000, 0x403006 },  /* eps */
		{ 0x403007, 0x403007, 0x403009 },  /* zeta */
		{ 0x409ff0, 0x409ff0, 0x409fff },  /* across, first mapping */
		{ 0x40a000, 0x40a000, 0x40a02f },  /* across, second mapping */
		{ 0x40b002, 0x40a030, 0x40b002 },  /* after across */
		{ 0x40b003, 0x40b003, 0x40bfff },  /* omega: the mapping's end */
		{ 0x500149, 0x500100, 0x50014f },  /* abs_one (absolute table) */
		{ 0x500400, 0x500400, 0x501fff },  /* abs_two */
		{ 0x600010, 0x600010, 0x600010 },  /* anonymous: the pc alone */
		{ 0x700000, 0x700000, 0x700000 },  /* unmapped: the pc alone */
	};
	uint64_t first, last;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		smp.pc = want[i].pc;
		eq_sym_lookup_extent(fx->s, &smp, &first, &last);
		if (first != want[i].first || last != want[i].last)
			fail_msg("0x%llx: extent 0x%llx-0x%llx, not 0x%llx-0x%llx",
				 (unsigned long long)want[i].pc, (unsigned long long)first,
				 (unsigned long long)last, (unsigned long long)want[i].first,
				 (unsigned long long)want[i].last);
	}
	/* kernel pcs: the pc alone; idle: every pc */
	smp.pc = 0xffffffff81000000ull;
	smp.flags = EQ_F_KERNEL;
	eq_sym_lookup_extent(fx->s, &smp, &first, &last);
	assert_true(first == smp.pc && last == smp.pc);
	smp.flags = EQ_F_KERNEL | EQ_F_IDLE;
	eq_sym_lookup_extent(fx->s, &smp, &first, &last);
	assert_true(first == 0 && last == UINT64_MAX);
}

/* The code mapping of pid 10 whose path ends in name, or -1. */
static int code_of(const struct fixture *fx, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < fx->ncode; i++) {
		size_t l = strlen(fx->code[i].path);

		if (l >= n && !strcmp(fx->code[i].path + l - n, name))
			return (int)i;
	}
	return -1;
}

static void real_elf_every_pc(void **state)
{
	struct fixture *fx = *state;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int v = code_of(fx, "[vdso]"), c = -1;
	uint64_t s, e;
	size_t i;

	assert_true(n > 0);
	exe[n] = 0;
	/* the vdso: code outside every .dynsym symbol, named by its CFI */
	if (v >= 0)
		walk(fx, 10, 0, fx->code[v].start, fx->code[v].end - 1, 1);
	/* this program: its first and last 16 KiB pc by pc, all of it sparsely */
	c = code_of(fx, exe);
	assert_true(c >= 0);
	s = fx->code[c].start;
	e = fx->code[c].end - 1;
	walk(fx, 10, 0, s, s + 0x4000 < e ? s + 0x4000 : e, 1);
	walk(fx, 10, 0, e - 0x4000 > s ? e - 0x4000 : s, e, 1);
	assert_true(walk(fx, 10, 0, s, e, 0) > 100);
	/* every other code mapping (libc, ld.so, libdw...: stripped to
	 * .dynsym, static functions named by CFI) sparsely, 16 KiB of libc
	 * pc by pc, and each one's end and the unmapped pcs after it */
	for (i = 0; i < fx->ncode; i++) {
		if ((int)i == c || (int)i == v)
			continue;
		s = fx->code[i].start;
		e = fx->code[i].end - 1;
		walk(fx, 10, 0, s, e, 0);
		if (strstr(fx->code[i].path, "/libc.so"))
			walk(fx, 10, 0, s + (e - s) / 2, s + (e - s) / 2 + 0x4000 < e ?
			     s + (e - s) / 2 + 0x4000 : e, 1);
		walk(fx, 10, 0, e - 0x100, e + 0x100, 1);
	}
}

/* Line extents over this program (built with -g): its first and last 16
 * KiB pc by pc, file and line kept over each extent; more extents than by
 * procedure (a pc with no line is an extent of its own). */
static void real_elf_every_pc_lines(void **state)
{
	struct fixture *fx = *state;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int c;
	uint64_t s, e, to;
	size_t by_line, by_proc;

	assert_true(n > 0);
	exe[n] = 0;
	c = code_of(fx, exe);
	assert_true(c >= 0);
	s = fx->code[c].start;
	e = fx->code[c].end - 1;
	to = s + 0x4000 < e ? s + 0x4000 : e;
	eq_sym_skip_lines(fx->s, 0);
	by_line = walk_by(fx, 10, 0, s, to, 1, 1);
	by_proc = walk_by(fx, 10, 0, s, to, 1, 0);
	assert_true(by_line > by_proc);
	walk_by(fx, 10, 0, e - 0x4000 > s ? e - 0x4000 : s, e, 1, 1);
}

/* ---- DWARF lines against libdw, pc by pc ---------------------------------- */

/* The first of l's CU's line records above a (libdw's order), or NULL. */
static Dwfl_Line *libdw_record_after(Dwfl_Line *l, Dwarf_Addr a)
{
	Dwarf_Die *cu = dwfl_linecu(l);
	size_t lo = 0, hi, n;
	Dwarf_Addr at;

	assert_int_equal(dwfl_getsrclines(cu, &n), 0);
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		assert_non_null(dwfl_lineinfo(dwfl_onesrcline(cu, mid), &at, NULL, NULL, NULL, NULL));
		if (at <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? dwfl_onesrcline(cu, lo) : NULL;
}

/*
 * What libdw says of vaddr (file offset off): its line (file interned in
 * strings, NULL and 0 without a name or a line > 0; -1 without a record),
 * and its line's extent, [*first, *last] from eq_elfmod_extent(): the
 * record's address up to the next record's, when libdw gives both ends
 * that same record, else off alone.
 */
static int libdw_line(Dwfl_Module *mod, struct eq_intern *strings, uint64_t vaddr, uint64_t off,
		      const char **file, unsigned *line, uint64_t *first, uint64_t *last)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, vaddr), *next;
	Dwarf_Addr a, b;
	const char *src;
	int lineno = 0;

	*file = NULL;
	*line = 0;
	if (!l) {
		*first = *last = off;
		return -1;
	}
	src = dwfl_lineinfo(l, &a, &lineno, NULL, NULL, NULL);
	if (src && lineno > 0) {
		*file = eq_intern(strings, src);
		*line = (unsigned)lineno;
	}
	next = libdw_record_after(l, a);
	if (!next || !dwfl_lineinfo(next, &b, NULL, NULL, NULL, NULL) || a > vaddr || b <= vaddr ||
	    dwfl_module_getsrc(mod, a) != l || dwfl_module_getsrc(mod, b - 1) != l) {
		*first = *last = off;
		return 0;
	}
	if (a - vaddr + off > *first)
		*first = a - vaddr + off;
	if (b - 1 - vaddr + off < *last)
		*last = b - 1 - vaddr + off;
	return 0;
}

/* This program's own ELF as eq_elfmod opens it (its names into strings),
 * its path into exe (size bytes). */
static struct eq_elfmod *open_self(struct eq_intern *strings, char *exe, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", exe, size - 1);
	struct eq_error err;
	struct eq_elfmod *m;

	assert_true(n > 0);
	exe[n] = 0;
	assert_non_null(strings);
	m = eq_elfmod_open(NULL, open(exe, O_RDONLY), exe, NULL, strings, &err);
	assert_non_null(m);
	return m;
}

/*
 * Every pc of this program's code (built with -g, many CUs, pcs without
 * lines between them, records sharing an address, end_sequence records):
 * eq_elfmod_line() and eq_elfmod_line_extent() give what libdw gives.
 */
static void real_elf_lines_as_libdw(void **state)
{
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo,
					   .section_address = dwfl_offline_section_address };
	char exe[4096];
	struct eq_intern *strings = eq_intern_new();
	struct eq_elfmod *m = open_self(strings, exe, sizeof(exe));
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	GElf_Phdr ph;
	Elf *elf;
	size_t nph, i, nar = 0, lined = 0, unlined = 0, files = 0;
	Dwarf_Aranges *ar;
	Dwarf *dw;
	const char *prev_file = NULL;

	(void)state;
	assert_non_null(dwfl);
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "self", exe, -1, 0, true);  /* as elfmod: base 0 */
	dwfl_report_end(dwfl, NULL, NULL);
	assert_non_null(mod);
	dw = dwfl_module_getdwarf(mod, &bias);
	assert_non_null(dw);
	elf = dwfl_module_getelf(mod, &bias);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &nph), 0);
	for (i = 0; i < nph; i++) {
		uint64_t off;

		assert_non_null(gelf_getphdr(elf, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		for (off = ph.p_offset; off < ph.p_offset + ph.p_filesz; off++) {
			uint64_t vaddr = off - ph.p_offset + ph.p_vaddr, wf, wl, gf, gl;
			const char *want_file, *got_file;
			unsigned want_line, got_line;
			int want, got;

			eq_elfmod_extent(m, off, &wf, &wl);
			want = libdw_line(mod, strings, vaddr, off, &want_file, &want_line, &wf, &wl);
			got = eq_elfmod_line(m, off, &got_file, &got_line);
			eq_elfmod_line_extent(m, off, &gf, &gl);
			if (got != want || got_file != want_file || got_line != want_line ||
			    gf != wf || gl != wl)
				fail_msg("offset 0x%llx: %d %s:%u 0x%llx-0x%llx, libdw %d %s:%u "
					 "0x%llx-0x%llx", (unsigned long long)off, got,
					 got_file ? got_file : "-", got_line, (unsigned long long)gf,
					 (unsigned long long)gl, want, want_file ? want_file : "-",
					 want_line, (unsigned long long)wf, (unsigned long long)wl);
			lined += want == 0;
			unlined += want != 0;
			files += want_file && want_file != prev_file;
			prev_file = want_file ? want_file : prev_file;
		}
	}
	/*
	 * The cases were there: pcs with lines in many files, pcs without.
	 * libdw 0.188 finds a pc's CU only by .debug_aranges, which clang
	 * does not write unless told (-gdwarf-aranges): there, no pc has a
	 * line, for libdw as for elfmod.
	 */
	if (dwarf_getaranges(dw, &ar, &nar) == 0 && nar > 0) {
		assert_true(lined > 10000);
		assert_true(files > 10);
	} else {
		assert_int_equal(lined, 0);
	}
	assert_true(unlined > 0);
	dwfl_end(dwfl);
	eq_elfmod_close(m);
	eq_intern_free(strings);
}

/* What a loc of off would have in a line's row: procedure (or the region
 * naming a pc without one), whether off has a line record, file and line. */
struct line_key {
	const char *proc, *file;
	uint64_t region;
	unsigned line;
	int got;
};

static void line_key_of(struct eq_elfmod *m, uint64_t off, struct line_key *k)
{
	uint64_t proc_off;

	memset(k, 0, sizeof(*k));
	k->proc = eq_elfmod_lookup(m, off, &proc_off, &k->file, &k->line);
	if (!k->proc && eq_elfmod_region(m, off, &k->region) < 0)
		k->region = UINT64_MAX;
	k->got = eq_elfmod_line(m, off, &k->file, &k->line);
}

/*
 * Every pc of this program's code: eq_elfmod_same_line_extent() holds
 * eq_elfmod_line_extent()'s pcs, and every pc in it has the procedure,
 * file and line of the pc asked (runs of equal keys over the offsets,
 * numbered: equal at both ends, equal between) -- computed here pc by pc
 * from eq_elfmod_lookup(), eq_elfmod_region() and eq_elfmod_line(), which
 * real_elf_lines_as_libdw holds to libdw.  And it is wider somewhere (this
 * program's code, from gcc, has lines split over several records).
 */
static void real_elf_same_line_extents(void **state)
{
	char exe[4096];
	struct eq_intern *strings = eq_intern_new();
	struct eq_elfmod *m = open_self(strings, exe, sizeof(exe));
	Elf *elf;
	GElf_Phdr ph;
	size_t nph, i, wider = 0, lined = 0;
	int fd;

	(void)state;
	assert_int_equal(elf_version(EV_CURRENT) == EV_NONE, 0);
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &nph), 0);
	for (i = 0; i < nph; i++) {
		uint64_t off, k, end, *run;
		struct line_key prev, cur;

		assert_non_null(gelf_getphdr(elf, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		end = ph.p_offset + ph.p_filesz;
		run = malloc(ph.p_filesz * sizeof(*run));
		assert_non_null(run);
		for (off = ph.p_offset, k = 0; off < end; off++) {
			line_key_of(m, off, &cur);
			if (off > ph.p_offset && memcmp(&cur, &prev, sizeof(cur)))
				k++;
			run[off - ph.p_offset] = k;
			lined += cur.got == 0;
			prev = cur;
		}
		for (off = ph.p_offset; off < end; off++) {
			uint64_t gf, gl, sf, sl;

			eq_elfmod_line_extent(m, off, &gf, &gl);
			eq_elfmod_same_line_extent(m, off, &sf, &sl);
			if (sf > gf || sl < gl || sf < ph.p_offset || sl >= end ||
			    run[sf - ph.p_offset] != run[off - ph.p_offset] ||
			    run[sl - ph.p_offset] != run[off - ph.p_offset])
				fail_msg("offset 0x%llx: same-line extent 0x%llx-0x%llx, line's "
					 "0x%llx-0x%llx", (unsigned long long)off,
					 (unsigned long long)sf, (unsigned long long)sl,
					 (unsigned long long)gf, (unsigned long long)gl);
			wider += sf < gf || sl > gl;
		}
		free(run);
	}
	/* (clang writes no .debug_aranges unless told: libdw, and so elfmod,
	 * find no line there, as in real_elf_lines_as_libdw) */
	if (lined > 10000)
		assert_true(wider > 0);
	else
		assert_int_equal(wider, 0);
	elf_end(elf);
	close(fd);
	eq_elfmod_close(m);
	eq_intern_free(strings);
}

/* ---- the map built on extents --------------------------------------------- */

static void pcmap_fills_a_range(void **state)
{
	struct eq_pcmap m = { 0 };
	uint64_t pc;

	(void)state;
	assert_int_equal(eq_pcmap_init(&m), 0);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x1000), 0);
	/* [0x1003, 0x1041]: two cut granules, three whole ones */
	assert_int_equal(eq_pcmap_fill(&m, 1, 0x1010, 0x1003, 0x1041, 7), 0);
	for (pc = 0x0f00; pc < 0x1100; pc++)
		assert_int_equal(eq_pcmap_get(&m, 1, pc), pc >= 0x1003 && pc <= 0x1041 ? 7 : 0);
	/* the cut granules' other pcs: another range's */
	assert_int_equal(eq_pcmap_fill(&m, 1, 0x1042, 0x1042, 0x1042, 8), 0);
	assert_int_equal(eq_pcmap_fill(&m, 1, 0x1000, 0x0ff0, 0x1002, 9), 0);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x1002), 9);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x1003), 7);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x1041), 7);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x1042), 8);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x1043), 0);
	/* within the pc's page only: 0x0ff0-0x0fff is another page */
	assert_int_equal(eq_pcmap_get(&m, 1, 0x0fff), 0);
	/* one pc short of whole granules at either end */
	assert_int_equal(eq_pcmap_fill(&m, 1, 0x2001, 0x2001, 0x203e, 5), 0);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x2000), 0);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x2001), 5);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x203e), 5);
	assert_int_equal(eq_pcmap_get(&m, 1, 0x203f), 0);
	/* another space is another map */
	assert_int_equal(eq_pcmap_get(&m, 2, 0x1010), 0);
	eq_pcmap_free(&m);
}

static void pcmap_many_pages(void **state)
{
	struct eq_pcmap m = { 0 };
	uint64_t p;

	(void)state;
	assert_int_equal(eq_pcmap_init(&m), 0);
	/* whole pages of 3000 spaces and addresses: the page table grows,
	 * pages collide in slots */
	for (p = 0; p < 3000; p++)
		assert_int_equal(eq_pcmap_fill(&m, (uint32_t)(p % 7 + 1), p << 20, 0, UINT64_MAX,
					       (uint32_t)p + 1), 0);
	for (p = 0; p < 3000; p++) {
		assert_int_equal(eq_pcmap_get(&m, (uint32_t)(p % 7 + 1), (p << 20) + 0xfff), p + 1);
		assert_int_equal(eq_pcmap_get(&m, (uint32_t)(p % 7 + 1), (p << 20) + 0x1000), 0);
		assert_int_equal(eq_pcmap_get(&m, (uint32_t)(p % 7 + 2), p << 20), 0);
	}
	eq_pcmap_free(&m);
}

/* ---- profiles that use them ------------------------------------------------ */

struct expect {
	const char *module, *proc;
	uint64_t samples;
	const char *path;      /* the module's path */
	uint64_t unresolved;   /* of samples with no symbol */
};

/* Samples at every 3rd pc of [from, to] of pid's space, in a scrambled
 * order, appended to v; the rows by (module, proc) counted into x. */
/* The profile's samples with no symbol per module against x's. */
static void check_unresolved(const struct eq_profile *p, const struct expect *x, size_t nx)
{
	uint64_t total = 0;
	size_t i, k;

	for (k = 0; k < nx; k++)
		total += x[k].unresolved;
	assert_int_equal(p->unresolved_samples, total);
	assert_true(total > 0);
	for (i = 0; i < p->nunresolved; i++) {
		uint64_t want = 0;

		for (k = 0; k < nx; k++)
			want += strcmp(x[k].path, p->unresolved[i].module) ? 0 : x[k].unresolved;
		assert_int_equal(p->unresolved[i].samples, want);
	}
}

static size_t spread(struct fixture *fx, struct eq_sample *v, size_t n, uint32_t pid,
		     uint64_t from, uint64_t to, struct expect *x, size_t *nx)
{
	uint64_t seed = 88172645463325252ull ^ from, pc;
	size_t i, start = n;

	for (pc = from; pc <= to; pc += 3)
		v[n++] = (struct eq_sample){ .pc = pc, .pid = pid, .tid = pid };
	for (i = n - 1; i > start; i--) {  /* shuffled: pcs met out of order */
		size_t j = start + eq_xorshift64(&seed) % (i - start + 1);
		struct eq_sample t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
	for (i = start; i < n; i++) {
		const struct eq_loc *l;
		const char *proc;
		size_t k;

		v[i].time = T0;
		l = eq_sym_lookup(fx->s, &v[i]);
		proc = l->proc ? l->proc : "[unknown]";
		for (k = 0; k < *nx && (x[k].module != l->module_base || strcmp(x[k].proc, proc)); k++)
			;
		if (k == *nx)
			x[(*nx)++] = (struct expect){ l->module_base, proc, 0, l->module, 0 };
		x[k].samples++;
		x[k].unresolved += l->kind == EQ_LOC_UNRESOLVED || l->kind == EQ_LOC_NO_MODULE;
	}
	return n;
}

static void profile_by_proc_module_counts(void **state)
{
	struct fixture *fx = *state;
	struct eq_sample *v = calloc(200000, sizeof(*v));
	struct expect *x = calloc(20000, sizeof(*x));
	struct eqp_meta meta = { .mode = EQP_MODE_ENERGY, .quantum_j = 0.001, .clock_hz = 1e9,
				 .target = "unit test" };
	char path[64];
	struct eq_error err;
	struct eqp_writer *w;
	struct eqp_file *f;
	struct eq_symbolizer *s;
	struct eq_profile *p;
	size_t n = 0, nx = 0, i, k;
	int vd = code_of(fx, "[vdso]"), lc = code_of(fx, "libc.so.6");
	const struct eqp_maps *self = eqp_maps_for(fx->f, 10);
	const char *text = self ? self->text : NULL;

	assert_non_null(v);
	assert_non_null(x);
	n = spread(fx, v, n, 11, 0x401000, 0x40bfff, x, &nx);
	if (vd >= 0)
		n = spread(fx, v, n, 10, fx->code[vd].start, fx->code[vd].end - 1, x, &nx);
	if (lc >= 0)
		n = spread(fx, v, n, 10, fx->code[lc].start + 0x8000,
			   fx->code[lc].start + 0x8000 + 0x18000, x, &nx);
	for (i = 0; i < n; i++) {
		v[i].time = T0 + i;
		v[i].seq = (uint32_t)i;
	}
	snprintf(path, sizeof(path), "/tmp/test_extent_p.%d.eqp", (int)getpid());
	w = eqp_create(path, &meta, &err);
	assert_non_null(w);
	assert_non_null(text);
	assert_int_equal(eqp_add_maps(w, 10, 0, text, strlen(text), &err), 0);
	assert_int_equal(eqp_add_maps(w, 11, 0, app_maps, strlen(app_maps), &err), 0);
	for (i = 0; i < eqp_nsymtabs(fx->f); i++)
		assert_int_equal(eqp_add_symtab(w, eqp_symtab_at(fx->f, i), &err), 0);
	if (vd >= 0)
		assert_int_equal(eqp_add_image(w, "[vdso]", (const void *)getauxval(AT_SYSINFO_EHDR),
					       fx->code[vd].end - fx->code[vd].start, &err), 0);
	assert_int_equal(eqp_add_samples(w, v, n, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	f = eqp_open(path, &err);
	assert_non_null(f);
	s = eq_sym_new(f, NULL, &err);
	assert_non_null(s);
	p = eq_profile_build(f, s, EQ_BY_PROC, 0, &err);
	assert_non_null(p);
	assert_int_equal(p->nrows, nx);
	for (i = 0; i < p->nrows; i++) {
		for (k = 0; k < nx && (strcmp(x[k].module, p->rows[i].module) ||
				       strcmp(x[k].proc, p->rows[i].name)); k++)
			;
		if (k == nx || x[k].samples != p->rows[i].samples)
			fail_msg("row %s %s: %llu samples, %s", p->rows[i].module, p->rows[i].name,
				 (unsigned long long)p->rows[i].samples,
				 k == nx ? "not expected" : "not as counted");
	}
	check_unresolved(p, x, nx);
	eq_profile_free(p);
	/* by module: each module's rows added up */
	p = eq_profile_build(f, s, EQ_BY_MODULE, 0, &err);
	assert_non_null(p);
	for (i = 0; i < p->nrows; i++) {
		uint64_t want = 0;

		for (k = 0; k < nx; k++)
			want += strcmp(x[k].module, p->rows[i].module) ? 0 : x[k].samples;
		assert_int_equal(p->rows[i].samples, want);
	}
	check_unresolved(p, x, nx);
	eq_profile_free(p);
	eq_sym_free(s);
	eqp_close(f);
	unlink(path);
	free(v);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pcmap_fills_a_range),
		cmocka_unit_test(pcmap_many_pages),
		cmocka_unit_test_setup_teardown(embedded_table_extents, setup, teardown),
		cmocka_unit_test_setup_teardown(embedded_table_every_pc, setup, teardown),
		cmocka_unit_test_setup_teardown(real_elf_every_pc, setup, teardown),
		cmocka_unit_test_setup_teardown(real_elf_every_pc_lines, setup, teardown),
		cmocka_unit_test(real_elf_lines_as_libdw),
		cmocka_unit_test(real_elf_same_line_extents),
		cmocka_unit_test_setup_teardown(profile_by_proc_module_counts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
