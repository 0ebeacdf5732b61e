#!/usr/bin/env python3
"""power-by-cli.py - `eqprof power --by proc` (seed 002) on simulated runs:
each procedure's fitted power against the simulator's exact one (its
truth.json: energy / time while it ran), procedures that always run in the
same proportions flagged as collinear, and recordings that lack what the
fit needs refused with a message that says what to record."""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import Tap, eqprof

HEAD = """scenario %s
base_power 133mW
consumer lcd 120mW period 1ms duty 50%%
kernel
 proc idle_loop 0xc0001000 0x1000 20mW
idle idle_loop
module /bin/cpu
 proc loop_cached 0x10000 0x8000 717mW
 proc loop_uncached 0x20000 0x8000 1520mW
 proc main 0x30000 0x8000 1060mW
process cpu 200 /bin/cpu
 map /bin/cpu 0x400000
"""


def mix():
    """The same loop cached and uncached, in phases whose mixes differ."""
    s = HEAD % "mix"
    for i in range(40):
        w = [(6, 1, 1), (1, 6, 1), (2, 2, 4), (2, 2, 1)][i % 4]
        s += ("phase p%d 0.5s\n cpu_idle %s granularity 40ms\n slice 8ms\n run cpu loop_cached %d\n"
              " run cpu loop_uncached %d\n run cpu main %d\n" % ((i, "60%" if i % 4 == 3 else "25%") + w))
    return s


def lockstep():
    """Two procedures in a fixed mix at a fine grain: never told apart."""
    return HEAD % "lockstep" + ("phase p 20s\n cpu_idle 0\n slice 0.02ms\n"
                                " run cpu loop_cached 1\n run cpu loop_uncached 1\n")


