/*
 * builtin-board.c - eqprof board: talk to the energy-counter board.
 *
 *   eqprof board list      [--watch]
 *   eqprof board info      [--port SPEC]
 *   eqprof board config    [--port SPEC] [--quantum N] [--jitter PCT]
 *                          [--vcomp on|off] [--width TIME]
 *   eqprof board calibrate [--port SPEC] [--measured VOLTS] [--vb-nominal VOLTS]
 *                          [--e-min ENERGY] [--adc-offset VOLTS] [--serial N]
 *   eqprof board log       [--port SPEC] -o OUT.eqp [--duration TIME]
 *                          [--count N] [--seed N] [--stall-timeout TIME]
 *                          [--on-reset continue|stop] [--wait] [-q]
 *
 * Exit status: 0, 1 failed, 2 bad usage, 3 the board was unplugged (a log
 * keeps the records up to the pull; docs/firmware.md, "When the cable is
 * pulled").
 * The protocol is docs/protocol.md, the codec the firmware's own; the link
 * is a tty or libftdi1 (host/board/transport.h).  SPEC defaults to
 * $EQPROF_BOARD, else the first board `list` finds.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/client.h"
#include "board/log.h"
#include "board/usb.h"
#include "cmd.h"
#include "builtin.h"
#include "parse-options.h"
#include "file/eqp.h"
#include "progress.h"
#include "fw_defaults.h"
#include "util/units.h"

/* Board log copies the firmware's record flags into the recording as they are. */
_Static_assert(FW_REC_F_DROPPED == EQP_BOARD_F_DROPPED && FW_REC_F_LATE == EQP_BOARD_F_LATE &&
	       FW_REC_F_VCLAMP == EQP_BOARD_F_VCLAMP, "firmware and file record flags differ");

struct board_opts {
	const char *port, *out;
	const char *quantum, *jitter, *vcomp, *width;
	const char *measured, *vb_nominal, *e_min, *adc_offset, *serial;
	const char *duration, *count, *seed, *stall_timeout, *on_reset;
	int quiet, verbose, watch, wait;
};

/* SIGINT/SIGTERM: the first stops the log cleanly, a second at once. */
static volatile sig_atomic_t stop_requests;

static void on_stop_signal(int sig)
{
	(void)sig;
	if (stop_requests < 2)
		stop_requests++;
}

/* SIGINT and SIGTERM count stop requests (the loops look at them). */
static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int fail(const struct eq_error *err)
{
	eq_error_msg("%s", err->msg);
	return 1;
}

/* ---- the options ----------------------------------------------------------- */

/* The subcommands, each a mode of board's one table. */
#define B_LIST      0x02u
#define B_INFO      0x04u
#define B_CONFIG    0x08u
#define B_CALIBRATE 0x10u
#define B_LOG       0x20u
#define B_PORT      (B_INFO | B_CONFIG | B_CALIBRATE | B_LOG)

static const char *const subcommands[] = { "list", "info", "config", "calibrate", "log" };

#define STR(s, l, field, a, m, h, ...) \
	{ .type = EQ_OPTION_STRING, .short_name = (s), .long_name = (l), .value = &o->field, \
	  .argh = (a), .modes = (m), .help = (h), __VA_ARGS__ }

static const char board_usage[] =
	"eqprof board list      [--watch]\n"
	"eqprof board info      [--port SPEC]\n"
	"eqprof board config    [--port SPEC] [--quantum N] [--jitter PCT] [--vcomp on|off] [--width TIME]\n"
	"eqprof board calibrate [--port SPEC] [--measured VOLTS] [--vb-nominal VOLTS] [--e-min ENERGY]\n"
	"                       [--adc-offset VOLTS] [--serial N]\n"
	"eqprof board log       [--port SPEC] -o OUT.eqp [--duration TIME] [--count N] [--seed N]\n"
	"                       [--stall-timeout TIME] [--on-reset continue|stop] [--wait] [-q]\n";

