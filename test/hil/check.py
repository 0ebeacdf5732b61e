#!/usr/bin/env python3
"""check.py - judges one hardware-in-the-loop run (test/hil/run-loop.sh).

    check.py OUT FIRST_TAP_NUMBER      (EQPROF in the environment)

OUT holds board.eqp, merged.eqp (eqprof merge of the guest's energy.eqp and
board.eqp), merged-time.eqp (eqprof merge --edges of the guest's time.eqp,
board.eqp and edges.eqp), guest/ (what the guest recorded), truth (the
bridge's exact energies).  Prints TAP lines (no plan) and, with --summary, a table of the
profiles beside the truth for a reader (make hil-demo).

The truth: the bridge integrates each phase's power over board time, and
writes for every IRQ edge the energy spent so far in each phase, so the
energy of the quanta a recording holds is exact.  A program's truth is a
bracket: at most its whole phase's energy, at least the share of its phase
it held the CPU (test/hil/hilwork.c: hilphase announces the phase before
the program starts and idle after it has exited, and measures both); the recorder and the kernel ran
in the rest of the phase at the phase's power.  The rest (idle, recorder,
kernel) is everything else.  The recorder's own samples may have been
taken in any phase: they may count towards either side.

Why the statistics hold on any machine (false failure well below 1e-4):
energy-driven samples are not independent draws.  The board interrupts
once per quantum, so the number of samples in a phase is its energy over
the quantum, give or take the one quantum in progress at each phase change
and the firmware's +-5% jitter of N (a random walk of about 0.03 quanta
per sample in the root: under one quantum over 500 samples).  Lockstep
keeps the phase changes' interrupt latency to one interrupt at most, and
the truth brackets the recorder's and the kernel's time.  The report's 99% interval (its
95% interval widened by 2.576/1.96) is several quanta wide for every row.
The loss cross-check is exact by construction (merged doorbells are
counted); nothing is asserted on time.
"""
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import eqp  # noqa: E402

OUT, N = sys.argv[1], int(sys.argv[2])
SUMMARY = "--summary" in sys.argv
# --quick: phases of a second or two (test/arm's quick form in make check):
# about 130 energy-driven samples in all.  The energy shares against the
# truth are checked with bounds at z = 4.5 instead of 99% (two-sided 6.8e-6
# a share, 2.1e-5 for the three): the 99% bounds of the full form let up
# to 3% of runs fail (three checks at 1% each; seen once in the quick form:
# 58.7% against at most 57.8%), while a
# program given another's phase still falls outside (the report's
# intervals, systematic sampling's: at z 4.5 about +-4 points around a
# share near 25% from 130 samples).  Figure 12's
# comparison and the power regression need the long phases and are
# skipped, saying so; every accounting check still runs.
QUICK = "--quick" in sys.argv
Z45_OVER_99 = 4.5 / 2.5758
EQPROF = os.environ["EQPROF"]
Z99_OVER_95 = 2.5758 / 1.9600
PROGRAMS = {1: "cpucached", 2: "game"}


def tap(ok, what, detail=""):
    global N
    print(f"{'ok' if ok else 'not ok'} {N} - {what}")
    if not ok and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)
    N += 1
    return ok


def stat_tap(ok, what, detail=""):
    """tap() for a statistic that needs the full-length phases."""
    global N
    if QUICK:
        print(f"ok {N} - # SKIP {what.split(':')[0]}: the quick form's phases are too short for it")
        N += 1
        return True
    return tap(ok, what, detail)


def path(*names):
    return os.path.join(OUT, *names)


def read_truth():
    t = {"power": {}, "edges": [], "listen": [], "change": [], "hz": 16e6}
    with open(path("truth")) as f:
        for line in f:
            w = line.split()
            m = re.match(r"# hilbridge truth: board cycles at (\d+) Hz", line)
            if m:
                t["hz"] = float(m.group(1))
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "change":
                t["change"].append((int(w[1]), int(w[2])))
            if w[0] == "power":
                t["power"][int(w[1])] = float(w[2])
            elif w[0] == "edge":
                t["edges"].append((int(w[2]), int(w[3]), [float(x) for x in w[4:]]))
            elif w[0] == "listen":
                t["listen"].append((int(w[2]), int(w[3]), int(w[4])))
            elif w[0] in ("boots", "edges", "doorbells", "ring_timeouts", "pulses"):
                t["n_" + w[0]] = int(w[1])
    return t


