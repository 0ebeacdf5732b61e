/*
 * elfmod.c - an ELF file for symbolization: libdwfl session at bias 0,
 * PT_LOAD headers, sorted function symbols, build-id check, DWARF lines.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/debuginfod.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/addrindex.h"
#include "symbols/elfmod.h"
#include "file/eqp.h"
#include "file/infile.h"
#include "symbols/intern.h"
#include "symbols/names.h"
#include "symbols/symbolize.h"
#include "symbols/symtab.h"
#include "util/grow.h"

struct eq_elfmod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Phdr *loads;            /* PT_LOAD headers: file offset -> vaddr */
	size_t nloads;
	struct eqp_symbol *syms;     /* function symbols, indexed below */
	struct eq_symtab_index *index;
	struct eq_intern *strings;
	/* functions by their FDEs (.eh_frame_hdr), for pcs no symbol covers */
	int fdes_loaded;
	struct fde_range { uint64_t start, end; } *fdes; /* vaddrs, sorted */
	size_t nfdes;
	struct line_table *lines;    /* DWARF lines, on first need (line_table()) */
};

/* ---- separate debug info, looked for without trusting any name --------- */

/*
 * libdwfl's own find_debuginfo opens the candidates it builds (from the
 * debuglink an ELF file carries, and from the build-id) with a blocking
 * open(2) and no regular-file check, and without --symfs confinement.  This
 * one looks in the same places (GDB's: the build-id tree, then the debuglink
 * name next to the file, in .debug/ beside it and under the debug folder),
 * opens each through infile.h (beneath --symfs when given), and accepts a
 * file only when its build-id, or else the debuglink's CRC, matches.
 * The module's userdata is the root (NULL: this machine's /).
 */
#define DEBUG_DIR "/usr/lib/debug"

static int same_build_id(int fd, const unsigned char *want, int want_len)
{
	Elf *elf = dwelf_elf_begin(fd);
	const void *id;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	int same = len == want_len && memcmp(id, want, (size_t)len) == 0;

	elf_end(elf);
	return same;
}

static int same_crc(int fd, GElf_Word want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t got;

	while ((got = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)got);
	lseek(fd, 0, SEEK_SET);
	return got == 0 && (GElf_Word)crc == want;
}

/* fd of the candidate when it is a regular file that matches, else -1. */
static int try_debug(const struct eq_root *root, const char *path, const unsigned char *id,
		     int idlen, const char *link, GElf_Word crc, char **found)
{
	int fd = eq_input_open(root, path, NULL), ok;

	if (fd < 0)
		return -1;
	if (idlen > 0)
		ok = same_build_id(fd, id, idlen);
	else
		ok = !link || crc == 0 || same_crc(fd, crc);
	if (!ok || !(*found = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The debuginfod servers of DEBUGINFOD_URLS (the variable perf and gdb
 * use), through elfutils' client: one client for the process, made on
 * first need; its cache is the client's own (DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client).  The file it gives must carry the build-id
 * asked for.  -1 when the variable is unset or empty, or nothing is found.
 */
/*
 * elfutils' client library, loaded on first need (as libdw loads it): linked
 * in, it brought libcurl and some 30 libraries besides that every command
 * loaded and relocated at start, 18 M instructions of the dynamic linker
 * (about two thirds of `eqprof report` on a small recording), though only
 * DEBUGINFOD_URLS asks for it.
 */
static struct {
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
} dfod;

static int debuginfod_load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	void *begin = h ? dlsym(h, "debuginfod_begin") : NULL;
	void *find = h ? dlsym(h, "debuginfod_find_debuginfo") : NULL;

	if (!begin || !find) {
		fprintf(stderr, "%s: DEBUGINFOD_URLS is set, but elfutils' client library cannot be loaded (%s): install libdebuginfod1, or unset DEBUGINFOD_URLS\n",
			program_invocation_short_name, dlerror());
		return -1;
	}
	/* POSIX: a function's address from dlsym() converts back */
	memcpy(&dfod.begin, &begin, sizeof(begin));
	memcpy(&dfod.find_debuginfo, &find, sizeof(find));
	return 0;
}

static int try_debuginfod(const unsigned char *id, int idlen, char **found)
{
	static debuginfod_client *client;
	static int failed;
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *path = NULL;
	int fd;

	if (!urls || !*urls || idlen <= 0 || failed)
		return -1;
	if (!client && (debuginfod_load() < 0 || !(client = dfod.begin()))) {
		failed = 1;
		return -1;
	}
	fd = dfod.find_debuginfo(client, id, idlen, &path);
	if (fd < 0) {
		free(path);
		return -1;
	}
	if (!same_build_id(fd, id, idlen) || !path) {
		close(fd);
		free(path);
		return -1;
	}
	*found = path;
	return fd;
}

int eq_debuginfod_enabled(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && *urls;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *link,
			  GElf_Word crc, char **found)
{
	const struct eq_root *root = *userdata;
	const unsigned char *id = NULL;
	GElf_Addr vaddr;
	char path[4400], dir[4096], name[256];
	const char *slash;
	int idlen = dwfl_module_build_id(mod, &id, &vaddr), fd, i;

	(void)modname;
	(void)base;
	/* A .gnu_debugaltlink (dwz) comes with crc 0: no build-id of the main
	 * file to hold it to, so any regular ELF at that name will do. */
	if (link && crc == 0)
		idlen = 0;
	if (idlen > 0) {
		int n = snprintf(path, sizeof(path), "%s/.build-id/%02x/", DEBUG_DIR, id[0]);

		for (i = 1; i < idlen && n < (int)sizeof(path) - 8; i++)
			n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", id[i]);
		snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
		if ((fd = try_debug(root, path, id, idlen, link, crc, found)) >= 0)
			return fd;
	}
	if (!file_name || file_name[0] != '/')
		return try_debuginfod(id, idlen, found);
	slash = strrchr(file_name, '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file_name), file_name);
	if (link)
		snprintf(name, sizeof(name), "%s", link);
	else
		snprintf(name, sizeof(name), "%s.debug", slash + 1);
	if (name[0] == '/') {
		if ((fd = try_debug(root, name, id, idlen, link, crc, found)) >= 0)
			return fd;
		return try_debuginfod(id, idlen, found);
	}
	{
		const char *const fmts[] = { "%s/%s", "%s/.debug/%s", DEBUG_DIR "%s/%s" };

		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), fmts[i], dir, name);
			if (strcmp(path, file_name) != 0 &&
			    (fd = try_debug(root, path, id, idlen, link, crc, found)) >= 0)
				return fd;
		}
	}
	return try_debuginfod(id, idlen, found);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static int read_loads(struct eq_elfmod *m)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	size_t nph, i;

	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return -1;
	m->loads = calloc(nph ? nph : 1, sizeof(*m->loads));
	if (!m->loads)
		return -1;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			m->loads[m->nloads++] = ph;
	}
	return m->nloads ? 0 : -1;
}

