#!/usr/bin/env python3
"""eqprof record -t --energy SOURCE, and report's joules per procedure.

The workload (energytree work) runs its phases in three functions,
phase_hot, phase_warm and phase_cool, separated by sleeps; the driver
(energytree drive) adds w[phase] joules per second of CPU time the workload
spends in each, plus a small idle power, to the RAPL counters of the
amd-lowidle tree.  The truth of a procedure is therefore known from what
the workload printed (its CPU and wall time per phase) and the machine's
powers, never from how fast anything ran:

    w[p] cpu_p  <=  J_p  <=  w[p] cpu_p + idle (wall_p + 2 max interval)

(the idle power of the reading intervals that hold the phase's samples).

What the report's interval may miss, and the test adds, measured on this
run: what landed in "[no samples]" (intervals in which the workload had no
sample: with almost no idle power, that is energy the fake published late),
and, where the driver (a process on a loaded machine) ticked again only
after the sleep that follows a phase had nearly passed, the energy of that
tick gap (its log) at the phase's end, to the phase and the next.  The
statistical part is widened from the report's 1.96 to 4.5 standard
deviations: a correct program falls outside with probability below 6.8e-6
per row (normal tails; the binomial SD the report uses is larger than the
spread of systematic samples), below 5e-5 for the 6 rows together: a false
failure in fewer than 1 run in 10,000.  The report's own 95% interval must also
exclude what a time profile would charge, so the test can fail.

With call chains (record --call-graph dwarf --energy), report gives each
procedure's children joules beside its self joules: the self ones equal the
flat report's, main's children hold the phases' and match the truth of the
phases together, within the same widened interval.

Also: totals against the driver's log, rows that add up, several
recordings pooled (per-row means and the spread of the runs against the
test's own computation, in report and in power --runs), CSV and JSON, recordings without --energy, and bad
sources (no output, clear messages).
"""
import json
import math
import os
import shutil
import tempfile

from etree import EQPROF, POWER, T95, TREE, Machine, Tap, p_max, run

tap = Tap()
work = tempfile.mkdtemp(prefix="eqprof-erecord-")
os.chmod(work, 0o755)
PHASES = ["hot", "warm", "cool"]
Z_TEST = 4.5


def record(m, out, phases, extra=(), check=True):
    env = dict(os.environ, EQPROF_SYSFS=m.sysfs)
    # --all-user: the truth is each phase's whole CPU time, its system calls
    # (clock_gettime of the thread's CPU time) included; as root, samples in
    # the kernel would take 8% of phase_hot's joules to kernel rows (seen
    # under clang's sanitizers on a loaded machine).  User-only samples
    # charge each interval's energy to the phase's own samples.
    p = run([EQPROF, "record", "-q", "--all-user", "-t", "1000", "--energy", "rapl", "--energy-every", "50ms",
             "-o", out] + list(extra) + ["--"] + m.work(*phases), check=False, env=env)
    if check:
        tap.ok(p.returncode == 0 and os.path.exists(out), "record -t --energy rapl " + " ".join(phases),
               p.stderr)
    return p


def phase_times(stdout):
    """The workload's own account: {phase: (cpu_s, wall_s)}."""
    got = {}
    for line in stdout.splitlines():
        v = line.split()
        if len(v) == 4 and v[0] == "phase":
            got[v[1]] = (float(v[2]), float(v[3]))
    return got


def phase_ends(stdout):
    """When each busy phase ended: [(phase, t_end)], CLOCK_MONOTONIC s."""
    return [(v[1], float(v[3])) for v in (x.split() for x in stdout.splitlines())
            if len(v) == 4 and v[0] == "span"]


def tick_gap(m, t):
    """The driver's ticks around t: (gap between the tick before and the one
    after t, how long after t the next tick came)."""
    import bisect
    i = bisect.bisect_right(m.t, t)
    if i == 0 or i >= len(m.t):
        return math.inf, math.inf
    return m.t[i] - m.t[i - 1], m.t[i] - t


def report_json(path, *more):
    p = run([EQPROF, "report", "--format", "json", path] + list(more), check=False)
    return (json.loads(p.stdout) if p.returncode == 0 else None), p


