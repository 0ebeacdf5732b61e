/*
 * buildid.c - a file's GNU build-id from its notes, without libelf; see
 * buildid.h.  ELF32 and ELF64, either byte order: an arm64 or 32-bit ARM
 * target reads its own files, the notes are found through the program
 * headers (PT_NOTE, what the loader and perf read) or, failing that, the
 * section headers (SHT_NOTE).
 */
#include "record/buildid.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NT_GNU_BUILD_ID_ 3
#define PT_NOTE_ 4
#define SHT_NOTE_ 7

struct elfv {
	const unsigned char *p;
	size_t len;
	int is64, big;
};

static uint64_t get(const struct elfv *e, size_t off, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (off > e->len || e->len - off < n)
		return 0;
	for (i = 0; i < n; i++)
		v |= (uint64_t)e->p[off + (e->big ? i : n - 1 - i)] << (8 * (n - 1 - i));
	return v;
}

/* The build-id among the notes at [off, off + size): 0 when found. */
static int scan_notes(const struct elfv *e, uint64_t off, uint64_t size, char *hex, size_t hsize)
{
	static const char digits[] = "0123456789abcdef";
	uint64_t end = off + size;

	if (off > e->len || size > e->len - off)
		return -1;
	while (off + 12 <= end) {
		uint64_t namesz = get(e, off, 4), descsz = get(e, off + 4, 4), type = get(e, off + 8, 4);
		uint64_t name = off + 12, desc = name + ((namesz + 3) & ~3ull);
		uint64_t next = desc + ((descsz + 3) & ~3ull);

		if (next > end || next <= off)
			return -1;
		if (type == NT_GNU_BUILD_ID_ && namesz == 4 && !memcmp(e->p + name, "GNU", 4) &&
		    descsz && 2 * descsz + 1 <= hsize) {
			uint64_t i;

			for (i = 0; i < descsz; i++) {
				hex[2 * i] = digits[e->p[desc + i] >> 4];
				hex[2 * i + 1] = digits[e->p[desc + i] & 15];
			}
			hex[2 * descsz] = '\0';
			return 0;
		}
		off = next;
	}
	return -1;
}

int rec_build_id_mem(const unsigned char *img, size_t len, char *hex, size_t size)
{
	struct elfv e = { img, len, 0, 0 };
	uint64_t phoff, shoff, i;
	unsigned phentsize, phnum, shentsize, shnum;

	if (len < 52 || memcmp(img, "\177ELF", 4) || (img[4] != 1 && img[4] != 2) ||
	    (img[5] != 1 && img[5] != 2))
		return -1;
	e.is64 = img[4] == 2;
	e.big = img[5] == 2;
	if (e.is64 && len < 64)
		return -1;
	phoff = e.is64 ? get(&e, 32, 8) : get(&e, 28, 4);
	shoff = e.is64 ? get(&e, 40, 8) : get(&e, 32, 4);
	phentsize = (unsigned)get(&e, e.is64 ? 54 : 42, 2);
	phnum = (unsigned)get(&e, e.is64 ? 56 : 44, 2);
	shentsize = (unsigned)get(&e, e.is64 ? 58 : 46, 2);
	shnum = (unsigned)get(&e, e.is64 ? 60 : 48, 2);
	for (i = 0; i < phnum; i++) {
		uint64_t ph = phoff + i * phentsize;

		if (get(&e, ph, 4) != PT_NOTE_)
			continue;
		if (scan_notes(&e, e.is64 ? get(&e, ph + 8, 8) : get(&e, ph + 4, 4),
			       e.is64 ? get(&e, ph + 32, 8) : get(&e, ph + 16, 4), hex, size) == 0)
			return 0;
	}
	for (i = 0; i < shnum; i++) {
		uint64_t sh = shoff + i * shentsize;

		if (get(&e, sh + 4, 4) != SHT_NOTE_)
			continue;
		if (scan_notes(&e, e.is64 ? get(&e, sh + 24, 8) : get(&e, sh + 16, 4),
			       e.is64 ? get(&e, sh + 32, 8) : get(&e, sh + 20, 4), hex, size) == 0)
			return 0;
	}
	return -1;
}

int rec_build_id(const char *path, char *hex, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	struct stat st;
	void *map;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 52) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			rc = rec_build_id_mem(map, (size_t)st.st_size, hex, size);
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return rc;
}
