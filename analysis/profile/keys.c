/*
 * keys.c - what rows are: the granularities of --by (and their splits by
 * state, CPU and mode), the sort keys of --sort, and the sample filters of
 * --comm, --dso and --sym.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/agg.h"
#include "profile/profile.h"

static const char *const by_names[] = { "exe", "module", "proc", "line", "insn", "pid",
					 "thread" };
#define NBY (sizeof(by_names) / sizeof(by_names[0]))

int eq_by_parse(const char *text, enum eq_by *by, struct eq_error *err)
{
	size_t i;

	for (i = 0; i < NBY; i++)
		if (!strcmp(text, by_names[i])) {
			*by = (enum eq_by)i;
			return 0;
		}
	return eq_fail(err, "--by %s: unknown granularity; use exe, module, proc, line, insn, pid or thread",
		       text);
}

const char *eq_by_name(enum eq_by by)
{
	if ((unsigned)by & EQ_BY_SPLIT)
		return eq_split_by_name(by);
	return (unsigned)by < NBY ? by_names[by] : "?";
}

static const char *const key_names[] = { "comm", "pid", "tid", "cpu", "dso", "sym",
					  "srcline", "srcfile" };
#define NKEYS (sizeof(key_names) / sizeof(key_names[0]))

const char *eq_key_name(enum eq_key k)
{
	return (unsigned)k < NKEYS ? key_names[k] : "?";
}

int eq_keys_parse(const char *text, struct eq_keys *keys, struct eq_error *err)
{
	const char *p = text;

	memset(keys, 0, sizeof(*keys));
	for (;;) {
		size_t len = strcspn(p, ","), i, j;

		for (i = 0; i < NKEYS; i++)
			if (strlen(key_names[i]) == len && !strncmp(p, key_names[i], len))
				break;
		/* perf's spellings of the same keys */
		if (i == NKEYS && len == 6 && !strncmp(p, "symbol", 6))
			i = EQ_KEY_SYM;
		if (i == NKEYS && len == 6 && !strncmp(p, "thread", 6))
			i = EQ_KEY_TID;
		if (i == NKEYS)
			return eq_fail(err, "--sort %s: unknown key '%.*s'; the keys are comm, pid, "
				       "tid, cpu, dso, sym, srcline and srcfile", text, (int)len, p);
		for (j = 0; j < keys->n; j++)
			if (keys->k[j] == (enum eq_key)i)
				return eq_fail(err, "--sort %s: key '%s' given twice", text, key_names[i]);
		if (keys->n == EQ_KEYS_MAX)
			return eq_fail(err, "--sort %s: at most %d keys", text, EQ_KEYS_MAX);
		keys->k[keys->n++] = (enum eq_key)i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return 0;
}

int eq_keys_need_lines(const struct eq_keys *keys)
{
	unsigned i;

	for (i = 0; keys && i < keys->n; i++)
		if (keys->k[i] == EQ_KEY_SRCLINE || keys->k[i] == EQ_KEY_SRCFILE)
			return 1;
	return 0;
}

int eq_filter_active(const struct eq_filter *f)
{
	return f && (f->ncomm || f->ndso || f->nsym);
}

/* 1 when a pattern matches a or b; hit[] (if given) marks every one that does. */
static int any_match(const char *const *pat, size_t n, const char *a, const char *b,
		     unsigned char *hit)
{
	size_t i;
	int any = 0;

	for (i = 0; i < n; i++)
		if ((a && !fnmatch(pat[i], a, 0)) || (b && !fnmatch(pat[i], b, 0))) {
			any = 1;
			if (!hit)
				break;
			hit[i] = 1;
		}
	return any;
}

int eq_filter_eval(const struct eq_filter *f, const struct eq_loc *loc, const char *thread,
		   int mark)
{
	int keep = 1;

	if (!f)
		return 1;
	if (f->ncomm && !any_match(f->comm, f->ncomm, thread, loc->exe, mark ? f->hit_comm : NULL))
		keep = 0;
	if ((keep || mark) && f->ndso &&
	    !any_match(f->dso, f->ndso, loc->module_base, loc->module, mark ? f->hit_dso : NULL))
		keep = 0;
	if ((keep || mark) && f->nsym &&
	    !any_match(f->sym, f->nsym, (loc->kind == EQ_LOC_RESOLVED || loc->kind == EQ_LOC_IDLE) &&
		       loc->proc ? loc->proc : "[unknown]", NULL, mark ? f->hit_sym : NULL))
		keep = 0;
	return keep;
}