def rows_by_name(dom):
    return {r["name"]: r for r in dom["rows"]}


# ---- one recording: joules per procedure against the truth -------------------
with Machine("amd-lowidle", workdir=os.path.join(work, "one")) as m:
    eqp = os.path.join(work, "one.eqp")
    p = record(m, eqp, ["hot:1", "idle:0.5", "warm:1", "idle:0.5", "cool:1", "idle:0.5"])
    keep = os.environ.get("EQPROF_KEEP")
    if keep:
        shutil.copy(eqp, keep)
    m.stop()
    times = phase_times(p.stdout)
    js, rp = report_json(eqp)
    ok = tap.ok(js is not None and "energy" in js and len(times) == 4,
                "report of a recording with energy readings has an \"energy\" member", rp.stderr + p.stdout)
    if ok:
        doms = {d["domain"]: d for d in js["energy"]["domains"]}
        tap.eq(sorted(doms), ["core-0", "package-0"], "both RAPL domains were read")
        ends = phase_ends(p.stdout)
        for name, d in sorted(doms.items()):
            idle, w = POWER["amd-lowidle"][name]
            rows = rows_by_name(d)
            leak = sum(r["joules"] for r in d["rows"] if r["unsampled"])
            # Energy the driver published late lands in a later reading
            # interval: one of the same phase, or one of the 0.5 s sleep that
            # follows it (then it is in "[no samples]", the leak), unless the
            # driver's next tick after the phase ended came later than the
            # sleep less a reading interval: then the phase's last tick gap
            # of energy may have gone to the next phase.
            slack = 0.5 - d["max_sampled_interval_s"]
            late = {}
            for ph, t_end in ends:
                g, after = tick_gap(m, t_end)
                if after >= slack:
                    late[ph] = late.get(ph, 0.0) + p_max("amd-lowidle", name) * g
            # the totals: the log between the first and the last reading
            lo, hi = m.between_bounds(name, d["first_s"], d["last_s"])
            tol = m.lag_tolerance(name, d["first_s"]) + m.lag_tolerance(name, d["last_s"])
            tap.ok(d["total_low_j"] - tol <= hi and lo <= (d["total_high_j"] or math.inf) + tol and
                   lo - tol <= d["total_j"] <= hi + tol,
                   "%s: the total between the first and last reading matches the driver's log" % name,
                   (d["total_j"], d["total_low_j"], d["total_high_j"], lo, hi, tol))
            tap.ok(abs(sum(r["joules"] for r in d["rows"]) - d["total_j"]) <= 1e-9 * max(1, d["total_j"]),
                   "%s: the rows and [no samples] add up to the total" % name)
            for k, ph in enumerate(PHASES):
                fn = "phase_" + ph
                cpu, wall = times[ph]
                t_lo = w[k] * cpu
                t_hi = w[k] * cpu + idle * (wall + 2 * d["max_sampled_interval_s"])
                r = rows.get(fn)
                if not tap.ok(r is not None, "%s: a row for %s" % (name, fn), sorted(rows)):
                    continue
                sd = r["sd_j"]
                # late energy of this phase may be missing from it, and the
                # previous phase's may be in it
                prev = PHASES[k - 1] if k else None
                lag = late.get(ph, 0.0) + (late.get(prev, 0.0) if prev else 0.0)
                g_hi = r["granularity_high_j"] if r["granularity_high_j"] is not None else math.inf
                low = r["joules"] + r["granularity_low_j"] - Z_TEST * sd - leak - lag
                high = r["joules"] + g_hi + Z_TEST * sd + leak + lag
                tap.ok(low <= t_hi and t_lo <= high,
                       "%s %s: %.3f J, truth %.3f..%.3f J" % (name, fn, r["joules"], t_lo, t_hi),
                       dict(row=r, leak=leak, lag=lag, interval=(low, high)))
                tap.ok(r["ci95_low_j"] <= r["joules"] <= r["ci95_high_j"],
                       "%s %s: the 95%% interval [%.3f, %.3f] holds the estimate"
                       % (name, fn, r["ci95_low_j"], r["ci95_high_j"]), r)
                # the time profile would charge joules by samples alone: the
                # report's interval must be narrow enough to tell the two apart
                by_time = d["charged_j"] * r["samples"] / d["samples"]
                tap.ok(not (r["ci95_low_j"] <= by_time <= r["ci95_high_j"]) or
                       abs(by_time - t_lo) < 0.1 * t_lo,
                       "%s %s: the 95%% interval excludes the time-proportional %.2f J" % (name, fn, by_time))
        pk = doms["package-0"]
        tap.ok(pk["type"] == "counter" and abs(pk["update_s"] - 1e-3) < 1e-12 and pk["shared"] and
               not pk["coarse"] and pk["readings"] > 20,
               "package-0: a counter updated every 1 ms, shared, not coarse, read every 50 ms", pk)

    # the table and CSV say the same
    p = run([EQPROF, "report", eqp], check=False)
    tap.ok(p.returncode == 0 and "# energy by proc from rapl package-0" in p.stdout and
           "phase_hot" in p.stdout.split("# energy by proc")[1] and "[no samples]" in p.stdout,
           "the table has each domain's joules per procedure after the time profile", p.stdout + p.stderr)
    p = run([EQPROF, "report", "--format", "csv", eqp], check=False)
    lines = p.stdout.splitlines()
    tap.ok(p.returncode == 0 and lines[0].startswith("domain,source,name,module,samples,joules,ci95_low_j") and
           any(",phase_warm," in x for x in lines),
           "CSV: one line per domain and row", p.stdout[:400] + p.stderr)
    p = run([EQPROF, "report", "--by", "exe", "--format", "json", eqp], check=False)
    tap.ok(p.returncode == 0 and json.loads(p.stdout)["energy"]["by"] == "exe",
           "--by exe gives joules per executable", p.stderr)
    p = run([EQPROF, "report", "--by", "pid", eqp], check=False)
    tap.ok(p.returncode == 1 and "exe, module, proc or line" in p.stderr,
           "--by pid: joules per row are by exe, module, proc or line, and it says so", p.stderr)

    # power draws the source's trace
    csv_out = os.path.join(work, "trace.csv")
    p = run([EQPROF, "power", eqp, "--trace", csv_out], check=False)
    ok = tap.ok(p.returncode == 0 and os.path.exists(csv_out), "power --trace of a recording with readings",
                p.stderr)
    if ok:
        with open(csv_out) as f:
            rows = [x.split(",") for x in f.read().splitlines()]
        # time_s is each interval's end, since the first reading
        e = sum(float(r[1]) * (float(r[0]) - (float(q[0]) if k else 0.0))
                for k, (q, r) in enumerate(zip([rows[1]] + rows[1:], rows[1:])))
        tap.ok(abs(e - doms["package-0"]["total_j"]) < 1e-4 * max(1.0, e),
               "the trace's intervals add up to package-0's energy", (e, rows[:3]))
        t = [float(r[0]) for r in rows[1:]]
        # one interval between each two readings at which the counter changed
        # (all of them, unless the fake driver stalled longer than a reading)
        tap.ok(0 < len(t) < doms["package-0"]["readings"] and all(b > a for a, b in zip(t, t[1:])),
               "at most one trace interval between each two readings, in time order",
               (len(t), doms["package-0"]["readings"]))
    p = run([EQPROF, "power", eqp, "--summary", "--format", "json"], check=False)
    tap.ok(p.returncode == 0 and
           abs(json.loads(p.stdout)["recordings"][0]["energy_j"] - doms["package-0"]["total_j"]) < 1e-6 and
           json.loads(p.stdout)["recordings"][0]["power_source"] == "source",
           "power --summary: the source's energy", p.stdout + p.stderr)

