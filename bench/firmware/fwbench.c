/*
 * fwbench.c - figures of the board firmware running in simavr:
 *   - the record stream: records per second delivered when quanta come
 *     faster than the link carries them, against the line's arithmetic;
 *   - the highest pulse rate with complete records (every quantum exact,
 *     none LATE, every record received) and the highest counted exactly
 *     (records may be dropped, counted and flagged), for N=64 J=5% and
 *     smaller N;
 *   - the longest stretch with interrupts masked, in MCU cycles, while the
 *     board counts at that rate, streams records and answers STATUS, and
 *     where it was; how long the USART can hold input meanwhile;
 *   - IRQ latency from the quantum-completing pulse to the edge on OC1A,
 *     to the compare interrupt's entry, and the IRQ width;
 *   - where the CPU goes (cycles per function) when the stream is saturated.
 * Flash and RAM use are printed by `make -C firmware` (bench/firmware/run.sh).
 * Prints figures; never fails on them.
 *
 * usage: fwbench FIRMWARE.elf SYMBOLS   (SYMBOLS: `avr-nm -n` of the ELF)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sim_avr.h>

#include "counter.h"
#include "firmware/simavr/fwsim.h"
#include "fw_defaults.h"

#define HZ 16000000.0
/* simavr times a byte as 11 bits (it always counts a parity bit). */
#define SIM_BITS_PER_BYTE 11

static const char *elf;

struct sym {
	uint32_t addr;
	char name[48];
};
static struct sym *syms;
static size_t nsyms;

static void load_symbols(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256], type;
	unsigned addr;
	struct sym s;

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%x %c %47s", &addr, &type, s.name) != 3 ||
		    (type != 'T' && type != 't') || addr >= 0x800000)
			continue;
		s.addr = addr;
		syms = realloc(syms, (nsyms + 1) * sizeof(*syms));
		syms[nsyms++] = s;
	}
	fclose(f);
}

