/*
 * test_trace_events.c - tracefs format files and raw tracepoint records
 * (host/record/trace_events.c) on the real format files of two kernels
 * (test/host/fixtures/tracefmt: Debian's 6.1 kernel, saved from the QEMU
 * guest of test/linux by guest-init.sh, and a 6.18 kernel, where block_rq_issue
 * has an ioprio field and a longer rwbs at other offsets), records built at
 * the offsets each format gives, their pairing into PSTA events and DREQ
 * requests, and bad formats and short records refused with messages.
 *
 * power:cpu_frequency never fires in QEMU (no cpufreq driver): its parsing
 * and decoding are covered here only, on the guest kernel's format text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/trace_events.h"

static const char *const kernels[] = { "debian-6.1", "linux-6.18" };
static const char *const files[TE_NKINDS] = { "cpu_frequency", "cpu_idle", "block_rq_issue",
					      "block_rq_complete", "net_dev_xmit", "block_rq_insert" };

static char *fixture(const char *kernel, const char *name, size_t *len)
{
	const char *src = getenv("SRC");
	char path[1024];
	FILE *f;
	char *buf = malloc(65536);

	snprintf(path, sizeof(path), "%s/test/host/fixtures/tracefmt/%s/%s.format", src ? src : ".",
		 kernel, name);
	f = fopen(path, "r");
	if (!f || !buf)
		fail_msg("cannot read %s (run with SRC set to the source root)", path);
	*len = fread(buf, 1, 65535, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void bind_kind(const char *kernel, enum te_kind k, struct te_event *ev)
{
	struct te_format f;
	struct eq_error err;
	size_t len;
	char *text = fixture(kernel, files[k], &len);

	if (te_format_parse(text, len, files[k], &f, &err) < 0 || te_bind(ev, k, &f, &err) < 0)
		fail_msg("%s %s: %s", kernel, files[k], err.msg);
	free(text);
}

static void set_uint(const struct te_format *f, const char *name, unsigned char *raw, uint64_t v)
{
	const struct te_field *fl = te_field_find(f, name);

	assert_non_null(fl);
	memcpy(raw + fl->offset, &v, fl->size); /* little-endian */
}

/* Strings: inline arrays in place, __data_loc after the fixed part at *tail. */
static void set_str(const struct te_format *f, const char *name, unsigned char *raw, size_t *tail,
		    const char *s)
{
	const struct te_field *fl = te_field_find(f, name);
	size_t n = strlen(s) + 1;

	assert_non_null(fl);
	if (fl->loc) {
		uint32_t v = (uint32_t)(n << 16 | *tail);

		memcpy(raw + fl->offset, &v, 4);
		memcpy(raw + *tail, s, n);
		*tail += n;
	} else {
		memset(raw + fl->offset, 0, fl->size);
		memcpy(raw + fl->offset, s, n < fl->size ? n : fl->size);
	}
}

static size_t fixed_size(const struct te_format *f)
{
	size_t i, end = 0;

	for (i = 0; i < f->nfields; i++)
		if (f->f[i].offset + f->f[i].size > end)
			end = f->f[i].offset + f->f[i].size;
	return end;
}

static void formats_of_both_kernels(void **state)
{
	size_t i, k;

	(void)state;
	for (i = 0; i < 2; i++)
		for (k = 0; k < TE_NKINDS; k++) {
			struct te_event ev;

			bind_kind(kernels[i], (enum te_kind)k, &ev);
			assert_string_equal(ev.fmt.name, files[k]);
			assert_true(ev.id > 0);
			assert_int_equal(ev.common_type->offset, 0);
			assert_int_equal(ev.common_type->size, 2);
		}
	{
		struct te_event a, b;

		/* the offsets differ between the kernels: read, never assumed */
		bind_kind("debian-6.1", TE_RQ_ISSUE, &a);
		bind_kind("linux-6.18", TE_RQ_ISSUE, &b);
		assert_int_equal(b.d->offset, 34);
		assert_int_equal(b.d->size, 10);
		assert_true(a.d->offset != b.d->offset || a.d->size != b.d->size);
		assert_int_equal(b.sectors, 0);
		bind_kind("debian-6.1", TE_NET_XMIT, &a);
		assert_int_equal(a.c->loc, 1);
		assert_string_equal(a.c->type, "__data_loc char[]");
	}
}