/* A function symbol before aliases are folded (binding decides). */
struct cand {
	struct eqp_symbol s;
	int bind;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static int add_cand(struct cands *c, uint64_t addr, uint64_t size, const char *name, int bind)
{
	if (!name)
		return -1;
	if (EQ_GROW(c->v, c->cap, c->n + 1, 256) < 0)
		return -1;
	c->v[c->n++] = (struct cand){ { addr, size, name }, bind };
	return 0;
}

/* By address, the best name of an address first (names.h). */
static int by_addr_best(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	return eq_name_alias_cmp(x->s.size, x->bind, x->s.name, y->s.size, y->bind, y->s.name);
}

/* The candidates as one symbol per address, the best name of each. */
static int fold(struct cands *c, struct eqp_symbol **out, size_t *n)
{
	size_t k;

	*out = NULL;
	*n = 0;
	if (!c->n)
		return 0;
	qsort(c->v, c->n, sizeof(*c->v), by_addr_best);
	*out = calloc(c->n, sizeof(**out));
	if (!*out)
		return -1;
	for (k = 0; k < c->n; k++)
		if (!*n || (*out)[*n - 1].addr != c->v[k].s.addr)
			(*out)[(*n)++] = c->v[k].s;
	return 0;
}

/* GOT slot address -> the name of the function it is for, from the
 * dynamic relocations (JUMP_SLOT for .plt/.plt.sec, GLOB_DAT for .plt.got). */
struct slot_name {
	uint64_t got;
	const char *name;
};

static int by_got(const void *a, const void *b)
{
	const struct slot_name *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int got_names(Elf *elf, struct eq_intern *strings, struct slot_name **out, size_t *n)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh, lsh;
		Elf_Data *d, *sd;
		Elf_Scn *symscn;
		size_t i, nrel;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &lsh) ||
		    lsh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)) ||
		    !(sd = elf_getdata(symscn, NULL)))
			continue;
		nrel = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < nrel; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			unsigned type;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, lsh.sh_link, sym.st_name)) || !name[0])
				continue;
			if (*n == cap) {
				struct slot_name *v;

				cap = cap ? 2 * cap : 64;
				v = realloc(*out, cap * sizeof(*v));
				if (!v)
					return -1;
				*out = v;
			}
			(*out)[*n] = (struct slot_name){ r.r_offset, eq_internf(strings, "%s@plt", name) };
			if (!(*out)[(*n)++].name)
				return -1;
		}
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), by_got);
	return 0;
}

/*
 * PLT stubs, named "func@plt" as perf and objdump name them.  Each x86-64
 * stub jumps through its GOT slot (ff 25 disp32: jmp *disp32(%rip), after
 * an endbr64 and bnd prefix in .plt.sec), and the slot's relocation names
 * the function; the stub's own position in the table is not trusted.
 */
static int plt_symbols(struct eq_elfmod *m, struct cands *c)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	struct slot_name *slots = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t nslots, shstrndx;
	int rc = -1;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	if (got_names(elf, m->strings, &slots, &nslots) < 0)
		goto out;
	while (nslots && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *sname;
		uint64_t step, off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) || strncmp(sname, ".plt", 4) ||
		    (sname[4] && strcmp(sname + 4, ".sec") && strcmp(sname + 4, ".got")) ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		step = sh.sh_entsize >= 8 && sh.sh_entsize <= 32 ? sh.sh_entsize : 16;
		for (off = 0; off + step <= sh.sh_size; off += step) {
			const unsigned char *e = (const unsigned char *)d->d_buf + off;
			struct slot_name key, *hit;
			uint64_t i;
			int32_t disp;

			for (i = 0; i + 6 <= step; i++)
				if (e[i] == 0xff && e[i + 1] == 0x25)
					break;
			if (i + 6 > step)
				continue;
			memcpy(&disp, e + i + 2, 4);
			key.got = sh.sh_addr + off + i + 6 + (uint64_t)(int64_t)disp;
			hit = bsearch(&key, slots, nslots, sizeof(*slots), by_got);
			if (hit && add_cand(c, sh.sh_addr + off, step, hit->name, EQ_BIND_UNKNOWN) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	free(slots);
	return rc;
}

/*
 * Copies the module's function symbols into a sorted index, one name per
 * address (names.h), with the PLT stubs: libdwfl's own address lookup scans
 * every symbol per call, which is too slow for tens of thousands of
 * distinct pcs.  Names are demangled when first looked up.
 */
/* 1 for a 32-bit Arm module, whose function symbols carry the Thumb bit:
 * st_value is the address + 1 for Thumb code (ELF for the Arm
 * Architecture, 5.5.3), which libdwfl leaves in place. */
static int thumb_bit(Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *e = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;

	return e && gelf_getehdr(e, &eh) && eh.e_machine == EM_ARM;
}

static int read_symbols(struct eq_elfmod *m)
{
	int n = dwfl_module_getsymtab(m->mod), i;
	struct cands c = { 0 };
	size_t used = 0;
	GElf_Addr thumb = thumb_bit(m->mod) ? 1 : 0;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx,
							   NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (type == STT_FUNC)
			addr &= ~thumb;
		if (add_cand(&c, addr, sym.st_size, eq_name_unversioned(m->strings, name),
			     GELF_ST_BIND(sym.st_info)) < 0)
			goto oom;
	}
	if (plt_symbols(m, &c) < 0 || fold(&c, &m->syms, &used) < 0)
		goto oom;
	free(c.v);
	if (used) {
		struct eqp_symtab t = { "", 0, used, m->syms };

		m->index = eq_symtab_index_new(&t);
		if (!m->index)
			return -1;
	}
	return 0;
oom:
	free(c.v);
	return -1;
}

