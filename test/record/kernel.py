#!/usr/bin/env python3
"""kernel.py - kernel samples of a command's run, when the user may see them.

test/fixtures/syszero.c spends nearly all its time in the kernel (read(2)
of 64 KiB of /dev/zero against a few user instructions a call), so a
profile that includes the kernel has most of its samples there, named
through /proc/kallsyms, on any CPU.  As root (or at perf_event_paranoid
1 or lower) record includes them; --all-user and a user the kernel refuses
(nobody at perf_event_paranoid 2, when the test runs as root) exclude them,
and the report's header says so and why, in one line.  With --call-graph
dwarf a kernel sample's stack runs from the kernel function through the
syscall entry into main(): kernel frames from the kernel's own walk, user
frames unwound from the stack copy.  A kernel module's pcs are named with
the module ("[fakemod]"), from its own table.
"""
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, SRC, Tap, eqprof, run  # noqa: E402

KMOD = "[kernel.kallsyms]"


def paranoid():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read().split()[0])


def flat(rec):
    rc, out, err = eqprof("report", rec, "--no-children", "--format", "json")
    if rc != 0:
        return None, err
    return json.loads(out), err


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eqprof-kernel-")
    os.chmod(d, 0o755)
    prog = os.path.join(d, "syszero")
    run(["cc", "-O2", "-g", "-o", prog, os.path.join(SRC, "test", "fixtures", "syszero.c")])
    root = os.geteuid() == 0
    allowed = root or paranoid() <= 1

    rec = os.path.join(d, "k.eqp")
    rc, _, err = eqprof("record", "-t", "4kHz", "-q", "-o", rec, "--", prog, "40000")
    doc, rerr = flat(rec)
    rows = doc["rows"] if doc else []
    total = doc["total_samples"] if doc else 0
    kern = sum(r["samples"] for r in rows if r["module"] == KMOD)
    named = sum(r["samples"] for r in rows if r["module"] == KMOD and r["name"] != "[unknown]")
    _, table, _ = eqprof("report", rec, "--no-children")
    if allowed:
        t.ok(rc == 0 and total >= 100 and kern > 0.5 * total,
             "kernel samples are recorded when permitted: most of a read-heavy run", (err, rerr, kern, total))
        t.ok(kern and named >= 0.9 * kern, "kernel samples are named through /proc/kallsyms", (named, kern, rows[:5]))
        t.ok("# note:" not in table, "no exclusion note when the kernel was recorded", table[:400])
    else:
        t.ok(rc == 0 and kern == 0 and "perf_event_paranoid is %d" % paranoid() in table,
             "# SKIP not permitted here: no kernel samples, and the header says why", table[:400])
        t.ok(True, "# SKIP kernel symbols: kernel samples not permitted here")
        t.ok(True, "# SKIP kernel samples not permitted here")

    # --all-user: excluded, and said
    rec_u = os.path.join(d, "u.eqp")
    rc, _, err = eqprof("record", "--all-user", "-t", "4kHz", "-q", "-o", rec_u, "--", prog, "40000")
    doc, _ = flat(rec_u)
    _, table, _ = eqprof("report", rec_u)
    t.ok(rc == 0 and doc and not any(r["module"] == KMOD for r in doc["rows"]) and
         "# note: kernel samples excluded: recorded with --all-user" in table,
         "--all-user: no kernel samples, and the header says why", (err, table[:400]))

    # a user the kernel refuses (root testing as nobody at paranoid >= 2)
    if root and paranoid() >= 2 and shutil.which("setpriv"):
        nobody = pwd.getpwnam("nobody")
        rec_n = os.path.join(d, "n.eqp")
        os.chmod(d, 0o777)
        p = subprocess.run(["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
                            "--clear-groups", EQPROF, "record", "-t", "4kHz", "-o", rec_n, "--", prog, "40000"],
                           capture_output=True, text=True)
        doc, _ = flat(rec_n)
        _, table, _ = eqprof("report", rec_n)
        want = "kernel samples excluded: /proc/sys/kernel/perf_event_paranoid is %d" % paranoid()
        t.ok(p.returncode == 0 and doc and not any(r["module"] == KMOD for r in doc["rows"]) and
             want in table and want in p.stderr,
             "a user the kernel refuses kernel samples: none recorded; record and the report header say why",
             (p.returncode, p.stderr, table[:500]))
    else:
        t.ok(True, "# SKIP not root, or perf_event_paranoid below 2: no refused user to try")

    # dwarf: kernel frames and unwound user frames in one stack
    if allowed:
        rec_d = os.path.join(d, "d.eqp")
        rc, _, err = eqprof("record", "--call-graph", "dwarf", "-t", "4kHz", "-q", "-o", rec_d, "--", prog, "40000")
        rc2, out, err2 = eqprof("report", rec_d, "--format", "json")
        cg = json.loads(out) if rc2 == 0 else {"rows": []}
        by = {(r["name"], r["module"]): r for r in cg["rows"]}
        kself = sum(r["self_samples"] for r in cg["rows"] if r["module"] == KMOD)
        main_kids = by.get(("main", "syszero"), {}).get("children_samples", 0)
        entry = max([r["children_samples"] for r in cg["rows"]
                     if r["module"] == KMOD and r["name"].startswith("entry_SYSCALL")] or [0])
        t.ok(rc == 0 and kself > 0.5 * cg.get("total_samples", 1) and main_kids >= 0.95 * cg.get("total_samples", 1)
             and entry >= 0.9 * kself,
             "--call-graph dwarf: kernel samples' stacks run from the syscall entry up into main()",
             (err, err2, kself, main_kids, entry, cg.get("total_samples")))
    else:
        t.ok(True, "# SKIP kernel samples not permitted here")

    # a kernel module's pcs are named with the module (tables as record writes them)
    ks = os.path.join(d, "kallsyms")
    ms = os.path.join(d, "fakemod.syms")
    with open(ks, "w") as f:
        f.write("ffffffff81000000 T _stext\nffffffff81001000 T core_fn\nffffffff81002000 T _etext\n")
    with open(ms, "w") as f:
        f.write("ffffffffc0400000 t fake_init\t[fakemod]\nffffffffc0400100 t fake_work\t[fakemod]\n")
    csv = os.path.join(d, "s.csv")
    with open(csv, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i in range(30):
            pc = 0xffffffff81001010 if i < 10 else 0xffffffffc0400110
            f.write("%d,0x%x,7,7,0,1\n" % (i * 1000, pc))
    imp = os.path.join(d, "imp.eqp")
    rc, _, err = eqprof("import", "--samples", csv, "--kallsyms", ks, "--symtab", "[fakemod]=" + ms,
                        "--time", "1kHz", "-o", imp)
    doc, rerr = flat(imp)
    got = sorted((r["module"], r["name"], r["samples"]) for r in doc["rows"]) if doc else []
    t.ok(rc == 0 and got == [("[fakemod]", "fake_work", 20), (KMOD, "core_fn", 10)],
         "kernel module pcs are named with the module and its symbol", (err, rerr, got))
    shutil.rmtree(d)
    t.done()


main()
