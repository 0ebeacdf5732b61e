/*
 * view_json.c - a folded recording as the page's JSON (docs/viewer.md,
 * "The page's data").  Big arrays go as base64: dense ones as little-endian
 * typed arrays (float64, uint32), per-bucket lists as LEB128 varint streams
 * (most counts fit a byte), which the page decodes once when it opens.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_priv.h"

void eq_view_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', out);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* ---- base64 ---------------------------------------------------------------- */

struct b64 {
	FILE *out;
	unsigned char buf[3];
	int n;
};

static const char b64c[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_flush3(struct b64 *b)
{
	unsigned v = (unsigned)b->buf[0] << 16 | (unsigned)b->buf[1] << 8 | b->buf[2];
	char q[4] = { b64c[v >> 18], b64c[(v >> 12) & 63], b64c[(v >> 6) & 63], b64c[v & 63] };

	if (b->n < 3)
		q[3] = '=';
	if (b->n < 2)
		q[2] = '=';
	fwrite(q, 1, 4, b->out);
	b->n = 0;
}

static void b64_begin(struct b64 *b, FILE *out)
{
	b->out = out;
	b->n = 0;
	fputc('"', out);
}

static void b64_byte(struct b64 *b, unsigned char c)
{
	b->buf[b->n++] = c;
	if (b->n == 3)
		b64_flush3(b);
}

static void b64_end(struct b64 *b)
{
	if (b->n) {
		memset(b->buf + b->n, 0, 3 - (size_t)b->n);
		b64_flush3(b);
	}
	fputc('"', b->out);
}

static void b64_varint(struct b64 *b, uint64_t v)
{
	while (v >= 0x80) {
		b64_byte(b, (unsigned char)(v | 0x80));
		v >>= 7;
	}
	b64_byte(b, (unsigned char)v);
}

/* ---- typed arrays ---------------------------------------------------------- */

static void f64s(FILE *out, const char *key, const double *v, size_t n)
{
	struct b64 b;
	size_t i;
	int k;

	fprintf(out, ",\n  \"%s\": ", key);
	b64_begin(&b, out);
	for (i = 0; i < n; i++) {
		uint64_t bits;

		memcpy(&bits, &v[i], 8);
		for (k = 0; k < 8; k++)
			b64_byte(&b, (unsigned char)(bits >> (8 * k)));
	}
	b64_end(&b);
}

static void u32s(FILE *out, const char *key, const uint32_t *v, size_t n)
{
	struct b64 b;
	size_t i;
	int k;

	fprintf(out, ",\n  \"%s\": ", key);
	b64_begin(&b, out);
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			b64_byte(&b, (unsigned char)(v[i] >> (8 * k)));
	b64_end(&b);
}

/* int32 with -1 for none, as varints of value + 1. */
static void i32_varints(FILE *out, const char *key, const int32_t *v, size_t n)
{
	struct b64 b;
	size_t i;

	fprintf(out, ", \"%s\": ", key);
	b64_begin(&b, out);
	for (i = 0; i < n; i++)
		b64_varint(&b, (uint64_t)((int64_t)v[i] + 1));
	b64_end(&b);
}

/* The number of entries in all, then per bucket the number of entries and
 * each entry with its first number as the difference to the previous
 * entry's (ascending in a bucket). */
static void csr_varints(FILE *out, const char *key, const struct vcsr *c, size_t nb)
{
	struct b64 b;
	size_t k, j;
	unsigned w;

	fprintf(out, ", \"%s\": ", key);
	b64_begin(&b, out);
	b64_varint(&b, c->n);   /* entries in all: the reader allocates once */
	for (k = 0; k < nb; k++) {
		uint32_t prev = 0;

		b64_varint(&b, c->off[k + 1] - c->off[k]);
		for (j = c->off[k]; j < c->off[k + 1]; j++) {
			const uint32_t *e = c->v + j * c->width;

			b64_varint(&b, e[0] - prev);
			prev = e[0];
			for (w = 1; w < c->width; w++)
				b64_varint(&b, e[w]);
		}
	}
	b64_end(&b);
}

static void num(FILE *out, const char *key, double v)
{
	fprintf(out, ", \"%s\": ", key);
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	else
		fputs("null", out);
}

static const char *basis_name(enum power_basis b)
{
	switch (b) {
	case POWER_BASIS_SAMPLES: return "samples";
	case POWER_BASIS_BOARD: return "board";
	case POWER_BASIS_SOURCE: return "source";
	default: return "none";
	}
}

static void header(FILE *out, const struct eq_view *v)
{
	fputs("{\"name\": ", out);
	eq_view_json_string(out, v->name);
	fputs(", \"path\": ", out);
	eq_view_json_string(out, v->path);
	fprintf(out, ", \"mode\": \"%s\", \"basis\": \"%s\"",
		v->mode == EQP_MODE_ENERGY ? "energy" : "time", basis_name(v->basis));
	if (!v->has_power) {
		fputs(", \"why_none\": ", out);
		eq_view_json_string(out, v->why_none);
	}
	fputs(", \"target\": ", out);
	eq_view_json_string(out, v->target);
	if (v->note) {
		fputs(", \"note\": ", out);
		eq_view_json_string(out, v->note);
	}
	num(out, "quantum_j", v->quantum_j > 0 ? v->quantum_j : NAN);
	num(out, "period_s", v->period_s > 0 ? v->period_s : NAN);
	num(out, "nominal_hz", v->nominal_hz > 0 ? v->nominal_hz : NAN);
	num(out, "clock_hz", v->clock_hz);
	fprintf(out, ", \"decimals\": %d, \"nsamples\": %llu, \"lost\": %llu", v->decimals,
		(unsigned long long)v->nsamples, (unsigned long long)v->lost_total);
	num(out, "span_s", v->span_s);
	fprintf(out, ", \"nb\": %zu, \"w_ticks\": %llu", v->nb, (unsigned long long)v->w);
	num(out, "cov_a", v->has_power ? v->cov_a : NAN);
	num(out, "cov_b", v->has_power ? v->cov_b : NAN);
	fprintf(out, ", \"idle_known\": %s, \"chains\": %s, \"with_chain\": %llu",
		v->idle_known ? "true" : "false", v->chains ? "true" : "false",
		(unsigned long long)v->with_chain);
	fprintf(out, ", \"stalls\": %llu", (unsigned long long)v->stalls);
	num(out, "stall_s", v->stall_s);
}

static void markers(FILE *out, const struct eq_view *v)
{
	size_t i;

	fputs(",\n  \"markers\": [", out);
	for (i = 0; i < v->nmarkers; i++) {
		fprintf(out, "%s[%.17g, ", i ? ", " : "", v->marker_t[i]);
		eq_view_json_string(out, v->marker_label[i]);
		fputc(']', out);
	}
	fputs("], \"resets\": [", out);
	for (i = 0; i < v->nresets; i++)
		fprintf(out, "%s%.17g", i ? ", " : "", v->resets[i]);
	fputc(']', out);
}

static const char *const group_names[EQ_VIEW_NGROUP] = { "exe", "module", "proc", "line" };

static void groups(FILE *out, const struct eq_view *v)
{
	int gi;
	size_t i;

	fputs(",\n  \"groups\": [", out);
	for (gi = 0; gi < v->ngroups; gi++) {
		const struct vgroup *g = &v->g[gi];

		fprintf(out, "%s\n   {\"by\": \"%s\", \"rows\": [", gi ? "," : "", group_names[gi]);
		for (i = 0; i < eq_agg_nrows(g->agg); i++) {
			const char *name, *module;

			eq_agg_row_name(g->agg, i, &name, &module);
			fputs(i ? ", [" : "[", out);
			eq_view_json_string(out, name);
			fputs(", ", out);
			eq_view_json_string(out, module);
			fputc(']', out);
		}
		fputc(']', out);
		csr_varints(out, "csr", &g->csr, v->nb);
		i32_varints(out, "edges", g->edge_rows, 4 * (v->nb + 1));
		fputc('}', out);
	}
	fputc(']', out);
}

static void stacks(FILE *out, const struct eq_view *v)
{
	struct b64 b;
	size_t i;

	fputs(",\n  \"stacks\": ", out);
	b64_begin(&b, out);
	b64_varint(&b, v->nstacks);
	for (i = 0; i < v->stk_n; i++)
		b64_varint(&b, v->stk[i]);
	b64_end(&b);
	csr_varints(out, "stack_csr", &v->scsr, v->nb);
}

int eq_view_write_json(FILE *out, const struct eq_view *v, struct eq_error *err)
{
	size_t k, nb = v->nb;
	int drops = 0;

	header(out, v);
	markers(out, v);
	if (v->has_power) {
		f64s(out, "e", v->e, nb);
		u32s(out, "nint", v->nint, nb);
		u32s(out, "nidle_int", v->nidle_int, nb);
		f64s(out, "pmin", v->pmin, nb);
		f64s(out, "pmax", v->pmax, nb);
		f64s(out, "se", v->se, nb + 1);
		f64s(out, "sa", v->sa, nb + 1);
		f64s(out, "sb", v->sb, nb + 1);
		csr_varints(out, "hist", &v->hist, nb);
		for (k = 0; k < nb; k++)
			drops |= v->board_drops[k] != 0;
		if (drops)
			u32s(out, "board_drops", v->board_drops, nb);
	}
	u32s(out, "ns", v->ns, nb);
	u32s(out, "nidle", v->nidle, nb);
	u32s(out, "nlost", v->nlost, nb);
	if (v->mode == EQP_MODE_TIME) {
		f64s(out, "dtn", v->dtn, nb);
		f64s(out, "dts", v->dts, nb);
		f64s(out, "dts2", v->dts2, nb);
		f64s(out, "xdt", v->xdt, nb + 1);
	}
	i32_varints(out, "edge_bk", v->edge_bk, 2 * (nb + 1));
	groups(out, v);
	stacks(out, v);
	fputs("}", out);
	if (ferror(out))
		return eq_fail(err, "%s: writing the page's data failed", v->path);
	return 0;
}

/* ---- the page ------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len, struct eq_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f) {
		eq_fail(err, "%s: cannot read the viewer page: %m", path);
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
		eq_fail(err, "%s: cannot read the viewer page", path);
	}
	fclose(f);
	return buf;
}

int eq_view_write_page(FILE *out, const char *template_path,
		       int (*data)(FILE *out, void *arg, struct eq_error *err), void *arg,
		       struct eq_error *err)
{
	size_t len, plen = strlen(EQ_VIEW_PLACEHOLDER);
	char *page = slurp(template_path, &len, err), *at;
	int rc = -1;

	if (!page)
		return -1;
	at = strstr(page, EQ_VIEW_PLACEHOLDER);
	if (!at || strstr(at + plen, EQ_VIEW_PLACEHOLDER)) {
		eq_fail(err, "%s: not an eqprof viewer page (its data placeholder %s is %s); "
			"rebuild it with 'make viewer'", template_path, EQ_VIEW_PLACEHOLDER,
			at ? "there twice" : "missing");
		goto out;
	}
	fwrite(page, 1, (size_t)(at - page), out);
	if (data(out, arg, err) < 0)
		goto out;
	fwrite(at + plen, 1, len - (size_t)(at - page) - plen, out);
	if (ferror(out)) {
		eq_fail(err, "writing the page failed");
		goto out;
	}
	rc = 0;
out:
	free(page);
	return rc;
}