static void cpu_frequency_of_the_guest_kernel(void **state)
{
	struct te_event ev;
	unsigned char raw[64] = { 0 };
	struct te_rec r = { 0 };
	struct te_devtab devs = { 0 };
	struct te_pairer p;
	struct eq_error err;

	(void)state;
	bind_kind("debian-6.1", TE_CPU_FREQ, &ev);
	set_uint(&ev.fmt, "common_type", raw, ev.id);
	set_uint(&ev.fmt, "state", raw, 2400000);
	set_uint(&ev.fmt, "cpu_id", raw, 3);
	assert_int_equal(te_decode(&ev, raw, fixed_size(&ev.fmt), &r, &err), 0);
	assert_int_equal(r.kind, TE_CPU_FREQ);
	assert_int_equal(r.state, 2400000);
	assert_int_equal(r.cpu, 3);
	te_pairer_init(&p, &devs);
	r.time = 77;
	assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	assert_int_equal(p.nps, 1);
	assert_int_equal(p.ps[0].kind, EQP_PS_FREQ);
	assert_int_equal(p.ps[0].value, 2400000);
	assert_int_equal(p.ps[0].cpu, 3);
	assert_int_equal(p.ps[0].time, 77);
	te_pairer_free(&p);
}

static void cpu_idle_exit_is_c0(void **state)
{
	struct te_event ev;
	unsigned char raw[64] = { 0 };
	struct te_rec r = { 0 };
	struct te_devtab devs = { 0 };
	struct te_pairer p;
	struct eq_error err;
	const uint32_t states[] = { 1, 4294967295u, 3 }, want[] = { 1, 0, 3 };
	size_t i;

	(void)state;
	bind_kind("debian-6.1", TE_CPU_IDLE, &ev);
	te_pairer_init(&p, &devs);
	for (i = 0; i < 3; i++) {
		set_uint(&ev.fmt, "common_type", raw, ev.id);
		set_uint(&ev.fmt, "state", raw, states[i]);
		set_uint(&ev.fmt, "cpu_id", raw, 1);
		assert_int_equal(te_decode(&ev, raw, fixed_size(&ev.fmt), &r, &err), 0);
		r.time = 100 + i;
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	}
	assert_int_equal(p.nps, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(p.ps[i].kind, EQP_PS_IDLE);
		assert_int_equal(p.ps[i].value, want[i]);
		assert_int_equal(p.ps[i].cpu, 1);
	}
	te_pairer_free(&p);
}

static void block_rec(const struct te_event *ev, unsigned char *raw, size_t *n, uint32_t dev,
		      uint64_t sector, uint32_t bytes, const char *rwbs)
{
	size_t tail = fixed_size(&ev->fmt);

	memset(raw, 0, 256);
	set_uint(&ev->fmt, "common_type", raw, ev->id);
	set_uint(&ev->fmt, "dev", raw, dev);
	set_uint(&ev->fmt, "sector", raw, sector);
	if (ev->kind == TE_RQ_ISSUE) {
		set_uint(&ev->fmt, "nr_sector", raw, bytes / 512);
		set_uint(&ev->fmt, "bytes", raw, bytes);
		set_str(&ev->fmt, "rwbs", raw, &tail, rwbs);
		set_str(&ev->fmt, "cmd", raw, &tail, "");
	}
	*n = tail;
}

