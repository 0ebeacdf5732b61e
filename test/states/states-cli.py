#!/usr/bin/env python3
"""states-cli.py - power states (seed 003) through the command line: eqprof
sim logs the CPU's frequency and idle-state changes (PSTA), report and
compare split profiles by state, cpu and mode, and the results are checked
against the simulator's exact truth per state (truth-states.json).  A
recording without the events gets a message that says what to record."""
import json
import math
import os
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import Tap, eqprof

# Table 5's experiment in one program: the same code at 206 MHz, then at
# 59 MHz (idle in both), no executable per frequency.
SCENARIO = """scenario dvfs
base_power 100mW
freq 206MHz
freq 59MHz
kernel
 proc idle_loop 0xc0001000 0x1000 10mW
 proc flash_write 0xc0004000 0x800 900mW
idle idle_loop
module /bin/App
 proc kernel_loop 0x1000 0x2000 607mW@206MHz 181mW@59MHz
 proc checksum 0x4000 0x800 607mW@206MHz 181mW@59MHz
process App 300 /bin/App
 map /bin/App 0x8000
phase fast 6s
 cpufreq 206MHz
 cpu_idle 20% granularity 20ms
 run App kernel_loop 70
 run App checksum 30
 run App flash_write 1
phase slow 10s
 cpufreq 59MHz
 cpu_idle 20% granularity 20ms
 run App kernel_loop 70
 run App checksum 30
 run App flash_write 1
"""

# Issue 23 item 4: a row of --by freq or --by cpu pools idle and running
# samples; its module column was "[idle]" when its first sample was idle,
# and rows are joined on name and module, so a pooled report or a compare
# of two recordings, one starting idle and one not, split one clock in two.
STARTS_IDLE = """scenario starts_idle
base_power 100mW
freq 400MHz
freq 200MHz
kernel
 proc idle_loop 0xc0001000 0x1000 10mW
idle idle_loop
module /bin/App
 proc work 0x1000 0x2000 600mW@400MHz 200mW@200MHz
process App 300 /bin/App
 map /bin/App 0x8000
phase rest 1s
 cpufreq 400MHz
 cpu_idle 100%
phase fast 2s
 cpufreq 400MHz
 cpu_idle 30% granularity 20ms
 run App work
"""
STARTS_BUSY = STARTS_IDLE.replace("phase rest 1s\n cpufreq 400MHz\n cpu_idle 100%\n", "")


