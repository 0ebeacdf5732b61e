#!/usr/bin/env python3
"""cfi.py - code outside every symbol is named by its function's start, as
the call-frame information (.eh_frame FDEs) delimits it, never after an
unrelated symbol; symbols come only from a real source.

- Debian's stripped gzip (`gzip -c -6 data >/dev/null`, the command
  issue 28 names), xz (stripped liblzma) and sqlite3 (stripped
  libsqlite3), each sampled by eqprof and perf in the same run
  (perfcmp.py): every sample's name is checked against binutils' readelf
  (the file's symbols and FDEs, perfcmp.names_at: an exact check,
  independent of eqprof's ELF code), and each function's share against
  perf's samples of the same run, perf's unnamed addresses put in
  readelf's FDEs (Z = 4.9, the file's false-failure rate below 1e-4 with
  the other comparisons of the file).
- The kernel's vdso, whose helpers may lie outside every .dynsym symbol
  (this machine's kernel 6.18: the pvclock reader at 0x780, reached with
  the kvm-clock clocksource): samples at every FDE of this kernel's vdso
  (read from this process's own mapping), imported with the image
  (`import --image [vdso]=FILE`), are named by the symbol readelf finds,
  else "[vdso]+0xSTART".  A library of the test's own whose functions are
  all hidden, given as the vdso's image, makes sure the second case is
  met on every kernel.
- A symbol without a size (assembly) does not reach into the next
  function: its FDE bounds it.
"""
import os
import random
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import Elf  # noqa: E402
from perfcmp import (Sampled, check_names, eqprof, names_at, perf_keys, run,  # noqa: E402
                     start, top_keys, vdso_image)

SAN = bool(os.environ.get("SAN"))


