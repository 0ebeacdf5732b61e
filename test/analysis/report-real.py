#!/usr/bin/env python3
"""report-real.py - crafted samples at known pcs in real ELF programs come
out of `eqprof import` + `eqprof report` with exactly the expected samples,
shares, energies, times, intervals, procedures, lines (cross-checked with
addr2line) and instructions, at every granularity.

Programs are compiled here: -O0 PIE, -O2 non-PIE, -O2 PIE stripped, and a
shared library at -O0 and -O2 loaded at different biases in different
processes.  Also covered: idle, kernel pcs with an embedded kallsyms, a
module known only by an embedded symbol table, unmapped pcs, time mode,
--exclude-idle, csv output.
"""
import csv
import io
import os
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import (FIXTURES, Elf, Tap, addr2line, build_fixtures, eqprof, report_json, share_intervals,
                    write_csv)

Q = 2.94e-3
HZ = 349.0
F_KERNEL, F_IDLE, F_LOST = 0x1, 0x2, 0x8
KALLSYMS = ("ffffffff81000000 T _stext\n"
            "ffffffff81001000 T do_syscall_64\n"
            "ffffffff81002000 t schedule\n"
            "ffffffff81003000 D some_data\n")
EMB_PATH = "/nonexistent/target/prog_emb"


class Scenario:
    """Processes, their maps, samples and the rows each sample must land in."""

    def __init__(self, d, bins):
        self.d = d
        self.elf = {k: Elf(v) for k, v in bins.items()}
        self.maps = {}       # pid -> [lines]
        self.comm = {}
        self.samples = []    # (pid, pc, flags, count)
        self.expect = []     # (count, {by: (name, module)})

    def proc(self, pid, comm, mods):
        """mods: list of (elf key, base[, path as mapped])."""
        lines = []
        for m in mods:
            lines += self.elf[m[0]].maps(m[1], m[2] if len(m) > 2 else None)
        lines.append("7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]")
        self.maps[pid] = lines
        if comm:
            self.comm[pid] = comm

    def hit(self, pid, exe, key, base, func, off, count, path=None, line=True):
        """count samples at func+off of elf key loaded at base in pid."""
        e = self.elf[key]
        vaddr = e.syms[func][0] + off
        assert off < e.syms[func][1], (func, off)
        pc = e.pc(base, vaddr)
        path = path or e.path
        base_name = os.path.basename(path)
        src = addr2line(e.path, vaddr) if line else None
        rows = {
            "exe": (exe, exe),
            "module": (path, base_name),
            "proc": (func, base_name),
            "line": ("%s:%d" % src if src else func, base_name),
            "insn": ("%s+0x%x" % (func, off), base_name),
        }
        self.samples.append((pid, pc, 0, count))
        self.expect.append((count, rows, False))
        return src

    def hit_inlined(self, pid, exe, key, base, outer, marker, count):
        """count samples at the first pc of outer whose line (by addr2line)
        carries marker, i.e. is inside an inlined function; returns it."""
        e = self.elf[key]
        src = os.path.join(FIXTURES, "libfix.c")
        marked = {i + 1 for i, l in enumerate(open(src)) if marker in l}
        start, size = e.syms[outer]
        for off in range(size):
            loc = addr2line(e.path, start + off)
            if loc and loc[1] in marked:
                self.hit(pid, exe, key, base, outer, off, count)
                return loc
        raise RuntimeError("no inlined line of %s in %s" % (marker, outer))

    def unknown(self, pid, exe, key, base, vaddr, func_vaddr, count):
        """count samples in key's code where no symbol covers vaddr, inside
        the function starting at func_vaddr (known from an unstripped copy):
        its row is named by that start alone, never by the nearest symbol
        before it (another function: the PLT entries objdump names in the
        stripped file)."""
        e = self.elf[key]
        base_name = os.path.basename(e.path)
        start = e.text_vaddr_to_offset(func_vaddr)
        name = "%s+0x%x" % (base_name, start)
        rows = {"exe": (exe, exe), "module": (e.path, base_name),
                "proc": (name, base_name), "line": (name, base_name),
                "insn": ("%s+0x%x" % (name, vaddr - func_vaddr), base_name)}
        self.samples.append((pid, e.pc(base, vaddr), 0, count))
        self.expect.append((count, rows, False))

    def special(self, pid, pc, flags, count, exe, module, module_base, proc, insn):
        rows = {"exe": (exe, exe), "module": (module, module_base),
                "proc": (proc, module_base), "line": (proc, module_base),
                "insn": (insn, module_base)}
        self.samples.append((pid, pc, flags, count))
        self.expect.append((count, rows, exe == "[idle]"))

    def series(self, by, exclude_idle=False):
        """The row of every sample in file order (None: an excluded idle one)."""
        out = []
        for count, rows, idle in self.expect:
            out += [None if idle and exclude_idle else rows[by]] * count
        return out

    def expected(self, by, exclude_idle=False):
        want = {}
        for count, rows, idle in self.expect:
            if idle and exclude_idle:
                continue
            want[rows[by]] = want.get(rows[by], 0) + count
        return want

    def import_(self, out, mode_args, samples=None):
        csv_path = os.path.join(self.d, "s.csv")
        write_csv(csv_path, samples or self.samples)
        args = ["import", "--samples", csv_path, "-o", out] + mode_args
        for pid, lines in self.maps.items():
            p = os.path.join(self.d, "%d.maps" % pid)
            with open(p, "w") as f:
                f.write("\n".join(lines) + "\n")
            args += ["--maps", "%d=%s" % (pid, p)]
        for pid, name in self.comm.items():
            args += ["--comm", "%d=%s" % (pid, name)]
        ks = os.path.join(self.d, "kallsyms")
        with open(ks, "w") as f:
            f.write(KALLSYMS)
        emb = os.path.join(self.d, "emb.syms")
        with open(emb, "w") as f:
            e = self.elf["prog_pie"]
            for name, (vaddr, _) in sorted(e.syms.items()):
                f.write("%016x T %s\n" % (e.text_vaddr_to_offset(vaddr), name))
        args += ["--kallsyms", ks, "--symtab", "%s=%s" % (EMB_PATH, emb)]
        return eqprof(*args)


