/*
 * sim.h - the whole-system simulator: a handheld running a workload, the
 * energy-counter board in its battery lead, the interrupt path, the sampling
 * ISR with its ring buffer, and a jittered timer for time-driven sampling.
 *
 * sim_run produces an energy-driven and a time-driven recording of the same
 * workload (two runs, each perturbed only by its own ISR), the board's
 * per-quantum stream, and the exact truth (energy and time per procedure, true power trace).  The scenario
 * format, the physics and every default are described in docs/simulator.md.
 */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"
#include "eq_sample.h"
#include "file/eqp.h"

struct sim_devices;

#define SIM_MAX_FREQS 8
#define SIM_NAME_MAX 128

/* Physics and mechanism parameters; defaults in sim/defaults.h. */
struct sim_params {
	/* supply and current path */
	double supply;          /* V */
	double r_source, r_fuse, r_sense; /* Ohm (r_sense: the high range's shunt) */
	double r_sense_low;     /* Ohm added in series on the low range */
	int range_low;          /* 1: the board's low-current range */
	/* front end */
	double alpha;           /* mirror ratio (high range) */
	double alpha_low;       /* mirror ratio on the low range */
	double gain_err;        /* relative error of alpha */
	double mirror_offset;   /* A added to the mirror output */
	double mirror_noise;    /* A/sqrt(Hz) white noise at the mirror output */
	double power_vsens;     /* 1/V: device power's relative change per volt of Vb (Figure 14) */
	double c_int, vx, dead_time;
	double vb_nominal, e_min;
	/* counter */
	uint32_t quantum_pulses, jitter_pct;
	int vcomp;
	double mcu_clock;
	/* target */
	double irq_lat_min, irq_lat_max;       /* s: fixed part (edge to core) */
	double irq_lat_cyc_min, irq_lat_cyc_max; /* CPU cycles at the current clock */
	double irq_other_hz, irq_other_cycles; /* other interrupt sources: rate, handler length */
	double dvfs_time, dvfs_power;          /* a frequency switch: stall, CPU power meanwhile */
	double irqoff_hz, irqoff_cycles;       /* interrupt-disabled regions: rate, length */
	double target_ppm, target_offset;      /* target clock: rate error, reading at t = 0 */
	double board_ppm;                      /* board (MCU crystal) clock rate error */
	uint32_t skew_insns, insn_bytes;
	uint32_t skew_insns_max;  /* > skew_insns: the skew varies uniformly up to it */
	double pc_hot_share, pc_hot_span; /* time share of a procedure's hot loop, its size share */
	double isr_cycles;
	uint32_t ring_samples;
	double drain_period;
	double drain_cycles, drain_cycles_per_sample; /* the recorder's CPU cost per drain */
	double time_hz, time_jitter_pct;
	double slice;           /* default procedure slice within busy periods */
	double trace_bin;
	uint64_t seed;
	int sampling_shared;    /* 1: both samplings in one run (default: two runs) */
};

struct sim_freq {
	double hz;              /* clock of this state */
	double volt;            /* core voltage (documentation only; 0 if unknown) */
};

struct sim_module {
	char path[SIM_NAME_MAX];
	int kernel;             /* 1: the kernel image: proc addresses absolute */
	size_t first_proc, nprocs;
	uint64_t size;          /* end of the last procedure, page-rounded */
};

struct sim_proc {
	char name[SIM_NAME_MAX];
	size_t module;
	uint64_t addr;          /* module offset (kernel: absolute address) */
	uint64_t size;          /* bytes, > 0 */
	double power[SIM_MAX_FREQS]; /* W of CPU activity at each frequency state */
};

#define SIM_MAX_MAPS 16
#define SIM_MAX_THREADS 16
struct sim_process {
	char name[SIM_NAME_MAX];
	uint32_t pid;
	size_t exe_module;
	size_t nmaps;
	struct { size_t module; uint64_t base; } maps[SIM_MAX_MAPS];
	size_t nthreads;        /* besides the main thread (tid = pid) */
	struct { uint32_t tid; char name[SIM_NAME_MAX]; } threads[SIM_MAX_THREADS];
};