/* The function holding byte address pc (symbols sorted by address). */
static size_t sym_of(uint32_t pc)
{
	size_t lo = 0, hi = nsyms;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t sym_addr(const char *name)
{
	size_t i;

	for (i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr;
	fprintf(stderr, "fwbench: no symbol %s\n", name);
	exit(1);
}

static void die(const struct eq_error *err)
{
	fprintf(stderr, "fwbench: %s\n", err->msg);
	exit(1);
}

static void request(struct fwsim *s, uint8_t type, uint32_t value, struct fw_msg *rep)
{
	struct fw_msg req, r;
	struct eq_error err;

	fw_msg_request(&req, type, value);
	if (fwsim_request(s, &req, rep ? rep : &r, 1600000, &err) < 0)
		die(&err);
}

static struct fwsim *start(uint32_t n, uint8_t j, uint32_t seed)
{
	struct eq_error err;
	struct fwsim *s = fwsim_open(elf, &err);

	if (!s || fwsim_run_to(s, 32000, &err) < 0)
		die(&err);
	request(s, FW_REQ_SET_QUANTUM, n, NULL);
	request(s, FW_REQ_SET_JITTER, j, NULL);
	request(s, FW_REQ_START, seed, NULL);
	return s;
}

static void feed(struct fwsim *s, double hz, uint64_t count)
{
	struct eq_error err;
	double period = HZ / hz, t = (double)fwsim_cycle(s);
	uint64_t i;

	for (i = 0; i < count; i++) {
		t += period;
		if (fwsim_pulse(s, 2, &err) < 0 || fwsim_run_to(s, (uint64_t)t, &err) < 0)
			die(&err);
	}
}

static void idle(struct fwsim *s, double seconds)
{
	struct eq_error err;

	if (fwsim_run_to(s, fwsim_cycle(s) + (uint64_t)(seconds * HZ), &err) < 0)
		die(&err);
}

/*
 * `quanta` quanta at rate hz: 1 if every quantum was the portable model's
 * preload and none LATE, and (complete) every record arrived.
 */
static int run_ok(double hz, uint32_t n, uint8_t j, unsigned quanta, int complete)
{
	struct fw_counter_cfg cfg = { .quantum_pulses = n, .jitter_pct = j,
				      .vb_nominal_uv = FW_VB_NOMINAL_UV, .seed = 99 };
	struct fw_counter model;
	struct fwsim *s = start(n, j, 99);
	const struct fwsim_edge *e;
	struct fw_record r;
	struct fw_msg st;
	size_t ne, i, nrec = 0;
	uint64_t prev = 1; /* simavr's first-edge lag */
	int good;

	feed(s, hz, (uint64_t)n * quanta + n);
	idle(s, 0.01);
	request(s, FW_REQ_STATUS, 0, &st);
	e = fwsim_edges(s, &ne);
	fw_counter_init(&model, &cfg);
	good = ne >= quanta && st.u.status.late == 0;
	for (i = 0; good && i < quanta; i++) {
		good &= e[i].pulses - prev == fw_counter_next(&model);
		prev = e[i].pulses;
	}
	while (fwsim_take_record(s, &r))
		nrec++;
	if (complete)
		good &= st.u.status.dropped == 0 && nrec == st.u.status.quanta && nrec >= quanta;
	fwsim_close(s);
	return good;
}

static double max_rate(uint32_t n, uint8_t j, int complete)
{
	double lo = 20e3, hi = 4e6;
	int k;

	if (!run_ok(lo, n, j, 1000, complete))
		return 0;
	for (k = 0; k < 14; k++) {
		double mid = (lo + hi) / 2;

		if (run_ok(mid, n, j, 1000, complete))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ---- interrupts masked, and where the cycles go ------------------------ */

struct watch {
	uint64_t run, worst;      /* cycles with interrupts masked: now, longest */
	uint32_t run_pc, worst_pc;/* where the longest began */
	uint64_t *per_sym;        /* cycles per function */
	uint64_t total;
};

static void on_step(void *ctx, uint32_t pc, uint32_t cycles, int irq_on)
{
	struct watch *w = ctx;

	w->per_sym[sym_of(pc)] += cycles;
	w->total += cycles;
	if (irq_on) {
		if (w->run > w->worst) {
			w->worst = w->run;
			w->worst_pc = w->run_pc;
		}
		w->run = 0;
		return;
	}
	if (w->run == 0)
		w->run_pc = pc;
	w->run += cycles;
}

/*
 * Counting at hz with N, J, records streaming, a STATUS request every
 * millisecond from the host: the longest masked stretch and the profile.
 */
static void watch_run(struct watch *w, double hz, uint32_t n, uint8_t j, double seconds)
{
	struct fwsim *s = start(n, j, 5);
	struct fw_msg req;
	double period = HZ / hz, t = (double)fwsim_cycle(s), next_status = t;
	struct eq_error err;
	uint64_t i, count = (uint64_t)(hz * seconds);

	memset(w, 0, sizeof(*w));
	w->per_sym = calloc(nsyms, sizeof(*w->per_sym));
	fwsim_set_step_hook(s, on_step, w);
	fw_msg_request(&req, FW_REQ_STATUS, 0);
	for (i = 0; i < count; i++) {
		t += period;
		if (t >= next_status) {
			req.tag = (uint8_t)(i | 1);
			fwsim_send(s, &req);
			next_status += HZ / 1000;
		}
		if (fwsim_pulse(s, 2, &err) < 0 || fwsim_run_to(s, (uint64_t)t, &err) < 0)
			die(&err);
	}
	fwsim_close(s);
}

static int cmp_desc(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0;
}

static void profile(const struct watch *w)
{
	uint64_t (*rows)[2] = calloc(nsyms, sizeof(*rows));
	size_t i;

	for (i = 0; i < nsyms; i++) {
		rows[i][0] = w->per_sym[i];
		rows[i][1] = i;
	}
	qsort(rows, nsyms, sizeof(*rows), cmp_desc);
	printf("where the CPU goes with the stream saturated (cycles per function):\n");
	for (i = 0; i < 10 && rows[i][0]; i++)
		printf("    %5.1f%%  %s\n", 100.0 * rows[i][0] / w->total, syms[rows[i][1]].name);
	free(rows);
}

/* ---- the record stream ------------------------------------------------- */

static void stream(void)
{
	struct fw_msg m;
	uint8_t frame[FW_FRAME_WIRE_MAX];
	size_t bytes;
	struct fwsim *s;
	struct fw_record r;
	struct fw_msg st;
	uint64_t c0;
	unsigned got = 0, first = 0;
	double secs, sim_line;

	memset(&m, 0, sizeof(m));
	m.type = FW_MSG_RECORD;
	m.u.rec = (struct fw_record){ .seq = 123456, .time = 0x1234567890ULL, .pulses = 64,
				      .vbat_uv = 4070000 };
	bytes = fw_frame_encode(&m, frame, sizeof(frame));
	sim_line = FW_UART_BAUD / (double)SIM_BITS_PER_BYTE / bytes;
	printf("record frame:                                   %zu bytes on the wire\n", bytes);
	printf("line rate at %lu Bd:                          %.0f records/s (8N1, 10 bits a byte); "
	       "%.0f/s in simavr (11 bits a byte)\n", (unsigned long)FW_UART_BAUD,
	       FW_UART_BAUD / 10.0 / bytes, sim_line);
	/* More quanta than the link can carry: count what arrives per second. */
	s = start(64, 5, 1);
	feed(s, 320e3, 32000); /* fill the queues first */
	while (fwsim_take_record(s, &r))
		first = r.seq;
	c0 = fwsim_cycle(s);
	feed(s, 320e3, 320000); /* 1 s of 5000 quanta/s */
	while (fwsim_take_record(s, &r))
		got++;
	secs = (fwsim_cycle(s) - c0) / HZ;
	request(s, FW_REQ_STATUS, 0, &st);
	printf("records delivered, 5000 quanta/s (N=64 J=5%%):  %.0f records/s = %.1f%% of the line "
	       "in simavr (the rest dropped, counted, flagged)\n", got / secs, 100 * got / secs / sim_line);
	printf("board resets under that overload:               %u (dropped %u of %u quanta, "
	       "first seq %u)\n", fwsim_boots(s) - 1, st.u.status.dropped, st.u.status.quanta, first);
	fwsim_close(s);
}

static void latency(uint32_t isr)
{
	struct fwsim *s = start(64, 5, 3);
	struct avr_t *avr = fwsim_core(s);
	struct eq_error err;
	uint64_t pulse_cycle = 0, sum_entry = 0, sum_edge = 0, wmin = ~0ULL, wmax = 0;
	uint64_t emin = ~0ULL, emax = 0;
	size_t seen = 0, ne, i, n = 0;
	const struct fwsim_edge *e;

	/* 100 kHz pulses; record the cycle of each pulse and of each ISR entry after an edge. */
	for (i = 0; i < 64 * 101; i++) {
		uint64_t next = fwsim_cycle(s) + 160;

		pulse_cycle = fwsim_cycle(s);
		if (fwsim_pulse(s, 2, &err) < 0)
			die(&err);
		while (avr->cycle < next) {
			uint32_t pc = avr->pc;

			avr_run(avr);
			if (pc != isr)
				continue;
			e = fwsim_edges(s, &ne);
			if (ne > seen) {
				if (ne > 1) { /* the first quantum carries simavr's lag */
					uint64_t d = avr->cycle - e[ne - 1].rise;

					sum_entry += d;
					emin = d < emin ? d : emin;
					emax = d > emax ? d : emax;
					sum_edge += e[ne - 1].rise - pulse_cycle;
					n++;
				}
				seen = ne;
			}
		}
	}
	e = fwsim_edges(s, &ne);
	for (i = 1; i < ne; i++) {
		uint64_t w = e[i].fall - e[i].rise;

		if (!e[i].fall)
			continue;
		wmin = w < wmin ? w : wmin;
		wmax = w > wmax ? w : wmax;
	}
	printf("IRQ edge after the quantum-completing pulse:    %.1f cycles (compare-match output, "
	       "no software)\n", n ? (double)sum_edge / n : 0.0);
	printf("compare interrupt entry after the edge:         %llu..%llu cycles, mean %.0f "
	       "(%zu quanta)\n", (unsigned long long)emin, (unsigned long long)emax,
	       n ? (double)sum_entry / n : 0.0, n);
	printf("IRQ pulse width (2 us configured):              %.2f..%.2f us\n", wmin / 16.0, wmax / 16.0);
	fwsim_close(s);
}

int main(int argc, char **argv)
{
	struct watch w;
	double r, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: fwbench FIRMWARE.elf SYMBOLS\n");
		return 2;
	}
	elf = argv[1];
	load_symbols(argv[2]);
	stream();
	rc = max_rate(64, 5, 1);
	r = max_rate(64, 5, 0);
	/* the rates the high range needs: docs/hardware.md's SPICE sweep
	 * (test/firmware/docs-numbers.py checks them against the model) */
	printf("highest pulse rate with complete records, N=64 J=5%%: %.0f kHz (%.0f quanta/s; the "
	       "high range needs 82.8 kHz at 1 A, 122 kHz at 1.5 A, the fuse's rating, 161 kHz at 2 A)\n",
	       rc / 1e3, rc / 64);
	printf("highest pulse rate counted exactly, N=64 J=5%%:  %.0f kHz (%.0f quanta/s; beyond the "
	       "complete rate records are dropped, counted and flagged)\n", r / 1e3, r / 64);
	r = max_rate(16, 0, 0);
	printf("highest pulse rate counted exactly, N=16 J=0:   %.0f kHz (%.0f quanta/s)\n", r / 1e3, r / 16);
	r = max_rate(2, 0, 0);
	printf("highest pulse rate counted exactly, N=2 J=0:    %.0f kHz (%.0f quanta/s)\n", r / 1e3, r / 2);
	watch_run(&w, rc, 64, 5, 0.5);
	printf("longest stretch with interrupts masked:         %llu cycles = %.1f us, from %s "
	       "(counting at %.0f kHz, N=64 J=5%%, records streaming, STATUS every ms); a byte stream "
	       "at 1 MBd overruns the USART (2-byte buffer and shift register) when its interrupt "
	       "waits ~20 us\n", (unsigned long long)w.worst, w.worst / 16.0,
	       syms[sym_of(w.worst_pc)].name, rc / 1e3);
	free(w.per_sym);
	watch_run(&w, 320e3, 64, 5, 0.25);
	printf("the same, stream saturated (320 kHz, 5000 quanta/s): %llu cycles = %.1f us, from %s\n",
	       (unsigned long long)w.worst, w.worst / 16.0, syms[sym_of(w.worst_pc)].name);
	profile(&w);
	free(w.per_sym);
	latency(sym_addr("__vector_11"));
	return 0;
}