def build_scenario(d, bins):
    s = Scenario(d, bins)
    A, B1, C, L1, L2, L3, S, E = (0x555555554000, 0x7f0000000000, 0x560000000000,
                                  0x7f1000000000, 0x7f2000000000, 0x7f3000000000,
                                  0x565000000000, 0x566000000000)
    s.proc(100, "app", [("prog_pie", A), ("libfix.so", B1)])
    s.proc(200, None, [("prog_o2", 0), ("libfix_o2.so", L1)])
    s.proc(300, "other", [("prog_pie", C), ("libfix.so", L2)])
    s.proc(400, "stripped", [("prog_strip", S), ("libfix_o2.so", L3)])
    s.proc(500, "embedded", [("prog_pie", E, EMB_PATH)])
    # -O0 PIE at two biases; two pcs on different lines of spin_a.
    s.hit(100, "app", "prog_pie", A, "spin_a", 0x4, 400)
    s.hit(100, "app", "prog_pie", A, "spin_a", 0x1c, 90)
    s.hit(300, "other", "prog_pie", C, "spin_a", 0x4, 60)
    s.hit(100, "app", "prog_pie", A, "spin_b", 0x8, 150)
    s.hit(100, "app", "prog_pie", A, "local_helper", 0x2, 35)
    # The shared library at three biases in three processes.
    s.hit(100, "app", "libfix.so", B1, "lib_inner", 0x6, 70)
    s.hit(300, "other", "libfix.so", L2, "lib_inner", 0x6, 11)
    s.hit(300, "other", "libfix.so", L2, "lib_work", 0x3, 5)
    # -O2, not PIE (vaddr != file offset), no comm: exe from the maps.
    s.hit(200, "prog_o2", "prog_o2", 0, "spin_b", 0x2, 120)
    s.hit(200, "prog_o2", "prog_o2", 0, "main", 0x1, 9)
    s.hit(200, "prog_o2", "libfix_o2.so", L1, "lib_inner", 0x4, 33)
    # Stripped -O2 PIE: its functions are gone, the library's are not.
    unstripped = s.elf["prog_o2pie"]
    s.unknown(400, "stripped", "prog_strip", S, unstripped.syms["spin_a"][0] + 2,
              unstripped.syms["spin_a"][0], 44)
    s.unknown(400, "stripped", "prog_strip", S, unstripped.syms["spin_b"][0] + 1,
              unstripped.syms["spin_b"][0], 6)
    s.hit(400, "stripped", "libfix_o2.so", L3, "lib_work", 0x1, 13)
    # Inlined code at -O0 (always_inline) and -O2: proc is the function it was
    # inlined into, the line is the inlined function's (as addr2line says).
    s.inlined = [s.hit_inlined(100, "app", "libfix.so", B1, "lib_outer", "/* inl */", 12),
                 s.hit_inlined(200, "prog_o2", "libfix_o2.so", L1, "lib_outer", "/* inl */", 8)]
    # Known only through the embedded table: procedures, no lines.
    s.hit(500, "embedded", "prog_pie", E, "spin_b", 0x10, 25, path=EMB_PATH, line=False)
    # Idle: pid 0, and EQ_F_IDLE in a process.
    s.special(0, 0xffffffff81002010, F_KERNEL, 50, "[idle]", "[idle]", "[idle]", "[idle]",
              "[idle]")
    s.special(100, 0x555555555000, F_IDLE, 7, "[idle]", "[idle]", "[idle]", "[idle]",
              "[idle]")
    # Kernel work on behalf of a process, through kallsyms.
    s.special(100, 0xffffffff81001040, F_KERNEL, 17, "app", "[kernel.kallsyms]",
              "[kernel.kallsyms]", "do_syscall_64", "do_syscall_64+0x40")
    s.special(300, 0xffffffff81002008, F_KERNEL, 3, "other", "[kernel.kallsyms]",
              "[kernel.kallsyms]", "schedule", "schedule+0x8")
    # Unmapped user pc, right after samples were lost (EQ_F_LOST).
    s.special(100, 0x1234, F_LOST, 4, "app", "[unknown]", "[unknown]", "[unknown]",
              "[unknown] 0x1234")
    return s