def report(*args):
    rc, out, err = eqprof("report", *args)
    return rc, (json.loads(out) if rc == 0 and "--format" in args else out), err


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eq-states-")
    scn = os.path.join(d, "dvfs.scn")
    with open(scn, "w") as f:
        f.write(SCENARIO)
    run = os.path.join(d, "run")
    rc, _, err = eqprof("sim", scn, "-o", run, "--seed", "7", "-q")
    t.eq(rc, 0, "eqprof sim writes the run (%s)" % err.strip())
    with open(os.path.join(run, "truth-states.json")) as f:
        truth = json.load(f)
    t.eq(sorted(s["state"] for s in truth["states"]),
         ["206MHz C0", "206MHz C1", "59MHz C0", "59MHz C1"], "truth-states.json: four states")

    # energy and time shares per state against the truth: each within four
    # half-widths of its 95% interval (8 SD: no false failure in 1e14 runs)
    for name, key in (("energy", "energy_share"), ("time", "time_share")):
        rc, rep, err = report(os.path.join(run, name + ".eqp"), "--by", "state", "--format", "json")
        t.eq(rc, 0, "report --by state on %s.eqp (%s)" % (name, err.strip()))
        if rc:
            continue
        rows = dict((r["name"], r) for r in rep["rows"])
        t.eq(rep["by"], "state", "%s: JSON says by state" % name)
        # the time-driven recording is its own run when the two are separate
        for s in (truth.get("time_run", truth) if name == "time" else truth)["states"]:
            r = rows.get(s["state"])
            ok = r is not None
            if ok:
                half = (r["ci95_high"] - r["ci95_low"]) / 2
                ok = abs(r["share"] - s[key]) <= 4 * half + 1e-9
            t.ok(ok, "%s share of %s matches the truth %.4f" % (name, s["state"], s[key]), r)

    # per-state power from the two samplings (compare): Table 5 per frequency
    rc, out, err = eqprof("compare", os.path.join(run, "time.eqp"), os.path.join(run, "energy.eqp"),
                          "--by", "freq", "--exclude-idle", "--format", "json")
    t.eq(rc, 0, "compare --by freq (%s)" % err.strip())
    if rc == 0:
        cmp_rows = dict((r["name"], r) for r in json.loads(out)["rows"])
        for s in truth["freqs"]:
            # busy power at this clock: the truth of its C0 state
            c0 = [x for x in truth["states"] if x["state"] == s["freq"] + " C0"][0]
            r = cmp_rows.get(s["freq"])
            ok = r is not None
            if ok:
                # counting error of both samplings, 5 SE, plus 2% for the
                # modelled biases (the ISR's time, skew; docs/simulator.md)
                se = math.sqrt(1.0 / r["energy_samples"] + 1.0 / r["time_samples"])
                ok = abs(r["power_w"] / c0["power_w"] - 1) <= 5 * se + 0.02
            t.ok(ok, "busy power at %s: %.1f mW, truth %.1f mW" % (
                s["freq"], r["power_w"] * 1e3 if r else float("nan"), c0["power_w"] * 1e3), r)

    # --by exe,state: one program, one row per clock
    rc, rep, err = report(os.path.join(run, "energy.eqp"), "--by", "exe,state", "--exclude-idle",
                          "--format", "json")
    # (eqprof [...]: the simulated recorder, a process of its own)
    names = sorted(r["name"] for r in rep["rows"] if not r["name"].startswith("eqprof ")) if rc == 0 else []
    t.eq(names, ["App [206MHz C0]", "App [59MHz C0]"], "report --by exe,state: App at each clock")
    rc, out, _ = eqprof("report", os.path.join(run, "energy.eqp"), "--by", "proc,freq")
    t.ok(rc == 0 and "kernel_loop [206MHz]" in out and "checksum [59MHz]" in out and "proc,freq" in out,
         "report --by proc,freq: procedures per clock, table names the grouping", out)
    rc, rep, _ = report(os.path.join(run, "energy.eqp"), "--by", "mode", "--format", "json")
    modes = dict((r["name"], r["share"]) for r in rep["rows"]) if rc == 0 else {}
    tm = dict((m["mode"], m["energy_share"]) for m in truth["modes"])
    t.ok(set(modes) == set(tm) and all(abs(modes[m] - tm[m]) < 0.05 for m in tm),
         "report --by mode: user, kernel, idle as the truth", (modes, tm))
    rc, out, _ = eqprof("report", os.path.join(run, "energy.eqp"), "--by", "cpu,mode", "--format", "csv")
    t.ok(rc == 0 and "cpu0 user" in out, "report --by cpu,mode (CSV)", out)

    # one row per clock and per cpu, whichever sample came first
    runs = {}
    for name, text in (("idle_first", STARTS_IDLE), ("busy_first", STARTS_BUSY)):
        path = os.path.join(d, name + ".scn")
        with open(path, "w") as f:
            f.write(text)
        runs[name] = os.path.join(d, name)
        rc, _, err = eqprof("sim", path, "-o", runs[name], "-q")
        t.eq(rc, 0, "eqprof sim %s (%s)" % (name, err.strip()))
    for by in ("freq", "cpu"):
        rc, rep, err = report(os.path.join(runs["idle_first"], "energy.eqp"),
                              os.path.join(runs["busy_first"], "energy.eqp"), "--by", by, "--format", "json")
        rows = [(r["name"], r["module"]) for r in rep["rows"]] if rc == 0 else err
        t.eq(rows, [("400MHz", "400MHz")] if by == "freq" else [("cpu0", "cpu0")],
             "pooled report --by %s: one row, its module column the label" % by)
        rc, out, err = eqprof("compare", os.path.join(runs["idle_first"], "time.eqp"),
                              os.path.join(runs["busy_first"], "energy.eqp"), "--by", by, "--format", "json")
        rows = [(r["name"], r["module"], r["time_samples"] > 0, r["energy_samples"] > 0)
                for r in json.loads(out)["rows"]] if rc == 0 else err
        t.eq(rows, [("400MHz" if by == "freq" else "cpu0",) * 2 + (True, True)],
             "compare --by %s of a run starting idle with one starting busy: one row with both" % by)

    # bad input: a recording without power states
    csv_path = os.path.join(d, "s.csv")
    with open(csv_path, "w") as f:   # two CPUs, a third of the samples idle
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i in range(200):
            idle = i % 3 == 0
            f.write("%d,0x401000,%d,%d,%d,%d\n" % (1000 * (i + 1), 0 if idle else 42, 0 if idle else 42,
                                                    i % 2, 0x4 | (0x3 if idle else 0)))
    plain = os.path.join(d, "plain.eqp")
    rc, _, err = eqprof("import", "--samples", csv_path, "--energy", "1mJ", "-o", plain)
    t.eq(rc, 0, "import a CSV recording (%s)" % err.strip())
    rc, out, err = eqprof("report", plain, "--by", "exe,state")
    t.ok(rc == 1 and "no power-state changes" in err and "record" in err and plain in err,
         "report --by exe,state without PSTA: says what to record", err)
    rc, out, err = eqprof("report", plain, "--by", "cpu,mode")
    t.ok(rc == 0 and "cpu1 user" in out and "cpu0 idle" in out,
         "report --by cpu,mode works on any recording", out + err)
    rc, out, err = eqprof("report", plain, "--by", "line,state")
    t.ok(rc == 2 and "cannot be split" in err, "--by line,state refused with a reason", err)
    rc, out, err = eqprof("report", plain, "--by", "proc,sate")
    t.ok(rc == 2 and "sate" in err, "--by proc,sate: the typo is named", err)
    t.done()


main()