static void block_requests_paired(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct te_event is, co;
		unsigned char raw[256];
		size_t n;
		struct te_rec r;
		struct te_devtab devs = { 0 };
		struct te_pairer p;
		struct eq_error err;
		const uint32_t vda = 254u << 20, other = 8u << 20 | 16;

		bind_kind(kernels[i], TE_RQ_ISSUE, &is);
		bind_kind(kernels[i], TE_RQ_COMPLETE, &co);
		assert_int_equal(te_devtab_add(&devs, 1, 0, "lo"), 0);
		assert_int_equal(te_devtab_add(&devs, 0, vda, "vda"), 0);
		te_pairer_init(&p, &devs);
		/* a write issued by pid 42 at t=10, completed at 30 */
		block_rec(&is, raw, &n, vda, 2048, 4096, "WS");
		memset(&r, 0, sizeof(r));
		assert_int_equal(te_decode(&is, raw, n, &r, &err), 0);
		assert_int_equal(r.write, 1);
		assert_int_equal(r.bytes, 4096);
		r.time = 10;
		r.pid = 42;
		r.tid = 43;
		r.pc = 0x401000;
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
		/* a read of another sector, its completion read first (another CPU's ring) */
		block_rec(&co, raw, &n, vda, 8, 0, NULL);
		memset(&r, 0, sizeof(r));
		assert_int_equal(te_decode(&co, raw, n, &r, &err), 0);
		r.time = 25;
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
		block_rec(&is, raw, &n, vda, 8, 512, "R");
		memset(&r, 0, sizeof(r));
		assert_int_equal(te_decode(&is, raw, n, &r, &err), 0);
		assert_int_equal(r.write, 0);
		r.time = 20;
		r.pid = 7;
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
		assert_int_equal(p.nrq, 1);
		assert_int_equal(p.rq[0].issue, 20);
		assert_int_equal(p.rq[0].complete, 25);
		assert_int_equal(p.rq[0].device, 1);
		assert_int_equal(p.rq[0].flags, 0);
		block_rec(&co, raw, &n, vda, 2048, 0, NULL);
		assert_int_equal(te_decode(&co, raw, n, &r, &err), 0);
		r.time = 30;
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
		assert_int_equal(p.nrq, 2);
		assert_int_equal(p.rq[1].issue, 10);
		assert_int_equal(p.rq[1].complete, 30);
		assert_int_equal(p.rq[1].pid, 42);
		assert_int_equal(p.rq[1].tid, 43);
		assert_int_equal(p.rq[1].pc, 0x401000);
		assert_int_equal(p.rq[1].bytes, 4096);
		assert_int_equal(p.rq[1].flags, EQP_DREQ_F_WRITE);
		assert_int_equal(p.rq[1].device, 1);
		/* a device not numbered, and one still in flight at the end */
		block_rec(&is, raw, &n, other, 0, 512, "W");
		assert_int_equal(te_decode(&is, raw, n, &r, &err), 0);
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
		block_rec(&is, raw, &n, vda, 99, 512, "W");
		assert_int_equal(te_decode(&is, raw, n, &r, &err), 0);
		r.time = 40;
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
		/* a completion whose issue came before the recording */
		block_rec(&co, raw, &n, vda, 5555, 0, NULL);
		assert_int_equal(te_decode(&co, raw, n, &r, &err), 0);
		assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
		te_pairer_finish(&p);
		assert_int_equal(p.nrq, 2);
		assert_int_equal(p.st.unknown_dev, 1);
		assert_int_equal(p.st.in_flight, 1);
		assert_int_equal(p.st.unissued, 1);
		assert_int_equal(p.st.events[TE_RQ_ISSUE], 4);
		assert_int_equal(p.st.events[TE_RQ_COMPLETE], 3);
		te_pairer_free(&p);
	}
}

/* A request queued by a task and issued later by a kernel worker (its plug
 * flushed when it slept, or an I/O scheduler): the task that queued it is
 * the cause, as in the QEMU guest's null_blk. */
