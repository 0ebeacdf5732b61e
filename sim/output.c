/*
 * output.c - what a simulated run leaves behind, in the same formats the
 * hardware path writes: DIR/energy.eqp (energy-driven samples + the board
 * stream), DIR/time.eqp (time-driven samples of the same run), both with the
 * processes' maps, names and embedded symbol tables so that `eqprof report`
 * symbolizes them like any recording; and the truth: DIR/truth.json and the
 * true power trace DIR/truth-trace.csv.  Every file is written atomically.
 */
#include "sim_internal.h"
#include "states.h"
#include "devices.h"
#include "sim_calls.h"
#include "file/outfile.h"
#include "profile/table.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *sim_act_exe(const struct sim_scenario *sc, size_t act)
{
	if (act == SIM_ACT_IDLE)
		return "[idle]";
	if (act == SIM_ACT_ISR)
		return "[isr]";
	if (act == sc->nacts)
		return SIM_RECORDER_EXE;
	return sc->processes[sc->acts[act].process].name;
}

const char *sim_act_module(const struct sim_scenario *sc, size_t act)
{
	if (act == SIM_ACT_IDLE)
		return "[idle]";
	if (act == SIM_ACT_ISR)
		return "[kernel.kallsyms]";
	if (act == sc->nacts)
		return SIM_RECORDER_MODULE;
	return sc->modules[sc->procs[sc->acts[act].proc].module].path;
}

const char *sim_act_proc(const struct sim_scenario *sc, size_t act)
{
	if (act == SIM_ACT_IDLE)
		return "[idle]";
	if (act == SIM_ACT_ISR)
		return "[sampling isr]";
	if (act == sc->nacts)
		return SIM_RECORDER_PROC;
	return sc->procs[sc->acts[act].proc].name;
}

size_t sim_attribute(const struct sim_scenario *sc, const struct eq_sample *s)
{
	size_t a;

	if ((s->flags & EQ_F_IDLE) || s->pid == 0)
		return SIM_ACT_IDLE;
	if (s->pid == SIM_RECORDER_PID)
		return s->pc >= SIM_RECORDER_BASE + SIM_RECORDER_ADDR &&
		       s->pc < SIM_RECORDER_BASE + SIM_RECORDER_ADDR + SIM_RECORDER_SIZE ? sc->nacts : SIZE_MAX;
	for (a = 2; a < sc->nacts; a++) {
		const struct sim_process *pr = &sc->processes[sc->acts[a].process];
		const struct sim_proc *p = &sc->procs[sc->acts[a].proc];
		uint64_t base = 0;
		size_t k;

		if (pr->pid != s->pid || sc->acts[a].tid != s->tid)
			continue;
		if (!sc->modules[p->module].kernel)
			for (k = 0; k < pr->nmaps; k++)
				if (pr->maps[k].module == p->module)
					base = pr->maps[k].base;
		if (s->pc >= base + p->addr && s->pc < base + p->addr + p->size)
			return a;
	}
	return SIZE_MAX;
}

/* ---- recordings -------------------------------------------------------- */

static int add_symtabs(struct eqp_writer *w, const struct sim_scenario *sc,
		       struct eq_error *err)
{
	struct eqp_symbol *syms;
	size_t m, i;
	int rc = 0;

	syms = calloc(sc->nprocs + 1, sizeof(*syms));
	if (!syms)
		return eq_fail(err, "out of memory");
	for (m = 0; m < sc->nmodules && rc == 0; m++) {
		const struct sim_module *mod = &sc->modules[m];
		struct eqp_symtab t = { mod->path, mod->kernel, mod->nprocs, syms };
		size_t n = 0, j;

		if (mod->nprocs == 0)
			continue;
		/* sorted by address (insertion sort: modules are small) */
		for (i = mod->first_proc; i < mod->first_proc + mod->nprocs; i++) {
			struct eqp_symbol s = { sc->procs[i].addr, sc->procs[i].size, sc->procs[i].name };

			for (j = n; j > 0 && syms[j - 1].addr > s.addr; j--)
				syms[j] = syms[j - 1];
			syms[j] = s;
			n++;
		}
		rc = eqp_add_symtab(w, &t, err);
	}
	if (rc == 0) { /* the recorder */
		struct eqp_symbol s = { SIM_RECORDER_ADDR, SIM_RECORDER_SIZE, SIM_RECORDER_PROC };
		struct eqp_symtab t = { SIM_RECORDER_MODULE, 0, 1, &s };

		rc = eqp_add_symtab(w, &t, err);
	}
	free(syms);
	return rc;
}

