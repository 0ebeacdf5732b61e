/*
 * board.c - the eqprof energy-counter board as an energy source: the
 * board's record stream (one record per quantum it counts, docs/protocol.md)
 * read over its USB link (host/board/), each record worth pulses x E_min at
 * the battery voltage it reports (power_board_record_j(), the same formula
 * `eqprof power` uses for recordings).
 *
 * "board" uses $EQPROF_BOARD or the first board found; "board:tty:PATH" or
 * "board:ftdi:SERIAL" a given one.  The source starts the board counting
 * when opened and stops it when closed.  Its value changes once a quantum,
 * so at low power it updates rarely: the meter detects the period, as for
 * a battery gauge.  Records the board had to drop (sequence gaps) are
 * counted at the mean quantum's energy and reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/client.h"
#include "file/eqp.h"
#include "energy.h"
#include "fw_defaults.h"
#include "power/power.h"

struct board_priv {
	struct board_link *link;
	struct board_client c;
	double e_min_j, vb_nominal, quantum_j;
	double used;
	uint32_t next_seq;
	int have_seq;
	uint64_t dropped;
};

static int query(struct board_client *c, uint8_t type, struct fw_msg *rep, struct eq_error *err)
{
	struct fw_msg req;

	memset(&req, 0, sizeof(req));
	req.type = type;
	return board_request(c, &req, rep, err);
}

static int board_open(struct energy_source *src, const char *sel, const struct energy_env *env,
		      struct eq_error *err)
{
	struct board_priv *p = calloc(1, sizeof(*p));
	struct fw_msg info, cal, st;
	struct es_domain *d;

	(void)env;
	if (!p)
		return eq_fail(err, "out of memory");
	p->link = board_link_open_default(sel, FW_UART_BAUD, err);
	if (!p->link) {
		free(p);
		return -1;
	}
	board_client_init(&p->c, p->link);
	if (query(&p->c, FW_REQ_INFO, &info, err) < 0 ||
	    board_check_info(&p->c, &info.u.info, err) < 0 ||
	    query(&p->c, FW_REQ_CAL_READ, &cal, err) < 0 ||
	    board_check_cal(&p->c, &cal.u.cal, err) < 0 ||
	    query(&p->c, FW_REQ_STATUS, &st, err) < 0 ||
	    board_check_status(&p->c, &st.u.status, err) < 0 ||
	    board_simple(&p->c, FW_REQ_START, 0, err) < 0) {
		eq_fail_prefix(err, "board %s", p->link->name);
		board_client_free(&p->c);
		board_link_close(p->link);
		free(p);
		return -1;
	}
	p->e_min_j = cal.u.cal.e_min_pj * 1e-12;
	p->vb_nominal = cal.u.cal.vb_nominal_uv * 1e-6;
	p->quantum_j = st.u.status.quantum_pulses * p->e_min_j;
	if (energy_source_domains(src, 1, err) < 0) {
		board_simple(&p->c, FW_REQ_STOP, 0, NULL);
		board_client_free(&p->c);
		board_link_close(p->link);
		free(p);
		return -1;
	}
	d = &src->domains[0];
	energy_fmt(d->name, sizeof(d->name), "board");
	energy_fmt(d->kind, sizeof(d->kind), "board");
	energy_fmt(d->path, sizeof(d->path), "%s (%s)", p->link->name, info.u.info.name);
	d->type = ES_COUNTER;
	d->resolution = p->quantum_j;
	src->priv = p;
	return 0;
}

static int board_read(struct energy_source *src, double *raw, struct eq_error *err)
{
	struct board_priv *p = src->priv;
	struct fw_record r;

	if (board_poll(&p->c, 0, err) < 0)
		return eq_fail_prefix(err, "board %s", p->link->name);
	while (board_take_record(&p->c, &r)) {
		struct eqp_board_rec rec = { .time = r.time, .seq = r.seq, .pulses = r.pulses,
					     .vbat_uv = r.vbat_uv, .flags = r.flags };
		double e = power_board_record_j(&rec, p->e_min_j, p->vb_nominal, 0, 0);

		if (p->have_seq && r.seq != p->next_seq) {
			/* records the board could not send: their quanta were
			 * still used; count them at this quantum's energy */
			uint32_t gap = r.seq - p->next_seq;

			p->dropped += gap;
			p->used += (double)gap * e;
			energy_fmt(src->note, sizeof(src->note), "the board dropped %llu records; "
				 "counted at the mean quantum's energy",
				 (unsigned long long)p->dropped);
		}
		p->have_seq = 1;
		p->next_seq = r.seq + 1;
		p->used += e;
	}
	raw[0] = p->used;
	return 0;
}

static void board_close(struct energy_source *src)
{
	struct board_priv *p = src->priv;

	if (!p)
		return;
	board_simple(&p->c, FW_REQ_STOP, 0, NULL);
	board_client_free(&p->c);
	board_link_close(p->link);
	free(p);
	src->priv = NULL;
}

static int board_list_offers(const struct energy_env *env, struct energy_offers *out, char *none,
			     size_t nonesize, struct eq_error *err)
{
	struct board_found found[8];
	struct eq_error e;
	int n = board_list(found, 8, &e), i;

	(void)env;
	if (n <= 0) {
		energy_fmt(none, nonesize, "no board found (USB FT232R or /dev/ttyUSB*; "
			 "'eqprof board list')");
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct energy_offer *o = energy_offer_add(out, err);

		if (!o)
			return -1;
		o->driver = "board";
		energy_fmt(o->spec, sizeof(o->spec), "board:%s", found[i].spec);
		energy_fmt(o->via, sizeof(o->via), "record stream");
		energy_fmt(o->d.name, sizeof(o->d.name), "board");
		energy_fmt(o->d.kind, sizeof(o->d.kind), "board");
		energy_fmt(o->d.path, sizeof(o->d.path), "%s (%s)", found[i].spec, found[i].what);
		o->d.type = ES_COUNTER;
		o->readable = 1;
	}
	return 0;
}

const struct energy_driver energy_board = {
	.name = "board",
	.what = "the eqprof energy-counter board over USB (board[:tty:PATH|ftdi:SERIAL])",
	.open = board_open,
	.read = board_read,
	.close = board_close,
	.list = board_list_offers,
};
