/*
 * builtin-sources.c - eqprof sources: the energy sources this machine
 * offers (host/energy/), each domain with how it is read, its resolution,
 * its update period, its wrap-around and whether this user may read it
 * (and what it takes when not).  A machine with none says so and why.
 *
 *   eqprof sources [--probe TIME] [--sysfs DIR] [--format table|csv|json] [-o OUT]
 *
 * --probe reads every readable domain (not the board) for TIME and reports
 * the update period and smallest step it saw.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "cmd.h"
#include "parse-options.h"
#include "energy/energy.h"
#include "file/outfile.h"
#include "profile/table.h"
#include "util/units.h"

struct probe {
	int done;
	double seconds, update_s, min_step;
	unsigned long long readings, changes;
	char how[96];
};

struct listing {
	const struct energy_env *env;
	struct energy_offers offers;
	struct probe *probes;
	char none[4][512];
	const char *names[4];
	enum eq_format fmt;
};

static void probe_all(struct listing *l, double seconds)
{
	struct energy_meter *m[64];
	size_t map[64], n = 0, i, j;
	double t, end;
	struct eq_error err;

	for (i = 0; i < l->offers.n && n < 64; i++) {
		const struct energy_offer *o = &l->offers.v[i];

		if (!o->readable || !strcmp(o->driver, "board"))
			continue;
		m[n] = energy_meter_open(o->spec, l->env, &err);
		if (!m[n]) {
			snprintf(l->probes[i].how, sizeof(l->probes[i].how), "cannot be read");
			continue;
		}
		map[n++] = i;
	}
	end = energy_now() + seconds;
	do {
		for (j = 0; j < n; j++) {
			if (!m[j])
				continue;
			if (energy_meter_read(m[j], &t, &err) < 0) {
				snprintf(l->probes[map[j]].how, sizeof(l->probes[map[j]].how),
					 "read failed");
				energy_meter_close(m[j]);
				m[j] = NULL;
			}
		}
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	} while (energy_now() < end);
	for (j = 0; j < n; j++) {
		struct probe *p = &l->probes[map[j]];
		const struct es_track *k;

		if (!m[j])
			continue;
		k = &m[j]->tracks[0];
		p->done = 1;
		p->seconds = k->t_prev - k->t_first;
		p->readings = k->readings;
		p->changes = k->changes;
		p->min_step = k->min_step;
		p->update_s = es_track_update_s(k, p->how, sizeof(p->how));
		energy_meter_close(m[j]);
	}
}

static const char *qty(char *buf, unsigned size, double v, const char *unit)
{
	if (!(v > 0))
		return "-";
	return eq_format_quantity(buf, size, v, unit);
}

static void print_table(FILE *out, const struct listing *l)
{
	char a[32], b[32], c[32], upd[96];
	size_t i, k;
	int notes = 0;

	if (!l->offers.n) {
		fprintf(out, "No energy source on this machine (sysfs under %s):\n", l->env->sysfs);
		for (k = 0; k < 4; k++)
			fprintf(out, "  %-8s %s\n", l->names[k], l->none[k]);
		fprintf(out, "\neqprof can still make time profiles (eqprof record -t); energy needs "
			"RAPL, a battery gauge,\na power sensor or the eqprof board "
			"(docs/energy-sources.md).\n");
		return;
	}
	fprintf(out, "Energy sources on this machine (sysfs under %s):\n\n", l->env->sysfs);
	fprintf(out, "%-26s %-8s %-26s %-8s %-11s %-30s %-10s %s\n", "--energy", "kind", "reads",
		"type", "resolution", "update", "wraps at", "readable");
	for (i = 0; i < l->offers.n; i++) {
		const struct energy_offer *o = &l->offers.v[i];
		const struct probe *p = &l->probes[i];

		if (o->d.update_s > 0)
			snprintf(upd, sizeof(upd), "%s (%s)", qty(a, sizeof(a), o->d.update_s, "s"),
				 o->d.update_how);
		else
			snprintf(upd, sizeof(upd), "unknown: detected when read");
		fprintf(out, "%-26s %-8s %-26s %-8s %-11s %-30s %-10s %s", o->spec, o->d.kind, o->via,
			es_type_name(o->d.type),
			qty(b, sizeof(b), o->d.resolution, o->d.type == ES_POWER ? "W" : "J"), upd,
			qty(c, sizeof(c), o->d.range, "J"), o->readable ? "yes" : "no");
		if (!o->readable)
			fprintf(out, " [%d]", ++notes);
		fputc('\n', out);
		if (p->done)
			fprintf(out, "%-26s   probed %.1f s: %llu reads, %llu changes; update %s%s%s; "
				"smallest step %s\n", "", p->seconds, p->readings, p->changes,
				p->update_s > 0 ? qty(a, sizeof(a), p->update_s, "s") : "",
				p->update_s > 0 ? " " : "", p->how,
				qty(b, sizeof(b), p->min_step, o->d.type == ES_POWER ? "W" : "J"));
	}
	for (i = 0, notes = 0; i < l->offers.n; i++)
		if (!l->offers.v[i].readable)
			fprintf(out, "[%d] %s: %s\n", ++notes, l->offers.v[i].spec, l->offers.v[i].why);
	for (k = 0; k < 4; k++)
		if (l->none[k][0])
			fprintf(out, "(%s: %s)\n", l->names[k], l->none[k]);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v);
}

static void print_csv(FILE *out, const struct listing *l)
{
	size_t i;

	fprintf(out, "driver,spec,via,domain,kind,type,path,resolution,update_s,update_how,"
		"range_j,readable,why,probe_update_s,probe_min_step\n");
	for (i = 0; i < l->offers.n; i++) {
		const struct energy_offer *o = &l->offers.v[i];
		const struct probe *p = &l->probes[i];

		fprintf(out, "%s,", o->driver);
		eq_csv_field(out, o->spec);
		fputc(',', out);
		eq_csv_field(out, o->via);
		fputc(',', out);
		eq_csv_field(out, o->d.name);
		fprintf(out, ",%s,%s,", o->d.kind, es_type_name(o->d.type));
		eq_csv_field(out, o->d.path);
		fputc(',', out);
		csv_num(out, o->d.resolution);
		fputc(',', out);
		csv_num(out, o->d.update_s);
		fputc(',', out);
		eq_csv_field(out, o->d.update_how);
		fputc(',', out);
		csv_num(out, o->d.range);
		fprintf(out, ",%d,", o->readable);
		eq_csv_field(out, o->why);
		fputc(',', out);
		if (p->done)
			csv_num(out, p->update_s);
		fputc(',', out);
		if (p->done)
			csv_num(out, p->min_step);
		fputc('\n', out);
	}
}

static void print_json(FILE *out, const struct listing *l)
{
	size_t i, k;

	fprintf(out, "{\"sysfs\": ");
	eq_json_string(out, l->env->sysfs);
	fprintf(out, ", \"sources\": [");
	for (i = 0; i < l->offers.n; i++) {
		const struct energy_offer *o = &l->offers.v[i];
		const struct probe *p = &l->probes[i];

		fprintf(out, "%s\n  {\"driver\": \"%s\", \"spec\": ", i ? "," : "", o->driver);
		eq_json_string(out, o->spec);
		fprintf(out, ", \"via\": ");
		eq_json_string(out, o->via);
		fprintf(out, ", \"domain\": ");
		eq_json_string(out, o->d.name);
		fprintf(out, ", \"kind\": \"%s\", \"type\": \"%s\", \"path\": ", o->d.kind,
			es_type_name(o->d.type));
		eq_json_string(out, o->d.path);
		fprintf(out, ", \"resolution\": ");
		eq_json_number(out, o->d.resolution);
		fprintf(out, ", \"update_s\": ");
		eq_json_number(out, o->d.update_s > 0 ? o->d.update_s : NAN);
		fprintf(out, ", \"update_how\": ");
		eq_json_string(out, o->d.update_how);
		fprintf(out, ", \"range_j\": ");
		eq_json_number(out, o->d.range > 0 ? o->d.range : NAN);
		fprintf(out, ", \"readable\": %s, \"why\": ", o->readable ? "true" : "false");
		eq_json_string(out, o->why);
		if (p->done) {
			fprintf(out, ", \"probe\": {\"seconds\": ");
			eq_json_number(out, p->seconds);
			fprintf(out, ", \"readings\": %llu, \"changes\": %llu, \"update_s\": ",
				p->readings, p->changes);
			eq_json_number(out, p->update_s > 0 ? p->update_s : NAN);
			fprintf(out, ", \"how\": ");
			eq_json_string(out, p->how);
			fprintf(out, ", \"min_step\": ");
			eq_json_number(out, p->min_step > 0 ? p->min_step : NAN);
			fprintf(out, "}");
		}
		fprintf(out, "}");
	}
	fprintf(out, "%s], \"none\": {", l->offers.n ? "\n" : "");
	for (k = 0; k < 4; k++) {
		fprintf(out, "%s\"%s\": ", k ? ", " : "", l->names[k]);
		eq_json_string(out, l->none[k]);
	}
	fprintf(out, "}}\n");
}

static int opt_probe(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	double *probe = opt->value;

	if (eq_parse_quantity(arg, "s", "--probe", probe, err) < 0 || !(*probe >= 0 && *probe <= 3600))
		return eq_fail(err, "--probe takes a time up to 1h ('2s')");
	return 0;
}

static int opt_format(const struct eq_option *opt, const char *arg, struct eq_error *err)
{
	return eq_format_parse(arg, opt->value, err);
}

int cmd_sources(int argc, char **argv)
{
	struct energy_env env;
	struct listing l;
	struct eq_outfile out;
	struct eq_error err;
	const char *sysfs = NULL, *outpath = NULL;
	double probe = 0;
	int k, rc = 1;

	const struct eq_option options[] = {
		OPT_CALLBACK(0, "probe", &probe, "TIME",
			     "read each readable domain for TIME (e.g. 2s; 60s for a battery)\n"
			     "and report the update period and smallest step seen", opt_probe),
		{ .type = EQ_OPTION_STRING, .long_name = "sysfs", .value = &sysfs, .argh = "DIR",
		  .complete = EQ_COMPLETE_DIR,
		  .help = "read sysfs under DIR instead of /sys (also $EQPROF_SYSFS)" },
		{ .type = EQ_OPTION_CALLBACK, .long_name = "format", .value = &l.fmt, .argh = "F",
		  .cb = opt_format, .complete = "table csv json",
		  .help = "table (default), csv or json (schema in docs/energy-sources.md)" },
		{ .type = EQ_OPTION_STRING, .short_name = 'o', .long_name = "output", .value = &outpath,
		  .argh = "OUT", .complete = EQ_COMPLETE_FILE,
		  .help = "write to OUT (atomically) instead of standard output" },
		OPT_QUIET(NULL, "no notes (warnings are still said)"),
		OPT_VERBOSE(NULL, "notes in full"),
		OPT_END(),
	};
	const struct eq_command cmd = {
		.name = "sources", .options = options, .usage = "eqprof sources [options]\n",
		.about = "Lists the energy sources this machine offers: RAPL (powercap, perf power PMU),\n"
			 "batteries, hwmon power sensors and eqprof boards, with resolution, update period\n"
			 "and the permission each needs.\n",
	};
	int n;

	memset(&l, 0, sizeof(l));
	n = eq_parse_options(&cmd, argc, argv, NULL);
	if (n < 0)
		return EQ_PARSE_STATUS(n);
	if (n)
		return eq_usage_error(&cmd, 0, "unexpected argument '%s'", argv[0]);
	energy_env_init(&env, sysfs);
	l.env = &env;
	for (k = 0; energy_drivers[k]; k++) {
		l.names[k] = energy_drivers[k]->name;
		if (energy_drivers[k]->list(&env, &l.offers, l.none[k], sizeof(l.none[k]), &err) < 0) {
			eq_error_msg("%s", err.msg);
			goto out;
		}
	}
	l.probes = calloc(l.offers.n ? l.offers.n : 1, sizeof(*l.probes));
	if (!l.probes) {
		eq_error_msg("out of memory");
		goto out;
	}
	if (probe > 0)
		probe_all(&l, probe);
	if (eq_outfile_open(&out, outpath ? outpath : "-", &err) < 0) {
		eq_error_msg("%s", err.msg);
		goto out;
	}
	if (l.fmt == EQ_FMT_JSON)
		print_json(out.fp, &l);
	else if (l.fmt == EQ_FMT_CSV)
		print_csv(out.fp, &l);
	else
		print_table(out.fp, &l);
	if (eq_outfile_commit(&out, &err) < 0) {
		eq_error_msg("%s", err.msg);
		goto out;
	}
	rc = 0;
out:
	free(l.probes);
	energy_offers_free(&l.offers);
	return rc;
}
