/*
 * elfmod.c - an ELF file for symbolization: libdwfl session at bias 0,
 * PT_LOAD headers, sorted function symbols, build-id check, DWARF lines.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "elfmod.h"
#include "eqp.h"
#include "infile.h"
#include "intern.h"
#include "symbolize.h"
#include "symtab.h"

struct eq_elfmod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Phdr *loads;            /* PT_LOAD headers: file offset -> vaddr */
	size_t nloads;
	struct eqp_symbol *syms;     /* function symbols, indexed below */
	struct eq_symtab_index *index;
	struct eq_intern *strings;
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
		return -1;
	slash = strrchr(file_name, '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file_name), file_name);
	if (link)
		snprintf(name, sizeof(name), "%s", link);
	else
		snprintf(name, sizeof(name), "%s.debug", slash + 1);
	if (name[0] == '/')
		return try_debug(root, name, id, idlen, link, crc, found);
	{
		const char *const fmts[] = { "%s/%s", "%s/.debug/%s", DEBUG_DIR "%s/%s" };

		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), fmts[i], dir, name);
			if (strcmp(path, file_name) != 0 &&
			    (fd = try_debug(root, path, id, idlen, link, crc, found)) >= 0)
				return fd;
		}
	}
	return -1;
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

/*
 * Copies the module's function symbols into a sorted index: libdwfl's own
 * address lookup scans every symbol per call, which is too slow for tens of
 * thousands of distinct pcs.
 */
static int read_symbols(struct eq_elfmod *m)
{
	int n = dwfl_module_getsymtab(m->mod), i;
	size_t used = 0;

	if (n <= 0)
		return 0;
	m->syms = calloc((size_t)n, sizeof(*m->syms));
	if (!m->syms)
		return -1;
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
		m->syms[used] = (struct eqp_symbol){ .addr = addr, .size = sym.st_size,
						     .name = eq_intern(m->strings, name) };
		if (!m->syms[used++].name)
			return -1;
	}
	if (used) {
		struct eqp_symtab t = { "", 0, used, m->syms };

		m->index = eq_symtab_index_new(&t);
		if (!m->index)
			return -1;
	}
	return 0;
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

void eq_elfmod_close(struct eq_elfmod *m)
{
	if (!m)
		return;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->loads);
	eq_symtab_index_free(m->index);
	free(m->syms);
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

const char *eq_elfmod_lookup(struct eq_elfmod *m, uint64_t off, uint64_t *proc_off,
			     const char **file, unsigned *line)
{
	const struct eqp_symbol *sym;
	Dwfl_Line *l;
	uint64_t vaddr;
	int lineno = 0;

	if (file) {
		*file = NULL;
		*line = 0;
	}
	if (offset_to_vaddr(m, off, &vaddr) || !m->index ||
	    !(sym = eq_symtab_index_find(m->index, vaddr)))
		return NULL;
	*proc_off = vaddr - sym->addr;
	if (file && (l = dwfl_module_getsrc(m->mod, vaddr)) != NULL) {
		const char *src = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);

		if (src && lineno > 0) {
			*file = eq_intern(m->strings, src);
			*line = *file ? (unsigned)lineno : 0;
		}
	}
	return sym->name;
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