static const char board_footer[] =
	"SPEC is tty:PATH (or a bare PATH) or ftdi:[SERIAL]; default $EQPROF_BOARD, else the\n"
	"first board found.  log --wait: a board unplugged is waited for and the log goes on.\n"
	"Exit status 3: the board was unplugged (a log keeps what came before).\n"
	"docs/firmware.md and docs/protocol.md have the details.\n";

#define EXIT_UNPLUGGED 3

/* board SUBCOMMAND [options]: o gets the options; the subcommand's mode,
 * or 0 after --help, or -1 after an error. */
static int parse_opts(int argc, char **argv, struct board_opts *o)
{
	const struct eq_option options[] = {
		OPT_ARG("SUBCOMMAND", "list, info, config, calibrate or log"),
		STR('p', "port", port, "SPEC", B_PORT, "the board (see SPEC below)"),
		OPT_QUIET(&o->quiet, "no progress line (log) and no notes"),
		OPT_VERBOSE(&o->verbose, "notes in full"),
		OPT_GROUP("board list:"),
		{ .type = EQ_OPTION_FLAG, .long_name = "watch", .value = &o->watch, .defval = 1,
		  .modes = B_LIST, .help = "keep listing boards as they are plugged in and out" },
		OPT_GROUP("board config (each setting given is sent to the board):"),
		STR(0, "quantum", quantum, "N", B_CONFIG, "pulses of the energy counter per interrupt"),
		STR(0, "jitter", jitter, "PCT", B_CONFIG, "the quantum drawn within +-PCT % (0 to 100)"),
		STR(0, "vcomp", vcomp, "on|off", B_CONFIG, "battery-voltage compensation",
		    .complete = "on off"),
		STR(0, "width", width, "TIME", B_CONFIG, "the IRQ pulse width (1us to 65.535us)"),
		OPT_GROUP("board calibrate (each value given is written to the board's calibration):"),
		STR(0, "measured", measured, "VOLTS", B_CALIBRATE,
		    "the battery voltage a meter reads now: the ADC is scaled to it"),
		STR(0, "vb-nominal", vb_nominal, "VOLTS", B_CALIBRATE,
		    "the battery voltage the compensation refers to"),
		STR(0, "e-min", e_min, "ENERGY", B_CALIBRATE,
		    "the energy of one counter pulse at the nominal voltage"),
		STR(0, "adc-offset", adc_offset, "VOLTS", B_CALIBRATE, "the ADC's offset"),
		STR(0, "serial", serial, "N", B_CALIBRATE, "the board's serial number"),
		OPT_GROUP("board log (docs/firmware.md, \"Logging\"):"),
		STR('o', "output", out, "OUT.eqp", B_LOG, "the recording to write (required)",
		    .complete = EQ_COMPLETE_FILE),
		STR(0, "duration", duration, "TIME", B_LOG, "stop after TIME (default: Ctrl-C)"),
		STR(0, "count", count, "N", B_LOG, "stop after N records"),
		STR(0, "seed", seed, "N", B_LOG, "the seed of the board's quantum jitter"),
		STR(0, "stall-timeout", stall_timeout, "TIME", B_LOG,
		    "how long the stream may stay silent before the link counts as\n"
		    "stalled (100ms to 1h, default 1s)"),
		STR(0, "on-reset", on_reset, "continue|stop", B_LOG,
		    "when the board resets during the log: go on in a new segment\n"
		    "(continue, the default) or stop", .complete = "continue stop"),
		{ .type = EQ_OPTION_FLAG, .long_name = "wait", .value = &o->wait, .defval = 1,
		  .modes = B_LOG, .help = "a board unplugged is waited for and the log goes on" },
		OPT_END(),
	};
	struct eq_command cmd = {
		.name = "board", .usage = board_usage, .options = options, .footer = board_footer,
		.flags = EQ_PARSE_SUBCOMMANDS,
		.mode_names = { NULL, "list", "info", "config", "calibrate", "log" },
	};
	unsigned i, mode;
	int n;

	memset(o, 0, sizeof(*o));
	for (i = 0; argc > 1 && i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i]))
			cmd.mode = B_LIST << i;
	if (argc > 1 && cmd.mode) {
		argc--;       /* the subcommand's options */
		argv++;
	} else if (argc > 1 && argv[1][0] != '-') {
		return eq_usage_error(&cmd, 0, "unknown subcommand '%s'", argv[1]), -1;
	}
	n = eq_parse_options(&cmd, argc, argv, &mode);
	if (n == EQ_PARSE_HELP)
		return 0;
	if (n < 0)
		return -1;
	if (!cmd.mode)
		return eq_usage_error(&cmd, 0, "which subcommand? list, info, config, calibrate or log"), -1;
	if (n > 0)
		return eq_usage_error(&cmd, mode, "unexpected argument '%s'", argv[0]), -1;
	return (int)mode;
}

