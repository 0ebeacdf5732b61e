/*
 * states.c - power states in the simulator; see states.h.
 *
 * The engine reports the workload's state as it runs (sim_states_track:
 * its clock, and C1 while the idle routine runs; the ISR and the recorder
 * run inside that state), so the changes written into the recordings are
 * those of the run that made them, lag included; the truth per state is
 * accumulated as the engine integrates power (sim_states_account), exactly
 * like the truth per activity.
 */
#include "sim_internal.h"
#include "states.h"
#include "file/outfile.h"
#include "states/pstate.h"
#include "profile/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t freq_khz(const struct sim_scenario *sc, size_t freq)
{
	return (uint32_t)llround(sc->freqs[freq].hz / 1e3);
}

int sim_states_track(struct sim_result *res, const struct sim_scenario *sc, size_t freq, int idle,
		     double t)
{
	uint32_t khz = freq_khz(sc, freq), c = idle ? SIM_IDLE_CSTATE : 0;
	/* the last values, not pointers into pstates: realloc below moves it */
	int have_f = 0, have_c = 0;
	uint32_t last_f = 0, last_c = 0;
	size_t i;

	for (i = res->npstates; i-- > 0 && (!have_f || !have_c);) {
		if (!have_f && res->pstates[i].kind == EQP_PS_FREQ) {
			last_f = res->pstates[i].value;
			have_f = 1;
		}
		if (!have_c && res->pstates[i].kind == EQP_PS_IDLE) {
			last_c = res->pstates[i].value;
			have_c = 1;
		}
		if (res->npstates - i > 4)
			break;
	}
	if (res->npstates + 2 > res->cap_pstates) {
		size_t nc = res->cap_pstates ? 2 * res->cap_pstates : 1024;
		void *p = realloc(res->pstates, nc * sizeof(*res->pstates));

		if (!p)
			return -1;
		res->pstates = p;
		res->cap_pstates = nc;
	}
	if (!have_f || last_f != khz)
		res->pstates[res->npstates++] = (struct eqp_pstate){ .time = sim_target_ns(&res->p, t),
								      .kind = EQP_PS_FREQ, .value = khz };
	if (!have_c || last_c != c)
		res->pstates[res->npstates++] = (struct eqp_pstate){ .time = sim_target_ns(&res->p, t),
								      .kind = EQP_PS_IDLE, .value = c };
	return 0;
}

int sim_states_add(struct eqp_writer *w, const struct sim_result *res, int energy,
		   struct eq_error *err)
{
	const struct eqp_pstate *v = energy || !res->time_run.pstates ? res->pstates : res->time_run.pstates;
	size_t n = energy || !res->time_run.pstates ? res->npstates : res->time_run.npstates;

	return n ? eqp_add_pstates(w, v, n, err) : 0;
}

int sim_states_account(struct sim_result *res, const struct sim_scenario *sc, size_t act,
		       size_t freq, int idle, double power, double dt)
{
	struct sim_truth_act *x;

	if (!res->state_acts) {
		res->state_acts = calloc(SIM_NACTS(sc) * sc->nfreqs, sizeof(*res->state_acts));
		res->cpu_states = calloc(2 * sc->nfreqs, sizeof(*res->cpu_states));
		if (!res->state_acts || !res->cpu_states)
			return -1;
	}
	x = &res->state_acts[act * sc->nfreqs + freq];
	x->energy_j += power * dt;
	x->time_s += dt;
	x = &res->cpu_states[freq * 2 + !!idle];
	x->energy_j += power * dt;
	x->time_s += dt;
	return 0;
}

/* ---- truth-states.json ------------------------------------------------ */

enum group { G_STATE, G_FREQ, G_CSTATE, G_MODE, G_EXE_STATE, G_PROC_STATE, G_MODULE_FREQ };

static const char *mode_of(const struct sim_scenario *sc, size_t act)
{
	if (act == SIM_ACT_IDLE)
		return "idle";
	if (act >= sc->nacts)
		return "user"; /* the recorder */
	return sc->modules[sc->procs[sc->acts[act].proc].module].kernel ? "kernel" : "user";
}

