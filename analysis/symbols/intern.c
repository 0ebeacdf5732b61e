/*
 * intern.c - open-addressing hash set of strings, stored in large blocks.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/intern.h"
#include "util/bigarr.h"

#define BLOCK_SIZE 65536

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

/* A string and what finds it without reading it (a miss a probe when
 * the strings are many): its hash's low half and its length's. */
struct islot {
	const char *s;       /* NULL = free */
	uint32_t h, len;
};

struct eq_intern {
	struct islot *slots;
	size_t mask, count;  /* mask below 2^32: the slot is h & mask */
	struct block *blocks;
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

struct eq_intern *eq_intern_new(void)
{
	struct eq_intern *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->mask = 255;
	t->slots = eq_big_calloc(t->mask + 1, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void eq_intern_free(struct eq_intern *t)
{
	struct block *b, *next;

	if (!t)
		return;
	for (b = t->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	eq_big_free(t->slots);
	free(t);
}

static char *store(struct eq_intern *t, const char *s, size_t len)
{
	struct block *b = t->blocks;
	char *out;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = t->blocks;
		t->blocks = b;
	}
	out = b->data + b->used;
	memcpy(out, s, len);
	out[len] = '\0';
	b->used += len + 1;
	return out;
}

static int grow(struct eq_intern *t)
{
	size_t newmask = 2 * t->mask + 1, i;
	struct islot *slots;

	if (newmask > UINT32_MAX)
		return -1;
	slots = eq_big_calloc(newmask + 1, sizeof(*slots));
	if (!slots)
		return -1;
	for (i = 0; i <= t->mask; i++) {
		size_t j;

		if (!t->slots[i].s)
			continue;
		for (j = t->slots[i].h & newmask; slots[j].s; j = (j + 1) & newmask)
			;
		slots[j] = t->slots[i];
	}
	eq_big_free(t->slots);
	t->slots = slots;
	t->mask = newmask;
	return 0;
}

const char *eq_intern_n(struct eq_intern *t, const char *s, size_t len)
{
	uint32_t h;
	size_t j;
	char *copy;

	len = strnlen(s, len); /* a string ends at its first NUL */
	if (2 * (t->count + 1) > t->mask && grow(t))
		return NULL;
	h = (uint32_t)hash_bytes(s, len);
	for (j = h & t->mask; t->slots[j].s; j = (j + 1) & t->mask) {
		const struct islot *e = &t->slots[j];

		if (e->h == h && e->len == (uint32_t)len && !strncmp(e->s, s, len) &&
		    e->s[len] == '\0')
			return e->s;
	}
	copy = store(t, s, len);
	if (!copy)
		return NULL;
	t->slots[j] = (struct islot){ copy, h, (uint32_t)len };
	t->count++;
	return copy;
}

const char *eq_intern_copy(struct eq_intern *t, const char *s, size_t len)
{
	return store(t, s, strnlen(s, len));
}

const char *eq_intern(struct eq_intern *t, const char *s)
{
	return eq_intern_n(t, s, strlen(s));
}

const char *eq_internf(struct eq_intern *t, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	return eq_intern_n(t, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}