struct sim_consumer {
	char name[SIM_NAME_MAX];
	double power;           /* W, average while on */
	double period, duty;    /* periodic activity (LCD refresh); period 0 = steady */
	double timeout;         /* s: powers down this long after its last use; 0 = never */
	int on;                 /* initial state */
};

/* An activity: what the CPU is doing (a process in a procedure, or idle). */
struct sim_run_item {
	size_t activity;        /* index into sim_scenario.acts */
	double weight;
};

enum sim_cons_action { SIM_CONS_SET, SIM_CONS_ON, SIM_CONS_OFF, SIM_CONS_USE };
struct sim_cons_change {
	size_t consumer;
	enum sim_cons_action action;
	double power;           /* SIM_CONS_SET */
};

#define SIM_MAX_RUN 32
#define SIM_MAX_CHANGES 16
struct sim_phase {
	char name[SIM_NAME_MAX];
	double duration;
	size_t freq;            /* frequency state index */
	double idle_frac;       /* fraction of time the CPU idles */
	double granularity;     /* mean busy+idle cycle length (s) */
	double slice;           /* mean procedure slice within busy time (s); 0 = the parameter */
	double power_spread;    /* relative SD of a busy slice's CPU power around the proc's */
	size_t nrun;
	struct sim_run_item run[SIM_MAX_RUN];
	size_t nchanges;
	struct sim_cons_change changes[SIM_MAX_CHANGES];
};

/* Activity 0 is the idle routine, activity 1 the sampling ISR; the
 * simulator adds one after the scenario's, index nacts: the recorder
 * (eqprof record draining the rings), so truth arrays have nacts + 1. */
#define SIM_ACT_IDLE 0
#define SIM_ACT_ISR  1
#define SIM_RECORDER_PID    65534u
#define SIM_RECORDER_EXE    "eqprof"
#define SIM_RECORDER_MODULE "/usr/bin/eqprof"
#define SIM_RECORDER_PROC   "eq_record_drain"
#define SIM_RECORDER_BASE   0x400000ull
#define SIM_RECORDER_ADDR   0x1000ull
#define SIM_RECORDER_SIZE   0x800ull
#define SIM_NACTS(sc) ((sc)->nacts + 1)
struct sim_act {
	size_t process;         /* SIZE_MAX for idle and ISR */
	size_t proc;
	uint32_t tid;           /* the thread that runs it (the pid: main thread) */
};

struct sim_scenario {
	char name[SIM_NAME_MAX];
	char description[512];
	char path[512];         /* file it was read from */
	struct sim_params p;
	double base_power;      /* W always drawn (regulators, memory refresh...) */
	size_t nfreqs;
	struct sim_freq freqs[SIM_MAX_FREQS];
	size_t idle_proc;       /* the kernel's idle routine */
	double isr_power[SIM_MAX_FREQS];
	size_t nmodules, nprocs, nprocesses, nconsumers, nphases, nacts;
	struct sim_module *modules;
	struct sim_proc *procs;
	struct sim_process *processes;
	struct sim_consumer *consumers;
	struct sim_phase *phases;
	struct sim_act *acts;
	struct sim_devices *devices; /* devices and their requests (sim/devices.h); NULL: none */
	/* capacities of the arrays above */
	size_t cap_modules, cap_procs, cap_processes, cap_consumers, cap_phases, cap_acts;
	/* call structure ("calls CALLER CALLEE WEIGHT", sim/calls.c): samples
	 * in a callee get call chains through its callers */
	struct sim_call { size_t caller, callee; double weight; } *calls;
	size_t ncalls, cap_calls;
};

void sim_params_default(struct sim_params *p);
/* The parameters a run uses: on the low range the shunts add up, the mirror
 * ratio is alpha_low and E_min scales by alpha_high / alpha_low. */
void sim_params_effective(const struct sim_params *p, struct sim_params *eff);

/* Parses a scenario file / text; fills sc (free with sim_scenario_free). */
int sim_scenario_load(struct sim_scenario *sc, const char *path, struct eq_error *err);
int sim_scenario_parse(struct sim_scenario *sc, const char *text, size_t len,
		       const char *name, struct eq_error *err);