# ---- compare: the time recording's joules per row beside the shares --------------
# compare TIME.eqp ENERGY.eqp where TIME was recorded with --energy: each
# row's joules per domain, as report gives them for TIME; the energy-driven
# side's joules (its samples x its quantum) beside them.
from eqtest import Elf, write_csv  # noqa: E402  (etree put test/analysis on the path)
tree = Elf(TREE)
BASE = 0x555555554000
emaps = os.path.join(work, "energytree.maps")
with open(emaps, "w") as f:
    f.write("\n".join(tree.maps(BASE)) + "\n")
ecsv, eeqp = os.path.join(work, "e.csv"), os.path.join(work, "e.eqp")
ecount = {"phase_hot": 300, "phase_cool": 100}
write_csv(ecsv, [(9, tree.pc(BASE, tree.syms[fn][0] + 1), 4, n) for fn, n in ecount.items()])
p = run([EQPROF, "import", "--samples", ecsv, "--maps", "9=" + emaps, "--energy", "2mJ", "-o", eeqp], check=False)
flat, _ = report_json(eqp)
p = run([EQPROF, "compare", eqp, eeqp, "--format", "json"], check=False)
if tap.ok(p.returncode == 0 and flat is not None, "compare of a time recording with readings and an energy one",
          p.stderr):
    cj = json.loads(p.stdout)
    rows = {r["name"]: r for r in cj["rows"]}
    doms = {d["domain"]: rows_by_name(d) for d in flat["energy"]["domains"]}
    bad = []
    for dom, want in doms.items():
        for fn in ("phase_hot", "phase_warm", "phase_cool"):
            got = rows.get(fn, {}).get("source_j", {}).get(dom)
            if got is None or abs(got - want[fn]["joules"]) > 1e-9 * max(1, got):
                bad.append((dom, fn, got, want.get(fn, {}).get("joules")))
    tap.ok(sorted(cj.get("source_domains", [])) == sorted(doms) and not bad,
           "compare: every row's joules per domain, as report gives them for the time recording", bad)
    tap.ok(all(abs(rows[fn]["energy_j"] - n * 2e-3) < 1e-12 for fn, n in ecount.items()) and
           rows["phase_warm"]["energy_j"] == 0,
           "compare: the energy-driven side's joules: its samples x 2 mJ", {k: v.get("energy_j") for k, v in rows.items()})
