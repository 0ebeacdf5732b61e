/*
 * unwind.c - call chains from user stack copies (record --call-graph dwarf),
 * unwound offline with elfutils' libdwfl, the way perf's util/unwind-libdw.c
 * and eu-stack do.
 *
 * For each address space of the recording (tasks.h), one Dwfl session holds
 * every executable file mapped there, reported at its load bias computed from
 * the recorded maps and the file's PT_LOAD headers, so libdwfl finds each
 * pc's CFI (.eh_frame, or .debug_frame of the file or its separate debug
 * info).  dwfl_attach_state() gives the session our own "process": one
 * thread whose initial registers are the sample's user registers and whose
 * memory is the sample's stack copy (and the mapped files, for addresses
 * outside the stack).  dwfl_getthread_frames() then walks the frames.
 *
 * The files are the ones the symbolizer opens for the same modules (beneath
 * --symfs, build-id checked), so unwinding and naming agree.  The kernel's
 * vdso is in no file: the recorder embeds its bytes (an IMAG chunk), and
 * they are reported from an anonymous memory file at the [vdso] mapping,
 * so a sample in clock_gettime() unwinds through the vdso's .eh_frame to
 * its callers, as perf does with the vdso image it saves.
 *
 * The registers are those of the machine that recorded (eqp_regs.h: x86-64,
 * aarch64, 32-bit ARM), whatever this machine is: libdwfl takes the
 * architecture from the reported files' ELF headers (its aarch64 backend
 * for an arm64 board's recording).
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/maps.h"
#include "symbols/symbolize.h"
#include "symbols/unwind.h"

#include "file/eqp_regs.h"

struct space_dwfl {
	uint32_t key;                /* eq_sym_space_key() */
	Dwfl *dwfl;                  /* NULL: nothing to unwind with here */
	int attached;
	struct eq_unwinder *u;
	struct space_dwfl *next;
};

struct eq_unwinder {
	struct eq_symbolizer *sym;
	struct space_dwfl *spaces[64];
	/* the sample being unwound */
	const struct eqp_ustack *st;
	const struct eqp_regs_arch *arch;
	uint64_t sp, ip;
	uint64_t st_pc;              /* the sample's user pc (ip may be cleared) */
	uint32_t tid;
	uint64_t *frames;
	unsigned n, max, first;
	int cut;                     /* a read above the copy's end failed */
	struct eq_unwind_stats stats;
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Register perf number r of the copy, or 0 when the mask lacks it. */
static int reg_of(const struct eqp_ustack *st, unsigned r, uint64_t *v)
{
	return eqp_regs_get(st->regs_mask, st->regs, st->nregs, r, v);
}

/* ---- the session's process ------------------------------------------------ */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct space_dwfl *sd = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = sd;
	return (pid_t)sd->u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* Bytes of a mapped file at addr: the PT_LOAD of its module that holds it. */
static bool read_file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	GElf_Addr bias;
	Elf *elf;
	size_t i, nph;
	const char *raw;
	size_t rawlen;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) || elf_getphdrnum(elf, &nph) < 0)
		return false;
	raw = elf_rawfile(elf, &rawlen);
	if (!raw)
		return false;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t va = addr - bias, off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (va < ph.p_vaddr || va + 8 > ph.p_vaddr + ph.p_filesz)
			continue;
		off = ph.p_offset + (va - ph.p_vaddr);
		if (off + 8 > rawlen)
			return false;
		memcpy(out, raw + off, 8);
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct space_dwfl *sd = arg;
	struct eq_unwinder *u = sd->u;

	if (addr >= u->sp && addr - u->sp <= u->st->size && u->st->size - (addr - u->sp) >= 8) {
		memcpy(result, u->st->stack + (addr - u->sp), 8);
		return true;
	}
	if (read_file_word(dwfl, addr, result))
		return true;
	u->stats.outside++;
	/* just above the copy (within a MiB: a stack, not a wild pointer): a
	 * frame the copy did not reach, and unwinding ends here */
	if (addr >= u->sp && addr - u->sp + 8 > u->st->size && addr - u->sp < u->st->size + (1u << 20))
		u->cut = 1;
	return false;
}