def check_rows(t, doc, want, total, what, per_sample, amount_key, series):
    got = {(r["name"], r["module"]): r["samples"] for r in doc["rows"]}
    t.eq(got, want, what + ": rows and samples")
    t.eq(doc["total_samples"], total, what + ": total_samples")
    # write_csv stamps the samples 1000 ns apart
    times = [1000 * (i + 1) for i in range(len(series))] if doc["mode"] == "time" else None
    ivs = share_intervals(series, doc["interval"], times)
    bad = []
    for r in doc["rows"]:
        share = r["samples"] / total
        lo, hi, deff = ivs[(r["name"], r["module"])]
        if abs(r["share"] - share) > 1e-9 or abs(r["ci95_low"] - lo) > 1e-8 or \
           abs(r["ci95_high"] - hi) > 1e-8 or abs(r["deff"] - deff) > 1e-8 * max(1, deff) or \
           abs(r[amount_key] - r["samples"] * per_sample) > 1e-9 * max(1, r[amount_key]):
            bad.append((r, lo, hi, deff))
    t.ok(not bad, what + ": share, %s and %s interval of every row" % (amount_key, doc["interval"]),
         bad)
    order = [r["samples"] for r in doc["rows"]]
    t.ok(order == sorted(order, reverse=True), what + ": rows ordered by samples")