static void block_cause_from_insert(void **state)
{
	struct te_event in, is, co;
	unsigned char raw[256];
	size_t n;
	struct te_rec r;
	struct te_devtab devs = { 0 };
	struct te_pairer p;
	struct eq_error err;
	const uint32_t nullb = 252u << 20;

	(void)state;
	bind_kind("debian-6.1", TE_RQ_INSERT, &in);
	bind_kind("debian-6.1", TE_RQ_ISSUE, &is);
	bind_kind("debian-6.1", TE_RQ_COMPLETE, &co);
	te_devtab_add(&devs, 0, nullb, "nullb0");
	te_pairer_init(&p, &devs);
	block_rec(&in, raw, &n, nullb, 64, 4096, "WS");
	memset(&r, 0, sizeof(r));
	assert_int_equal(te_decode(&in, raw, n, &r, &err), 0);
	assert_int_equal(r.kind, TE_RQ_INSERT);
	r.time = 1;
	r.pid = r.tid = 309;
	r.pc = 0x438af3;
	assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	block_rec(&is, raw, &n, nullb, 64, 4096, "WS");
	memset(&r, 0, sizeof(r));
	assert_int_equal(te_decode(&is, raw, n, &r, &err), 0);
	r.time = 2;
	r.pid = r.tid = 43;   /* kworker/0:1H */
	assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	block_rec(&co, raw, &n, nullb, 64, 0, NULL);
	assert_int_equal(te_decode(&co, raw, n, &r, &err), 0);
	r.time = 3;
	assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	assert_int_equal(p.nrq, 1);
	assert_int_equal(p.rq[0].pid, 309);
	assert_int_equal(p.rq[0].tid, 309);
	assert_int_equal(p.rq[0].pc, 0x438af3);
	assert_int_equal(p.rq[0].issue, 2);
	assert_int_equal(p.rq[0].complete, 3);
	assert_int_equal(p.st.from_insert, 1);
	te_pairer_free(&p);
}

/* The writer's insert on one CPU is read a drain after the worker's issue
 * on another (its ring was read just before the insert was written): the
 * order keeps the issue until the insert is in, and a tie of times goes
 * in causal order. */
static void block_cause_read_late(void **state)
{
	struct te_event in, is, co;
	unsigned char raw[256];
	size_t n;
	struct te_rec ins, iss, com;
	struct te_devtab devs = { 0 };
	struct te_pairer p;
	struct te_order o = { 0 };
	struct eq_error err;
	const uint32_t nullb = 252u << 20;
	int tie;

	(void)state;
	bind_kind("debian-6.1", TE_RQ_INSERT, &in);
	bind_kind("debian-6.1", TE_RQ_ISSUE, &is);
	bind_kind("debian-6.1", TE_RQ_COMPLETE, &co);
	te_devtab_add(&devs, 0, nullb, "nullb0");
	for (tie = 0; tie < 2; tie++) {
		te_pairer_init(&p, &devs);
		memset(&ins, 0, sizeof(ins));
		block_rec(&in, raw, &n, nullb, 64, 4096, "WS");
		assert_int_equal(te_decode(&in, raw, n, &ins, &err), 0);
		ins.time = 1000;
		ins.pid = ins.tid = 285;
		ins.pc = 0x438af3;
		memset(&iss, 0, sizeof(iss));
		block_rec(&is, raw, &n, nullb, 64, 4096, "WS");
		assert_int_equal(te_decode(&is, raw, n, &iss, &err), 0);
		iss.time = tie ? 1000 : 1500;
		iss.pid = iss.tid = 43;   /* kworker/1:1H */
		memset(&com, 0, sizeof(com));
		block_rec(&co, raw, &n, nullb, 64, 0, NULL);
		assert_int_equal(te_decode(&co, raw, n, &com, &err), 0);
		com.time = 1800;
		/* drain 1 began at 1900, read CPU0 (nothing yet), then CPU1 */
		assert_int_equal(te_order_push(&o, &iss), 0);
		assert_int_equal(te_order_push(&o, &com), 0);
		assert_int_equal(te_order_flush(&o, &p, 0, &err), 0);
		assert_int_equal(o.n, 2);           /* held: nothing is older than 0 */
		/* drain 2 began at 2900 and read CPU0's insert */
		assert_int_equal(te_order_push(&o, &ins), 0);
		assert_int_equal(te_order_flush(&o, &p, 1900, &err), 0);
		assert_int_equal(o.n, 0);
		assert_int_equal(p.nrq, 1);
		assert_int_equal(p.rq[0].pid, 285);
		assert_int_equal(p.rq[0].pc, 0x438af3);
		assert_int_equal(p.rq[0].issue, iss.time);
		assert_int_equal(p.rq[0].complete, 1800);
		assert_int_equal(p.st.from_insert, 1);
		te_pairer_free(&p);
	}
	/* a request issued again by a worker (the driver was busy) keeps its
	 * cause; its service starts at the last issue */
	te_pairer_init(&p, &devs);
	iss.pid = iss.tid = 285;
	iss.time = 1000;
	assert_int_equal(te_pairer_feed(&p, &iss, &err), 0);
	iss.pid = iss.tid = 43;
	iss.time = 1100;
	assert_int_equal(te_pairer_feed(&p, &iss, &err), 0);
	com.time = 1400;
	assert_int_equal(te_pairer_feed(&p, &com, &err), 0);
	assert_int_equal(p.nrq, 1);
	assert_int_equal(p.rq[0].pid, 285);
	assert_int_equal(p.rq[0].issue, 1100);
	assert_int_equal(p.rq[0].complete, 1400);
	assert_int_equal(p.st.requeued, 1);
	te_pairer_free(&p);
	/* what is not older than upto waits; UINT64_MAX hands on the rest */
	te_pairer_init(&p, &devs);
	com.time = 5000;
	assert_int_equal(te_order_push(&o, &com), 0);
	assert_int_equal(te_order_flush(&o, &p, 5000, &err), 0);
	assert_int_equal(o.n, 1);
	assert_int_equal(te_order_flush(&o, &p, UINT64_MAX, &err), 0);
	assert_int_equal(o.n, 0);
	te_pairer_finish(&p);
	assert_int_equal(p.st.unissued, 1);
	te_pairer_free(&p);
	te_order_free(&o);
}