/* The sample's registers in DWARF order, and its pc on its own (on
 * aarch64 and ARM the pc has no DWARF number: without it libdwfl would
 * start from the return address register). */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct space_dwfl *sd = arg;
	const struct eqp_regs_arch *a = sd->u->arch;
	Dwarf_Word regs[EQP_REGS_MAX_DWARF];
	unsigned i;

	for (i = 0; i < a->ndwarf; i++) {
		uint64_t v;

		if (!reg_of(sd->u->st, (unsigned)a->dwarf[i], &v))
			return false;
		regs[i] = v;
	}
	if (!dwfl_thread_state_registers(thread, 0, a->ndwarf, regs))
		return false;
	dwfl_thread_state_register_pc(thread, sd->u->st_pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- one address space ---------------------------------------------------- */

/* The load bias of a file mapped with the executable mapping m: where its
 * link-time vaddrs are now, from the PT_LOAD that holds m's file offset. */
static int load_bias(int fd, const struct eq_map *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t i, nph;
	int found = 0;

	if (!elf)
		return 0;
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (i = 0; i < nph && !found; i++) {
			GElf_Phdr ph;
			uint64_t pstart;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			pstart = ph.p_offset & ~(uint64_t)4095; /* mapped from its page */
			if (m->offset < pstart || m->offset >= ph.p_offset + ph.p_filesz)
				continue;
			/* m->start holds file offset m->offset, i.e. vaddr
			 * p_vaddr + (m->offset - p_offset) */
			*bias = m->start - (ph.p_vaddr + m->offset - ph.p_offset);
			found = 1;
		}
	}
	elf_end(elf);
	return found;
}

static struct space_dwfl *space_for(struct eq_unwinder *u, const struct eq_sample *smp)
{
	uint32_t key = eq_sym_space_key(u->sym, smp);
	struct space_dwfl **slot = &u->spaces[key % 64], *sd;
	const struct eq_maps *maps;
	size_t i, j;
	int reported = 0;

	for (sd = *slot; sd; sd = sd->next)
		if (sd->key == key)
			return sd;
	sd = calloc(1, sizeof(*sd));
	if (!sd)
		return NULL;
	sd->key = key;
	sd->u = u;
	sd->next = *slot;
	*slot = sd;
	maps = eq_sym_space_maps(u->sym, smp);
	if (!maps)
		return sd;
	sd->dwfl = dwfl_begin(&callbacks);
	if (!sd->dwfl)
		return sd;
	dwfl_report_begin(sd->dwfl);
	for (i = 0; i < maps->n; i++) {
		const struct eq_map *m = &maps->maps[i];
		const char *host = NULL;
		struct eq_error err;
		uint64_t bias;
		int fd, seen = 0;

		if ((m->perms & EQ_MAP_X) && !strcmp(m->path, "[vdso]")) {
			/* the kernel's vdso: the image the recorder embedded */
			fd = eq_sym_image_fd(u->sym, m->path);
			if (fd < 0)
				continue;
			if (load_bias(fd, m, &bias) &&
			    dwfl_report_elf(sd->dwfl, m->path, m->path, fd, bias, true))
				reported++;
			else
				close(fd);
			continue;
		}
		if (!(m->perms & EQ_MAP_X) || m->path[0] != '/')
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = (maps->maps[j].perms & EQ_MAP_X) && !strcmp(maps->maps[j].path, m->path);
		if (seen)
			continue;  /* one module a file (its first executable mapping) */
		if (!eq_sym_module_elf(u->sym, m->path, &host) || !host)
			continue;  /* no file here, or not the one recorded */
		fd = eq_sym_module_open(u->sym, host, &err);
		if (fd < 0)
			continue;
		if (!load_bias(fd, m, &bias)) {
			close(fd);
			continue;
		}
		/* add_p_vaddr: base is the bias; fd is the session's now */
		if (dwfl_report_elf(sd->dwfl, m->path, host, fd, bias, true))
			reported++;
		else
			close(fd);
	}
	dwfl_report_end(sd->dwfl, NULL, NULL);
	if (!reported || !dwfl_attach_state(sd->dwfl, NULL, (pid_t)(smp->pid ? smp->pid : 1),
					    &thread_callbacks, sd)) {
		dwfl_end(sd->dwfl);
		sd->dwfl = NULL;
	}
	return sd;
}

/* ---- frames ------------------------------------------------------------- */

