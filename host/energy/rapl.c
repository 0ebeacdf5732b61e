/*
 * rapl.c - RAPL (Running Average Power Limit) energy counters of Intel and
 * AMD processors, two ways:
 *
 * powercap (default): the kernel's intel_rapl driver (also for AMD family
 * 17h and later) exposes a zone per package and subzones per domain:
 *
 *   /sys/class/powercap/intel-rapl:0/       name "package-0", energy_uj,
 *                                           max_energy_range_uj
 *   /sys/class/powercap/intel-rapl:0:0/     name "core"    (PP0)
 *   /sys/class/powercap/intel-rapl:0:1/     name "uncore"  (PP1: the GPU on
 *                                           client parts)
 *   /sys/class/powercap/intel-rapl:0:2/     name "dram"
 *   /sys/class/powercap/intel-rapl:1/       name "psys" (or package-1 on a
 *                                           second socket)
 *   /sys/class/powercap/intel-rapl-mmio:0/  the package again through MMIO
 *
 * energy_uj counts microjoules and wraps to 0 after max_energy_range_uj (the
 * hardware's 32-bit counter in its energy unit of 15.3 or 61 uJ); it is
 * updated about every millisecond (Intel SDM vol. 3B, 15.10.3).  Since
 * Linux 5.10 energy_uj is readable by root only (CVE-2020-8694).
 *
 * perf (rapl:perf): the `power` PMU, events energy-pkg, energy-cores,
 * energy-gpu, energy-ram and energy-psys counted system-wide on one CPU of
 * each package (its cpumask); counts times the event's .scale are joules and
 * the kernel extends them to 64 bits, so they do not wrap.  Needs
 * perf_event_paranoid <= 0 or CAP_PERFMON.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "energy.h"

#define RAPL_UPDATE_S 1e-3
#define RAPL_UPDATE_HOW "Intel SDM: about 1 ms"
#define MAX_ZONES 64
#define MAX_SOCKETS 16

struct zone {
	char id[64];         /* "intel-rapl:0:1" */
	char dir[512];
	char name[64];       /* as the domain is called: "uncore-0" */
	char kind[16];
	int mmio;
	int readable;
	char why[640];       /* not readable: the real reason, with what to do */
	long long range_uj;
};

struct rapl_priv {
	int perf;
	size_t n;
	int fds[MAX_ZONES];
	double scale[MAX_ZONES];
	char files[MAX_ZONES][512];
};

static const char *powercap_dir(char *buf, size_t size, const struct energy_env *env)
{
	return energy_path(buf, size, env, "class/powercap");
}

/* "package-0" -> "package", socket 0; "core" -> "core", -1. */
static void split_name(const char *name, char *kind, size_t ksize, int *socket)
{
	const char *dash = strrchr(name, '-');

	*socket = -1;
	if (dash && dash[1] >= '0' && dash[1] <= '9') {
		energy_fmt(kind, ksize, "%.*s", (int)(dash - name), name);
		*socket = atoi(dash + 1);
	} else {
		energy_fmt(kind, ksize, "%s", name);
	}
}

static int zone_cmp(const void *a, const void *b)
{
	const struct zone *x = a, *y = b;

	if (x->mmio != y->mmio)
		return x->mmio - y->mmio;
	return strcmp(x->id, y->id);
}

#define PERMISSION_WHY "energy_uj is readable by root only since Linux 5.10 (CVE-2020-8694): " \
	"run as root, or let a group read it (docs/energy-sources.md)"

/* 1 when a zone's counter reads as a number; else 0 and why, with what to do. */
static int zone_probe(const char *path, char *why, size_t size)
{
	char what[560];

	switch (energy_probe_value(path, what, sizeof(what))) {
	case ENERGY_READABLE:
		why[0] = '\0';
		return 1;
	case ENERGY_MISSING:
		energy_fmt(why, size, "%s: the kernel's powercap zone has no counter for this domain "
			   "(this CPU or its firmware does not report it)", what);
		break;
	case ENERGY_DENIED:
		energy_fmt(why, size, "%s: " PERMISSION_WHY, what);
		break;
	case ENERGY_GARBAGE:
		energy_fmt(why, size, "%s: the driver's counter is broken (check the kernel's "
			   "intel_rapl driver)", what);
		break;
	default:
		energy_fmt(why, size, "%s", what);
		break;
	}
	return 0;
}