static int add_processes(struct eqp_writer *w, const struct sim_scenario *sc,
			 struct eq_error *err)
{
	char text[SIM_MAX_MAPS * (SIM_NAME_MAX + 64)];
	size_t i, k, len;

	for (i = 0; i < sc->nprocesses; i++) {
		const struct sim_process *pr = &sc->processes[i];

		len = 0;
		for (k = 0; k < pr->nmaps; k++) {
			const struct sim_module *m = &sc->modules[pr->maps[k].module];
			uint64_t size = m->size ? m->size : 4096;

			len += snprintf(text + len, sizeof(text) - len,
					"%08llx-%08llx r-xp 00000000 00:00 0 %s\n",
					(unsigned long long)pr->maps[k].base,
					(unsigned long long)(pr->maps[k].base + size), m->path);
		}
		if (eqp_add_maps(w, pr->pid, 0, text, len, err) < 0 ||
		    eqp_add_comm(w, pr->pid, 0, pr->name, err) < 0)
			return -1;
	}
	len = snprintf(text, sizeof(text), "%08llx-%08llx r-xp 00000000 00:00 0 %s\n",
		       (unsigned long long)SIM_RECORDER_BASE,
		       (unsigned long long)(SIM_RECORDER_BASE + 0x2000), SIM_RECORDER_MODULE);
	if (eqp_add_maps(w, SIM_RECORDER_PID, 0, text, len, err) < 0 ||
	    eqp_add_comm(w, SIM_RECORDER_PID, 0, SIM_RECORDER_EXE, err) < 0)
		return -1;
	return 0;
}

static int add_markers(struct eqp_writer *w, const struct sim_scenario *sc,
		       const struct sim_params *p, struct eq_error *err)
{
	char label[SIM_NAME_MAX + 16];
	double t = 0;
	size_t i;

	for (i = 0; i < sc->nphases; i++) {
		snprintf(label, sizeof(label), "phase %s", sc->phases[i].name);
		if (eqp_add_marker(w, sim_target_ns(p, t), label, err) < 0)
			return -1;
		t += sc->phases[i].duration;
	}
	return 0;
}

static int add_board_info(struct eqp_writer *w, const struct sim_params *p, const char *counter,
			  struct eq_error *err)
{
	struct eqp_board_info bi = {
		.clock_hz = p->mcu_clock, .e_min_j = p->e_min,
		.quantum_pulses = p->quantum_pulses, .jitter_pct = p->jitter_pct,
		.vcomp = (uint32_t)p->vcomp, .firmware = counter,
		.vb_nominal_v = p->vb_nominal, .dead_time_s = p->dead_time,
	};

	return eqp_add_board_info(w, &bi, err);
}

/* A recording's header, maps, symbols, phase markers and board info:
 * samples and board records follow. */
static struct eqp_writer *rec_open(const struct sim_scenario *sc, const struct sim_params *p,
				   const char *counter, int separate, const char *path, int energy,
				   struct eq_error *err)
{
	char extra[4096], devmeta[3072];
	struct eqp_meta meta = { 0 };
	struct eqp_writer *w;

	snprintf(extra, sizeof(extra),
		 "scenario=%s\nscenario_file=%s\nsimulator=eqprof sim\nseed=%llu\ncounter=%s\nsampling=%s\n",
		 sc->name, sc->path, (unsigned long long)sc->p.seed, counter,
		 separate ? "separate" : "shared");
	sim_devices_meta(sc, devmeta, sizeof(devmeta)); /* device names and models */
	strncat(extra, devmeta, sizeof(extra) - strlen(extra) - 1);
	meta.mode = energy ? EQP_MODE_ENERGY : EQP_MODE_TIME;
	meta.quantum_j = energy ? p->quantum_pulses * p->e_min : 0;
	meta.nominal_hz = energy ? 0 : sc->p.time_hz;
	meta.clock_hz = 1e9;
	meta.target = "simulated handheld (eqprof sim)";
	meta.extra = extra;
	w = eqp_create(path, &meta, err);
	if (!w)
		return NULL;
	if (add_processes(w, sc, err) < 0 || add_symtabs(w, sc, err) < 0 ||
	    add_markers(w, sc, p, err) < 0 || add_board_info(w, p, counter, err) < 0) {
		eqp_discard(w);
		return NULL;
	}
	return w;
}

