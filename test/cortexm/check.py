#!/usr/bin/env python3
"""Judges one run of the example application (test/cortexm/run-demo.sh).

    check.py KIND OUTDIR NAME       KIND: time | prio-low | stall | smoke | energy | energy-acct

Prints one line per check, "PASS what" or "FAIL what" (qemu.sh turns them
into TAP), and "# ..." notes.

The reference for the time-driven shares is the application's own count of
the calls each path made into work() (NAME.out): every call runs the same
instructions at the same address, and QEMU's virtual clock counts
instructions (-icount), so a path's share of work()'s time is its share of
the calls.  It is independent of the sampler: counted by the application,
not derived from samples.  The shares are checked with binomial bounds at
z = 4.5 (two-sided 6.8e-6 each; three paths: under 2.1e-5 for a run;
qemu.sh judges two runs so, the Cortex-M3's and the Cortex-M0's: under
4.1e-5, and the energy run's two phase shares add 1.4e-5).
"""
import csv
import math
import os
import struct
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


def eqp_samples(path):
    """(pc, seq) of every sample, read from the file's SAMP chunks
    (docs/format.md), for the seq the CSV export leaves out."""
    out = []
    with open(path, "rb") as f:
        data = f.read()
    at = 16
    while at + 16 <= len(data):
        typ = data[at:at + 4]
        ln = struct.unpack_from("<Q", data, at + 8)[0]
        if typ == b"SAMP":
            n = struct.unpack_from("<I", data, at + 16)[0]
            for i in range(n):
                _, pc, _, _, seq = struct.unpack_from("<QQIII", data, at + 24 + 32 * i)
                out.append((pc, seq))
        at += (16 + ln + 4 + 7) & ~7
        if typ == b"END ":
            break
    return out


def samples(eqprof, out, name):
    csvf = os.path.join(out, name + ".csv")
    subprocess.run([eqprof, "export", os.path.join(out, name + ".eqp"), "--format", "csv",
                    "-o", csvf], check=True)
    with open(csvf) as f:
        rows = list(csv.DictReader(f))
    raw = eqp_samples(os.path.join(out, name + ".eqp"))
    if len(raw) == len(rows):     # the export keeps the file's order
        for r, (_, seq) in zip(rows, raw):
            r["seq"] = seq
    return rows


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


def first_seq(out, name):
    """The seq of the target's first sample (TINFO, in the header's extra lines)."""
    with open(os.path.join(out, name + ".eqp"), "rb") as f:
        head = f.read(1 << 16)
    k = head.find(b"first_seq=")
    return int(head[k + 10:head.index(b"\n", k)]) if k >= 0 else None


def elf_of(out, name):
    """The application's ELF, as eqprof record was given it (the header's
    command line)."""
    with open(os.path.join(out, name + ".eqp"), "rb") as f:
        head = f.read(1 << 16)
    k = head.find(b"--elf ")
    return head[k + 6:].split(b" ", 1)[0].decode() if k >= 0 else None


def check_accounting(c, rows, lost, first):
    n = len(rows)
    ok = say(first is not None and n + c["dropped"] == c["next_seq"] - first,
             f"every sample taken is in the recording or counted lost: {n} + {c['dropped']} "
             f"= {c['next_seq']} - {first} (the application's own counters; its first seq)")
    ok &= say(lost == c["dropped"], f"the recording's LOST total {lost} equals the target's drops {c['dropped']}")
    gaps = sum(1 for r in rows if int(r["flags"], 16) & 0x8)
    ok &= say((gaps > 0) == (c["dropped"] > 0), f"samples after a loss are flagged EQ_F_LOST ({gaps})")
    return ok


def check_symbols(rows):
    idle = lambda r: int(r["flags"], 16) & 0x2 and r["proc"] == "[idle]"
    bad = [r for r in rows if not idle(r) and (not r["proc"] or r["proc"].startswith("["))]
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


def check_lr_rule(rows, elf):
    """A caller from the stacked LR only where the ELF's CFI says LR holds
    the return address: in path_a/path_b (which push LR first) only at
    their first instruction; every sample of the leaf work() has one."""
    nm = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True, check=True)
    start = {w[2]: int(w[0], 16) for w in (l.split() for l in nm.stdout.splitlines()) if len(w) == 3}
    bad = [r for r in rows if r["proc"] in ("path_a", "path_b") and
           (len(r["stack"].split(";")) > 1) != (int(r["pc"], 16) == start[r["proc"]])]
    n = sum(1 for r in rows if r["proc"] in ("path_a", "path_b"))
    return say(n > 0 and not bad, f"path_a/path_b's {n} own samples have a caller exactly when "
               f"at their first instruction, before LR is pushed ({len(bad)} otherwise)")


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


