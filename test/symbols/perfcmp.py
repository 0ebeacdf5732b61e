"""perfcmp.py - one run of a real workload sampled by eqprof and by perf at
once, and statistical comparisons of what each says.

`perf record -e cpu-clock:u -- eqprof record -t -- COMMAND` samples the
command twice in the same run, with two independent timers: perf's samples
of eqprof itself carry the comm "eqprof" and are left out.  perf is the
reference for every share: a workload's own CPU-time clock does not count
what a cpu-clock profiler samples (interrupt work the kernel charges to
the task: 6-24% of a task's samples on an AMD EPYC guest under kernel
6.18).  Where perf is missing or not allowed, the comparisons are skipped
with the reason.

The bounds.  A share estimated from n samples varies by at most
sqrt(p(1-p)/n) per standard error when samples are independent; timer
samples of one timeline are closer to systematic sampling and vary less,
and two samplings of the same run vary together, so the binomial bound is
conservative.  Every comparison uses Z = 4.9 standard errors of the
difference, a two-sided false-failure rate of 9.6e-7 each; a test file
makes at most 100 comparisons (Comparisons enforces it), so a correct
eqprof fails a file less than once in 10,000 runs.  SLACK (half a point)
allows for instants at function boundaries that two timers attribute
differently.
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, Tap, eqprof, run  # noqa: E402

Z = 4.9
SLACK = 0.005
MAX_COMPARISONS = 100
HZ = 4000


HERE = os.path.dirname(os.path.abspath(__file__))


def build(work, name, src, *flags, compiler="cc"):
    """Compiles test/symbols/SRC into WORK/NAME (-O1 -g)."""
    out = os.path.join(work, name)
    run([compiler, "-O1", "-g", "-I", HERE, "-o", out, os.path.join(HERE, src)] + list(flags))
    return out


def start(prefix):
    """(tap, comparisons, work folder, perf usable) for one test file."""
    import tempfile
    tap = Tap()
    work = tempfile.mkdtemp(prefix=prefix)
    use_perf, why = perf_usable(work)
    if not use_perf:
        print("# perf comparisons skipped: " + why)
    return tap, Comparisons(tap), work, use_perf


def perf_usable(work):
    """(True, "") when perf can sample a child here, else (False, why)."""
    try:
        p = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock:u", "-o",
                            os.path.join(work, "probe.perf"), "--", "true"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, "perf is not installed or does not run (%s)" % e
    if p.returncode != 0:
        return False, "perf record -e cpu-clock:u fails here: " + \
            (p.stderr.strip().splitlines() or ["?"])[-1]
    return True, ""


class Comparisons:
    """Counts comparisons so the file's false-failure rate stays below 1e-4."""

    def __init__(self, tap):
        self.tap = tap
        self.n = 0

    def share(self, what, k1, n1, k2, n2):
        """eqprof's share k1/n1 against perf's k2/n2."""
        self.n += 1
        if self.n > MAX_COMPARISONS:
            raise RuntimeError("more than %d comparisons: raise Z" % MAX_COMPARISONS)
        if n1 == 0 or n2 == 0:
            return self.tap.ok(False, what, "no samples (%d, %d)" % (n1, n2))
        p1, p2 = k1 / n1, k2 / n2
        p = (k1 + k2) / (n1 + n2)
        bound = Z * (p * (1 - p) * (1 / n1 + 1 / n2)) ** 0.5 + SLACK
        print("# %s: eqprof %.2f%% (%d/%d), perf %.2f%% (%d/%d), difference %.2f points, bound %.2f"
              % (what, 100 * p1, k1, n1, 100 * p2, k2, n2, 100 * abs(p1 - p2), 100 * bound))
        return self.tap.ok(abs(p1 - p2) <= bound, what,
                           "eqprof %.4f perf %.4f bound %.4f" % (p1, p2, bound))

    def functions(self, what, s, procs, names):
        """Each function's share of eqprof's report (procs) against its share
        of perf's samples of the same run (s)."""
        pf = s.perf_counts(lambda x: x["sym"])
        for fn in names:
            self.share("%s: %s as perf" % (what, fn), procs.get(fn, 0), sum(procs.values()),
                       pf.get(fn, 0), sum(pf.values()))


