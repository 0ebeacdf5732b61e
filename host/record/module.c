/*
 * module.c - samples from the eqprof kernel module; see module.h.
 */
#include "record/module.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "isr/linux/uapi/eqprof.h"

#define BATCH 1024
#define MAX_RINGS 4096

struct module_recorder {
	int fd;
	const char *device;
	uint32_t nrings;
	uint32_t *expect;       /* next seq per CPU ring */
	uint32_t self;
	struct eq_sample buf[BATCH];
	struct module_recorder_stats st;
};

int module_recorder_available(const char *device)
{
	return access(device ? device : EQPROF_DEVICE, F_OK) == 0;
}

static int dev_fail(struct module_recorder *r, const char *what, struct eq_error *err)
{
	return eq_fail(err, "%s: %s: %s", r->device, what, strerror(errno));
}

static int parse_gpio(const char *spec, struct eqprof_config *c, struct eq_error *err)
{
	const char *colon = strrchr(spec, ':');
	char *end;
	unsigned long line;

	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(c->gpio_chip))
		return eq_fail(err, "--gpio %s: expected CHIP_LABEL:LINE (e.g. pinctrl-bcm2711:17)", spec);
	line = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || *end || line > 65535)
		return eq_fail(err, "--gpio %s: '%s' is not a line number", spec, colon + 1);
	memcpy(c->gpio_chip, spec, (size_t)(colon - spec));
	c->gpio_chip[colon - spec] = '\0';
	c->gpio_line = (uint32_t)line;
	return 0;
}

struct module_recorder *module_recorder_open(const struct module_open_opts *o,
					     struct eq_error *err)
{
	struct module_recorder *r = calloc(1, sizeof(*r));
	struct eqprof_config c;
	struct eqprof_stats st;

	if (!r) {
		eq_fail(err, "out of memory");
		return NULL;
	}
	r->fd = -1;
	r->device = o->device ? o->device : EQPROF_DEVICE;
	r->self = (uint32_t)getpid();
	memset(&c, 0, sizeof(c));
	c.source = !o->energy ? EQPROF_SRC_HRTIMER :
		   o->ivshmem ? EQPROF_SRC_IVSHMEM : EQPROF_SRC_GPIO;
	c.hz_milli = (uint32_t)(o->hz * 1000 + 0.5);
	c.jitter_pct = (uint32_t)(o->jitter_pct + 0.5);
	c.ring_bytes = o->ring_bytes;
	if (o->energy && o->gpio && parse_gpio(o->gpio, &c, err) < 0)
		goto fail;
	r->fd = open(r->device, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		if (errno == ENOENT)
			eq_fail(err, "%s does not exist: load the eqprof module (isr/linux/eqprof.ko; docs/target-linux.md)",
				r->device);
		else if (errno == EACCES || errno == EPERM)
			eq_fail(err, "%s: %s: the device is mode 0600 (its samples reveal kernel addresses): run as root",
				r->device, strerror(errno));
		else if (errno == EBUSY)
			eq_fail(err, "%s is in use by another recorder (one at a time)", r->device);
		else
			dev_fail(r, "open", err);
		goto fail;
	}
	if (ioctl(r->fd, EQPROF_IOC_CONFIG, &c) < 0) {
		if (errno == EINVAL && o->energy && o->ivshmem)
			eq_fail(err, "%s: this module has no ivshmem source: build isr/linux from this eqprof",
				r->device);
		else if (errno == EINVAL && o->energy && !o->gpio)
			eq_fail(err, "%s: the module does not know the board's GPIO line: load it with gpio_chip=LABEL gpio_line=N or pass --gpio LABEL:LINE",
				r->device);
		else if (errno == EBUSY)
			eq_fail(err, "%s: sampling is already running (started at load with start=?): stop it first",
				r->device);
		else
			dev_fail(r, "configuring the session", err);
		goto fail;
	}
	if (ioctl(r->fd, EQPROF_IOC_STATS, &st) < 0) {
		dev_fail(r, "reading its statistics", err);
		goto fail;
	}
	r->nrings = st.nr_cpus < MAX_RINGS ? st.nr_cpus : MAX_RINGS;
	r->expect = calloc(r->nrings ? r->nrings : 1, sizeof(*r->expect));
	if (!r->expect) {
		eq_fail(err, "out of memory");
		goto fail;
	}
	return r;
fail:
	module_recorder_close(r);
	return NULL;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int module_recorder_start(struct module_recorder *r, struct eq_error *err)
{
	struct eqprof_stats st;

	if (ioctl(r->fd, EQPROF_IOC_START, 0) < 0) {
		if (errno == ENODEV || errno == ERANGE || errno == EBUSY || errno == ENXIO)
			return eq_fail(err, "%s: cannot take the board's interrupt (%s): see the kernel log (dmesg) for the GPIO chip and line it tried",
				       r->device, strerror(errno));
		return dev_fail(r, "starting sampling", err);
	}
	if (ioctl(r->fd, EQPROF_IOC_STATS, &st) == 0) {
		uint32_t cpu;

		snprintf(r->st.source, sizeof(r->st.source), "%s", st.source_name);
		r->st.threaded = (int)st.irq_threaded;
		/* a source may number from elsewhere (ivshmem: the board's quanta) */
		for (cpu = 0; cpu < r->nrings; cpu++)
			r->expect[cpu] = st.first_seq;
	}
	r->st.seconds = -now_s();
	return 0;
}

static int hand_over(struct module_recorder *r, const struct eq_sample *s, size_t n,
		     const struct eq_sink *sink)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t cpu = s[i].cpu, gap;

