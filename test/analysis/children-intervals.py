#!/usr/bin/env python3
"""children-intervals.py - report --children gives inclusive shares the
same two named intervals as flat rows (docs/guide.md, "Intervals"): the
sampling interval (this run's share) and the run-to-run one (batch means),
each recomputed here from the definitions (eqtest.indicator_intervals) and
from the samples' own stacks as `eqprof export --format csv` lists them.

A real program with known call structure (test/fixtures/callers.c: one
leaf under two callers) is recorded with `record -g` on one CPU (taskset),
so the file's sample order is the time order the CSV lists.  The numbers
compared are exact; nothing here is statistical."""
import csv
import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import SRC, Tap, eqprof, indicator_intervals, run


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-children-") as d:
        prog = os.path.join(d, "callers")
        run(["cc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", prog,
             os.path.join(SRC, "test", "fixtures", "callers.c")])
        rec = os.path.join(d, "cg.eqp")
        pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
        p = run(pin + [os.environ.get("EQPROF", os.path.join(SRC, "build", "eqprof")), "record",
                       "-g", "-t", "2kHz", "-q", "-o", rec, "--", prog, "1000000", "60"], check=False)
        t.ok(p.returncode == 0, "record -g runs the program", p.stderr)
        out = os.path.join(d, "s.csv")
        rc, _, err = eqprof("export", rec, "--format", "csv", "-o", out, "-q")
        t.ok(rc == 0, "export csv of a recording with call chains", err)
        with open(out) as f:
            rows = list(csv.DictReader(f))
        t.ok(rows and "stack" in rows[0] and all(r["stack"].split(";")[-1] == r["proc"] for r in rows),
             "export csv: a stack column, outermost first, ending at the sample's procedure",
             rows[:3])
        stacks = [r["stack"].split(";") for r in rows]
        times = [round(float(r["time_s"]) * 1e9) for r in rows]
        lost = [int(r["flags"], 16) & 0x8 != 0 for r in rows]
        names = sorted(set(n for s in stacks for n in s))
        ind = {n: [n in s for s in stacks] for n in names}
        for interval in ("sampling", "run-to-run"):
            rc, outj, err = eqprof("report", rec, "--children", "--interval", interval,
                                   "--format", "json", "-q")
            doc = json.loads(outj) if rc == 0 else {"rows": []}
            want = indicator_intervals(ind, interval, times, lost)
            bad = []
            for r in doc["rows"]:
                w = want.get(r["name"])
                if w is None or abs(r["ci95_low"] - w[0]) > 1e-7 or abs(r["ci95_high"] - w[1]) > 1e-7 \
                        or abs(r["deff"] - w[2]) > 1e-8 * max(1, w[2]) or \
                        r["children_samples"] != sum(ind[r["name"]]):
                    bad.append((r["name"], r["children_samples"], r["deff"], r.get("ci95_low"),
                                r.get("ci95_high"), w, sum(ind.get(r["name"], []))))
            t.ok(rc == 0 and doc.get("interval") == interval and len(doc["rows"]) == len(names)
                 and not bad, "--children --interval %s: every row's deff and interval as defined"
                 % interval, bad[:5] or err)
            if interval == "run-to-run":
                t.ok(doc.get("interval_method") == "batch-means" and doc.get("batches") in (16, 32, 64, 128),
                     "run-to-run: batch means named with their batches",
                     (doc.get("interval_method"), doc.get("batches")))
        rc, outt, _ = eqprof("report", rec, "--children", "-q")
        t.ok(rc == 0 and "# 95% intervals: sampling, this run's share" in outt,
             "table: the interval named in the header", outt[:600])
        rc, outt, _ = eqprof("report", rec, "--children", "--interval", "run-to-run", "-q")
        t.ok(rc == 0 and "# 95% intervals: run-to-run" in outt and "batch means" in outt,
             "table: run-to-run named with its batches", outt[:600])
    t.done()


if __name__ == "__main__":
    main()
