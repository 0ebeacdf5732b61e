"""eqtest.py - helpers for eqprof's integration tests (TAP output, fixture
ELF programs compiled on the spot, ELF facts from binutils, maps and CSV
writers, running eqprof).

Every address fact a test relies on comes from the real tools (nm,
readelf, addr2line) run on the real binaries the test just compiled, so
the expectations are independent of eqprof's own ELF code.
"""
import functools
import json
import math
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

    def fdes(self):
        """[(start, end)] vaddrs of every FDE of .eh_frame, sorted, as
        binutils' readelf --debug-dump=frames prints them (independent of
        eqprof's reading of .eh_frame_hdr)."""
        out = run(["readelf", "--debug-dump=frames", self.path], check=False).stdout
        fdes = [(int(m.group(1), 16), int(m.group(2), 16))
                for m in re.finditer(r"FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", out)]
        return sorted(set(fdes))

    def fde_at(self, vaddr):
        """The (start, end) of the FDE covering vaddr, or None."""
        for start, end in self.fdes_cached():
            if start <= vaddr < end:
                return start, end
        return None

    def fdes_cached(self):
        if not hasattr(self, "_fdes"):
            self._fdes = self.fdes()
        return self._fdes

    def plt_symbols_cached(self):
        if not hasattr(self, "_plt"):
            self._plt = self.plt_symbols()
        return self._plt

    def func_symbols(self):
        """[(vaddr, size, name)] of every defined function symbol, from
        .symtab and .dynsym alike (readelf -Ws), names without @version."""
        if hasattr(self, "_funcs"):
            return self._funcs
        out = run(["readelf", "-Ws", self.path], check=False).stdout
        syms = []
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] in ("FUNC", "IFUNC") and f[6] != "UND":
                syms.append((int(f[1], 16), int(f[2], 0), re.sub(r"@.*", "", f[7])))
        self._funcs = sorted(set(syms))
        return self._funcs

    def plt_symbols(self):
        """[(vaddr, size, "name@plt")] of the PLT stubs, as binutils'
        objdump labels them in .plt, .plt.sec and .plt.got (PLT0 left
        out); a stub reaches to the next one, at most 16 bytes."""
        out = run(["objdump", "-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got", self.path],
                  check=False).stdout
        labels = [(int(m.group(1), 16), m.group(2))
                  for m in re.finditer(r"^([0-9a-f]+) <([^>+-]+@plt)>:", out, re.M)]
        labels.sort()
        return [(a, min(16, (labels[i + 1][0] - a) if i + 1 < len(labels) else 16), n)
                for i, (a, n) in enumerate(labels)]

    def offset_to_vaddr(self, off):
        for o, va, filesz, _, _ in self.loads:
            if o <= off < o + filesz:
                return off - o + va
        raise ValueError("offset 0x%x in no segment of %s" % (off, self.path))

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


Z95 = 1.959963984540054


def wilson(k, n, z=Z95):
    if n == 0:
        return 0.0, 1.0
    return wilson_eff(k / n, n, z)


def wilson_eff(p, n, z=Z95):
    """Wilson score interval of share p at a (real) effective sample size n."""
    if n == math.inf:
        return p, p
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / denom
    lo, hi = centre - half, centre + half
    return (0.0 if p == 0 else max(lo, 0.0)), (1.0 if p == 1 else min(hi, 1.0))


@functools.lru_cache(maxsize=None)
def t95(df):
    """Two-sided 95% quantile of Student's t, by integrating its density
    (Simpson) and bisecting: independent of eqprof's table (each df once:
    every row of a run-to-run table asks for the same)."""
    if df == 0:
        return Z95
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def cdf_half(x):  # P(0 < T < x)
        steps = 4000
        h = x / steps
        f = lambda u: c * (1 + u * u / df) ** (-(df + 1) / 2)
        s = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps))
        return s * h / 3

    lo, hi = 0.0, 20.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf_half(mid) < 0.475 else (lo, mid)
    return (lo + hi) / 2


