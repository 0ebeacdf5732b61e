#!/usr/bin/env python3
"""Battery fuel gauges that update every 15 s, as laptop gauges do
(energytree.c: the Intel laptop's BAT0 with energy_now in uWh; a Dell-style
BAT1 with charge_now in uAh x voltage_now).

Three things run at once, to keep the test near 40 s:
  - stat on BAT0 with a 16 s idle baseline and two runs: each run's energy
    (gross and net) within its bounds (a gauge's value is exact at its
    update; between two updates only the two values are known), the idle
    power within its bounds, the gauge's period detected as 15 s and stated;
  - stat on BAT1 (charge x voltage), the same;
  - sources --probe 32s on the laptop tree: the period detected from the
    changes seen.

The bounds are hard bounds: a correct program never falls outside them
(false-failure rate 0, as in stat.py); the fake's own lag beyond its period
is added as there (etree.lag_tolerance, here tiny next to 15 s).  The
detected period must be within 0.1 s of 15 s: the fake updates on a 15 s
schedule, late by at most its tick (milliseconds; the test measures it
and allows for it), read every 10 ms.
"""
import json
import os
import subprocess
import tempfile

from etree import EQPROF, POWER, Machine, Tap

tap = Tap()


def start_stat(m, spec, phases, out):
    return subprocess.Popen([EQPROF, "stat", "-q", "-r", "2", "--baseline", "16s", "--energy", spec,
                             "--sysfs", m.sysfs, "--format", "json", "-o", out, "--"] + m.work(*phases),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, universal_newlines=True)


def check(m, dom, out, p, what):
    err = p.stderr.read()
    if not tap.ok(p.wait() == 0 and os.path.exists(out), what + ": stat runs", err):
        return
    with open(out) as f:
        res = json.load(f)
    d = res["domains"][0]
    bad = []
    for r, run in zip(res["run"], d["runs"]):
        tlo, thi = m.between_bounds(dom, r["t0"], r["t1"])
        tol = m.lag_tolerance(dom, r["t0"]) + m.lag_tolerance(dom, r["t1"])
        if not (run["lo_j"] - tol <= thi and tlo <= run["hi_j"] + tol):
            bad.append("run %.3f..%.3f: truth [%.4f, %.4f] J outside [%.4f, %.4f]" % (
                r["t0"], r["t1"], tlo, thi, run["lo_j"], run["hi_j"]))
        if not (run["hi_j"] < 1e6):
            bad.append("run without an upper bound: the gauge was not waited for")
    tap.ok(not bad, what + ": each run's energy within its bounds", "\n".join(bad))
    idle = POWER[m.name][dom][0]
    t0 = res["baseline_t0"]
    t1 = t0 + res["baseline_s"]
    tol = (m.lag_tolerance(dom, t0) + m.lag_tolerance(dom, t1)) / (t1 - t0)
    tap.ok(d["baseline_w_lo"] - tol <= idle <= d["baseline_w_hi"] + tol,
           what + ": idle power %.3f W within the baseline's bounds [%.3f, %.3f]" % (
               idle, d["baseline_w_lo"], d["baseline_w_hi"]))
    slack = 0.1 + m.max_gap(t1, 40)
    tap.ok(d["update_s"] is not None and abs(d["update_s"] - 15) < slack and "detected" in d["update_how"],
           what + ": the gauge's 15 s period is detected and stated (%s s, %s)" % (
               d["update_s"], d["update_how"]))


work = tempfile.mkdtemp(prefix="eqprof-battery-")
with Machine("intel-laptop", workdir=os.path.join(work, "a")) as a, \
        Machine("laptop-charge", workdir=os.path.join(work, "b")) as b:
    out_a, out_b, out_p = (os.path.join(work, x) for x in ("a.json", "b.json", "probe.json"))
    pa = start_stat(a, "battery:BAT0", ["hot:0.8", "idle:0.5"], out_a)
    pb = start_stat(b, "battery", ["warm:0.8"], out_b)
    pp = subprocess.Popen([EQPROF, "sources", "--probe", "32s", "--sysfs", a.sysfs, "--format", "json",
                           "-o", out_p], stderr=subprocess.PIPE, universal_newlines=True)
    err = pp.stderr.read()
    probe_ok = pp.wait() == 0
    # the stats finish after their runs and the gauges' next update
    pa.wait()
    pb.wait()
    a.stop()
    b.stop()
    if tap.ok(probe_ok, "sources --probe 32s on the laptop tree", err):
        with open(out_p) as f:
            bat = {s["spec"]: s for s in json.load(f)["sources"]}["battery:BAT0"]
        pr = bat.get("probe", {})
        tap.ok(pr.get("update_s") is not None and abs(pr["update_s"] - 15) < 0.1 + a.max_gap(0, 1e9),
               "the probe detects BAT0's 15 s update period (%s)" % pr)
        tap.ok(pr.get("min_step") is not None and pr["min_step"] >= 3.6e-3,
               "and its smallest step, at least the 1 uWh sysfs unit (%s J)" % pr.get("min_step"))
    check(a, "BAT0", out_a, pa, "BAT0 energy_now")
    check(b, "BAT1", out_b, pb, "BAT1 charge_now x voltage_now")
tap.done()
