#!/usr/bin/env python3
"""callchain.py - record -g, report --children/--call-graph, folded stacks.

test/fixtures/callers.c runs one leaf under two callers, a() with n and b()
with 3n iterations: the same code, so b's inclusive time is exactly three
times a's on any CPU.  eqprof's inclusive shares must give a:b = 1:3 within
4.06 binomial standard errors, and perf's --children profile of the same
program must agree with eqprof's within the same bound for two independent
samplings: two checks at a two-sided 5e-5 each, so the file's false-failure
rate is below 1e-4 (the samples of a jittered timer vary less than
independent ones, so the real rate is lower).  The flame graph's stacks must
add up to the report.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, SRC, Tap, eqprof, run  # noqa: E402

Z = 4.06  # two-sided 5e-5: two statistical checks in this file, 1e-4 in all


def within(k, n, p, what):
    if n < 200:
        return False, "%s: only %d samples" % (what, n)
    se = math.sqrt(p * (1 - p) / n)
    return abs(k / n - p) <= Z * se, "%s: %d/%d = %.4f, want %.4f +- %.4f" % (what, k, n, k / n, p, Z * se)


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eqprof-cg-")
    prog = os.path.join(d, "callers")
    run(["cc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", prog,
         os.path.join(SRC, "test", "fixtures", "callers.c")])
    rec = os.path.join(d, "cg.eqp")
    # user space only: the kernel's frames (when root) are kernel.py's
    rc, _, err = eqprof("record", "-g", "--all-user", "-t", "4kHz", "-q", "-o", rec, "--", prog, "2000000", "100")
    t.ok(rc == 0, "record -g runs the program", err)

    rc, out, err = eqprof("report", rec, "--format", "json")
    doc = json.loads(out) if rc == 0 else {"rows": []}
    t.ok(rc == 0 and doc.get("children") is True,
         "report of a recording with call chains is the inclusive profile by default", err)
    rows = {r["name"]: r for r in doc["rows"]}
    ka = rows.get("a", {}).get("children_samples", 0)
    kb = rows.get("b", {}).get("children_samples", 0)
    ok, msg = within(kb, ka + kb, 0.75, "b's share of a+b")
    t.ok(ok, "b() gets three quarters of the leaf's callers' samples, a() one quarter", msg)
    leaf = rows.get("leaf", {})
    # a() and b() run a few instructions of their own per call: a sample may
    # land there (rarely), never many.  Outside leaf() are only those
    # instructions (under 1e-5 of the time: a call per 1M-iteration loop)
    # and the loader's and libc's start and exit (a few ms of CPU time, 1 of
    # about 3000 samples here; user space only, so no kernel samples): 3%
    # (about 90 samples, 22 ms of CPU) and 1% for a() and b() hold them on
    # any machine, since cpu-clock counts CPU time, not a loaded machine's
    # waits.  Nothing here is statistical.
    own_ab = rows.get("a", {}).get("self_samples", 0) + rows.get("b", {}).get("self_samples", 0)
    t.ok(leaf.get("self_samples", 0) >= 0.97 * doc.get("total_samples", 1) and
         rows.get("main", {}).get("children_samples", 0) >= ka + kb - own_ab and own_ab <= 0.01 * (ka + kb),
         "leaf() has the samples as self, main() as children, a() and b() (nearly) none as self",
         {k: (v["self_samples"], v["children_samples"]) for k, v in rows.items()})
    # perf gives a sample an empty user chain when the task has no user
    # stack to walk any more (taken while it exits): seen about once in
    # 3000 samples on a loaded machine under ASan.  The one process exits
    # once, so there is at most one such sample (2 allowed); more than 0.5%
    # of a larger count would be the recorder losing chains.
    nchain, ntotal = doc.get("samples_with_chain", 0), doc.get("total_samples", -1)
    t.ok(ntotal > 0 and ntotal - nchain <= max(2, 0.005 * ntotal),
         "every sample has its call chain (but the odd one perf takes as the task exits)",
         (nchain, ntotal))

    # perf on the same program, independently sampled
    if shutil.which("perf"):
        pd = os.path.join(d, "perf.data")
        p = subprocess.run(["perf", "record", "-q", "-g", "-e", "cpu-clock", "-F", "4000", "-o", pd,
                            prog, "2000000", "100"], capture_output=True, text=True)
        rep = subprocess.run(["perf", "report", "-i", pd, "--children", "--stdio", "-n", "--sort", "sym",
                              "-q", "-g", "none"], capture_output=True, text=True)
        # -n counts the self samples; they add up to the total, and
        # children% of the total is a row's inclusive count
        children, total = {}, 0
        for line in rep.stdout.splitlines():
            m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+(\d+)\s+\[[.k]\]\s+(\S+)", line)
            if m:
                children[m.group(4)] = float(m.group(1))
                total += int(m.group(3))
        pa = round(children.get("a", 0) * total / 100)
        pb = round(children.get("b", 0) * total / 100)
        if p.returncode == 0 and pa + pb > 0:
            n1, n2 = ka + kb, pa + pb
            p1, p2 = kb / max(n1, 1), pb / n2
            se = math.sqrt(0.75 * 0.25 * (1 / max(n1, 1) + 1 / n2))
            t.ok(abs(p1 - p2) <= Z * se,
                 "perf record -g --children on the same program agrees (b: eqprof %.4f, perf %.4f, bound %.4f)"
                 % (p1, p2, Z * se))
        else:
            t.ok(True, "# SKIP perf could not sample here: %s" % (p.stderr.strip()[:200] or rep.stderr[:200]))
    else:
        t.ok(True, "# SKIP perf is not installed")

    rc, out, err = eqprof("report", rec, "--call-graph")
    t.ok(rc == 0 and re.search(r"main > b > leaf", out) and re.search(r"main > a > leaf", out),
         "--call-graph shows the paths main > a > leaf and main > b > leaf", out[:800] + err)
    rc, out, err = eqprof("report", rec, "--no-children", "--format", "json")
    flat = json.loads(out) if rc == 0 else {}
    t.ok(rc == 0 and "children" not in flat and any(r["name"] == "leaf" for r in flat.get("rows", [])),
         "--no-children gives the flat profile", err)
    rc, out, err = eqprof("report", rec, "--percent-limit", "50", "--format", "json")
    lim = json.loads(out) if rc == 0 else {"rows": [{"name": "a"}]}
    t.ok(rc == 0 and "a" not in {r["name"] for r in lim["rows"]} and "b" in {r["name"] for r in lim["rows"]},
         "--percent-limit 50 leaves out a (25%) and keeps b (75%)", err)
    rc, _, err = eqprof("report", rec, "--percent-limit", "abc")
    t.ok(rc == 2 and "--percent-limit" in err, "--percent-limit abc is refused", err)

    # flame graph: real stacks that add up to the report
    fo = os.path.join(d, "cg.folded")
    rc, _, err = eqprof("export", rec, "--format", "folded", "-o", fo)
    stacks = {}
    for line in open(fo) if rc == 0 else []:
        key, n = line.rsplit(" ", 1)
        stacks[key] = int(n)
    via_a = sum(n for k, n in stacks.items() if k.endswith(";main;a;leaf"))
    via_b = sum(n for k, n in stacks.items() if k.endswith(";main;b;leaf"))
    sa, sb = rows.get("a", {}).get("self_samples", 0), rows.get("b", {}).get("self_samples", 0)
    t.ok(rc == 0 and via_a == ka - sa and via_b == kb - sb and all(k.startswith("callers;") for k in stacks),
         "export --format folded: callers;...;main;a;leaf and ...;b;leaf add up to the report",
         (via_a, ka, via_b, kb, list(stacks)[:5], err))

    # errors
    flat_rec = os.path.join(d, "flat.eqp")
    eqprof("record", "-t", "1kHz", "-q", "-o", flat_rec, "--", prog, "1000", "1")
    rc, _, err = eqprof("report", flat_rec, "--children")
    t.ok(rc == 1 and "record with -g" in err, "--children without call chains says to record with -g", err)
    rc, _, err = eqprof("report", rec, "--children", "--by", "line")
    t.ok(rc == 2 and "--by proc" in err, "--children with --by line is refused", err)
    rc, _, err = eqprof("record", "--call-graph", "lbr", "-o", os.path.join(d, "x.eqp"), "--", "true")
    t.ok(rc == 2 and "--call-graph lbr" in err, "an unknown --call-graph mode is named", err)
    shutil.rmtree(d)
    t.done()


main()