static void hex_of(const unsigned char *bits, int len, char *hex, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < len && (size_t)(2 * i + 2) < size; i++) {
		hex[2 * i] = digits[bits[i] >> 4];
		hex[2 * i + 1] = digits[bits[i] & 15];
	}
	hex[2 * i] = '\0';
}

static int check_build_id(Dwfl_Module *mod, const char *file, const char *want,
			  struct eq_error *err)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	char hex[256];
	int len = dwfl_module_build_id(mod, &bits, &vaddr);

	if (len <= 0)
		return eq_fail(err, "%s has no build-id but the recording has %s", file, want);
	hex_of(bits, len, hex, sizeof(hex));
	if (strcmp(hex, want) != 0)
		return eq_fail(err, "build-id of %s is %s but the recording was made with %s",
			       file, hex, want);
	return 0;
}

/* A libdwfl session holding just file (open as fd, which it takes over),
 * at bias 0; separate debug info is looked for beneath root. */
static Dwfl_Module *report(Dwfl **dwfl, const struct eq_root *root, int fd,
			   const char *file, struct eq_error *err)
{
	Dwfl_Module *mod;
	void **userdata;

	*dwfl = dwfl_begin(&callbacks);
	if (!*dwfl) {
		close(fd);
		eq_fail(err, "%s: cannot start libdwfl: %s", file, dwfl_errmsg(-1));
		return NULL;
	}
	dwfl_report_begin(*dwfl);
	/* base 0 with add_p_vaddr: addresses are the file's own vaddrs.  The
	 * library owns fd from here on. */
	mod = dwfl_report_elf(*dwfl, base_name(file), file, fd, 0, true);
	dwfl_report_end(*dwfl, NULL, NULL);
	if (!mod) {
		eq_fail(err, "%s is not a usable ELF file (%s)", file, dwfl_errmsg(-1));
		return NULL;
	}
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = (void *)root;
	return mod;
}

struct eq_elfmod *eq_elfmod_open(const struct eq_root *root, int fd, const char *file,
				 const char *want_build_id, struct eq_intern *strings,
				 struct eq_error *err)
{
	struct eq_elfmod *m = calloc(1, sizeof(*m));

	if (!m) {
		close(fd);
		eq_fail(err, "%s: out of memory", file);
		return NULL;
	}
	m->strings = strings;
	m->mod = report(&m->dwfl, root, fd, file, err);
	if (!m->mod || (want_build_id && check_build_id(m->mod, file, want_build_id, err)))
		goto fail;
	if (read_loads(m) || read_symbols(m)) {
		eq_fail(err, "%s: no loadable segments, or out of memory", file);
		goto fail;
	}
	return m;
fail:
	eq_elfmod_close(m);
	return NULL;
}

/* ---- DWARF lines, each CU's line table read once ------------------------ */

/*
 * What dwfl_module_getsrc() and dwfl_lineinfo() answer for an address, from
 * copies of libdw's own tables made once: libdw finds the address's CU by
 * .debug_aranges (runs of ranges of one CU, each reaching up to the next
 * run's start: the gaps inside the module belong to the CU before them),
 * then takes the last of the CU's line records (sorted by address) at or
 * below it, or none when that is an end_sequence.  Per pc that cost two
 * binary searches inside libdw, a file name interned and, for the line's
 * extent, three more lookups (some 4,500 instructions a new pc); here the
 * searches are the same ones over plain arrays, each file name interned
 * once per CU, and a CU's lines are read only when a pc of it is asked for.
 * The searches are libdw 0.188's (libdwfl/cu.c addrarange,
 * dwfl_module_getsrc.c) step for step, so equal addresses, end_sequence
 * records and the gaps between runs give what libdw gives (and a file
 * without .debug_aranges, clang's default, no line at all, as libdw 0.188
 * finds no CU there); test_extent's real_elf_lines_as_libdw checks it at
 * every pc.
 */
struct line_rec {
	uint64_t addr;           /* DWARF address (vaddr - bias) */
	const char *file;        /* interned; NULL with line 0 when no file or line */
	unsigned line;
	int end;                 /* an end_sequence record */
};

struct line_cu {
	Dwarf_Off off;           /* its DIE, as .debug_aranges names it */
	int state;               /* 0 unread, 1 read, -1 libdw gives it no lines */
	int sorted;              /* recs by address, as libdw sorts them */
	struct line_rec *recs;
	size_t n;
	/* sorted: buckets over the recs' addresses, so that a search reads
	 * a few recs instead of a miss a step over all */
	struct eq_addr_index idx;
};

struct line_run {
	uint64_t start;          /* first address of a run of one CU's aranges */
	struct line_cu *cu;
};

struct line_table {
	int dwarf;               /* 0: the module has no DWARF */
	Dwarf *dw;
	Dwarf_Addr bias;
	struct line_run *runs;   /* sorted as libdw sorts its aranges */
	size_t nruns;
	uint64_t last_end;       /* the last arange's addr + length */
	struct line_cu *cus;     /* one per CU, by offset */
	size_t ncus;
	/* the last rec_at() answer: a pc's line, then its extent, ask alike */
	int memo;
	uint64_t memo_a;
	const struct line_rec *memo_rec;
	struct line_cu *memo_cu;
};

static void free_lines(struct line_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ncus; i++) {
		free(t->cus[i].recs);
		eq_addr_index_free(&t->cus[i].idx);
	}
	free(t->cus);
	free(t->runs);
	free(t);
}