/* The key of (act, freq) in a group, as the report labels it. */
static void key_of(const struct sim_scenario *sc, enum group g, size_t act, size_t freq,
		   char *key, size_t size)
{
	char f[32], c[16];

	eq_freq_label(f, sizeof(f), freq_khz(sc, freq));
	eq_cstate_label(c, sizeof(c), act == SIM_ACT_IDLE ? SIM_IDLE_CSTATE : 0);
	switch (g) {
	case G_STATE: snprintf(key, size, "%s %s", f, c); break;
	case G_FREQ: snprintf(key, size, "%s", f); break;
	case G_CSTATE: snprintf(key, size, "%s", c); break;
	case G_MODE: snprintf(key, size, "%s", mode_of(sc, act)); break;
	case G_EXE_STATE: snprintf(key, size, "%s\t%s %s", sim_act_exe(sc, act), f, c); break;
	case G_MODULE_FREQ: snprintf(key, size, "%s\t%s", sim_act_module(sc, act), f); break;
	case G_PROC_STATE:
		snprintf(key, size, "%s\t%s\t%s %s", sim_act_exe(sc, act), sim_act_proc(sc, act), f, c);
		break;
	}
}

static void json_group(FILE *out, const struct sim_scenario *sc, const struct sim_truth_act *acts,
		       enum group g, double e_seen, double t_seen)
{
	size_t n = SIM_NACTS(sc) * sc->nfreqs, i, j;
	char ki[512], kj[512];
	int first = 1;

	fputs("[", out);
	for (i = 0; i < n; i++) {
		double e = 0, t = 0;
		char *f1, *f2;

		if (i / sc->nfreqs == SIM_ACT_ISR || acts[i].time_s == 0)
			continue;
		key_of(sc, g, i / sc->nfreqs, i % sc->nfreqs, ki, sizeof(ki));
		for (j = 0; j < i; j++)
			if (j / sc->nfreqs != SIM_ACT_ISR && acts[j].time_s > 0) {
				key_of(sc, g, j / sc->nfreqs, j % sc->nfreqs, kj, sizeof(kj));
				if (!strcmp(ki, kj))
					break;
			}
		if (j < i)
			continue;
		for (j = i; j < n; j++)
			if (j / sc->nfreqs != SIM_ACT_ISR) {
				key_of(sc, g, j / sc->nfreqs, j % sc->nfreqs, kj, sizeof(kj));
				if (!strcmp(ki, kj)) {
					e += acts[j].energy_j;
					t += acts[j].time_s;
				}
			}
		fprintf(out, "%s\n    {", first ? "" : ",");
		first = 0;
		f1 = strchr(ki, '\t');
		f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
		if (f1)
			*f1 = '\0';
		if (f2)
			*f2 = '\0';
		if (g == G_MODULE_FREQ) {
			fputs("\"module\": ", out);
			eq_json_string(out, ki);
			fputs(", \"freq\": ", out);
			eq_json_string(out, f1 + 1);
		} else if (g == G_EXE_STATE || g == G_PROC_STATE) {
			fputs("\"exe\": ", out);
			eq_json_string(out, ki);
			if (g == G_PROC_STATE) {
				fputs(", \"proc\": ", out);
				eq_json_string(out, f1 + 1);
			}
			fputs(", \"state\": ", out);
			eq_json_string(out, g == G_PROC_STATE ? f2 + 1 : f1 + 1);
		} else {
			fprintf(out, "\"%s\": ", g == G_MODE ? "mode" : g == G_FREQ ? "freq" : "state");
			eq_json_string(out, ki);
			if (g != G_MODE)
				fprintf(out, ", \"freq_hz\": %.9g",
					sc->freqs[i % sc->nfreqs].hz);
		}
		fprintf(out, ", \"energy_j\": %.9g, \"time_s\": %.9g, \"energy_share\": %.9g, \"time_share\": %.9g, \"power_w\": %.9g}",
			e, t, e / e_seen, t / t_seen, t > 0 ? e / t : 0);
	}
	fputs("\n  ]", out);
}

/* The CPU's states: states (frequency and idle state), freqs or cstates,
 * from everything drawn in them (cpu_states), shares of the run's whole
 * energy and time. */
static void json_cpu_group(FILE *out, const struct sim_scenario *sc, const struct sim_truth_act *cpu,
			   enum group g, double e_all, double t_all)
{
	char key[64], f[32], c[16];
	size_t i, j, n = g == G_CSTATE ? 2 : g == G_FREQ ? sc->nfreqs : 2 * sc->nfreqs;
	int first = 1;