LINE = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<pid>\d+)/(?P<tid>\d+)\s+(?P<ip>[0-9a-f]+)\s+"
                  r"(?P<sym>.*?)\s+\((?P<dso>[^()]*)\)\s*$")


REGION = re.compile(r"^\S+\+0x[0-9a-f]+( \[256-byte block\])?$")


class Sampled:
    """COMMAND run once under eqprof record (and perf record around it)."""

    def __init__(self, work, name, cmd, use_perf, hz=HZ, env=None, stdout=subprocess.PIPE,
                 kernel=False, callgraph=None, perf_only=False):
        """kernel: kernel samples too (eqprof record without --all-user,
        perf's cpu-clock without :u), where the kernel permits them;
        callgraph: "dwarf" (both record --call-graph dwarf) or "fp" (-g);
        perf_only: perf alone samples the command (a run of its own)."""
        self.eqp = os.path.join(work, name + ".eqp")
        self.perf = os.path.join(work, name + ".perf") if use_perf else None
        e = dict(os.environ, **(env or {}))
        cg = {None: [], "dwarf": ["--call-graph", "dwarf"], "fp": ["-g"]}[callgraph]
        # user space only by default, like perf's cpu-clock:u
        inner = [EQPROF, "record", "-t", "%dHz" % hz] + ([] if kernel else ["--all-user"]) + cg + \
            ["-q", "-o", self.eqp, "--"] + list(cmd)
        # perf's rings small (64 KiB a CPU): with eqprof's they stay within
        # the locked memory an ordinary user may have (stack copies need more)
        outer = ["perf", "record", "-q", "-m", "64" if callgraph == "dwarf" else "16",
                 "-e", "cpu-clock" if kernel else "cpu-clock:u", "-c", str(int(1e9 / hz))] + cg + \
            ["-o", self.perf, "--"] if use_perf else []
        if perf_only:
            inner = list(cmd)
        p = subprocess.run(outer + inner, stdout=stdout, stderr=subprocess.PIPE,
                           universal_newlines=True, env=e)
        self.status, self.stderr = p.returncode, p.stderr
        self.name = name
        self._perf = None

    def report(self, by, *extra):
        """{name: samples} and {name: module} of `eqprof report --by BY`."""
        rc, out, err = eqprof("report", self.eqp, "--by", by, "--format", "csv", *extra)
        if rc != 0:
            raise RuntimeError("report --by %s failed: %s" % (by, err))
        counts, modules = {}, {}
        import csv
        import io
        for row in csv.DictReader(io.StringIO(out)):
            # a pc no symbol covers is named by its function's start
            # ("python3.11+0x13f700"); perf calls
            # it [unknown]: compared as that
            name = row["name"]
            if by == "proc" and REGION.match(name):
                name = "[unknown]"
            counts[name] = counts.get(name, 0) + int(row["samples"])
            modules[name] = row["module"]
        return counts, modules

    def rows(self, by, *extra):
        """[(name, module, samples)] of `eqprof report --by BY`, names as
        eqprof prints them."""
        import csv
        import io
        rc, out, err = eqprof("report", self.eqp, "--by", by, "--format", "csv", *extra)
        if rc != 0:
            raise RuntimeError("report --by %s failed: %s" % (by, err))
        return [(r["name"], r["module"], int(r["samples"])) for r in csv.DictReader(io.StringIO(out))]

    def perf_by_sym(self):
        """{(dso, sym): samples} of perf report --sort dso,sym over the
        command's samples (not eqprof's own): sym is perf's name, or the
        pc as an address in the dso's own vaddrs ("0x...79d") where perf
        has no symbol for it."""
        out = run(["perf", "report", "-i", self.perf, "--stdio", "-q", "-n", "--no-children",
                   "-g", "none", "--sort", "comm,dso,sym"]).stdout
        counts = {}
        for line in out.splitlines():
            m = re.match(r"^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+(\S+)\s+\[.\]\s+(.+?)\s*$", line)
            if m and m.group(2) != "eqprof":
                k = (m.group(3), m.group(4))
                counts[k] = counts.get(k, 0) + int(m.group(1))
        return counts

    def warnings(self, by="proc"):
        return eqprof("report", self.eqp, "--by", by)[1:]

    def perf_samples(self):
        """perf's samples of the command: dicts of comm, pid, tid, sym, dso."""
        if self._perf is None:
            out = run(["perf", "script", "-i", self.perf, "-F", "comm,pid,tid,ip,sym,dso"]).stdout
            self._perf = []
            for line in out.splitlines():
                m = LINE.match(line)
                if m and m.group("comm") != "eqprof":
                    self._perf.append(m.groupdict())
        return self._perf

    def perf_stacks(self):
        """perf's samples of the command (not eqprof's own), each as
        (comm, [(address, symbol), ...] innermost first): perf script's
        call chains, kernel frames first where the sample is the kernel's."""
        out = run(["perf", "script", "-i", self.perf, "-F", "comm,ip,sym"]).stdout
        stacks = []
        for block in out.split("\n\n"):
            lines = [l for l in block.splitlines() if l.strip()]
            if not lines:
                continue
            comm = lines[0].strip()
            frames = []
            for l in lines[1:]:
                m = re.match(r"^\s*([0-9a-f]+)\s+(.*?)\s*$", l)
                if m:
                    sym = re.sub(r" \(inlined\)$", "", m.group(2))
                    frames.append((int(m.group(1), 16), re.sub(r"\+0x[0-9a-f]+$", "", sym)))
            if comm != "eqprof" and frames:
                stacks.append((comm, frames))
        return stacks

    def folded(self, *extra):
        """[(frames outermost first, samples)] of eqprof export --format
        folded (the command's name first, as the export writes it)."""
        path = self.eqp + ".folded"
        rc, _, err = eqprof("export", self.eqp, "--format", "folded", "-o", path, *extra)
        if rc != 0:
            raise RuntimeError("export --format folded failed: %s" % err)
        out = []
        for line in open(path):
            key, n = line.rstrip("\n").rsplit(" ", 1)
            out.append((key.split(";"), int(n)))
        return out

    def perf_counts(self, key):
        counts = {}
        for s in self.perf_samples():
            k = key(s)
            counts[k] = counts.get(k, 0) + 1
        return counts


