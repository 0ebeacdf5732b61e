#!/usr/bin/env python3
"""check.py - judges what the arm64 guest (test/arm/guest-init.sh) left in OUT.

    check.py OUT ROOT FIRST_TAP_NUMBER

With test/linux's checks (test/linux/guestcheck.py: seq accounting, the
spinner's share, the time-driven rate, host-side symbolization), on the
arm64 guest's files.  The number of edges is what the host sent through
qtest (OUT/edges.log, written by test/arm/edges.py), counted outside the
guest and independently of the module.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "linux"))
import guestcheck  # noqa: E402
from guestcheck import (F_APPROX, F_ENERGY, F_IDLE, F_KERNEL, F_LOST, kallsyms, kv, path,  # noqa: E402
                        pid_of, rate_problems, report, report_file, samples, seq_problems,
                        spin_share_ok, spin_summary, summary_number, symbol, tap, text, user_fn_ok)

guestcheck.init(sys.argv[1], sys.argv[2], int(sys.argv[3]))


def sent(name):
    m = re.search(rf"^{re.escape(name)} sent=(\d+)", text("edges.log"), re.M)
    return int(m.group(1)) if m else None


log = text("guest.log")
tap("MODULE-LOADED" in log and not re.search(r"disagrees about version|no symbol version|Invalid module format",
                                              text("dmesg.txt")),
    "the cross-built eqprof.ko loads: no symbol-version or format complaint in the kernel log",
    text("dmesg.txt")[-2000:])

# ---- 1. PL061 edges in hard-irq context while the spinner runs ------------
st = kv("energy.stats")
smp = samples("energy.bin")
n = sent("energy")
tap(n and st.get("samples", 0) + st.get("dropped", 0) == n and len(smp) == st.get("samples"),
    f"PL061: the host's {n} edges gave {len(smp)} samples + {st.get('dropped')} counted losses",
    text("energy.stats"))
bad = seq_problems(smp, st) if st else ["no statistics"]
tap(not bad, "PL061: seq complete on every CPU ring, every gap flagged EQ_F_LOST", "\n".join(bad))
tap(smp and all(x["flags"] & F_ENERGY and not x["flags"] & F_APPROX for x in smp),
    "PL061: every sample EQ_F_ENERGY with the interrupted registers (no EQ_F_PC_APPROX)")
tap(st.get("irq_threaded") == 0 and "hardirq" in str(st.get("source_name")) and "9030000.pl061" in str(st.get("source_name")),
    f"PL061: the GPIO IRQ is taken in hard interrupt context ({st.get('source_name')})")
pid = pid_of("espin.pid")
rows, raw = report("energy.bin", "espin.maps", pid, "spinner")
tap(rows is not None and spin_share_ok(rows, smp, pid),
    f"PL061: eqprof report on the host puts the spinner's samples in its functions ({spin_summary(rows, smp, pid)})",
    raw)

# ---- 2. time-driven -----------------------------------------------------------
st = kv("tspin.stats")
smp = samples("tspin.bin")
bad = rate_problems(smp, st, 1000, 5) if st else ["no statistics"]
tap(not bad, "time 1 kHz +-5% on arm64: every CPU's rate inside 950-1050 Hz", "\n".join(bad))
bad = seq_problems(smp, st) if st else ["no statistics"]
tap(not bad, "time: seq complete", "\n".join(bad))
pid = pid_of("tspin.stats")
rows, raw = report("tspin.bin", "tspin.maps", pid, "spinner", ["--exclude-idle"])
tap(rows is not None and spin_share_ok(rows, smp, pid),
    f"time: eqprof report puts the spinner's samples in its functions ({spin_summary(rows, smp, pid)})", raw)
kern = {k: v for k, v in (rows or {}).items() if v[0] == "[kernel.kallsyms]"}
nk = sum(1 for x in smp if x["flags"] & F_KERNEL and not x["flags"] & F_IDLE)
named = sum(v[1] for k, v in kern.items() if not k.startswith("0x") and k != "[unknown]")
tap(nk > 0 and named == nk,
    f"time: all {nk} non-idle arm64 kernel samples symbolize to kernel functions on the host "
    f"({', '.join(sorted(kern)[:5])}...)", raw)
st = kv("idle.stats")
smp = samples("idle.bin")
idle = [x for x in smp if x["flags"] & F_IDLE]
syms = kallsyms()
names = [symbol(syms, x["pc"]) or "" for x in idle]
n_idle_fn = sum(1 for nm in names if "idle" in nm or "wfi" in nm)
tap(idle and len(idle) >= 0.5 * len(smp) and n_idle_fn >= 0.9 * len(idle),
    f"time, idle guest: {len(idle)} of {len(smp)} samples idle, {n_idle_fn} of them in the kernel's idle "
    f"functions (cpu_do_idle, default_idle_call...)", "\n".join(sorted(set(names))[:20]))

# ---- 3. overflow on the PL061: a 32-sample ring, no reader -------------------
st = kv("ovf.stats")
b = samples("ovf.bin")
n = sent("overflow")
tap(n and st.get("samples") == 32 and st.get("dropped") == n - 32,
    f"PL061 overflow: {n} edges into a 32-sample ring: {st.get('samples')} stored, {st.get('dropped')} dropped and counted",
    text("ovf.stats"))
tap([x["seq"] for x in b] == list(range(32)) and not any(x["flags"] & F_LOST for x in b),
    "PL061 overflow: the stored samples are seq 0-31")
tap("UNLOADED" in log and "RELOADED" in log, "unload and reload after the overflow")

# ---- 4. the static recorder in the guest ---------------------------------------
if os.path.exists(path("rec-e.log")):
    rlog = text("rec-e.log")
    n = sent("rec-e")
    rows, raw = report_file("rec-e.eqp")
    kept = sum(v[1] for v in rows.values()) if rows else None
    other = summary_number(rlog, r"(\d+) samples of other processes not kept")
    lost = summary_number(rlog, r"lost (\d+) \(ring drops")
    tap("rec-e=0" in log and rows is not None and n and kept is not None and other is not None and
        lost is not None and kept + other + lost == n,
        f"eqprof-record -e on arm64: the host's {n} edges = {kept} samples kept + {other} of other processes + {lost} lost",
        rlog + raw)
    fn_ok, n_fn, n_user = user_fn_ok(rows)
    tap(fn_ok,
        f"eqprof-record -e: eqprof report on the host puts {n_fn} of the spinner's {n_user} user samples "
        f"({kept} in all) in its functions", raw)
    rows, raw = report_file("rec-ta.eqp")
    rows = rows or {}
    kern = {k: v for k, v in rows.items() if v[0] == "[kernel.kallsyms]"}
    unnamed = sum(v[1] for k, v in kern.items() if k.startswith("0x") or k == "[unknown]")
    tap("rec-ta=0" in log and len(kern) >= 3 and unnamed == 0,
        f"eqprof-record -t -a: arm64 kernel samples symbolize on the host through the embedded kallsyms "
        f"({len(kern)} functions, e.g. {', '.join(sorted(kern)[:4])})", text("rec-ta.log") + str(raw))

# ---- 5. --call-graph dwarf of arm64 code, unwound on x86-64 -------------------
# test/record/dwarf.py's checks, on the guest's recordings with its files
# (--symfs ROOT: the programs, the guest's libc, their build-ids checked).
# b's share of a+b is held to 3/4, the callers' iteration counts: on
# x86-64 test/record holds it to perf's, but nothing in this guest samples
# time independently of eqprof.  Looked for: the guest (build-guest.sh's
# initramfs) has no perf (Debian's linux-perf depends on 16 packages the
# image does not carry, libperl5.36 and libpython3.11 among them:
# apt-cache depends linux-perf), and
# Debian 12's QEMU 7.2 ships no TCG plugins (/usr/lib/x86_64-linux-gnu/qemu
# holds none) that could count time per address from outside.  What would
# be independent: a sampler on the host that stops the guest through QEMU's
# gdb stub at random times (gdb-multiarch is on the host) and reads the pc
# and x30 of the workload; not built.  Until then the iteration counts, with
# the report's design effect, are the reference, as dwarf.py says.
if os.path.exists(path("dwarf.eqp")):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "record"))
    import dwarf  # noqa: E402

    class Tap:
        def ok(self, cond, what, detail=None):
            tap(bool(cond), "arm64: " + what, "" if detail is None else str(detail))

    t = Tap()
    tap("dwarf=0" in log, "eqprof-record --call-graph dwarf ran the callers workload on arm64", text("dwarf.log"))
    dwarf.check_callers(t, path("dwarf.eqp"), "aarch64 PIE", "--symfs", guestcheck.ROOT)
    tap("vdso=0" in log, "eqprof-record --call-graph dwarf --all-user ran the clock_gettime loop", text("vdso.log"))
    d = os.path.join(guestcheck.OUT, "vdso-check")
    os.makedirs(d, exist_ok=True)
    dwarf.check_vdso(t, path("vdso.eqp"), d, "--symfs", guestcheck.ROOT)
    # the shared library: clock_gettime is libc.so.6's, symbolized from the
    # guest's copy with its build-id checked
    rows, raw = report_file("vdso.eqp")
    tap(rows and rows.get("clock_gettime", ("", 0))[0] == "libc.so.6",
        "arm64 shared library: clock_gettime symbolized in the guest's libc.so.6 (build-id checked)", raw[:1500])
    # capstone's ARM64 mode: the leaf's loop as arm64 instructions, its
    # samples on them
    r = subprocess.run([guestcheck.EQPROF, "annotate", path("dwarf.eqp"), "leaf", "--symfs", guestcheck.ROOT,
                        "--format", "json"], capture_output=True, text=True)
    try:
        ann = json.loads(r.stdout)
    except ValueError:
        ann = {}
    insns = [i for f in ann.get("functions", [ann]) for i in f.get("instructions", [])]
    mnem = {str(i.get("text", i.get("asm", ""))).split()[0] for i in insns if i.get("text") or i.get("asm")}
    hit = sum(i.get("samples", 0) for i in insns)
    tap(r.returncode == 0 and {"ldr", "str"} <= mnem and hit > 0 and (mnem & {"b.ne", "b.hi", "b.cc", "b.lo", "cbnz"}),
        f"annotate disassembles the arm64 leaf with capstone's ARM64 mode ({len(insns)} instructions, "
        f"{hit} samples on them: {', '.join(sorted(mnem))})", r.stdout[:1500] + r.stderr)

dmesg = text("dmesg.txt")
splat = [line for line in dmesg.splitlines()
         if re.search(r"BUG:|Oops|WARNING:|cut here|lockdep|Call trace|scheduling while atomic|"
                      r"sleeping function called|nobody cared", line)]
tap(dmesg and not splat, "the arm64 guest's kernel log has no BUG, Oops, WARNING or splat", "\n".join(splat))