static int cmp_off(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

/* The runs of .debug_aranges, as libdwfl's addrarange() collects them. */
static void read_runs(struct line_table *t)
{
	Dwarf_Aranges *ar;
	size_t n, i, k;
	Dwarf_Off *offs, lastcu = 0;

	if (dwarf_getaranges(t->dw, &ar, &n) != 0 || !n)
		return;
	t->runs = malloc(n * sizeof(*t->runs));
	offs = malloc(n * sizeof(*offs));
	if (!t->runs || !offs)
		goto fail;
	for (i = 0; i < n; i++) {
		Dwarf_Addr addr;
		Dwarf_Word len;
		Dwarf_Off off;

		if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &addr, &len, &off) != 0)
			goto fail;
		if (i == n - 1)
			t->last_end = addr + len;
		if (i == 0 || off != lastcu) {
			t->runs[t->nruns].start = addr;
			offs[t->nruns++] = lastcu = off;
		}
	}
	/* the CUs, each once */
	t->cus = calloc(t->nruns, sizeof(*t->cus));
	if (!t->cus)
		goto fail;
	for (i = 0; i < t->nruns; i++)
		t->runs[i].cu = (struct line_cu *)(uintptr_t)offs[i];
	qsort(offs, t->nruns, sizeof(*offs), cmp_off);
	for (i = 0; i < t->nruns; i++)
		if (!i || offs[i] != offs[i - 1])
			t->cus[t->ncus++].off = offs[i];
	for (i = 0; i < t->nruns; i++) {
		Dwarf_Off off = (Dwarf_Off)(uintptr_t)t->runs[i].cu;
		size_t lo = 0, hi = t->ncus;

		while (lo < hi) {
			k = lo + (hi - lo) / 2;
			if (t->cus[k].off < off)
				lo = k + 1;
			else
				hi = k;
		}
		t->runs[i].cu = &t->cus[lo];
	}
	free(offs);
	return;
fail:
	free(offs);
	free(t->runs);
	free(t->cus);
	t->runs = NULL;
	t->cus = NULL;
	t->nruns = t->ncus = 0;
}

static struct line_table *line_table(struct eq_elfmod *m)
{
	struct line_table *t = m->lines;

	if (t)
		return t;
	t = m->lines = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->dw = dwfl_module_getdwarf(m->mod, &t->bias);
	t->dwarf = t->dw != NULL;
	if (t->dwarf)
		read_runs(t);
	return t;
}

/* A CU's line records, its file names interned (a few files, interned once
 * each through a small cache of libdw's name pointers). */
static void read_cu(struct eq_elfmod *m, struct line_table *t, struct line_cu *cu)
{
	struct { const char *src, *file; } seen[64] = { { NULL, NULL } };
	Dwarf_Die die;
	Dwarf_Lines *lines;
	size_t n, i;

	cu->state = -1;
	if (!dwarf_offdie(t->dw, cu->off, &die) || dwarf_getsrclines(&die, &lines, &n) != 0)
		return;
	cu->recs = n ? malloc(n * sizeof(*cu->recs)) : NULL;
	if (n && !cu->recs)
		return;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct line_rec *r = &cu->recs[i];
		Dwarf_Addr addr = 0;
		bool end = false;
		int lineno = 0;
		const char *src;
		size_t h;

		if (!l || dwarf_lineaddr(l, &addr) || dwarf_lineendsequence(l, &end) ||
		    dwarf_lineno(l, &lineno)) {
			free(cu->recs);
			cu->recs = NULL;
			return;
		}
		src = dwarf_linesrc(l, NULL, NULL);
		*r = (struct line_rec){ .addr = addr, .end = end };
		if (!src || lineno <= 0)
			continue;
		h = ((uintptr_t)src >> 3) % 64;
		if (seen[h].src != src) {
			seen[h].src = src;
			seen[h].file = eq_intern(m->strings, src);
		}
		r->file = seen[h].file;
		r->line = r->file ? (unsigned)lineno : 0;
	}
	cu->n = n;
	cu->state = 1;
	cu->sorted = 1;
	for (i = 1; i < n; i++)
		if (cu->recs[i].addr < cu->recs[i - 1].addr)
			cu->sorted = 0;
	if (cu->sorted && n)
		eq_addr_index_build(&cu->idx, &cu->recs[0].addr, sizeof(*cu->recs), n);
}

/* The run holding DWARF address a, as libdwfl's addrarange() finds it. */
static const struct line_run *run_at(const struct line_table *t, uint64_t a)
{
	size_t l = 0, u = t->nruns;

	while (l < u) {
		size_t idx = (l + u) / 2;
		uint64_t start = t->runs[idx].start;

		if (a < start) {
			u = idx;
			continue;
		}
		if (a > start) {
			if (idx + 1 < t->nruns) {
				if (a >= t->runs[idx + 1].start) {
					l = idx + 1;
					continue;
				}
			} else if (a > t->last_end) {
				break;
			}
		}
		return &t->runs[idx];
	}
	return NULL;
}

/* The line record dwfl_module_getsrc() gives for DWARF address a (its CU
 * in *cup), or NULL where it gives none. */
static const struct line_rec *rec_search(struct eq_elfmod *m, struct line_table *t, uint64_t a,
					 struct line_cu **cup)
{
	const struct line_run *r = run_at(t, a);
	struct line_cu *cu;
	size_t l = 0, u;

	if (!r)
		return NULL;
	cu = r->cu;
	if (!cu->state)
		read_cu(m, t, cu);
	if (cu->state < 0 || !cu->n)
		return NULL;
	u = cu->n - 1;
	if (cu->idx.at) {
		/* the last rec at or below a is at or after the last below
		 * a's bucket, and before the first above it */
		size_t lo, hi;

		if (a < cu->idx.base)
			return NULL;
		eq_addr_index_bucket(&cu->idx, a, &lo, &hi);
		l = lo ? lo - 1 : 0;
		u = hi - 1;
	}
	while (l < u) {
		size_t idx = u - (u - l) / 2;

		if (a < cu->recs[idx].addr)
			u = idx - 1;
		else
			l = idx;
	}
	if (cu->recs[l].end || cu->recs[l].addr > a)
		return NULL;
	*cup = cu;
	return &cu->recs[l];
}

