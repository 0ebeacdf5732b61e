#!/usr/bin/env python3
"""static.py - eqprof-record, the recorder alone (host/record/module.mk).

The x86-64 build records on this machine what `eqprof record` records, and
the full eqprof reports it: the same checks as test/record/dwarf.py on its
--call-graph dwarf recordings of test/fixtures/callers.c (b's share of a+b
as perf's, perf record --call-graph dwarf sampling the same run: Z = 4.9,
about 1e-6 each, two in the file; skipped where perf cannot run) and
clockloop.c (every vdso sample under
main;caller;clock_gettime, exact), and the same chunk kinds in the file as
the full recorder writes for the same command.  All three builds (x86_64,
aarch64, armhf) are static, for their machine, and link none of elfutils,
capstone or the analysis library's symbolizer and profiles (their symbols
are looked for in the unstripped binary); the stripped sizes are printed.
"""
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from eqtest import SRC, run  # noqa: E402
import dwarf  # noqa: E402
import eqpcraft  # noqa: E402
from perfcmp import Sampled, start  # noqa: E402  (dwarf put test/symbols on the path)

B = os.environ.get("B", os.path.join(SRC, "build"))
MACHINES = {"x86_64": 62, "aarch64": 183, "armhf": 40}
# what the recorder must not contain: elfutils, capstone, the symbolizer,
# the profiles, the plots
# (libgcc's own unwinder, in every static program, has dwarf_reg_size_table)
FORBIDDEN = ("dwfl_", "elf_begin", "elf_memory", "dwarf_begin", "dwarf_getcfi", "cs_open", "cs_disasm",
             "eq_sym_", "eq_profile", "eq_unwind", "gnuplot", "eq_annot")


class RecorderPerf(Sampled):
    """perf's stacks of the command, eqprof-record's own left out (its comm
    is not eqprof's, which Sampled leaves out)."""

    def perf_stacks(self):
        return [(comm, fr) for comm, fr in Sampled.perf_stacks(self) if comm != "eqprof-record"]


def chunk_kinds(path):
    """(the chunk types in the file, whether a sample is the kernel's)."""
    d = open(path, "rb").read()
    kinds, kernel = set(), False
    for o, t, _ in eqpcraft.chunk_offsets(d):
        kinds.add(t.decode(errors="replace"))
        if t == b"SAMP":   # (count, reserved), then 32-byte samples, flags at 30
            count = struct.unpack_from("<I", d, o + 16)[0]
            kernel = kernel or any(struct.unpack_from("<H", d, o + 24 + 32 * i + 30)[0] & 1
                                   for i in range(count))
        if t == b"END ":
            break
    return kinds, kernel


def same_kinds(a, b):
    """Whether two recordings of one command hold the same chunk types: the
    kernel's symbols (SYMT) are written for its samples only, and whether
    interrupt work lands in a run as kernel samples is the machine's, so
    SYMT counts only where both runs have kernel samples or neither has."""
    (ka, kern_a), (kb, kern_b) = a, b
    if kern_a != kern_b:
        return ka - {"SYMT"} == kb - {"SYMT"}
    return ka == kb


def main():
    t, cmp, d, use_perf = start("eqprof-static-")
    rec = {a: os.path.join(B, "record", a, "eqprof-record") for a in MACHINES}
    for a, path in rec.items():
        ok = os.path.exists(path)
        h = open(path, "rb").read(20) if ok else b""
        machine = int.from_bytes(h[18:20], "little") if h[:4] == b"\x7fELF" else None
        f = run(["file", "-L", path], check=False).stdout if ok else ""
        t.ok(ok and machine == MACHINES[a] and "statically linked" in f,
             "eqprof-record for %s: a static %s binary of %d bytes (stripped)" % (
                 a, a, os.path.getsize(path) if ok else 0), f)
        syms = run(["nm", path + ".debug"], check=False).stdout if ok else ""
        bad = sorted({s.split()[-1] for s in syms.splitlines() for w in FORBIDDEN if s.split()[-1].startswith(w)})
        t.ok(ok and syms and not bad, "eqprof-record for %s links no elfutils, capstone, symbolizer, profiles or plots" % a,
             bad[:10])

    x = rec["x86_64"]

    def record(*args, perf=()):
        p = subprocess.run([*perf, x, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    prog = os.path.join(d, "callers")
    run(["cc", "-O2", "-g", "-fomit-frame-pointer", "-o", prog, os.path.join(SRC, "test", "fixtures", "callers.c")])
    out = os.path.join(d, "dwarf.eqp")
    # perf record --call-graph dwarf around it: its own timer on the same run
    # (kernel samples where permitted, as eqprof-record takes them)
    perf = None
    if use_perf:
        perf = RecorderPerf.__new__(RecorderPerf)   # its perf_stacks() reads .perf
        perf.perf = os.path.join(d, "dwarf.perf")
        kernel = os.geteuid() == 0 or int(open("/proc/sys/kernel/perf_event_paranoid").read()) <= 1
        rc, _, err = record("--call-graph", "dwarf", "-t", "4kHz", "-q", "-o", out, "--", prog, "2000000", "100",
                            perf=["perf", "record", "-q", "-m", "64", "-e", "cpu-clock" if kernel else "cpu-clock:u",
                                  "-c", "250000", "--call-graph", "dwarf", "-o", perf.perf, "--"])
    else:
        rc, _, err = record("--call-graph", "dwarf", "-t", "4kHz", "-q", "-o", out, "--", prog, "2000000", "100")
        t.ok(True, "# SKIP eqprof-record: b's share of a+b: perf (the reference) cannot run here")
    t.ok(rc == 0, "eqprof-record --call-graph dwarf runs the callers program", err)
    dwarf.check_callers(t, out, "eqprof-record", d=d, perf=perf if rc == 0 else None, cmp=cmp)
    full = os.path.join(d, "full.eqp")
    rc2, _, err2 = dwarf.eqprof("record", "--call-graph", "dwarf", "-t", "4kHz", "-q", "-o", full, "--",
                                prog, "2000000", "100")
    c1, c2 = (chunk_kinds(out), chunk_kinds(full)) if rc == 0 and rc2 == 0 else ((set(), False), ({"?"}, False))
    k1, k2 = c1[0], c2[0]
    t.ok(same_kinds(c1, c2) and {"MAPS", "IMAG"} <= k1,
         "eqprof-record writes the chunks eqprof record writes for the same command (%s)" % " ".join(sorted(k1)),
         (k1, k2, err2))
    clk = os.path.join(d, "clockloop")
    run(["cc", "-O2", "-g", "-fomit-frame-pointer", "-o", clk, os.path.join(SRC, "test", "fixtures", "clockloop.c")])
    vrec = os.path.join(d, "vdso.eqp")
    rc, _, err = record("--call-graph", "dwarf", "--all-user", "-t", "4kHz", "-q", "-o", vrec, "--", clk, "20000000")
    t.ok(rc == 0, "eqprof-record --call-graph dwarf --all-user runs the clock_gettime loop", err)
    dwarf.check_vdso(t, vrec, d)
    t.done()


if __name__ == "__main__":
    main()
