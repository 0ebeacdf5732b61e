#!/usr/bin/env python3
"""compare-runs.py - `eqprof compare T1 T2 T3 vs E1 E2 E3`: repeated runs
pooled on each side (issue 11, "several recordings as one").

Six simulated runs of CPU-cached+Game (seeds 1-6): the time-driven
recordings of runs 1-3 against the energy-driven ones of runs 4-6.
Checked exactly, from each recording's own `report --format json`:
  - each row's time and energy share is its samples over all runs' samples
    (the pooled share), and its joules are per run (pooled energy samples x
    quantum / 3);
  - the output says how many runs each side has and that the test's
    variances come from the spread between them.
Checked against the simulator's truth: the rows whose true energy share
and time share differ by more than 3 percentage points in every run
(xmasrush +11, cpu -6, idle -5) are flagged.  Their between-run SD of a
share is about 0.2 pp here, so the score statistic is some 30 against a
Student t(2) critical value of 4.3: a correct program misses one far less
than once in 10,000 runs (a miss needs a share to wander 2.6 pp, 13 SD).
And bad input: sides of the wrong kind, an empty side."""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import Tap, eqprof  # noqa: E402

SCENARIO = "CPU-cached+Game"


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-cmpruns-") as d:
        runs = []
        for seed in range(1, 7):
            out = os.path.join(d, "r%d" % seed)
            rc, _, err = eqprof("sim", SCENARIO, "-o", out, "-q", "--seed", str(seed))
            if rc != 0:
                t.ok(False, "eqprof sim %s --seed %d" % (SCENARIO, seed), err)
                t.done()
                return
            runs.append(out)
        tfiles = [os.path.join(r, "time.eqp") for r in runs[:3]]
        efiles = [os.path.join(r, "energy.eqp") for r in runs[3:]]

        def rows_of(path):
            rc, out, err = eqprof("report", path, "--by", "exe", "--format", "json", "-q")
            doc = json.loads(out)
            return {r["name"]: r["samples"] for r in doc["rows"]}, doc["total_samples"]

        tsamp, esamp, ttot, etot = {}, {}, 0, 0
        for f in tfiles:
            rows, tot = rows_of(f)
            ttot += tot
            for k, v in rows.items():
                tsamp[k] = tsamp.get(k, 0) + v
        for f in efiles:
            rows, tot = rows_of(f)
            etot += tot
            for k, v in rows.items():
                esamp[k] = esamp.get(k, 0) + v
        quantum = json.load(open(os.path.join(runs[3], "truth.json")))["quantum_j"]

        rc, out, err = eqprof("compare", *tfiles, "vs", *efiles, "--by", "exe", "--format", "json", "-q")
        t.ok(rc == 0, "compare T1 T2 T3 vs E1 E2 E3 runs", err)
        doc = json.loads(out) if rc == 0 else {"rows": []}
        t.ok(doc.get("time_runs") == 3 and doc.get("energy_runs") == 3 and doc.get("interval") == "run-to-run",
             "3 runs a side, run-to-run variances", {k: doc.get(k) for k in ("time_runs", "energy_runs", "interval")})
        t.ok(doc.get("time_total_samples") == ttot and doc.get("energy_total_samples") == etot,
             "totals are all the runs' samples", (doc.get("time_total_samples"), ttot))
        bad = []
        for r in doc["rows"]:
            n = r["name"]
            want_t = tsamp.get(n, 0) / ttot
            want_e = esamp.get(n, 0) / etot
            if abs(r["time_share"] - want_t) > 1e-9 or abs(r["energy_share"] - want_e) > 1e-9:
                bad.append((n, r["time_share"], want_t, r["energy_share"], want_e))
        t.ok(doc["rows"] and not bad, "each row's shares are its pooled samples over the pooled total", bad)
        bad = [(r["name"], r["energy_j"], esamp.get(r["name"], 0) * quantum / 3)
               for r in doc["rows"]
               if abs(r["energy_j"] - esamp.get(r["name"], 0) * quantum / 3) > 1e-9 * max(1, r["energy_j"])]
        t.ok(not bad, "joules are per run: pooled energy samples x quantum / 3", bad)

        # against the truth: rows whose energy and time shares truly differ
        big = None
        for r in runs:
            diff = {x["name"]: x["energy_share"] - x["time_share"]
                    for x in json.load(open(os.path.join(r, "truth.json")))["executables"]}
            names = {n for n, v in diff.items() if abs(v) > 0.03}
            big = names if big is None else big & names
        flagged = {r["name"] for r in doc["rows"] if r["significant"]}
        t.ok(big and big <= flagged, "rows whose energy and time shares truly differ are flagged",
             {"truly different": sorted(big or []), "flagged": sorted(flagged)})

        rc, out, err = eqprof("compare", *tfiles, "vs", *efiles, "--by", "exe", "-q")
        t.ok(rc == 0 and "3 runs" in out and "spread between the 3 time-driven and the 3 energy-driven runs" in out
             and "per run" in out, "the table says how many runs and where its variances come from", out)

        rc, _, err = eqprof("compare", *efiles, "vs", *tfiles, "-q")
        t.ok(rc == 1 and "not a time-driven recording" in err and efiles[0] in err,
             "energy-driven runs before 'vs': named and explained", err)
        rc, _, err = eqprof("compare", *tfiles, "vs", "-q")
        t.ok(rc == 2 and "'vs'" in err, "nothing after 'vs': a usage error", err)
        rc, _, err = eqprof("compare", *tfiles, *efiles, "-q")
        t.ok(rc == 2 and "'vs' says where" in err, "several files without 'vs': a usage error", err)
    t.done()


if __name__ == "__main__":
    main()