static const struct line_rec *rec_at(struct eq_elfmod *m, struct line_table *t, uint64_t a,
				     struct line_cu **cup)
{
	if (!t->memo || t->memo_a != a) {
		t->memo_cu = NULL;
		t->memo_rec = rec_search(m, t, a, &t->memo_cu);
		t->memo_a = a;
		t->memo = 1;
	}
	*cup = t->memo_cu;
	return t->memo_rec;
}

/* The CU dwfl_module_getsrc() searches for DWARF address a, or NULL. */
static const struct line_cu *cu_at(const struct line_table *t, uint64_t a)
{
	const struct line_run *r = run_at(t, a);

	return r ? r->cu : NULL;
}

void eq_elfmod_close(struct eq_elfmod *m)
{
	if (!m)
		return;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->loads);
	eq_symtab_index_free(m->index);
	free(m->syms);
	free(m->fdes);
	free_lines(m->lines);
	free(m);
}

static int offset_to_vaddr(const struct eq_elfmod *m, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < m->nloads; i++) {
		const GElf_Phdr *ph = &m->loads[i];

		if (off >= ph->p_offset && off < ph->p_offset + ph->p_filesz) {
			*vaddr = off - ph->p_offset + ph->p_vaddr;
			return 0;
		}
	}
	return -1;
}

static int vaddr_to_offset(const struct eq_elfmod *m, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < m->nloads; i++) {
		const GElf_Phdr *ph = &m->loads[i];

		if (vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_filesz) {
			*off = vaddr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -1;
}

static int32_t s32_at(const unsigned char *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The function table of .eh_frame_hdr (PT_GNU_EH_FRAME, which stripping
 * keeps): its sorted (initial location, FDE) pairs, in the encoding every
 * GNU and LLVM linker writes (version 1, table datarel|sdata4), each FDE's
 * range read from the FDE itself when its start agrees with the table's
 * (pcrel|sdata4 pc_begin, udata4 pc_range).  Anything else: no table, and
 * such pcs go by blocks.
 */
static void load_fdes(struct eq_elfmod *m)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	size_t nph, i, rawlen, n;
	const unsigned char *raw, *hdr;
	uint64_t hdr_off = 0, hdr_len = 0, hdr_vaddr = 0;

	m->fdes_loaded = 1;
	if (!elf || elf_getphdrnum(elf, &nph) < 0 || !(raw = (const unsigned char *)elf_rawfile(elf, &rawlen)))
		return;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
			hdr_off = ph.p_offset;
			hdr_len = ph.p_filesz;
			hdr_vaddr = ph.p_vaddr;
		}
	}
	if (hdr_len < 12 || hdr_off > rawlen || hdr_len > rawlen - hdr_off)
		return;
	hdr = raw + hdr_off;
	if (hdr[0] != 1 || hdr[1] != 0x1b || hdr[2] != 0x03 || hdr[3] != 0x3b)
		return;
	n = (uint32_t)s32_at(hdr + 8);
	if (n > (hdr_len - 12) / 8)
		return;
	m->fdes = calloc(n ? n : 1, sizeof(*m->fdes));
	if (!m->fdes)
		return;
	for (i = 0; i < n; i++) {
		uint64_t start = hdr_vaddr + (uint64_t)(int64_t)s32_at(hdr + 12 + 8 * i);
		uint64_t fde = hdr_vaddr + (uint64_t)(int64_t)s32_at(hdr + 16 + 8 * i), fde_off;
		const unsigned char *f;

		if (vaddr_to_offset(m, fde, &fde_off) || fde_off > rawlen || rawlen - fde_off < 16)
			continue;
		f = raw + fde_off;   /* u32 length, u32 CIE pointer, pc_begin, pc_range */
		if ((uint32_t)s32_at(f) == 0xffffffffu ||
		    fde + 8 + (uint64_t)(int64_t)s32_at(f + 8) != start)
			continue;  /* 64-bit DWARF, or another encoding: not trusted */
		m->fdes[m->nfdes].start = start;
		m->fdes[m->nfdes].end = start + (uint32_t)s32_at(f + 12);
		m->nfdes++;
	}
}