static void print_usb(void *ctx, int arrived, const struct board_usb *b)
{
	char where[96];

	(void)ctx;
	board_usb_where(b, where, sizeof(where));
	if (!arrived)
		printf("left     %s: FT232R serial %s\n", where, b->serial[0] ? b->serial : "(unknown)");
	else
		printf("arrived  %s: FT232R %04x:%04x \"%s\", serial %s, %s%s\n", where,
		       BOARD_USB_VID, BOARD_USB_PID, b->product[0] ? b->product : "(product unknown)",
		       b->serial[0] ? b->serial : "(unknown)",
		       b->tty[0] ? b->tty : "no tty node (use ftdi:SERIAL)",
		       b->denied ? ", permission denied (udev rules: `eqprof board list`)" : "");
	fflush(stdout);
}

static void print_watching(void *ctx, const char *how)
{
	(void)ctx;
	printf("watching for boards (%s; Ctrl-C stops)\n", how);
	fflush(stdout);
}

static int cmd_list(const struct board_opts *o)
{
	struct board_found found[16];
	struct eq_error note;
	int n = board_list(found, 16, &note), i;

	if (n == 0)
		printf("no board found (FT232R 0403:6001 on USB, /dev/ttyUSB*)\n");
	for (i = 0; i < n; i++)
		printf("%-28s %s\n", found[i].spec, found[i].what);
	if (note.msg[0])
		printf("note: %s\n", note.msg);
	if (!o->watch)
		return 0;
	/* Hot-plug: boards as they come and go, until Ctrl-C or SIGTERM. */
	catch_stop_signals();
	fflush(stdout);
	if (board_usb_watch(&stop_requests, print_usb, NULL, print_watching, &note) < 0)
		return fail(&note);
	return 0;
}

static int query(struct board_client *c, uint8_t type, struct fw_msg *rep, struct eq_error *err)
{
	struct fw_msg req;

	memset(&req, 0, sizeof(req));
	req.type = type;
	return board_request(c, &req, rep, err);
}

static void print_state(const struct fw_msg *info, const struct fw_msg *st, const struct fw_msg *cal)
{
	char buf[32], buf2[32];

	printf("board          %s, firmware %u.%u, protocol %u\n", info->u.info.name,
	       info->u.info.fw_major, info->u.info.fw_minor, info->u.info.proto);
	printf("clocks         MCU %s, timestamps %s, link %u Bd\n",
	       eq_format_quantity(buf, sizeof(buf), info->u.info.mcu_hz, "Hz"),
	       eq_format_quantity(buf2, sizeof(buf2), info->u.info.tick_hz, "Hz"), info->u.info.baud);
	printf("counting       %s\n", st->u.status.running ? "yes" : "no");
	printf("quantum        %u pulses = %s, jitter +-%u%%, voltage compensation %s\n",
	       st->u.status.quantum_pulses,
	       eq_format_quantity(buf, sizeof(buf),
				  st->u.status.quantum_pulses * cal->u.cal.e_min_pj * 1e-12, "J"),
	       st->u.status.jitter_pct, st->u.status.vcomp ? "on" : "off");
	printf("irq width      %u ns\n", st->u.status.width_ns);
	printf("battery        %.4f V (nominal %.4f V)\n", st->u.status.vbat_uv / 1e6,
	       cal->u.cal.vb_nominal_uv / 1e6);
	printf("counted        %u quanta, %u pulses, %u late, %u records dropped, %u bad frames\n",
	       st->u.status.quanta, st->u.status.pulses, st->u.status.late, st->u.status.dropped,
	       st->u.status.rx_errors);
	printf("calibration    %s: E_min %s, ADC %.3f uV/count %+d uV, serial %u\n",
	       st->u.status.eeprom_ok ? "EEPROM" : "defaults (EEPROM blank)",
	       eq_format_quantity(buf, sizeof(buf), cal->u.cal.e_min_pj * 1e-12, "J"),
	       cal->u.cal.adc_uv_per_lsb_q8 / 256.0, cal->u.cal.adc_offset_uv, cal->u.cal.serial);
}

