#!/usr/bin/env python3
"""exports.py - the exports on real programs recorded here:

- Chrome trace: one track per thread of each process (real pids and tids,
  named by the exe and the thread's own name), and no slice longer than the
  samples in it stand for: a time profile's sample is at most one sampling
  period, so a sleep between two bursts belongs to neither (inl.c);
- callgrind: a function with code inlined from a header is one fn= block,
  the header's lines marked fi=, its cost the report's, and
  callgrind_annotate reads it;
- pprof: each mapping carries its module's build-id (as readelf -n shows
  it), and a pc in inlined code is a location with the inline chain, the
  call site as eu-addr2line -i gives it (read back with go tool pprof -raw).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfcmp import Tap, eqprof, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HZ = 2000


def main():
    tap = Tap()
    work = tempfile.mkdtemp(prefix="symbols-exports-")
    try:
        inl = os.path.join(work, "inl")
        run(["cc", "-O2", "-g", "-I", HERE, "-o", inl, os.path.join(HERE, "inl.c")])
        eqp = os.path.join(work, "inl.eqp")
        rc, _, err = eqprof("record", "-t", "%dHz" % HZ, "-q", "-o", eqp, "--", inl, "200")
        tap.eq(rc, 0, "inl runs under record" + ("" if rc == 0 else ": " + err))
        rc, out, _ = eqprof("report", eqp, "--by", "proc", "--format", "json")
        rows = {r["name"]: r["samples"] for r in json.loads(out)["rows"]}

        # -- Chrome: slices a sample long at most, tracks per thread --------
        chrome = os.path.join(work, "inl.json")
        eqprof("export", eqp, "--format", "chrome", "-o", chrome)
        ev = json.load(open(chrome))["traceEvents"]
        xs = [e for e in ev if e["ph"] == "X"]
        period_us = 1e6 / HZ
        # the timer's period is jittered by up to 5%, and touching slices
        # merge within half a period: 1.55 periods a sample at most
        worst = max((e["dur"] / (e["args"]["samples"] * period_us) for e in xs), default=9)
        tap.ok(worst <= 1.55, "chrome: no slice longer than its samples' periods (worst %.2f)" % worst)
        before = [e for e in xs if e["name"] == "before_sleep"]
        after = [e for e in xs if e["name"] == "after_sleep"]
        gap = min(e["ts"] for e in after) - max(e["ts"] + e["dur"] for e in before) if before and after else 0
        tap.ok(gap >= 250000, "chrome: the 300 ms sleep is in no slice (gap %.0f ms)" % (gap / 1000))
        rc, out, _ = eqprof("report", eqp, "--by", "thread", "--format", "json")
        tids = {(r["pid"], r["tid"]) for r in json.loads(out)["rows"] if "tid" in r}
        tap.eq({(e["pid"], e["tid"]) for e in xs}, tids, "chrome: slices on the real pid/tid tracks")
        names = {(e["pid"], e["args"]["name"]) for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
        tap.ok(any(n == "inl" for _, n in names), "chrome: the process track is named inl", names)

        renamer = os.path.join(work, "renamer")
        run(["cc", "-O1", "-g", "-I", HERE, "-pthread", "-o", renamer, os.path.join(HERE, "renamer.c")])
        reqp = os.path.join(work, "renamer.eqp")
        eqprof("record", "-t", "%dHz" % HZ, "-q", "-o", reqp, "--", renamer, "100")
        eqprof("export", reqp, "--format", "chrome", "-o", chrome)
        ev = json.load(open(chrome))["traceEvents"]
        tnames = sorted(e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"
                        and e["pid"] != 2147483646)
        tap.eq(tnames, ["renamer", "worker-thr"], "chrome: one track per thread, named as the thread named itself")

        # -- callgrind: one block for a function with inlined code -----------
        cg = os.path.join(work, "inl.cg")
        eqprof("export", eqp, "--format", "callgrind", "-o", cg)
        text = open(cg).read()
        tap.eq(text.count("fn=outer\n"), 1, "callgrind: outer is one fn= block")
        block = text.split("fn=outer\n", 1)[1].split("fn=", 1)[0] if "fn=outer\n" in text else ""
        tap.ok("fi=" in block and "inl.h" in block, "callgrind: its lines from inl.h are marked fi=", block[:300])
        cost = sum(int(l.split()[3]) for l in block.splitlines() if l.startswith("0x"))
        tap.eq(cost, rows.get("outer"), "callgrind: outer's samples are the report's")
        if shutil.which("callgrind_annotate"):
            p = subprocess.run(["callgrind_annotate", "--threshold=100", cg], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            # annotate lists a function per source file of its lines (as for
            # valgrind's own profiles of inlined code): they add up
            got = sum(int(m.group(1).replace(",", "")) for m in
                      re.finditer(r"\(\s*[\d.]+%\)\s+([\d,]+) \(\s*[\d.]+%\)\s+\S*:outer\b", p.stdout))
            tap.eq((p.returncode, got), (0, rows.get("outer")),
                   "callgrind_annotate reads it and gives outer its samples")
        else:
            tap.ok(True, "callgrind_annotate # SKIP valgrind is not installed")

        # -- pprof: build-ids and inline frames ------------------------------
        pb = os.path.join(work, "inl.pb.gz")
        eqprof("export", eqp, "--format", "pprof", "-o", pb)
        bid = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", inl]).stdout).group(1)
        go = shutil.which("go")
        if not go:
            tap.ok(bid.encode() in subprocess.run(["gzip", "-dc", pb], stdout=subprocess.PIPE).stdout,
                   "pprof: the build-id is in the profile (go is not installed to read more)")
        else:
            p = subprocess.run([go, "tool", "pprof", "-raw", pb], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            tap.ok(p.returncode == 0 and re.search(r"\s%s\s+%s" % (re.escape(inl), bid), p.stdout),
                   "pprof: the mapping of inl carries its build-id", p.stdout[-800:] + p.stderr)
            m = re.search(r"^\s+\d+: (0x[0-9a-f]+) M=\d+ mix \S+inl\.h:\d+ s=0\n\s+outer (\S+):(\d+) s=0",
                          p.stdout, re.M)
            ok = False
            if m:
                # the location's address is the run's; eu-addr2line wants the
                # file's: the report's insn offset of the same sample
                rc, out, _ = eqprof("report", eqp, "--by", "insn", "--format", "json")
                offs = [r["offset"] for r in json.loads(out)["rows"] if r["name"].startswith("outer+")]
                want = set()
                for off in offs:
                    a = run(["eu-addr2line", "-i", "-e", inl, hex(off)]).stdout.split()
                    want.update(a[1:2])
                ok = "%s:%s" % (m.group(2), m.group(3)) in {re.sub(r":\d+$", "", w) for w in want} | want
            tap.ok(ok, "pprof: inlined mix() is a frame of outer() at the call site eu-addr2line -i gives",
                   p.stdout[:1500])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done()


main()