def top_keys(*counts, share=0.03):
    """Keys with at least `share` of the samples in any of the count sets."""
    keys = set()
    for c in counts:
        n = sum(c.values())
        keys.update(k for k, v in c.items() if n and v / n >= share)
    return sorted(keys)


# ---- code outside every symbol, against binutils' view of the file --------

def region_name(elf, base, vaddr):
    """The name a pc at vaddr of ELF file elf (module basename base) must
    get when no symbol covers it: its function's start as a file offset,
    the function as binutils' readelf reads the FDEs of .eh_frame
    ("gzip+0x4290", "[vdso]+0x780"), else its 256-byte block."""
    f = elf.fde_at(vaddr)
    if f:
        return "%s+0x%x" % (base, elf.text_vaddr_to_offset(f[0]))
    off = elf.text_vaddr_to_offset(vaddr)
    return "%s+0x%x [256-byte block]" % (base, off - off % 256)


def names_at(elf, base, vaddr):
    """Every correct name of the function holding vaddr: the function
    symbols (.symtab, .dynsym: readelf) covering it, sized ones by their
    size and sizeless ones up to the next symbol but not into another
    FDE's function; a PLT stub by objdump's label ("malloc@plt");
    without one, region_name()."""
    syms = elf.func_symbols()
    out = {n for a, size, n in elf.plt_symbols_cached() if a <= vaddr < a + size}
    for i, (a, size, name) in enumerate(syms):
        if size and a <= vaddr < a + size:
            out.add(name)
        elif not size and a <= vaddr:
            nxt = min([b for b, _, _ in syms if b > a] or [1 << 64])
            f = elf.fde_at(vaddr)
            if vaddr < nxt and (vaddr == a or not f or f[0] <= a):
                out.add(name)
    return out or {region_name(elf, base, vaddr)}


