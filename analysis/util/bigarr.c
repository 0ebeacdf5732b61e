/* bigarr.c - large arrays in few page faults (bigarr.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/bigarr.h"
#include "util/grow.h"

#define HUGE_SZ  ((size_t)2 << 20)   /* a transparent huge page (x86-64, arm64 4K) */
#define BIG_MIN  ((size_t)1 << 18)   /* arrays from this many bytes are mappings */

/* Before every array, keeping its elements 64-byte aligned. */
struct hdr {
	size_t map;    /* bytes mapped from the header on, 0: malloc's block */
	size_t bytes;  /* the elements' bytes */
	char pad[64 - 2 * sizeof(size_t)];
};
_Static_assert(sizeof(struct hdr) == 64, "elements 64-byte aligned");

static struct hdr *hdr_of(const void *p)
{
	return (struct hdr *)((char *)(uintptr_t)p - sizeof(struct hdr));
}

/* bytes rounded up to whole huge pages with the header, or 0 on overflow. */
static size_t map_size(size_t bytes)
{
	if (bytes > SIZE_MAX - sizeof(struct hdr) - HUGE_SZ)
		return 0;
	return (bytes + sizeof(struct hdr) + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
}

/* size bytes (a multiple of HUGE_SZ) of zero pages at a HUGE_SZ boundary, or NULL. */
static void *map_aligned(size_t size)
{
	char *p = mmap(NULL, size + HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;
	size_t head;

	if (p == MAP_FAILED)
		return NULL;
	q = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
	head = (size_t)(q - p);
	if (head)
		munmap(p, head);
	munmap(q + size, HUGE_SZ - head);
	/* where THP is off or unknown the advice fails: 4 KiB pages as ever */
	(void)madvise(q, size, MADV_HUGEPAGE);
	return q;
}

/* An array of bytes: zeroed when zero (mappings always are). */
static void *big_alloc(size_t bytes, int zero)
{
	struct hdr *h;
	size_t map = 0;

	if (EQ_BIG_MAPS && bytes >= BIG_MIN - sizeof(struct hdr)) {
		if (!(map = map_size(bytes)) || !(h = map_aligned(map)))
			return NULL;
	} else {
		h = zero ? calloc(1, sizeof(*h) + bytes) : malloc(sizeof(*h) + bytes);
		if (!h)
			return NULL;
	}
	h->map = map;
	h->bytes = map ? map - sizeof(*h) : bytes;
	return h + 1;
}

static int bytes_of(size_t n, size_t elem, size_t *bytes)
{
	if (!n)
		n = 1;
	if (!elem || n > SIZE_MAX / elem)
		return -1;
	*bytes = n * elem;
	return 0;
}

void *eq_big_calloc(size_t n, size_t elem)
{
	size_t bytes;

	return bytes_of(n, elem, &bytes) ? NULL : big_alloc(bytes, 1);
}

void *eq_big_malloc(size_t n, size_t elem)
{
	size_t bytes;

	return bytes_of(n, elem, &bytes) ? NULL : big_alloc(bytes, 0);
}

/* h's mapping, grown to map bytes by moving its pages to a new aligned
 * mapping (the rest of which is zero): the new header, or NULL with h kept. */
static struct hdr *remap(struct hdr *h, size_t map)
{
	void *q = map_aligned(map);

	if (!q)
		return NULL;
	if (mremap(h, h->map, h->map, MREMAP_MAYMOVE | MREMAP_FIXED, q) != q) {
		munmap(q, map);
		return NULL;
	}
	h = q;
	h->map = map;
	h->bytes = map - sizeof(*h);
	return h;
}

/* h (malloc's, or NULL) grown to bytes, the new bytes zero when zero
 * (a mapping's always are). */
static struct hdr *regrow(struct hdr *h, size_t bytes, int zero)
{
	size_t old = h ? h->bytes : 0;
	struct hdr *n;

	if (h && h->map)
		return map_size(bytes) ? remap(h, map_size(bytes)) : NULL;
	if (!EQ_BIG_MAPS || bytes < BIG_MIN - sizeof(*h)) {
		if (!(n = realloc(h, sizeof(*h) + bytes)))
			return NULL;
		if (zero)
			memset((char *)(n + 1) + old, 0, bytes - old);
		n->map = 0;
		n->bytes = bytes;
		return n;
	}
	if (!(n = big_alloc(bytes, 1)))
		return NULL;
	n--;
	if (h)
		memcpy(n + 1, h + 1, old);
	free(h);
	return n;
}

int eq_big_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first, int zero)
{
	struct hdr *h = *arr ? hdr_of(*arr) : NULL;
	size_t nc, bytes;

	if (need <= *cap && *arr)
		return 0;
	if (!(nc = eq_grow_cap(*cap, need, elem, first)) || bytes_of(nc, elem, &bytes) ||
	    bytes > SIZE_MAX / 2)
		return -1;
	if (!h || bytes > h->bytes) {
		if (!(h = regrow(h, bytes, zero)))
			return -1;
		*arr = h + 1;
	}
	*cap = h->bytes / elem;
	return 0;
}

void eq_big_free(void *p)
{
	struct hdr *h;

	if (!p)
		return;
	h = hdr_of(p);
	if (h->map)
		munmap(h, h->map);
	else
		free(h);
}

size_t eq_big_room(const void *p)
{
	return hdr_of(p)->bytes;
}

size_t eq_big_mapped(const void *p)
{
	return p ? hdr_of(p)->map : 0;
}