static void net_packets(void **state)
{
	struct te_event ev;
	unsigned char raw[256] = { 0 };
	size_t n;
	struct te_rec r;
	struct te_devtab devs = { 0 };
	struct te_pairer p;
	struct eq_error err;
	char meta[256];

	(void)state;
	bind_kind("debian-6.1", TE_NET_XMIT, &ev);
	assert_int_equal(te_devtab_add(&devs, 0, 1, "vda"), 0);
	assert_int_equal(te_devtab_add(&devs, 1, 0, "lo"), 0);
	assert_int_equal(te_devtab_add(&devs, 1, 0, "lo"), 0); /* once */
	assert_int_equal(devs.n, 2);
	te_devtab_meta(&devs, meta, sizeof(meta));
	assert_string_equal(meta, "device:0=vda\ndevice:1=lo\n");
	te_pairer_init(&p, &devs);
	n = fixed_size(&ev.fmt);
	set_uint(&ev.fmt, "common_type", raw, ev.id);
	set_uint(&ev.fmt, "len", raw, 554);
	set_uint(&ev.fmt, "rc", raw, 0);
	set_str(&ev.fmt, "name", raw, &n, "lo");
	memset(&r, 0, sizeof(r));
	assert_int_equal(te_decode(&ev, raw, n, &r, &err), 0);
	assert_string_equal(r.name, "lo");
	r.time = 5;
	r.pid = 9;
	assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	assert_int_equal(p.nrq, 1);
	assert_int_equal(p.rq[0].bytes, 554);
	assert_int_equal(p.rq[0].device, 1);
	assert_int_equal(p.rq[0].issue, p.rq[0].complete);
	assert_int_equal(p.rq[0].flags, EQP_DREQ_F_WRITE);
	/* refused by the driver (NETDEV_TX_BUSY), and an interface not numbered */
	set_uint(&ev.fmt, "rc", raw, 16);
	assert_int_equal(te_decode(&ev, raw, n, &r, &err), 0);
	assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	n = fixed_size(&ev.fmt);
	set_uint(&ev.fmt, "rc", raw, 0);
	set_str(&ev.fmt, "name", raw, &n, "eth7");
	assert_int_equal(te_decode(&ev, raw, n, &r, &err), 0);
	assert_int_equal(te_pairer_feed(&p, &r, &err), 0);
	assert_int_equal(p.nrq, 1);
	assert_int_equal(p.st.net_refused, 1);
	assert_int_equal(p.st.unknown_dev, 1);
	te_pairer_free(&p);
}