def _telegraph_deff(rho):
    """coth(a) - 1/a, a = -ln(rho)/2: systematic-sampling design effect."""
    if rho <= 0:
        return 1.0
    if rho >= 1:
        return 0.0
    a = -math.log(rho) / 2
    if a < 1e-3:
        return a / 3 - a ** 3 / 45
    return 1 / math.tanh(a) - 1 / a


def _lags_deff(rho1, rho2, n):
    """The sampling design effect from the lag-1 and lag-2 correlations."""
    se = 1 / math.sqrt(n) if n > 9 else 1.0
    thr = 3 * se
    if rho1 <= se:
        return 1.0
    if rho1 < thr:
        return 1 - (1 - _telegraph_deff(thr)) * (rho1 - se) / (thr - se)
    if rho2 > thr and rho2 > rho1 * rho1:
        nu = 1 - rho1 * rho1 / rho2
        return nu + (1 - nu) * _telegraph_deff(1.0 if rho2 >= rho1 else rho2 / rho1)
    return _telegraph_deff(rho1)


def share_intervals(series, interval="sampling", times=None, with_df=False):
    """The report's 95% intervals, computed here from their definitions in
    docs/guide.md: series is the row of every sample in file order (None for
    an excluded idle sample), times their timestamps for a time-driven
    recording (None: energy-driven).  Returns {row: (lo, hi, deff)}."""
    n = len(series)
    m = sum(1 for x in series if x is not None)
    counts = {}
    for x in series:
        if x is not None:
            counts[x] = counts.get(x, 0) + 1
    floor = lambda d, k: max(d, 1.0) if k < 10 or m - k < 10 else d
    deff = {}
    cv2 = 0.0
    if times and len(times) > 2:
        dts = [times[i] - times[i - 1] for i in range(1, len(times))]
        mean = sum(dts) / len(dts)
        cv2 = max(0.0, sum(d * d for d in dts) / len(dts) / (mean * mean) - 1) if mean > 0 else 0.0
    if interval == "sampling":
        for row, k in counts.items():
            p = k / m
            z = [(x == row) - p * (x is not None) for x in series]
            rho = []
            for lag in (1, 2):
                d = sum((z[i] - z[i - lag]) ** 2 for i in range(lag, n))
                r0 = k * (1 - p) / n
                r = 1 - d / (2 * (n - lag) * r0) if 0 < k < m and n > lag else 0.0
                rho.append(max(-1.0, min(1.0, r)))
            f = _lags_deff(rho[0], rho[1], n)
            deff[row] = (floor(f + cv2 * (1 - f), k), 0)
    else:
        blocks = 128
        while blocks >= 16 and n // blocks < 8:
            blocks //= 2
        batch_of = [g * blocks // n for g in range(n)]

        def residuals(row, nb):
            per = blocks // nb
            c, mb = [0.0] * nb, [0.0] * nb
            for g, x in enumerate(series):
                if x is not None:
                    mb[batch_of[g] // per] += 1
                    c[batch_of[g] // per] += x == row
            p = counts[row] / m
            return [c[b] - p * mb[b] for b in range(nb)]

        nb, r1 = blocks, 0.0
        while blocks >= 16 and nb >= 16:
            res = [residuals(row, nb) for row in counts]
            s0 = sum(r * r for rs in res for r in rs)
            s1 = sum(rs[b] * rs[b - 1] for rs in res for b in range(1, nb))
            r1 = s1 / s0 if s0 > 0 else 0.0
            if r1 <= -1.0 / nb or nb == 16:
                break
            nb //= 2
        inflate = 1 + 2 * max(r1 + 1.0 / nb, 0.0)
        for row, k in counts.items():
            p = k / m
            if blocks < 16 or not 0 < p < 1:
                deff[row] = (1.0, 0)
                continue
            rs = residuals(row, nb)
            v = nb / (nb - 1) * sum(r * r for r in rs) / (m * m) * inflate
            deff[row] = (floor(v / (p * (1 - p) / m), k), nb - 1)
    if with_df:
        return deff
    out = {}
    for row, k in counts.items():
        d, df = deff[row]
        lo, hi = wilson_eff(k / m, m / d if d > 0 else math.inf, t95(df))
        out[row] = (lo, hi, d)
    return out


def indicator_intervals(ind, interval="sampling", times=None, lost=None):
    """The 95% intervals of shares that need not add up to 1 (inclusive
    shares: a sample counts for every procedure on its stack), computed
    here from the same definitions as share_intervals: ind maps a row to
    its indicator over the time-ordered samples (all counted).  times: the
    samples' timestamps (time-driven: the timer jitter's cv^2; lost[i] true
    when sample i came after a loss, whose interval is not counted).
    Returns {row: (lo, hi, deff)}."""
    rows = list(ind)
    n = len(next(iter(ind.values()))) if ind else 0
    m = n
    cv2 = 0.0
    if times and len(times) > 2:
        dts = [times[i] - times[i - 1] for i in range(1, len(times))
               if not (lost and lost[i]) and times[i] >= times[i - 1]]
        mean = sum(dts) / len(dts)
        cv2 = max(0.0, sum(d * d for d in dts) / len(dts) / (mean * mean) - 1) if mean > 0 else 0.0
    floor = lambda d, k: max(d, 1.0) if k < 10 or m - k < 10 else d
    deff = {}
    if interval == "sampling":
        for r in rows:
            x = ind[r]
            k = sum(x)
            p = k / m
            rho = []
            for lag in (1, 2):
                d = sum(1 for i in range(lag, n) if x[i] != x[i - lag])
                r0 = k * (1 - p) / n
                v = 1 - d / (2 * (n - lag) * r0) if 0 < k < m and n > lag else 0.0
                rho.append(max(-1.0, min(1.0, v)))
            f = _lags_deff(rho[0], rho[1], n)
            deff[r] = (floor(f + cv2 * (1 - f), k), 0)
    else:
        blocks = 128
        while blocks >= 16 and n // blocks < 8:
            blocks //= 2
        batch_of = [g * blocks // n for g in range(n)] if blocks >= 16 else []

        def residuals(r, nb):
            per = blocks // nb
            c, mb = [0.0] * nb, [0.0] * nb
            for g, xg in enumerate(ind[r]):
                mb[batch_of[g] // per] += 1
                c[batch_of[g] // per] += xg
            p = sum(ind[r]) / m
            return [c[b] - p * mb[b] for b in range(nb)]

        nb, r1 = blocks, 0.0
        while blocks >= 16 and nb >= 16:
            res = [residuals(r, nb) for r in rows]
            s0 = sum(v * v for rs in res for v in rs)
            s1 = sum(rs[b] * rs[b - 1] for rs in res for b in range(1, nb))
            r1 = s1 / s0 if s0 > 0 else 0.0
            if r1 <= -1.0 / nb or nb == 16:
                break
            nb //= 2
        inflate = 1 + 2 * max(r1 + 1.0 / nb, 0.0)
        for r in rows:
            k = sum(ind[r])
            p = k / m
            if blocks < 16 or not 0 < p < 1:
                deff[r] = (1.0, 0)
                continue
            rs = residuals(r, nb)
            v = nb / (nb - 1) * sum(x * x for x in rs) / (m * m) * inflate
            deff[r] = (floor(v / (p * (1 - p) / m), k), nb - 1)
    out = {}
    for r in rows:
        d, df = deff[r]
        lo, hi = wilson_eff(sum(ind[r]) / m, m / d if d > 0 else math.inf, t95(df))
        out[r] = (lo, hi, d)
    return out
