/*
 * test_models.c - each model of the simulated handheld (issue 16) against a
 * hand computation made here from the scenario and the parameters, never
 * against the simulator's own truth alone:
 *
 *   - the sampling ISR delays the workload instead of deleting it: busy
 *     work keeps its scenario length, idle pays for the ISR, and with no
 *     idle left the run ends later by the ISR's time;
 *   - the two samplings are two runs of one workload: the same busy time per
 *     procedure, each run perturbed only by its own ISR.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_internal.h"
#include "devices.h"
#include "attrib/attrib.h"

/* One busy procedure (1 s of work at 206 MHz), then 1 s of idle. */
static const char *busy_idle_text =
	"scenario busyidle\n"
	"base_power 100mW\n"
	"kernel\n  proc idle_loop 0xc0001000 0x100 20mW\nidle idle_loop\n"
	"module /bin/w\n  proc work 0x1000 0x1000 800mW\n"
	"process w 5 /bin/w\n  map /bin/w 0x10000\n"
	"phase busy 1s\n  cpu_idle 0\n  run w work\n"
	"phase rest 1s\n  cpu_idle 100%\n";

/* Only busy work: nothing can absorb the ISR's time. */
static const char *all_busy_text =
	"scenario allbusy\n"
	"base_power 100mW\n"
	"kernel\n  proc idle_loop 0xc0001000 0x100 20mW\nidle idle_loop\n"
	"module /bin/w\n  proc work 0x1000 0x1000 800mW\n"
	"process w 5 /bin/w\n  map /bin/w 0x10000\n"
	"phase busy 2s\n  cpu_idle 0\n  run w work\n";

static void load(struct sim_scenario *sc, const char *text, const char *const *sets)
{
	struct eq_error err;

	if (sim_scenario_parse(sc, text, strlen(text), "test.scn", &err) < 0) {
		print_error("%s\n", err.msg);
		fail();
	}
	for (; sets && *sets; sets++)
		if (sim_scenario_set(sc, *sets, &err) < 0) {
			print_error("%s: %s\n", *sets, err.msg);
			fail();
		}
	assert_int_equal(sim_check_feasible(sc, &err), 0);
}

static void run(const struct sim_scenario *sc, struct sim_result *res)
{
	struct eq_error err;

	if (sim_run(sc, NULL, res, &err) < 0) {
		print_error("%s\n", err.msg);
		fail();
	}
}

/* The activity that runs procedure NAME. */
static size_t act_of(const struct sim_scenario *sc, const char *name)
{
	size_t a;

	for (a = 2; a < sc->nacts; a++)
		if (!strcmp(sim_act_proc(sc, a), name))
			return a;
	fail_msg("no activity runs %s", name);
	return 0;
}

/* ---- the ISR delays the work ------------------------------------------- */

/*
 * 1 s of work, 1 s of idle, a 20,000-cycle ISR (97 us at 206 MHz) on every
 * quantum of 370 uJ (N = 8): at 0.9 W busy about 2,400 interrupts a second
 * take about a quarter of the time.  The work must
 * still take exactly its 1 s; the ISRs taken while it ran delay it, and the
 * idle second pays for them: the run still lasts 2 s and idle gets 2 s minus
 * the work minus every ISR.  (The old model deleted the work instead.)
 */
