/*
 * names.c - demangled names and the one name of an address; see names.h.
 */
#include <elf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/intern.h"
#include "symbols/names.h"

const char *eq_name_demangle(struct eq_intern *strings, const char *name)
{
	const char *out;
	char *d;

	/* Itanium C++ and Rust legacy names start _Z, Rust v0 names _R. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!d)
		return name;
	out = eq_intern(strings, d);
	free(d);
	return out;
}

const char *eq_name_unversioned(struct eq_intern *strings, const char *name)
{
	const char *at = strstr(name, "@@");

	return at ? eq_intern_n(strings, name, (size_t)(at - name)) : eq_intern(strings, name);
}

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

int eq_name_alias_cmp(uint64_t size_a, int bind_a, const char *a,
		      uint64_t size_b, int bind_b, const char *b)
{
	int x, y;
	size_t la, lb;

	if (!strcmp(a, b))
		return 0;
	if ((size_a == 0) != (size_b == 0))
		return size_a ? -1 : 1;
	if ((bind_a == STB_WEAK) != (bind_b == STB_WEAK))
		return bind_a == STB_WEAK ? 1 : -1;
	if ((bind_a == STB_GLOBAL) != (bind_b == STB_GLOBAL) &&
	    bind_a != EQ_BIND_UNKNOWN && bind_b != EQ_BIND_UNKNOWN)
		return bind_a == STB_GLOBAL ? -1 : 1;
	/* glibc's hidden alias of a function (hidden_def): never the name */
	x = !strncmp(a, "__GI_", 5);
	y = !strncmp(b, "__GI_", 5);
	if (x != y)
		return x ? 1 : -1;
	x = strchr(a, '@') != NULL;
	y = strchr(b, '@') != NULL;
	if (x != y)
		return x ? 1 : -1;
	x = leading_underscores(a);
	y = leading_underscores(b);
	if (x != y)
		return x < y ? -1 : 1;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(a, b) < 0 ? -1 : 1;
}