	fputs("[", out);
	for (i = 0; i < n; i++) {
		double e = 0, t = 0;

		for (j = 0; j < 2 * sc->nfreqs; j++)
			if ((g == G_STATE && j == i) || (g == G_FREQ && j / 2 == i) ||
			    (g == G_CSTATE && j % 2 == i)) {
				e += cpu[j].energy_j;
				t += cpu[j].time_s;
			}
		if (t == 0)
			continue;
		eq_freq_label(f, sizeof(f), freq_khz(sc, g == G_FREQ ? i : i / 2));
		eq_cstate_label(c, sizeof(c), (g == G_CSTATE ? i : i % 2) ? SIM_IDLE_CSTATE : 0);
		if (g == G_STATE)
			snprintf(key, sizeof(key), "%s %s", f, c);
		fprintf(out, "%s\n    {\"%s\": ", first ? "" : ",",
			g == G_STATE ? "state" : g == G_FREQ ? "freq" : "cstate");
		eq_json_string(out, g == G_STATE ? key : g == G_FREQ ? f : c);
		if (g != G_CSTATE)
			fprintf(out, ", \"freq_hz\": %.9g", sc->freqs[g == G_FREQ ? i : i / 2].hz);
		fprintf(out, ", \"energy_j\": %.9g, \"time_s\": %.9g, \"energy_share\": %.9g, \"time_share\": %.9g, \"power_w\": %.9g}",
			e, t, e / e_all, t / t_all, e / t);
		first = 0;
	}
	fputs("\n  ]", out);
}

int sim_states_write_truth(const struct sim_scenario *sc, const struct sim_result *res,
			   const char *path, struct eq_error *err)
{
	struct eq_outfile o;
	double e_seen = res->energy_j - res->isr_energy_j;
	double t_seen = res->duration - res->isr_time_s;

	if (!res->state_acts || !res->cpu_states)
		return eq_fail(err, "simulator: no truth per state was kept");
#define GROUPS(acts, cpu, e_all, t_all, e_seen, t_seen, indent) do { \
	fputs(",\n" indent "  \"states\": ", o.fp); \
	json_cpu_group(o.fp, sc, cpu, G_STATE, e_all, t_all); \
	fputs(",\n" indent "  \"freqs\": ", o.fp); \
	json_cpu_group(o.fp, sc, cpu, G_FREQ, e_all, t_all); \
	fputs(",\n" indent "  \"cstates\": ", o.fp); \
	json_cpu_group(o.fp, sc, cpu, G_CSTATE, e_all, t_all); \
	fputs(",\n" indent "  \"modes\": ", o.fp); \
	json_group(o.fp, sc, acts, G_MODE, e_seen, t_seen); \
	fputs(",\n" indent "  \"exe_states\": ", o.fp); \
	json_group(o.fp, sc, acts, G_EXE_STATE, e_seen, t_seen); \
	fputs(",\n" indent "  \"module_freqs\": ", o.fp); \
	json_group(o.fp, sc, acts, G_MODULE_FREQ, e_seen, t_seen); \
	fputs(",\n" indent "  \"proc_states\": ", o.fp); \
	json_group(o.fp, sc, acts, G_PROC_STATE, e_seen, t_seen); \
} while (0)
	if (eq_outfile_open(&o, path, err) < 0)
		return -1;
	fputs("{\n  \"scenario\": ", o.fp);
	eq_json_string(o.fp, sc->name);
	fputs(",\n  \"states_hold\": \"everything drawn while the CPU was in the state, the sampling ISR and the OS's interrupt handlers included (shares of the whole run)\"", o.fp);
	fputs(",\n  \"shares_exclude\": \"code groups (modes, exe_states, module_freqs, proc_states): the sampling ISR (it cannot sample itself), and the OS's interrupt handlers are in no row, as in truth.json\"", o.fp);
	GROUPS(res->state_acts, res->cpu_states, res->energy_j, res->duration, e_seen, t_seen, "");
	if (res->time_run.state_acts) { /* the time-driven run, when it was separate */
		const struct sim_run_truth *tr = &res->time_run;

		fputs(",\n  \"time_run\": {\"run\": \"time-driven\"", o.fp);
		GROUPS(tr->state_acts, tr->cpu_states, tr->energy_j, tr->duration,
		       tr->energy_j - tr->isr_energy_j, tr->duration - tr->isr_time_s, "  ");
		fputs("}", o.fp);
	}
#undef GROUPS
	fputs("\n}\n", o.fp);
	return eq_outfile_commit(&o, err);
}
