/*
 * cmelf.c - the application's ELF for the Cortex-M recorder (cmelf.h).
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmelf.h"

#define MAX_VECTORS 256           /* 16 system exceptions and up to 240 IRQs */

struct cm_elf {
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi, *ehcfi;
	char path[PATH_MAX];
	char maps[4096];
	char buildid[64];
	uint32_t vec[MAX_VECTORS];
	unsigned nvec;
	/* function symbols, for handler names */
	struct { uint32_t addr; char *name; } *funcs;
	size_t nfuncs;
};

static const char *const sysnames[16] = {
	"thread mode", "Reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault",
	"SecureFault", NULL, NULL, NULL, "SVCall", "DebugMonitor", NULL, "PendSV", "SysTick",
};

static void read_funcs(struct cm_elf *e)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		e->funcs = calloc(n ? n : 1, sizeof(*e->funcs));
		if (!e->funcs)
			return;
		for (k = 0; k < n; k++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)k, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !(name = elf_strptr(e->elf, sh.sh_link, sym.st_name)) || !*name)
				continue;
			e->funcs[e->nfuncs].addr = (uint32_t)sym.st_value & ~1u;
			e->funcs[e->nfuncs].name = strdup(name);
			if (e->funcs[e->nfuncs].name)
				e->nfuncs++;
		}
		return;
	}
}

/* Reads n little-endian words at vaddr from the loadable segments. */
static int read_words(struct cm_elf *e, uint64_t vaddr, uint32_t *out, unsigned n)
{
	size_t i, nph;

	if (elf_getphdrnum(e->elf, &nph) != 0)
		return -1;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint8_t buf[4 * MAX_VECTORS];
		unsigned k, have;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr >= ph.p_vaddr + ph.p_filesz)
			continue;
		have = (unsigned)((ph.p_vaddr + ph.p_filesz - vaddr) / 4);
		if (have < n)
			n = have;
		if (pread(e->fd, buf, 4 * n, (off_t)(ph.p_offset + vaddr - ph.p_vaddr)) != (ssize_t)(4 * n))
			return -1;
		for (k = 0; k < n; k++)
			out[k] = buf[4 * k] | buf[4 * k + 1] << 8 | buf[4 * k + 2] << 16 |
				 (uint32_t)buf[4 * k + 3] << 24;
		return (int)n;
	}
	return -1;
}

/*
 * The vector table: a section named as toolchains name it, else the
 * lowest loadable address; it is taken when its reset vector is the ELF's
 * entry point (or at least a Thumb address in a loadable segment).
 */
static void read_vectors(struct cm_elf *e)
{
	static const char *const names[] = { ".isr_vector", ".vectors", ".vector_table", ".intvecs" };
	uint64_t at = UINT64_MAX;
	Elf_Scn *scn = NULL;
	size_t shstr, i, nph;
	GElf_Ehdr eh;
	int n;

	if (!gelf_getehdr(e->elf, &eh) || elf_getshdrstrndx(e->elf, &shstr) != 0)
		return;
	while ((scn = elf_nextscn(e->elf, scn)) != NULL && at == UINT64_MAX) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e->elf, shstr, sh.sh_name)))
			continue;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(nm, names[i]))
				at = sh.sh_addr;
	}
	if (at == UINT64_MAX && elf_getphdrnum(e->elf, &nph) == 0) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz &&
			    ph.p_paddr < at)
				at = ph.p_vaddr;
		}
	}
	if (at == UINT64_MAX)
		return;
	n = read_words(e, at, e->vec, MAX_VECTORS);
	if (n < 2 || !(e->vec[1] & 1) || ((e->vec[1] & ~1u) != (eh.e_entry & ~1u) && eh.e_entry))
		return;
	e->nvec = (unsigned)n;
}

static void read_build_id(struct cm_elf *e)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			size_t k;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) || nh.n_descsz > 31)
				continue;
			for (k = 0; k < nh.n_descsz; k++)
				snprintf(e->buildid + 2 * k, 3, "%02x",
					 ((unsigned char *)d->d_buf)[doff + k]);
			return;
		}
	}
}

