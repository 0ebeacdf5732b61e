/*
 * fuzz_scenario.c - libFuzzer target over the scenario parser and the
 * simulator behind it: any bytes must give either a scenario or an error
 * message, never a crash, a leak or undefined behaviour; and a scenario
 * that parses is then run (workload, consumers, devices, front end,
 * counter, interrupts, ISR, truth), so the fuzzer reaches what a scenario
 * drives and not only its parser.  Run by test/sim/fuzz-scenario.sh over
 * test/sim/corpus with test/sim/scenario.dict; longer by hand:
 *   build/fuzz/fuzz_scenario -max_len=8192 -dict=test/sim/scenario.dict test/sim/corpus
 *
 * Scenarios are lines, and byte mutations rarely make a whole new statement
 * at a line's start (a second phase in a scenario with a device took more
 * than 100,000 runs and was not found), so a custom mutator works on lines
 * half of the time: it duplicates a line or a phase block, deletes or swaps
 * lines, inserts a statement of the language from the table below, or
 * splices two inputs at line boundaries; the other half are libFuzzer's own
 * byte mutations (with the dictionary).
 *
 * To keep an input to milliseconds, a scenario runs only when small (the
 * limits below; a parser-only pass for the rest), and its front end counts
 * coarse pulses: c_int (and with it E_min, which is C Vx / 3 / alpha Vb)
 * is scaled up so the run makes at most about FUZZ_PULSES pulses.  Every
 * mechanism still runs; only the pulse rate is lower.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_internal.h"
#include "devices.h"

#define FUZZ_SECONDS  20.0  /* simulated at most */
#define FUZZ_EVENTS   2e4   /* workload and consumer changes, device requests */
#define FUZZ_RATE_EV  2e4   /* timer, OS tick, irq-off regions, drains in the run */
#define FUZZ_PULSES   3000.0

static int small_enough(struct sim_scenario *sc)
{
	const struct sim_params *p = &sc->p;
	double T = sim_scenario_duration(sc), e, events = sim_devices_expected_requests(sc);
	size_t i;

	if (!(T > 0) || T > FUZZ_SECONDS || p->ring_samples > 65536 ||
	    (p->trace_bin > 0 && T / p->trace_bin > 1e5))
		return 0;
	for (i = 0; i < sc->nphases; i++) {
		const struct sim_phase *ph = &sc->phases[i];
		double slice = ph->slice > 0 ? ph->slice : p->slice;

		if (ph->idle_frac < 1)
			events += ph->duration * ((1 - ph->idle_frac) / slice + 2 / ph->granularity);
	}
	for (i = 0; i < sc->nconsumers; i++)
		if (sc->consumers[i].period > 0)
			events += 2 * T / sc->consumers[i].period;
	if (events > FUZZ_EVENTS)
		return 0;
	if ((p->time_hz + p->irq_other_hz + p->irqoff_hz + 1 / p->drain_period) * T > FUZZ_RATE_EV)
		return 0;
	/* coarse pulses: E_min and the capacitor scaled together */
	e = sim_max_power(sc) * T / p->e_min;
	if (!isfinite(e))
		return 0;
	if (e > FUZZ_PULSES) {
		sc->p.c_int *= e / FUZZ_PULSES;
		sc->p.e_min *= e / FUZZ_PULSES;
	}
	return 1;
}

/* ---- line-level mutations ----------------------------------------------- */

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Statements the mutator inserts at a line's start: one of each kind the
 * language has (docs/simulator.md), names as the seeds use them. */
static const char *const statements[] = {
	"phase q 1s\n", "phase r 500ms\n cpu_idle 100%\n", " cpu_idle 50% granularity 20ms\n",
	" cpu_idle 100%\n", " cpufreq 59MHz\n", " slice 2ms\n", " power_spread 10%\n",
	" run a f\n", " run a f 2 thread t\n", " set lamp off\n", " set lamp 80mW\n", " use lamp\n",
	" request disk a f every 300ms\n", " request disk a f every 1s burst 3 gap 20ms active 80ms bytes 100\n",
	"consumer lamp 50mW\n", "consumer lcd 120mW period 16.67ms duty 30%\n",
	"consumer audio 180mW timeout 1s off\n", "device disk active 1W tail 100ms 300mW idle 10mW\n",
	"device radio active 850mW tail 2s 600mW\n", "freq 206MHz 1.5V\n", "freq 59MHz\n",
	"isr_power 900mW@206MHz 260mW@59MHz\n", "base_power 100mW\n", "calls f f\n",
	"module /bin/b\n proc g 0x1000 0x100 300mW\n", "process b 11 /bin/b\n map /bin/b 0x400000\n",
	" thread 12 t\n", "quantum_pulses 2\n", "vcomp on\n", "sampling shared\n", "irqoff_hz 100\n",
	"range low\n", "jitter_pct 0\n",
};
#define NSTATEMENTS (sizeof(statements) / sizeof(statements[0]))

struct lines {
	size_t n, at[1024]; /* line starts; at[n] = size */
};