static int show(struct board_client *c, struct eq_error *err)
{
	struct fw_msg info, st, cal;

	if (query(c, FW_REQ_INFO, &info, err) < 0 || query(c, FW_REQ_STATUS, &st, err) < 0 ||
	    query(c, FW_REQ_CAL_READ, &cal, err) < 0)
		return -1;
	print_state(&info, &st, &cal);
	return 0;
}

#define WIDTH_NS_MIN 1000
#define WIDTH_NS_MAX 65535

static int cmd_config(struct board_client *c, const struct board_opts *o, struct eq_error *err)
{
	unsigned long long v;
	double d;

	if (o->quantum && (eq_parse_uint(o->quantum, "--quantum", 1UL << 24, &v, err) < 0 ||
			   board_simple(c, FW_REQ_SET_QUANTUM, (uint32_t)v, err) < 0))
		return -1;
	if (o->jitter && (eq_parse_uint(o->jitter, "--jitter", 100, &v, err) < 0 ||
			  board_simple(c, FW_REQ_SET_JITTER, (uint32_t)v, err) < 0))
		return -1;
	if (o->vcomp) {
		if (strcmp(o->vcomp, "on") && strcmp(o->vcomp, "off"))
			return eq_fail(err, "--vcomp takes on or off, not '%s'", o->vcomp);
		if (board_simple(c, FW_REQ_SET_VCOMP, !strcmp(o->vcomp, "on"), err) < 0)
			return -1;
	}
	if (o->width) {
		/* The protocol carries the width in a u16 of ns (docs/protocol.md). */
		if (eq_parse_quantity(o->width, "s", "--width", &d, err) < 0)
			return -1;
		if (!(d * 1e9 >= WIDTH_NS_MIN - 0.5 && d * 1e9 < WIDTH_NS_MAX + 0.5))
			return eq_fail(err, "--width %s: the IRQ pulse width must be within 1us..65.535us "
				       "(the board takes whole ns up to 65535)", o->width);
		if (board_simple(c, FW_REQ_SET_WIDTH, (uint32_t)llround(d * 1e9), err) < 0)
			return -1;
	}
	return show(c, err);
}

/* A value about to become a field of the board's calibration: finite and
 * inside what the field holds (a cast out of range would be undefined). */
static int in_range(double v, double lo, double hi, const char *opt, const char *range,
		    struct eq_error *err)
{
	if (!(v > lo - 0.5 && v < hi + 0.5))   /* llround(v) in [lo, hi] */
		return eq_fail(err, "%s: out of range (%s)", opt, range);
	return 0;
}