p = run([EQPROF, "compare", eqp, eeqp], check=False)
tap.ok(p.returncode == 0 and "package-0" in p.stdout.splitlines()[1] and "core-0" in p.stdout.splitlines()[1] and
       "record --energy" in p.stdout, "compare's table: a joules column per domain, explained", p.stdout + p.stderr)
p = run([EQPROF, "compare", eqp, eeqp, "--format", "csv"], check=False)
tap.ok(p.returncode == 0 and ",energy_j,joules_package-0,joules_core-0" in p.stdout.splitlines()[0],
       "compare's CSV: joules_DOMAIN columns", p.stdout[:300] + p.stderr)
p = run([EQPROF, "compare", eqp, eeqp, "--by", "pid"], check=False)
tap.ok(p.returncode == 0 and "note: " in p.stderr and "package-0" not in p.stdout,
       "compare --by pid: no joules per row, and a note says why", p.stdout + p.stderr)

# ---- call chains: children joules beside self joules ---------------------------
# record --call-graph dwarf --energy: report's inclusive profile carries each
# domain's joules per procedure alone (the same numbers as without chains)
# and with what it called.  main() calls every phase, so its children joules
# hold at least the phases' (exactly: every sample under a phase is under
# main) and lie within the sum of the phases' truths, widened as above.
with Machine("amd-lowidle", workdir=os.path.join(work, "chains")) as m:
    ceqp = os.path.join(work, "chains.eqp")
    p = record(m, ceqp, ["hot:0.6", "idle:0.5", "cool:0.6", "idle:0.5"], extra=["--call-graph", "dwarf"])
    m.stop()
    times = phase_times(p.stdout)
    js, rp = report_json(ceqp)
    flat, _ = report_json(ceqp, "--no-children")
    if tap.ok(js is not None and js.get("children") and "energy" in js and js["energy"].get("children") and
              flat is not None and len(times) == 4,
              "report of a recording with call chains and energy: the inclusive profile has an \"energy\" member "
              "with children joules", rp.stderr + p.stdout):
        ends = phase_ends(p.stdout)
        for d in js["energy"]["domains"]:
            name = d["domain"]
            rows = rows_by_name(d)
            frows = rows_by_name({x["domain"]: x for x in flat["energy"]["domains"]}[name])
            bad = [(n, r["joules"], frows.get(n, {}).get("joules")) for n, r in rows.items()
                   if r["samples"] and abs(r["joules"] - frows.get(n, {}).get("joules", math.inf)) >
                   1e-9 * max(1, r["joules"])]
            tap.ok(not bad, "%s: self joules of every procedure as the flat report gives them" % name, bad)
            hot, cool, main = rows.get("phase_hot"), rows.get("phase_cool"), rows.get("main")
            if not tap.ok(hot and cool and main, "%s: rows for main, phase_hot and phase_cool" % name, sorted(rows)):
                continue
            tap.ok(main["children_joules"] >= hot["children_joules"] + cool["children_joules"] - 1e-9 and
                   hot["children_joules"] >= hot["joules"] - 1e-12 and main["joules"] <= 0.05 * main["children_joules"],
                   "%s: main's children joules hold the phases' (%.3f >= %.3f + %.3f), a phase's its own"
                   % (name, main["children_joules"], hot["children_joules"], cool["children_joules"]))
            idle, w = POWER["amd-lowidle"][name]
            leak = sum(r["joules"] for r in d["rows"] if r["unsampled"])
            slack = 0.5 - d["max_sampled_interval_s"]
            lag = 0.0
            for ph, t_end in ends:
                g, after = tick_gap(m, t_end)
                if after >= slack:
                    lag += p_max("amd-lowidle", name) * g
            t_lo = sum(w[PHASES.index(ph)] * times[ph][0] for ph in ("hot", "cool"))
            # the phases' idle share, and main's own moments around them
            t_hi = sum(w[PHASES.index(ph)] * times[ph][0] + idle * (times[ph][1] + 2 * d["max_sampled_interval_s"])
                       for ph in ("hot", "cool")) + idle * 2 * d["max_sampled_interval_s"]
            ghi = main["children_granularity_high_j"]
            low = main["children_joules"] + main["children_granularity_low_j"] - Z_TEST * main["children_sd_j"] - leak - lag
            high = main["children_joules"] + (ghi if ghi is not None else math.inf) + \
                Z_TEST * main["children_sd_j"] + leak + lag
            tap.ok(low <= t_hi and t_lo <= high,
                   "%s main children: %.3f J, truth %.3f..%.3f J" % (name, main["children_joules"], t_lo, t_hi),
                   dict(row=main, leak=leak, lag=lag, interval=(low, high)))
            tap.ok(main["children_ci95_low_j"] <= main["children_joules"] <= main["children_ci95_high_j"],
                   "%s main: the children 95%% interval holds the estimate" % name, main)
    p = run([EQPROF, "report", ceqp], check=False)
    tap.ok(p.returncode == 0 and "# energy by proc with call chains from rapl package-0" in p.stdout and
           "children J" in p.stdout and "self J" in p.stdout and
           " main\n" in p.stdout.split("# energy by proc with call chains")[1],
           "the table: children and self joules per procedure after the inclusive profile", p.stdout + p.stderr)
    p = run([EQPROF, "report", "--format", "csv", ceqp], check=False)
    tap.ok(p.returncode == 0 and p.stdout.splitlines()[0].endswith(
        ",runs,children_samples,children_joules,children_ci95_low_j,children_ci95_high_j,children_sd_j,"
        "children_granularity_low_j,children_granularity_high_j") and any(",main," in x for x in p.stdout.splitlines()),
        "CSV with call chains: the children columns after the self ones", p.stdout[:300] + p.stderr)
    p = run([EQPROF, "report", "--no-children", ceqp], check=False)
    tap.ok(p.returncode == 0 and "# energy by proc from rapl package-0" in p.stdout and "children J" not in p.stdout,
           "--no-children: the flat joules table", p.stdout + p.stderr)