INSN = re.compile(r"^(?P<proc>.+)\+0x(?P<off>[0-9a-f]+)$")


def check_names(tap, what, elf, base, insn_rows, proc_rows):
    """Every sample of module base named as binutils says it must be:
    each `--by insn` row's pc (its function's start, by the symbol's
    address or the offset in its name, plus the offset) is looked up in
    readelf's symbols and FDEs (names_at), and the `--by proc` rows are
    exactly those functions with the insn rows' samples.  Exact checks;
    independent of eqprof's ELF reading."""
    syms = {}
    for a, size, name in elf.func_symbols() + elf.plt_symbols_cached():
        syms.setdefault(name, []).append(a)
    bad, want = [], {}
    for name, mod, n in insn_rows:
        if mod != base:
            continue
        m = INSN.match(name)
        if not m:
            bad.append("%s: not FUNCTION+0xOFFSET" % name)
            continue
        proc, off = m.group("proc"), int(m.group("off"), 16)
        r = re.match(r"^%s\+0x([0-9a-f]+)( \[256-byte block\])?$" % re.escape(base), proc)
        starts = [elf.offset_to_vaddr(int(r.group(1), 16))] if r else syms.get(proc, [])
        ok = [a for a in starts if proc in names_at(elf, base, a + off)]
        if not ok:
            bad.append("%s (%d samples): binutils names it %s" % (
                name, n, sorted(names_at(elf, base, starts[0] + off)) if starts else "nothing"))
        want[proc] = want.get(proc, 0) + n
    got = {name: n for name, mod, n in proc_rows if mod == base}
    near = [name for name in got if "near" in name]
    tap.ok(not bad and not near and got == want and got,
           "%s: every sample in %s is named by its symbol or its function's start (FDE), "
           "as readelf reads the file, never after another symbol (%d rows)" % (what, base, len(got)),
           "\n".join(bad[:10] + near[:5] + ["proc rows %s" % sorted(got.items())[:8],
                                           "insn rows sum to %s" % sorted(want.items())[:8]]))
    return got


def perf_keys(elf, base, perf):
    """perf's samples in module base ({sym: samples}), each unnamed
    address (perf prints the pc as the file's vaddr) put in the function
    readelf's FDEs give it, so that they compare with eqprof's rows."""
    out = {}
    for (dso, sym), n in perf.items():
        if dso != base:
            continue
        if re.match(r"^0x[0-9a-f]+$", sym):
            sym = region_name(elf, base, int(sym, 16))
        out[sym] = out.get(sym, 0) + n
    return out


def vdso_image(path):
    """This process's vdso (the same image the kernel maps into every
    process), written to path; its mapping's size; None without one."""
    for line in open("/proc/self/maps"):
        if line.rstrip().endswith("[vdso]"):
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            with open("/proc/self/mem", "rb") as mem:
                mem.seek(lo)
                data = mem.read(hi - lo)
            with open(path, "wb") as f:
                f.write(data)
            return hi - lo
    return None


if __name__ == "__main__":
    # perfcmp.py share WHAT K1 N1 K2 N2: one comparison for shell tests
    # (a "# ..." line; exit status 0 when within the bound)
    if len(sys.argv) != 7 or sys.argv[1] != "share":
        sys.exit("usage: perfcmp.py share WHAT K1 N1 K2 N2")

    class Quiet:
        def ok(self, cond, what, detail=None):
            return cond
    c = Comparisons(Quiet())
    sys.exit(0 if c.share(sys.argv[2], *(int(x) for x in sys.argv[3:])) else 1)
