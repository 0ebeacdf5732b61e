#!/usr/bin/env python3
"""buildid-symfs.py - binaries looked up under --symfs, and build-ids
recorded at import refusing a rebuilt binary (with --no-build-id-check as
the way out)."""
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import (Elf, Tap, addr2line, build_fixtures, cc, eqprof, report_json, run,
                    write_csv, FIXTURES)

BASE = 0x555555554000
TARGET_PATH = "/opt/eqtarget/bin/prog"


def recording(d, name, elf, path, funcs, extra=()):
    maps = os.path.join(d, name + ".maps")
    with open(maps, "w") as f:
        f.write("\n".join(elf.maps(BASE, path)) + "\n")
    samples = [(7, elf.pc(BASE, elf.syms[fn][0] + 1), 0, n) for fn, n in funcs]
    csv_path = os.path.join(d, name + ".csv")
    write_csv(csv_path, samples)
    out = os.path.join(d, name + ".eqp")
    rc, _, err = eqprof("import", "--samples", csv_path, "--maps", "7=" + maps,
                        "--energy", "1mJ", "-o", out, *extra)
    return out, rc, err


def rows(doc):
    return {(r["name"], r["module"]): r["samples"] for r in doc["rows"]}


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-symfs-") as d:
        bins = build_fixtures(d)
        elf = Elf(bins["prog_pie"])
        funcs = [("spin_a", 30), ("spin_b", 10)]

        # --symfs: the maps name a target path that does not exist here.
        symfs = os.path.join(d, "sysroot")
        os.makedirs(symfs + os.path.dirname(TARGET_PATH))
        shutil.copy(bins["prog_pie"], symfs + TARGET_PATH)
        rec, rc, err = recording(d, "target", elf, TARGET_PATH, funcs, ["--symfs", symfs])
        t.eq((rc, err), (0, ""), "import with --symfs reads the target's build-id")
        doc, err = report_json(rec)
        t.eq(rows(doc), {("[unknown]", "prog"): 40}, "without --symfs: [unknown] in prog")
        t.ok("no ELF file found" in err and TARGET_PATH in err and "--symfs" in err,
             "without --symfs: warning names the module and suggests --symfs", err)
        doc, err = report_json(rec, "--symfs", symfs)
        t.eq(rows(doc), {("spin_a", "prog"): 30, ("spin_b", "prog"): 10},
             "with --symfs: procedures resolved from the sysroot")
        t.eq(err, "", "with --symfs: no warning")
        other = os.path.join(d, "othersys")
        os.makedirs(other + os.path.dirname(TARGET_PATH))
        shutil.copy(bins["prog_o2pie"], other + TARGET_PATH)
        doc, err = report_json(rec, "--symfs", other)
        t.ok(rows(doc) == {("[unknown]", "prog"): 40} and "build-id" in err,
             "--symfs with a different build of the target: refused by build-id", err)

        # Stripped binary with its debug info in a separate file (debuglink).
        dbg = os.path.join(d, "split")
        os.makedirs(dbg)
        split = os.path.join(dbg, "prog")
        run(["objcopy", "--only-keep-debug", bins["prog_o2pie"], split + ".debug"])
        run(["strip", "-o", split, bins["prog_o2pie"]])
        run(["objcopy", "--add-gnu-debuglink=" + split + ".debug", split], cwd=dbg)
        selff = Elf(bins["prog_o2pie"])
        rec, rc, err = recording(d, "split", selff, split, funcs)
        doc, err = report_json(rec)
        t.eq(rows(doc), {("spin_a", "prog"): 30, ("spin_b", "prog"): 10},
             "stripped binary + separate debug file: procedures from the debug file")
        doc, err = report_json(rec, "--by", "line")
        want = {"%s:%d" % addr2line(bins["prog_o2pie"], selff.syms[fn][0] + 1) for fn, _ in funcs}
        t.eq({r["name"] for r in doc["rows"]}, want,
             "stripped binary + separate debug file: lines as addr2line on the unstripped one")

        # A sysroot whose binary is stripped and whose debug info sits in its
        # own /usr/lib/debug/.build-id tree; the maps say the file was deleted.
        sysroot = os.path.join(d, "sysroot2")
        os.makedirs(sysroot + os.path.dirname(TARGET_PATH))
        run(["strip", "-o", sysroot + TARGET_PATH, bins["prog_o2pie"]])
        bid = re.search(r"Build ID: ([0-9a-f]+)",
                        run(["readelf", "-n", bins["prog_o2pie"]]).stdout).group(1)
        ddir = os.path.join(sysroot, "usr/lib/debug/.build-id", bid[:2])
        os.makedirs(ddir)
        run(["objcopy", "--only-keep-debug", bins["prog_o2pie"],
             os.path.join(ddir, bid[2:] + ".debug")])
        rec, rc, err = recording(d, "sysdbg", selff, TARGET_PATH + " (deleted)", funcs)
        doc, err = report_json(rec, "--symfs", sysroot, "--by", "line")
        t.eq({r["name"] for r in doc["rows"]}, want,
             "--symfs: a deleted, stripped binary gets lines from the sysroot's build-id debug tree")

        # Build-id: record against one build, then rebuild the binary in place.
        here = os.path.join(d, "rebuilt", "prog")
        os.makedirs(os.path.dirname(here))
        shutil.copy(bins["prog_pie"], here)
        rec, rc, err = recording(d, "bid", elf, here, funcs)
        t.eq(rc, 0, "import records the build-id of the mapped file")
        doc, err = report_json(rec)
        t.eq(rows(doc), {("spin_a", "prog"): 30, ("spin_b", "prog"): 10},
             "same binary: resolved")
        cc(here, [os.path.join(FIXTURES, "prog.c")], "-O1", "-fPIE", "-pie",
           "-L" + d, "-lfix")
        doc, err = report_json(rec)
        t.eq(rows(doc), {("[unknown]", "prog"): 40}, "rebuilt binary: symbols refused")
        t.ok("build-id" in err and here in err, "rebuilt binary: warning names build-ids", err)
        t.ok("no ELF file found" not in err,
             "rebuilt binary: no second, contradictory 'no ELF file found' warning", err)
        doc, err = report_json(rec, "--no-build-id-check")
        t.ok("build-id" not in err and sum(rows(doc).values()) == 40,
             "--no-build-id-check uses the binary anyway, without the warning", err)
    t.done()


if __name__ == "__main__":
    main()