# ---- several recordings: per-row means and the spread of the runs -------------
with Machine("amd-lowidle", workdir=os.path.join(work, "runs")) as m:
    files = []
    for i in range(3):
        f = os.path.join(work, "run%d.eqp" % i)
        record(m, f, ["hot:0.3", "idle:0.3", "cool:0.3", "idle:0.3"])
        files.append(f)
    m.stop()
singles = [report_json(f)[0] for f in files]
pooled, p = report_json(*files)
if tap.ok(pooled is not None and all(singles), "report of three recordings with energy", p.stderr):
    d = {x["domain"]: x for x in pooled["energy"]["domains"]}["package-0"]
    tap.eq(d["runs"], 3, "three runs pooled")
    for fn in ("phase_hot", "phase_cool"):
        vals = []
        for s in singles:
            r = rows_by_name({x["domain"]: x for x in s["energy"]["domains"]}["package-0"]).get(fn)
            vals.append(r["joules"] if r else 0.0)
        mean = sum(vals) / 3
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
        half = T95[2] * sd / math.sqrt(3)
        r = rows_by_name(d)[fn]
        tap.ok(abs(r["joules"] - mean) < 1e-9 * max(1, mean) and abs(r["sd_j"] - sd) < 1e-6 * max(1, sd) and
               abs(r["ci95_high_j"] - (mean + half)) < 1e-6 * max(1, mean),
               "%s: mean %.3f J, SD and 95%% interval of the mean over the runs as computed here" % (fn, mean),
               dict(row=r, vals=vals))

