/*
 * fwbench.c - figures of the board firmware running in simavr:
 *   - the highest pulse rate counted with no loss and no LATE quantum
 *     (default N=64, J=5 %, records streaming; and N=8 without jitter);
 *   - IRQ latency in MCU cycles from the quantum-completing pulse to the
 *     edge on OC1A, to the compare interrupt's entry, and the IRQ width;
 *   - record stream capacity at the baud rate (line arithmetic, and what
 *     simavr's UART model delivers);
 * Flash and RAM use are printed by `make -C firmware` (bench/firmware/run.sh).
 * Prints figures; never fails on them.
 *
 * usage: fwbench FIRMWARE.elf ISR_ADDRESS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sim_avr.h>

#include "counter.h"
#include "firmware/simavr/fwsim.h"
#include "fw_defaults.h"

#define HZ 16000000.0

static const char *elf;

static int request(struct fwsim *s, uint8_t type, uint32_t value)
{
	struct fw_msg req, rep;
	struct eq_error err;

	memset(&req, 0, sizeof(req));
	req.type = type;
	if (type == FW_REQ_SET_JITTER || type == FW_REQ_SET_VCOMP)
		req.u.u8 = (uint8_t)value;
	else
		req.u.u32 = value;
	if (fwsim_request(s, &req, &rep, 1600000, &err) < 0) {
		fprintf(stderr, "fwbench: %s\n", err.msg);
		exit(1);
	}
	return rep.type;
}

static struct fwsim *start(uint32_t n, uint8_t j, uint32_t seed)
{
	struct eq_error err;
	struct fwsim *s = fwsim_open(elf, &err);

	if (!s || fwsim_run_to(s, 32000, &err) < 0) {
		fprintf(stderr, "fwbench: %s\n", err.msg);
		exit(1);
	}
	request(s, FW_REQ_SET_QUANTUM, n);
	request(s, FW_REQ_SET_JITTER, j);
	request(s, FW_REQ_START, seed);
	return s;
}

static void feed(struct fwsim *s, double hz, uint64_t count)
{
	struct eq_error err;
	double period = HZ / hz, t = (double)fwsim_cycle(s);
	uint64_t i;

	for (i = 0; i < count; i++) {
		t += period;
		fwsim_pulse(s, 2, &err);
		fwsim_run_to(s, (uint64_t)t, &err);
	}
}

/* 1 if `quanta` quanta at rate hz are all exactly the portable model's preloads, none LATE. */
static int lossless(double hz, uint32_t n, uint8_t j, unsigned quanta)
{
	struct fw_counter_cfg cfg = { .quantum_pulses = n, .jitter_pct = j,
				      .vb_nominal_uv = FW_VB_NOMINAL_UV, .seed = 99 };
	struct fw_counter model;
	struct fwsim *s = start(n, j, 99);
	const struct fwsim_edge *e;
	struct fw_msg req, st;
	struct eq_error err;
	size_t ne, i;
	uint64_t prev = 1; /* simavr's first-edge lag */
	int good;

	feed(s, hz, (uint64_t)n * quanta + n);
	memset(&req, 0, sizeof(req));
	req.type = FW_REQ_STATUS;
	fwsim_request(s, &req, &st, 1600000, &err);
	e = fwsim_edges(s, &ne);
	fw_counter_init(&model, &cfg);
	good = ne >= quanta && st.u.status.late == 0;
	for (i = 0; good && i < quanta; i++) {
		good &= e[i].pulses - prev == fw_counter_next(&model);
		prev = e[i].pulses;
	}
	fwsim_close(s);
	return good;
}

static double max_rate(uint32_t n, uint8_t j)
{
	double lo = 2e3, hi = 8e6;
	int k;

	if (!lossless(lo, n, j, 100))
		return 0;
	for (k = 0; k < 14; k++) {
		double mid = (lo + hi) / 2;

		if (lossless(mid, n, j, 100))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void latency(uint16_t isr)
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
		fwsim_pulse(s, 2, &err);
		while (avr->cycle < next) {
			uint16_t pc = avr->pc;

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

static void stream(void)
{
	struct fw_msg m;
	uint8_t frame[FW_FRAME_WIRE_MAX];
	size_t bytes;
	struct fwsim *s;
	struct fw_record r;
	uint64_t c0;
	unsigned got = 0;

	memset(&m, 0, sizeof(m));
	m.type = FW_MSG_RECORD;
	m.u.rec = (struct fw_record){ .seq = 123456, .time = 0x1234567890ULL, .pulses = 64,
				      .vbat_uv = 4070000 };
	bytes = fw_frame_encode(&m, frame, sizeof(frame));
	printf("record frame:                                   %zu bytes on the wire\n", bytes);
	printf("stream capacity at %lu Bd (8N1):              %.0f records/s\n",
	       (unsigned long)FW_UART_BAUD, FW_UART_BAUD / 10.0 / bytes);
	/* Far more quanta than the link can carry: count what arrives per second. */
	s = start(64, 0, 1);
	while (fwsim_take_record(s, &r))
		;
	c0 = fwsim_cycle(s);
	feed(s, 320e3, 320000); /* 1 s of 5000 quanta/s: more than the link carries */
	while (fwsim_take_record(s, &r))
		got++;
	printf("records delivered in simavr, 5000 quanta/s:     %.0f records/s (the rest dropped "
	       "and counted; simavr 1.6 times 11 bits a byte)\n", got / ((fwsim_cycle(s) - c0) / HZ));
	printf("board resets under that overload:               %u\n", fwsim_boots(s) - 1);
	fwsim_close(s);
}

int main(int argc, char **argv)
{
	double r;

	if (argc != 3) {
		fprintf(stderr, "usage: fwbench FIRMWARE.elf ISR_ADDRESS\n");
		return 2;
	}
	elf = argv[1];
	r = max_rate(64, 5);
	printf("highest loss-free pulse rate, N=64 J=5%%:       %.0f kHz (%.0f quanta/s; front "
	       "end tops out near 177 kHz)\n", r / 1e3, r / 64);
	r = max_rate(16, 0);
	printf("highest loss-free pulse rate, N=16 J=0:         %.0f kHz (%.0f quanta/s)\n",
	       r / 1e3, r / 16);
	r = max_rate(8, 0);
	printf("highest loss-free pulse rate, N=8 J=0:          %.0f kHz (%.0f quanta/s)\n",
	       r / 1e3, r / 8);
	r = max_rate(2, 0);
	printf("highest loss-free pulse rate, N=2 J=0:          %.0f kHz (%.0f quanta/s)\n",
	       r / 1e3, r / 2);
	latency((uint16_t)strtoul(argv[2], NULL, 16));
	stream();
	return 0;
}