static int cmd_calibrate(struct board_client *c, const struct board_opts *o, struct eq_error *err)
{
	struct fw_msg cal, st, req, rep;
	unsigned long long v;
	double d;

	if (query(c, FW_REQ_CAL_READ, &cal, err) < 0 || query(c, FW_REQ_STATUS, &st, err) < 0)
		return -1;
	req = cal;
	req.type = FW_REQ_CAL_WRITE;
	if (o->measured) {
		/* Scale the ADC gain so the board reads what the meter reads. */
		double reads = st.u.status.vbat_uv - cal.u.cal.adc_offset_uv;

		if (eq_parse_quantity(o->measured, "V", "--measured", &d, err) < 0)
			return -1;
		if (reads <= 0)
			return eq_fail(err, "--measured: the board reads no voltage (is the battery connected?)");
		if (!(d > 0) || in_range(cal.u.cal.adc_uv_per_lsb_q8 * (d * 1e6 - cal.u.cal.adc_offset_uv) /
					 reads, 1, UINT32_MAX, "--measured", "an ADC gain", err) < 0)
			return eq_fail(err, "--measured %s: not a battery voltage the board can be "
				       "calibrated to (it reads %.4f V now)", o->measured,
				       st.u.status.vbat_uv / 1e6);
		req.u.cal.adc_uv_per_lsb_q8 = (uint32_t)llround(cal.u.cal.adc_uv_per_lsb_q8 *
						(d * 1e6 - cal.u.cal.adc_offset_uv) / reads);
	}
	if (o->vb_nominal) {
		if (eq_parse_quantity(o->vb_nominal, "V", "--vb-nominal", &d, err) < 0 ||
		    in_range(d * 1e6, 1000, UINT32_MAX, "--vb-nominal", "1 mV to 4294 V", err) < 0)
			return -1;
		req.u.cal.vb_nominal_uv = (uint32_t)llround(d * 1e6);
	}
	if (o->e_min) {
		if (eq_parse_quantity(o->e_min, "J", "--e-min", &d, err) < 0 ||
		    in_range(d * 1e12, 1, UINT32_MAX, "--e-min", "1 pJ to 4.29 mJ", err) < 0)
			return -1;
		req.u.cal.e_min_pj = (uint32_t)llround(d * 1e12);
	}
	if (o->adc_offset) {
		if (eq_parse_quantity(o->adc_offset, "V", "--adc-offset", &d, err) < 0 ||
		    in_range(d * 1e6, INT32_MIN, INT32_MAX, "--adc-offset", "-2147 V to 2147 V", err) < 0)
			return -1;
		req.u.cal.adc_offset_uv = (int32_t)llround(d * 1e6);
	}
	if (o->serial) {
		if (eq_parse_uint(o->serial, "--serial", 0xffffffffULL, &v, err) < 0)
			return -1;
		req.u.cal.serial = (uint32_t)v;
	}
	if (board_request(c, &req, &rep, err) < 0)
		return -1;
	return show(c, err);
}

/* The closing line: what was counted, written and lost, never "0 dropped"
 * when records are missing. */
static void summary(const struct board_log_opts *lo, const struct board_log_totals *t)
{
	int lossy = t->missing || t->bad_frames || t->late_unrecorded || t->resets || t->stalls ||
		    t->unplugs;
	char *line = NULL;
	size_t len = 0;
	FILE *m;

	if (lo->quiet && !lossy)
		return;
	m = open_memstream(&line, &len);
	if (!m) {
		eq_error_msg("%llu records written to %s", (unsigned long long)t->records, lo->out);
		return;
	}
	fprintf(m, "%llu records written to %s", (unsigned long long)t->records,
		lo->out);
	if (t->quanta)
		fprintf(m, " (the board counted %llu quanta)", (unsigned long long)t->quanta);
	fprintf(m, "; %llu missing", (unsigned long long)t->missing);
	if (t->missing)
		fprintf(m, " (%llu dropped by the board, %llu lost on the link)",
			(unsigned long long)t->dropped,
			(unsigned long long)(t->missing > t->dropped ? t->missing - t->dropped : 0));
	fprintf(m, "; %llu bad frames; %llu late", (unsigned long long)t->bad_frames,
		(unsigned long long)t->late);
	if (t->late_unrecorded)
		fprintf(m, " (%llu of them with no record)", (unsigned long long)t->late_unrecorded);
	if (t->stalls)
		fprintf(m, "; %llu stall%s", (unsigned long long)t->stalls, t->stalls == 1 ? "" : "s");
	if (t->segments > 1 || t->resets)
		fprintf(m, "; %u segment%s (the board reset %u time%s)", t->segments,
			t->segments == 1 ? "" : "s", t->resets, t->resets == 1 ? "" : "s");
	if (t->unplugs)
		fprintf(m, "; unplugged %u time%s (away %.1f s)%s", t->unplugs,
			t->unplugs == 1 ? "" : "s", t->away_s,
			t->unplugged ? ", and it was when the log ended" : "");
	fclose(m);
	eq_error_msg("%s", line);
	free(line);
}

