/*
 * fuzz_units.c - libFuzzer target over the small parsers every command
 * trusts: SI quantities and integers on the command line (units.h), `eqprof
 * sim --set NAME=VALUE` on a scenario, and the board's byte stream as the
 * host's client sorts it (host/board/client.c: replies, records, BOOT, the
 * 40-bit time unwrapped, seq gaps counted) with the range checks of INFO,
 * STATUS and CAL.  The first byte picks the parser.
 *
 * Beyond "no crash, leak or undefined behaviour", what is accepted must be
 * usable: a quantity is finite, an integer within its bound, a scenario
 * after --set has finite parameters and duration, a record's unwrapped time
 * never goes back within a stream, a board INFO/STATUS/CAL the checks pass
 * has the ranges documented in client.h.  Run by test/host/fuzz-units.sh
 * over test/host/corpus-units; longer by hand:
 *   build/fuzz/fuzz_units -max_total_time=600 -max_len=1024 COPY_OF_CORPUS
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "counter.h"
#include "sim.h"
#include "sim_internal.h"
#include "util/units.h"

#define CHECK(x) do { if (!(x)) __builtin_trap(); } while (0)

static char *text_of(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);

	if (t) {
		memcpy(t, data, size);
		t[size] = 0;
	}
	return t;
}

static void fuzz_quantity(const uint8_t *data, size_t size)
{
	static const char *const units[] = { "J", "W", "Hz", "s", "V", "A", "Ohm", "F" };
	char *t, buf[64];
	struct eq_error err;
	double v;

	if (size < 1 || !(t = text_of(data + 1, size - 1)))
		return;
	if (eq_parse_quantity(t, units[data[0] % 8], "--fuzz", &v, &err) == 0) {
		CHECK(isfinite(v));
		CHECK(eq_format_quantity(buf, sizeof(buf), v, units[data[0] % 8]) == buf);
		CHECK(memchr(buf, 0, sizeof(buf)));
	} else {
		CHECK(err.msg[0] && memchr(err.msg, 0, sizeof(err.msg)));
	}
	free(t);
}

static void fuzz_uint(const uint8_t *data, size_t size)
{
	unsigned long long max, v;
	struct eq_error err;
	char *t;

	if (size < 1 || !(t = text_of(data + 1, size - 1)))
		return;
	max = data[0] & 0x80 ? ~0ull : (1ull << (data[0] & 63)) - 1;
	if (eq_parse_uint(t, "--fuzz", max, &v, &err) == 0)
		CHECK(v <= max);
	else
		CHECK(err.msg[0] && memchr(err.msg, 0, sizeof(err.msg)));
	free(t);
}

static const char scenario[] =
	"scenario fuzz\nbase_power 150mW\nconsumer lcd 120mW period 16.67ms duty 30%\n"
	"kernel\n  proc idle_loop 0xc0001000 0x200 20mW\nidle idle_loop\n"
	"module /bin/app\n  proc decode 0x1000 0x1000 700mW\n"
	"process app 100 /bin/app\n  map /bin/app 0x400000\n"
	"phase a 2s\n  cpu_idle 40% granularity 25ms\n  run app decode 3\n";

/* Every line of the input is one --set NAME=VALUE, in order. */
static void fuzz_set(const uint8_t *data, size_t size)
{
	struct sim_scenario sc;
	struct eq_error err;
	char *t = text_of(data, size), *line, *next;
	int ok = 1;

	if (!t)
		return;
	if (sim_scenario_parse(&sc, scenario, sizeof(scenario) - 1, "fuzz.scn", &err) < 0)
		__builtin_trap();
	for (line = t; line && ok; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (sim_scenario_set(&sc, line, &err) < 0) {
			CHECK(err.msg[0]);
			ok = 0;
		}
	}
	if (ok && sim_check_feasible(&sc, &err) == 0) {
		const struct sim_params *p = &sc.p;
		const double v[] = { p->supply, p->r_source, p->r_fuse, p->r_sense, p->r_sense_low,
				     p->alpha, p->alpha_low, p->gain_err, p->mirror_offset,
				     p->mirror_noise, p->c_int, p->vx, p->dead_time, p->vb_nominal,
				     p->e_min, p->mcu_clock, p->irq_lat_min, p->irq_lat_max,
				     p->isr_cycles, p->drain_period, p->time_hz, p->time_jitter_pct,
				     p->slice, p->trace_bin };
		size_t i;

		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			CHECK(isfinite(v[i]));
		CHECK(isfinite(sim_scenario_duration(&sc)) && sim_scenario_duration(&sc) > 0);
		CHECK(p->quantum_pulses >= 1 && p->quantum_pulses <= FW_QUANTUM_MAX);
		CHECK(p->jitter_pct <= FW_JITTER_MAX_PCT);
		CHECK(p->e_min > 0 && p->mcu_clock > 0 && p->vb_nominal > 0);
	}
	sim_scenario_free(&sc);
	free(t);
}

static int no_read(struct board_link *l, uint8_t *buf, size_t n, int timeout_ms,
		   struct eq_error *err)
{
	return eq_fail(err, "fuzz: no link");
}

static int no_write(struct board_link *l, const uint8_t *buf, size_t n, struct eq_error *err)
{
	return eq_fail(err, "fuzz: no link");
}

static void no_close(struct board_link *l)
{
}

static void fuzz_board(const uint8_t *data, size_t size)
{
	static const struct board_link_ops ops = { no_read, no_write, no_close };
	struct board_link link = { &ops, "fuzz" };
	struct board_client c;
	struct board_event ev;
	struct eq_error err;
	uint64_t last = 0;
	int have = 0;
	unsigned i;

	board_client_init(&c, &link);
	/* in two pieces: a frame may span reads */
	if (board_feed(&c, data, size / 2, &err) == 0 &&
	    board_feed(&c, data + size / 2, size - size / 2, &err) == 0) {
		while (board_next_event(&c, &ev)) {
			if (ev.type == BOARD_EV_BOOT) {
				board_restart_stream(&c);   /* as the logger does */
				have = 0;
				continue;
			}
			CHECK(ev.type == BOARD_EV_RECORD);
			if (ev.restarted)
				have = 0;
			CHECK(!have || ev.rec.time >= last);
			last = ev.rec.time;
			have = 1;
		}
		for (i = 0; i < c.nreplies; i++) {
			const struct fw_msg *m = &c.replies[i];

			if (m->type == FW_REP_INFO && board_check_info(&c, &m->u.info, &err) == 0)
				CHECK(m->u.info.mcu_hz > 0 && m->u.info.tick_hz > 0 &&
				      m->u.info.tick_hz <= m->u.info.mcu_hz && m->u.info.baud > 0);
			if (m->type == FW_REP_STATUS && board_check_status(&c, &m->u.status, &err) == 0)
				CHECK(m->u.status.quantum_pulses >= 1 &&
				      m->u.status.quantum_pulses <= FW_QUANTUM_MAX &&
				      m->u.status.jitter_pct <= FW_JITTER_MAX_PCT && m->u.status.vcomp <= 1);
			if (m->type == FW_REP_CAL && board_check_cal(&c, &m->u.cal, &err) == 0)
				CHECK(m->u.cal.e_min_pj > 0 && m->u.cal.vb_nominal_uv >= 1000 &&
				      m->u.cal.adc_uv_per_lsb_q8 > 0);
		}
	}
	board_client_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0: fuzz_quantity(data + 1, size - 1); break;
	case 1: fuzz_uint(data + 1, size - 1); break;
	case 2: fuzz_set(data + 1, size - 1); break;
	default: fuzz_board(data + 1, size - 1); break;
	}
	return 0;
}
