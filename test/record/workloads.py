#!/usr/bin/env python3
"""workloads.py - call stacks of a multithreaded, forking workload.

test/fixtures/callers_mt.c runs callers.c's structure (a() calls leaf(n),
b() calls leaf(3n)) in 3 threads of a process that forked without exec, so
6 threads in 2 processes.  With -g (frame pointers, -O0) and with
--call-graph dwarf (-O2 without them) b's inclusive share of a+b is held
to perf's on the same run (perf record -g or --call-graph dwarf around
eqprof record, its own timer sampling the same threads:
test/symbols/perfcmp.py, Z = 4.9, about 1e-6 each, two in the file), not
to the iteration counts' 3/4 (how long an iteration takes in each of six
threads on a shared machine is the machine's); where perf cannot run it is
skipped, saying so.  Both processes and all six threads (four named
"worker") must be there, and with dwarf every stack through leaf must run
down to its thread's root (main, or start_thread for the others): exact.
"""
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import SRC, eqprof, run  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "symbols"))
from perfcmp import Sampled, start  # noqa: E402


def main():
    t, cmp, d, use_perf = start("eqprof-mt-")
    src = os.path.join(SRC, "test", "fixtures", "callers_mt.c")
    fp = os.path.join(d, "mt-fp")
    o2 = os.path.join(d, "mt-o2")
    run(["cc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", fp, src, "-lpthread"])
    run(["cc", "-O2", "-g", "-fomit-frame-pointer", "-o", o2, src, "-lpthread"])
    for mode, prog, cg in (("-g", fp, "fp"), ("dwarf", o2, "dwarf")):
        sm = Sampled(d, mode.strip("-"), [prog, "1000000" if mode == "dwarf" else "300000", "100", "3", "1"],
                     use_perf, hz=2000, callgraph=cg)
        rec, rc, err = sm.eqp, sm.status, sm.stderr
        t.ok(rc == 0, "%s: record of a forking, multithreaded workload" % mode, err)
        rc, out, err = eqprof("report", rec, "--format", "json")
        doc = json.loads(out) if rc == 0 else {"rows": []}
        rows = {r["name"]: r for r in doc["rows"]}
        ka = rows.get("a", {}).get("children_samples", 0)
        kb = rows.get("b", {}).get("children_samples", 0)
        if use_perf:
            pst = [[f for _, f in reversed(fr)] for comm, fr in sm.perf_stacks()]
            pa = sum(1 for fr in pst if "leaf" in fr and "a" in fr)
            pb = sum(1 for fr in pst if "leaf" in fr and "b" in fr)
            cmp.share("%s: b()'s share of a+b over six threads in two processes, as perf's" % mode,
                      kb, ka + kb, pb, pa + pb)
        else:
            t.ok(True, "# SKIP %s: b()'s share of a+b: perf (the reference) cannot run here" % mode)
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