def report(file, by="exe"):
    p = subprocess.run([EQPROF, "report", file, "--by", by, "--format", "json", "-q"],
                       capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(p.stderr)
    return json.loads(p.stdout), p.stderr


def rows_by_name(rep):
    out = {}
    for r in rep["rows"]:
        lo = r["share"] - (r["share"] - r["ci95_low"]) * Z99_OVER_95
        hi = r["share"] + (r["ci95_high"] - r["share"]) * Z99_OVER_95
        out[r["name"]] = (r["share"], lo, hi, r["samples"])
    return out


def board_records(file):
    rec = eqp.read(file)
    out = {}
    for ctype, _, payload in rec.chunks:
        if ctype == "BREC":
            (n,) = struct.unpack_from("<I", payload, 0)
            for i in range(n):
                t, seq, pulses, uv, fl, _ = struct.unpack_from("<QIIIHH", payload, 8 + 24 * i)
                out[seq] = (t, pulses, fl)
    return out


truth = read_truth()


def read_work(name):
    w = {}
    with open(path("guest", name)) as f:
        for line in f:
            m = re.match(r"hilwork (\S+) phase=(\d+) wall=([\d.]+) cpu=([\d.]+)", line)
            if m:
                w[int(m.group(2))] = (float(m.group(3)), float(m.group(4)))
    return w


work = read_work("work-energy.txt")
work_t = read_work("work-time.txt")
guest_log = open(path("guest", "guest.log")).read()
rec_log = open(path("guest", "record.log")).read()
merge_log = open(path("merge.log")).read()
tap("record=0" in guest_log and "record-t=0" in guest_log
    and re.search(r"record-edges=(0|130)\b", guest_log) is not None
    and len(work) == 2 and len(work_t) == 2,
    "the guest ran both programs under eqprof record -e --ivshmem, then under record -t while "
    "a second recorder took the board's interrupts", guest_log[-1500:])
tap(re.search(r"from ivshmem \S+ msix hardirq", rec_log) is not None,
    "the energy-driven samples came from the doorbell's MSI-X interrupt, in hard-interrupt context",
    rec_log)
tap(truth.get("n_boots") == 1 and truth.get("n_ring_timeouts") == 0,
    f"the firmware ran once without reset and every edge was taken by the guest in turn "
    f"(boots {truth.get('n_boots')}, doorbell timeouts {truth.get('n_ring_timeouts')})")

# ---- the loss cross-check ----------------------------------------------------
m = re.search(r"raised (\d+) interrupts \(quanta (\d+)\.\.(\d+)\) during the recording; the target "
              r"recorded (\d+) samples and counted (\d+) lost: balanced", merge_log)
tap(m is not None, "eqprof merge: the board's interrupts balance the target's samples plus its "
    "counted losses", merge_log)
irqs, q0, q1, samples, lost = (int(x) for x in m.groups()) if m else (0, 0, 0, -1, -1)
tap(m is not None and irqs == samples + lost and irqs == q1 - q0 + 1,
    f"cross-check: {irqs} interrupts = {samples} samples + {lost} counted lost")
# two sessions listened: the energy-driven run, then the edges beside record -t
on = [x for x in truth["listen"] if x[0] == 1]
off = [x for x in truth["listen"] if x[0] == 0]
ok = len(on) == 2 and len(off) == 2
# From the edge it rang last when it saw the module listen ("rung": the
# module counts the edges before its session after it sets the flag, so
# "taken" may still be the last session's) to the last edge the module
# took before it cleared the flag ("taken": the module leaves an edge that
# arrives after its session ended untaken).
delivered = off[0][2] - on[0][1] if ok else -1
# The bridge notes a change of the module's listening only when it has a
# new edge to ring, with the counts it has then, and rings every edge while
# nobody listens.  So one edge at each end may race the module's flag:
# - at the end, the edge the module sampled as the session ended, taken
#   from the bridge's view only after the flag was cleared (quantum off's
#   "taken"; seen once: listened from 181, off at 822/822, samples
#   181..822);
# - at the start, the edge the bridge was ringing as the module set its
#   flag, after the module counted the edges (quantum on's "rung" - 1; seen
#   once: listened from 408, off at 1056/1056, 649 samples, 648 edges while
#   listening).
# Each may add that one edge, named by its quantum, and nothing else.
# When the module counted before it listened and took the edges that came
# after its session, more could: seen once in CI (listened from 364, took
# 939 edges), and in every run with a hand-over held open 300 ms (x86-64:
# listened from 267, took 934 edges, samples 261..1200; listened from 270,
# took 940 edges, samples 270..1203).  The arm64 test holds both open
# (handover_ms), so that this check covers them in every run.
raced_start = ok and q0 == on[0][1] - 1
raced_end = ok and q1 == off[0][2]
tap(ok and q0 in (on[0][1], on[0][1] - 1) and delivered + raced_start + raced_end == irqs,
    f"the bridge's own count agrees: the module listened from edge {on[0][1] if ok else '?'}, and "
    f"took {delivered} edges while it did" +
    (" and the one it rang as the module started" if raced_start else "") +
    (" and the one it rang as the module stopped" if raced_end else ""),
    f"{truth['listen']} quanta {q0}..{q1}")
rep_e, rep_err = report(path("merged.eqp"))
# balanced: report and power say nothing of it (as perf says nothing of
# losses when there are none), and repeat it in full with -v (issue 28)
tap("board:" not in rep_err, "eqprof report of the balanced merged recording is quiet about it", rep_err)
p = subprocess.run([EQPROF, "report", path("merged.eqp"), "--by", "exe", "-q", "-v"],
                   capture_output=True, text=True)
tap(f"raised {irqs} interrupts" in p.stderr and "balanced" in p.stderr,
    "eqprof report -v of the merged recording repeats the cross-check with its numbers", p.stderr)
p = subprocess.run([EQPROF, "power", path("merged.eqp"), "--summary", "-v"], capture_output=True, text=True)
tap(p.returncode == 0 and f"raised {irqs} interrupts" in p.stderr,
    "eqprof power -v repeats it too", p.stdout + p.stderr)

# ---- the board's stream is the firmware's own record of the same quanta ------
brec = board_records(path("board.eqp"))
span = range(q0, q1 + 1)
have = [q for q in span if q in brec]
offs = set()
for q in have:
    if q < len(truth["edges"]):
        offs.add(brec[q][0] * 8 - truth["edges"][q][0])
# the firmware stamps an edge from its interrupt handler: one offset, give or
# take its latency (tens of cycles) and a tick's rounding (8 cycles)
tap(len(have) == len(span) and offs and max(offs) - min(offs) <= 160,
    f"the board's stream holds a record of each of those {len(span)} quanta, each stamped within "
    f"10 us of the cycle the bridge saw its edge (offsets {min(offs) if offs else '?'}.."
    f"{max(offs) if offs else '?'} cycles)")

# ---- energy shares against the truth ----------------------------------------
e_first, e_last = truth["edges"][q0 - 1][2] if q0 > 0 else [0.0] * 3, truth["edges"][q1][2]
phase_e = [b - a for a, b in zip(e_first, e_last)]
total_e = sum(phase_e)
# A program's truth is bracketed: at most its whole phase's energy, at least
# the share of the phase it held the CPU (the recorder and the kernel ran in
# the rest, at the phase's power).
truth_lo, truth_hi = {}, {}
for ph, name in PROGRAMS.items():
    wall, cpu = work[ph]
    truth_lo[name] = phase_e[ph] * cpu / wall
    truth_hi[name] = phase_e[ph]
truth_lo["rest"] = total_e - sum(truth_hi[n] for n in PROGRAMS.values())
truth_hi["rest"] = total_e - sum(truth_lo[n] for n in PROGRAMS.values())
# Each phase change moves up to two quanta between the phases on either side
# of it, exactly: the quantum in progress at the change holds energy of both
# and counts where its edge falls, and the edge the bridge made just before
# it saw the change may reach the guest just after.  A program has two
# changes, the rest four.
eq = total_e / (q1 - q0 + 1)
for name, changes in (("cpucached", 2), ("game", 2), ("rest", 4)):
    truth_lo[name] = max(0.0, truth_lo[name] - 2 * changes * eq)
    truth_hi[name] += 2 * changes * eq
truth_e = {n: (truth_lo[n] + truth_hi[n]) / 2 for n in truth_lo}
shares = rows_by_name(rep_e)
rest = [0.0, 0.0, 0.0, 0]
for name, (s, lo, hi, n) in shares.items():
    if name not in PROGRAMS.values():
        rest = [rest[0] + s, rest[1] + (s - lo) ** 2, rest[2] + (hi - s) ** 2, rest[3] + n]
shares["rest"] = (rest[0], rest[0] - rest[1] ** 0.5, rest[0] + rest[2] ** 0.5, rest[3])
quantum = rep_e["quantum_j"]
# The recorder's own samples (seed 001 reports the collector's share apart)
# may have been taken in any phase: they may count towards either side.
own = shares.get("eqprof", (0.0, 0.0, 0.0, 0))[0]
for name in ("cpucached", "game", "rest"):
    s, lo, hi, n = shares.get(name, (0.0, 0.0, 0.0, 0))
    level = "99%"
    if QUICK:
        lo, hi, level = s - (s - lo) * Z45_OVER_99, s + (hi - s) * Z45_OVER_99, "z 4.5"
    tlo, thi = truth_lo[name] / total_e, truth_hi[name] / total_e
    slo, shi = (lo - own, hi) if name == "rest" else (lo, hi + own)
    tap(slo <= thi and tlo <= shi,
        f"energy share of {name}: {100 * s:.2f}% [{level}: {100 * lo:.2f}, {100 * hi:.2f}] meets the "
        f"truth {100 * tlo:.2f}..{100 * thi:.2f}% ({truth_lo[name]:.3f}..{truth_hi[name]:.3f} of "
        f"{total_e:.3f} J; the recorder's own {100 * own:.2f}% may be either's)")
tap(abs(rep_e["total_samples"] * quantum - total_e) < 0.02 * total_e,
    f"the samples times the board's quantum ({rep_e['total_samples']} x {1e3 * quantum:.3f} mJ = "
    f"{rep_e['total_samples'] * quantum:.3f} J) is the true energy {total_e:.3f} J within 2% "
    f"(the front end's dead time and the phase changes' quanta)")

# ---- time-driven: Figure 12's disagreement ------------------------------------
# The same workload under record -t, a second run.  A loaded host stretches
# the board's time unevenly between phases and between the two runs (the
# guest is paused with the board, and time-driven samples follow the
# guest's progress), so the test compares no phase's length across runs,
# only what Figure 12 shows for the 1.2 W program: its energy share's 99%
# interval lies above its time share's.  The phases' powers make its
# energy share about 1.7 times its share of the run's time; the check fails
# only if the second run gave it more than about 1.6 times the share of the
# guest's progress the first run did (a heavily loaded run here: 21.9%
# against an energy share of 69.0%).  Energy over time share is not ranked across
# the other rows: with the rest's recorders and kernel spread over every
# phase, that order depends on how unevenly the host paused the two runs
# (seen: game 0.38 against the rest's 0.41 under load).  Each program's
# power, from one run, is held to the truth below (power --by proc).
rep_t, _ = report(path("guest", "time.eqp"))
tshares = rows_by_name(rep_t)
seconds = {i: phase_e[i] / truth["power"][i] for i in truth["power"] if truth["power"][i] > 0}
mean_w = total_e / sum(seconds.values())
es, elo, ehi, _ = shares["cpucached"]
ts, tlo, thi, _ = tshares.get("cpucached", (0.0, 0.0, 0.0, 0))
stat_tap(tlo > 0 and thi < elo,
    f"cpucached (1.2 W): energy share {100 * es:.1f}% [99%: {100 * elo:.1f}, {100 * ehi:.1f}] "
    f"against time share {100 * ts:.1f}% [99%: {100 * tlo:.1f}, {100 * thi:.1f}]: the profiles "
    f"disagree (Figure 12)")
if SUMMARY:
    t_rest = sum(v[0] for k, v in tshares.items() if k not in PROGRAMS.values())
    print("# energy share over time share (two runs): cpucached %.2f, game %.2f, the rest %.2f" % (
        shares["cpucached"][0] / max(ts, 1e-9),
        shares["game"][0] / max(tshares.get("game", (1e-9,))[0], 1e-9),
        shares["rest"][0] / max(t_rest, 1e-9)))

m = re.search(r"residual median ([\d.]+) ms, 99% ([\d.]+) ms, max ([\d.]+) ms", merge_log)
r = re.search(r"target = board x ([\d.]+) ([+-][\d.]+) ms", merge_log)
tap(m is not None and r is not None,
    "eqprof merge estimated the clocks' rate and offset from the matched interrupts and reported "
    "the residual" + (f" (rate {r.group(1)}, residual median {m.group(1)} ms, 99% {m.group(2)} ms)"
                      if m and r else ""), merge_log)

# ---- power per procedure by regression (seed 002) on the time-driven run ----
# merged-time.eqp: record -t's samples (perf's cpu-clock at 250 Hz), the
# board's stream, and the edges a second recorder took meanwhile (knots:
# each quantum's edge on the guest's clock).  power --by proc fits each
# procedure's power per second of the guest's clock over intervals of 2-13
# quanta.
#
# What the truth is.  The bridge draws phase i's power P_i for Tb_i seconds
# of the board's clock (its `change` lines), while the program announced
# it: Tg_i seconds of the guest's clock (the program's own wall time).  The
# board's clock never runs ahead of real time (the bridge paces it, and
# holds or pauses it when the guest or the host is slow) and the guest's
# clock is real time (QEMU's TCG), so a second of guest time holds at most
# P_i x 1 J of the phase, and over the phase P_i x Tb_i / Tg_i on average.
# The fit's intervals inside the phase miss at most its two boundary
# intervals (13 quanta each, 13 E_q / P_i board seconds), and each phase
# change moves up to 2 quanta between the phases beside it (docs/hil.md):
# the phase's energy per guest second is in
#   [P_i (Tb_i - 2 x 13 E_q / P_i) / Tg_i - 4 E_q / Tg_i,  P_i + 4 E_q / Tg_i].
# That energy is shared: the program's main procedure ran a fraction phi
# of the phase (at most its CPU time over Tg_i, at least that times the
# main procedure's share of the program's own samples, less 4.26 binomial
# standard errors: one-sided 1e-5; binomial overstates a timer's sampling
# error), the rest (the kernel, the recorders, short procedures) at a power
# the fit gives its own columns: some mixture of the phases' powers, so in
# [0, max P].  Solving E = beta phi Tg + beta_o (1 - phi) Tg for beta over
# those ranges gives the true coefficient's bracket.
#
# The fit's side: its jackknife standard error (20 groups) at Student's t
# for 19 degrees of freedom, two-sided 4e-5 (t = 5.310) for each of the two
# programs; the share bounds one-sided 1e-5 (z = 4.265) each.  A correct fit
# fails one of these checks less than 2 x 4e-5 + 2 x 1e-5 = 1e-4 of the
# time (the jackknife's t is the fit's own 95% interval's, widened).  Only
# consistency with the truth is asserted, never that the fit is precise
# enough to rank the programs: its precision is the host's (a loaded host
# pauses the board, and the energy per guest second varies from interval
# to interval).  Nothing depends on the machine's speed: a slow host
# stretches Tg against Tb, and the bracket follows.
T_FIT = 5.3096   # Student's t, 19 df, 1 - 2e-5 (two-sided 4e-5)
Z_SHARE = 4.2649  # normal, 1 - 1e-5 (one-sided)
PRIME_MAX = 13
merge_t = open(path("merge-t.log")).read()
tap("balanced" in merge_t and "clocks' knots" in merge_t,
    "eqprof merge --edges: the edges recorded beside record -t balance the board's interrupts, "
    "and tie the guest's clock to the board's", merge_t)
p = subprocess.run([EQPROF, "power", "--by", "proc", path("merged-time.eqp"), "--symfs", path("root"),
                    "--primes", "2:%d" % PRIME_MAX, "--format", "json"], capture_output=True, text=True)
fit = json.loads(p.stdout) if p.returncode == 0 else {"rows": []}
tap(p.returncode == 0 and "edges" in fit.get("energy_from", ""),
    "eqprof power --by proc fits the merged time-driven recording, its energy from the board's "
    "stream on the guest's clock (%s)" % fit.get("energy_from"), p.stdout + p.stderr)
pt = subprocess.run([EQPROF, "power", "--by", "proc", path("merged-time.eqp"), "--symfs", path("root"),
                     "--primes", "2:%d" % PRIME_MAX], capture_output=True, text=True)
# "inf" is a diagnosis too: when the sampling errors' correction leaves the
# design indefinite (few samples an interval on a loaded machine; seen in a
# fresh-clone make check) the fit says so and flags the rows
stat_tap(pt.returncode == 0 and re.search(r"condition number (inf|[\d.e+]+)", pt.stdout) is not None
    and "VIF" in pt.stdout and fit.get("condition_number") is not None
    and all("vif" in r for r in fit["rows"]),
    "the collinearity diagnostics are printed: the design's condition number and each "
    "procedure's variance inflation (table and JSON)", pt.stdout + pt.stderr)
if SUMMARY:
    for line in pt.stdout.splitlines():
        print("# " + line)
pmax = max(truth["power"].values())
eq_t = eq  # the board's quantum, J (the same configuration as the energy run)
for ph, name in PROGRAMS.items():
    starts = [i for i, (c, x) in enumerate(truth["change"]) if x == ph]
    rows = [r for r in fit["rows"] if r["module"] == name]
    main = max(rows, key=lambda r: r["samples"]) if rows else None
    prof = subprocess.run([EQPROF, "report", path("guest", "time.eqp"), "--by", "proc", "--comm", name,
                           "--symfs", path("root"), "--format", "json", "-q"], capture_output=True, text=True)
    if len(starts) != 2 or starts[1] + 1 >= len(truth["change"]) or main is None or prof.returncode:
        stat_tap(False, f"power of {name}'s procedures: the truth's phases, the fit's row and the profile",
            f"changes {truth['change']}\nrows {rows}\n{prof.stderr}")
        continue
    c0, c1 = truth["change"][starts[1]][0], truth["change"][starts[1] + 1][0]
    tb = (c1 - c0) / truth["hz"]
    tg, cpu = work_t[ph]
    pw = truth["power"][ph]
    prows = json.loads(prof.stdout)["rows"]
    n_prog = sum(r["samples"] for r in prows)
    n_main = max((r["samples"] for r in prows if r["name"] == main["name"]), default=0)
    f = n_main / n_prog if n_prog else 0.0
    f_lo = max(0.0, f - Z_SHARE * (f * (1 - f) / max(n_prog, 1)) ** 0.5 - 1.0 / max(n_prog, 1))
    phi_hi = min(1.0, cpu / tg)
    phi_lo = phi_hi * f_lo
    e_lo = max(0.0, pw * (tb - 2 * PRIME_MAX * eq_t / pw) / tg - 4 * eq_t / tg)
    e_hi = pw + 4 * eq_t / tg
    cands = [(e_lo - pmax * (1 - x)) / x for x in (phi_lo, phi_hi) if x > 0]
    lo = min(cands) if cands else float("-inf")
    hi = e_hi / phi_lo if phi_lo > 0 else float("inf")
    b, se = main["power_w"], main["se_w"]
    ok = b is not None and se is not None and b - T_FIT * se <= hi and b + T_FIT * se >= lo
    stat_tap(ok, f"power of {name} ({main['name']}, {main['samples']} samples, VIF {main['vif']}): fitted "
        f"{b:.4f} W, SE {se:.4f} W, [{b - T_FIT * se:.4f}, {b + T_FIT * se:.4f}] at t {T_FIT} meets "
        f"the truth {lo:.4f}..{hi:.4f} W (phase {pw} W for {tb:.3f} s of the board's clock, "
        f"{tg:.3f} s of the guest's; the program on the CPU {100 * cpu / tg:.1f}% of it, "
        f"{100 * f:.1f}% of its samples in {main['name']})"
        if b is not None and se is not None else f"power of {name}: no finite fit", json.dumps(main))
    if SUMMARY:
        print(f"# {name}: fitted {b} W +- {se} W; truth {lo:.4f}..{hi:.4f} W per second of the guest "
              f"(phase {pw} W x board {tb:.3f} s / guest {tg:.3f} s = {pw * tb / tg:.4f} W)")
    # its other procedures (short ones share [other]): shown, not judged (a
    # small column's bracket would be as wide as its share is small)
    for r in rows:
        if r is not main:
            print(f"# {name}'s {r['name']}: {r['power_w']} W, SE {r['se_w']} W, VIF {r['vif']}, "
                  f"{r['samples']} samples{' (flagged)' if r['flagged'] else ''}")
# merge refuses what it cannot merge, saying why, and writes nothing
bad = []
for args, want in (((path("guest", "time.eqp"), path("board.eqp")), "no energy-driven samples"),
                   ((path("guest", "time.eqp"), path("board.eqp"), "--edges", path("guest", "energy.eqp")),
                    "do not overlap"),
                   ((path("guest", "time.eqp"), path("board.eqp"), "--edges", path("guest", "time.eqp")),
                    "--edges takes the energy-driven samples"),
                   ((path("guest", "energy.eqp"), path("guest", "energy.eqp")), "no board stream"),
                   ((path("merged.eqp"), path("board.eqp")), "already holds a board stream")):
    o = path("refused.eqp")
    p = subprocess.run([EQPROF, "merge", *args, "-o", o], capture_output=True, text=True)
    if p.returncode != 1 or want not in p.stderr or os.path.exists(o):
        bad.append(f"{args}: exit {p.returncode}: {p.stderr.strip()}")
tap(not bad, "eqprof merge refuses a time-driven target without --edges, edges recorded at "
    "another time or not energy-driven, a board log without a board, and a recording already "
    "merged, naming the file and writing nothing", "\n".join(bad))

if SUMMARY:
    print(f"# truth over the recording: {total_e:.3f} J in {total_e / mean_w:.2f} s of board time, "
          f"mean {mean_w:.3f} W")
    print("# %-10s %8s %22s %15s %22s" % ("program", "power", "energy share [99%]",
                                           "truth", "time share [99%]"))
    seconds = [seconds[i] for i in sorted(seconds)]
    for ph, name in list(PROGRAMS.items()) + [(0, "rest")]:
        s, lo, hi, _ = shares[name]
        if name == "rest":
            ts = sum(v[0] for k, v in tshares.items() if k not in PROGRAMS.values())
            tl = th = ts
            pw = "-"
        else:
            ts, tl, th, _ = tshares.get(name, (0, 0, 0, 0))
            pw = f"{truth['power'][ph]:.2f} W"
        print("# %-10s %8s %6.2f%% [%5.2f, %5.2f] %6.2f..%5.2f%% %6.2f%% [%5.2f, %5.2f]" % (
            name, pw, 100 * s, 100 * lo, 100 * hi, 100 * truth_lo[name] / total_e,
            100 * truth_hi[name] / total_e, 100 * ts, 100 * tl, 100 * th))
