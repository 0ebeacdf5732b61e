/*
 * symbolize.c - sample -> executable, module, procedure, line, instruction.
 *
 * Three layers, each computed once and cached:
 *   per address space  its maps (parsed, sorted) and its executable name
 *                (a process has one per exec, picked by the sample's time:
 *                tasks.h);
 *   per module   the ELF file found on this machine (one libdwfl session per
 *                file, reported at bias 0 so addresses are the file's own
 *                link-time vaddrs), or the recording's embedded symbol table;
 *   per pc       the resulting struct eq_loc, in a hash table keyed by
 *                (pid, pc, kernel/idle).
 * A pc in process P inside mapping M becomes the file offset
 * pc - M.start + M.offset, which the module's PT_LOAD headers turn into the
 * vaddr libdwfl understands (elfmod.c).  This is the load bias of PIE
 * executables and shared libraries, computed from the maps alone.
 */
#include <errno.h>
#include <sys/mman.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elfmod.h"
#include "util/bigarr.h"
#include "file/infile.h"
#include "symbols/intern.h"
#include "symbols/maps.h"
#include "symbols/names.h"
#include "symbols/symbolize.h"
#include "symbols/symtab.h"
#include "symbols/tasks.h"
#include "symbols/unwind.h"

enum mod_state { MOD_UNTRIED, MOD_ELF, MOD_EMBEDDED, MOD_NONE };

struct modfile {
	const char *path;          /* interned, as in the maps */
	const char *base;          /* its base name, interned on first need */
	enum mod_state state;
	struct eq_elfmod *elf;
	struct eq_symtab_index *embedded;
	int embedded_absolute;     /* table addresses are pcs, not file offsets */
	struct eqp_symtab image_table; /* made here from an embedded image (the vdso) */
	const char *note;          /* why its symbols are missing (MOD_NONE) */
	struct modfile *next;
};

/* What the symbolizer made of one address space (its eq_space's user). */
struct spaceinfo {
	int have_maps;
	struct eq_maps maps;
	struct modfile **mod_of_map; /* parallel to maps.maps (NULL: anonymous) */
	unsigned char *anon_of_map;  /* parallel too: anonymous(path), once a map */
	const char *exe;
};

struct cache_slot {
	uint64_t pc;
	uint32_t who;              /* eq_sym_space_key() of the sample */
	uint32_t kbits;            /* 1 kernel, 2 idle; 0 in an empty slot's loc */
	struct eq_loc *loc;        /* NULL = empty */
};

/* Locations in blocks of 1,024, each block twice the last up to 16,384
 * (1.4 MB; the larger ones bigarr's mappings, a few faults each), a block
 * that is a mapping filled to its end: a 2 MiB mapping is cleared whole at
 * its first fault, and 34 k locations (--by line over bench/speed's spread
 * recording) took four of them, half empty, in blocks of 4,096 to 16,384. */
#define LOC_BLOCK 1024
#define LOC_BLOCK_MAX 16384
struct loc_block {
	struct loc_block *next;
	size_t used, cap;
	struct eq_loc locs[];
};

struct eq_symbolizer {
	const struct eqp_file *file;
	struct eq_sym_options opt;
	struct eq_intern *strings;
	struct eq_tasks *tasks;       /* processes and threads over time */
	int multi;                    /* some pid had several address spaces */
	struct modfile *mods[256];    /* hash by path pointer */
	struct eq_symtab_index *kallsyms;
	uint64_t kallsyms_start;      /* its first address */
	struct kmod {                 /* loaded kernel modules' tables ("[ext4]") */
		const char *name;     /* interned */
		uint64_t start;       /* first symbol's address */
		struct eq_symtab_index *index;
	} *kmods;
	size_t nkmods;
	struct cache_slot *cache;
	size_t cache_mask, cache_count;
	struct loc_block *locs;
	const char **warnings;
	size_t nwarnings;
	const char *s_idle, *s_unknown, *s_kernel;
	int skip_lines;
	struct eq_unwinder *unwinder; /* stack copies, made on first use */
	uint64_t *unwound;            /* its frames (EQP_MAX_CHAIN_FRAMES) */
	struct eq_root root;          /* --symfs, opened once */
	const struct eq_root *rootp;  /* &root, or NULL without --symfs */
};