/* The losses, then the file is complete. */
static int rec_close(struct eqp_writer *w, uint64_t lost, uint64_t merged, struct eq_error *err)
{
	/* source 0: the ring's drops (seq gaps, EQ_F_LOST); source 1: interrupts
	 * merged while one was pending (the ISR never ran: no seq was used) */
	if ((lost > merged && eqp_add_lost(w, 0, lost - merged, err) < 0) ||
	    (merged && eqp_add_lost(w, 1, merged, err) < 0)) {
		eqp_discard(w);
		return -1;
	}
	return eqp_commit(w, err);
}

/* each recording's call chains are drawn from the seed, so a run is
 * repeatable, and in the samples' order, so writing while simulating and
 * writing at the end give the same file */
#define CALLS_SEED(sc) ((sc)->p.seed ^ 0x63616c6c73ULL)

/* Samples, each with its chain when the scenario has call structure
 * (sim/calls.c). */
static int add_samples(struct eqp_writer *w, const struct sim_scenario *sc,
		       const struct eq_sample *s, size_t n, uint64_t *rng, struct eq_error *err)
{
	uint64_t frames[SIM_CALL_DEPTH];
	size_t i;

	if (!sc->ncalls)
		return eqp_add_samples(w, s, n, err);
	for (i = 0; i < n; i++) {
		struct eqp_callchain cc = { 0, 0, frames };
		unsigned nf = sim_call_chain(sc, &s[i], rng, frames, &cc.nkernel);

		cc.nuser = nf - cc.nkernel;
		if (eqp_add_sample_chain(w, &s[i], &cc, err) < 0)
			return -1;
	}
	return 0;
}

static int write_recording(const struct sim_scenario *sc, const struct sim_result *res,
			   const char *path, int energy, struct eq_error *err)
{
	struct eqp_writer *w = rec_open(sc, &res->p, res->counter_name, res->separate, path, energy, err);
	const struct eq_sample *s = energy ? res->energy : res->timed;
	size_t n = energy ? res->nenergy : res->ntimed, done;
	const struct eqp_board_rec *b = res->board;
	size_t nb = res->nboard;

	if (!w)
		return -1;
	if (!energy && res->time_run.board) { /* the time-driven run's own board stream */
		b = res->time_run.board;
		nb = res->time_run.nboard;
	}
	if (nb && eqp_add_board_records(w, b, nb, err) < 0)
		goto fail;
	{
		uint64_t rng = CALLS_SEED(sc);

		for (done = 0; done < n; done += 65536)
			if (add_samples(w, sc, s + done, n - done < 65536 ? n - done : 65536, &rng, err) < 0)
				goto fail;
	}
	if (sim_states_add(w, res, energy, err) < 0 || /* CPU frequency and idle state: PSTA */
	    sim_devices_add(w, sc, res, err) < 0) {  /* device requests: DREQ */
		eqp_discard(w);
		return -1;
	}
	return rec_close(w, energy ? res->lost_energy : res->lost_timed,
			 energy ? res->merged_energy : res->merged_timed, err);
fail:
	eqp_discard(w);
	return -1;
}

/* ---- truth ------------------------------------------------------------- */

typedef const char *(*namefn)(const struct sim_scenario *, size_t);

