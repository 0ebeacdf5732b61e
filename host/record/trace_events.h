/*
 * trace_events.h - Linux tracepoints as eqprof reads them, portable part:
 * the tracefs `format` files, the raw records (PERF_SAMPLE_RAW) of the
 * events eqprof logs, and how those records become power-state changes
 * (PSTA) and device requests (DREQ).  No system calls here: a unit test
 * and a fuzz target call all of it; trace.c opens the events.
 *
 * Field offsets come from each event's format file, never from a header:
 * they differ between kernels.  The events:
 *
 *   power:cpu_frequency   state (kHz), cpu_id         -> PSTA kind FREQ
 *   power:cpu_idle        state, cpu_id               -> PSTA kind IDLE:
 *                         4294967295 (PWR_EVENT_EXIT) = running (0, C0),
 *                         n = idle in the kernel's state n (0 = poll: C0)
 *   block:block_rq_issue  dev, sector, bytes (else nr_sector), rwbs
 *   block:block_rq_complete  dev, sector                -> DREQ, matched on
 *                         dev and sector; pid/tid/pc of the task at issue,
 *                         or at insert when the request went through an I/O
 *                         scheduler (issued later by a kernel worker)
 *   block:block_rq_insert dev, sector: who queued the request
 *   net:net_dev_xmit      len, rc, name                 -> DREQ issued and
 *                         completed at once (the driver took the packet)
 */
#ifndef EQ_TRACE_EVENTS_H
#define EQ_TRACE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"
#include "file/eqp.h"

#define TE_MAX_FIELDS 48
#define TE_NAME_MAX 64

struct te_field {
	char name[TE_NAME_MAX];
	char type[TE_NAME_MAX];   /* "unsigned int", "__data_loc char[]", "char[8]"... */
	uint32_t offset, size;
	int is_signed;
	int loc;                  /* 0 inline; 1 __data_loc (u32: len << 16 | offset);
				     2 __rel_loc (offset from the field's end) */
	int array;                /* an inline char array (char x[N]) */
};

struct te_format {
	char name[TE_NAME_MAX];
	uint32_t id;
	size_t nfields;
	struct te_field f[TE_MAX_FIELDS];
};

/* Parses the text of events/SYS/NAME/format; where names it in messages. */
int te_format_parse(const char *text, size_t len, const char *where, struct te_format *f,
		    struct eq_error *err);
const struct te_field *te_field_find(const struct te_format *f, const char *name);
/* An unsigned integer field of 1, 2, 4 or 8 bytes (little-endian host) */
int te_get_uint(const struct te_field *fl, const unsigned char *raw, size_t n, uint64_t *v,
		struct eq_error *err);
/* A string field: inline char array or __data_loc/__rel_loc; NUL-terminated in buf. */
int te_get_str(const struct te_field *fl, const unsigned char *raw, size_t n, char *buf,
	       size_t size, struct eq_error *err);

enum te_kind { TE_CPU_FREQ, TE_CPU_IDLE, TE_RQ_ISSUE, TE_RQ_COMPLETE, TE_NET_XMIT, TE_RQ_INSERT,
	       TE_NKINDS };

/* The groups --events names: power, block, net. */
#define TE_G_POWER 0x1
#define TE_G_BLOCK 0x2
#define TE_G_NET 0x4
#define TE_G_ALL 0x7

struct te_def {
	const char *sys, *name;
	unsigned group;
};
extern const struct te_def te_defs[TE_NKINDS];

/* One event's fields, found in its format and checked. */
struct te_event {
	enum te_kind kind;
	uint32_t id;
	const struct te_field *common_type;
	const struct te_field *a, *b, *c, *d;  /* per kind, see trace_events.c */
	int sectors;                            /* block issue: c is nr_sector, not bytes */
	struct te_format fmt;
};
/* Takes fmt (copied) for kind; refuses a format without the fields eqprof
 * needs or with sizes it cannot read, saying which. */
int te_bind(struct te_event *ev, enum te_kind kind, const struct te_format *fmt,
	    struct eq_error *err);

