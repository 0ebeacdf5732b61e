#!/usr/bin/env python3
"""workloads.py - call stacks of a multithreaded, forking workload.

test/fixtures/callers_mt.c runs callers.c's structure (a() calls leaf(n),
b() calls leaf(3n)) in 3 threads of a process that forked without exec, so
6 threads in 2 processes; in each, b's inclusive share of a+b is exactly
3/4 on any CPU.  With -g (frame pointers, -O0) and with --call-graph dwarf
(-O2 without them) the total must give 3/4 within 4.17 binomial standard
errors (two-sided 3e-5 each: the file's two statistical checks, 6e-5 in
all; 3/4 holds on any machine: one leaf, the same code, under two
callers), both processes and all six threads (four named "worker") must be
there, and with dwarf every stack through leaf must run down to its
thread's root (main, or start_thread for the others): exact.
"""
import json
import math
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import SRC, Tap, eqprof, run  # noqa: E402

Z = 4.17  # two-sided 3e-5; two checks in the file


def within(k, n, p):
    if n < 200:
        return False, "only %d samples" % n
    se = math.sqrt(p * (1 - p) / n)
    return abs(k / n - p) <= Z * se, "%d/%d = %.4f, want %.4f +- %.4f" % (k, n, k / n, p, Z * se)


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eqprof-mt-")
    src = os.path.join(SRC, "test", "fixtures", "callers_mt.c")
    fp = os.path.join(d, "mt-fp")
    o2 = os.path.join(d, "mt-o2")
    run(["cc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", fp, src, "-lpthread"])
    run(["cc", "-O2", "-g", "-fomit-frame-pointer", "-o", o2, src, "-lpthread"])
    for mode, prog, args in (("-g", fp, ["-g"]), ("dwarf", o2, ["--call-graph", "dwarf"])):
        rec = os.path.join(d, "%s.eqp" % mode.strip("-"))
        rc, _, err = eqprof("record", *args, "--all-user", "-t", "2kHz", "-q", "-o", rec, "--",
                            prog, "1000000" if mode == "dwarf" else "300000", "100", "3", "1")
        t.ok(rc == 0, "%s: record of a forking, multithreaded workload" % mode, err)
        rc, out, err = eqprof("report", rec, "--format", "json")
        doc = json.loads(out) if rc == 0 else {"rows": []}
        rows = {r["name"]: r for r in doc["rows"]}
        ka = rows.get("a", {}).get("children_samples", 0)
        kb = rows.get("b", {}).get("children_samples", 0)
        ok, msg = within(kb, ka + kb, 0.75)
        t.ok(ok, "%s: b() has 3/4 of a+b over six threads in two processes" % mode, msg)
        total = doc.get("total_samples", 0)
        if mode == "dwarf":
            # exact: a sample whose pc is in leaf has its thread's whole
            # stack above it; samples outside leaf (thread start-up and
            # exit, the loader) are the machine's and not asserted on
            fo = rec + ".folded"
            rc2, _, err2 = eqprof("export", rec, "--format", "folded", "-o", fo)
            through = rooted = 0
            for line in open(fo) if rc2 == 0 else []:
                fr, n = line.rsplit(" ", 1)[0].split(";"), int(line.rsplit(" ", 1)[1])
                if "leaf" in fr:
                    through += n
                    rooted += n if ("main" in fr or "start_thread" in fr) else 0
            t.ok(through > 0 and rooted == through and rows.get("start_thread", {}).get("children_samples", 0) > 0,
                 "dwarf: every stack through leaf reaches main() or start_thread() (%d of %d)" % (rooted, through),
                 (rooted, through, total, err2))
        rc, out, _ = eqprof("report", rec, "--no-children", "--by", "thread", "--format", "json")
        threads = [r["name"] for r in json.loads(out)["rows"]] if rc == 0 else []
        procs = {r["module"] for r in json.loads(out)["rows"]} if rc == 0 else set()
        t.ok(len(threads) == 6 and sum(x.endswith(":worker") for x in threads) == 4 and len(procs) == 2,
             "%s: six threads (four named worker) in two processes" % mode, (threads, procs))
    shutil.rmtree(d)
    t.done()


main()
