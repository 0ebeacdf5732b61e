/*
 * jit.c - a JIT in miniature: copies a counting loop's machine code into
 * anonymous executable memory, names it "jit_spin" in /tmp/perf-PID.map
 * (the file node --perf-basic-prof writes) and runs it for MS ms of CPU
 * time.  x86-64 only.
 *
 *   jit MS [nomap]     (nomap: the code runs unnamed, no map is written)
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "work.h"

static const unsigned char code[] = {
	0xb9, 0x20, 0x4e, 0x00, 0x00, /* mov $20000, %ecx */
	0xff, 0xc9,                   /* 1: dec %ecx */
	0x75, 0xfc,                   /* jnz 1b */
	0xc3,                         /* ret */
};

int main(int argc, char **argv)
{
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
	char path[64];
	FILE *map;

	if (mem == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < sizeof(code); i++)
		mem[i] = code[i];
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return 1;
	if (argc < 3) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		map = fopen(path, "w");
		if (!map)
			return 1;
		fprintf(map, "%lx %zx jit_spin\n", (unsigned long)mem, sizeof(code));
		fclose(map);
	}
	work_for((void (*)(void))(void *)mem, argc > 1 ? atof(argv[1]) : 300);
	return 0;
}
