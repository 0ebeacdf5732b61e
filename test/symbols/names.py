#!/usr/bin/env python3
"""names.py - symbol names as a perf user reads them, on real programs built
and run here, each sampled by eqprof and perf in the same run (perfcmp.py:
the file's false-failure rate is below 1e-4):

- C++ (cxx.cc): demangled, as c++filt prints the mangled names nm finds;
- the kernel's vdso (vdso.c, a clock_gettime loop): __vdso_clock_gettime,
  from the symbols the recorder embeds, not [unknown];
- PLT stubs (plt.c): plt_target@plt;
- a JIT's /tmp/perf-PID.map (jit.c writes one): jit_spin, still named after
  the map file is gone; without a map, a warning that says so and does not
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
from perfcmp import HERE, Sampled, build, eqprof, run, start  # noqa: E402

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
        t = s.truth()
        add = [k for k in procs if k.startswith("geometry::Accumulator<long>::add")]
        n = sum(procs.values())
        cmp.truth("C++: Accumulator<long>::add at its measured share", procs.get(add[0], 0) if add else 0,
                  n, t["add"] / (t["add"] + t["scale"]), 0.03)
        if use_perf:
            # perf report prints C++ names without their parameters
            pf = s.perf_counts(lambda x: x["sym"])
            for k in sorted(want):
                short = re.sub(r"\(.*\)$", "", k)
                cmp.share("C++: %s as perf" % short, procs.get(k, 0), n, pf.get(short, 0) + pf.get(k, 0),
                          sum(pf.values()))

        # -- vdso --------------------------------------------------------------
        vdso = build(work, "vdso", "vdso.c")
        s = Sampled(work, "vdso", [vdso, str(MS)], use_perf)
        procs, mods = s.report("proc")
        n = sum(procs.values())
        vd = [k for k in procs if mods[k] == "[vdso]" and k != "[unknown]"]
        tap.ok(vd and procs[vd[0]] > 0.3 * n,
               "vdso: named from the recorded vdso image (%s)" % vd, procs)
        if use_perf:
            pf = s.perf_counts(lambda x: (x["dso"], x["sym"]))
            for k in vd:
                cmp.share("vdso: %s as perf" % k, procs[k], n, pf.get(("[vdso]", k), 0),
                          sum(pf.values()))

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
        cmp.truth("JIT: jit_spin at its measured share", procs.get("jit_spin", 0), n,
                  1.0, 0.05)
        if use_perf:
            pf = s.perf_counts(lambda x: x["sym"])
            cmp.share("JIT: jit_spin as perf", procs.get("jit_spin", 0), n, pf.get("jit_spin", 0),
                      sum(pf.values()))
        if os.path.exists(mapfile):
            os.unlink(mapfile)
        procs, _ = s.report("proc")
        tap.ok(procs.get("jit_spin", 0) > 0.5 * n,
               "JIT: still named with the map file gone (the recording holds it)", procs)
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
        rc, out, err = eqprof("report", s.eqp)
        bid = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", stripped]).stdout).group(1)
        debug = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:])
        head = [l for l in out.splitlines() if l.startswith("#")]
        tap.ok(any("have no symbol" in l for l in head) and
               any(stripped in l and "stripped" in l and debug in l for l in head),
               "stripped: the header says how many samples, in which module, and where the "
               "debug file was looked for", "\n".join(head))
        rc, out, err = eqprof("report", s.eqp, "--format", "json")
        j = json.loads(out)
        # no symbol, but never one [unknown] row: each function by its CFI
        region = re.compile(r"^plt-stripped\+0x[0-9a-f]+( \[near [^]]+\])?$")
        unknown = sum(r["samples"] for r in j["rows"] if region.match(r["name"]))
        tap.ok(j["unresolved_samples"] == unknown and j["unresolved"][0]["module"] == stripped and
               not any(r["name"] == "[unknown]" for r in j["rows"]),
               "stripped: JSON unresolved_samples counts the rows named by function start (%d)" % unknown,
               json.dumps(j["unresolved"]) + json.dumps(j["rows"][:4]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done()


main()