def truth(out):
    """The bridge's truth (sim/hil/hilbridge.c write_truth)."""
    t = {"edges": {}, "listens": [], "changes": [], "powers": {}}
    with open(os.path.join(out, "truth")) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "edge":
                t["edges"][int(w[1])] = (int(w[2]), int(w[3]), [float(x) for x in w[4:]])
            elif w[0] == "listen":
                t["listens"].append((int(w[1]), int(w[2]), int(w[3])))
            elif w[0] == "change":
                t["changes"].append((int(w[1]), int(w[2])))
            elif w[0] == "power":
                t["powers"][int(w[1])] = float(w[2])
            elif len(w) == 2 and w[1].isdigit():
                t["n_" + w[0]] = int(w[1])
    return t


def phase_of(r):
    """The phase whose code a sample is in: 1 phase_a's, 2 phase_b's, 0 the
    idle phase's (drain, idle); None for code all phases run (the time base)."""
    proc, stack = r["proc"], r["stack"].split(";")
    if int(r["tid"]):
        return None      # a handler (SysTick, the time base's): any phase
    if proc in ("phase_a", "path_a") or (proc == "work" and stack[:1] == ["path_a"]):
        return 1
    if proc in ("phase_b", "path_b") or (proc == "work" and stack[:1] == ["path_b"]):
        return 2
    if proc.startswith("eqcm_now"):
        if "phase_a" in stack:
            return 1
        if "phase_b" in stack:
            return 2
        return None
    return 0


def check_energy(eqprof, out, name, c, rows, shares=True):
    t = truth(out)
    meta = subprocess.run([eqprof, "report", os.path.join(out, name + ".eqp"), "--by", "proc",
                           "--format", "json"], capture_output=True, text=True, check=True).stdout
    first = first_seq(out, name) or 0
    listen = [l for l in t["listens"] if l[1] == 1]
    l0 = listen[0][2] if listen else 0
    n = len(rows)
    start = max(l0, first)
    before = max(0, l0 - first)
    print(f"# {name}: board edges {t.get('n_edges')}, rung from edge {l0} on; "
          f"target's first_seq {first} (edges rung before it started: {max(0, first - l0)}), "
          f"next_seq {c['next_seq']}")
    ok = say(before <= c["merged"],
             f"the {before} edges the board made after the target started and before QEMU's "
             f"qtest connected are the counter's jump at the first edge rung, counted merged "
             f"({c['merged']})")
    ok &= say(n + (c["merged"] - before) + c["dropped"] - c["merged"] == c["next_seq"] - start,
              f"every edge rung to the sampling target is one sample or one counted loss: "
              f"{n} samples + {c['merged'] - before} merged + {c['dropped'] - c['merged']} ring drops "
              f"= {c['next_seq'] - start} edges {start}..{c['next_seq'] - 1}")
    # samples by edge: the board's quantum number is the sample's seq
    bys = {}
    for r in rows:
        bys[int(r["seq"])] = r
    ok &= say(len(bys) == n and all(start <= q < c["next_seq"] and q in t["edges"] for q in bys),
              "each sample's seq names one edge the bridge made, no two the same")
    ok &= check_merge(eqprof, out, name, before, first, c["next_seq"])
    if not shares:
        return ok
    # the code each sample is in against the phase the guest was in at its edge
    change_edges = []
    prev = None
    for q in sorted(t["edges"]):
        ph = t["edges"][q][1]
        if prev is not None and ph != prev:
            change_edges.append(q)
        prev = ph
    near = set()
    for q in change_edges:
        near.update(range(q - 2, q + 3))
    mism = [q for q, r in bys.items() if phase_of(r) is not None and phase_of(r) != t["edges"][q][1]]
    far = [q for q in mism if q not in near]
    # A lockstep edge the guest did not take within the bridge's timeout
    # (a loaded host) is rung anyway (truth: ring_timeouts), and the board
    # then runs on while the guest lags: its phase at the next edges need
    # not be the guest's.  One sample far from a change is allowed per
    # timeout (the truth does not say which edges timed out); seen once in
    # make check beside a timing run: 2 timeouts, 1 sample 10 edges off.
    slack = t.get("n_ring_timeouts", 0)
    ok &= say(len(far) <= slack, f"every sample's pc is in the code of the phase running at its edge "
              f"({len(mism)} differ, all within 2 edges of one of the {len(change_edges)} phase "
              f"changes: {len(far)} farther{', seq ' + str(far[:5]) if far else ''}; "
              f"{slack} allowed, one per edge the bridge rang after its lockstep timeout)")
    # energy shares against the truth's energy per phase over the samples' edges
    lo, hi = min(bys), max(bys)
    e_lo, e_hi = t["edges"][lo][2], t["edges"][hi][2]
    de = [b - a for a, b in zip(e_lo, e_hi)]
    total = sum(de)
    amb = sum(1 for r in rows if phase_of(r) is None)
    nch = sum(1 for q in change_edges if lo <= q <= hi)
    for p in (1, 2):
        q = de[p] / total
        k = sum(1 for r in rows if phase_of(r) == p)
        # samples whose code is not their edge's phase (counted above, against
        # the bridge's record) may belong to either side of the change
        out_p = sum(1 for q2 in mism if phase_of(bys[q2]) == p)
        in_p = sum(1 for q2 in mism if t["edges"][q2][1] == p)
        half = Z * math.sqrt(q * (1 - q) / n)
        got_lo, got_hi = (k - out_p) / n, (k + in_p + amb) / n
        ok &= say(got_lo - half <= q <= got_hi + half,
                  f"energy share of phase {p}'s code ({t['powers'][p]} W): {100 * k / n:.2f}% "
                  f"({100 * got_lo:.2f}..{100 * got_hi:.2f}% with the samples at phase changes "
                  f"and in shared code), truth {100 * q:.2f}% (+-{100 * half:.2f}%, z {Z})")
    ok &= say('"proc": "phase_a"' in meta or '"phase_a"' in meta,
              "report --format json names the phases' functions")
    return ok