/* Every intel-rapl zone under the powercap class; *n gets their number. */
static int find_zones(const struct energy_env *env, struct zone *z, size_t *n,
		      struct eq_error *err)
{
	char dir[512], path[600], name[64], top[64];
	struct dirent *de;
	size_t i, j;
	DIR *d;

	*n = 0;
	d = opendir(powercap_dir(dir, sizeof(dir), env));
	if (!d)
		return eq_fail(err, "no RAPL through powercap: %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) && *n < MAX_ZONES) {
		int mmio = !strncmp(de->d_name, "intel-rapl-mmio:", 16);

		if (strncmp(de->d_name, "intel-rapl:", 11) && !mmio)
			continue;
		memset(&z[*n], 0, sizeof(z[0]));
		energy_fmt(z[*n].id, sizeof(z[0].id), "%s", de->d_name);
		energy_fmt(z[*n].dir, sizeof(z[0].dir), "%s/%s", dir, de->d_name);
		z[*n].mmio = mmio;
		(*n)++;
	}
	closedir(d);
	qsort(z, *n, sizeof(z[0]), zone_cmp);
	for (i = 0; i < *n; i++) {
		struct eq_error e;
		int sock, colons = 0;
		const char *c;

		energy_fmt(path, sizeof(path), "%s/name", z[i].dir);
		if (energy_read_text(path, name, sizeof(name), &e) < 0)
			energy_fmt(name, sizeof(name), "%s", z[i].id);
		split_name(name, z[i].kind, sizeof(z[i].kind), &sock);
		for (c = z[i].id; *c; c++)
			colons += *c == ':';
		if (colons >= 2) {
			/* a subzone: named after its package's socket */
			energy_fmt(top, sizeof(top), "%.*s", (int)(strrchr(z[i].id, ':') - z[i].id),
				 z[i].id);
			sock = -1;
			for (j = 0; j < *n; j++)
				if (!strcmp(z[j].id, top)) {
					char k[16];

					split_name(z[j].name, k, sizeof(k), &sock);
					break;
				}
		}
		if (sock >= 0 && strcmp(z[i].kind, "psys"))
			energy_fmt(z[i].name, sizeof(z[i].name), "%s-%d", z[i].kind, sock);
		else
			energy_fmt(z[i].name, sizeof(z[i].name), "%s", z[i].kind);
		energy_fmt(path, sizeof(path), "%s/max_energy_range_uj", z[i].dir);
		if (energy_read_ll(path, &z[i].range_uj, &e) < 0)
			z[i].range_uj = 0;
		energy_fmt(path, sizeof(path), "%s/energy_uj", z[i].dir);
		z[i].readable = zone_probe(path, z[i].why, sizeof(z[i].why));
	}
	/* The MMIO package zone counts the same energy as the MSR one. */
	for (i = 0; i < *n; i++) {
		if (!z[i].mmio)
			continue;
		for (j = 0; j < *n; j++)
			if (!z[j].mmio && !strcmp(z[j].name, z[i].name)) {
				z[i].name[0] = '\0';
				break;
			}
	}
	return 0;
}

static void fill_domain(struct es_domain *d, const struct zone *z)
{
	memset(d, 0, sizeof(*d));
	energy_fmt(d->name, sizeof(d->name), "%s", z->name);
	energy_fmt(d->kind, sizeof(d->kind), "%s", z->kind);
	energy_fmt(d->path, sizeof(d->path), "%s/energy_uj", z->dir);
	d->type = ES_COUNTER;
	d->range = z->range_uj > 0 ? z->range_uj * 1e-6 : 0;
	d->resolution = 1e-6;
	d->update_s = RAPL_UPDATE_S;
	energy_fmt(d->update_how, sizeof(d->update_how), RAPL_UPDATE_HOW);
}

/* Is name in the comma-separated list sel (NULL: everything)? */
static int selected(const char *sel, const char *name)
{
	size_t len = strlen(name);
	const char *p = sel;

	if (!sel)
		return 1;
	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);

		if (l == len && !strncmp(p, name, len))
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

