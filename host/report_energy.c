/*
 * report_energy.c - report's joules per row; see report_energy.h.
 */
#include "report_energy.h"
#include "cmd.h"

#include <stdlib.h>
#include <string.h>

#include "energy/eprofile.h"

int eq_report_has_energy(const struct eq_loaded_profile *lp, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (lp[i].ranged || !ep_has_energy(lp[i].file))
			return 0;  /* --from/--to: the source's joules are of whole runs */
	return n > 0;
}

struct both {
	const struct eq_report_opts *o;
	const struct eq_profile *profile;
	const struct ep_profile *ep;
	const char *source;
	/* with call chains: the inclusive profile's printer instead */
	void (*first)(FILE *out, const void *arg);
	const void *first_arg;
};

/* The time profile (flat, or the inclusive one) in the options' format. */
static void print_first(FILE *out, const struct both *b, enum eq_format fmt)
{
	if (b->first)
		b->first(out, b->first_arg);
	else
		eq_profile_print(out, b->profile, fmt, b->source);
}

static void first_json(FILE *out, const void *arg)
{
	print_first(out, arg, EQ_FMT_JSON);
}

static void energy_json(FILE *out, const void *arg)
{
	ep_print_json(out, arg);
}

/* The time profile's JSON object with an "energy" member added. */
static void print_json(FILE *out, const struct both *b)
{
	eq_json_add_member(out, first_json, b, "energy", energy_json, b->ep);
}

static void print_both(FILE *out, const void *arg)
{
	const struct both *b = arg;

	switch (b->o->fmt) {
	case EQ_FMT_TABLE:
		print_first(out, b, EQ_FMT_TABLE);
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

int eq_report_energy(const struct eq_report_opts *o,
		     const struct eq_loaded_profile *lp, int n, const struct eq_profile *profile)
{
	struct ep_profile *ep[EQ_REPORT_MAX_FILES] = { 0 }, *pooled = NULL;
	struct eq_error err;
	struct both b = { o, profile, NULL, o->files[0], NULL, NULL };
	char source[4096];
	int i, rc = 1;

	for (i = 0; i < n; i++) {
		ep[i] = ep_build(lp[i].file, lp[i].sym, o->by, o->exclude_idle, &err);
		if (!ep[i]) {
			eq_error_msg("%s", err.msg);
			goto out;
		}
	}
	if (n > 1) {
		pooled = ep_pool(ep, (size_t)n, &err);
		if (!pooled) {
			eq_error_msg("%s", err.msg);
			goto out;
		}
		snprintf(source, sizeof(source), "%s and %d more recording%s (pooled)", o->files[0],
			 n - 1, n > 2 ? "s" : "");
		b.source = source;
	}
	b.ep = pooled ? pooled : ep[0];
	rc = eq_report_write(o, NULL, print_both, &b);
out:
	ep_free(pooled);
	for (i = 0; i < n; i++)
		ep_free(ep[i]);
	return rc;
}

int eq_report_energy_children(const struct eq_report_opts *o,
			      const struct eq_loaded_profile *lp,
			      void (*print_cg)(FILE *out, const void *arg), const void *arg)
{
	struct both b = { o, NULL, NULL, o->files[0], print_cg, arg };
	struct ep_profile *ep;
	struct eq_error err;
	int rc;

	ep = ep_build_children(lp->file, lp->sym, o->exclude_idle, &err);
	if (!ep) {
		eq_error_msg("%s", err.msg);
		return 1;
	}
	b.ep = ep;
	rc = eq_report_write(o, NULL, print_both, &b);
	ep_free(ep);
	return rc;
}