/* The FDE covering vaddr, or NULL (the table loaded on first use). */
static const struct fde_range *fde_at(struct eq_elfmod *m, uint64_t vaddr)
{
	size_t lo = 0, hi;

	if (!m->fdes_loaded)
		load_fdes(m);
	hi = m->nfdes;
	while (lo < hi) {  /* the last FDE starting at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (m->fdes[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && vaddr < m->fdes[lo - 1].end ? &m->fdes[lo - 1] : NULL;
}

int eq_elfmod_region(struct eq_elfmod *m, uint64_t off, uint64_t *start_off)
{
	const struct fde_range *f;
	uint64_t vaddr;

	if (offset_to_vaddr(m, off, &vaddr))
		return -1;
	f = fde_at(m, vaddr);
	if (f && vaddr_to_offset(m, f->start, start_off) == 0)
		return 1;
	*start_off = off - off % EQ_REGION_BLOCK;
	return 0;
}

/*
 * A symbol without a size (hand-written assembly, some linker-made
 * symbols) reaches up to the next symbol, as perf has it; but where the
 * call-frame information delimits functions, not into another function:
 * a stripped file's static functions after it are not its code.
 */
static int sizeless_reaches(struct eq_elfmod *m, const struct eqp_symbol *sym, uint64_t vaddr)
{
	const struct fde_range *f = fde_at(m, vaddr);

	return !f || f->start <= sym->addr;
}

int eq_elfmod_line(struct eq_elfmod *m, uint64_t off, const char **file, unsigned *line)
{
	struct line_table *t;
	const struct line_rec *r;
	struct line_cu *cu;
	uint64_t vaddr;

	*file = NULL;
	*line = 0;
	if (offset_to_vaddr(m, off, &vaddr) || !(t = line_table(m)) || !t->dwarf ||
	    !(r = rec_at(m, t, vaddr - t->bias, &cu)))
		return -1;
	*file = r->file;
	*line = r->line;
	return 0;
}

const char *eq_elfmod_lookup(struct eq_elfmod *m, uint64_t off, uint64_t *proc_off,
			     const char **file, unsigned *line)
{
	const struct eqp_symbol *sym;
	uint64_t vaddr;

	if (file) {
		*file = NULL;
		*line = 0;
	}
	if (offset_to_vaddr(m, off, &vaddr) || !m->index ||
	    !(sym = eq_symtab_index_find(m->index, vaddr)) ||
	    (!sym->size && vaddr != sym->addr && !sizeless_reaches(m, sym, vaddr)))
		return NULL;
	*proc_off = vaddr - sym->addr;
	/* Demangled once, on first use: most symbols are never hit. */
	if (sym->name[0] == '_' && (sym->name[1] == 'Z' || sym->name[1] == 'R')) {
		const char *d = eq_name_demangle(m->strings, sym->name);

		if (d)
			((struct eqp_symbol *)sym)->name = d;
	}
	if (file)
		eq_elfmod_line(m, off, file, line);
	return sym->name;
}

/* [*first, *last] narrowed to [lo, hi]. */
static void narrow(uint64_t *first, uint64_t *last, uint64_t lo, uint64_t hi)
{
	if (lo > *first)
		*first = lo;
	if (hi < *last)
		*last = hi;
}

/*
 * The loaded segment offset_to_vaddr() takes for off (the first holding
 * it), and in [*first, *last] the offsets around off it takes too; NULL
 * when off is in none (then the offsets around in none either).
 */
static const GElf_Phdr *segment_extent(const struct eq_elfmod *m, uint64_t off,
				       uint64_t *first, uint64_t *last)
{
	const GElf_Phdr *seg = NULL;
	size_t i;

	*first = 0;
	*last = UINT64_MAX;
	for (i = 0; i < m->nloads && !seg; i++)
		if (off >= m->loads[i].p_offset && off - m->loads[i].p_offset < m->loads[i].p_filesz)
			seg = &m->loads[i];
	if (seg)
		narrow(first, last, seg->p_offset, seg->p_offset + seg->p_filesz - 1);
	/* every segment before it (every one without it) holds none of them */
	for (i = 0; i < m->nloads && &m->loads[i] != seg; i++) {
		uint64_t start = m->loads[i].p_offset, end = start + m->loads[i].p_filesz;

		if (!m->loads[i].p_filesz)
			continue;
		if (end <= off)
			narrow(first, last, end, UINT64_MAX);
		else if (start > off)
			narrow(first, last, 0, start - 1);
	}
	return seg;
}

/* fde_at(m, vaddr), and in [*first, *last] the vaddrs around it that get
 * the same answer. */
static const struct fde_range *fde_extent(struct eq_elfmod *m, uint64_t vaddr,
					  uint64_t *first, uint64_t *last)
{
	size_t lo = 0, hi;
	const struct fde_range *f;

	if (!m->fdes_loaded)
		load_fdes(m);
	hi = m->nfdes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->fdes[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = 0;
	*last = lo < m->nfdes ? m->fdes[lo].start - 1 : UINT64_MAX;
	if (!lo)
		return NULL;
	f = &m->fdes[lo - 1];
	if (vaddr < f->end) {
		narrow(first, last, f->start, f->end - 1);
		return f;
	}
	narrow(first, last, f->end > f->start ? f->end : f->start, UINT64_MAX);
	return NULL;
}

void eq_elfmod_extent(struct eq_elfmod *m, uint64_t off, uint64_t *first, uint64_t *last)
{
	const GElf_Phdr *seg = segment_extent(m, off, first, last);
	const struct eqp_symbol *sym = NULL;
	const struct fde_range *f;
	uint64_t vaddr, vfirst, vlast, sf, sl, ff, fl, start;

	if (!seg)
		return;            /* no vaddr: no symbol, no region */
	/* the rest in vaddrs, over the segment */
	vaddr = off - seg->p_offset + seg->p_vaddr;
	vfirst = *first - seg->p_offset + seg->p_vaddr;
	vlast = *last - seg->p_offset + seg->p_vaddr;
	if (m->index) {
		sym = eq_symtab_index_extent(m->index, vaddr, &sf, &sl);
		narrow(&vfirst, &vlast, sf, sl);
	}
	if (!sym || !sym->size) {
		/* a sizeless symbol's reach, or the region, by the CFI */
		f = fde_extent(m, vaddr, &ff, &fl);
		narrow(&vfirst, &vlast, ff, fl);
		if ((!sym || (f && f->start > sym->addr)) &&
		    (!f || vaddr_to_offset(m, f->start, &start)))
			/* a 256-byte block of file offsets */
			narrow(&vfirst, &vlast, vaddr - off % EQ_REGION_BLOCK,
			       vaddr - off % EQ_REGION_BLOCK + (EQ_REGION_BLOCK - 1));
	}
	*first = vfirst - seg->p_vaddr + seg->p_offset;
	*last = vlast - seg->p_vaddr + seg->p_offset;
}

/* The first of a CU's line records above DWARF address a (libdw sorts
 * them by address), or NULL. */
static const struct line_rec *first_record_after(const struct line_cu *cu, uint64_t a)
{
	size_t lo = 0, hi = cu->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->recs[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cu->n ? &cu->recs[lo] : NULL;
}

/*
 * eq_elfmod_extent narrowed to the pcs that eq_elfmod_lookup() gives off's
 * DWARF line: dwfl_module_getsrc() takes the last line record of the
 * address's CU at or below it, so the record's address up to the next
 * record's, both ends checked to give that same record (an edge of the CU
 * in between is cut off there).  A module without DWARF names no line
 * anywhere: the symbol's extent stands.  A pc with no line in a module
 * with some: off alone.
 */
/* A sorted CU's records from l to hi (exclusive; hi's address ends l's
 * pcs) widened over the neighbours at other addresses that give the same
 * file and line: *lo the first record whose address starts the pcs, *hi
 * the one whose address ends them.  Each neighbour is what rec_search
 * gives over its pcs (the last record at its address), its pcs in cu's
 * arange runs at both ends, as for l itself. */
static void same_line_run(const struct line_table *t, const struct line_cu *cu,
			  const struct line_rec *l, const struct line_rec **lo,
			  const struct line_rec **hi)
{
	const struct line_rec *end = cu->recs + cu->n, *e, *g;

	for (;;) {
		for (e = *hi; e + 1 < end && e[1].addr == (*hi)->addr; e++)
			;
		if (e->end || e->file != l->file || e->line != l->line || e + 1 >= end ||
		    cu_at(t, e->addr) != cu || cu_at(t, e[1].addr - 1) != cu)
			break;
		*hi = e + 1;
	}
	for (;;) {
		for (g = *lo; g > cu->recs && g[-1].addr == (*lo)->addr; g--)
			;
		if (g == cu->recs || g[-1].end || g[-1].file != l->file || g[-1].line != l->line ||
		    cu_at(t, g[-1].addr) != cu || cu_at(t, (*lo)->addr - 1) != cu)
			break;
		*lo = g - 1;
	}
}

static void line_extent(struct eq_elfmod *m, uint64_t off, uint64_t *first, uint64_t *last,
			int same)
{
	struct line_table *t;
	const struct line_rec *l, *next;
	struct line_cu *cu, *cu2;
	uint64_t vaddr, a, b;

	eq_elfmod_extent(m, off, first, last);
	if (offset_to_vaddr(m, off, &vaddr) || !(t = line_table(m)) || !t->dwarf)
		return;
	if (!(l = rec_at(m, t, vaddr - t->bias, &cu)) ||
	    !(next = cu->sorted ? (l + 1 < cu->recs + cu->n ? l + 1 : NULL) :
			 first_record_after(cu, l->addr))) {
		*first = *last = off;
		return;
	}
	/* in module addresses, as dwfl_lineinfo() gives them */
	a = l->addr + t->bias;
	b = next->addr + t->bias;
	if (a > vaddr || b <= vaddr) {
		*first = *last = off;
		return;
	}
	/* Records sorted by address: l is the last at a, next the first above
	 * it, so a and b - 1 find l again in cu whenever their arange run is
	 * cu's; else libdw's own searches, as the same question put to it. */
	if (cu->sorted ? cu_at(t, a - t->bias) != cu || cu_at(t, b - 1 - t->bias) != cu :
	    rec_search(m, t, a - t->bias, &cu2) != l || rec_search(m, t, b - 1 - t->bias, &cu2) != l) {
		*first = *last = off;
		return;
	}
	if (same && cu->sorted) {
		const struct line_rec *lo = l, *hi = next;

		same_line_run(t, cu, l, &lo, &hi);
		a = lo->addr + t->bias;
		b = hi->addr + t->bias;
	}
	narrow(first, last, a - vaddr + off, b - 1 - vaddr + off);
}

void eq_elfmod_line_extent(struct eq_elfmod *m, uint64_t off, uint64_t *first, uint64_t *last)
{
	line_extent(m, off, first, last, 0);
}

void eq_elfmod_same_line_extent(struct eq_elfmod *m, uint64_t off, uint64_t *first,
				uint64_t *last)
{
	line_extent(m, off, first, last, 1);
}

int eq_elf_build_id_in(const struct eq_root *root, const char *path, char *hex,
		       size_t size, struct eq_error *err)
{
	const unsigned char *bits;
	Dwfl_Module *mod = NULL;
	GElf_Addr vaddr;
	Dwfl *dwfl = NULL;
	int len, fd = eq_input_open(root, path, err);

	if (fd >= 0)
		mod = report(&dwfl, root, fd, path, err);
	if (mod) {
		len = dwfl_module_build_id(mod, &bits, &vaddr);
		if (len > 0 && (size_t)(2 * len + 1) <= size) {
			hex_of(bits, len, hex, size);
		} else {
			eq_fail(err, "%s: has no usable GNU build-id note", path);
			mod = NULL;
		}
	}
	if (dwfl)
		dwfl_end(dwfl);
	return mod ? 0 : -1;
}

int eq_elf_build_id(const char *path, char *hex, size_t size, struct eq_error *err)
{
	return eq_elf_build_id_in(NULL, path, hex, size, err);
}

int eq_elf_image_symbols(const void *image, size_t size, struct eq_intern *strings,
			 struct eqp_symbol **syms, size_t *n, struct eq_error *err)
{
	char *copy = malloc(size ? size : 1);
	struct cands c = { 0 };
	Elf_Scn *scn = NULL;
	size_t nph = 0, i;
	Elf *elf;
	int rc = -1;

	*syms = NULL;
	*n = 0;
	if (!copy)
		return eq_fail(err, "out of memory for an ELF image of %zu bytes", size);
	memcpy(copy, image, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph) != 0) {
		eq_fail(err, "not an ELF image (%s)", elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Phdr ph;
			const char *name;
			int type, k;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if (sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !name[0])
				continue;
			/* addresses of the image as offsets into it, as the maps give */
			for (k = 0; k < (int)nph; k++)
				if (gelf_getphdr(elf, k, &ph) && ph.p_type == PT_LOAD &&
				    sym.st_value >= ph.p_vaddr && sym.st_value < ph.p_vaddr + ph.p_filesz)
					break;
			if (k == (int)nph)
				continue;
			if (add_cand(&c, sym.st_value - ph.p_vaddr + ph.p_offset, sym.st_size,
				     eq_name_unversioned(strings, name), GELF_ST_BIND(sym.st_info)) < 0) {
				eq_fail(err, "out of memory for symbols");
				goto out;
			}
		}
	}
	if (fold(&c, syms, n) < 0) {
		eq_fail(err, "out of memory for symbols");
		goto out;
	}
	rc = 0;
out:
	free(c.v);
	if (elf)
		elf_end(elf);
	free(copy);
	return rc;
}

void eq_elfmod_describe(struct eq_elfmod *m, char *buf, size_t size)
{
	const char *main_file = NULL, *debug_file = NULL, *link;
	const unsigned char *id;
	GElf_Addr bias, vaddr;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	Elf_Scn *scn = NULL;
	GElf_Word crc;
	int len, symtab = 0, minidebug = 0, i, n;
	size_t shstrndx = 0, ndynsym = 0;

	if (elf && elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = 1;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize)
			ndynsym = sh.sh_size / sh.sh_entsize;
		name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && !strcmp(name, ".gnu_debugdata"))
			minidebug = 1;
	}
	dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	if (minidebug && !symtab && !debug_file) {
		/* libdwfl adds MiniDebugInfo's symbols to .dynsym's (when
		 * elfutils was built with lzma) */
		int all = dwfl_module_getsymtab(m->mod);

		snprintf(buf, size, all > (int)ndynsym
			 ? "no symbol covers them (symbols from .dynsym and .gnu_debugdata, MiniDebugInfo: "
			   "its function symbols only)"
			 : "stripped: its .gnu_debugdata (MiniDebugInfo) was not read (this elfutils has no "
			   "lzma support) and no debug file found");
		return;
	}
	if (symtab || debug_file) {
		snprintf(buf, size, "no symbol covers them (symbols from %s%s)",
			 debug_file ? "its debug file " : ".symtab",
			 debug_file ? debug_file : "");
		return;
	}
	n = snprintf(buf, size, "stripped (only .dynsym) and no debug file found: looked for ");
	len = dwfl_module_build_id(m->mod, &id, &vaddr);
	if (len > 0 && n < (int)size) {
		n += snprintf(buf + n, size - (size_t)n, "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (i = 1; i < len && n < (int)size; i++)
			n += snprintf(buf + n, size - (size_t)n, "%02x", id[i]);
		if (n < (int)size)
			n += snprintf(buf + n, size - (size_t)n, ".debug");
	}
	link = elf ? dwelf_elf_gnu_debuglink(elf, &crc) : NULL;
	if (link && n < (int)size)
		n += snprintf(buf + n, size - (size_t)n, "%s%s beside it, in .debug/ and under /usr/lib/debug",
			      len > 0 ? " and " : "", link);
	if (len > 0 && n < (int)size)
		n += snprintf(buf + n, size - (size_t)n, eq_debuginfod_enabled()
			      ? ", and asked the DEBUGINFOD_URLS servers (%s)"
			      : "; DEBUGINFOD_URLS is not set (debuginfod servers not asked)%s",
			      eq_debuginfod_enabled() ? getenv("DEBUGINFOD_URLS") : "");
	if (len <= 0 && !link && n < (int)size)
		snprintf(buf + n, size - (size_t)n, "nothing: the file has neither a build-id nor a debuglink");
	else if (n < (int)size)
		snprintf(buf + n, size - (size_t)n, " (install its debug package, e.g. the -dbgsym one)");
}

/* A DIE's name, following its abstract origin (inlined copies have none of
 * their own): the linkage name demangled, else DW_AT_name. */
static const char *die_name(Dwarf_Die *die, struct eq_intern *strings)
{
	Dwarf_Attribute attr;
	const char *n;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)) &&
	    (n = dwarf_formstring(&attr)) != NULL) {
		const char *in = eq_intern(strings, n);

		return in ? eq_name_demangle(strings, in) : NULL;
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &attr) && (n = dwarf_formstring(&attr)) != NULL)
		return eq_intern(strings, n);
	return NULL;
}