static void warn(struct eq_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct eq_symbolizer *s, const char *fmt, ...)
{
	char buf[1024];
	const char **grown;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	grown = realloc(s->warnings, (s->nwarnings + 1) * sizeof(*grown));
	if (!grown)
		return;
	s->warnings = grown;
	s->warnings[s->nwarnings] = eq_intern(s->strings, buf);
	if (s->warnings[s->nwarnings])
		s->nwarnings++;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* ---- modules ------------------------------------------------------------ */

/* The file to open for a mapped path: without the " (deleted)" the kernel
 * appends to files replaced while mapped.  Under --symfs it is resolved
 * beneath the folder (infile.h), so "/../.." or a symlink cannot leave it. */
static void host_file(const char *path, char *file, size_t size)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(path), dl = sizeof(deleted) - 1;

	if (len > dl && !strcmp(path + len - dl, deleted))
		len -= dl;
	snprintf(file, size, "%.*s", (int)len, path);
}

/* 0: opened; -1: no such file here (the caller says so once); -2: there but
 * not usable, already said why. */
static int open_elf(struct eq_symbolizer *s, struct modfile *m)
{
	char file[4200], key[4200];
	const char *want;
	struct eq_error err;
	int fd;

	if (m->path[0] != '/')
		return -1;
	host_file(m->path, file, sizeof(file));
	fd = eq_input_open(s->rootp, file, &err);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -1;
		warn(s, "%s; its samples are reported as [unknown]", err.msg);
		return -2;
	}
	snprintf(key, sizeof(key), "%s%s", EQ_BUILDID_KEY_PREFIX, m->path);
	want = s->opt.check_build_id ? eqp_meta_get(s->file, key) : NULL;
	m->elf = eq_elfmod_open(s->rootp, fd, file, want, s->strings, &err);
	if (!m->elf) {
		warn(s, "%s: %s; not using its symbols%s", m->path, err.msg,
		     want ? " (use --symfs to point at the files the recording was made with)" : "");
		return -2;
	}
	return 0;
}

static const struct eqp_symtab *embedded_table(const struct eq_symbolizer *s, const char *path)
{
	size_t i, n = eqp_nsymtabs(s->file);

	for (i = 0; i < n; i++) {
		const struct eqp_symtab *t = eqp_symtab_at(s->file, i);

		if (t->module && !strcmp(t->module, path))
			return t;
	}
	return NULL;
}

/* A module the recording holds the bytes of (an IMAG chunk: the vdso, as
 * eqprof-record embeds it without a table) but no table for: the table is
 * made from the image's own ELF symbols, as the full recorder makes it. */
static const struct eqp_symtab *image_table(struct eq_symbolizer *s, struct modfile *m)
{
	size_t len, n = 0;
	const void *img = eqp_image(s->file, m->path, &len);
	struct eqp_symbol *syms = NULL;
	struct eq_error ignored;

	if (!img || !len || eq_elf_image_symbols(img, len, s->strings, &syms, &n, &ignored) < 0 || !n) {
		free(syms);
		return NULL;
	}
	m->image_table.module = m->path;
	m->image_table.absolute = 0;
	m->image_table.nsyms = n;
	m->image_table.syms = syms;
	return &m->image_table;
}

/* Memory no file backs: JIT code lives there (perf's "//anon"). */
static int anonymous(const char *path)
{
	return !path[0] || !strcmp(path, "//anon") || !strncmp(path, "[anon", 5) ||
	       !strncmp(path, "/memfd:", 7);
}