/* Energy and time grouped by a name (exe or module), in first-seen order. */
static void json_groups(FILE *f, const struct sim_scenario *sc, const struct sim_truth_act *acts,
			namefn name, double e_seen, double t_seen, const char *indent)
{
	size_t a, b;
	int first = 1;

	fputs("[", f);
	for (a = 0; a < SIM_NACTS(sc); a++) {
		double e = 0, t = 0;

		for (b = 0; b < a; b++)
			if (b != SIM_ACT_ISR && !strcmp(name(sc, b), name(sc, a)))
				break;
		if (b < a)
			continue;
		for (b = a; b < SIM_NACTS(sc); b++)
			if (b != SIM_ACT_ISR && !strcmp(name(sc, b), name(sc, a))) {
				e += acts[b].energy_j;
				t += acts[b].time_s;
			}
		if (a == SIM_ACT_ISR || (e == 0 && t == 0))
			continue;
		fprintf(f, "%s\n%s    {\"name\": ", first ? "" : ",", indent);
		eq_json_string(f, name(sc, a));
		fprintf(f, ", \"energy_j\": %.9g, \"time_s\": %.9g, \"energy_share\": %.9g, \"time_share\": %.9g}",
			e, t, e / e_seen, t / t_seen);
		first = 0;
	}
	fprintf(f, "\n%s  ]", indent);
}

/* landed (NULL: no devices): per activity, the devices' energy above their
 * idle power drawn while it ran; "device_j" then, and "device_free_w", its
 * power without it: what `eqprof power --by proc` fits beside the devices'
 * own columns (docs/power.md). */
static void json_procs(FILE *f, const struct sim_scenario *sc, const struct sim_truth_act *acts,
		       const double *landed, double e_seen, double t_seen, const char *indent)
{
	size_t a;
	int first = 1;

	fputs("[", f);
	for (a = 0; a < SIM_NACTS(sc); a++) {
		if (a == SIM_ACT_ISR || (acts[a].time_s == 0))
			continue;
		fprintf(f, "%s\n%s    {\"exe\": ", first ? "" : ",", indent);
		eq_json_string(f, sim_act_exe(sc, a));
		fputs(", \"module\": ", f);
		eq_json_string(f, sim_act_module(sc, a));
		fputs(", \"proc\": ", f);
		eq_json_string(f, sim_act_proc(sc, a));
		fprintf(f, ", \"pid\": %u, \"tid\": %u, \"energy_j\": %.9g, \"time_s\": %.9g, \"energy_share\": %.9g, \"time_share\": %.9g",
			a == SIM_ACT_IDLE ? 0 : a == sc->nacts ? SIM_RECORDER_PID : sc->processes[sc->acts[a].process].pid,
			a == SIM_ACT_IDLE ? 0 : a == sc->nacts ? SIM_RECORDER_PID : sc->acts[a].tid, acts[a].energy_j, acts[a].time_s,
			acts[a].energy_j / e_seen, acts[a].time_s / t_seen);
		if (landed && sc->devices && sc->devices->ndev)
			fprintf(f, ", \"device_j\": %.9g, \"device_free_w\": %.9g", landed[a],
				(acts[a].energy_j - landed[a]) / acts[a].time_s);
		fputs("}", f);
		first = 0;
	}
	fprintf(f, "\n%s  ]", indent);
}

static void json_time_run(FILE *f, const struct sim_scenario *sc, const struct sim_result *res)
{
	const struct sim_run_truth *r = &res->time_run;
	double e_seen = r->energy_j - r->isr_energy_j, t_seen = r->duration - r->isr_time_s;

	fprintf(f, "  \"time_run\": {\n    \"duration_s\": %.9g, \"energy_j\": %.9g, \"avg_power_w\": %.9g,\n"
		   "    \"isr\": {\"time_s\": %.9g, \"energy_j\": %.9g},\n"
		   "    \"irq_other\": {\"time_s\": %.9g, \"energy_j\": %.9g},\n    \"executables\": ",
		r->duration, r->energy_j, r->energy_j / r->duration, r->isr_time_s, r->isr_energy_j,
		r->irq_other_time_s, r->irq_other_energy_j);
	json_groups(f, sc, r->acts, sim_act_exe, e_seen, t_seen, "  ");
	fputs(",\n    \"modules\": ", f);
	json_groups(f, sc, r->acts, sim_act_module, e_seen, t_seen, "  ");
	fputs(",\n    \"procedures\": ", f);
	json_procs(f, sc, r->acts, r->device_landed_j, e_seen, t_seen, "  ");
	fputs("\n  },\n", f);
}

