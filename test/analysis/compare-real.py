#!/usr/bin/env python3
"""compare-real.py - eqprof compare on a time-driven and an energy-driven
recording of the same (crafted) work: shares side by side, their
difference, significance by the two-proportion score test with each
recording's design effects (run-to-run for separate runs, sampling with
--interval sampling), ordered by time share, --exclude-idle,
table/csv/json."""
import csv
import io
import json
import math
import os
import random
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import Elf, Tap, build_fixtures, eqprof, share_intervals, t95, write_csv

BASE = 0x555555554000


def score_test(k1, n1, d1, k2, n2, d2):
    """(z, significant): pooled score test with design effects d = (deff, df),
    Welch-Satterthwaite degrees of freedom (docs/guide.md)."""
    p1, p2, pool = k1 / n1, k2 / n2, (k1 + k2) / (n1 + n2)
    v1, v2 = pool * (1 - pool) * d1[0] / n1, pool * (1 - pool) * d2[0] / n2
    if v1 + v2 <= 0:
        return 0.0, False
    z = (p1 - p2) / math.sqrt(v1 + v2)
    if d1[1] == 0 and d2[1] == 0:
        crit = t95(0)
    else:
        df = (v1 + v2) ** 2 / ((v1 * v1 / d1[1] if d1[1] else 0) + (v2 * v2 / d2[1] if d2[1] else 0))
        crit = t95(max(1, int(df)))
    return z, abs(z) > crit