int eq_sym_image_fd(struct eq_symbolizer *s, const char *module)
{
	size_t len, done = 0;
	const unsigned char *data = eqp_image(s->file, module, &len);
	int fd;

	if (!data || !len)
		return -1;
	fd = memfd_create("eqprof-image", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/*
 * A module in no file whose bytes the recording holds (the kernel's vdso):
 * opened as the ELF file it is, so its pcs get the symbols of its .dynsym
 * and, outside them (this kernel's vdso has helpers no symbol covers), the
 * function starts of its .eh_frame, as any file's.  0, or -1 (no image, or
 * not usable: the embedded symbol table is the fallback).
 */
static int open_image(struct eq_symbolizer *s, struct modfile *m)
{
	struct eq_error err;
	int fd = eq_sym_image_fd(s, m->path);

	if (fd < 0)
		return -1;
	m->elf = eq_elfmod_open(NULL, fd, m->path, NULL, s->strings, &err);
	return m->elf ? 0 : -1;
}

static void load_module(struct eq_symbolizer *s, struct modfile *m)
{
	size_t before = s->nwarnings;
	const struct eqp_symtab *t;
	int rc = anonymous(m->path) ? -2 : m->path[0] == '/' ? open_elf(s, m) : open_image(s, m);

	if (rc == 0) {
		m->state = MOD_ELF;
		return;
	}
	t = embedded_table(s, m->path);
	if (!t)
		t = image_table(s, m);
	if (t && (m->embedded = eq_symtab_index_new(t)) != NULL) {
		m->state = MOD_EMBEDDED;
		m->embedded_absolute = t->absolute;
		return;
	}
	m->state = MOD_NONE;
	if (anonymous(m->path))
		warn(s, "%s: code in anonymous memory (a JIT's?) and no /tmp/perf-PID.map was recorded "
		     "for its process; its samples are reported as [unknown] (have the JIT write "
		     "one: node --perf-basic-prof, or a JVM's perf map agent)", m->path);
	else if (m->path[0] == '/' && rc == -1)  /* -2 has said what was wrong */
		warn(s, "%s: no ELF file found%s%s and no symbol table in the recording; "
		     "its samples are reported as [unknown] (try --symfs DIR)", m->path,
		     s->opt.symfs ? " under " : "", s->opt.symfs ? s->opt.symfs : "");
	if (s->nwarnings > before)
		m->note = s->warnings[s->nwarnings - 1];
}


static struct modfile *module_for(struct eq_symbolizer *s, const char *path)
{
	unsigned h = (unsigned)(((uintptr_t)path >> 4) & 255);
	struct modfile *m;

	for (m = s->mods[h]; m; m = m->next)
		if (m->path == path)
			return m;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->path = path;
	m->next = s->mods[h];
	s->mods[h] = m;
	return m;
}

/* ---- processes ---------------------------------------------------------- */

static struct spaceinfo *load_space(struct eq_symbolizer *s, struct eq_space *sp)
{
	struct spaceinfo *si;
	struct eq_error err;
	char name[96];
	size_t i;

	if (sp->user)
		return sp->user;
	si = calloc(1, sizeof(*si));
	if (!si)
		return NULL;
	if (sp->maps) {
		if (s->multi)
			snprintf(name, sizeof(name), "maps of pid %u from time %llu", sp->pid,
				 (unsigned long long)sp->start);
		else
			snprintf(name, sizeof(name), "maps of pid %u", sp->pid);
		if (eq_maps_parse_log(sp->maps->text, sp->maps->len, name, &si->maps, &err) == 0)
			si->have_maps = 1;
		else
			warn(s, "%s", err.msg);
	}
	if (si->have_maps) {
		si->mod_of_map = calloc(si->maps.n ? si->maps.n : 1, sizeof(*si->mod_of_map));
		for (i = 0; si->mod_of_map && i < si->maps.n; i++)
			if (si->maps.maps[i].path[0])
				si->mod_of_map[i] = module_for(s,
					eq_intern(s->strings, si->maps.maps[i].path));
		si->anon_of_map = malloc(si->maps.n ? si->maps.n : 1);
		for (i = 0; si->anon_of_map && i < si->maps.n; i++)
			si->anon_of_map[i] = (unsigned char)anonymous(si->maps.maps[i].path);
	}
	if (sp->exe)
		si->exe = sp->exe;
	else if (si->have_maps && eq_maps_main_path(&si->maps))
		si->exe = eq_intern(s->strings, base_name(eq_maps_main_path(&si->maps)));
	else
		si->exe = eq_internf(s->strings, "pid %u", sp->pid);
	sp->user = si;
	return si;
}

static void release_space(void *user)
{
	struct spaceinfo *si = user;

	eq_maps_release(&si->maps);
	free(si->mod_of_map);
	free(si->anon_of_map);
	free(si);
}

uint32_t eq_sym_space_key(struct eq_symbolizer *s, const struct eq_sample *smp)
{
	struct eq_space *sp;

	if (!s->multi)
		return smp->pid;
	if ((smp->flags & EQ_F_IDLE) || smp->pid == 0)
		return 0;
	sp = eq_tasks_space(s->tasks, smp->pid, smp->time);
	return sp ? sp->who : 0;
}

const struct eq_maps *eq_sym_space_maps(struct eq_symbolizer *s, const struct eq_sample *smp)
{
	struct eq_space *sp;
	struct spaceinfo *si;

	if ((smp->flags & EQ_F_IDLE) || smp->pid == 0)
		return NULL;
	sp = eq_tasks_space(s->tasks, smp->pid, smp->time);
	si = sp ? load_space(s, sp) : NULL;
	return si && si->have_maps ? &si->maps : NULL;
}

int eq_sym_callchain(struct eq_symbolizer *s, size_t c, size_t i,
		     const struct eq_sample *smp, struct eqp_callchain *cc)
{
	struct eqp_ustack st;
	int n = eqp_sample_callchain(s->file, c, i, cc);

	unsigned nk = cc->nkernel;

	/* a recorded user chain wins; a kernel-only one (dwarf recordings
	 * with kernel samples) gets the unwound user frames after it */
	if (cc->nuser > 0 || !eqp_sample_ustack(s->file, c, i, &st))
		return n;
	if (!s->unwinder) {
		s->unwinder = eq_unwinder_new(s);
		s->unwound = malloc(2 * EQP_MAX_CHAIN_FRAMES * sizeof(*s->unwound));
		if (!s->unwinder || !s->unwound)
			return n;
	}
	if (nk > EQP_MAX_CHAIN_FRAMES)
		nk = EQP_MAX_CHAIN_FRAMES;
	if (nk)  /* no frames: cc->frames may be NULL */
		memmove(s->unwound, cc->frames, nk * sizeof(*s->unwound));
	cc->nkernel = nk;
	cc->nuser = eq_unwind(s->unwinder, smp, &st, s->unwound + nk, EQP_MAX_CHAIN_FRAMES);
	cc->frames = s->unwound;
	return (int)(cc->nkernel + cc->nuser);
}

const struct eq_unwind_stats *eq_sym_unwind_stats(const struct eq_symbolizer *s)
{
	return s->unwinder ? eq_unwind_stats(s->unwinder) : NULL;
}

int eq_sym_multi_space(const struct eq_symbolizer *s)
{
	return s->multi;
}

const char *eq_sym_thread_name(struct eq_symbolizer *s, const struct eq_sample *smp)
{
	const char *own;
	struct eq_space *sp;
	struct spaceinfo *si;

	if ((smp->flags & EQ_F_IDLE) || smp->pid == 0)
		return s->s_idle;
	own = eq_tasks_thread_name(s->tasks, smp->pid, smp->tid);
	if (own)
		return own;
	sp = eq_tasks_space(s->tasks, smp->pid, smp->time);
	si = sp ? load_space(s, sp) : NULL;
	return si ? si->exe : s->s_unknown;
}

/* ---- one location ------------------------------------------------------- */

static void resolve_elf(struct eq_symbolizer *s, struct modfile *m, struct eq_loc *loc)
{
	const char *proc = eq_elfmod_lookup(m->elf, loc->module_off, &loc->proc_off,
					    s->skip_lines ? NULL : &loc->file, &loc->line);

	if (proc) {
		loc->kind = EQ_LOC_RESOLVED;
		loc->proc = proc;
	}
}

/*
 * A pc of a file no symbol covers keeps kind EQ_LOC_UNRESOLVED (reports
 * count it as having no symbol and say why), but gets a name that groups
 * it with the rest of its function: "liblzma.so.5+0x15bc0", "[vdso]+0x780",
 * the function's start by the call-frame information, or
 * "prog+0x1200 [256-byte block]" where no CFI covers it.  Never one
 * [unknown] row for a whole stripped file, and never a symbol's name: the
 * nearest symbol before a stripped function is another function.
 */
static void name_region(struct eq_symbolizer *s, struct modfile *m, struct eq_loc *loc)
{
	uint64_t start;
	int rc = eq_elfmod_region(m->elf, loc->module_off, &start);

	if (rc < 0)
		return;
	if (rc == 1)
		loc->proc = eq_internf(s->strings, "%s+0x%llx", loc->module_base,
				       (unsigned long long)start);
	else
		loc->proc = eq_internf(s->strings, "%s+0x%llx [%d-byte block]", loc->module_base,
				       (unsigned long long)start, EQ_REGION_BLOCK);
	if (loc->proc)
		loc->proc_off = loc->module_off - start;
}

static void resolve_table(struct eq_symbolizer *s, struct eq_symtab_index *t,
			  uint64_t addr, struct eq_loc *loc)
{
	const struct eqp_symbol *sym = eq_symtab_index_find(t, addr);

	if (!sym)
		return;
	loc->proc = eq_intern(s->strings, sym->name);
	if (loc->proc)
		loc->proc = eq_name_demangle(s->strings, loc->proc);
	if (!loc->proc)
		return;
	loc->kind = EQ_LOC_RESOLVED;
	loc->proc_off = addr - sym->addr;
}

/* A pc outside any file: code a JIT named in /tmp/perf-PID.map, if the
 * recording has that map (the recorder embeds it).  0 when it has none. */
static int locate_jit(struct eq_symbolizer *s, struct eq_loc *loc)
{
	struct modfile *m = module_for(s, eq_internf(s->strings, "/tmp/perf-%u.map", loc->pid));
	const struct eqp_symtab *t;

	if (!m)
		return 0;
	if (m->state == MOD_UNTRIED) {
		t = embedded_table(s, m->path);
		m->state = MOD_NONE;
		if (t && (m->embedded = eq_symtab_index_new(t)) != NULL) {
			m->state = MOD_EMBEDDED;
			m->embedded_absolute = 1;
		}
	}
	if (m->state != MOD_EMBEDDED)
		return 0;
	loc->module = m->path;
	loc->module_base = eq_intern(s->strings, base_name(m->path));
	loc->module_off = loc->pc;
	loc->kind = EQ_LOC_UNRESOLVED;
	resolve_table(s, m->embedded, loc->pc, loc);
	return 1;
}

/* anonymous(map->path) for a map of p, from p's table when it has one. */
static int map_anonymous(const struct spaceinfo *p, const struct eq_map *map)
{
	return p->anon_of_map ? p->anon_of_map[map - p->maps.maps] : anonymous(map->path);
}

static void locate_user(struct eq_symbolizer *s, struct spaceinfo *p, struct eq_loc *loc)
{
	const struct eq_map *map = p && p->have_maps ? eq_maps_find(&p->maps, loc->pc) : NULL;
	struct modfile *m;

	if ((!map || map_anonymous(p, map)) && locate_jit(s, loc))
		return;
	if (!map || !map->path[0]) {
		loc->kind = EQ_LOC_NO_MODULE;
		loc->module = loc->module_base = s->s_unknown;
		loc->module_off = loc->pc;
		return;
	}
	m = p->mod_of_map[map - p->maps.maps];
	loc->module = m ? m->path : eq_intern(s->strings, map->path);
	if (m && !m->base)
		m->base = eq_intern(s->strings, base_name(m->path));
	loc->module_base = m ? m->base : eq_intern(s->strings, base_name(loc->module));
	loc->module_off = loc->pc - map->start + map->offset;
	loc->kind = EQ_LOC_UNRESOLVED;
	if (!m)
		return;
	if (m->state == MOD_UNTRIED)
		load_module(s, m);
	if (m->state == MOD_ELF) {
		resolve_elf(s, m, loc);
		if (loc->kind == EQ_LOC_UNRESOLVED)
			name_region(s, m, loc);
	}
	else if (m->state == MOD_EMBEDDED)
		resolve_table(s, m->embedded,
			      m->embedded_absolute ? loc->pc : loc->module_off, loc);
}

static struct eq_loc *new_loc(struct eq_symbolizer *s)
{
	struct loc_block *b = s->locs;

	if (!b || b->used == b->cap) {
		size_t cap = !b ? LOC_BLOCK : b->cap < LOC_BLOCK_MAX ? 2 * b->cap : b->cap;

		b = eq_big_calloc(1, sizeof(*b) + cap * sizeof(b->locs[0]));
		if (!b)
			return NULL;
		b->cap = (eq_big_room(b) - sizeof(*b)) / sizeof(b->locs[0]);
		b->next = s->locs;
		s->locs = b;
	}
	return &b->locs[b->used++];
}

static void locate(struct eq_symbolizer *s, const struct eq_sample *smp, uint32_t kbits,
		   struct eq_loc *loc)
{
	struct eq_space *sp;
	struct spaceinfo *p;

	memset(loc, 0, sizeof(*loc));
	loc->pid = smp->pid;
	loc->pc = smp->pc;
	if (kbits & 2) {
		loc->kind = EQ_LOC_IDLE;
		loc->exe = loc->module = loc->module_base = loc->proc = s->s_idle;
		return;
	}
	sp = eq_tasks_space(s->tasks, smp->pid, smp->time);
	p = sp ? load_space(s, sp) : NULL;
	loc->exe = p ? p->exe : s->s_unknown;
	if (kbits & 1) {
		loc->kernel = 1;
		loc->kind = EQ_LOC_UNRESOLVED;
		loc->module = loc->module_base = s->s_kernel;
		loc->module_off = loc->pc;
		{
			/* a module's code: the table starting last at or below the pc,
			 * on the pc's side of the core kernel (x86-64 loads modules
			 * above the kernel's image, arm64 below it) */
			const struct kmod *best = NULL;
			int below = loc->pc < s->kallsyms_start;
			size_t k;

			for (k = 0; k < s->nkmods; k++)
				if (s->kmods[k].start <= loc->pc &&
				    (below || s->kmods[k].start > s->kallsyms_start) &&
				    (!best || s->kmods[k].start > best->start))
					best = &s->kmods[k];
			if (best) {
				loc->module = loc->module_base = best->name;
				resolve_table(s, best->index, loc->pc, loc);
				return;
			}
		}
		if (s->kallsyms)
			resolve_table(s, s->kallsyms, loc->pc, loc);
		return;
	}
	locate_user(s, p, loc);
}

/* ---- the cache ---------------------------------------------------------- */

static inline uint64_t mix(uint64_t pc, uint32_t who, uint32_t kbits)
{
	uint64_t h = pc ^ ((uint64_t)who << 40) ^ ((uint64_t)kbits << 62);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static int cache_grow(struct eq_symbolizer *s)
{
	size_t newmask = s->cache_mask ? 2 * s->cache_mask + 1 : 4095, i;
	struct cache_slot *slots = eq_big_calloc(newmask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; s->cache && i <= s->cache_mask; i++) {
		struct cache_slot *c = &s->cache[i];
		size_t j;

		if (!c->loc)
			continue;
		j = mix(c->pc, c->who, c->kbits) & newmask;
		while (slots[j].loc)
			j = (j + 1) & newmask;
		slots[j] = *c;
	}
	eq_big_free(s->cache);
	s->cache = slots;
	s->cache_mask = newmask;
	return 0;
}

static inline uint32_t kbits_of(const struct eq_sample *smp)
{
	if ((smp->flags & EQ_F_IDLE) || smp->pid == 0)
		return 2;
	return (smp->flags & EQ_F_KERNEL) ? 1 : 0;
}

static struct eq_loc oom_loc = { .kind = EQ_LOC_NO_MODULE, .exe = "[unknown]",
				 .module = "[unknown]", .module_base = "[unknown]" };

const struct eq_loc *eq_sym_lookup(struct eq_symbolizer *s, const struct eq_sample *smp)
{
	uint32_t kbits = kbits_of(smp);
	uint64_t pc = kbits == 2 ? 0 : smp->pc;  /* all idle samples are one place */
	uint32_t who = kbits == 2 ? 0 : eq_sym_space_key(s, smp);
	struct eq_loc *loc;
	size_t j;

	if (2 * (s->cache_count + 1) > s->cache_mask && cache_grow(s))
		return &oom_loc;
	j = mix(pc, who, kbits) & s->cache_mask;
	for (; s->cache[j].loc; j = (j + 1) & s->cache_mask)
		if (s->cache[j].pc == pc && s->cache[j].who == who && s->cache[j].kbits == kbits)
			return s->cache[j].loc;
	loc = new_loc(s);
	if (!loc)
		return &oom_loc;
	locate(s, smp, kbits, loc);
	s->cache[j] = (struct cache_slot){ .pc = pc, .who = who, .kbits = kbits, .loc = loc };
	s->cache_count++;
	return loc;
}

/* ---- extents ------------------------------------------------------------ */

/* [*first, *last] (pcs of map) narrowed to the pcs whose addresses in the
 * table's terms (file offsets, or pcs when absolute) lie in [lo, hi]. */
static void narrow_map(const struct eq_map *map, int absolute, uint64_t lo, uint64_t hi,
		       uint64_t *first, uint64_t *last)
{
	uint64_t base = absolute ? map->start : map->offset;  /* map->start's address */
	uint64_t top = base + (map->end - 1 - map->start);

	if (lo > base)
		*first = map->start + (lo - base);
	if (hi < top)
		*last = map->start + (hi - base);
}

/* A user pc's extent in its mapping (loc already located). */
static void user_extent(struct eq_symbolizer *s, const struct eq_sample *smp,
			const struct eq_loc *loc, uint64_t *first, uint64_t *last, int lines)
{
	struct eq_space *sp = eq_tasks_space(s->tasks, smp->pid, smp->time);
	struct spaceinfo *p = sp ? load_space(s, sp) : NULL;
	const struct eq_map *map = p && p->have_maps ? eq_maps_find(&p->maps, smp->pc) : NULL;
	struct modfile *m;
	uint64_t lo, hi, addr;

	/* no file (a JIT's map may name it), or a name only: the pc alone */
	if (!map || map_anonymous(p, map))
		return;
	m = p->mod_of_map[map - p->maps.maps];
	*first = map->start;
	*last = map->end - 1;
	if (!m || (m->state != MOD_ELF && m->state != MOD_EMBEDDED))
		return;            /* no symbols: all its pcs alike */
	if (m->state == MOD_ELF) {
		if (lines == 2 && !s->skip_lines)
			eq_elfmod_same_line_extent(m->elf, loc->module_off, &lo, &hi);
		else if (lines && !s->skip_lines)
			eq_elfmod_line_extent(m->elf, loc->module_off, &lo, &hi);
		else
			eq_elfmod_extent(m->elf, loc->module_off, &lo, &hi);
		narrow_map(map, 0, lo, hi, first, last);
		return;
	}
	addr = m->embedded_absolute ? smp->pc : loc->module_off;
	eq_symtab_index_extent(m->embedded, addr, &lo, &hi);
	narrow_map(map, m->embedded_absolute, lo, hi, first, last);
}

static const struct eq_loc *lookup_extent(struct eq_symbolizer *s, const struct eq_sample *smp,
					  uint64_t *first, uint64_t *last, int lines)
{
	const struct eq_loc *loc = eq_sym_lookup(s, smp);
	uint32_t kbits = kbits_of(smp);

	*first = *last = smp->pc;
	if (kbits == 2) {
		*first = 0;
		*last = UINT64_MAX;
	} else if (kbits == 0 && loc->kind != EQ_LOC_NO_MODULE && loc->kind != EQ_LOC_IDLE) {
		user_extent(s, smp, loc, first, last, lines);
	}
	return loc;
}

const struct eq_loc *eq_sym_lookup_extent(struct eq_symbolizer *s, const struct eq_sample *smp,
					  uint64_t *first, uint64_t *last)
{
	return lookup_extent(s, smp, first, last, 0);
}

const struct eq_loc *eq_sym_lookup_line_extent(struct eq_symbolizer *s,
					       const struct eq_sample *smp, uint64_t *first,
					       uint64_t *last)
{
	return lookup_extent(s, smp, first, last, 1);
}

const struct eq_loc *eq_sym_locate_extent(struct eq_symbolizer *s, const struct eq_sample *smp,
					  int lines, uint64_t *first, uint64_t *last)
{
	struct eq_loc *loc;

	if (kbits_of(smp))
		return lookup_extent(s, smp, first, last, lines);
	*first = *last = smp->pc;
	loc = new_loc(s);
	if (!loc)
		return &oom_loc;
	locate(s, smp, 0, loc);
	if (loc->kind != EQ_LOC_NO_MODULE && loc->kind != EQ_LOC_IDLE)
		user_extent(s, smp, loc, first, last, lines);
	return loc;
}

/* ---- setup -------------------------------------------------------------- */

static void load_kallsyms(struct eq_symbolizer *s)
{
	size_t i, n = eqp_nsymtabs(s->file);

	for (i = 0; i < n; i++) {
		const struct eqp_symtab *t = eqp_symtab_at(s->file, i);

		/* The first table wins, as for modules (embedded_table). */
		if (t->module && !strcmp(t->module, "[kernel.kallsyms]") && !s->kallsyms) {
			s->kallsyms = eq_symtab_index_new(t);
			s->kallsyms_start = t->nsyms ? t->syms[0].addr : 0;
		} else if (t->module && t->absolute && t->module[0] == '[' && t->nsyms &&
			   strcmp(t->module, "[kernel.kallsyms]")) {
			/* a kernel module's symbols, recorded from kallsyms */
			struct kmod *g = realloc(s->kmods, (s->nkmods + 1) * sizeof(*g));

			if (!g)
				continue;
			s->kmods = g;
			g[s->nkmods].name = eq_intern(s->strings, t->module);
			g[s->nkmods].start = t->syms[0].addr;
			g[s->nkmods].index = eq_symtab_index_new(t);
			if (g[s->nkmods].name && g[s->nkmods].index)
				s->nkmods++;
			else
				eq_symtab_index_free(g[s->nkmods].index);
		}
	}
}

struct eq_symbolizer *eq_sym_new(const struct eqp_file *f, const struct eq_sym_options *opt,
				 struct eq_error *err)
{
	struct eq_symbolizer *s = calloc(1, sizeof(*s));

	if (!s) {
		eq_fail(err, "symbolizer: out of memory");
		return NULL;
	}
	s->file = f;
	s->opt.check_build_id = 1;
	if (opt)
		s->opt = *opt;
	s->strings = eq_intern_new();
	if (s->strings)
		s->tasks = eq_tasks_new(f, s->strings);
	if (!s->strings || !s->tasks || cache_grow(s)) {
		eq_sym_free(s);
		eq_fail(err, "symbolizer: out of memory");
		return NULL;
	}
	s->s_idle = eq_intern(s->strings, "[idle]");
	s->s_unknown = eq_intern(s->strings, "[unknown]");
	s->s_kernel = eq_intern(s->strings, "[kernel.kallsyms]");
	s->multi = eq_tasks_multi(s->tasks);
	load_kallsyms(s);
	if (s->opt.symfs) {
		if (eq_root_open(&s->root, s->opt.symfs, err) < 0) {
			eq_fail_prefix(err, "--symfs");
			eq_sym_free(s);
			return NULL;
		}
		s->rootp = &s->root;
	}
	elf_version(EV_CURRENT);
	return s;
}

void eq_sym_free(struct eq_symbolizer *s)
{
	struct loc_block *b, *nb;
	size_t i;

	if (!s)
		return;
	eq_unwinder_free(s->unwinder);
	free(s->unwound);
	eq_tasks_free(s->tasks, release_space);
	for (i = 0; i < 256; i++) {
		struct modfile *m, *nm;

		for (m = s->mods[i]; m; m = nm) {
			nm = m->next;
			eq_elfmod_close(m->elf);
			eq_symtab_index_free(m->embedded);
			free((void *)m->image_table.syms);
			free(m);
		}
	}
	for (b = s->locs; b; b = nb) {
		nb = b->next;
		eq_big_free(b);
	}
	eq_symtab_index_free(s->kallsyms);
	for (i = 0; i < s->nkmods; i++)
		eq_symtab_index_free(s->kmods[i].index);
	free(s->kmods);
	if (s->rootp)
		eq_root_close(&s->root);
	eq_big_free(s->cache);
	free(s->warnings);
	eq_intern_free(s->strings);
	free(s);
}

void eq_sym_skip_lines(struct eq_symbolizer *s, int skip)
{
	s->skip_lines = skip;
}

size_t eq_sym_nwarnings(const struct eq_symbolizer *s)
{
	return s->nwarnings;
}

const char *eq_sym_warning(const struct eq_symbolizer *s, size_t i)
{
	return i < s->nwarnings ? s->warnings[i] : NULL;
}

int eq_sym_module_open(struct eq_symbolizer *s, const char *host_path, struct eq_error *err)
{
	return eq_input_open(s->rootp, host_path, err);
}

struct eq_elfmod *eq_sym_module_elf(struct eq_symbolizer *s, const char *module,
				    const char **host_path)
{
	char file[4200];
	struct modfile *m;

	if (host_path)
		*host_path = NULL;
	if (!module || module[0] != '/')
		return NULL;
	m = module_for(s, eq_intern(s->strings, module));
	if (!m)
		return NULL;
	if (m->state == MOD_UNTRIED)
		load_module(s, m);
	if (m->state != MOD_ELF)
		return NULL;
	if (host_path) {
		host_file(m->path, file, sizeof(file));
		*host_path = eq_intern(s->strings, file);
	}
	return m->elf;
}

const char *eq_sym_module_note(struct eq_symbolizer *s, const char *module)
{
	struct modfile *m;
	char buf[1024];

	if (!module || module == s->s_unknown)
		return "in no mapping of its process (no maps were recorded for it, or code outside them)";
	if (module == s->s_kernel)
		return "the recording has no kernel symbol table";
	m = module_for(s, eq_intern(s->strings, module));
	if (!m)
		return NULL;
	switch (m->state) {
	case MOD_ELF:
		eq_elfmod_describe(m->elf, buf, sizeof(buf));
		if (m->path[0] != '/') {  /* the vdso: the image the recording saved */
			static const char hint[] = " (install its debug package, e.g. the -dbgsym one)";
			char *h = strstr(buf, hint);

			if (h)
				snprintf(h, sizeof(buf) - (size_t)(h - buf), " (the kernel's debug package, "
					 "e.g. linux-image-VERSION-dbg, has its debug file)");
			return eq_internf(s->strings, "the kernel's %s, saved in the recording: %s",
					  m->path, buf);
		}
		return eq_intern(s->strings, buf);
	case MOD_EMBEDDED:
		return "no symbol of the recording's table covers them";
	case MOD_NONE:
		if (m->note)
			return m->note;
		if (!strcmp(m->path, "[vdso]"))
			return "the recording holds no symbols of the kernel's vdso (eqprof record "
			       "embeds them; import and older recordings do not)";
		return "no file and no symbol table in the recording for it";
	default:
		return NULL;
	}
}

/* The ELF of a loc's module, loaded; NULL for other modules. */
static struct eq_elfmod *loc_elf(struct eq_symbolizer *s, const struct eq_loc *l)
{
	struct modfile *m;

	if (l->kind != EQ_LOC_RESOLVED || l->kernel || !l->module || l->module[0] != '/')
		return NULL;
	m = module_for(s, eq_intern(s->strings, l->module));
	if (m && m->state == MOD_UNTRIED)
		load_module(s, m);
	return m && m->state == MOD_ELF ? m->elf : NULL;
}

size_t eq_sym_inlines(struct eq_symbolizer *s, const struct eq_loc *l,
		      struct eq_inline_frame *out, size_t max)
{
	struct eq_elfmod *e = loc_elf(s, l);
	size_t n = e ? eq_elfmod_inlines(e, l->module_off, out, max) : 0;

	/* the outermost frame is the symbol the profile names */
	if (n)
		out[n - 1].name = l->proc;
	return n;
}

const char *eq_sym_proc_file(struct eq_symbolizer *s, const struct eq_loc *l)
{
	struct eq_elfmod *e = loc_elf(s, l);

	return e ? eq_elfmod_proc_file(e, l->module_off, l->proc_off) : NULL;
}

const struct eqp_file *eq_sym_file(const struct eq_symbolizer *s)
{
	return s->file;
}
