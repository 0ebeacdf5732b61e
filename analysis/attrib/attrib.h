/*
 * attrib.h - asynchronous device energy charged to the code that caused it
 * (seed 000, eprof).
 *
 * A device (radio, disk) draws power while it serves a request and, for a
 * radio, for a tail after the last one; an energy-driven sample lands on
 * whatever runs when the quantum fills, so that energy is charged to
 * unrelated code.  With the recording's device requests (DREQ chunks) and a
 * model of each device's power per state (active, tail, idle), the device's
 * energy above idle in every sample interval is known per request; eprof's
 * rule moves it: each cause accumulates what it is owed, and whenever it is
 * owed a whole quantum the sample at hand is moved to it (the remainder is
 * carried forward, so no energy is lost; what is left at the end is moved
 * as a fraction of the last sample).  The tail is owed by the request it
 * follows.
 */
#ifndef EQ_ATTRIB_H
#define EQ_ATTRIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "file/eqp.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"
#include "profile/table.h"

/* One device's power per state. */
struct eq_devmodel {
	char name[64];
	double active_w, tail_w, idle_w, tail_s;
};

/* "active 850mW tail 2s 600mW idle 10mW" -> *m (name untouched). */
int eq_devmodel_parse(const char *text, struct eq_devmodel *m, struct eq_error *err);

/* A stretch of one device's power above idle and the request behind it. */
struct eq_dev_piece {
	double t0, t1;        /* seconds on the recording's clock */
	double power;         /* W above idle */
	size_t request;       /* index into the requests */
	int tail;             /* 1: a tail after the request */
};

/*
 * The pieces of every device (model[r.device] for request r; ndev models),
 * requests sorted by issue (done in place on a copy the caller owns), up to
 * t_end seconds: active while any request is in service (each request its
 * own service, an overlap to the later one), tail after the last
 * completion until tail_s or the next issue.  Sorted by device, then time.
 * Free *pieces with free().
 */
int eq_dev_pieces(const struct eqp_devreq *req, size_t nreq, double clock_hz,
		  const struct eq_devmodel *model, size_t ndev, double t_end,
		  struct eq_dev_piece **pieces, size_t *npieces, struct eq_error *err);

struct eq_attrib_move {
	const char *from, *to; /* row names */
	double energy_j;
	uint64_t samples;      /* whole samples moved (the rest: the final remainder) */
};

struct eq_attrib_row {
	const char *name, *module;
	uint64_t samples;      /* as sampled */
	double before_j, moved_out_j, moved_in_j, after_j, share_after;
};

struct eq_attrib_device {
	const char *name;
	struct eq_devmodel model;
	size_t requests;
	double energy_j;       /* above idle, from the model over the samples' span */
	double active_j, tail_j;
};

struct eq_attrib {
	enum eq_by by;
	double quantum_j;
	uint64_t samples;
	double total_j, moved_j;
	size_t nrows, nmoves, ndevices;
	struct eq_attrib_row *rows;    /* most energy after first */
	struct eq_attrib_move *moves;  /* most energy first */
	struct eq_attrib_device *devices;
	void *priv_;
};

/*
 * Attributes f's device energy by exe, pid or proc.  Models: models[] (from
 * --device-model files, by device name), else the recording's
 * "device_model:NAME=..." lines.  Needs an energy-driven recording with
 * device requests; the error says what to record otherwise.
 */
struct eq_attrib *eq_attrib_build(const struct eqp_file *f, struct eq_symbolizer *s, enum eq_by by,
				  const struct eq_devmodel *models, size_t nmodels,
				  struct eq_error *err);
void eq_attrib_free(struct eq_attrib *a);
void eq_attrib_print(FILE *out, const struct eq_attrib *a, const char *source, enum eq_format fmt);

/* Reads "NAME active P tail T P [idle P]" lines ('#' comments) from path. */
int eq_devmodel_read(const char *path, struct eq_devmodel *models, size_t max, size_t *n,
		     struct eq_error *err);

#endif