# power --runs: the summary's mean, SD and 95% interval over the runs
p = run([EQPROF, "power", "--runs", "--summary", "--format", "json"] + files, check=False)
if tap.ok(p.returncode == 0, "power --runs of three recordings", p.stderr):
    js = json.loads(p.stdout)

    def close_ci(got, sd):
        # eqprof's t quantile has 8 digits, T95 here 7 (4.3026527 against
        # 4.302653: 7e-8 apart), the JSON 9: relative to the interval
        # itself, not to the mean (an interval of 4 J around a mean of 1 J
        # was 3e-8 J off and failed an absolute 1e-7 x mean)
        want = T95[2] * sd / math.sqrt(3)
        return abs(got - want) <= 1e-6 * want + 1e-9

    def half_unit(v):
        # %.9g: at most half a unit of the 9th significant digit off
        return 0.5 * 10.0 ** (math.floor(math.log10(abs(v))) - 8) if v else 0.0

    for key in ("energy_j", "power_w", "duration_s"):
        # eqprof computes from the runs' exact values, the test from the
        # ones printed with 9 digits: e_i = |exact - printed| <= half_unit.
        # The mean here is off by at most max e_i, the SD (the norm of the
        # centred values over sqrt(2); centring does not lengthen a vector)
        # by at most sqrt(sum e_i^2 / 2), and the interval by t/sqrt(3)
        # times that: relative to the SD, not the mean (an SD of 0.0088 W
        # around 10.88 W, 9 digits each, put the interval computed here 6e-6
        # of itself away from eqprof's in a CI run; 1e-6 failed)
        vals = [x[key] for x in js["recordings"]]
        mean = sum(vals) / 3
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
        e_mean = max(half_unit(v) for v in vals)
        e_sd = math.sqrt(sum(half_unit(v) ** 2 for v in vals) / 2)
        got = js["runs"][key]
        slack = 1 + 1e-9   # the sums here are themselves rounded
        ok = (got["n"] == 3 and
              abs(got["mean"] - mean) <= (e_mean + half_unit(got["mean"])) * slack and
              abs(got["sd"] - sd) <= (e_sd + half_unit(got["sd"])) * slack and
              abs(got["ci95"] - T95[2] * sd / math.sqrt(3)) <=
              (T95[2] / math.sqrt(3) * e_sd + half_unit(got["ci95"])) * slack + 1e-6 * got["ci95"])
        tap.ok(ok, "power --runs: %s mean %.4g, SD %.3g and 95%% interval as computed here" % (key, mean, sd),
               (got, vals))
    # per procedure: each run's joules as report gives them for that run,
    # their mean, SD and 95% interval computed here
    procs = js.get("procedures", {})
    bad = []
    for fn in ("phase_hot", "phase_cool", "[no samples]"):
        vals = []
        for sg in singles:
            r = rows_by_name({x["domain"]: x for x in sg["energy"]["domains"]}["package-0"]).get(fn)
            vals.append(r["joules"] if r else 0.0)
        mean = sum(vals) / 3
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
        got = {r["name"]: r for r in procs.get("rows", [])}.get(fn)
        if got is None or any(abs(a - b) > 1e-8 * max(1, abs(b)) for a, b in zip(got["values"], vals)) or \
           abs(got["mean"] - mean) > 1e-8 * max(1, mean) or abs(got["sd"] - sd) > 1e-7 * max(1, mean) or \
           not close_ci(got["ci95"], sd):
            bad.append((fn, got, vals))
    tap.ok(procs.get("unit") == "J" and procs.get("source") == "rapl package-0" and
           procs.get("runs") == files and not bad,
           "power --runs: each procedure's joules in every run, mean, SD and 95% interval as computed here", bad)
