/*
 * kallsyms.c - the running kernel's symbols into the recording; see
 * kallsyms.h.
 */
#include "record/kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/procs.h"
#include "symbols/symfile.h"

/* One module's lines of kallsyms ("ADDR TYPE NAME\t[MOD]"), or the core
 * kernel's (mod NULL: lines without a module), copied into a new text. */
static char *kallsyms_part(const char *text, size_t len, const char *mod, size_t *outlen)
{
	char *out = malloc(len + 1);
	const char *p = text, *end = text + len;
	size_t used = 0, ml = mod ? strlen(mod) : 0;

	if (!out)
		return NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *br;
		size_t ll = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		br = memchr(p, '[', ll);
		if (mod ? (br && (size_t)(p + ll - br) > ml + 1 && !strncmp(br + 1, mod, ml) && br[1 + ml] == ']')
			: !br) {
			memcpy(out + used, p, ll);
			used += ll;
		}
		p += ll;
	}
	out[used] = '\0';
	*outlen = used;
	return out;
}

/* The names of the modules kallsyms lists, "a\0b\0...\0\0". */
static char *kallsyms_modules(const char *text, size_t len)
{
	char *names = calloc(1, 2), *grown;
	size_t used = 0;
	const char *p = text, *end = text + len;

	while (names && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *br, *close;
		size_t ll = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p), ml;

		br = memchr(p, '[', ll);
		close = br ? memchr(br, ']', (size_t)(p + ll - br)) : NULL;
		p += ll;
		if (!close)
			continue;
		ml = (size_t)(close - br - 1);
		{
			const char *q;
			int seen = 0;

			for (q = names; *q && !seen; q += strlen(q) + 1)
				seen = strlen(q) == ml && !strncmp(q, br + 1, ml);
			if (seen || !ml)
				continue;
		}
		grown = realloc(names, used + ml + 2);
		if (!grown) {
			free(names);
			return NULL;
		}
		names = grown;
		memcpy(names + used, br + 1, ml);
		names[used + ml] = '\0';
		names[used + ml + 1] = '\0';
		used += ml + 1;
	}
	return names;
}

/* The kernel pcs to name, when the recorder kept them (NULL: all). */
struct kpcs {
	int all;
	uint64_t *pc;
	size_t n;
};

/*
 * Only the symbols that hold a recorded pc, each with its size up to the
 * next symbol of the full list (so a pc past it is not taken for it): a
 * whole kallsyms is some 5 MB a recording.  Filters syms in place.
 */
static void keep_needed(struct eq_symfile *syms, const struct kpcs *k)
{
	size_t i, j = 0, out = 0;
	unsigned char *want;

	if (k->all || !syms->n)
		return;
	want = calloc(syms->n, 1);
	if (!want)
		return;  /* keep them all */
	for (i = 0; i < k->n; i++) {
		size_t lo = 0, hi = syms->n;

		while (lo < hi) { /* the last symbol at or below the pc */
			size_t mid = (lo + hi) / 2;

			if (syms->syms[mid].addr <= k->pc[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo)
			want[lo - 1] = 1;
	}
	for (j = 0; j < syms->n; j++) {
		if (!want[j])
			continue;
		syms->syms[out] = syms->syms[j];
		if (!syms->syms[out].size && j + 1 < syms->n)
			syms->syms[out].size = syms->syms[j + 1].addr - syms->syms[j].addr;
		out++;
	}
	syms->n = out;
	free(want);
}

/* Each loaded module's symbols as their own table "[MOD]" (absolute
 * addresses), so its samples name the module, as perf's do. */
static int record_module_symbols(struct recorder *rec, const char *text, size_t len,
				 const struct kpcs *k, struct eq_error *err)
{
	char *mods = kallsyms_modules(text, len), *m;
	int rc = 0;

	if (!mods)
		return eq_fail(err, "out of memory reading /proc/kallsyms");
	for (m = mods; *m && rc == 0; m += strlen(m) + 1) {
		struct eq_symfile syms;
		size_t plen;
		char *part = kallsyms_part(text, len, m, &plen), name[300];

		if (!part) {
			rc = eq_fail(err, "out of memory reading /proc/kallsyms");
			break;
		}
		if (eq_symfile_parse(part, plen, "/proc/kallsyms", &syms, err) == 0) {
			keep_needed(&syms, k);
			if (syms.n && syms.syms[0].addr) {
				struct eqp_symtab t;

				snprintf(name, sizeof(name), "[%s]", m);
				t = (struct eqp_symtab){ .module = name, .absolute = 1,
							 .nsyms = syms.n, .syms = syms.syms };
				rc = recorder_add_symtab(rec, &t, err);
			}
			eq_symfile_release(&syms);
		}
		free(part);
	}
	free(mods);
	return rc;
}

int record_kernel_symbols(struct recorder *rec, struct eq_error *err)
{
	struct eq_symfile syms;
	struct eqp_symtab t;
	size_t len, i, clen;
	char *text, *core;
	struct kpcs k = { 0 };
	int rc;

	k.all = recorder_kernel_pcs(rec, &k.pc, &k.n) < 0;
	if (!k.all && !k.n)
		return 0;  /* no kernel pc to name */
	text = record_slurp("/proc/kallsyms", &len);
	if (!text) {
		free(k.pc);
		return eq_fail(err, "/proc/kallsyms: %s: kernel samples will not symbolize", strerror(errno));
	}
	core = kallsyms_part(text, len, NULL, &clen);
	rc = core ? eq_symfile_parse(core, clen, "/proc/kallsyms", &syms, err)
		  : eq_fail(err, "out of memory reading /proc/kallsyms");
	free(core);
	if (rc == 0 && record_module_symbols(rec, text, len, &k, err) < 0) {
		eq_symfile_release(&syms);
		rc = -1;
	}
	free(text);
	if (rc < 0) {
		free(k.pc);
		return -1;
	}
	for (i = 0; i < syms.n && !syms.syms[i].addr; i++)
		;
	if (i == syms.n) {
		eq_symfile_release(&syms);
		free(k.pc);
		return eq_fail(err, "/proc/kallsyms shows no addresses (kernel.kptr_restrict): run as root or set kernel.kptr_restrict=0, or kernel samples will not symbolize");
	}
	keep_needed(&syms, &k);
	free(k.pc);
	for (i = 0; i < syms.n && !syms.syms[i].addr; i++)
		;
	t = (struct eqp_symtab){ .module = "[kernel.kallsyms]", .absolute = 1,
				 .nsyms = syms.n - i, .syms = syms.syms + i };
	rc = t.nsyms ? recorder_add_symtab(rec, &t, err) : 0;
	eq_symfile_release(&syms);
	return rc;
}
