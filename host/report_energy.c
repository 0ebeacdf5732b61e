/*
 * report_energy.c - report's joules per row; see report_energy.h.
 */
#include "report_energy.h"

#include <stdlib.h>
#include <string.h>

#include "eprofile.h"

int eq_report_has_energy(const struct eq_loaded_profile *lp, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!ep_has_energy(lp[i].file))
			return 0;
	return n > 0;
}

struct both {
	const struct eq_report_opts *o;
	const struct eq_profile *profile;
	const struct ep_profile *ep;
	const char *source;
};

/* The time profile's JSON object with an "energy" member added. */
static void print_json(FILE *out, const struct both *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (mem) {
		eq_profile_print(mem, b->profile, EQ_FMT_JSON, b->source);
		fclose(mem);
	}
	while (buf && len && buf[len - 1] != '}')
		len--;
	if (!buf || !len) {
		/* no memory for the splice: the energy alone, still JSON */
		fputs("{\"energy\": ", out);
	} else {
		fwrite(buf, 1, len - 1, out);
		fputs(",\n \"energy\": ", out);
	}
	ep_print_json(out, b->ep);
	fputs("}\n", out);
	free(buf);
}

static void print_both(FILE *out, const void *arg)
{
	const struct both *b = arg;

	switch (b->o->fmt) {
	case EQ_FMT_TABLE:
		eq_profile_print(out, b->profile, EQ_FMT_TABLE, b->source);
		ep_print_table(out, b->ep, b->o->percent_limit);
		break;
	case EQ_FMT_CSV:
		ep_print_csv(out, b->ep);
		break;
	case EQ_FMT_JSON:
		print_json(out, b);
		break;
	}
}

int eq_report_energy(const char *cmd, const struct eq_report_opts *o,
		     const struct eq_loaded_profile *lp, int n, const struct eq_profile *profile)
{
	struct ep_profile *ep[EQ_REPORT_MAX_FILES] = { 0 }, *pooled = NULL;
	struct eq_error err;
	struct both b = { o, profile, NULL, o->files[0] };
	char source[4096];
	int i, rc = 1;

	for (i = 0; i < n; i++) {
		ep[i] = ep_build(lp[i].file, lp[i].sym, o->by, o->exclude_idle, &err);
		if (!ep[i]) {
			fprintf(stderr, "eqprof %s: %s\n", cmd, err.msg);
			goto out;
		}
	}
	if (n > 1) {
		pooled = ep_pool(ep, (size_t)n, &err);
		if (!pooled) {
			fprintf(stderr, "eqprof %s: %s\n", cmd, err.msg);
			goto out;
		}
		snprintf(source, sizeof(source), "%s and %d more recording%s (pooled)", o->files[0],
			 n - 1, n > 2 ? "s" : "");
		b.source = source;
	}
	b.ep = pooled ? pooled : ep[0];
	rc = eq_report_write(cmd, o, NULL, print_both, &b);
out:
	ep_free(pooled);
	for (i = 0; i < n; i++)
		ep_free(ep[i]);
	return rc;
}