static int write_truth(const struct sim_scenario *sc, const struct sim_result *res,
		       struct eq_outfile *o, struct eq_error *err)
{
	FILE *f = o->fp;
	double e_seen = res->energy_j - res->isr_energy_j;
	double t_seen = res->duration - res->isr_time_s, t = 0;
	size_t i;

	fputs("{\n  \"scenario\": ", f);
	eq_json_string(f, sc->name);
	fputs(",\n  \"description\": ", f);
	eq_json_string(f, sc->description);
	fprintf(f, ",\n  \"seed\": %llu,\n  \"counter\": \"%s\",\n  \"sampling\": \"%s\",\n",
		(unsigned long long)sc->p.seed, res->counter_name, res->separate ? "separate" : "shared");
	fprintf(f, "  \"duration_s\": %.9g,\n  \"energy_j\": %.9g,\n  \"avg_power_w\": %.9g,\n",
		res->duration, res->energy_j, res->energy_j / res->duration);
	fprintf(f, "  \"quantum_j\": %.9g,\n  \"pulses\": %llu,\n  \"quanta\": %llu,\n",
		res->quantum_j, (unsigned long long)res->pulses, (unsigned long long)res->quanta);
	fprintf(f, "  \"samples_energy\": %zu,\n  \"samples_time\": %zu,\n  \"lost_energy\": %llu,\n  \"lost_time\": %llu,\n"
		   "  \"irq_merged_energy\": %llu,\n  \"irq_merged_time\": %llu,\n",
		res->nenergy, res->ntimed, (unsigned long long)res->lost_energy,
		(unsigned long long)res->lost_timed, (unsigned long long)res->merged_energy,
		(unsigned long long)res->merged_timed);
	fprintf(f, "  \"isr\": {\"time_s\": %.9g, \"energy_j\": %.9g},\n", res->isr_time_s, res->isr_energy_j);
	fprintf(f, "  \"irq_other\": {\"hz\": %.9g, \"cycles\": %.9g, \"count\": %llu, \"merged\": %llu, "
		   "\"time_s\": %.9g, \"energy_j\": %.9g, \"energy_share\": %.9g},\n",
		res->p.irq_other_hz, res->p.irq_other_cycles, (unsigned long long)res->irq_other_count,
		(unsigned long long)res->irq_other_merged, res->irq_other_time_s, res->irq_other_energy_j,
		e_seen > 0 ? res->irq_other_energy_j / e_seen : 0);
	fprintf(f, "  \"irqoff\": {\"hz\": %.9g, \"cycles\": %.9g, \"deferred_samples\": %llu},\n",
		res->p.irqoff_hz, res->p.irqoff_cycles, (unsigned long long)res->irqoff_deferred);
	fprintf(f, "  \"recorder\": {\"drains\": %llu, \"time_s\": %.9g, \"energy_j\": %.9g, \"energy_share\": %.9g},\n",
		(unsigned long long)res->drains, res->recorder_time_s, res->recorder_energy_j,
		e_seen > 0 ? res->recorder_energy_j / e_seen : 0);
	fprintf(f, "  \"dvfs\": {\"switches\": %llu, \"time_s\": %.9g, \"energy_j\": %.9g},\n",
		(unsigned long long)res->dvfs_switches, res->dvfs_time_s, res->dvfs_energy_j);
	fprintf(f, "  \"clock\": {\"target_ppm\": %.9g, \"target_offset_s\": %.9g, \"board_ppm\": %.9g},\n",
		res->p.target_ppm, res->p.target_offset, res->p.board_ppm);
	/* the bias formula's Vb_eff is E / Q, the charge-weighted voltage */
	fprintf(f, "  \"vb\": {\"charge_weighted_v\": %.9g, \"energy_weighted_v\": %.9g, \"min_v\": %.9g, \"max_v\": %.9g},\n",
		res->device_charge > 0 ? res->energy_j / res->device_charge : res->p.vb_nominal,
		res->vb_energy_weighted, res->vb_min, res->vb_max);
	fprintf(f, "  \"bias\": {\"pulse_rate_hz\": %.9g, \"dead_time_s\": %.9g, \"dead_time_charge_lost\": %.9g, \"gain_err\": %.9g, \"offset_a\": %.9g, \"vcomp\": %d, \"expected_power_estimate_w\": %.9g},\n",
		res->pulses / res->duration, res->p.dead_time,
		res->mirror_charge > 0 ? res->pulse_charge_lost / res->mirror_charge : 0,
		res->p.gain_err, res->p.mirror_offset, res->p.vcomp,
		sim_expected_power_estimate(sc, res));
	fputs("  \"shares_exclude\": \"the sampling ISR (it cannot sample itself)\",\n", f);
	json_time_run(f, sc, res);
	fputs("  \"executables\": ", f);
	json_groups(f, sc, res->acts, sim_act_exe, e_seen, t_seen, "");
	fputs(",\n  \"modules\": ", f);
	json_groups(f, sc, res->acts, sim_act_module, e_seen, t_seen, "");
	fputs(",\n  \"procedures\": ", f);
	json_procs(f, sc, res->acts, res->device_landed_j, e_seen, t_seen, "");
	fputs(",\n  \"phases\": [", f);
	for (i = 0; i < sc->nphases; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		eq_json_string(f, sc->phases[i].name);
		fprintf(f, ", \"start_s\": %.9g, \"duration_s\": %.9g}", t, sc->phases[i].duration);
		t += sc->phases[i].duration;
	}
	fprintf(f, "\n  ],\n  \"trace\": {\"bin_s\": %.9g, \"file\": \"truth-trace.csv\", \"power_w\": [", res->trace_bin);
	for (i = 0; i < res->ntrace; i++)
		fprintf(f, "%s%.6g", i ? (i % 10 ? ", " : ",\n    ") : "", res->trace_w[i]);
	fputs("]}\n}\n", f);
	return eq_outfile_commit(o, err);
}