static void make_maps(struct cm_elf *e)
{
	size_t i, nph, at = 0;

	if (elf_getphdrnum(e->elf, &nph) != 0)
		return;
	for (i = 0; i < nph && at < sizeof(e->maps) - PATH_MAX - 64; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		at += (size_t)snprintf(e->maps + at, sizeof(e->maps) - at,
				       "%08llx-%08llx %c%c%cp %08llx 00:00 0 %s\n",
				       (unsigned long long)ph.p_vaddr,
				       (unsigned long long)(ph.p_vaddr + ph.p_memsz),
				       ph.p_flags & PF_R ? 'r' : '-', ph.p_flags & PF_W ? 'w' : '-',
				       ph.p_flags & PF_X ? 'x' : '-',
				       (unsigned long long)ph.p_offset, e->path);
	}
}

struct cm_elf *cm_elf_open(const char *path, struct eq_error *err)
{
	struct cm_elf *e = calloc(1, sizeof(*e));
	GElf_Ehdr eh;

	if (!e) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	if (!realpath(path, e->path)) {
		eq_fail(err, "%s: %s", path, strerror(errno));
		free(e);
		return NULL;
	}
	elf_version(EV_CURRENT);
	e->fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		eq_fail(err, "%s: %s", path, strerror(errno));
		free(e);
		return NULL;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh) ||
	    eh.e_machine != EM_ARM || gelf_getclass(e->elf) != ELFCLASS32) {
		eq_fail(err, "%s: not a 32-bit ARM ELF executable (the application the target ran, "
			"as linked: arm-none-eabi-gcc ... -o app.elf)", path);
		cm_elf_close(e);
		return NULL;
	}
	e->dw = dwarf_begin_elf(e->elf, DWARF_C_READ, NULL);
	if (e->dw)
		e->cfi = dwarf_getcfi(e->dw);
	e->ehcfi = dwarf_getcfi_elf(e->elf);
	read_funcs(e);
	read_vectors(e);
	read_build_id(e);
	make_maps(e);
	return e;
}

void cm_elf_close(struct cm_elf *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nfuncs; i++)
		free(e->funcs[i].name);
	free(e->funcs);
	if (e->ehcfi)
		dwarf_cfi_end(e->ehcfi);
	if (e->dw)
		dwarf_end(e->dw);
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e);
}

const char *cm_elf_maps(const struct cm_elf *e)
{
	return e->maps;
}

const char *cm_elf_build_id(const struct cm_elf *e)
{
	return e->buildid;
}

const char *cm_elf_path(const struct cm_elf *e)
{
	return e->path;
}

static const char *func_at(const struct cm_elf *e, uint32_t addr)
{
	size_t i;

	for (i = 0; i < e->nfuncs; i++)
		if (e->funcs[i].addr == (addr & ~1u))
			return e->funcs[i].name;
	return NULL;
}

const char *cm_elf_exception_name(const struct cm_elf *e, unsigned n, char *buf, size_t size)
{
	const char *h = n < e->nvec ? func_at(e, e->vec[n]) : NULL;
	char what[32];

	if (n < 16 && sysnames[n])
		snprintf(what, sizeof(what), "%s", sysnames[n]);
	else if (n >= 16)
		snprintf(what, sizeof(what), "IRQ %u", n - 16);
	else
		snprintf(what, sizeof(what), "exception %u", n);
	if (h && n)
		snprintf(buf, size, "%s %s", what, h);
	else
		snprintf(buf, size, "%s", what);
	return buf;
}

/* The rule for the return-address column at pc in one CFI: 1 in LR (same
 * value or no rule), 0 saved elsewhere, -1 no FDE covers pc. */
static int ra_rule(Dwarf_CFI *cfi, uint64_t pc)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op ops_mem[3], *ops = NULL;
	size_t nops = 0;
	int ra, rc;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
		return -1;
	ra = dwarf_frame_info(frame, NULL, NULL, NULL);
	rc = ra >= 0 && dwarf_frame_register(frame, ra, ops_mem, &ops, &nops) == 0 ? 0 : -1;
	free(frame);
	if (rc < 0)
		return -1;
	/* nops == 0: same value (ops set) or undefined (ops NULL): still in LR */
	return nops == 0 && ra == 14 ? 1 : 0;
}

int cm_elf_lr_is_return(struct cm_elf *e, uint64_t pc, uint32_t lr)
{
	int r;

	if (lr >= 0xf0000000u || !(lr & 1))
		return 0;             /* EXC_RETURN, or not a Thumb return */
	r = ra_rule(e->cfi, pc & ~1ull);
	if (r < 0)
		r = ra_rule(e->ehcfi, pc & ~1ull);
	return r == 1;
}