/* A decoded record (fields as the kind has them). */
struct te_rec {
	enum te_kind kind;
	uint64_t time, pc;       /* pc: the user pc at the event, 0 unknown */
	uint32_t pid, tid;
	uint32_t state, cpu;     /* power */
	uint32_t dev;            /* block: the kernel's dev_t (major << 20 | minor) */
	uint64_t sector;
	uint32_t bytes;          /* block issue: bytes; net: len */
	int write;               /* block: rwbs has W */
	int32_t rc;              /* net */
	char name[32];           /* net: the device */
};
/* Decodes raw (the PERF_SAMPLE_RAW bytes, n of them) of event ev into r
 * (kind, fields; time, pid, tid, pc left to the caller). */
int te_decode(const struct te_event *ev, const unsigned char *raw, size_t n, struct te_rec *r,
	      struct eq_error *err);
/* The event id of a raw record (its common_type), with the field of any bound event. */
int te_raw_type(const struct te_event *any, const unsigned char *raw, size_t n, uint32_t *id);

/* Devices numbered for DREQ (the header's device:N=NAME lines). */
#define TE_MAX_DEVICES 64
struct te_devtab {
	size_t n;
	struct {
		int net;          /* 0 block (dev), 1 net (name) */
		uint32_t dev;
		char name[32];
	} d[TE_MAX_DEVICES];
};
/* Adds a device; -1 when the table is full (64, report's limit). */
int te_devtab_add(struct te_devtab *t, int net, uint32_t dev, const char *name);
/* Its number, or -1: not known when the recording started. */
int te_devtab_find(const struct te_devtab *t, int net, uint32_t dev, const char *name);
/* "device:N=NAME\n" lines into buf (NUL-terminated); bytes written. */
size_t te_devtab_meta(const struct te_devtab *t, char *buf, size_t size);

struct te_pair_stats {
	uint64_t events[TE_NKINDS];
	uint64_t pstates, devreqs;
	uint64_t from_insert;   /* requests whose cause is the task that queued them */
	uint64_t requeued;      /* an issue again of a pending request (its time kept, the first cause) */
	uint64_t in_flight;     /* issued, not completed when the recording ended */
	uint64_t unissued;      /* completed, issued before the recording started */
	uint64_t unknown_dev;   /* requests of devices not numbered */
	uint64_t net_refused;   /* net_dev_xmit with rc != 0 (the driver was busy) */
	uint64_t bad;           /* undecodable records */
};

/* Turns decoded records (in time order within each feed batch) into PSTA
 * events and DREQ requests, which it collects in ps/rq for the caller to
 * write and clear (nps, nrq = 0). */
struct te_pairer {
	const struct te_devtab *devs;
	struct eqp_pstate *ps;
	size_t nps, capps;
	struct eqp_devreq *rq;
	size_t nrq, caprq;
	struct te_pend { uint32_t dev; uint64_t sector; struct eqp_devreq r; } *pend, *orph, *ins;
	size_t npend, cappend, norph, caporph, nins, capins;
	struct te_pair_stats st;
};
void te_pairer_init(struct te_pairer *p, const struct te_devtab *devs);
/* -1 only when out of memory. */
int te_pairer_feed(struct te_pairer *p, const struct te_rec *r, struct eq_error *err);
/* The end: requests still in flight and completions never matched are counted. */
void te_pairer_finish(struct te_pairer *p);
void te_pairer_free(struct te_pairer *p);

/*
 * Per-CPU rings are read one after the other, so an event a CPU writes just
 * after its ring was read arrives with the next read, after later events of
 * CPUs read later: a block request queued by the writer on one CPU and
 * issued by a kernel worker on another would meet its issue before its
 * queueing.  As perf's ordered events do, te_order keeps what was read,
 * sorts it by time (ties in a request's causal order: queued, issued,
 * completed) and hands on to the pairer only what is older than upto; the
 * caller passes the time the previous read began (every CPU has written
 * all of that by now), and UINT64_MAX at the end.
 */
struct te_order {
	struct te_rec *r;
	size_t n, cap;
};
/* -1 when out of memory (the record is not kept). */
int te_order_push(struct te_order *o, const struct te_rec *r);
/* Feeds every record older than upto, in order; -1 when the pairer ran
 * out of memory. */
int te_order_flush(struct te_order *o, struct te_pairer *p, uint64_t upto, struct eq_error *err);
void te_order_free(struct te_order *o);

#endif