void sim_scenario_free(struct sim_scenario *sc);
/* Applies "name=value" (a scenario keyword line) after loading. */
int sim_scenario_set(struct sim_scenario *sc, const char *assignment, struct eq_error *err);
double sim_scenario_duration(const struct sim_scenario *sc);

/* ---- results ----------------------------------------------------------- */

struct sim_truth_act {
	double energy_j, time_s;
};

/* The truth of one run. */
struct sim_run_truth {
	struct sim_truth_act *state_acts; /* the time-driven run's (sim/states.c) */
	struct sim_truth_act *cpu_states; /* the time-driven run's (sim/states.c) */
	double *device_landed_j;     /* the time-driven run's (sim/devices.c) */
	struct eqp_pstate *pstates;
	size_t npstates;
	double duration, energy_j;
	double isr_time_s, isr_energy_j;
	double irq_other_time_s, irq_other_energy_j;
	struct sim_truth_act *acts;  /* per activity, sc->nacts */
	struct eqp_board_rec *board; /* its board stream; NULL: the energy run's */
	size_t nboard;
};

struct sim_result {
	/* samples as drained from the rings (what the recorder saw) */
	struct eq_sample *energy, *timed;
	size_t nenergy, ntimed, cap_energy, cap_timed;
	uint64_t lost_energy, lost_timed;  /* all losses: ring drops + merged IRQs */
	uint64_t merged_energy, merged_timed; /* of which interrupts merged while pending */
	struct eqp_board_rec *board;
	size_t nboard, cap_board;
	/* truth */
	double duration, energy_j;
	struct sim_truth_act *acts;  /* per activity, sc->nacts */
	double *trace_w;             /* average power per bin */
	size_t ntrace;
	double trace_bin;
	uint64_t pulses;
	double pulse_charge_lost;    /* C at the mirror output lost in dead time */
	double vb_energy_weighted;   /* energy-weighted mean battery-terminal voltage */
	double vb_min, vb_max;
	double mirror_charge;        /* C delivered by the mirror */
	double device_charge;        /* C drawn by the device: integral of I dt */
	double isr_time_s, isr_energy_j;
	/* the blind spot: other interrupt sources' handlers (interrupts off),
	 * invisible to the profile, their time and energy shown as the code
	 * they interrupted; sampling interrupts delayed by disabled regions */
	uint64_t irq_other_count, irq_other_merged, irqoff_deferred;
	uint64_t drains;             /* recorder wake-ups */
	uint64_t dvfs_switches;      /* frequency switches, each a stall of dvfs_time */
	double dvfs_time_s, dvfs_energy_j;
	double recorder_time_s, recorder_energy_j; /* its CPU cost (a profile row: eqprof) */
	double irq_other_time_s, irq_other_energy_j;
	uint64_t quanta;             /* IRQ edges raised by the counter */
	uint64_t pulses_in_quanta;   /* sum of preloads of the completed quanta */
	double quantum_j;            /* nominal energy per sample: N * E_min */
	struct sim_params p;         /* the parameters in effect (sim_params_effective) */
	/* everything the device drew while the workload's CPU was in each
	 * state, [freq * 2 + idle]: the sampling ISR, the OS's handlers and the
	 * frequency switches included, in the state they ran in (sim/states.c) */
	struct sim_truth_act *cpu_states;
	struct sim_truth_act *state_acts; /* per activity and frequency state,
					     [act * nfreqs + freq] (sim/states.c) */
	struct eqp_pstate *pstates;  /* the CPU's frequency and idle-state changes */
	size_t npstates, cap_pstates;
	double *device_landed_j;     /* per activity: device energy above idle drawn
					while it ran (sim/devices.c) */
	const char *counter_name;
	/* The time-driven recording's run: with `sampling separate` (the
	 * default) a second run of the same workload, its own perturbation
	 * and board stream; with `sampling shared` the same run (a copy). The
	 * fields above (energy, acts, board...) are the energy-driven run's. */
	int separate;
	struct sim_run_truth time_run;
};

