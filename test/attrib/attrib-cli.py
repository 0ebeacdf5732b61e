#!/usr/bin/env python3
"""attrib-cli.py - `eqprof report --attribute async` (seed 000) on a
simulated run where a program writes to a radio in bursts (2 s tail) while
another computes: the radio's energy leaves the computing program and the
idle loop for the writer, as much as the truth says it caused; a model file
overrides the recording's; recordings without requests or models, or
time-driven ones, are refused with what to record."""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import Tap, eqprof

SCENARIO = """scenario radio
base_power 150mW
device radio active 850mW tail 2s 600mW idle 10mW
kernel
 proc idle_loop 0xc0001000 0x1000 20mW
 proc net_tx 0xc0004000 0x1000 900mW
idle idle_loop
module /bin/writer
 proc send_burst 0x1000 0x1000 600mW
module /bin/compute
 proc crunch 0x1000 0x2000 900mW
 proc sort 0x4000 0x1000 700mW
process writer 300 /bin/writer
 map /bin/writer 0x400000
process compute 301 /bin/compute
 map /bin/compute 0x400000
phase run 30s
 cpu_idle 30% granularity 20ms
 run compute crunch 60
 run compute sort 30
 run writer send_burst 4
 run writer net_tx 1
 request radio writer send_burst every 5s burst 4 gap 100ms active 150ms bytes 4096
"""


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eq-attrib-")
    scn = os.path.join(d, "radio.scn")
    with open(scn, "w") as f:
        f.write(SCENARIO)
    run = os.path.join(d, "run")
    rc, _, err = eqprof("sim", scn, "-o", run, "--seed", "4", "-q")
    t.eq(rc, 0, "eqprof sim writes the run (%s)" % err.strip())
    with open(os.path.join(run, "truth-devices.json")) as f:
        truth = json.load(f)
    caused = dict((c["exe"], c["energy_j"]) for c in truth["causes"])
    landed = dict((c["exe"], c["energy_j"]) for c in truth["landed"])
    t.ok(set(caused) == {"writer"} and truth["devices"][0]["tail_j"] > truth["devices"][0]["active_j"],
         "truth: the writer caused the radio's energy, most of it in tails", truth)
    rc, out, err = eqprof("report", os.path.join(run, "energy.eqp"), "--attribute", "async", "--format", "json")
    t.eq(rc, 0, "report --attribute async (%s)" % err.strip())
    a = json.loads(out) if rc == 0 else {"rows": [], "moves": [], "devices": []}
    rows = dict((r["name"], r) for r in a["rows"])
    q = a.get("quantum_j", 0)
    w = rows.get("writer", {})
    # what moves to the writer: the model's energy (exact here) less what
    # landed on its own samples, to within the samples' landing (2%) and
    # the remainders
    want_in = caused["writer"] - landed.get("writer", 0)
    t.ok(w and abs(w["moved_in_j"] - want_in) < 0.02 * caused["writer"] + 2 * q,
         "moved to the writer: %.3f J, truth %.3f J" % (w.get("moved_in_j", 0), want_in), a)
    t.ok(abs(a.get("moved_j", 0) - want_in) < 0.02 * caused["writer"] + 2 * q and
         abs(sum(r["after_j"] for r in a["rows"]) - a["energy_j"]) < 1e-6,
         "no energy lost: moved = received, rows add up", a)
    froms = dict((m["from"], m["energy_j"]) for m in a["moves"] if m["to"] == "writer")
    # (eqprof: the simulated recorder, a process of its own that also runs)
    t.ok(set(froms) <= {"compute", "[idle]", "eqprof"} and froms.get("compute", 0) > froms.get("[idle]", 0) > 0,
         "moved from the computing program and from idle, most from compute", a["moves"])
    t.ok(a["devices"] and a["devices"][0]["name"] == "radio" and a["devices"][0]["requests"] == 24,
         "the device and its requests are named", a["devices"])
    rc, out, err = eqprof("report", os.path.join(run, "energy.eqp"), "--attribute", "async")
    t.ok(rc == 0 and "moved" in out and "from compute to writer" in out and "device radio" in out,
         "table: how much moved and from where", out + err)
    rc, out, err = eqprof("report", os.path.join(run, "energy.eqp"), "--attribute", "async", "--by", "proc",
                          "--format", "csv")
    t.ok(rc == 0 and "send_burst" in out and out.startswith("name,module,samples,before_j"),
         "by procedure: the request's procedure is the cause (CSV)", out + err)
    # a model from a file: no tail, so less moves
    model = os.path.join(d, "radio.model")
    with open(model, "w") as f:
        f.write("# radio without its tail\nradio active 850mW tail 0s 10mW idle 10mW\n")
    rc, out, err = eqprof("report", os.path.join(run, "energy.eqp"), "--attribute", "async",
                          "--device-model", model, "--format", "json")
    b = json.loads(out) if rc == 0 else {}
    t.ok(rc == 0 and abs(b["devices"][0]["tail_j"]) < 1e-9 and b["moved_j"] < 0.5 * a["moved_j"],
         "--device-model FILE overrides the recording's model", out + err)
    # bad input
    rc, out, err = eqprof("report", os.path.join(run, "time.eqp"), "--attribute", "async")
    t.ok(rc == 1 and "energy-driven" in err and "record" in err, "time-driven: what to record", err)
    csv_path = os.path.join(d, "s.csv")
    with open(csv_path, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i in range(100):
            f.write("%d,0x401000,42,42,0,4\n" % (1000000 * (i + 1)))
    plain = os.path.join(d, "plain.eqp")
    rc, _, err = eqprof("import", "--samples", csv_path, "--energy", "1mJ", "-o", plain)
    t.eq(rc, 0, "import an energy-driven CSV (%s)" % err.strip())
    rc, out, err = eqprof("report", plain, "--attribute", "async")
    t.ok(rc == 1 and "no device requests" in err and "record" in err, "no requests: what to record", err)
    with open(model, "w") as f:
        f.write("radio active 850mW tail 2s\n")
    rc, out, err = eqprof("report", os.path.join(run, "energy.eqp"), "--attribute", "async",
                          "--device-model", model)
    t.ok(rc == 1 and "radio.model:1:" in err, "a bad model file: file and line named", err)
    rc, out, err = eqprof("report", os.path.join(run, "energy.eqp"), "--attribute", "sync")
    t.ok(rc == 2 and "async" in err, "--attribute sync refused", err)
    t.done()


main()