def import_image(tap, work, what, image, size):
    """Samples at the middle of every FDE of image, mapped as [vdso] of a
    process; imported with --image; names checked by check_names()."""
    elf = Elf(image)
    base = 0x7fff00000000
    csv = os.path.join(work, "image.csv")
    maps = os.path.join(work, "image.maps")
    with open(maps, "w") as f:
        f.write("555555554000-555555555000 r-xp 00000000 08:01 1 /bin/true-not-here\n")
        f.write("%x-%x r-xp 00000000 00:00 0                          [vdso]\n" % (base, base + size))
    fdes = elf.fdes()
    with open(csv, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        t = 0
        for lo, hi in fdes:
            for k in range(3):  # start, middle, last byte
                t += 1000
                f.write("%d,0x%x,4242,4242,0,0\n" % (t, base + (lo, (lo + hi) // 2, hi - 1)[k]))
    rec = os.path.join(work, "image.eqp")
    rc, _, err = eqprof("import", "--samples", csv, "--maps", "4242=" + maps, "--image",
                        "[vdso]=" + image, "--time", "1kHz", "-o", rec)
    tap.ok(rc == 0, "%s: import --image [vdso]=FILE takes the image" % what, err)
    rows = {}
    for by in ("insn", "proc"):
        rc, out, err = eqprof("report", rec, "--by", by, "--format", "csv")
        rows[by] = [(r.split(",")[0], r.split(",")[1], int(r.split(",")[2]))
                    for r in out.splitlines()[1:]] if rc == 0 else []
    got = check_names(tap, what, elf, "[vdso]", rows["insn"], rows["proc"])
    outside = sorted(n for lo, hi in fdes for n in names_at(elf, "[vdso]", lo)
                     if n.startswith("[vdso]+0x"))
    return got, outside


def stripped_program(tap, cmp, work, what, cmd, module, use_perf, want_rows=3):
    """cmd sampled by eqprof and perf; module's samples named as readelf
    says, and its functions' shares as perf's."""
    s = Sampled(work, what, cmd, use_perf, stdout=subprocess.DEVNULL)
    tap.ok(s.status == 0, "%s runs under record" % what, s.stderr)
    proc_rows, insn_rows = s.rows("proc"), s.rows("insn")
    mods = {m for _, m, _ in proc_rows}
    base = next((m for m in mods if m == os.path.basename(module)), None)
    if base is None:
        tap.ok(False, "%s: samples in %s" % (what, module), sorted(mods))
        return
    elf = Elf(module)
    got = check_names(tap, what, elf, base, insn_rows, proc_rows)
    regions = [k for k in got if k.startswith(base + "+0x")]
    tap.ok(len(regions) >= min(want_rows, len(got)),
           "%s: %s's samples are in %d functions named by their starts, not one row"
           % (what, base, len(regions)), sorted(got.items()))
    if use_perf:
        n = sum(x[2] for x in proc_rows)
        pk = perf_keys(elf, base, s.perf_by_sym())
        pn = sum(v for k, v in s.perf_by_sym().items())
        for k in top_keys(got, pk, share=0.05):
            cmp.share("%s: %s as perf (its addresses in readelf's FDEs)" % (what, k),
                      got.get(k, 0), n, pk.get(k, 0), pn)


def sizeless(tap, work):
    """An assembly function without .size, exported, then two hidden C
    functions: their pcs are not the assembly function's."""
    src = os.path.join(work, "sizeless.c")
    with open(src, "w") as f:
        f.write('__asm__(".text\\n.globl asm_entry\\n.type asm_entry,@function\\n'
                'asm_entry:\\n\\tret\\n");\n'
                "volatile int sink;\n"
                "__attribute__((noinline, visibility(\"hidden\"))) void hidden_one(void)"
                " { for (int i = 0; i < 100; i++) sink += i; }\n"
                "__attribute__((noinline, visibility(\"hidden\"))) void hidden_two(void)"
                " { for (int i = 0; i < 100; i++) sink ^= i; hidden_one(); }\n"
                "void visible(void) { hidden_two(); }\n")
    lib = os.path.join(work, "libsizeless.so")
    run(["cc", "-O1", "-fPIC", "-shared", "-fno-toplevel-reorder", "-o", lib + ".full", src])
    run(["strip", "-o", lib, lib + ".full"])
    full = Elf(lib + ".full")
    e = Elf(lib)
    asm = [a for a, size, n in e.func_symbols() if n == "asm_entry"]
    hidden = {n: a for a, size, n in full.func_symbols() if n.startswith("hidden_")}
    order_ok = asm and hidden and all(a > asm[0] for a in hidden.values())
    csv = os.path.join(work, "sizeless.csv")
    maps = os.path.join(work, "sizeless.maps")
    with open(maps, "w") as f:
        f.write("\n".join(e.maps(0x7f0000000000)) + "\n")
    with open(csv, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i, (n, a) in enumerate(sorted(hidden.items())):
            f.write("%d,0x%x,7,7,0,0\n" % (1000 * (i + 1), e.pc(0x7f0000000000, a + 1)))
    rec = os.path.join(work, "sizeless.eqp")
    rc, _, err = eqprof("import", "--samples", csv, "--maps", "7=" + maps, "--time", "1kHz", "-o", rec)
    rc2, out, err2 = eqprof("report", rec, "--format", "csv")
    names = sorted(r.split(",")[0] for r in out.splitlines()[1:])
    want = sorted(names_at(e, "libsizeless.so", a + 1).pop() for a in hidden.values())
    tap.ok(order_ok and rc == 0 and rc2 == 0 and names == want and "asm_entry" not in names,
           "a sizeless symbol (asm_entry, no .size) does not name the stripped functions after it: "
           "%s" % names, (err, err2, names, want, asm, hidden))


def main():
    tap, cmp, work, use_perf = start("symbols-cfi-")
    try:
        # -- the vdso's image: this kernel's, and one with hidden functions --
        img = os.path.join(work, "vdso.so")
        size = vdso_image(img)
        if size is None:
            tap.ok(True, "# SKIP this kernel maps no vdso")
        else:
            got, outside = import_image(tap, work, "this kernel's vdso", img, size)
            print("# this kernel's vdso: functions outside every symbol: %s" % (outside or "none"))
        lib = os.path.join(work, "libhidden.so")
        with open(os.path.join(work, "hidden.c"), "w") as f:
            f.write("volatile int sink;\n"
                    "__attribute__((noinline)) static void helper(int n) { for (int i = 0; i < n; i++) sink += i; }\n"
                    "__attribute__((noinline)) static void helper2(int n) { for (int i = 0; i < n; i++) sink ^= i; }\n"
                    "void entry(int n) { helper(n); helper2(n); }\n")
        run(["cc", "-O1", "-fPIC", "-shared", "-o", lib, os.path.join(work, "hidden.c"), "-Wl,--build-id"])
        run(["strip", lib])
        got, outside = import_image(tap, work, "an image with static functions as the vdso", lib,
                                    (os.path.getsize(lib) + 4095) & ~4095)
        tap.ok(len(outside) >= 2 and all(o in got for o in outside),
               "the image's static functions are rows named [vdso]+0xSTART (%s)" % outside, got)

        sizeless(tap, work)

        # -- Debian's stripped programs, against readelf and perf --------------
        data = os.path.join(work, "data.bin")
        words = [b"alpha", b"beta", b"gamma", b"delta", b"energy", b"profile", b"sample"]
        rnd = random.Random(1)
        with open(data, "wb") as f:
            f.write(b" ".join(rnd.choice(words) for _ in range(600000 if SAN else 1500000)))
        small = os.path.join(work, "small.bin")  # xz -6 is 20 times slower than gzip
        with open(small, "wb") as f:
            f.write(b" ".join(rnd.choice(words) for _ in range(60000 if SAN else 150000)))
        gzip = shutil.which("gzip")
        if gzip:
            stripped_program(tap, cmp, work, "gzip", [gzip, "-c", "-6", data], os.path.realpath(gzip),
                             use_perf)
        else:
            tap.ok(True, "# SKIP gzip is not installed")
        xz = shutil.which("xz")
        if xz:
            ldd = run(["ldd", xz]).stdout
            m = re.search(r"(/\S*liblzma\.so\S*)", ldd)
            if m:
                stripped_program(tap, cmp, work, "xz", [xz, "-c", "-6", small], os.path.realpath(m.group(1)),
                                 use_perf)
            else:
                tap.ok(True, "# SKIP xz is not linked with liblzma here")
        else:
            tap.ok(True, "# SKIP xz is not installed")
        sqlite = shutil.which("sqlite3")
        if sqlite:
            ldd = run(["ldd", sqlite]).stdout
            m = re.search(r"(/\S*libsqlite3\.so\S*)", ldd)
            q = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) "
                 "SELECT count(*), sum(length(printf('%%d-%%s', x, hex(x * x)))) FROM c;"
                 % (400000 if SAN else 1000000))
            if m:
                stripped_program(tap, cmp, work, "sqlite3", [sqlite, ":memory:", q],
                                 os.path.realpath(m.group(1)), use_perf)
            else:
                tap.ok(True, "# SKIP sqlite3 is not linked with libsqlite3 here")
        else:
            tap.ok(True, "# SKIP sqlite3 is not installed (scripts/deps installs it)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done()


main()
