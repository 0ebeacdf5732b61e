#!/usr/bin/env python3
"""annotate.py - eqprof annotate against binutils.

Samples are placed on chosen instructions of a real program (crafted, so
every count is known); the instruction list must be objdump's, each
instruction's line addr2line's, each count and energy the crafted one, a pc
inside an instruction counts on that instruction, and the per-line totals
are the sums of their instructions.  Then a real recording of test/record/
spin.c: per-instruction counts add up to report's count for the procedure.
A module whose ELF is missing is annotated by sampled address, saying why;
bad input gets messages.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import (Elf, SRC, Tap, addr2line, build_fixtures, eqprof, run,  # noqa: E402
                    write_csv)

BASE = 0x555555554000
QUANTUM = 2e-3


def objdump_insns(path, func):
    """[(vaddr, text)] of func's instructions, by objdump."""
    out = run(["objdump", "-d", "--no-show-raw-insn", "-M", "intel", path]).stdout
    insns, inside = [], False
    for line in out.splitlines():
        if re.match(r"^[0-9a-f]+ <%s>:$" % re.escape(func), line):
            inside = True
            continue
        if inside:
            m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
            if not m:
                if insns:
                    break
                continue
            insns.append((int(m.group(1), 16), m.group(2).strip()))
    return insns


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-annotate-") as d:
        bins = build_fixtures(d)
        prog = bins["prog_pie"]
        elf = Elf(prog)
        insns = objdump_insns(prog, "spin_a")
        t.ok(len(insns) > 5, "objdump lists spin_a's instructions (%d)" % len(insns))
        # counts 1, 2, 3, ... on every other instruction; one pc one byte
        # into a multi-byte instruction counts on that instruction
        want = {}
        samples = []
        for i, (va, _) in enumerate(insns):
            if i % 2 == 0:
                want[va] = i + 1
                samples.append((7, elf.pc(BASE, va), 0, i + 1))
        long_insn = next(((va, nxt) for (va, _), (nxt, _) in zip(insns, insns[1:])
                          if nxt - va > 1 and va not in want), None)
        if long_insn:
            want[long_insn[0]] = 5
            samples.append((7, elf.pc(BASE, long_insn[0] + 1), 0, 5))
        samples.append((7, elf.pc(BASE, elf.syms["spin_b"][0]), 0, 11))
        maps = os.path.join(d, "p.maps")
        with open(maps, "w") as f:
            f.write("\n".join(elf.maps(BASE)) + "\n")
        csv = os.path.join(d, "s.csv")
        write_csv(csv, samples)
        rec = os.path.join(d, "a.eqp")
        rc, _, err = eqprof("import", "--samples", csv, "--maps", "7=" + maps,
                            "--comm", "7=prog", "--energy", "%gJ" % QUANTUM, "-o", rec)
        t.eq((rc, err), (0, ""), "import the crafted samples")

        rc, out, err = eqprof("annotate", rec, "spin_a", "--format", "json")
        t.eq((rc, err), (0, ""), "annotate spin_a --format json")
        doc = json.loads(out) if rc == 0 else {"functions": [{}]}
        fn = doc["functions"][0]
        got = [(i["address"], i["text"]) for i in fn.get("instructions", [])]
        t.eq([a for a, _ in got], [va for va, _ in insns],
             "the instructions are objdump's, at objdump's addresses")
        t.ok(all(a.split()[0] == b.split()[0] for (_, a), (_, b) in zip(got, insns)),
             "with objdump's mnemonics", list(zip(got, insns))[:5])
        counts = {i["address"]: i["samples"] for i in fn.get("instructions", [])}
        t.eq({a: c for a, c in counts.items() if c}, want,
             "every instruction has its crafted count (a pc inside an instruction counts on it)")
        t.ok(all(abs(i["energy_j"] - i["samples"] * QUANTUM) < 1e-12
                 for i in fn.get("instructions", [])), "energy = samples x quantum")
        t.eq(fn.get("samples"), sum(want.values()), "the procedure's total")
        t.ok(abs(fn.get("share_of_recording", 0) - sum(want.values()) / (sum(want.values()) + 11)) < 1e-9,
             "its share of the recording")
        lines_ok = True
        for i in fn.get("instructions", []):
            fl = addr2line(prog, i["address"])
            if fl and (os.path.basename(fl[0]) != os.path.basename(i["file"] or "") or fl[1] != i["line"]):
                lines_ok = False
        t.ok(lines_ok, "each instruction's source line is addr2line's")
        per_line = {}
        for i in fn.get("instructions", []):
            if i["samples"]:
                per_line[(i["file"], i["line"])] = per_line.get((i["file"], i["line"]), 0) + i["samples"]
        t.eq({(l["file"], l["line"]): l["samples"] for l in fn.get("lines", [])}, per_line,
             "per-line totals are the sums of their instructions")
        rc, out, _ = eqprof("annotate", rec, "spin_a")
        t.ok(rc == 0 and "hottest lines:" in out and "prog.c:" in out,
             "the table names the hottest lines and shows source lines", out[:600])

        # --dso filters by module; a missing procedure is explained
        rc, _, err = eqprof("annotate", rec, "spin_a", "--dso", "libc.so.6")
        t.ok(rc == 1 and "report --by proc" in err, "--dso of another module: no samples, says where to look", err)
        rc, _, err = eqprof("annotate", rec, "no_such_function")
        t.ok(rc == 1 and "no_such_function" in err, "an unknown procedure is named", err)
        rc, _, err = eqprof("annotate", rec)
        t.ok(rc == 2 and "SYMBOL" in err, "no procedure given: usage", err)
        rc, _, err = eqprof("annotate", rec, "spin_a", "-o", rec)
        t.ok(rc == 1 and "is the input" in err, "-o of the recording itself is refused", err)
        rc, out, _ = eqprof("annotate", rec, "spin_a", "--format", "csv")
        t.ok(rc == 0 and out.startswith("proc,module,address,offset,instruction,file,line,samples,share,energy_j"),
             "--format csv", out[:200])

        # a simulated program has no ELF, only the recording's symbol table:
        # sampled addresses only, and why
        sim = os.path.join(d, "sim")
        rc, _, err = eqprof("sim", "CPU-cached", "-o", sim)
        rc, out, err = eqprof("annotate", os.path.join(sim, "energy.eqp"), "update_counter",
                              "--format", "json")
        doc = json.loads(out) if rc == 0 else {"functions": [{}]}
        fn = doc["functions"][0]
        t.ok(rc == 0 and fn.get("disassembled") is False and "not on this machine" in (fn.get("why_not") or "")
             and fn.get("samples", 0) > 0 and all(i["text"] == "" for i in fn["instructions"]),
             "a module with no ELF: sampled addresses only, and it says why", out[:400] + err)

        # a real recording: the instructions' counts add up to report's count
        spin = os.path.join(d, "spin")
        run(["cc", "-O1", "-g", "-pthread", "-o", spin, os.path.join(SRC, "test", "record", "spin.c")])
        rec2 = os.path.join(d, "spin.eqp")
        env = dict(os.environ, SPIN_TRUTH=os.path.join(d, "truth"))
        p = subprocess.run([os.environ.get("EQPROF", "eqprof"), "record", "-t", "2kHz", "-q",
                            "-o", rec2, "--", spin, "400"], env=env, capture_output=True, text=True)
        t.ok(p.returncode == 0, "record spin", p.stderr)
        rc, out, _ = eqprof("report", rec2, "--by", "proc", "--format", "json")
        heavy = [r["samples"] for r in json.loads(out)["rows"] if r["name"] == "heavy"] if rc == 0 else []
        rc, out, err = eqprof("annotate", rec2, "heavy", "--format", "json")
        fn = json.loads(out)["functions"][0] if rc == 0 else {}
        t.ok(heavy and sum(i["samples"] for i in fn.get("instructions", [])) == heavy[0] == fn.get("samples"),
             "on a real recording, heavy()'s instructions add up to report's count", (heavy, err))
        spin_insns = objdump_insns(spin, "heavy")
        t.eq([i["address"] for i in fn.get("instructions", [])], [va for va, _ in spin_insns],
             "and its instructions are objdump's")
    t.done()


main()