def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-compare-") as d:
        elf = Elf(build_fixtures(d)["prog_pie"])
        maps = os.path.join(d, "p.maps")
        with open(maps, "w") as f:
            f.write("\n".join(elf.maps(BASE)) + "\n")
        pc = {fn: elf.pc(BASE, elf.syms[fn][0] + 1) for fn in ("spin_a", "spin_b", "local_helper")}
        # Time: spin_a 500, spin_b 300, local_helper 120, idle 100.
        # Energy: spin_a 300, spin_b 310, local_helper 110, idle 300 (idle is cheap
        # in time but here the device burns energy while idle, e.g. a radio).
        counts = {"time": {"spin_a": 500, "spin_b": 300, "local_helper": 120, "[idle]": 100},
                  "energy": {"spin_a": 300, "spin_b": 310, "local_helper": 110, "[idle]": 300}}
        files, order = {}, {}
        rng = random.Random(15)
        for mode, flag in (("time", "--time"), ("energy", "--energy")):
            # The samples in a random order: independent samples of each run.
            order[mode] = [fn for fn, n in counts[mode].items() for _ in range(n)]
            rng.shuffle(order[mode])
            samples = [(0, 0, 2, 1) if fn == "[idle]" else (9, pc[fn], 0, 1) for fn in order[mode]]
            csv_path = os.path.join(d, mode + ".csv")
            write_csv(csv_path, samples)
            files[mode] = os.path.join(d, mode + ".eqp")
            rc, _, err = eqprof("import", "--samples", csv_path, "--maps", "9=" + maps,
                                flag, "349Hz" if mode == "time" else "2.94mJ",
                                "-o", files[mode])
            t.eq((rc, err), (0, ""), "import " + mode)

        for excl, interval in ((False, "run-to-run"), (True, "run-to-run"), (False, "sampling")):
            args = ["compare", files["time"], files["energy"], "--format", "json"]
            if excl:
                args.append("--exclude-idle")
            if interval == "sampling":
                args += ["--interval", "sampling"]
            rc, out, err = eqprof(*args)
            doc = json.loads(out)
            what = ("--exclude-idle" if excl else "with idle") + ", " + interval
            t.eq(doc["interval"], interval, what + ": interval named")
            ser = {mode: [None if excl and fn == "[idle]" else fn for fn in order[mode]]
                   for mode in order}
            dd = {}
            for mode in ("time", "energy"):
                # design effects computed here; degrees of freedom: the batches
                # eqprof report says it used (0: the sampling interval's normal)
                times = [1000 * (i + 1) for i in range(len(ser[mode]))] if mode == "time" else None
                ivs = share_intervals(ser[mode], interval, times)
                df = 0
                if interval == "run-to-run":
                    rep = json.loads(eqprof("report", files[mode], "--format", "json",
                                            "--interval", "run-to-run",
                                            *(["--exclude-idle"] if excl else []))[1])
                    df = rep["batches"] - 1
                dd[mode] = {row: (d, df) for row, (_, _, d) in ivs.items()}
            tn = sum(n for fn, n in counts["time"].items() if not (excl and fn == "[idle]"))
            en = sum(n for fn, n in counts["energy"].items() if not (excl and fn == "[idle]"))
            t.eq((doc["time_total_samples"], doc["energy_total_samples"]), (tn, en),
                 what + ": totals")
            names = [r["name"] for r in doc["rows"]]
            want = sorted((fn for fn in counts["time"] if not (excl and fn == "[idle]")),
                          key=lambda fn: -counts["time"][fn])
            t.eq(names, want, what + ": rows ordered by time share")
            bad = []
            for r in doc["rows"]:
                kt, ke = counts["time"][r["name"]], counts["energy"][r["name"]]
                z, sig = score_test(ke, en, dd["energy"][r["name"]], kt, tn, dd["time"][r["name"]])
                if (r["time_samples"], r["energy_samples"]) != (kt, ke) or \
                   abs(r["time_share"] - kt / tn) > 1e-12 or \
                   abs(r["energy_share"] - ke / en) > 1e-12 or \
                   abs(r["difference"] - (ke / en - kt / tn)) > 1e-12 or \
                   abs(r["z"] - z) > 1e-9 or r["significant"] != sig:
                    bad.append((r, z, sig))
            t.ok(not bad, what + ": shares, difference, z and significance of every row", bad)
        # Per-row average power: the row's energy (energy samples x 2.94 mJ) over
        # its time (time samples x the time file's 1 us between samples).
        doc = json.loads(eqprof("compare", files["time"], files["energy"], "--format", "json")[1])
        bad = [(r["name"], r["power_w"]) for r in doc["rows"]
               if abs(r["power_w"] - counts["energy"][r["name"]] * 2.94e-3 /
                      (counts["time"][r["name"]] * 1e-6)) > 1e-6 * r["power_w"]]
        t.ok(not bad, "average power of every row = energy / time of the row", bad)
        sig = {r["name"]: r["significant"] for r in json.loads(
            eqprof("compare", files["time"], files["energy"], "--format", "json")[1])["rows"]}
        t.eq(sig, {"spin_a": True, "spin_b": False, "local_helper": False, "[idle]": True},
             "significance: big shifts yes, small ones no")

        rc, out, err = eqprof("compare", files["time"], files["energy"], "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out)))
        t.eq([r["name"] for r in rows], ["spin_a", "spin_b", "local_helper", "[idle]"],
             "csv rows in time-share order")
        t.eq(list(rows[0].keys()), ["name", "module", "time_samples", "time_share",
                                    "energy_samples", "energy_share", "difference", "z",
                                    "significant", "power_w", "energy_j"], "csv columns")
        t.ok(all(abs(float(r["energy_j"]) - counts["energy"][r["name"]] * 2.94e-3) < 1e-9 for r in rows),
             "csv energy_j: the row's energy samples x 2.94 mJ", rows)
        t.ok(abs(float(rows[0]["power_w"]) - 300 * 2.94e-3 / 500e-6) < 1e-3,
             "csv power_w of spin_a", rows[0])
        rc, out, err = eqprof("compare", files["time"], files["energy"])
        t.ok(rc == 0 and "spin_a" in out and "*" in out and "two-proportion score test" in out and
             "run-to-run variances" in out and
             "avg power" in out and "1.764 kW" in out and "882 mJ" in out,
             "table marks significant rows and explains the mark", out)
        # The heading says what the rows are: the grouping, or the sort keys.
        ok = []
        for args, heading, cols in ((["--by", "module"], "by module", ["module", "module"]),
                                    (["--by", "proc"], "by proc", ["module", "proc"]),
                                    (["--sort", "dso,sym"], "sorted by dso,sym", ["dso", "sym"]),
                                    (["--sort", "pid"], "sorted by pid", ["pid"]),
                                    (["-s", "sym,dso"], "sorted by sym,dso", ["sym", "dso"])):
            rc, out, err = eqprof("compare", files["time"], files["energy"], *args)
            lines = out.splitlines()
            first = lines[0] if lines else ""
            colhead = lines[1].split() if len(lines) > 1 else []
            ok.append((args, rc == 0 and first.endswith(", " + heading) and
                       "avg power" in lines[1] and "joules" in lines[1] and colhead[colhead.index("joules") + 1:] == cols,
                       first, colhead))
        t.ok(all(o for _, o, _, _ in ok), "the heading names the grouping or the sort keys, the columns follow it",
             [x for x in ok if not x[1]])
        rc, out, err = eqprof("compare", files["time"], files["energy"], "--sort", "dso,sym", "--format", "json")
        doc = json.loads(out)
        keys = {r["keys"]["sym"]: r["keys"]["dso"] for r in doc["rows"]}
        t.ok(rc == 0 and doc["sort"] == ["dso", "sym"] and
             keys == {"spin_a": "prog_pie", "spin_b": "prog_pie", "local_helper": "prog_pie", "[idle]": "[idle]"},
             "--sort in json: the keys, and each row's values", (out, err))
        rc, out, err = eqprof("compare", files["time"], files["energy"], "--sort", "sym", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out)))
        t.ok(rc == 0 and [r["sym"] for r in rows] == ["spin_a", "spin_b", "local_helper", "[idle]"],
             "--sort in csv: a column per key", out)
        # --symbol spin_a leaves out every other row's samples (idle too)
        rc, out, err = eqprof("compare", files["time"], files["energy"], "--symbol", "spin_a", "--sort", "sym")
        left = (sum(counts["time"].values()) - counts["time"]["spin_a"],
                sum(counts["energy"].values()) - counts["energy"]["spin_a"])
        t.ok(rc == 0 and ", sorted by sym\n" in out and
             "# filtered: %d time and %d energy samples left out" % left in out,
             "a filter is named in the heading with what it left out of each recording", out)
        rc, out, err = eqprof("compare", files["energy"], files["time"])
        t.ok(rc == 1 and "not a time-driven recording" in err and files["energy"] in err,
             "recordings in the wrong order: named and explained", err)
    t.done()


if __name__ == "__main__":
    main()