int eq_filter_match(const struct eq_filter *f, const struct eq_loc *loc, const char *thread)
{
	return eq_filter_eval(f, loc, thread, 0);
}

/* ---- groupings split by state, CPU and mode ------------------------------ */

static const struct { const char *name; unsigned bit; } split_names[] = {
	{ "state", EQ_SPLIT_STATE }, { "freq", EQ_SPLIT_FREQ }, { "cstate", EQ_SPLIT_CSTATE },
	{ "cpu", EQ_SPLIT_CPU }, { "mode", EQ_SPLIT_MODE },
};
#define NSPLIT (sizeof(split_names) / sizeof(split_names[0]))

int eq_by_parse_split(const char *text, enum eq_by *by, struct eq_error *err)
{
	char buf[256], *tok, *save = NULL;
	unsigned primary = EQ_BY_NONE, splits = 0, i;
	enum eq_by g = EQ_BY_EXE;  /* set by eq_by_parse (gcc cannot tell) */

	if (!strchr(text, ',')) {
		for (i = 0; i < NSPLIT; i++)
			if (!strcmp(text, split_names[i].name)) {
				*by = EQ_BY_MAKE(EQ_BY_NONE, split_names[i].bit);
				return 0;
			}
		if (eq_by_parse(text, by, NULL) == 0)
			return 0;
		return eq_fail(err, "--by %s: unknown grouping; use exe, module, proc, line, insn, pid or thread, "
			       "or state, freq, cstate, cpu or mode, alone or after exe, module, proc or pid "
			       "(--by exe,state)", text);
	}
	if (strlen(text) >= sizeof(buf))
		return eq_fail(err, "--by %.40s...: too long", text);
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NSPLIT; i++)
			if (!strcmp(tok, split_names[i].name))
				break;
		if (i < NSPLIT) {
			if (splits & split_names[i].bit)
				return eq_fail(err, "--by %s: %s is named twice", text, tok);
			splits |= split_names[i].bit;
			continue;
		}
		if (eq_by_parse(tok, &g, NULL) < 0)
			return eq_fail(err, "--by %s: unknown grouping %s; use exe, module, proc or pid, "
				       "then state, freq, cstate, cpu or mode", text, tok);
		if (primary != EQ_BY_NONE)
			return eq_fail(err, "--by %s: one granularity at most (%s and %s)", text,
				       eq_by_name((enum eq_by)primary), tok);
		if (g != EQ_BY_EXE && g != EQ_BY_MODULE && g != EQ_BY_PROC && g != EQ_BY_PID)
			return eq_fail(err, "--by %s: %s cannot be split by state; split exe, module, proc or pid",
				       text, tok);
		primary = g;
	}
	if (!splits)
		return eq_fail(err, "--by %s: name at least one of state, freq, cstate, cpu or mode", text);
	if ((splits & EQ_SPLIT_STATE) && (splits & (EQ_SPLIT_FREQ | EQ_SPLIT_CSTATE)))
		return eq_fail(err, "--by %s: state is freq and cstate together; name state or them", text);
	*by = EQ_BY_MAKE(primary, splits);
	return 0;
}

const char *eq_split_by_name(enum eq_by by)
{
	/* one string per composite, made on first use */
	static char names[8][32][48];
	unsigned primary = EQ_BY_PRIMARY(by), splits = EQ_BY_SPLITS(by), i;
	char *s;
	size_t len = 0;

	if (primary > EQ_BY_NONE || splits >= 32)
		return "?";
	s = names[primary][splits];
	if (s[0])
		return s;
	if (primary != EQ_BY_NONE)
		len = (size_t)snprintf(s, 48, "%s", eq_by_name((enum eq_by)primary));
	for (i = 0; i < NSPLIT; i++)
		if (splits & split_names[i].bit)
			len += (size_t)snprintf(s + len, 48 - len, "%s%s", len ? "," : "",
						split_names[i].name);
	return s;
}
