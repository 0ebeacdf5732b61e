#!/usr/bin/env python3
"""repeatable.py - every export and call-graph view of one recording gives
the same bytes every run.

The recording (test/analysis/chain_rec over test/fixtures/callers.c's
functions, seeded: the same file every time) holds a process that execs, so one pid has two address spaces whose
locations share a module, procedure and file offset.  Ties like these were
ordered by the locations' addresses in memory, which address space layout
randomisation changes from run to run: pprof and callgrind exports of the
same file differed in 6 of 6 runs.  Each view here runs three times; any
difference fails.  Nothing is statistical: the order is now the order in
which the locations were first met."""
import hashlib
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, SRC, Tap, eqprof  # noqa: E402

B = os.environ.get("B", os.path.dirname(EQPROF))
VIEWS = [["export", "--format", f] for f in ("pprof", "callgrind", "folded", "chrome", "csv")] + \
        [["report", "--children"], ["report", "-G"], ["report", "-G", "--format", "json"]]


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-repeatable-") as d:
        # a small program's symbols (eqprof's own, with its DWARF, made
        # the views take seconds each)
        prog = os.path.join(d, "callers")
        r = subprocess.run(["cc", "-O0", "-g", "-o", prog, os.path.join(SRC, "test", "fixtures", "callers.c")],
                           capture_output=True, text=True)
        t.ok(r.returncode == 0, "cc builds test/fixtures/callers.c", r.stderr)
        rec = os.path.join(d, "chains.eqp")
        r = subprocess.run([os.path.join(B, "test", "analysis", "chain_rec"), prog, "20000", rec, "7"],
                           capture_output=True, text=True)
        t.ok(r.returncode == 0, "chain_rec writes a recording with call chains and an exec", r.stderr)
        for v in VIEWS:
            sums, errs = set(), ""
            for i in range(3):
                out = os.path.join(d, "out%d" % i)
                rc, _, err = eqprof(*v[:1], rec, *v[1:], "-q", "-o", out)
                errs += err
                if rc != 0:
                    sums.add("exit %d" % rc)
                    continue
                with open(out, "rb") as f:
                    sums.add(hashlib.sha256(f.read()).hexdigest())
            t.ok(len(sums) == 1 and not any(s.startswith("exit") for s in sums),
                 "%s: the same bytes in 3 runs" % " ".join(v), "%d different outputs: %s %s" % (len(sums), sorted(sums), errs))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