def check_lines_against_addr2line(t, s, doc):
    """Every line row's file:line is what addr2line says for its pcs."""
    names = {r["name"] for r in doc["rows"]}
    want = set()
    for count, rows, idle in s.expect:
        want.add(rows["line"][0])
    t.eq(names, want, "line rows are exactly addr2line's file:line (or proc without lines)")
    with_file = [r for r in doc["rows"] if "file" in r]
    t.ok(with_file and all(r["name"] == "%s:%d" % (r["file"], r["line"]) for r in with_file),
         "line rows carry file and line fields")


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-report-") as d:
        bins = build_fixtures(d)
        s = build_scenario(d, bins)
        total = sum(c for c, _, _ in s.expect)
        idle = sum(c for c, _, i in s.expect if i)
        energy = os.path.join(d, "energy.eqp")
        rc, _, err = s.import_(energy, ["--energy", "2.94mJ"])
        t.eq((rc, err), (0, ""), "import of the crafted energy samples")
        for by in ("exe", "module", "proc", "line", "insn"):
            doc, err = report_json(energy, "--by", by)
            t.eq((doc["mode"], doc["by"], doc["quantum_j"]), ("energy", by, Q),
                 "--by %s: header fields" % by)
            check_rows(t, doc, s.expected(by), total, "--by " + by, Q, "energy_j", s.series(by))
            t.eq((doc["interval"], doc["interval_method"]), ("sampling", "systematic"),
                 "--by %s: the sampling interval by default, and named" % by)
            t.eq(doc["idle_samples"], idle, "--by %s: idle samples counted" % by)
            t.eq(doc["lost_marks"], 4, "--by %s: samples flagged EQ_F_LOST counted" % by)
            if by == "line":
                check_lines_against_addr2line(t, s, doc)
                names = {r["name"] for r in doc["rows"]}
                t.ok(all("%s:%d" % loc in names for loc in s.inlined),
                     "inlined lines appear as the inlined function's source lines", s.inlined)
        doc, _ = report_json(energy, "--by", "proc", "--exclude-idle")
        check_rows(t, doc, s.expected("proc", True), total - idle, "--exclude-idle", Q,
                   "energy_j", s.series("proc", True))
        for excl in ([], ["--exclude-idle"]):
            doc, _ = report_json(energy, "--by", "proc", "--interval", "run-to-run", *excl)
            t.eq((doc["interval"], doc["interval_method"]), ("run-to-run", "batch-means"),
                 "--interval run-to-run %s: named in the json" % excl)
            check_rows(t, doc, s.expected("proc", bool(excl)), total - (idle if excl else 0),
                       "run-to-run " + " ".join(excl), Q, "energy_j", s.series("proc", bool(excl)))
        t.ok(doc["exclude_idle"] is True and doc["idle_samples"] == idle,
             "--exclude-idle: flagged, idle still counted apart")

        rc, out, _ = eqprof("report", energy, "--by", "module", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out)))
        jdoc, _ = report_json(energy, "--by", "module")
        t.eq([(r["name"], r["module"], int(r["samples"])) for r in rows],
             [(r["name"], r["module"], r["samples"]) for r in jdoc["rows"]],
             "csv rows equal json rows")
        t.eq(list(rows[0].keys()), ["name", "module", "samples", "share", "energy_j",
                                    "ci95_low", "ci95_high"], "csv columns")
        rc, out, _ = eqprof("report", energy)
        t.ok(rc == 0 and "energy profile by proc" in out and "spin_a" in out
             and "2.94 mJ" in out, "table output names mode, granularity, quantum", out)

        timef = os.path.join(d, "time.eqp")
        rc, _, err = s.import_(timef, ["--time", "349Hz"])
        doc, _ = report_json(timef, "--by", "proc")
        t.ok(doc["mode"] == "time" and abs(doc["period_s"] - 1 / HZ) < 1e-15,
             "time mode header: mode and period 1/349 s", doc["period_s"])
        check_rows(t, doc, s.expected("proc"), total, "time mode --by proc", 1 / HZ, "time_s",
                   s.series("proc"))
    t.done()


if __name__ == "__main__":
    main()
