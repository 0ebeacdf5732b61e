"""eqtest.py - helpers for eqprof's integration tests (TAP output, fixture
ELF programs compiled on the spot, ELF facts from binutils, maps and CSV
writers, running eqprof).

Every address fact a test relies on comes from the real tools (nm,
readelf, addr2line) run on the real binaries the test just compiled, so
the expectations are independent of eqprof's own ELF code.
"""
import json
import os
import re
import subprocess
import sys

SRC = os.environ.get("SRC", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
EQPROF = os.environ.get("EQPROF", os.path.join(SRC, "build", "eqprof"))
FIXTURES = os.path.join(SRC, "test", "fixtures")


class Tap:
    """Prints TAP lines; exit status says whether everything passed."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what, detail=None):
        self.n += 1
        print(("ok %d - %s" if cond else "not ok %d - %s") % (self.n, what), flush=True)
        if not cond:
            self.failed += 1
            if detail is not None:
                for line in str(detail).splitlines()[:40]:
                    print("#   " + line)
        return cond

    def eq(self, got, want, what):
        return self.ok(got == want, what, "got:  %r\nwant: %r" % (got, want))

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)


def run(args, check=True, **kw):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def eqprof(*args):
    """Runs eqprof; returns (exit status, stdout, stderr)."""
    p = run([EQPROF] + [str(a) for a in args], check=False)
    return p.returncode, p.stdout, p.stderr


def cc(out, sources, *flags):
    libs = [f for f in flags if f.startswith("-l")]
    run(["cc", "-g", "-o", out] + [f for f in flags if f not in libs] + list(sources) + libs)
    return out


def build_fixtures(d):
    """Compiles the test programs into d; returns {name: path}."""
    prog = os.path.join(FIXTURES, "prog.c")
    lib = os.path.join(FIXTURES, "libfix.c")
    b = {}
    b["libfix.so"] = cc(os.path.join(d, "libfix.so"), [lib], "-O0", "-fPIC", "-shared")
    b["libfix_o2.so"] = cc(os.path.join(d, "libfix_o2.so"), [lib], "-O2", "-fPIC", "-shared")
    b["prog_pie"] = cc(os.path.join(d, "prog_pie"), [prog], "-O0", "-fPIE", "-pie",
                       "-L" + d, "-lfix")
    b["prog_o2"] = cc(os.path.join(d, "prog_o2"), [prog], "-O2", "-fno-pie", "-no-pie",
                      "-L" + d, "-lfix")
    b["prog_o2pie"] = cc(os.path.join(d, "prog_o2pie"), [prog], "-O2", "-fPIE", "-pie",
                         "-L" + d, "-lfix")
    b["prog_strip"] = os.path.join(d, "prog_strip")
    run(["strip", "-o", b["prog_strip"], b["prog_o2pie"]])
    return b


class Elf:
    """Facts about one ELF file from binutils."""

    def __init__(self, path):
        self.path = path
        hdr = run(["readelf", "-hW", path]).stdout
        self.dyn = re.search(r"Type:\s+DYN", hdr) is not None
        self.loads = []
        for line in run(["readelf", "-lW", path]).stdout.splitlines():
            f = line.split()
            if f and f[0] == "LOAD":
                off, vaddr, _, filesz, memsz = (int(x, 16) for x in f[1:6])
                flags = "".join(f[6:-1])
                self.loads.append((off, vaddr, filesz, memsz, flags))
        self.syms = {}
        out = run(["nm", "-S", "--defined-only", path], check=False).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "TtWw":
                self.syms[f[3]] = (int(f[0], 16), int(f[1], 16))

    def text_vaddr_to_offset(self, vaddr):
        for off, va, filesz, _, _ in self.loads:
            if va <= vaddr < va + filesz:
                return vaddr - va + off
        raise ValueError("0x%x not in a file-backed segment of %s" % (vaddr, self.path))

    def maps(self, base, path=None):
        """/proc/PID/maps lines for this file loaded at base (ET_DYN)."""
        path = path or self.path
        bias = base if self.dyn else 0
        lines = []
        for off, vaddr, filesz, memsz, flags in self.loads:
            start = bias + (vaddr & ~0xfff)
            end = bias + ((vaddr + memsz + 0xfff) & ~0xfff)
            perms = ("r" if "R" in flags else "-") + ("w" if "W" in flags else "-") + \
                    ("x" if "E" in flags else "-") + "p"
            lines.append("%x-%x %s %08x 08:01 4242 %s" % (start, end, perms, off & ~0xfff, path))
        return lines

    def pc(self, base, vaddr):
        return (base if self.dyn else 0) + vaddr


def addr2line(path, vaddr):
    """(file, line) for vaddr by binutils addr2line."""
    out = run(["addr2line", "-e", path, "0x%x" % vaddr]).stdout.strip()
    m = re.match(r"(.*):(\d+)", out)
    if not m or m.group(2) == "0":
        return None
    return m.group(1), int(m.group(2))


def write_csv(path, samples):
    """samples: list of (pid, pc, flags, count)."""
    t = 0
    with open(path, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for pid, pc, flags, count in samples:
            for _ in range(count):
                t += 1000
                f.write("%d,0x%x,%d,%d,0,%d\n" % (t, pc, pid, pid, flags))


def report_json(path, *args):
    rc, out, err = eqprof("report", path, "--format", "json", *args)
    if rc != 0:
        raise RuntimeError("report failed: " + err)
    return json.loads(out), err


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / denom
    lo, hi = centre - half, centre + half
    return (0.0 if k == 0 else max(lo, 0.0)), (1.0 if k == n else min(hi, 1.0))
