#!/usr/bin/env python3
"""report-jobs.py - report --jobs N (issue 30 item 6): the samples read on
several threads give the same bytes as on one.

Two recordings (time-driven and energy-driven) of 40 chunks each, large
enough that --jobs 2 and 4 split them, with what makes the single pass's
sums hard to reproduce in parts: runs at one pc across chunk ends, two
processes with threads on two CPUs, idle and kernel samples, samples after
a loss, pcs with no symbol (in a module and outside every module), and
jittered intervals (the timer jitter's sum of squares is a double summed
in order).  Every view of report is run with --jobs 1, 2, 4 and -j 0
(every online CPU); its standard output, standard error and exit status must be the
same bytes as --jobs 1's (the reference: the one-thread pass, which is
today's code; a different split, or a part joined wrongly, changes a row's
samples, an interval's digits or the order of rows).  Nothing here is
statistical: the samples come from a fixed seed."""
import os
import random
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import Elf, Tap, build_fixtures, eqprof  # noqa: E402

PROG_BASE = 0x555555554000
LIB_BASE = 0x7ffff7fb0000
CHUNK = 4096                 # samples per chunk (analysis/file/eqp_format.h)
N = 40 * CHUNK - 123         # a partial last chunk too
PROCS = {100: [100, 101, 102], 200: [200, 201]}

VIEWS = [
    [], ["--by", "line"], ["--by", "insn"], ["--by", "exe"], ["--by", "module"],
    ["--by", "pid"], ["--by", "thread"], ["--interval", "run-to-run"],
    ["--format", "json"], ["--format", "csv", "--by", "line"], ["-v"],
    ["--by", "line", "--interval", "run-to-run", "--format", "json"],
    ["--sort", "comm,dso,sym"], ["--exclude-idle"], ["--symbol", "spin_*"],
    ["--from", "1s", "--to", "5s"], ["--percent-limit", "2"], ["--by", "proc,cpu,mode"],
]


def recording(d, name, mode, rng):
    bins = build_fixtures(d) if not os.path.exists(os.path.join(d, "prog_pie")) else {
        "prog_pie": os.path.join(d, "prog_pie"), "libfix.so": os.path.join(d, "libfix.so")}
    prog, lib = Elf(bins["prog_pie"]), Elf(bins["libfix.so"])
    maps = []
    for pid in PROCS:
        path = os.path.join(d, "maps%d" % pid)
        with open(path, "w") as f:
            f.write("\n".join(prog.maps(PROG_BASE) + lib.maps(LIB_BASE)) + "\n")
        maps.append("%d=%s" % (pid, path))
    pcs = []
    for e, base in ((prog, PROG_BASE), (lib, LIB_BASE)):
        for start, size in e.syms.values():
            for off in range(0, max(1, min(size, 48)), 4):
                pcs.append(e.pc(base, start + off))
    pcs.append(LIB_BASE + 0x10)   # in libfix.so, in no symbol
    pcs.append(0x1000)            # in no module
    csvp = os.path.join(d, name + ".csv")
    t = 1000000
    with open(csvp, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        i = 0
        while i < N:
            pid = rng.choice(list(PROCS))
            tid = rng.choice(PROCS[pid])
            cpu = rng.randrange(2)
            flags = 4 if mode == "energy" else 0
            kind = rng.random()
            if kind < 0.1:
                pid, tid, pc, flags = 0, 0, 0xffffffff81000000, flags | 2   # idle
            elif kind < 0.15:
                pc, flags = 0xffffffff81234560 + 16 * rng.randrange(8), flags | 1  # kernel
            else:
                pc = rng.choice(pcs)
            for _ in range(min(N - i, rng.choice([1, 1, 1, 2, 3, 7, 40]))):
                t += 250000 + rng.randrange(-20000, 20000)
                lost = 8 if rng.random() < 0.002 else 0
                f.write("%d,0x%x,%d,%d,%d,%d\n" % (t, pc, pid, tid, cpu, flags | lost))
                i += 1
    out = os.path.join(d, name + ".eqp")
    args = ["import", "--samples", csvp, "-o", out] + \
        (["--energy", "2.5mJ"] if mode == "energy" else ["--time", "4000Hz"])
    for m in maps:
        args += ["--maps", m]
    rc, _, err = eqprof(*args)
    if rc:
        raise RuntimeError(err)
    return out


def main():
    tap = Tap()
    rng = random.Random(30)
    with tempfile.TemporaryDirectory() as d:
        for mode in ("time", "energy"):
            path = recording(d, mode, mode, rng)
            rc, out, _ = eqprof("report", path, "-q", "--jobs", "1")
            tap.ok(rc == 0 and ("# %d samples" % N) in out,
                   "%s: %d samples, %d chunks: --jobs 2 and 4 split it" %
                   (mode, N, (N + CHUNK - 1) // CHUNK), out[:300])
            for v in VIEWS:
                one = eqprof("report", path, "-q", "--jobs", "1", *v)
                for jobs in (["--jobs", "2"], ["-j", "4"], ["-j", "0"]):
                    got = eqprof("report", path, "-q", *jobs, *v)
                    tap.ok(got == one, "%s: report %s %s: the same bytes as --jobs 1" %
                           (mode, " ".join(v), " ".join(jobs) or "(default jobs)"),
                           "rc %d vs %d\n%s\n%s" % (got[0], one[0], got[1][:600], one[1][:600]))
        for bad in ("x", "-2", "65"):
            rc, _, err = eqprof("report", path, "--jobs", bad)
            tap.ok(rc == 2 and "--jobs: give a number of threads from 1 to 64, or 0 for every online CPU" in err,
                   "--jobs %s: a usage error" % bad, err)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