static void split_lines(const uint8_t *d, size_t size, struct lines *l)
{
	size_t i;

	l->n = 0;
	l->at[l->n++] = 0;
	for (i = 0; i < size && l->n < 1023; i++)
		if (d[i] == '\n' && i + 1 < size)
			l->at[l->n++] = i + 1;
	l->at[l->n] = size;
}

static uint32_t next(uint32_t *r)
{
	*r = *r * 1103515245u + 12345u;
	return *r >> 8;
}

/* out = d[0, at) + ins[0, nins) + d[at, size), within max */
static size_t insert_at(uint8_t *d, size_t size, size_t max, size_t at, const uint8_t *ins,
			size_t nins)
{
	if (size + nins > max || !nins)
		return size;
	memmove(d + at + nins, d + at, size - at);
	memcpy(d + at, ins, nins);
	return size + nins;
}

static size_t line_mutate(uint8_t *d, size_t size, size_t max, uint32_t r)
{
	struct lines l;
	size_t a, b, e, len;
	uint8_t *copy;

	split_lines(d, size, &l);
	a = next(&r) % l.n;
	b = next(&r) % (l.n + 1);
	switch (next(&r) % 5) {
	case 0: /* insert a statement at a line's start */ {
		const char *st = statements[next(&r) % NSTATEMENTS];

		if (b > 0 && b == l.n && size && d[size - 1] != '\n')
			size = insert_at(d, size, max, size, (const uint8_t *)"\n", 1), b = l.n;
		return insert_at(d, size, max, b < l.n ? l.at[b] : size, (const uint8_t *)st, strlen(st));
	}
	case 1: /* delete a line */
		len = l.at[a + 1] - l.at[a];
		memmove(d + l.at[a], d + l.at[a + 1], size - l.at[a + 1]);
		return size - len;
	case 2: /* duplicate a line, or a block: from a phase (module, process)
		 * line to the next line that opens one */
		e = a + 1;
		if (l.at[a] + 5 < size && (!memcmp(d + l.at[a], "phase", 5) || !memcmp(d + l.at[a], "modul", 5) ||
					  !memcmp(d + l.at[a], "proce", 5)))
			while (e < l.n && d[l.at[e]] == ' ')
				e++;
		len = l.at[e] - l.at[a];
		copy = malloc(len + 1);
		if (!copy)
			return size;
		memcpy(copy, d + l.at[a], len);
		if (len && copy[len - 1] != '\n')
			copy[len++] = '\n';
		size = insert_at(d, size, max, b < l.n ? l.at[b] : size, copy, len);
		free(copy);
		return size;
	case 3: /* swap two lines: delete one, insert it elsewhere */
		len = l.at[a + 1] - l.at[a];
		copy = malloc(len + 1);
		if (!copy)
			return size;
		memcpy(copy, d + l.at[a], len);
		if (len && copy[len - 1] != '\n')
			copy[len++] = '\n';
		memmove(d + l.at[a], d + l.at[a + 1], size - l.at[a + 1]);
		size -= l.at[a + 1] - l.at[a];
		split_lines(d, size, &l);
		b = next(&r) % (l.n + 1);
		size = insert_at(d, size, max, b < l.n ? l.at[b] : size, copy, len);
		free(copy);
		return size;
	default: /* bytes, within a line or across */
		return LLVMFuzzerMutate(d, size, max);
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint32_t r = seed;

	if (next(&r) % 2 || !size)
		return LLVMFuzzerMutate(data, size, max_size);
	return line_mutate(data, size, max_size, r);
}

/* Splices two inputs at line boundaries: the first's lines up to one, the
 * second's from one (a phase of one scenario after another's). */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
				 uint8_t *out, size_t max_out, unsigned int seed)
{
	struct lines l1, l2;
	uint32_t r = seed;
	size_t a, b, n;

	split_lines(d1, s1, &l1);
	split_lines(d2, s2, &l2);
	a = l1.at[next(&r) % (l1.n + 1)];
	b = l2.at[next(&r) % (l2.n + 1)];
	n = a < max_out ? a : max_out;
	memcpy(out, d1, n);
	if (n < max_out && n && out[n - 1] != '\n')
		out[n++] = '\n';
	if (s2 - b > max_out - n)
		s2 = b + (max_out - n);
	memcpy(out + n, d2 + b, s2 - b);
	return n + (s2 - b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_scenario sc;
	struct sim_result res;
	struct eq_error err;
	struct sim_options opt = { .quiet = 1 };

	if (sim_scenario_parse(&sc, (const char *)data, size, "fuzz.scn", &err) < 0) {
		if (!memchr(err.msg, 0, sizeof(err.msg)) || !err.msg[0])
			__builtin_trap(); /* every failure says why */
		return 0;
	}
	if (small_enough(&sc)) {
		memset(&res, 0, sizeof(res));
		if (sim_run(&sc, &opt, &res, &err) < 0 && !err.msg[0])
			__builtin_trap();
		sim_result_free(&res);
	}
	sim_scenario_free(&sc);
	return 0;
}