def sim(d, name, text, seed):
    path = os.path.join(d, name + ".scn")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(d, name)
    rc, _, err = eqprof("sim", path, "-o", out, "--seed", str(seed), "-q")
    return rc, out, err


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eq-regress-")
    rc, run, err = sim(d, "mix", mix(), 11)
    t.eq(rc, 0, "eqprof sim writes the run (%s)" % err.strip())
    with open(os.path.join(run, "truth.json")) as f:
        truth = dict((p["proc"] if p["exe"] != "[idle]" else "[idle]", p["energy_j"] / p["time_s"])
                     for p in json.load(f)["procedures"])
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run, "time.eqp"), "--format", "json")
    t.eq(rc, 0, "power --by proc (%s)" % err.strip())
    rows = dict((r["name"], r) for r in json.loads(out)["rows"]) if rc == 0 else {}
    t.eq(sorted(rows), sorted(["[idle]", "loop_cached", "loop_uncached", "main"]), "a row per procedure")
    # within 6 standard errors (the jackknife's SE runs up to 1.3x small:
    # 4.6 true SD, 4e-6 per row)
    for name, r in sorted(rows.items()):
        want = truth.get(name)
        ok = want is not None and abs(r["power_w"] - want) <= 6 * r["se_w"] and not r["flagged"]
        t.ok(ok, "%s: %.4f W +- %.4f, truth %.4f W" % (name, r["power_w"], r["se_w"], want or 0), r)
    t.ok(rows and rows["loop_uncached"]["ci95_low"] > rows["loop_cached"]["ci95_high"],
         "the uncached loop draws more than the cached one, told apart", rows)
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run, "time.eqp"))
    t.ok(rc == 0 and "loop_uncached" in out and "95% CI" in out and "condition number" in out,
         "table: procedures, intervals, condition number", out + err)
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run, "time.eqp"), "--format", "csv",
                          "--primes", "11:31", "--seed", "5")
    t.ok(rc == 0 and out.startswith("name,module,samples,time_share,power_w,"), "CSV, other primes", out + err)

    rc, run2, err = sim(d, "lockstep", lockstep(), 3)
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run2, "time.eqp"), "--format", "json")
    res = json.loads(out) if rc == 0 else {"rows": []}
    loops = [r for r in res["rows"] if r["name"].startswith("loop_")]
    t.ok(rc == 0 and len(loops) == 2 and all(r["flagged"] for r in loops),
         "procedures in lockstep: both flagged meaningless", out + err)
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run2, "time.eqp"))
    t.ok(rc == 0 and ("meaningless" in out or "told apart" in out), "the table says so", out + err)

    # a device (DREQ): its states' power above idle fitted beside the procedures
    radio = HEAD % "radio" + ("device radio active 850mW tail 2s 600mW idle 10mW\n"
                              "phase p 30s\n cpu_idle 30% granularity 20ms\n run cpu loop_cached 2\n"
                              " run cpu main 1\n request radio cpu main every 5s burst 4 gap 100ms active 150ms\n")
    rc, run3, err = sim(d, "radio", radio, 5)
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run3, "time.eqp"), "--format", "json")
    rows = dict((r["name"], r) for r in json.loads(out)["rows"]) if rc == 0 else {}
    for state, want in (("radio:active", 0.84), ("radio:tail", 0.59)):
        r = rows.get(state)
        t.ok(r is not None and abs(r["power_w"] - want) <= 6 * r["se_w"] + 0.01,
             "%s fitted: %.4f W, model %.2f W above idle" % (state, r["power_w"] if r else 0, want), out + err)
    # with devices fitted apart, a procedure's coefficient is its power
    # without the device energy that landed while it ran: truth.json's
    # device_free_w (of the run the recording is, the time-driven one), not
    # energy / time (issue 23 item 9); 6 SE as above
    with open(os.path.join(run3, "truth.json")) as f:
        tprocs = json.load(f)["time_run"]["procedures"]
    for p in tprocs:
        name = p["proc"] if p["exe"] != "[idle]" else "[idle]"
        r = rows.get(name)
        if r is None or name == "eq_record_drain":
            continue
        t.ok("device_free_w" in p and abs(r["power_w"] - p["device_free_w"]) <= 6 * r["se_w"],
             "with a device, %s fitted %.4f W +- %.4f: truth.json's device_free_w %.4f W "
             "(energy / time %.4f W)" % (name, r["power_w"], r["se_w"], p.get("device_free_w", 0),
                                        p["energy_j"] / p["time_s"]), p)

    # bad input
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run, "energy.eqp"))
    t.ok(rc == 1 and "time-driven" in err and "record" in err, "energy-driven recording: what to record", err)
    csv_path = os.path.join(d, "s.csv")
    with open(csv_path, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i in range(100):
            f.write("%d,0x401000,42,42,0,0\n" % (1000000 * (i + 1)))
    plain = os.path.join(d, "plain.eqp")
    rc, _, err = eqprof("import", "--samples", csv_path, "--time", "1kHz", "-o", plain)
    t.eq(rc, 0, "import a time-driven CSV (%s)" % err.strip())
    rc, out, err = eqprof("power", "--by", "proc", plain)
    t.ok(rc == 1 and "no board stream" in err and "record" in err, "no board stream: what to record", err)
    rc, out, err = eqprof("power", "--by", "exe", plain)
    t.ok(rc == 2 and "--by proc" in err, "--by exe refused with the reason", err)
    rc, out, err = eqprof("power", "--by", "proc", plain, "--primes", "9:3")
    t.ok(rc == 2 and "--primes" in err, "--primes 9:3 refused", err)
    rc, out, err = eqprof("power", "--by", "proc", os.path.join(run, "time.eqp"), "--domain", "package")
    t.ok(rc == 1 and "no energy source's readings" in err and "--energy" in err,
         "--domain on a recording without an energy source: what to record", err)
    rc, out, err = eqprof("power", "--by", "proc", "--help")
    t.ok(rc == 0 and "--domain" in out and "merge" in out and "--edges" in out and "--energy" in out,
         "--help says what to record (merge --edges, record -t --energy) and names --domain", out)
    # merge --edges: a time-driven recording meets the board only through the
    # board's edges recorded meanwhile (test/hil runs the real thing)
    merged = os.path.join(d, "m.eqp")
    rc, out, err = eqprof("merge", plain, os.path.join(run, "time.eqp"), "-o", merged)
    t.ok(rc == 1 and "--edges" in err and not os.path.exists(merged),
         "merge of a time-driven recording without --edges: refused, naming --edges", err)
    rc, out, err = eqprof("merge", plain, os.path.join(run, "time.eqp"), "--edges", plain, "-o", merged)
    t.ok(rc == 1 and "energy-driven" in err and not os.path.exists(merged),
         "merge --edges of a time-driven recording as the edges: refused", err)
    rc, out, err = eqprof("merge", plain, os.path.join(run, "time.eqp"), "--edges",
                          os.path.join(run, "energy.eqp"), "-o", merged)
    t.ok(rc == 1 and "not merged" in err and not os.path.exists(merged),
         "merge --edges of a recording that already holds a board stream: refused", err)
    t.done()


main()