struct sim_stream;
struct sim_options {
	const char *firmware_elf;    /* NULL: built-in counter stage */
	/* Non-NULL: samples and board records go straight into the recordings
	 * as the run makes them (sim_stream_open), so memory does not grow
	 * with the scenario's length; res->energy, timed and board stay empty
	 * (their counts are kept). */
	struct sim_stream *stream;
	int quiet;
	/* called now and then with the simulated time reached (may be NULL) */
	void (*progress)(void *ctx, double t, double t_end, size_t samples);
	void *progress_ctx;
};

int sim_run(const struct sim_scenario *sc, const struct sim_options *opt,
	    struct sim_result *res, struct eq_error *err);
void sim_result_free(struct sim_result *res);

/*
 * Table 1's calibration through the simulated front end: a steady test
 * current at vb_nominal for `seconds`; E_min = mean pulse period x current
 * x vb_nominal (sim/calibrate.c).
 */
struct sim_calibration {
	double current_a, vb, period_s;
	uint64_t pulses;
	double e_min_j;         /* on the range in use */
	double e_min_high_j;    /* as the parameter e_min_high (the high range's) */
};
int sim_calibrate_e_min(const struct sim_params *p, double current, double seconds,
			struct sim_calibration *c, struct eq_error *err);

/*
 * Writing while simulating: opens DIR's recordings (their headers, maps,
 * symbols, markers and board info); sim_run (opt->stream) adds samples and
 * board records; sim_stream_finish adds the losses, the truth files and
 * makes DIR appear whole (all or nothing, as sim_write_outputs).  It frees
 * the stream, as sim_stream_abort does.  counter: "builtin" or "simavr".
 */
int sim_stream_open(const struct sim_scenario *sc, const char *dir, const char *counter,
		    struct sim_stream **st, struct eq_error *err);
struct eqp_writer *sim_stream_writer(struct sim_stream *st, int energy);
/* Samples of the energy (energy != 0) or time-driven recording, each with
 * its call chain when the scenario has call structure (the chains drawn as
 * sim_write_outputs draws them: the files are the same). */
int sim_stream_add_samples(struct sim_stream *st, int energy, const struct eq_sample *s, size_t n,
			   struct eq_error *err);
int sim_stream_finish(struct sim_stream *st, const struct sim_scenario *sc,
		      const struct sim_result *res, struct eq_error *err);
void sim_stream_abort(struct sim_stream *st);

/* Writes DIR/energy.eqp, DIR/time.eqp, DIR/truth.json, DIR/truth-trace.csv. */
int sim_write_outputs(const struct sim_scenario *sc, const struct sim_result *res,
		      const char *dir, struct eq_error *err);

/* The activity a sample names (SIM_ACT_IDLE for idle), or SIZE_MAX if its pc
 * lies in no procedure of the scenario (e.g. pushed past a procedure's end by
 * the attribution skew into a gap). */
size_t sim_attribute(const struct sim_scenario *sc, const struct eq_sample *s);

/* Names for truth and reports. */
const char *sim_act_exe(const struct sim_scenario *sc, size_t act);
const char *sim_act_module(const struct sim_scenario *sc, size_t act);
const char *sim_act_proc(const struct sim_scenario *sc, size_t act);

/* Expected energy-driven estimate of the average power, from the truth and
 * the documented bias model (docs/simulator.md, "Bias"). */
double sim_expected_power_estimate(const struct sim_scenario *sc,
				   const struct sim_result *res);
/* The dead-time correction: estimate / (1 - pulse_rate * dead_time). */
double sim_dead_time_correct(double power_est, double pulse_rate, double dead_time);
/*
 * Energy measured by a board stream, corrected with the formulas of
 * docs/simulator.md: each quantum's pulses are worth E_min * Vb / Vb_nominal
 * (Vb as the board measured it, with or without the firmware's voltage
 * compensation) and lose dead_time * (pulses / interval) of their charge.
 * The first record has no interval before it and is counted uncorrected.
 */
double sim_board_energy_corrected(const struct eqp_board_rec *r, size_t n,
				  double clock_hz, double e_min, double vb_nominal,
				  double dead_time);

#endif