static void test_isr_delays_work(void **state)
{
	static const char *const sets[] = { "isr_cycles=20000", "quantum_pulses=8",
					    "irq_other_cycles=1000", "drain_cycles=0",
					    "drain_cycles_per_sample=0", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	size_t work;
	double isr1 = 20000 / 206e6;

	load(&sc, busy_idle_text, sets);
	run(&sc, &r);
	work = act_of(&sc, "work");
	print_message("# %zu energy ISRs, %.4f s of ISR; work %.9f s, idle %.6f s, run %.9f s\n",
		      r.nenergy, r.isr_time_s, r.acts[work].time_s, r.acts[SIM_ACT_IDLE].time_s,
		      r.duration);
	assert_true(r.isr_time_s > 0.1);                       /* the effect is large here */
	assert_true(fabs(r.isr_time_s - r.nenergy * isr1) < 1e-9 * r.nenergy);
	assert_true(fabs(r.acts[work].time_s - 1.0) < 1e-9);  /* all of the work */
	assert_true(fabs(r.duration - 2.0) < 1e-9);            /* idle absorbed the ISR */
	/* the OS tick's handlers (1,000 cycles each) are paid by idle too */
	assert_true(fabs(r.irq_other_time_s - r.irq_other_count * 1000 / 206e6) < 1e-9 * r.irq_other_count);
	assert_true(fabs(r.acts[SIM_ACT_IDLE].time_s - (2.0 - 1.0 - r.isr_time_s - r.irq_other_time_s)) < 1e-9);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* With no idle, the run takes the work's 2 s plus every ISR. */
static void test_isr_extends_busy_run(void **state)
{
	static const char *const sets[] = { "isr_cycles=20000", "quantum_pulses=8",
					    "irq_other_cycles=1000", "drain_cycles=0",
					    "drain_cycles_per_sample=0", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	size_t work;

	load(&sc, all_busy_text, sets);
	run(&sc, &r);
	work = act_of(&sc, "work");
	assert_true(fabs(r.acts[work].time_s - 2.0) < 1e-9);
	assert_true(fabs(r.duration - (2.0 + r.isr_time_s + r.irq_other_count * 1000 / 206e6)) < 1e-9);
	assert_true(fabs(r.isr_time_s - r.nenergy * 20000 / 206e6) < 1e-9 * r.nenergy);
	/* the true trace covers the longer run */
	assert_int_equal(r.ntrace, (size_t)ceil(r.duration / r.trace_bin));
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/*
 * An ISR longer than a quantum: at 1 W (work 800 mW + ISR-free base 100 mW,
 * the ISR itself 900 mW + 100 mW) a 92 uJ quantum lasts 92 us and the ISR
 * 97 us, so the interrupts never leave the work any time.  The run is
 * refused with the reason instead of running forever.
 */
static void test_isr_storm_refused(void **state)
{
	static const char *const sets[] = { "isr_cycles=20000", "quantum_pulses=2", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	struct eq_error err;

	load(&sc, busy_idle_text, sets);
	assert_int_equal(sim_run(&sc, NULL, &r, &err), -1);
	assert_non_null(strstr(err.msg, "interrupt storm"));
	sim_scenario_free(&sc);
}

/* ---- other interrupt sources: the blind spot ---------------------------- */

/*
 * The OS tick at 1 kHz for the 2 s of busy_idle: 2,000 handlers (one more or
 * less by the phase), each irq_other_cycles at 206 MHz drawing the ISR's
 * power plus the base power; none of them is a sample.  Its energy is the
 * blind spot: hand-computed here from the count.
 */
static void test_other_irq_blind_spot(void **state)
{
	static const char *const sets[] = { "irq_other_hz=1kHz", "irq_other_cycles=4000", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	double len = 4000 / 206e6, k;

	load(&sc, busy_idle_text, sets);
	run(&sc, &r);
	k = (double)r.irq_other_count;
	print_message("# %llu tick handlers, %.4f s, %.4f J\n", (unsigned long long)r.irq_other_count,
		      r.irq_other_time_s, r.irq_other_energy_j);
	assert_true(k >= 1999 && k <= 2001);
	assert_int_equal(r.irq_other_merged, 0);
	assert_true(fabs(r.irq_other_time_s - k * len) < 1e-9 * k);
	/* base 100 mW + the ISR's 900 mW (no terminal voltage: steady) */
	assert_true(fabs(r.irq_other_energy_j / r.irq_other_time_s - 1.0) < 0.005);
	/* the work still gets its whole second */
	assert_true(fabs(r.acts[act_of(&sc, "work")].time_s - 1.0) < 1e-9);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/*
 * Interrupt-disabled regions of 100 us (20,600 cycles at 206 MHz) starting
 * at 1,000 a second (Poisson): a request arriving inside one waits.  Regions
 * of fixed length L starting at rate lambda cover 1 - exp(-lambda L) = 9.5%
 * of the time, so that fraction of the energy-driven samples wait.  With
 * about 2,400 samples the binomial SD is 0.6 pp: the band +-4.5 SD fails a
 * correct simulator about once in 150,000 runs.
 */
static void test_irqoff_defers(void **state)
{
	static const char *const sets[] = { "irqoff_hz=1kHz", "irqoff_cycles=20600",
					    "irq_other_hz=0", "quantum_pulses=8", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	double cover = 1 - exp(-1000 * 20600 / 206e6), frac, sd;

	load(&sc, all_busy_text, sets);
	run(&sc, &r);
	frac = (double)r.irqoff_deferred / r.nenergy;
	sd = sqrt(cover * (1 - cover) / r.nenergy);
	print_message("# %llu of %zu samples waited for interrupts (%.2f%%, expected %.2f%%)\n",
		      (unsigned long long)r.irqoff_deferred, r.nenergy, 100 * frac, 100 * cover);
	assert_true(fabs(frac - cover) < 4.5 * sd);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* ---- where the pc lands ------------------------------------------------- */

/* A 64-byte procedure (16 instructions) with nothing after it. */
static const char *tiny_text =
	"scenario tiny\n"
	"base_power 100mW\n"
	"kernel\n  proc idle_loop 0xc0001000 0x100 20mW\nidle idle_loop\n"
	"module /bin/w\n  proc work 0x1000 0x1000 800mW\n  proc tiny 0x3000 0x40 800mW\n"
	"process w 5 /bin/w\n  map /bin/w 0x10000\n"
	"phase p 2s\n  cpu_idle 0\n  run w work\n  run w tiny\n";

/*
 * pc_hot_share 0.8 over pc_hot_span 0.2: work (1,024 instructions) spends
 * 80% of its samples in its 205 middle instructions [409, 614).  A skew of
 * 1 to 3 instructions (uniform) pushes tiny's samples past its end with
 * probability (1 + 2 + 3) / 3 / 16 = 12.5% (pc uniform there).  With about
 * 1,200 samples each, the bands of 4.5 binomial SD fail a correct simulator
 * less than once in 100,000 runs.
 */
static void test_pc_distribution_and_skew(void **state)
{
	static const char *const sets[] = { "pc_hot_share=80%", "pc_hot_span=20%", "skew_insns=0",
					    "quantum_pulses=16", "drain_cycles=0",
					    "drain_cycles_per_sample=0", NULL };
	static const char *const skews[] = { "pc_hot_share=0", "skew_insns_max=3", "skew_insns=1",
					     "quantum_pulses=16", "drain_cycles=0",
					     "drain_cycles_per_sample=0", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	size_t i, work, tiny, n = 0, hot = 0, past = 0, in_tiny = 0;
	double f, sd;

	load(&sc, tiny_text, sets);
	run(&sc, &r);
	work = act_of(&sc, "work");
	for (i = 0; i < r.nenergy; i++) {
		uint64_t off = r.energy[i].pc - 0x10000 - 0x1000;

		if (sim_attribute(&sc, &r.energy[i]) != work)
			continue;
		n++;
		hot += off / 4 >= 409 && off / 4 < 614;
	}
	f = (double)hot / n;
	sd = sqrt(0.8 * 0.2 / n);
	print_message("# %.2f%% of %zu samples in the hot 20%% (hand 80%%)\n", 100 * f, n);
	assert_true(n > 1000 && fabs(f - 0.8) < 4.5 * sd);
	sim_result_free(&r);
	sim_scenario_free(&sc);

	load(&sc, tiny_text, skews);
	run(&sc, &r);
	tiny = act_of(&sc, "tiny");
	for (i = 0; i < r.nenergy; i++) {
		uint64_t pc = r.energy[i].pc;

		if (r.energy[i].pid != 5 || pc < 0x13000)
			continue;
		in_tiny += sim_attribute(&sc, &r.energy[i]) == tiny;
		past += pc >= 0x13040;
	}
	f = (double)past / (past + in_tiny);
	sd = sqrt(0.125 * 0.875 / (past + in_tiny));
	print_message("# %.2f%% of tiny's %zu samples past its end (hand 12.5%%)\n", 100 * f, past + in_tiny);
	assert_true(past + in_tiny > 1000 && fabs(f - 0.125) < 4.5 * sd);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* ---- the recorder ------------------------------------------------------ */

/*
 * The recorder wakes every drain_period and runs drain_cycles plus
 * drain_cycles_per_sample for every sample it drains, at 206 MHz, as the
 * process eqprof (its samples name it).  Hand: its time is exactly
 * (drains x 50,000 + samples x 2,000) / 206 MHz (the samples of the last,
 * final drain excepted: it runs after the workload), and the work still
 * gets its whole second.
 */
static void test_recorder_cost(void **state)
{
	static const char *const sets[] = { "drain_cycles=50000", "drain_cycles_per_sample=2000",
					    "irq_other_hz=0", "quantum_pulses=16", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	uint64_t in_rec = 0, drained;
	double hand;
	size_t i;

	load(&sc, busy_idle_text, sets);
	run(&sc, &r);
	/* 19 drains at 0.1 s .. 1.9 s inside the 2 s run, and the final one */
	assert_int_equal(r.drains, 20);
	/* samples drained by those 19: all but those taken after 1.9 s */
	for (i = 0, drained = 0; i < r.nenergy; i++)
		drained += r.energy[i].time * 1e-9 / (1 - 50e-6) < 1.9;
	hand = (19 * 50000.0 + 2000.0 * drained) / 206e6;
	print_message("# recorder: %.6f s (hand %.6f s), %.3f%% of the time\n", r.recorder_time_s,
		      hand, 100.0 * r.acts[sc.nacts].time_s / r.duration);
	assert_true(fabs(r.recorder_time_s - hand) < 1e-9);
	for (i = 0; i < r.nenergy; i++)
		in_rec += sim_attribute(&sc, &r.energy[i]) == sc.nacts;
	assert_true(in_rec > 0);
	assert_true(fabs(r.acts[act_of(&sc, "work")].time_s - 1.0) < 1e-9);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* ---- latency in cycles, clocks ----------------------------------------- */

/* Itsy-like: 1 s at 206 MHz then 1 s at 59 MHz, busy. */
static const char *twofreq_text =
	"scenario twofreq\n"
	"base_power 100mW\n"
	"freq 206MHz\nfreq 59MHz\n"
	"kernel\n  proc idle_loop 0xc0001000 0x100 20mW\nidle idle_loop\n"
	"module /bin/w\n  proc work 0x1000 0x1000 600mW@206MHz 200mW@59MHz\n"
	"process w 5 /bin/w\n  map /bin/w 0x10000\n"
	"phase fast 1s\n  cpufreq 206MHz\n  cpu_idle 0\n  run w work\n"
	"phase slow 1s\n  cpufreq 59MHz\n  cpu_idle 0\n  run w work\n";

/*
 * A latency of exactly 5,900 cycles: 28.6 us at 206 MHz, 100 us at 59 MHz.
 * Each energy sample's time minus its board edge's time is that latency
 * (quanta are ~5 ms apart, so no ISR is in the way); the clocks run at their
 * ppm: sample ns = ((edge + latency) (1 + a) + offset) 1e9 with the edge time
 * ticks / (16 MHz (1 + b)).  Ticks are 62.5 ns, so within 100 ns.
 */
static void test_latency_cycles_and_clocks(void **state)
{
	static const char *const sets[] = { "irq_latency_cycles_max=5900", "irq_latency_cycles_min=5900",
					    "irq_other_hz=0", "target_clock_ppm=-120",
					    "board_clock_ppm=35", "target_clock_offset=1000s", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	size_t i, nfast = 0, nslow = 0;

	load(&sc, twofreq_text, sets);
	run(&sc, &r);
	assert_int_equal(r.nenergy, r.nboard);  /* one sample per quantum, none lost */
	for (i = 0; i < r.nenergy; i++) {
		const struct eq_sample *s = &r.energy[i];
		double edge = r.board[s->seq].time / (16e6 * (1 + 35e-6));
		double t = (s->time * 1e-9 - 1000) / (1 - 120e-6);  /* true time of the sample */
		double lat = t - edge, hand = edge < 1.0 ? 5900 / 206e6 : 5900 / 59e6;

		/* the switch of frequency comes after 1 s of work, delayed by the
		 * ISRs of the first second (~240 x 9.7 us): leave out its 5 ms */
		if (edge > 0.9998 && edge < 1.005)
			continue;
		if (fabs(lat - hand) >= 100e-9)
			fail_msg("sample %zu (seq %u): edge %.9f s, latency %.9f s, expected %.9f s", i,
				 s->seq, edge, lat, hand);
		if (edge < 1.0)
			nfast++;
		else
			nslow++;
	}
	assert_true(nfast > 50 && nslow > 20);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/*
 * One switch from 206 to 59 MHz: the core stalls 300 us drawing base 100 mW
 * + dvfs_power 200 mW (no voltage sensitivity: exactly 0.3 W), and the work,
 * busy on both sides, ends that much later besides the ISRs.
 */
static void test_dvfs_transition(void **state)
{
	static const char *const sets[] = { "dvfs_time=300us", "dvfs_power=200mW", "power_vsens=0",
					    "irq_other_hz=0", "drain_cycles=0",
					    "drain_cycles_per_sample=0", NULL };
	struct sim_scenario sc;
	struct sim_result r;

	load(&sc, twofreq_text, sets);
	run(&sc, &r);
	assert_int_equal(r.dvfs_switches, 1);
	assert_true(fabs(r.dvfs_time_s - 300e-6) < 1e-12);
	assert_true(fabs(r.dvfs_energy_j - 0.3 * 300e-6) < 1e-12);
	assert_true(fabs(r.duration - (2.0 + r.isr_time_s + 300e-6)) < 1e-9);
	assert_true(fabs(r.acts[act_of(&sc, "work")].time_s - 2.0) < 1e-9);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* ---- device power and terminal voltage (Figure 14) -------------------- */

/*
 * The paper's Equation 3 with its Figure 14: the count of samples of a
 * workload rises by S = (P - dP) / P x (I + dI) / I - 1 = 1.6% when the
 * terminal voltage drops by 140 mV.  The device draws P (1 + k (Vb - V0)),
 * so here, with no resistance in the lead (Vb = the supply):
 * P2 / P1 = 1 - 0.14 k, I2 / I1 = P2 / P1 x 4.07 / 3.93.
 */
static void test_power_voltage_sensitivity(void **state)
{
	struct sim_params p;
	struct sim_frontend fe;
	double vb1, i1, vb2, i2, s, k, hand, lo, hi, mid, r, v = 4.15;
	int it;

	sim_params_default(&p);
	k = p.power_vsens;
	p.r_source = p.r_fuse = p.r_sense = 0;
	p.supply = 4.07;
	sim_frontend_init(&fe, &p);
	sim_frontend_operating_point(&fe, 1.0, &vb1, &i1);
	p.supply = 3.93;
	sim_frontend_init(&fe, &p);
	sim_frontend_operating_point(&fe, 1.0, &vb2, &i2);
	assert_true(vb1 == 4.07 && vb2 == 3.93);
	s = 100 * ((vb2 * i2) / (vb1 * i1) * (i2 / i1) - 1);
	hand = 100 * ((1 - 0.14 * k) * (1 - 0.14 * k) * 4.07 / 3.93 - 1);
	print_message("# S = %.3f%% for 140 mV (paper 1.6%%; constant power would give %.2f%%)\n",
		      s, 100 * (4.07 / 3.93 - 1));
	assert_true(fabs(s - hand) < 1e-9);
	assert_true(fabs(s - 1.6) < 0.05);

	/* Through a resistance: Vb by bisection on Vb = V - R P(Vb) / Vb. */
	sim_params_default(&p);
	r = p.r_source + p.r_fuse + p.r_sense;
	p.supply = v;
	sim_frontend_init(&fe, &p);
	sim_frontend_operating_point(&fe, 1.5, &vb1, &i1);
	lo = v / 2;
	hi = v;
	for (it = 0; it < 200; it++) {
		mid = (lo + hi) / 2;
		if (mid - (v - r * 1.5 * (1 + k * (mid - p.vb_nominal)) / mid) < 0)
			lo = mid;
		else
			hi = mid;
	}
	assert_true(fabs(vb1 - mid) < 1e-9);
	assert_true(fabs(vb1 * i1 - 1.5 * (1 + k * (mid - p.vb_nominal))) < 1e-9);
}

/* A steady 1 W device on the default bench supply: the truth's power is
 * what the device draws at its terminal voltage, solved by bisection here. */
static const char *steady_text =
	"scenario steady\n"
	"base_power 1W\n"
	"isr_power 0W\n"
	"kernel\n  proc idle_loop 0xc0001000 0x100 0W\nidle idle_loop\n"
	"phase p 2s\n  cpu_idle 100%\n";

static void test_truth_uses_actual_power(void **state)
{
	struct sim_scenario sc;
	struct sim_result r;
	double lo = 2, hi = 4.15, mid = 0, rr, k, v;
	int it;

	load(&sc, steady_text, NULL);
	rr = sc.p.r_source + sc.p.r_fuse + sc.p.r_sense;
	k = sc.p.power_vsens;
	v = sc.p.supply;
	for (it = 0; it < 200; it++) {
		mid = (lo + hi) / 2;
		if (mid - (v - rr * (1 + k * (mid - sc.p.vb_nominal)) / mid) < 0)
			lo = mid;
		else
			hi = mid;
	}
	run(&sc, &r);
	print_message("# Vb %.4f V: the 1 W device draws %.5f W\n", mid, r.energy_j / r.duration);
	assert_true(fabs(r.energy_j / r.duration - (1 + k * (mid - sc.p.vb_nominal))) < 1e-9);
	assert_true(fabs(r.vb_min - mid) < 1e-9 && fabs(r.vb_max - mid) < 1e-9);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* ---- two runs of one workload ------------------------------------------ */

/*
 * sampling separate (the default): the energy run's ISR time is its own
 * samples' (quanta x cycles / clock), the time run's its own; each run keeps
 * every busy second of the workload, so their per-procedure busy times are
 * equal.  sampling shared: one run holds both ISRs.
 */
static void test_two_runs(void **state)
{
	static const char *const sets[] = { "isr_cycles=20000", "time_hz=2000Hz", NULL };
	static const char *const shared[] = { "isr_cycles=20000", "time_hz=2000Hz",
					      "sampling=shared", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	double isr1 = 20000 / 206e6;
	size_t work;

	load(&sc, busy_idle_text, sets);
	run(&sc, &r);
	work = act_of(&sc, "work");
	assert_int_equal(r.separate, 1);
	assert_true(r.nenergy > 100 && r.ntimed > 3000);
	assert_true(fabs(r.isr_time_s - r.nenergy * isr1) < 1e-9 * r.nenergy);
	assert_true(fabs(r.time_run.isr_time_s - r.ntimed * isr1) < 1e-9 * r.ntimed);
	assert_true(fabs(r.acts[work].time_s - 1.0) < 1e-9);
	assert_true(fabs(r.time_run.acts[work].time_s - 1.0) < 1e-9);
	/* the time run's own board stream: its pulses cover its own energy */
	assert_non_null(r.time_run.board);
	assert_true(r.time_run.nboard > 100);
	/* the timer's samples carry no energy flag, the energy run's do */
	assert_true(!(r.timed[0].flags & EQ_F_ENERGY) && (r.energy[0].flags & EQ_F_ENERGY));
	sim_result_free(&r);
	sim_scenario_free(&sc);

	load(&sc, busy_idle_text, shared);
	run(&sc, &r);
	assert_int_equal(r.separate, 0);
	assert_true(fabs(r.isr_time_s - (r.nenergy + r.ntimed) * isr1) < 1e-9 * (r.nenergy + r.ntimed));
	assert_true(fabs(r.time_run.isr_time_s - r.isr_time_s) < 1e-12);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

/* ---- devices beside consumers over several phases ------------------------ */

/*
 * Issue 23 item 3: a consumer, a device and two or more phases overflowed
 * the steps' array (the devices' steps were spliced into a streamed
 * timeline that then kept growing its old array).  Here the CPU idles at
 * 0 W and draws nothing in the ISR, the device does not depend on its
 * voltage, so the true energy is the base power, the consumers and the
 * device, which this test computes by hand from the requests (their times
 * are the seed's draw, sim_devices_build; their power is computed here, not
 * by the simulator's model): active while any is in service, the tail after
 * the last completion cut short by the next request, idle otherwise.
 */
static const char *devices_text =
	"scenario devphases\n"
	"base_power 100mW\n"
	"isr_power 0W\n"
	"power_vsens 0\n"
	"consumer lamp 50mW\n"
	"consumer lcd 120mW period 16.67ms duty 30%\n"
	"device disk active 1W tail 100ms 300mW idle 10mW\n"
	"kernel\n  proc cpu_idle 0xc0100000 0x100 0W\nidle cpu_idle\n"
	"module /bin/a\n  proc f 0x1000 0x100 500mW\n"
	"process a 10 /bin/a\n  map /bin/a 0x400000\n"
	"phase p 2.5s\n  cpu_idle 100%\n  request disk a f every 500ms\n"
	"phase q 1s\n  cpu_idle 100%\n  set lamp off\n"
	"phase r 1.5s\n  cpu_idle 100%\n  set lamp on\n  request disk a f every 300ms burst 2 gap 20ms active 80ms\n";

static int by_issue_ns(const void *x, const void *y)
{
	const struct eqp_devreq *a = x, *b = y;

	return (a->issue > b->issue) - (a->issue < b->issue);
}

static void test_devices_consumers_phases(void **state)
{
	static const char *const sets[] = { "irq_other_hz=0", "drain_cycles=0",
					    "drain_cycles_per_sample=0", NULL };
	struct sim_scenario sc;
	struct sim_result r;
	struct eqp_devreq *req;
	struct eq_dev_piece *pc;
	struct eq_error err;
	size_t nreq, np, i;
	double T = 5.0, dev = 0, busy_end = -1, t0, t1, expect, P = 16.67e-3, n, lcd_on;

	load(&sc, devices_text, sets);
	assert_int_equal(sim_devices_build(&sc, &req, &nreq, &pc, &np, &err), 0);
	free(pc);
	assert_true(nreq > 8);
	qsort(req, nreq, sizeof(*req), by_issue_ns);
	/* the documented timing (docs/simulator.md, "request"): phase p's
	 * requests (every 500 ms, bursts of one) start within its first 500 ms
	 * and follow each other 400 to 600 ms apart */
	assert_true(req[0].issue / 1e9 >= 0 && req[0].issue / 1e9 < 0.5);
	for (i = 1; i < nreq && req[i].issue / 1e9 < 2.5; i++) {
		double gap = (req[i].issue - req[i - 1].issue) / 1e9;

		assert_true(gap >= 0.4 - 1e-9 && gap <= 0.6 + 1e-9);
	}
	for (i = 0; i < nreq; i++) {
		t0 = req[i].issue / 1e9;
		t1 = fmin(req[i].complete / 1e9, T);
		if (busy_end >= 0 && t0 > busy_end) /* a tail, cut short by this request */
			dev += (0.3 - 0.01) * fmin(0.1, t0 - busy_end);
		dev += (1 - 0.01) * (t1 - fmax(t0, fmax(busy_end, 0)));
		busy_end = fmax(busy_end, t1);
	}
	dev += (0.3 - 0.01) * fmin(0.1, T - busy_end);
	free(req);
	/* the LCD draws 120 mW / 30% in the first 30% of every period from
	 * t = 0; 5 s is not a whole number of periods, the last one is cut */
	n = floor(T / P);
	lcd_on = n * 0.3 * P + fmin(0.3 * P, T - n * P);
	/* base, the lamp (off for q's 1 s), the LCD, disk idle + above idle */
	expect = 0.1 * T + 0.05 * (T - 1) + 0.12 / 0.3 * lcd_on + 0.01 * T + dev;
	run(&sc, &r);
	print_message("# %zu requests: device %.6f J above idle; run %.6f J, expected %.6f J\n",
		      nreq, dev, r.energy_j, expect);
	assert_true(fabs(r.duration - T) < 1e-9);
	assert_true(fabs(r.energy_j - expect) < 1e-9);
	sim_result_free(&r);
	sim_scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isr_delays_work),
		cmocka_unit_test(test_isr_extends_busy_run),
		cmocka_unit_test(test_isr_storm_refused),
		cmocka_unit_test(test_two_runs),
		cmocka_unit_test(test_other_irq_blind_spot),
		cmocka_unit_test(test_irqoff_defers),
		cmocka_unit_test(test_recorder_cost),
		cmocka_unit_test(test_pc_distribution_and_skew),
		cmocka_unit_test(test_latency_cycles_and_clocks),
		cmocka_unit_test(test_dvfs_transition),
		cmocka_unit_test(test_power_voltage_sensitivity),
		cmocka_unit_test(test_truth_uses_actual_power),
		cmocka_unit_test(test_devices_consumers_phases),
	};

	return cmocka_run_group_tests_name("sim models against hand computations", tests, NULL, NULL);
}