/*
 * A pc with no call-frame information for it, in code known to be a leaf
 * that keeps its return address in the link register and never moves the
 * stack pointer: the kernel's arm64 vdso (Debian's 6.1 has no .eh_frame at
 * all; __kernel_clock_gettime and friends) and the linker's PLT stubs
 * (aarch64 ld gives .plt no CFI; each stub is adrp, ldr, add, br).  There
 * libdwfl's fallback walks the frame-pointer chain from the wrong frame:
 * samples in the vdso lost every caller above libc, samples in a stub lost
 * main.  The caller's frame is the sample's registers with the link
 * register's return address as its pc.
 */
static int plt_section(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias, addr = pc;
	Elf_Scn *scn = dwfl_module_address_section(mod, &addr, &bias);
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name;

	if (!scn || !elf || elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getshdr(scn, &sh) ||
	    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
		return 0;
	return !strncmp(name, ".plt", 4) || !strcmp(name, ".iplt");
}

static int has_cfi(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *fr;

	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
		free(fr);
		return 1;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
		free(fr);
		return 1;
	}
	return 0;
}

static int leaf_without_cfi(struct space_dwfl *sd, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(sd->dwfl, pc);
	const char *name = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;

	if (!name || has_cfi(mod, pc))
		return 0;
	return !strcmp(name, "[vdso]") || plt_section(mod, pc);
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct eq_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	if (u->first) {
		u->first = 0;
		/* the interrupted user pc: the sample's own, unless the sample
		 * is in the kernel (then it is where user code entered it) */
		if (pc == u->ip)
			return DWARF_CB_OK;
	}
	/* chains hold return addresses (readers look at - 1): an exact pc
	 * (the first frame, a signal frame) goes in as pc + 1 */
	u->frames[u->n++] = activation ? pc + 1 : pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

struct eq_unwinder *eq_unwinder_new(struct eq_symbolizer *s)
{
	struct eq_unwinder *u = calloc(1, sizeof(*u));

	if (u)
		u->sym = s;
	return u;
}

void eq_unwinder_free(struct eq_unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < 64; i++) {
		struct space_dwfl *sd, *next;

		for (sd = u->spaces[i]; sd; sd = next) {
			next = sd->next;
			if (sd->dwfl)
				dwfl_end(sd->dwfl);
			free(sd);
		}
	}
	free(u);
}

unsigned eq_unwind(struct eq_unwinder *u, const struct eq_sample *smp,
		   const struct eqp_ustack *st, uint64_t *frames, unsigned max)
{
	struct space_dwfl *sd;

	if (!st->abi || !max)
		return 0;
	u->stats.samples++;
	u->arch = eqp_regs_arch(st->arch);
	if (!u->arch || st->abi != u->arch->abi || !reg_of(st, u->arch->sp, &u->sp) ||
	    !reg_of(st, u->arch->pc, &u->ip)) {
		u->stats.unsupported++;
		return 0;
	}
	u->st_pc = u->ip;
	sd = space_for(u, smp);
	if (!sd || !sd->dwfl) {
		u->stats.no_modules++;
		return 0;
	}
	u->st = st;
	u->tid = smp->tid ? smp->tid : smp->pid;
	u->frames = frames;
	u->n = 0;
	u->max = max;
	u->first = !(smp->flags & EQ_F_KERNEL);
	if (smp->flags & EQ_F_KERNEL) {
		u->ip = 0;  /* keep the first user frame: the kernel's caller */
	} else if (u->arch->lr >= 0 && leaf_without_cfi(sd, u->ip)) {
		uint64_t lr;

		if (!reg_of(st, (unsigned)u->arch->lr, &lr) || !lr) {
			u->stats.failed++;
			return 0;
		}
		/* the caller's return address is the chain's first entry;
		 * unwinding goes on from there (frame_cb skips it once) */
		frames[u->n++] = lr;
		u->ip = u->st_pc = lr;
		if (u->n >= u->max) {
			u->stats.unwound++;
			return u->n;
		}
	}
	u->cut = 0;
	if (dwfl_getthread_frames(sd->dwfl, (pid_t)u->tid, frame_cb, u) != 0 && u->n == 0)
		u->stats.failed++;
	if (u->cut && u->n < u->max)
		u->stats.cut++;
	if (u->n)
		u->stats.unwound++;
	return u->n;
}

const struct eq_unwind_stats *eq_unwind_stats(const struct eq_unwinder *u)
{
	return &u->stats;
}
