#!/usr/bin/env python3
"""lifecycle.py - processes as perf tracks them, on real workloads run here:

- a C program that forks without exec (forker.c): the child's samples
  resolve through the maps it inherited, under the name it inherited;
- exec in place between two non-PIE programs at the same addresses
  (execer.c), and into Debian's non-PIE python3.11: each sample is named
  from the maps its process had at that moment;
- a thread that names itself (renamer.c): `--by thread` shows it, the
  process keeps its own name;
- Python's multiprocessing.Pool(2) (pool.py) and shell subshells
  (subshells.sh): forked workers, each its own process.

Every workload is sampled by eqprof and perf in the same run (perfcmp.py
explains the bounds: the file's false-failure rate is below 1e-4), and
every share is held to perf's: the workloads' own CPU-time clocks
(CLOCK_THREAD_CPUTIME_ID) do not count what a cpu-clock profiler samples
(interrupt work charged to the task, clock reads between the timed parts),
so they are no reference.  Where perf cannot run, the shares are skipped
with the reason; names, processes and exec boundaries are still checked.
"""
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfcmp import HERE, Sampled, build, start, top_keys  # noqa: E402

# ms of CPU time per timed function: ~1500 samples each at 4 kHz; less under
# the sanitizers (the recorder is what they check; the bounds widen to fit)
MS = 150 if os.environ.get("SAN") else 400


def unknown_sym(name):
    """perf names a pc with no symbol "[unknown]" or by its address."""
    return name == "[unknown]" or re.match(r"^0x[0-9a-f]+$", name) is not None


def skip_shares(tap, what):
    tap.ok(True, "# SKIP %s: shares against perf's of the same run (perf cannot run here)" % what)


def is_et_exec(path):
    try:
        with open(path, "rb") as f:
            hdr = f.read(18)
        return hdr[:4] == b"\x7fELF" and hdr[16] == 2
    except OSError:
        return False


def no_unknown_module(tap, cmp, s, what):
    """Samples in no mapping at all: eqprof's share no more than perf's."""
    mods, _ = s.report("module")
    n = sum(mods.values())
    k = mods.get("[unknown]", 0)
    if s.perf:
        pc = s.perf_counts(lambda x: x["dso"] == "[unknown]")
        cmp.share(what + ": samples in no mapping, as perf", k, n, pc.get(True, 0),
                  sum(pc.values()))
    else:
        skip_shares(tap, what + ": samples in no mapping")


