/*
 * synth_elf.c - the functions of a real ELF and its maps line, for the
 * benches that write synthetic recordings of it (bench/report/report_bench,
 * bench/speed/speed_rec).
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "synth_elf.h"

static void die(const char *prog, const char *what, const char *msg)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, msg);
	exit(1);
}

/* Every sized function symbol, and the maps text of the PIE at base. */
size_t bench_read_elf(const char *prog, const char *path, uint64_t base, struct func **out,
		      char *maps, size_t maps_size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0, nph, i, used = 0;
	struct func *v = NULL;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)))
		die(prog, path, "cannot read ELF");
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_size || !s.st_value)
				continue;
			if (n == cap && !(v = realloc(v, (cap = cap ? 2 * cap : 1024) * sizeof(*v))))
				die(prog, path, "out of memory");
			v[n++] = (struct func){ s.st_value, s.st_size };
		}
	}
	elf_getphdrnum(elf, &nph);
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		used += (size_t)snprintf(maps + used, maps_size - used,
			"%llx-%llx %c%c%cp %08llx 08:01 1 %s\n",
			(unsigned long long)(base + (ph.p_vaddr & ~0xfffull)),
			(unsigned long long)(base + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffull)),
			ph.p_flags & PF_R ? 'r' : '-', ph.p_flags & PF_W ? 'w' : '-',
			ph.p_flags & PF_X ? 'x' : '-', (unsigned long long)(ph.p_offset & ~0xfffull),
			path);
	}
	elf_end(elf);
	close(fd);
	*out = v;
	return n;
}