p = run([EQPROF, "power", "--runs"] + files, check=False)
tap.ok(p.returncode == 0 and "\nmean " in p.stdout and "95% CI +-" in p.stdout,
       "power --runs table: mean, SD and 95% rows under the recordings", p.stdout + p.stderr)
lines = p.stdout.split("# per procedure, energy (rapl package-0)")[-1].splitlines()
hot = [x for x in lines if x.endswith(" phase_hot")]
tap.ok(len(hot) == 1 and len(hot[0].split()) == 2 * 6 + 2 and "run 1" in p.stdout and "run 3" in p.stdout,
       "power --runs table: a row per procedure with each run, mean, SD and 95% interval", p.stdout)
# energy-driven runs: a procedure's energy is its samples x the quantum
ecounts = [{"phase_hot": 300, "phase_cool": 100}, {"phase_hot": 320, "phase_cool": 90},
           {"phase_hot": 310}]
efiles = []
for i, cnt in enumerate(ecounts):
    c, f = os.path.join(work, "er%d.csv" % i), os.path.join(work, "er%d.eqp" % i)
    write_csv(c, [(9, tree.pc(BASE, tree.syms[fn][0] + 1), 4, n) for fn, n in cnt.items()])
    run([EQPROF, "import", "--samples", c, "--maps", "9=" + emaps, "--energy", "2mJ", "-o", f], check=False)
    efiles.append(f)
p = run([EQPROF, "power", "--runs", "--format", "json"] + efiles, check=False)
bad = []
if p.returncode == 0:
    rows = {r["name"]: r for r in json.loads(p.stdout)["procedures"]["rows"]}
    for fn in ("phase_hot", "phase_cool"):
        vals = [cnt.get(fn, 0) * 2e-3 for cnt in ecounts]
        mean = sum(vals) / 3
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
        r = rows.get(fn)
        if r is None or any(abs(a - b) > 1e-12 for a, b in zip(r["values"], vals)) or \
           abs(r["mean"] - mean) > 1e-8 or abs(r["sd"] - sd) > 1e-8 or \
           abs(r["ci95"] - T95[2] * sd / math.sqrt(3)) > 1e-6 * r["ci95"]:   # T95 has 7 digits
            bad.append((fn, r, vals))
tap.ok(p.returncode == 0 and not bad,
       "power --runs of energy-driven runs: samples x 2 mJ per run (0 where missing), mean, SD, 95% interval",
       (bad, p.stderr))

# ---- diff in joules: two runs before, two after a change ----------------------
# B runs phase_hot twice as long.  Each row's joules per run on each side
# (report's, per recording), their means, the change and its 95% interval
# (Welch, from the spread of the runs) are computed here.
with Machine("amd-lowidle", workdir=os.path.join(work, "diff")) as m:
    dA, dB = [], []
    for i in range(2):
        for side, hot in ((dA, "hot:0.3"), (dB, "hot:0.6")):
            f = os.path.join(work, "d%s%d.eqp" % ("A" if side is dA else "B", i))
            record(m, f, [hot, "idle:0.2", "cool:0.3", "idle:0.2"])
            side.append(f)
    m.stop()
