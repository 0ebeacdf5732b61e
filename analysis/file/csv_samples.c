/*
 * csv_samples.c - strict reader of the import CSV.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file/csv_samples.h"

static const char *const fields[6] = { "time_ns", "pc", "pid", "tid", "cpu", "flags" };
static const unsigned long long field_max[6] = {
	UINT64_MAX, UINT64_MAX, UINT32_MAX, UINT32_MAX, UINT16_MAX, UINT16_MAX
};

void eq_csv_reader_init(struct eq_csv_reader *r, FILE *in, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->name = name;
}

void eq_csv_reader_release(struct eq_csv_reader *r)
{
	free(r->line);
	r->line = NULL;
}

/* Parses [p, end) as one unsigned number; hex allowed with 0x for every field. */
static int parse_number(const char *p, const char *end, unsigned long long max,
			unsigned long long *out)
{
	unsigned long long v = 0;
	int base = 10, digits = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; p < end; p++, digits++) {
		int d;

		if (isdigit((unsigned char)*p))
			d = *p - '0';
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = tolower((unsigned char)*p) - 'a' + 10;
		else
			return -1;
		if (v > (max - (unsigned)d) / (unsigned)base)
			return -2;
		v = v * (unsigned)base + (unsigned)d;
	}
	if (!digits)
		return -1;
	*out = v;
	return 0;
}

int eq_csv_parse_line(const char *line, const char *name, unsigned long lineno,
		      struct eq_sample *s, struct eq_error *err)
{
	unsigned long long v[6];
	const char *p = line;
	int i;

	for (i = 0; i < 6; i++) {
		const char *end = strchr(p, ',');
		int rc;

		if (!end)
			end = p + strlen(p);
		if (i < 5 && !*end)
			return eq_fail(err, "%s:%lu: %d fields, expected 6 (%s)", name, lineno,
				       i + 1, EQ_CSV_HEADER);
		if (i == 5 && *end)
			return eq_fail(err, "%s:%lu: more than 6 fields, expected %s", name,
				       lineno, EQ_CSV_HEADER);
		rc = parse_number(p, end, field_max[i], &v[i]);
		if (rc == -2)
			return eq_fail(err, "%s:%lu: field %s: '%.*s' is too large (max %llu)",
				       name, lineno, fields[i], (int)(end - p), p, field_max[i]);
		if (rc)
			return eq_fail(err, "%s:%lu: field %s: '%.*s' is not a number%s", name,
				       lineno, fields[i], (int)(end - p > 40 ? 40 : end - p), p,
				       i == 1 ? " (write pc as 0x hex or decimal)" : "");
		p = end + 1;
	}
	memset(s, 0, sizeof(*s));
	s->time = v[0];
	s->pc = v[1];
	s->pid = (uint32_t)v[2];
	s->tid = (uint32_t)v[3];
	s->cpu = (uint16_t)v[4];
	s->flags = (uint16_t)v[5];
	return 0;
}

static int is_blank_or_comment(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0' || *s == '#';
}

static int check_header(struct eq_csv_reader *r, const char *line, struct eq_error *err)
{
	if (strcmp(line, EQ_CSV_HEADER) != 0)
		return eq_fail(err, "%s:%lu: expected the header line '%s', got '%.60s'",
			       r->name, r->lineno, EQ_CSV_HEADER, line);
	r->header_seen = 1;
	return 0;
}

int eq_csv_next(struct eq_csv_reader *r, struct eq_sample *s, struct eq_error *err)
{
	ssize_t len;

	while ((len = getline(&r->line, &r->cap, r->in)) >= 0) {
		r->lineno++;
		if (len > 0 && r->line[len - 1] == '\n')
			r->line[--len] = '\0';
		if (len > 0 && r->line[len - 1] == '\r')
			r->line[--len] = '\0';
		if ((size_t)len != strlen(r->line))
			return eq_fail(err, "%s:%lu: NUL byte in a text line; is this a CSV file?",
				       r->name, r->lineno);
		if (is_blank_or_comment(r->line))
			continue;
		if (!r->header_seen) {
			if (check_header(r, r->line, err))
				return -1;
			continue;
		}
		return eq_csv_parse_line(r->line, r->name, r->lineno, s, err) ? -1 : 1;
	}
	if (ferror(r->in))
		return eq_fail(err, "%s: read error after line %lu: %s", r->name, r->lineno,
			       strerror(errno));
	if (!r->header_seen)
		return eq_fail(err, "%s: empty: no header line '%s'", r->name, EQ_CSV_HEADER);
	return 0;
}