static int open_powercap(struct energy_source *src, struct rapl_priv *p, const char *sel,
			 const struct energy_env *env, struct eq_error *err)
{
	struct zone z[MAX_ZONES];
	size_t n, i, k = 0, left = 0, matched = 0, first = 0;

	if (find_zones(env, z, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!z[i].name[0] || !selected(sel, z[i].name))
			continue;
		matched++;
		if (!z[i].readable) {
			/* a domain asked for by name must be read */
			if (sel)
				return eq_fail(err, "rapl %s cannot be read: %s", z[i].name, z[i].why);
			if (!left++)
				first = i;
			continue;
		}
		k++;
	}
	if (!n)
		return eq_fail(err, "no RAPL through powercap: %s/class/powercap has no intel-rapl zones "
			       "(no RAPL on this CPU, a virtual machine, or the intel_rapl_msr module "
			       "is not loaded)", env->sysfs);
	if (sel && matched == 0)
		return eq_fail(err, "rapl: no domain called '%s' under %s/class/powercap "
			       "('eqprof sources' lists them)", sel, env->sysfs);
	if (!k)
		return eq_fail(err, "rapl: none of the %zu domains can be read; %s: %s%s", left,
			       z[first].name, z[first].why,
			       left > 1 ? " ('eqprof sources' says why for each)" : "");
	if (energy_source_domains(src, k, err) < 0)
		return -1;
	for (i = 0, k = 0; i < n; i++) {
		if (!z[i].name[0] || !selected(sel, z[i].name))
			continue;
		if (!z[i].readable) {
			/* left out of "every domain": the results lack it */
			energy_warn_left_out(src, z[i].name, z[i].why);
			continue;
		}
		fill_domain(&src->domains[k], &z[i]);
		energy_fmt(p->files[k], sizeof(p->files[k]), "%s", src->domains[k].path);
		k++;
	}
	p->n = k;
	return 0;
}

/* ---- perf's power PMU ------------------------------------------------------ */

struct perf_event_desc {
	const char *event;   /* energy-pkg */
	const char *kind;    /* package */
};

static const struct perf_event_desc perf_events[] = {
	{ "energy-pkg", "package" }, { "energy-cores", "core" }, { "energy-gpu", "gpu" },
	{ "energy-ram", "dram" }, { "energy-psys", "psys" },
};
#define NPERF_EVENTS (sizeof(perf_events) / sizeof(perf_events[0]))

struct pmu {
	char dir[512];
	int type;
	int cpus[MAX_SOCKETS];
	int ncpus;
	int have[NPERF_EVENTS];
	unsigned long long config[NPERF_EVENTS];
	double scale[NPERF_EVENTS];
};

/* "0,28" or "0-1" -> cpus. */
static int parse_cpumask(const char *text, int *cpus, int max)
{
	int n = 0;
	const char *p = text;

	while (*p && n < max) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p)
			return -1;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				return -1;
		}
		for (; a <= b && n < max; a++)
			cpus[n++] = (int)a;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return n;
}

static int find_pmu(const struct energy_env *env, struct pmu *u, struct eq_error *err)
{
	char path[700], text[128];
	long long type;
	size_t i;
	int any = 0;

	memset(u, 0, sizeof(*u));
	energy_path(u->dir, sizeof(u->dir), env, "bus/event_source/devices/power");
	energy_fmt(path, sizeof(path), "%s/type", u->dir);
	if (access(u->dir, F_OK))
		return eq_fail(err, "no perf power PMU: %s is missing (no RAPL, or a virtual machine)",
			       u->dir);
	if (energy_read_ll(path, &type, err) < 0)
		return -1;
	u->type = (int)type;
	energy_fmt(path, sizeof(path), "%s/cpumask", u->dir);
	if (energy_read_text(path, text, sizeof(text), err) < 0)
		return -1;
	u->ncpus = parse_cpumask(text, u->cpus, MAX_SOCKETS);
	if (u->ncpus <= 0)
		return eq_fail(err, "%s: '%s' is not a CPU list", path, text);
	for (i = 0; i < NPERF_EVENTS; i++) {
		struct eq_error e;
		char *end;

		energy_fmt(path, sizeof(path), "%s/events/%s", u->dir, perf_events[i].event);
		if (energy_read_text(path, text, sizeof(text), &e) < 0)
			continue;
		if (strncmp(text, "event=", 6))
			return eq_fail(err, "%s: '%s' is not event=N", path, text);
		u->config[i] = strtoull(text + 6, &end, 0);
		if (end == text + 6 || (*end && *end != ','))
			return eq_fail(err, "%s: '%s' is not event=N", path, text);
		energy_fmt(path, sizeof(path), "%s/events/%s.scale", u->dir, perf_events[i].event);
		if (energy_read_text(path, text, sizeof(text), err) < 0)
			return -1;
		u->scale[i] = strtod(text, &end);
		if (end == text || !(u->scale[i] > 0))
			return eq_fail(err, "%s: '%s' is not a scale", path, text);
		u->have[i] = 1;
		any = 1;
	}
	if (!any)
		return eq_fail(err, "the perf power PMU (%s) has no energy-* events", u->dir);
	return 0;
}