static void devices_at_most_64(void **state)
{
	struct te_devtab devs = { 0 };
	char name[16];
	int i;

	(void)state;
	for (i = 0; i < TE_MAX_DEVICES; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		assert_int_equal(te_devtab_add(&devs, 1, 0, name), 0);
	}
	assert_int_equal(te_devtab_add(&devs, 1, 0, "one-more"), -1);
	assert_int_equal(te_devtab_find(&devs, 1, 0, "d63"), 63);
	assert_int_equal(te_devtab_find(&devs, 0, 5, NULL), -1);
}

static void short_and_bad_records(void **state)
{
	struct te_event ev, idle;
	unsigned char raw[256] = { 0 };
	size_t n, full;
	struct te_rec r;
	struct eq_error err;

	(void)state;
	bind_kind("debian-6.1", TE_NET_XMIT, &ev);
	full = fixed_size(&ev.fmt);
	n = full;
	set_uint(&ev.fmt, "common_type", raw, ev.id);
	set_str(&ev.fmt, "name", raw, &n, "lo");
	/* every truncation is refused, naming a field */
	for (size_t cut = 0; cut < n; cut++) {
		err.msg[0] = '\0';
		assert_int_equal(te_decode(&ev, raw, cut, &r, &err), -1);
		assert_non_null(strstr(err.msg, "net_dev_xmit"));
		assert_true(strstr(err.msg, "past the record's end") != NULL);
	}
	assert_int_equal(te_decode(&ev, raw, n, &r, &err), 0);
	/* a __data_loc pointing out of the record */
	{
		uint32_t bad = (uint32_t)(200u << 16 | 40);

		memcpy(raw + te_field_find(&ev.fmt, "name")->offset, &bad, 4);
		assert_int_equal(te_decode(&ev, raw, n, &r, &err), -1);
		assert_non_null(strstr(err.msg, "'name'"));
	}
	/* another event's record */
	bind_kind("debian-6.1", TE_CPU_IDLE, &idle);
	set_uint(&ev.fmt, "common_type", raw, idle.id);
	assert_int_equal(te_decode(&ev, raw, n, &r, &err), -1);
	assert_non_null(strstr(err.msg, "event id"));
	/* a CPU number that is not one */
	memset(raw, 0, sizeof(raw));
	set_uint(&idle.fmt, "common_type", raw, idle.id);
	set_uint(&idle.fmt, "cpu_id", raw, 70000);
	assert_int_equal(te_decode(&idle, raw, fixed_size(&idle.fmt), &r, &err), -1);
	assert_non_null(strstr(err.msg, "cpu_id 70000"));
}

