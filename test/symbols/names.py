#!/usr/bin/env python3
"""names.py - symbol names as a perf user reads them, on real programs built
and run here, each sampled by eqprof and perf in the same run (perfcmp.py:
the file's false-failure rate is below 1e-4):

- C++ (cxx.cc): demangled, as c++filt prints the mangled names nm finds;
- the kernel's vdso (vdso.c, a clock_gettime loop): named from the image
  the recorder embeds, __vdso_clock_gettime, and code outside its symbols
  by its function's start ("[vdso]+0x780"), as readelf reads this
  kernel's vdso; its share as perf's;
- PLT stubs (plt.c): plt_target@plt;
- a JIT's /tmp/perf-PID.map (jit.c writes one): jit_spin at perf's share,
  still named after the map file is gone; without a map, a warning that says so and does not
  send the user to --symfs;
- glibc's aliases (alloc.c): malloc and free, not __GI___libc_malloc or
  cfree@GLIBC_2.2.5;
- a stripped binary: the report's header says how many samples have no
  symbol, in which module, and where the debug file was looked for.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import Elf  # noqa: E402
from perfcmp import (HERE, Sampled, build, check_names, eqprof, perf_keys, run, start,  # noqa: E402
                     top_keys, vdso_image)

MS = 120 if os.environ.get("SAN") else 300


def main():
    tap, cmp, work, use_perf = start("symbols-names-")
    try:
        # -- C++ ---------------------------------------------------------------
        cxx = build(work, "cxx", "cxx.cc", compiler="g++")
        s = Sampled(work, "cxx", [cxx, str(MS)], use_perf)
        procs, _ = s.report("proc")
        mangled = [l.split()[-1] for l in run(["nm", cxx]).stdout.splitlines()
                   if re.search(r"_ZN8geometry", l)]
        want = set(run(["c++filt"] + mangled).stdout.split("\n")) - {""}
        tap.ok(want and want <= set(procs), "C++: demangled as c++filt prints them (%s)" % sorted(want),
               sorted(procs))
        n = sum(procs.values())
        # each function's share against perf's of the same run (the
        # workload's own CPU-time clock does not count what a cpu-clock
        # profiler samples, e.g. interrupt work charged to the task)
        if use_perf:
            # perf report prints C++ names without their parameters
            pf = s.perf_counts(lambda x: x["sym"])
            for k in sorted(want):
                short = re.sub(r"\(.*\)$", "", k)
                cmp.share("C++: %s as perf" % short, procs.get(k, 0), n, pf.get(short, 0) + pf.get(k, 0),
                          sum(pf.values()))

        # -- vdso --------------------------------------------------------------
        # Names from the recorded vdso image: every sample checked against
        # readelf's symbols and FDEs of this kernel's vdso (this process's
        # own copy: the kernel maps one image into every process), an exact
        # check independent of eqprof's ELF code; code outside every symbol
        # (kernel 6.18's pvclock reader, with the kvm-clock clocksource) is
        # "[vdso]+0xSTART".  How many samples land in the vdso depends on
        # the machine's clocksource and the vdso's code: the share is held
        # to perf's of the same run, never to a fixed fraction.
        vdso = build(work, "vdso", "vdso.c")
        s = Sampled(work, "vdso", [vdso, str(MS)], use_perf)
        proc_rows, insn_rows = s.rows("proc"), s.rows("insn")
        image = os.path.join(work, "vdso.so")
        if vdso_image(image) is None:
            tap.ok(True, "# SKIP vdso: this kernel maps none")
        else:
            elf = Elf(image)
            got = check_names(tap, "vdso", elf, "[vdso]", insn_rows, proc_rows)
            n = sum(r[2] for r in proc_rows)
            if use_perf:
                perf = s.perf_by_sym()
                pk = perf_keys(elf, "[vdso]", perf)
                pn = sum(perf.values())
                cmp.share("vdso: all its samples as perf's in [vdso]", sum(got.values()), n,
                          sum(pk.values()), pn)
                for k in top_keys(got, pk, share=0.03):
                    cmp.share("vdso: %s as perf (its addresses in readelf's FDEs)" % k, got.get(k, 0), n,
                              pk.get(k, 0), pn)
            else:
                tap.ok(True, "# SKIP vdso shares: perf is the reference and cannot run here")

        # -- PLT ---------------------------------------------------------------
        lib = os.path.join(work, "libplt.so")
        run(["cc", "-O1", "-g", "-fPIC", "-shared", "-DLIB", "-I", HERE, "-o", lib,
             os.path.join(HERE, "plt.c")])
        plt = build(work, "plt", "plt.c", "-L", work, "-lplt", "-Wl,-rpath," + work)
        s = Sampled(work, "plt", [plt, str(MS)], use_perf)
        procs, mods = s.report("proc")
        n = sum(procs.values())
        tap.ok(procs.get("plt_target@plt", 0) > 0 and mods.get("plt_target@plt") == "plt",
               "PLT: the stub is plt_target@plt in the program", procs)
        if use_perf:
            cmp.functions("PLT", s, procs, ("plt_target@plt", "plt_loop", "plt_target"))

        # -- JIT map -----------------------------------------------------------
        jit = build(work, "jit", "jit.c")
        s = Sampled(work, "jit", [jit, str(MS)], use_perf)
        procs, mods = s.report("proc")
        n = sum(procs.values())
        pid = [k.split(":")[0] for k in s.report("pid")[0]][0]
        mapfile = "/tmp/perf-%s.map" % pid
        tap.ok(mods.get("jit_spin") == "perf-%s.map" % pid,
               "JIT: jit_spin named from /tmp/perf-PID.map", mods)
        # jit_spin's share against perf's of the same run, never "100%":
        # the loop around it (clock reads, the kernel's interrupt work)
        # takes a share that depends on the machine
        if use_perf:
            pf = s.perf_counts(lambda x: x["sym"])
            cmp.share("JIT: jit_spin as perf", procs.get("jit_spin", 0), n, pf.get("jit_spin", 0),
                      sum(pf.values()))
        else:
            tap.ok(True, "# SKIP JIT share: perf is the reference and cannot run here")
        if os.path.exists(mapfile):
            os.unlink(mapfile)
        before = procs.get("jit_spin", 0)
        procs, _ = s.report("proc")
        # the same recording reported again: exactly the same samples
        tap.ok(before > 0 and procs.get("jit_spin", 0) == before,
               "JIT: still named with the map file gone (the recording holds it): %d samples as "
               "before" % before, procs)
        s = Sampled(work, "nomap", [jit, str(MS / 3), "nomap"], False)
        err = s.warnings()[1]
        tap.ok("perf-PID.map" in err and "--symfs" not in err,
               "JIT without a map: the warning says so, and not --symfs", err)

        # -- aliases -----------------------------------------------------------
        alloc = build(work, "alloc", "alloc.c")
        s = Sampled(work, "alloc", [alloc, str(MS)], use_perf)
        procs, mods = s.report("proc")
        n = sum(procs.values())
        libc = {k for k in procs if "libc" in mods[k]}
        tap.ok("malloc" in libc and "free" in libc and not any(k.startswith("__GI_") for k in libc),
               "aliases: malloc and free by their public names", sorted(libc))
        if use_perf:
            frees = ("free", "cfree", "cfree@GLIBC_2.2.5", "__libc_free", "__free")
            mallocs = ("malloc", "__libc_malloc", "__GI___libc_malloc", "__malloc")
            pf = s.perf_counts(lambda x: "free" if x["sym"] in frees else
                               "malloc" if x["sym"] in mallocs else x["sym"])
            for k in ("malloc", "free"):
                cmp.share("aliases: %s as perf (under any of its names)" % k, procs.get(k, 0), n,
                          pf.get(k, 0), sum(pf.values()))

        # -- a stripped binary -------------------------------------------------
        stripped = os.path.join(work, "plt-stripped")
        run(["strip", "-o", stripped, plt])
        s = Sampled(work, "stripped", [stripped, str(MS / 3)], False)
        rc, out, err = eqprof("report", s.eqp, "-v")  # -v: why, with the debug file's path
        bid = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", stripped]).stdout).group(1)
        debug = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:])
        head = [l for l in out.splitlines() if l.startswith("#")]
        tap.ok(any("have no symbol" in l for l in head) and
               any(stripped in l and "stripped" in l and debug in l for l in head),
               "stripped: the header says how many samples, in which module, and where the "
               "debug file was looked for", "\n".join(head))
        rc, out, err = eqprof("report", s.eqp, "--format", "json")
        j = json.loads(out)
        # no symbol, but never one [unknown] row: each function by its CFI.
        # Every module's unresolved samples (the program's; and the vdso's
        # where code outside its symbols ran) are exactly its rows named by
        # a function's start: the same samples counted two ways.
        region = re.compile(r"^\S+\+0x[0-9a-f]+( \[256-byte block\])?$")
        by_mod = {}
        for r in j["rows"]:
            if region.match(r["name"]):
                by_mod[r["module"]] = by_mod.get(r["module"], 0) + r["samples"]
        unres = {os.path.basename(u["module"]): u["samples"] for u in j["unresolved"]}
        tap.ok(unres == by_mod and j["unresolved_samples"] == sum(by_mod.values()) and
               by_mod.get("plt-stripped", 0) > 0 and
               not any(r["name"] == "[unknown]" for r in j["rows"]),
               "stripped: JSON unresolved_samples counts the rows named by function start, module by "
               "module (%s)" % by_mod, json.dumps(j["unresolved"]) + json.dumps(j["rows"][:4]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done()


main()