def main():
    tap, cmp, work, use_perf = start("symbols-life-")
    try:
        forker = build(work, "forker", "forker.c")
        before = build(work, "execer-before", "execer.c", "-DBEFORE", "-no-pie", "-fno-pie")
        after = build(work, "execer-after", "execer.c", "-DAFTER", "-no-pie", "-fno-pie")
        renamer = build(work, "renamer", "renamer.c", "-pthread")

        # -- fork without exec (C) --------------------------------------------
        s = Sampled(work, "fork", [forker, str(MS)], use_perf)
        tap.eq(s.status, 0, "forker runs under record" + ("" if s.status == 0 else s.stderr))
        procs, _ = s.report("proc")
        pids, _ = s.report("pid")
        names = sorted(re.sub(r"^\d+:", "", p) for p in pids)
        tap.eq(names, ["forker", "forker"], "fork: the child is its own process, named as its parent")
        if use_perf:
            cmp.functions("fork", s, procs, ("child_work", "parent_work"))
        else:
            skip_shares(tap, "fork")
        no_unknown_module(tap, cmp, s, "fork")

        # -- exec in place: non-PIE over non-PIE ------------------------------
        s = Sampled(work, "exec", [before, str(MS), after, str(MS)], use_perf)
        tap.eq(s.status, 0, "exec: execer-before execs execer-after under record")
        procs, mods = s.report("proc")
        tap.ok(mods.get("before_exec") == "execer-before" and mods.get("after_exec") == "execer-after",
               "exec: each function in its own program", mods)
        pids, _ = s.report("pid")
        names = sorted(re.sub(r"^\d+:", "", p) for p in pids)
        tap.eq(names, ["execer-after", "execer-before"], "exec: one pid, named before and after")
        if use_perf:
            cmp.functions("exec", s, procs, ("before_exec", "after_exec"))
        else:
            skip_shares(tap, "exec")
        no_unknown_module(tap, cmp, s, "exec")

        # -- exec in place of Debian's non-PIE python3.11 ---------------------
        py = os.path.realpath("/usr/bin/python3")
        if not is_et_exec(py):
            tap.ok(True, "exec into python3 # SKIP %s is not a non-PIE executable here" % py)
        else:
            loop = ("import time\nend = time.thread_time() + %g\ns = 0\n"
                    "while time.thread_time() < end:\n    s += sum(i * i for i in range(1000))\n"
                    % (MS / 1000))
            s = Sampled(work, "expy", [before, str(MS), py, "-c", loop], use_perf)
            tap.eq(s.status, 0, "exec: execer-before execs python3 under record")
            procs, mods = s.report("proc")
            n = sum(procs.values())
            tap.ok(procs.get("before_exec", 0) > 0 and mods.get("before_exec") == "execer-before",
                   "exec into python3: before_exec() keeps its name and program", mods.get("before_exec"))
            if use_perf:
                def key(x):
                    return "[unknown]" if unknown_sym(x["sym"]) else x["sym"]
                pf = s.perf_counts(key)
                for fn in top_keys(procs, pf):
                    cmp.share("exec into python3: %s as perf" % fn, procs.get(fn, 0), n,
                              pf.get(fn, 0), sum(pf.values()))
            else:
                skip_shares(tap, "exec into python3")
            no_unknown_module(tap, cmp, s, "exec into python3")

        # -- a library loaded where another was unloaded ----------------------
        for lib in ("a", "b"):
            build(work, "libreload-%s.so" % lib, "reload.c", "-fPIC", "-shared",
                  "-DLIB_" + lib.upper())
        reload = build(work, "reload", "reload.c", "-ldl")
        s = Sampled(work, "reload", [reload, str(MS / 2), work], use_perf)
        tap.eq(s.status, 0, "reload runs under record")
        procs, mods = s.report("proc")
        tap.ok(procs.get("reloaded_work", 0) > 0 and "unloaded_work" not in procs and
               mods.get("reloaded_work") == "libreload-b.so",
               "dlclose then dlopen at the same addresses: the samples are reloaded_work() in "
               "libreload-b.so, none unloaded_work()", (procs, mods))
        if use_perf:
            # its share as perf's, never "100%": the loop around it (clock
            # reads, interrupt work) takes a share that depends on the machine
            cmp.functions("reload", s, procs, ("reloaded_work",))
        else:
            skip_shares(tap, "reload")

        # -- a thread that names itself ---------------------------------------
        s = Sampled(work, "thread", [renamer, str(MS)], use_perf)
        tap.eq(s.status, 0, "renamer runs under record")
        thr, mods = s.report("thread")
        worker = [k for k in thr if k.endswith(":worker-thr")]
        tap.eq(len(worker), 1, "thread: the renamed thread has its own row (%s)" % sorted(thr))
        n = sum(thr.values())
        k = thr.get(worker[0], 0) if worker else 0
        exe, _ = s.report("exe")
        tap.eq(sorted(exe), ["renamer"], "thread: the process keeps its name")
        if use_perf:
            pf = s.perf_counts(lambda x: x["comm"])
            cmp.share("thread: worker-thr as perf's comm", k, n, pf.get("worker-thr", 0),
                      sum(pf.values()))
        else:
            skip_shares(tap, "thread")

        # -- Python multiprocessing.Pool(2) -----------------------------------
        py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        s = Sampled(work, "pool", [py, os.path.join(HERE, "pool.py"), str(MS / 4)], use_perf)
        tap.eq(s.status, 0, "multiprocessing.Pool(2) runs under record")
        pids, _ = s.report("pid")
        tap.ok(len(pids) >= 3 and all(p.split(":", 1)[1].startswith("python") for p in pids),
               "pool: parent and two forked workers, all named python (%s)" % sorted(pids))
        procs, _ = s.report("proc")
        if use_perf:
            n = sum(pids.values())
            pf = s.perf_counts(lambda x: x["pid"])
            for p in sorted(pids, key=pids.get, reverse=True)[:3]:
                pid = p.split(":")[0]
                cmp.share("pool: pid %s (%s) as perf" % (pid, "worker" if pids[p] > n / 5 else "parent"),
                          pids[p], n, pf.get(pid, 0), sum(pf.values()))

            def key(x):
                return "[unknown]" if unknown_sym(x["sym"]) else x["sym"]
            pf = s.perf_counts(key)
            for fn in top_keys(procs, pf, share=0.05):
                cmp.share("pool: %s as perf" % fn, procs.get(fn, 0), sum(procs.values()),
                          pf.get(fn, 0), sum(pf.values()))
        no_unknown_module(tap, cmp, s, "pool")

        # -- shell subshells ---------------------------------------------------
        bash = shutil.which("bash")
        s = Sampled(work, "subshells", [bash, os.path.join(HERE, "subshells.sh"), "60000"], use_perf)
        tap.eq(s.status, 0, "a shell with a background job and a subshell runs under record")
        pids, _ = s.report("pid")
        # the background job and the subshell run the same shell function
        # (the same code of the same bash) for the same count, so each has
        # about half the samples on any machine, the waiting parent few:
        # 20% tells the two workers from the parent with no statistics
        busy = [p for p in pids if pids[p] > 0.2 * sum(pids.values())]
        tap.ok(len(busy) == 2 and all(p.endswith(":bash") for p in busy),
               "subshells: two forked shells do the work, each named bash (%s)" % pids)
        if use_perf:
            n = sum(pids.values())
            pf = s.perf_counts(lambda x: x["pid"])
            for p in busy:
                cmp.share("subshells: pid %s as perf" % p.split(":")[0], pids[p], n,
                          pf.get(p.split(":")[0], 0), sum(pf.values()))
        no_unknown_module(tap, cmp, s, "subshells")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done()


main()