		if (cpu < r->nrings) {
			gap = s[i].seq - r->expect[cpu];
			if (gap && gap < 0x80000000u) {
				r->st.seq_gaps += gap;
				sink->lost(sink->ctx, cpu, gap);
			}
			r->expect[cpu] = s[i].seq + 1;
		}
		r->st.samples++;
		if (s[i].pid == r->self)
			r->st.own++;
		if (sink->sample(sink->ctx, &s[i]) < 0)
			return -1;
	}
	return 0;
}

static int read_all(struct module_recorder *r, const struct eq_sink *sink, struct eq_error *err)
{
	for (;;) {
		ssize_t n = read(r->fd, r->buf, sizeof(r->buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return dev_fail(r, "reading samples", err);
		if (n == 0)
			return 0;
		if (n % (ssize_t)sizeof(r->buf[0]))
			return eq_fail(err, "%s: read returned %zd bytes, not whole samples (module and eqprof do not match?)",
				       r->device, n);
		if (hand_over(r, r->buf, (size_t)n / sizeof(r->buf[0]), sink) < 0)
			return eq_fail(err, "recording samples failed");
		if ((size_t)n < sizeof(r->buf))
			return 0;
	}
}

int module_recorder_drain(struct module_recorder *r, int timeout_ms,
			  const struct eq_sink *sink, struct eq_error *err)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) < 0 && errno != EINTR)
		return dev_fail(r, "poll", err);
	return read_all(r, sink, err);
}

int module_recorder_stop(struct module_recorder *r, const struct eq_sink *sink,
			 struct eq_error *err)
{
	struct eqprof_stats st;
	struct eqprof_cpu_stats cs;
	uint32_t cpu;

	if (ioctl(r->fd, EQPROF_IOC_STOP, 0) < 0)
		return dev_fail(r, "stopping sampling", err);
	r->st.seconds += now_s();
	if (read_all(r, sink, err) < 0)
		return -1;
	if (ioctl(r->fd, EQPROF_IOC_STATS, &st) < 0)
		return dev_fail(r, "reading its statistics", err);
	if (st.start_ns && st.stop_ns > st.start_ns)
		r->st.seconds = (double)(st.stop_ns - st.start_ns) * 1e-9;
	r->st.ring_dropped = st.dropped;
	r->st.missed = st.missed;
	r->st.approx = st.approx;
	/* drops after each ring's last sample show only in its next seq */
	for (cpu = 0; cpu < r->nrings; cpu++) {
		memset(&cs, 0, sizeof(cs));
		cs.cpu = cpu;
		if (ioctl(r->fd, EQPROF_IOC_CPU_STATS, &cs) < 0)
			continue; /* not a possible CPU */
		if (cs.next_seq != r->expect[cpu]) {
			uint32_t gap = cs.next_seq - r->expect[cpu];

			r->st.seq_gaps += gap;
			sink->lost(sink->ctx, cpu, gap);
			r->expect[cpu] = cs.next_seq;
		}
	}
	return 0;
}

const struct module_recorder_stats *module_recorder_stats(const struct module_recorder *r)
{
	return &r->st;
}

void module_recorder_close(struct module_recorder *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->expect);
	free(r);
}