p = run([EQPROF, "diff", "--format", "json"] + dA + ["vs"] + dB, check=False)
if tap.ok(p.returncode == 0 and "energy" in json.loads(p.stdout or "{}"), "diff of recordings with energy readings: "
          "an \"energy\" member", p.stderr):
    ej = json.loads(p.stdout)["energy"]
    per = {f: report_json(f)[0] for f in dA + dB}
    bad = []
    for dom in ej["domains"]:
        rows = {r["name"]: r for r in dom["rows"]}
        for fn in ("phase_hot", "phase_cool"):
            side = []
            for files in (dA, dB):
                v = []
                for f in files:
                    r = rows_by_name({x["domain"]: x for x in per[f]["energy"]["domains"]}[dom["domain"]]).get(fn)
                    v.append(r["joules"] if r else 0.0)
                mean = sum(v) / len(v)
                var = sum((x - mean) ** 2 for x in v) / (len(v) - 1) / len(v)
                side.append((mean, var))
            (ma, va), (mb, vb) = side
            df = (va + vb) ** 2 / (va * va + vb * vb)   # Welch, one degree of freedom a side
            half = T95[max(1, int(df))] * math.sqrt(va + vb)
            got = rows.get(fn)
            if got is None or abs(got["a_j"] - ma) > 1e-8 * max(1, ma) or abs(got["b_j"] - mb) > 1e-8 * max(1, mb) or \
               abs(got["change_j"] - (mb - ma)) > 1e-8 * max(1, mb) or \
               abs(got["ci95_high_j"] - (mb - ma + half)) > 1e-6 * max(1, half) or \
               abs(got["ci95_low_j"] - (mb - ma - half)) > 1e-6 * max(1, half):   # T95 has 7 digits
                bad.append((dom["domain"], fn, got, side, half))
        hot = rows.get("phase_hot", {})
        # twice the CPU time at the phase's power: the change is w_hot x 0.3 s
        # (several J) against a spread of tens of mJ between runs of fixed
        # CPU time: significant on any machine
        if not (hot.get("significant") and hot.get("change_j", 0) > 0):
            bad.append((dom["domain"], "phase_hot not a significant increase", hot))
    tap.ok(len(ej["domains"]) == 2 and not bad,
           "diff: each row's joules per run before and after, the change and its 95% interval as computed here; "
           "phase_hot's increase is significant", bad)
p = run([EQPROF, "diff"] + dA + ["vs"] + dB, check=False)
tap.ok(p.returncode == 0 and "# energy diff by proc from rapl package-0" in p.stdout and
       "(2 runs of A, 2 of B)" in p.stdout, "diff's table: the joules per domain after the time diff",
       p.stdout + p.stderr)

# ---- recordings without readings, bad sources -------------------------------
plain = os.path.join(work, "plain.eqp")
# (a shell loop of some 0.1 s: `true` may end before the first sample, and
# a recording without samples is an error to report, issue 28 item 8)
p = run([EQPROF, "record", "-q", "-t", "1000", "-o", plain, "--", "sh", "-c",
         "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"], check=False)
js, rp = report_json(plain)
tap.ok(p.returncode == 0 and js is not None and "energy" not in js,
       "a recording without --energy reports as before (no \"energy\" member)", p.stderr + rp.stderr)

empty = os.path.join(work, "empty")
os.mkdir(empty)


def refused(args, words, what, env=None):
    out = os.path.join(work, "bad.eqp")
    p = run([EQPROF, "record", "-q", "-t", "1000", "-o", out] + args, check=False,
            env=dict(os.environ, **(env or {})))
    left = [f for f in os.listdir(work) if f.startswith("bad.eqp")]
    tap.ok(p.returncode != 0 and all(w in p.stderr for w in words) and not left,
           what, "status %d, files %s\n%s" % (p.returncode, left, p.stderr))


refused(["--energy", "rapl", "--sysfs", empty, "--", "true"], ["no RAPL", "powercap"],
        "record --energy rapl without RAPL: says where it looked, no recording")
refused(["--energy", "nosuch", "--", "true"], ["no such energy source"], "an unknown source: no recording")
p = run([EQPROF, "record", "-e", "--energy", "rapl", "--", "true"], check=False)
tap.ok(p.returncode == 2 and "goes with -t" in p.stderr, "-e --energy: energy-driven samples carry energy already",
       p.stderr)
with Machine("intel-laptop", backwards_at=0.2, workdir=os.path.join(work, "back")) as m:
    refused(["--energy", "rapl", "--sysfs", m.sysfs, "--"] + m.work("hot:0.6"),
            ["package-0", "went backwards"],
            "a counter that goes backwards during the recording: clear message, no recording")
    m.stop()

shutil.rmtree(work, ignore_errors=True)
tap.done()
