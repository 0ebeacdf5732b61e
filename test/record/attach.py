#!/usr/bin/env python3
"""attach.py - record -p PID (attach to a running process), -p A,B (several,
as perf takes them) and -a through perf when the eqprof module is absent.

test/fixtures/callers_mt.c, already running, is attached to: every thread
it has, a thread it starts after the attach ("late"), nothing of other
processes.  b's inclusive share of a+b is held to perf's over the same
threads at the same time (perf record -p --call-graph dwarf attached
around eqprof's attach: test/symbols/perfcmp.py, Z = 4.9, about 1e-6
each, two in the file), not to the iteration counts' 3/4 (how long an
iteration takes in each thread on a shared machine is the machine's);
where perf cannot run that is skipped, saying so.  The process outlives the recording; Ctrl-C
ends an attach with a complete file and status 0; a process that exits
ends the recording.  -p A,B records every thread of both (b's share as
perf's, attached to both) and nothing of a third, and ends when the last
of them exits.  -a --duration records every process (root or
perf_event_paranoid <= 0).  Bad values of -p are refused, naming them.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, SRC, eqprof, run  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "symbols"))
from perfcmp import Sampled, start as perf_start  # noqa: E402

class PerfAttached:
    """perf record -p PIDS --call-graph dwarf, attached from before eqprof's
    attach until after it ends: perf's own timer sampling the same threads
    over the same stretch (the workload repeats its rounds of a() and b()
    hundreds of times a second, so the few milliseconds perf runs longer at
    either end change no share beyond the comparison's slack)."""

    def __init__(self, work, name, pids, use_perf):
        self.s = None
        if not use_perf:
            return
        self.s = Sampled.__new__(Sampled)   # its perf_stacks() reads self.perf
        self.s.perf = os.path.join(work, name + ".perf")
        self.p = subprocess.Popen(["perf", "record", "-q", "-m", "64", "-e", "cpu-clock:u", "-c", "500000",
                                   "--call-graph", "dwarf,4096", "-p", ",".join(str(x) for x in pids),
                                   "-o", self.s.perf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # sampling once its counters are open (a loaded machine takes
        # seconds to start perf)
        for _ in range(1200):
            try:
                if self.p.poll() is not None or any(
                        os.readlink("/proc/%d/fd/%s" % (self.p.pid, fd)) == "anon_inode:[perf_event]"
                        for fd in os.listdir("/proc/%d/fd" % self.p.pid)):
                    break
            except OSError:
                pass
            time.sleep(0.05)

    def compare(self, t, cmp, what, rows):
        if self.s is None:
            t.ok(True, "# SKIP %s: perf (the reference) cannot run here" % what)
            return
        self.p.send_signal(signal.SIGINT)
        self.p.communicate(timeout=120)
        pst = [[f for _, f in reversed(fr)] for comm, fr in self.s.perf_stacks()]
        pa = sum(1 for fr in pst if "leaf" in fr and "a" in fr)
        pb = sum(1 for fr in pst if "leaf" in fr and "b" in fr)
        ka = rows.get("a", {}).get("children_samples", 0)
        kb = rows.get("b", {}).get("children_samples", 0)
        cmp.share(what, kb, ka + kb, pb, pa + pb)


def start(prog, *args):
    p = subprocess.Popen([prog] + [str(a) for a in args], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("ready "), line
    return p


def json_report(rec, *args):
    rc, out, err = eqprof("report", rec, "--format", "json", *args)
    return (json.loads(out) if rc == 0 else {"rows": []}), err


def main():
    t, cmp, d, use_perf = perf_start("eqprof-attach-")
    prog = os.path.join(d, "mt")
    run(["cc", "-O2", "-g", "-fomit-frame-pointer", "-o", prog,
         os.path.join(SRC, "test", "fixtures", "callers_mt.c"), "-lpthread"])

    # attach for a duration: all threads, a late one, the ratio
    p = start(prog, 1000000, 0, 2, 0, 300)
    try:
        rec = os.path.join(d, "p.eqp")
        pa = PerfAttached(d, "p", [p.pid], use_perf)
        rc, _, err = eqprof("record", "-p", p.pid, "--call-graph", "dwarf", "--all-user", "-t", "2kHz",
                            "--duration", "1.5s", "-q", "-o", rec)
        alive = p.poll() is None
        t.ok(rc == 0 and alive, "record -p PID --duration: status 0, and the process keeps running", err)
        doc, err = json_report(rec)
        rows = {r["name"]: r for r in doc["rows"]}
        pa.compare(t, cmp, "attached: b()'s share of a+b as perf's, attached to the same threads", rows)
        thr, _ = json_report(rec, "--no-children", "--by", "thread")
        names = sorted(r["name"].split(":", 1)[1] for r in thr["rows"])
        pids = {r["module"].split(":")[0] for r in thr["rows"]}
        t.ok(names == ["late", "mt", "worker"] and pids == {str(p.pid)},
             "attached: the threads it had (mt, worker) and the one it made after (late), no other process",
             (names, pids))
        # Ctrl-C ends an attach without a duration: complete file, status 0
        rec2 = os.path.join(d, "int.eqp")
        r = subprocess.Popen([EQPROF, "record", "-p", str(p.pid), "-q", "-o", rec2],
                             stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        r.send_signal(signal.SIGINT)
        _, err = r.communicate(timeout=60)
        rc2, out, err2 = eqprof("report", rec2, "--no-children")
        t.ok(r.returncode == 0 and os.path.exists(rec2) and rc2 == 0 and "unfinished" not in err2 and
             p.poll() is None, "Ctrl-C ends record -p: status 0, a finished recording, the process untouched",
             (r.returncode, err, err2))
    finally:
        p.kill()
        p.wait()

    # the process exits: the recording ends with it.  The processes run until
    # killed, and are killed only once the recorder has opened its counters
    # (a perf_event descriptor in /proc/PID/fd) and had a second to read
    # their maps: a process that finishes on its own may finish before the
    # recorder attaches on a loaded machine.
    def attached(r):
        for _ in range(600):
            if r.poll() is not None:
                return False
            try:
                if any(os.readlink("/proc/%d/fd/%s" % (r.pid, fd)) == "anon_inode:[perf_event]"
                       for fd in os.listdir("/proc/%d/fd" % r.pid)):
                    time.sleep(1.0)
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    p = start(prog, 1000000, 0, 1, 0)
    rec3 = os.path.join(d, "exit.eqp")
    r = subprocess.Popen([EQPROF, "record", "-p", str(p.pid), "-q", "-o", rec3], stderr=subprocess.PIPE, text=True)
    ok = attached(r)
    p.kill()
    _, err = r.communicate(timeout=60)
    p.wait()
    doc, _ = json_report(rec3, "--no-children")
    t.ok(ok and r.returncode == 0 and doc.get("total_samples", 0) > 0, "record -p ends when the process exits",
         (ok, r.returncode, err))
    # -p A,B ends when both have exited, not at the first
    p1, p2 = start(prog, 1000000, 0, 1, 0), start(prog, 1000000, 0, 1, 0)
    r = subprocess.Popen([EQPROF, "record", "-p", "%d,%d" % (p1.pid, p2.pid), "-q", "-o", rec3],
                         stderr=subprocess.PIPE, text=True)
    ok = attached(r)
    p1.kill()
    p1.wait()
    time.sleep(1.0)
    after_first = r.poll()       # None: still recording B
    p2.kill()
    _, err = r.communicate(timeout=60)
    p2.wait()
    t.ok(ok and after_first is None and r.returncode == 0,
         "record -p A,B goes on when A exits and ends when B exits too", (ok, after_first, r.returncode, err))

    # -p A,B (perf's list): two processes with their threads, nothing else
    p1, p2, other = start(prog, 1000000, 0, 2, 0), start(prog, 1000000, 0, 1, 0), start(prog, 1000000, 0, 1, 0)
    try:
        recl = os.path.join(d, "list.eqp")
        pl = PerfAttached(d, "list", [p1.pid, p2.pid], use_perf)
        rc, _, err = eqprof("record", "-p", "%d,%d" % (p1.pid, p2.pid), "--call-graph", "dwarf", "--all-user",
                            "-t", "2kHz", "--duration", "1.5s", "-q", "-o", recl)
        t.ok(rc == 0 and p1.poll() is None and p2.poll() is None,
             "record -p A,B --duration: status 0, both keep running", err)
        thr, _ = json_report(recl, "--no-children", "--by", "thread")
        seen = sorted((r["module"].split(":")[0], r["name"].split(":", 1)[1]) for r in thr["rows"])
        t.ok(seen == sorted([(str(p1.pid), "mt"), (str(p1.pid), "worker"), (str(p2.pid), "mt")]),
             "-p A,B: every thread of both processes, no other process", (seen, other.pid))
        doc, err = json_report(recl)
        rows = {r["name"]: r for r in doc["rows"]}
        pl.compare(t, cmp, "-p A,B: the callers are unwound in both: b()'s share of a+b as perf's", rows)
        with open(recl, "rb") as f:
            hdr = f.read(65536)
        t.ok(b"attach=%d,%d\n" % (p1.pid, p2.pid) in hdr, "the header names both processes (attach=A,B)")
        recx = os.path.join(d, "twice.eqp")
        rc, _, err = eqprof("record", "-p", "%d,%d" % (p1.pid, p1.pid), "-q", "-o", recx)
        t.ok(rc == 2 and "given twice" in err and not os.path.exists(recx), "-p A,A is refused", err)
    finally:
        for pp in (p1, p2, other):
            pp.kill()
            pp.wait()

    # bad input
    out = os.path.join(d, "bad.eqp")
    dead = subprocess.Popen(["true"])
    dead.wait()
    for argv, want in ((["-p", "abc"], "-p abc: not a process id"),
                       (["-p", "0"], "-p 0: not a process id"),
                       (["-p", "%d,abc" % os.getpid()], "-p %d,abc: not a process id" % os.getpid()),
                       (["-p", "%d," % os.getpid()], "not a process id"),
                       (["-p", ",%d" % os.getpid()], "not a process id"),
                       (["-p", "%d,%d" % (os.getpid(), dead.pid)], "no such process %d" % dead.pid),
                       (["-p", str(dead.pid)], "-p %d: no such process" % dead.pid),
                       (["-p", str(os.getpid()), "-a"], "give one of -p and -a"),
                       (["-p", str(os.getpid()), "-e"], "-p: energy-driven"),
                       (["-p"], "-p -o: not a process id")):
        rc, _, err = eqprof("record", *argv, "-o", out)
        t.ok(rc == 2 and want in err and not os.path.exists(out), "record %s is refused: %s" % (" ".join(argv), want),
             (rc, err))

    # -a through perf (no eqprof module here): every process
    if os.path.exists("/dev/eqprof"):
        t.ok(True, "# SKIP the eqprof module is loaded: -a uses it (test/linux covers that)")
    else:
        p = start(prog, 1000000, 0, 1, 0)
        try:
            reca = os.path.join(d, "a.eqp")
            rc, _, err = eqprof("record", "-a", "--duration", "1s", "-q", "-o", reca)
            if rc != 0 and "perf_event_paranoid" in err:
                t.ok(True, "# SKIP -a not permitted here: %s" % err.strip())
            else:
                doc, _ = json_report(reca, "--no-children", "--by", "pid")
                pids = {r["name"].split(":")[0] for r in doc["rows"]}
                rc2, rep, _ = eqprof("report", reca, "--no-children")
                t.ok(rc == 0 and str(p.pid) in pids and len(pids) >= 2,
                     "record -a --duration 1s through perf: every process, the running one among them",
                     (err, sorted(pids)[:10]))
        finally:
            p.kill()
            p.wait()
    shutil.rmtree(d)
    t.done()


main()