def check_merge(eqprof, out, name, before, first, end):
    """eqprof merge of the recording with the board's log (board.eqp): the
    samples' seq are the board's quantum numbers (the bridge writes them
    into the edge counter, and the application says so: seq_numbers=board),
    so merge pairs them by number, whatever the two clocks did (QEMU's
    virtual clock while the bridge holds the board in lockstep has nothing
    to do with simavr's).  Its cross-check against the bridge's own
    account: the interrupts it says the board raised between the first and
    the last sample, with the losses it finds outside them, are every edge
    from the target's first seq to its next_seq (the application's own
    counters), the edges made before QEMU's qtest connected (before, from
    the truth's listen line) among those losses.  Before merge read the header's
    line it refused: "no stretch of the board's log matches"."""
    merged = os.path.join(out, name + "-merged.eqp")
    r = subprocess.run([eqprof, "merge", os.path.join(out, name + ".eqp"),
                        os.path.join(out, "board.eqp"), "-o", merged],
                       capture_output=True, text=True)
    msg = r.stdout + r.stderr
    for line in msg.splitlines():
        print("# " + line)
    ok = say(r.returncode == 0 and "cannot match" not in msg and
             "numbered its samples with the board's quanta" in msg,
             "eqprof merge with the board's log pairs the samples with the board's records by "
             "their numbers (seq_numbers=board)")
    raised = None
    for line in msg.splitlines():
        if "board: raised " in line and "balanced" in line:
            raised = int(line.split("board: raised ")[1].split()[0])
    outside = 0
    for line in msg.splitlines():
        if "counted" in line and "lost before its first" in line:
            outside = int(line.split("also counted ")[1].split()[0])
    ok &= say(raised is not None and raised + outside == end - first and outside >= before,
              f"merge's cross-check is balanced: the board raised {raised} interrupts between the "
              f"first and the last sample, and with the {outside} losses the target counted "
              f"outside them (the {before} edges made before QEMU connected among them) that is "
              f"every edge from the target's first seq {first} to its next {end}")
    with open(merged, "rb") as f:
        head = f.read(1 << 16)
    ok &= say(b"board_align=ok" in head and b"board_crosscheck_unaccounted=0\n" in head,
              "the merged recording's header holds the alignment, nothing unaccounted")
    return ok


def main():
    kind, out, name = sys.argv[1], sys.argv[2], sys.argv[3]
    eqprof = os.environ.get("EQPROF", "eqprof")
    c = counts(out, name)
    rows = samples(eqprof, out, name)
    print(f"# {name}: {record_line(out, name)}")
    print(f"# {name}: application: " + ", ".join(f"{k} {v}" for k, v in c.items()))
    check_accounting(c, rows, lost_of(eqprof, out, name), first_seq(out, name))
    check_symbols(rows)
    if kind == "time":
        check_shares(c, rows)
        check_lr_rule(rows, elf_of(out, name))
        check_handler(rows, True)
    elif kind == "prio-low":
        say(c["calls_h"] > 0, f"the handler ran ({c['calls_h']} calls of work)")
        check_handler(rows, False)
    elif kind == "energy":
        check_energy(eqprof, out, name, c, rows)
    elif kind == "energy-acct":
        check_energy(eqprof, out, name, c, rows, shares=False)
    elif kind == "stall":
        say(c["dropped"] > 0, f"the stalled drain made the ring overflow ({c['dropped']} dropped)")


main()
