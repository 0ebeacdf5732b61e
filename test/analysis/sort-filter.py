#!/usr/bin/env python3
"""sort-filter.py - eqprof report --sort KEYS, the --comm/--dso/--symbol
filters (absolute and relative shares), --per-thread, and every bad input
of theirs.

Samples are placed at known pcs (nm on the fixture programs compiled here)
in two processes with several threads on four CPUs, imported with `eqprof
import`; the rows every key combination must give, their samples, shares
and 95% intervals (docs/guide.md's definitions, recomputed here by
eqtest.share_intervals from the sample order) are computed in this file.
Nothing here is random from run to run: the samples come from a fixed
seed, so no statement has a false-failure rate."""
import json
import os
import random
import sys
import tempfile
from collections import Counter

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import Elf, Tap, addr2line, build_fixtures, eqprof, share_intervals

Q = 2.5e-3
PROG_BASE = 0x555555554000
LIB_BASE = 0x7ffff7fb0000
PROCS = {100: ("alpha", [100, 101, 102]), 200: ("beta", [200, 201])}
FUNCS = [("prog", "spin_a"), ("prog", "spin_b"), ("prog", "main"), ("lib", "lib_work"),
         ("lib", "lib_outer")]


def build(d):
    bins = build_fixtures(d)
    elf = {"prog": Elf(bins["prog_pie"]), "lib": Elf(bins["libfix.so"])}
    base = {"prog": PROG_BASE, "lib": LIB_BASE}
    maps = []
    for pid in PROCS:
        path = os.path.join(d, "maps%d" % pid)
        with open(path, "w") as f:
            f.write("\n".join(elf["prog"].maps(PROG_BASE) + elf["lib"].maps(LIB_BASE)) + "\n")
        maps.append("%d=%s" % (pid, path))
    rng = random.Random(19)
    samples = []   # (pid, tid, cpu, pc, row facts)
    weights = {("alpha", "spin_a"): 6, ("alpha", "lib_work"): 3, ("beta", "spin_b"): 4,
               ("beta", "lib_outer"): 2}
    for i in range(3000):
        pid = rng.choice(list(PROCS))
        comm, tids = PROCS[pid]
        tid = rng.choice(tids)
        cpu = rng.randrange(4)
        mod, func = rng.choices(FUNCS, [weights.get((comm, f), 1) for _, f in FUNCS])[0]
        e = elf[mod]
        start, size = e.syms[func]
        off = rng.randrange(0, min(size, 64))
        vaddr = start + off
        samples.append({"pid": pid, "tid": tid, "cpu": cpu, "pc": e.pc(base[mod], vaddr),
                        "comm": comm, "dso": os.path.basename(e.path), "sym": func,
                        "vaddr": vaddr, "elf": e})
    csvp = os.path.join(d, "s.csv")
    with open(csvp, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i, s in enumerate(samples):
            f.write("%d,0x%x,%d,%d,%d,4\n" % (1000000 * (i + 1), s["pc"], s["pid"], s["tid"],
                                                s["cpu"]))
    out = os.path.join(d, "r.eqp")
    args = ["import", "--samples", csvp, "--energy", "2.5mJ", "-o", out]
    for m in maps:
        args += ["--maps", m]
    for pid, (comm, _) in PROCS.items():
        args += ["--comm", "%d=%s" % (pid, comm)]
    rc, _, err = eqprof(*args)
    if rc:
        raise RuntimeError(err)
    return out, samples


def key_value(s, key, lines):
    if key == "comm":
        return s["comm"]
    if key == "pid":
        return "%d:%s" % (s["pid"], s["comm"])
    if key == "tid":
        return "%d:%s" % (s["tid"], s["comm"])
    if key == "cpu":
        return str(s["cpu"])
    if key == "dso":
        return s["dso"]
    if key == "sym":
        return s["sym"]
    if key == "srcline":
        src = lines(s)
        return "%s:%d" % src if src else s["sym"]
    raise KeyError(key)


def report(path, *args):
    rc, out, err = eqprof("report", path, "--format", "json", "-q", *args)
    if rc:
        raise RuntimeError(err)
    return json.loads(out)


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-sort-") as d:
        path, samples = build(d)
        cache = {}

        def lines(s):
            k = (s["elf"].path, s["vaddr"])
            if k not in cache:
                cache[k] = addr2line(*k)
            return cache[k]

        total = len(samples)
        for keys in (["comm", "dso", "sym"], ["sym"], ["pid", "tid"], ["cpu", "comm"],
                     ["dso", "cpu", "sym", "tid"], ["srcline"]):
            doc = report(path, "--sort", ",".join(keys))
            want = Counter(tuple(key_value(s, k, lines) for k in keys) for s in samples)
            got = {tuple(r["keys"][k] for k in keys): r["samples"] for r in doc["rows"]}
            t.eq(got, dict(want), "--sort %s: a row per combination, samples as placed" %
                 ",".join(keys))
            t.eq(doc["sort"], keys, "--sort %s: the keys in JSON" % ",".join(keys))
            bad = [r for r in doc["rows"] if abs(r["share"] - r["samples"] / total) > 1e-12 or
                   abs(r["energy_j"] - r["samples"] * Q) > 1e-9]
            t.ok(not bad, "--sort %s: shares and energies of all samples" % ",".join(keys), bad)
            counts = [r["samples"] for r in doc["rows"]]
            t.ok(counts == sorted(counts, reverse=True), "--sort %s: rows by samples, most first"
                 % ",".join(keys))
        # The intervals of key rows, as defined, from the sample order.
        keys = ["comm", "sym"]
        series = [tuple(key_value(s, k, lines) for k in keys) for s in samples]
        want = share_intervals(series, "sampling")
        doc = report(path, "--sort", "comm,sym")
        bad = [r for r in doc["rows"] if
               abs(r["ci95_low"] - want[(r["keys"]["comm"], r["keys"]["sym"])][0]) > 1e-7 or
               abs(r["ci95_high"] - want[(r["keys"]["comm"], r["keys"]["sym"])][1]) > 1e-7]
        t.ok(not bad, "--sort comm,sym: sampling intervals as defined", bad)

        # Table and CSV: a column per key.
        rc, out, _ = eqprof("report", path, "--sort", "comm,dso,sym", "-q")
        head = [l for l in out.splitlines() if l.startswith("  share")]
        t.ok(rc == 0 and "sorted by comm,dso,sym" in out and head and
             head[0].split()[-3:] == ["comm", "dso", "sym"], "table: a column per key", out[:600])
        rc, out, _ = eqprof("report", path, "-s", "cpu,comm", "--format", "csv", "-q")
        t.ok(rc == 0 and out.splitlines()[0].startswith("cpu,comm,samples,share,energy_j"),
             "csv (-s): the key columns first", out[:200])

        # Filters, absolute (perf's default) and relative.
        def keep(s, comm=None, dso=None, sym=None):
            return ((comm is None or s["comm"] in comm) and (dso is None or s["dso"] in dso) and
                    (sym is None or s["sym"] in sym))

        cases = [
            (["--comm", "alpha"], dict(comm={"alpha"})),
            (["--comm", "b*", "--dso", "libfix.so"], dict(comm={"beta"}, dso={"libfix.so"})),
            (["--symbol", "spin_a,lib_work"], dict(sym={"spin_a", "lib_work"})),
            (["--dso", os.path.join(d, "prog_pie")], dict(dso={"prog_pie"})),
        ]
        for args, f in cases:
            kept = [s for s in samples if keep(s, **f)]
            for rel in (False, True):
                extra = ["--percentage", "relative"] if rel else []
                doc = report(path, "--sort", "comm,sym", *(args + extra))
                want = Counter((s["comm"], s["sym"]) for s in kept)
                got = {(r["keys"]["comm"], r["keys"]["sym"]): r["samples"] for r in doc["rows"]}
                what = " ".join(args + extra)
                t.eq(got, dict(want), "%s: only the samples that match" % what)
                denom = len(kept) if rel else total
                t.eq((doc["total_samples"], doc["filtered_samples"], doc["percentage"]),
                     (denom, total - len(kept), "relative" if rel else "absolute"),
                     "%s: shares of %s, the rest counted" % (what, "the kept samples" if rel
                                                             else "all samples"))
                ser = [(s["comm"], s["sym"]) if keep(s, **f) else (None if rel else "out")
                       for s in samples]
                iv = share_intervals(ser, "sampling")
                bad = [r for r in doc["rows"] if
                       abs(r["share"] - r["samples"] / denom) > 1e-12 or
                       abs(r["ci95_low"] - iv[(r["keys"]["comm"], r["keys"]["sym"])][0]) > 1e-7 or
                       abs(r["ci95_high"] - iv[(r["keys"]["comm"], r["keys"]["sym"])][1]) > 1e-7]
                t.ok(not bad, "%s: shares and intervals as defined" % what, bad)
        # A filter with --by (no keys): rows by procedure.
        doc = report(path, "--comm", "alpha", "--by", "proc")
        want = Counter(s["sym"] for s in samples if s["comm"] == "alpha")
        t.eq({r["name"]: r["samples"] for r in doc["rows"]}, dict(want),
             "--comm with --by proc: procedures of that process")
        # --per-thread: perf's spelling of --by thread, and tid first with --sort.
        a = report(path, "--per-thread")
        b = report(path, "--by", "thread")
        t.eq([(r["name"], r["samples"]) for r in a["rows"]],
             [(r["name"], r["samples"]) for r in b["rows"]], "--per-thread is --by thread")
        doc = report(path, "--per-thread", "--sort", "sym")
        t.eq(doc["sort"], ["tid", "sym"], "--per-thread with --sort: tid first")
        want = Counter(("%d:%s" % (s["tid"], s["comm"]), s["sym"]) for s in samples)
        t.eq({(r["keys"]["tid"], r["keys"]["sym"]): r["samples"] for r in doc["rows"]},
             dict(want), "--per-thread --sort sym: a row per thread and procedure")

        # Bad input, each named.
        def bad(args, rc_want, *needles):
            rc, out, err = eqprof("report", path, "-q", *args)
            t.ok(rc == rc_want and all(n in err for n in needles) and not out,
                 "bad input %s: exit %d naming it" % (" ".join(args), rc_want), (rc, err[:500]))

        bad(["--sort", "comm,bogus"], 2, "--sort comm,bogus", "unknown key 'bogus'", "srcline")
        bad(["--sort", "sym,sym"], 2, "'sym' given twice")
        bad(["--sort", ""], 2, "unknown key ''")
        bad(["--sort", "sym", "--by", "exe"], 2, "--by and --sort")
        bad(["--per-thread", "--by", "exe"], 2, "--per-thread is --by thread")
        bad(["--comm", "gamma"], 1, "--comm gamma", "alpha (", "beta (")
        bad(["--dso", "libc.so.6"], 1, "--dso libc.so.6", "prog_pie", "libfix.so")
        bad(["--symbol", "spin_a,nosuch"], 1, "--symbol nosuch", "spin_a (", "lib_work")
        bad(["--comm", "alpha,"], 2, "--comm 'alpha,'", "comma-separated")
        bad(["--comm", "a", "--comm", "b"], 2, "--comm given twice")
        bad(["--percentage", "half"], 2, "--percentage", "relative")
        bad(["--children", "--sort", "sym"], 2, "--children", "--no-children")
        rc, _, err = eqprof("report", path, "-q", "--symbol", "spin_a,nosuch")
        t.ok("--symbol spin_a" not in err, "only the name that matched nothing is named", err)
    t.done()


if __name__ == "__main__":
    main()