static void bad_formats(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "ID: 5\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n", "no 'name:'" },
		{ "name: cpu_idle\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n", "no 'ID:'" },
		{ "name: cpu_idle\nID: 12x\n", "ID: '12x'" },
		{ "name: cpu_idle\nID: 99999\n", "ID: '99999'" },
		{ "name: cpu_idle\nID: 5\nformat:\n", "no 'field:'" },
		{ "name: cpu_idle\nID: 5\n\tfield:int x\n", ":3: field declaration without ';'" },
		{ "name: cpu_idle\nID: 5\n\tfield:int x;\toffset:0;\n", ":3: field 'x': expected" },
		{ "name: cpu_idle\nID: 5\n\tfield:int x;\toffset:65535;\tsize:4;\n", "outside a record" },
		{ "name: cpu_idle\nID: 5\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:7;\n", "signed:7" },
		{ "name: cpu_idle\nID: 5\n\tfield: ;\toffset:0;\tsize:4;\n", "without a name" },
		{ "name: cpu_idle\nID: 5\n\tfield:x;\toffset:0;\tsize:4;\n", "has no type" },
		{ "name: cpu_idle\nID: 5\n\tfield:char x];\toffset:0;\tsize:4;\n", "unbalanced" },
	};
	struct te_format f;
	struct eq_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err.msg[0] = '\0';
		assert_int_equal(te_format_parse(cases[i].text, strlen(cases[i].text), "t", &f, &err), -1);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
	}
	{
		static const char nul[] = "name: cpu_idle\nID: 5\n\tfield:int\0 x;\toffset:0;\tsize:4;\n";

		assert_int_equal(te_format_parse(nul, sizeof(nul) - 1, "t", &f, &err), -1);
		assert_non_null(strstr(err.msg, "NUL"));
	}
	{
		char big[8192];
		size_t used = (size_t)snprintf(big, sizeof(big), "name: cpu_idle\nID: 5\n");

		for (i = 0; i <= TE_MAX_FIELDS; i++)
			used += (size_t)snprintf(big + used, sizeof(big) - used,
						 "\tfield:int f%zu;\toffset:%zu;\tsize:4;\tsigned:1;\n", i, 4 * i);
		assert_int_equal(te_format_parse(big, used, "t", &f, &err), -1);
		assert_non_null(strstr(err.msg, "more than"));
	}
}

static void missing_fields_refused(void **state)
{
	static const char no_cpu[] =
		"name: cpu_idle\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n";
	static const char str_state[] =
		"name: cpu_idle\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:char state[4];\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n";
	static const char rel_loc[] =
		"name: net_dev_xmit\nID: 9\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned int len;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:int rc;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:__rel_loc char[] name;\toffset:16;\tsize:4;\tsigned:0;\n";
	struct te_format f;
	struct te_event ev;
	struct eq_error err;

	(void)state;
	assert_int_equal(te_format_parse(no_cpu, strlen(no_cpu), "t", &f, &err), 0);
	assert_int_equal(te_bind(&ev, TE_CPU_IDLE, &f, &err), -1);
	assert_non_null(strstr(err.msg, "no field 'cpu_id'"));
	assert_int_equal(te_bind(&ev, TE_CPU_FREQ, &f, &err), -1);
	assert_non_null(strstr(err.msg, "format of event 'cpu_idle'"));
	assert_int_equal(te_format_parse(str_state, strlen(str_state), "t", &f, &err), 0);
	assert_int_equal(te_bind(&ev, TE_CPU_IDLE, &f, &err), -1);
	assert_non_null(strstr(err.msg, "not an integer"));
	/* __rel_loc (newer kernels): the offset counts from the field's end */
	assert_int_equal(te_format_parse(rel_loc, strlen(rel_loc), "t", &f, &err), 0);
	assert_int_equal(te_bind(&ev, TE_NET_XMIT, &f, &err), 0);
	{
		unsigned char raw[32] = { 0 };
		uint16_t type = 9;
		uint32_t loc = 4u << 16 | 0;
		struct te_rec r;

		memcpy(raw, &type, 2);
		memcpy(raw + 16, &loc, 4);
		memcpy(raw + 20, "eth0", 4);
		assert_int_equal(te_decode(&ev, raw, 24, &r, &err), 0);
		assert_string_equal(r.name, "eth0");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats_of_both_kernels),
		cmocka_unit_test(cpu_frequency_of_the_guest_kernel),
		cmocka_unit_test(cpu_idle_exit_is_c0),
		cmocka_unit_test(block_requests_paired),
		cmocka_unit_test(block_cause_from_insert),
		cmocka_unit_test(block_cause_read_late),
		cmocka_unit_test(net_packets),
		cmocka_unit_test(devices_at_most_64),
		cmocka_unit_test(short_and_bad_records),
		cmocka_unit_test(bad_formats),
		cmocka_unit_test(missing_fields_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