static int write_trace_csv(const struct sim_result *res, struct eq_outfile *o, struct eq_error *err)
{
	size_t i;

	fputs("time_s,power_w\n", o->fp);
	for (i = 0; i < res->ntrace; i++)
		fprintf(o->fp, "%.9g,%.9g\n", (i + 0.5) * res->trace_bin, res->trace_w[i]);
	return eq_outfile_commit(o, err);
}

static const char *const out_names[] = {
	"energy.eqp", "time.eqp", "truth.json", "truth-trace.csv", "truth-states.json",
	"truth-devices.json", NULL
};

/* ---- writing while simulating ------------------------------------------ */

struct sim_stream {
	struct eq_outdir d;
	struct eqp_writer *w[2];  /* 0: time.eqp, 1: energy.eqp */
	const struct sim_scenario *sc;
	uint64_t rng[2];          /* of each recording's call chains */
};

int sim_stream_open(const struct sim_scenario *sc, const char *dir, const char *counter,
		    struct sim_stream **out, struct eq_error *err)
{
	struct sim_stream *st = calloc(1, sizeof(*st));
	struct sim_params p;
	char path[4096];
	int e;

	if (!st)
		return eq_fail(err, "out of memory");
	sim_params_effective(&sc->p, &p);
	if (eq_outdir_open(&st->d, dir, out_names, err) < 0) {
		free(st);
		return -1;
	}
	st->sc = sc;
	for (e = 0; e < 2; e++) {
		st->rng[e] = CALLS_SEED(sc);
		if (snprintf(path, sizeof(path), "%s/%s", st->d.tmp, e ? "energy.eqp" : "time.eqp") >=
		    (int)sizeof(path)) {
			eq_fail(err, "%s: path too long", dir);
			sim_stream_abort(st);
			return -1;
		}
		st->w[e] = rec_open(sc, &p, counter, !sc->p.sampling_shared, path, e, err);
		if (!st->w[e]) {
			sim_stream_abort(st);
			return -1;
		}
	}
	*out = st;
	return 0;
}

struct eqp_writer *sim_stream_writer(struct sim_stream *st, int energy)
{
	return st->w[energy ? 1 : 0];
}