static int perf_open_one(int type, unsigned long long config, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (unsigned)type;
	a.config = config;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static const char *perf_why(int e, int type)
{
	static char buf[256];
	long long paranoid = -9;
	struct eq_error ignored;

	if (e == EACCES || e == EPERM) {
		energy_read_ll("/proc/sys/kernel/perf_event_paranoid", &paranoid, &ignored);
		energy_fmt(buf, sizeof(buf), "system-wide counting needs perf_event_paranoid <= 0 "
			 "(it is %lld) or CAP_PERFMON: run as root, or "
			 "sysctl kernel.perf_event_paranoid=0", paranoid);
	} else if (e == ENOENT || e == EINVAL || e == ENODEV) {
		energy_fmt(buf, sizeof(buf), "the kernel has no PMU of type %d (%s): the sysfs tree "
			 "read is not this machine's", type, strerror(e));
	} else {
		energy_fmt(buf, sizeof(buf), "%s", strerror(e));
	}
	return buf;
}

static void perf_domain_name(char *buf, size_t size, size_t ev, int socket)
{
	if (!strcmp(perf_events[ev].kind, "psys"))
		energy_fmt(buf, size, "psys");
	else
		energy_fmt(buf, size, "%s-%d", perf_events[ev].kind, socket);
}

static int open_perf(struct energy_source *src, struct rapl_priv *p, const char *sel,
		     const struct energy_env *env, struct eq_error *err)
{
	struct pmu u;
	size_t ev, k = 0, i;
	int s;

	p->perf = 1;
	if (find_pmu(env, &u, err) < 0)
		return -1;
	if (energy_source_domains(src, NPERF_EVENTS * (size_t)u.ncpus, err) < 0)
		return -1;
	for (ev = 0; ev < NPERF_EVENTS; ev++) {
		for (s = 0; s < u.ncpus && u.have[ev]; s++) {
			struct es_domain *d = &src->domains[k];
			int fd;

			if (!strcmp(perf_events[ev].kind, "psys") && s > 0)
				break;
			perf_domain_name(d->name, sizeof(d->name), ev, s);
			if (!selected(sel, d->name))
				continue;
			fd = perf_open_one(u.type, u.config[ev], u.cpus[s]);
			if (fd < 0) {
				int e = errno;

				/* the CPU has no such domain (energy-gpu on a server) */
				if (e == ENOENT && k > 0 && !sel)
					continue;
				for (i = 0; i < k; i++)
					close(p->fds[i]);
				p->n = 0;
				return eq_fail(err, "rapl:perf %s (power/%s/ on CPU %d): "
					       "perf_event_open: %s", d->name, perf_events[ev].event,
					       u.cpus[s], perf_why(e, u.type));
			}
			energy_fmt(d->kind, sizeof(d->kind), "%s", perf_events[ev].kind);
			energy_fmt(d->path, sizeof(d->path), "perf power/%s/ cpu %d",
				 perf_events[ev].event, u.cpus[s]);
			d->type = ES_COUNTER;
			d->resolution = u.scale[ev];
			d->update_s = RAPL_UPDATE_S;
			energy_fmt(d->update_how, sizeof(d->update_how), RAPL_UPDATE_HOW);
			p->fds[k] = fd;
			p->scale[k] = u.scale[ev];
			k++;
		}
	}
	p->n = k;
	src->ndomains = k;
	if (!k)
		return eq_fail(err, "rapl:perf: no event matches '%s' ('eqprof sources' lists them)",
			       sel ? sel : "");
	return 0;
}

static int rapl_open(struct energy_source *src, const char *sel, const struct energy_env *env,
		     struct eq_error *err)
{
	struct rapl_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return eq_fail(err, "out of memory");
	src->priv = p;
	if (sel && (!strcmp(sel, "perf") || !strncmp(sel, "perf:", 5))) {
		if (open_perf(src, p, sel[4] ? sel + 5 : NULL, env, err) == 0)
			return 0;
	} else if (open_powercap(src, p, sel, env, err) == 0) {
		return 0;
	}
	free(p);
	src->priv = NULL;
	return -1;
}

static int rapl_read(struct energy_source *src, double *raw, struct eq_error *err)
{
	struct rapl_priv *p = src->priv;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (p->perf) {
			unsigned long long count;

			if (read(p->fds[i], &count, sizeof(count)) != (ssize_t)sizeof(count))
				return eq_fail(err, "rapl:perf %s: read: %s", src->domains[i].name,
					       strerror(errno));
			raw[i] = (double)count * p->scale[i];
		} else {
			long long uj;

			if (energy_read_ll(p->files[i], &uj, err) < 0)
				return -1;
			raw[i] = (double)uj * 1e-6;
		}
	}
	return 0;
}