static int cmd_log(struct board_client *c, const struct board_opts *o, struct eq_error *err)
{
	struct board_log_opts lo = { .out = o->out, .stall_timeout = 1.0, .quiet = o->quiet,
				     .wait = o->wait, .baud = FW_UART_BAUD, .stop = &stop_requests };
	struct board_log_totals t;
	unsigned long long v;
	int rc;

	if (!o->out)
		return eq_fail(err, "log needs -o OUT.eqp");
	if ((o->duration && eq_parse_quantity(o->duration, "s", "--duration", &lo.seconds, err) < 0) ||
	    (o->count && eq_parse_uint(o->count, "--count", 1ULL << 32, &v, err) < 0))
		return -1;
	lo.count = o->count ? v : 0;
	if (o->seed) {
		if (eq_parse_uint(o->seed, "--seed", 0xffffffffULL, &v, err) < 0)
			return -1;
		lo.seed = (uint32_t)v;
	}
	if (o->stall_timeout &&
	    (eq_parse_quantity(o->stall_timeout, "s", "--stall-timeout", &lo.stall_timeout, err) < 0 ||
	     !(lo.stall_timeout >= 0.1 && lo.stall_timeout <= 3600)))
		return eq_fail(err, "--stall-timeout %s: give a time from 100ms to 1h", o->stall_timeout);
	if (o->on_reset && strcmp(o->on_reset, "continue") && strcmp(o->on_reset, "stop"))
		return eq_fail(err, "--on-reset takes continue or stop, not '%s'", o->on_reset);
	lo.on_reset_stop = o->on_reset && !strcmp(o->on_reset, "stop");
	catch_stop_signals();
	rc = board_log(c, &lo, &t, err);
	if (t.committed)
		summary(&lo, &t);
	if (rc > 0)
		return eq_fail(err, "the board reset during the log and --on-reset stop was given: "
			       "the records before the reset are in %s", o->out);
	if (rc < 0 && t.committed)
		return eq_fail_prefix(err, "the log ended early (the records received are in %s)",
				      o->out);
	return rc;
}

int cmd_board(int argc, char **argv)
{
	struct board_opts o;
	struct board_link *link;
	struct board_client c;
	struct eq_error err;
	int rc, mode, unplugged;

	mode = parse_opts(argc, argv, &o);
	if (mode <= 0)
		return mode ? 2 : 0;
	if (mode == B_LIST)
		return cmd_list(&o);
	link = board_link_open_default(o.port, FW_UART_BAUD, &err);
	if (!link)
		return fail(&err);
	board_client_init(&c, link);
	if (mode == B_INFO)
		rc = show(&c, &err);
	else if (mode == B_CONFIG)
		rc = cmd_config(&c, &o, &err);
	else if (mode == B_CALIBRATE)
		rc = cmd_calibrate(&c, &o, &err);
	else
		rc = cmd_log(&c, &o, &err);
	board_client_free(&c);
	/* The log may have opened the link again (the board unplugged and back);
	 * a pty that closed is not a board unplugged from USB. */
	unplugged = !c.link || (c.link->gone && board_usb_present(c.link->name) >= 0);
	board_link_close(c.link);
	if (rc < 0)
		fail(&err);
	return rc < 0 ? (unplugged ? EXIT_UNPLUGGED : 1) : 0;
}
