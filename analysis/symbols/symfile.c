/*
 * symfile.c - parser for nm / kallsyms style symbol lists.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symfile.h"
#include "util/grow.h"

static int by_addr(const void *a, const void *b)
{
	const struct eqp_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The line parsers: 1 for a kept symbol, 0 for a skipped one, -1 bad. */
typedef int line_fn(const char *p, const char *end, uint64_t *addr, uint64_t *size,
		    const char **name, size_t *name_len);

/*
 * An Arm mapping symbol ($a, $t, $d, $x, optionally followed by ".anything":
 * ELF for the Arm Architecture, "Mapping symbols"): it marks where code or
 * data of a kind starts and names no function.  arm64 modules' symbols in
 * /proc/kallsyms keep them (Debian's 6.1: "$x" at the same address as
 * eqprof_read), and taken for a name they hid the function's own.
 */
static int arm_mapping_symbol(const char *name, size_t len)
{
	return len >= 2 && name[0] == '$' && strchr("atdx", name[1]) && name[1] &&
	       (len == 2 || name[2] == '.');
}

/* nm / kallsyms: "ADDRESS TYPE NAME [module]", code symbols only. */
static int parse_line(const char *p, const char *end, uint64_t *addr, uint64_t *size,
		      const char **name, size_t *name_len)
{
	uint64_t v = 0;
	int digits = 0;
	char type;

	for (; p < end && isxdigit((unsigned char)*p); p++, digits++) {
		if (digits == 16)
			return -1;
		v = v * 16 + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' :
					tolower((unsigned char)*p) - 'a' + 10);
	}
	if (!digits || p >= end || *p != ' ')
		return -1;
	p++;
	if (p >= end || !isalpha((unsigned char)*p))
		return -1;
	type = *p++;
	if (p >= end || *p != ' ')
		return -1;
	p++;
	*name = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*name_len = (size_t)(p - *name);
	if (!*name_len)
		return -1;
	*addr = v;
	*size = 0;
	if (arm_mapping_symbol(*name, *name_len))
		return 0;
	return strchr("TtWw", type) ? 1 : 0;
}

/* Every line of text through one line parser; what is wrong says expected. */
static int parse_lines(const char *text, size_t len, const char *name, line_fn *line,
		       const char *expected, struct eq_symfile *out, struct eq_error *err)
{
	struct eq_symfile s = { 0 };
	const char *p = text, *end = text + len;
	size_t cap = 0, used = 0;
	unsigned long lineno = 0;

	s.names = malloc(len + 1);
	if (!s.names)
		return eq_fail(err, "%s: out of memory", name);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end, *sym;
		size_t sym_len;
		uint64_t addr, size;
		int rc;

		lineno++;
		if (line_end > p && line_end[-1] == '\r')
			line_end--;
		rc = p == line_end ? 0 : line(p, line_end, &addr, &size, &sym, &sym_len);
		p = nl ? nl + 1 : end;
		if (rc < 0) {
			free(s.syms);
			free(s.names);
			return eq_fail(err, "%s:%lu: expected %s", name, lineno, expected);
		}
		if (rc == 0)
			continue;
		if (EQ_GROW(s.syms, cap, s.n + 1, 256) < 0) {
			free(s.syms);
			free(s.names);
			return eq_fail(err, "%s: out of memory", name);
		}
		memcpy(s.names + used, sym, sym_len);
		s.names[used + sym_len] = '\0';
		s.syms[s.n++] = (struct eqp_symbol){ .addr = addr, .size = size,
						     .name = (const char *)(uintptr_t)used };
		used += sym_len + 1;
	}
	for (size_t i = 0; i < s.n; i++)
		s.syms[i].name = s.names + (uintptr_t)s.syms[i].name;
	if (s.n)
		qsort(s.syms, s.n, sizeof(*s.syms), by_addr);
	*out = s;
	return 0;
}

int eq_symfile_parse(const char *text, size_t len, const char *name,
		     struct eq_symfile *out, struct eq_error *err)
{
	return parse_lines(text, len, name, parse_line,
			   "'ADDRESS TYPE NAME' as printed by nm or /proc/kallsyms", out, err);
}

void eq_symfile_release(struct eq_symfile *s)
{
	free(s->syms);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* One hex number with an optional 0x; p is advanced past it. */
static int hex_field(const char **p, const char *end, uint64_t *v)
{
	int digits = 0;

	*v = 0;
	if (end - *p > 2 && (*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	for (; *p < end && isxdigit((unsigned char)**p); (*p)++, digits++) {
		if (digits == 16)
			return -1;
		*v = *v * 16 + (uint64_t)(isdigit((unsigned char)**p) ? **p - '0' :
					  tolower((unsigned char)**p) - 'a' + 10);
	}
	return digits ? 0 : -1;
}

/* perf-PID.map: "START SIZE NAME", NAME the rest of the line. */
static int perfmap_line(const char *p, const char *end, uint64_t *addr, uint64_t *size,
			const char **name, size_t *name_len)
{
	if (hex_field(&p, end, addr) || p >= end || *p++ != ' ' ||
	    hex_field(&p, end, size) || p >= end || *p++ != ' ' || p == end)
		return -1;
	*name = p;
	*name_len = (size_t)(end - p);
	return 1;
}

int eq_perfmap_parse(const char *text, size_t len, const char *name,
		     struct eq_symfile *out, struct eq_error *err)
{
	return parse_lines(text, len, name, perfmap_line,
			   "'START SIZE NAME' (hex, as a JIT's /tmp/perf-PID.map has)", out, err);
}