static void rapl_close(struct energy_source *src)
{
	struct rapl_priv *p = src->priv;
	size_t i;

	if (!p)
		return;
	for (i = 0; p->perf && i < p->n; i++)
		close(p->fds[i]);
	free(p);
	src->priv = NULL;
}

static int list_perf(const struct energy_env *env, struct energy_offers *out, char *why,
		     size_t whysize, struct eq_error *err)
{
	struct pmu u;
	struct eq_error e;
	size_t ev;
	int s;

	if (find_pmu(env, &u, &e) < 0) {
		energy_fmt(why, whysize, "%s", e.msg);
		return 0;
	}
	for (ev = 0; ev < NPERF_EVENTS; ev++) {
		for (s = 0; s < u.ncpus && u.have[ev]; s++) {
			struct energy_offer *o;
			int fd;

			if (!strcmp(perf_events[ev].kind, "psys") && s > 0)
				break;
			o = energy_offer_add(out, err);
			if (!o)
				return -1;
			o->driver = "rapl";
			energy_fmt(o->via, sizeof(o->via), "perf power PMU");
			perf_domain_name(o->d.name, sizeof(o->d.name), ev, s);
			energy_fmt(o->spec, sizeof(o->spec), "rapl:perf:%s", o->d.name);
			energy_fmt(o->d.kind, sizeof(o->d.kind), "%s", perf_events[ev].kind);
			energy_fmt(o->d.path, sizeof(o->d.path), "%s/events/%s (cpu %d)", u.dir,
				 perf_events[ev].event, u.cpus[s]);
			o->d.type = ES_COUNTER;
			o->d.resolution = u.scale[ev];
			o->d.update_s = RAPL_UPDATE_S;
			energy_fmt(o->d.update_how, sizeof(o->d.update_how), RAPL_UPDATE_HOW);
			fd = perf_open_one(u.type, u.config[ev], u.cpus[s]);
			o->readable = fd >= 0;
			if (fd >= 0)
				close(fd);
			else
				energy_fmt(o->why, sizeof(o->why), "%s", perf_why(errno, u.type));
		}
	}
	return 0;
}

static int rapl_list(const struct energy_env *env, struct energy_offers *out, char *none,
		     size_t nonesize, struct eq_error *err)
{
	struct zone z[MAX_ZONES];
	struct eq_error e;
	size_t n = 0, i, before = out->n;
	char why_pc[400] = "", why_perf[400] = "";

	if (find_zones(env, z, &n, &e) < 0)
		energy_fmt(why_pc, sizeof(why_pc), "%s", e.msg);
	else if (!n)
		energy_fmt(why_pc, sizeof(why_pc), "%s/class/powercap has no intel-rapl zones",
			 env->sysfs);
	for (i = 0; i < n; i++) {
		struct energy_offer *o;

		if (!z[i].name[0])
			continue;
		o = energy_offer_add(out, err);
		if (!o)
			return -1;
		o->driver = "rapl";
		energy_fmt(o->via, sizeof(o->via), "powercap%s", z[i].mmio ? " (mmio)" : "");
		fill_domain(&o->d, &z[i]);
		energy_fmt(o->spec, sizeof(o->spec), "rapl:%s", z[i].name);
		o->readable = z[i].readable;
		if (!o->readable)
			energy_fmt(o->why, sizeof(o->why), "%s", z[i].why);
	}
	if (list_perf(env, out, why_perf, sizeof(why_perf), err) < 0)
		return -1;
	if (out->n == before)
		energy_fmt(none, nonesize, "%s; %s", why_pc, why_perf);
	return 0;
}

const struct energy_driver energy_rapl = {
	.name = "rapl",
	.what = "Intel/AMD RAPL counters: powercap sysfs, or perf's power PMU (rapl:perf)",
	.open = rapl_open,
	.read = rapl_read,
	.close = rapl_close,
	.list = rapl_list,
};
