#!/usr/bin/env python3
"""Judges one run of the example application (test/cortexm/run-demo.sh).

    check.py KIND OUTDIR NAME       KIND: time | prio-low | stall | smoke

Prints one line per check, "PASS what" or "FAIL what" (qemu.sh turns them
into TAP), and "# ..." notes.

The reference for the time-driven shares is the application's own count of
the calls each path made into work() (NAME.out): every call runs the same
instructions at the same address, and QEMU's virtual clock counts
instructions (-icount), so a path's share of work()'s time is its share of
the calls.  It is independent of the sampler: counted by the application,
not derived from samples.  The shares are checked with binomial bounds at
z = 4.5 (two-sided 6.8e-6 each; three paths: under 2.1e-5 for a run).
"""
import csv
import math
import os
import subprocess
import sys

Z = 4.5
HANDLER_TID = 25  # exception 16 + IRQ 9: the application's Timer1 handler


def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    return ok


def counts(out, name):
    c = {}
    with open(os.path.join(out, name + ".out")) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            if v.isdigit():
                c[k] = int(v)
    return c


def samples(eqprof, out, name):
    csvf = os.path.join(out, name + ".csv")
    subprocess.run([eqprof, "export", os.path.join(out, name + ".eqp"), "--format", "csv",
                    "-o", csvf], check=True)
    with open(csvf) as f:
        return list(csv.DictReader(f))


def record_line(out, name):
    with open(os.path.join(out, name + ".rec")) as f:
        return f.read().strip()


def lost_of(eqprof, out, name):
    """The recording's LOST total, as report states it in its heading."""
    r = subprocess.run([eqprof, "report", os.path.join(out, name + ".eqp"), "--by", "thread"],
                       capture_output=True, text=True, check=True).stdout
    for line in r.splitlines():
        if "; lost " in line:
            return int(line.split("; lost ")[1].split()[0].rstrip(","))
    return None


def check_accounting(c, rows, lost):
    n = len(rows)
    ok = say(n + c["dropped"] == c["next_seq"],
             f"every sample taken is in the recording or counted lost: {n} + {c['dropped']} "
             f"= {c['next_seq']} (the application's own counters)")
    ok &= say(lost == c["dropped"], f"the recording's LOST total {lost} equals the target's drops {c['dropped']}")
    gaps = sum(1 for r in rows if int(r["flags"], 16) & 0x8)
    ok &= say((gaps > 0) == (c["dropped"] > 0), f"samples after a loss are flagged EQ_F_LOST ({gaps})")
    return ok


def check_symbols(rows):
    bad = [r for r in rows if not r["proc"] or r["proc"].startswith("[")]
    return say(not bad, f"every sample symbolizes to a function of the ELF ({len(bad)} do not"
               + (f", first pc {bad[0]['pc']}" if bad else "") + ")")


def check_shares(c, rows):
    work = [r for r in rows if r["proc"] == "work"]
    paths = {"path_a": c["calls_a"], "path_b": c["calls_b"], "app_timer_handler": c["calls_h"]}
    total = sum(paths.values())
    n = len(work)
    by = {p: sum(1 for r in work if r["stack"] == p + ";work") for p in paths}
    ok = say(sum(by.values()) == n, f"each of work()'s {n} samples has its caller from the stacked LR")
    for p, calls in paths.items():
        q = calls / total
        half = Z * math.sqrt(q * (1 - q) / n)
        got = by[p] / n
        ok &= say(abs(got - q) <= half,
                  f"work() via {p}: {100 * got:.2f}% of its samples, calls {100 * q:.2f}% "
                  f"(+-{100 * half:.2f}%)")
    return ok


def check_handler(rows, expect_some):
    inside = [r for r in rows if "app_timer_handler" in r["stack"].split(";")]
    tid = [r for r in rows if int(r["tid"]) == HANDLER_TID]
    mism = [r for r in inside if int(r["tid"]) != HANDLER_TID] + \
           [r for r in tid if "app_timer_handler" not in r["stack"].split(";")]
    ok = say(not mism, f"samples in the application's handler are marked exception {HANDLER_TID} "
             f"and only they ({len(inside)} in it, {len(mism)} mismatched)")
    if expect_some:
        ok &= say(len(tid) > 0, f"the sampler (priority 0x00) preempts the handler (0x80): {len(tid)} samples in it")
    else:
        ok &= say(len(tid) == 0, "the sampler below the handler's priority (0xc0 < 0x40) never "
                  f"samples inside it: {len(tid)} samples there")
    return ok


def main():
    kind, out, name = sys.argv[1], sys.argv[2], sys.argv[3]
    eqprof = os.environ.get("EQPROF", "eqprof")
    c = counts(out, name)
    rows = samples(eqprof, out, name)
    print(f"# {name}: {record_line(out, name)}")
    print(f"# {name}: application: " + ", ".join(f"{k} {v}" for k, v in c.items()))
    check_accounting(c, rows, lost_of(eqprof, out, name))
    check_symbols(rows)
    if kind == "time":
        check_shares(c, rows)
        check_handler(rows, True)
    elif kind == "prio-low":
        say(c["calls_h"] > 0, f"the handler ran ({c['calls_h']} calls of work)")
        check_handler(rows, False)
    elif kind == "stall":
        say(c["dropped"] > 0, f"the stalled drain made the ring overflow ({c['dropped']} dropped)")


main()