int sim_stream_add_samples(struct sim_stream *st, int energy, const struct eq_sample *s, size_t n,
			   struct eq_error *err)
{
	int e = energy ? 1 : 0;

	return add_samples(st->w[e], st->sc, s, n, &st->rng[e], err);
}

int sim_stream_finish(struct sim_stream *st, const struct sim_scenario *sc,
		      const struct sim_result *res, struct eq_error *err)
{
	struct eq_outfile o;
	char path[4096];
	int rc, e;

	/* power states (PSTA) and device requests (DREQ) are known at the end */
	for (rc = 0, e = 1; e >= 0 && rc == 0; e--)
		if (sim_states_add(st->w[e], res, e, err) < 0 || sim_devices_add(st->w[e], sc, res, err) < 0)
			rc = -1;
	if (rc == 0) {
		rc = rec_close(st->w[1], res->lost_energy, res->merged_energy, err);
		st->w[1] = NULL;
	}
	if (rc == 0) {
		rc = rec_close(st->w[0], res->lost_timed, res->merged_timed, err);
		st->w[0] = NULL;
	}
	if (rc == 0 && (snprintf(path, sizeof(path), "%s/truth-states.json", st->d.tmp) >= (int)sizeof(path) ||
			sim_states_write_truth(sc, res, path, err) < 0))
		rc = -1;
	if (rc == 0 && sc->devices && sc->devices->ndev &&
	    (snprintf(path, sizeof(path), "%s/truth-devices.json", st->d.tmp) >= (int)sizeof(path) ||
	     sim_devices_write_truth(sc, res, path, err) < 0))
		rc = -1;
	if (rc == 0 && (eq_outdir_file(&st->d, &o, "truth.json", err) < 0 ||
			write_truth(sc, res, &o, err) < 0))
		rc = -1;
	if (rc == 0 && (eq_outdir_file(&st->d, &o, "truth-trace.csv", err) < 0 ||
			write_trace_csv(res, &o, err) < 0))
		rc = -1;
	if (rc == 0)
		rc = eq_outdir_commit(&st->d, err);
	else
		eq_outdir_discard(&st->d);
	for (e = 0; e < 2; e++)
		if (st->w[e])
			eqp_discard(st->w[e]);
	free(st);
	return rc;
}

void sim_stream_abort(struct sim_stream *st)
{
	int e;

	if (!st)
		return;
	for (e = 0; e < 2; e++)
		if (st->w[e])
			eqp_discard(st->w[e]);
	eq_outdir_discard(&st->d);
	free(st);
}


/* All or nothing: the files go into a temporary sibling folder that becomes
 * DIR when every one is complete (missing parents of DIR are created). */
int sim_write_outputs(const struct sim_scenario *sc, const struct sim_result *res,
		      const char *dir, struct eq_error *err)
{
	struct eq_outdir d;
	struct eq_outfile o;
	char path[4096];

	if (eq_outdir_open(&d, dir, out_names, err) < 0)
		return -1;
#define OUT(name) (snprintf(path, sizeof(path), "%s/%s", d.tmp, name) >= (int)sizeof(path) ? \
		   eq_fail(err, "%s: path too long", dir) : 0)
	if (OUT("energy.eqp") < 0 || write_recording(sc, res, path, 1, err) < 0)
		goto fail;
	if (OUT("time.eqp") < 0 || write_recording(sc, res, path, 0, err) < 0)
		goto fail;
	if (OUT("truth-states.json") < 0 || sim_states_write_truth(sc, res, path, err) < 0)
		goto fail;
	if (sc->devices && sc->devices->ndev &&
	    (OUT("truth-devices.json") < 0 || sim_devices_write_truth(sc, res, path, err) < 0))
		goto fail;
#undef OUT
	if (eq_outdir_file(&d, &o, "truth.json", err) < 0)
		goto fail;
	if (write_truth(sc, res, &o, err) < 0)
		goto fail;
	if (eq_outdir_file(&d, &o, "truth-trace.csv", err) < 0)
		goto fail;
	if (write_trace_csv(res, &o, err) < 0)
		goto fail;
	return eq_outdir_commit(&d, err);
fail:
	eq_outdir_discard(&d);
	return -1;
}