size_t eq_elfmod_inlines(struct eq_elfmod *m, uint64_t off, struct eq_inline_frame *out,
			 size_t max)
{
	Dwarf_Die *scopes = NULL, *cu;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias;
	uint64_t vaddr;
	size_t nfiles = 0, n = 0;
	int nscopes, i = 0;

	if (offset_to_vaddr(m, off, &vaddr) || !(cu = dwfl_module_addrdie(m->mod, vaddr, &bias)))
		return 0;
	nscopes = dwarf_getscopes(cu, vaddr - bias, &scopes);
	dwarf_getsrcfiles(cu, &files, &nfiles);
	/* innermost first: each inlined subroutine, then the function that
	 * holds them; an inlined copy's call site is a line of the scope
	 * around it, found among its concrete parents (getscopes continues
	 * with the abstract definition's) */
	while (i < nscopes && n < max) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute attr;
		Dwarf_Word fileno = 0, lineno = 0;
		Dwarf_Die *parents = NULL;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) {
			i++;
			continue;
		}
		out[n] = (struct eq_inline_frame){ die_name(&scopes[i], m->strings), NULL, 0 };
		if (tag == DW_TAG_inlined_subroutine &&
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &fileno) == 0 &&
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &lineno) == 0 &&
		    files && fileno < nfiles) {
			const char *f = dwarf_filesrc(files, fileno, NULL, NULL);

			out[n].call_file = f ? eq_intern(m->strings, f) : NULL;
			out[n].call_line = (unsigned)lineno;
		}
		if (!out[n].name)
			break;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		nscopes = dwarf_getscopes_die(&scopes[i], &parents);
		free(scopes);
		scopes = parents;
		i = 1;           /* parents[0] is the inlined copy itself */
	}
	free(scopes);
	return n;
}

const char *eq_elfmod_proc_file(struct eq_elfmod *m, uint64_t off, uint64_t proc_off)
{
	uint64_t vaddr;
	Dwfl_Line *l;
	const char *src;

	if (offset_to_vaddr(m, off, &vaddr) || vaddr < proc_off ||
	    !(l = dwfl_module_getsrc(m->mod, vaddr - proc_off)))
		return NULL;
	src = dwfl_lineinfo(l, NULL, NULL, NULL, NULL, NULL);
	return src ? eq_intern(m->strings, src) : NULL;
}
