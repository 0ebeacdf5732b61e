#!/usr/bin/env python3
"""safe-inputs.py - what eqprof opens by name is opened safely (issue 18,
item 3): a FIFO or a device named by a recording's maps, by import's
options or given as the recording itself never blocks and is refused by
name; --symfs confines every path beneath it ("/../.." in a maps path and
symlinks, absolute or relative, cannot leave it), while symlinks inside the
sysroot still work the way they do on the target.

Every eqprof run has a time limit: a hang is a failure, not a stuck suite."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import EQPROF, Elf, Tap, build_fixtures, run, write_csv

BASE = 0x555555554000
LIMIT = 120  # seconds; the runs take well under one even under ASan


def eqp(*args):
    """(exit status, stdout, stderr); status None when it did not finish."""
    try:
        p = subprocess.run([EQPROF] + [str(a) for a in args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=LIMIT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % LIMIT
    return p.returncode, p.stdout, p.stderr


def folded(out):
    """{proc: samples} from a folded export."""
    rows = {}
    for line in out.splitlines():
        stack, n = line.rsplit(" ", 1)
        rows[stack.split(";")[-1]] = rows.get(stack.split(";")[-1], 0) + int(n)
    return rows


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-inputs-") as d:
        bins = build_fixtures(d)
        elf = Elf(bins["prog_pie"])
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        csv = os.path.join(d, "s.csv")
        write_csv(csv, [(7, elf.pc(BASE, elf.syms["spin_a"][0] + 1), 0, 30),
                        (7, elf.pc(BASE, elf.syms["spin_b"][0] + 1), 0, 10)])

        def recording(name, path, *extra):
            maps = os.path.join(d, name + ".maps")
            with open(maps, "w") as f:
                f.write("\n".join(elf.maps(BASE, path)) + "\n")
            out = os.path.join(d, name + ".eqp")
            rc, _, err = eqp("import", "--samples", csv, "--maps", "7=" + maps,
                             "--energy", "1mJ", "-o", out, *extra)
            if rc != 0:
                raise RuntimeError("import failed: %s" % err)
            return out

        # The control: the same recording naming the real binary resolves.
        rec = recording("real", bins["prog_pie"])
        rc, out, err = eqp("export", rec, "--format", "folded", "-o", "-")
        t.eq((rc, folded(out)), (0, {"spin_a": 30, "spin_b": 10}),
             "control: the maps name the real binary, procedures resolved")

        # A FIFO in the maps: report and export finish, say what it is.
        rec = recording("fifo", fifo)
        rc, out, err = eqp("report", rec)
        t.ok(rc == 0 and fifo in err and "FIFO" in err and "[unknown]" in out,
             "report: a FIFO named by the maps is not opened; the warning names it", err)
        t.ok("no ELF file found" not in err,
             "report: one warning for it, not a second contradictory 'no ELF file found'", err)
        rc, out, err = eqp("export", rec, "--format", "folded", "-o", "-")
        t.ok(rc == 0 and folded(out) == {"[unknown]": 40} and "FIFO" in err,
             "export: a FIFO named by the maps is not opened", err)
        rec = recording("dev", "/dev/zero")
        rc, out, err = eqp("report", rec)
        t.ok(rc == 0 and "/dev/zero" in err and "character device" in err,
             "report: a device named by the maps is not read", err)

        # import: every input file.
        good_maps = os.path.join(d, "real.maps")
        for what, args in (
                ("--samples", ["--samples", fifo]),
                ("--maps", ["--samples", csv, "--maps", "7=" + fifo]),
                ("--kallsyms", ["--samples", csv, "--kallsyms", fifo]),
                ("--symtab", ["--samples", csv, "--symtab", "/bin/x=" + fifo])):
            out = os.path.join(d, "imp.eqp")
            rc, _, err = eqp("import", *args, "--energy", "1mJ", "-o", out)
            t.ok(rc == 1 and fifo in err and "FIFO" in err and not os.path.exists(out),
                 "import %s naming a FIFO: refused by name, exit 1, no output" % what,
                 "rc=%r err=%s" % (rc, err))
        rc, _, err = eqp("import", "--samples", d, "--maps", "7=" + good_maps,
                         "--energy", "1mJ", "-o", os.path.join(d, "imp.eqp"))
        t.ok(rc == 1 and "directory" in err, "import --samples naming a folder: refused", err)

        # The recording itself.
        for path, kind in ((fifo, "FIFO"), ("/dev/null", "character device"),
                           (d, "directory")):
            for cmd in (["report"], ["power"], ["export", "--format", "csv", "-o", "-"]):
                rc, _, err = eqp(cmd[0], path, *cmd[1:])
                t.ok(rc == 1 and path in err and kind in err,
                     "%s of a %s: refused by name" % (cmd[0], kind), "rc=%r err=%s" % (rc, err))

        # --symfs confines.  The outside binary is a real, matching build, so
        # any escape would resolve it.
        outside = os.path.join(d, "outside", "prog")
        os.makedirs(os.path.dirname(outside))
        shutil.copy(bins["prog_pie"], outside)
        sysroot = os.path.join(d, "sysroot")
        os.makedirs(os.path.join(sysroot, "usr", "bin"))
        os.makedirs(os.path.join(sysroot, "opt", "real"))
        shutil.copy(bins["prog_pie"], os.path.join(sysroot, "opt", "real", "prog"))
        up = "/.." * (sysroot.count("/") + 1)
        os.symlink(outside, os.path.join(sysroot, "usr", "bin", "abs"))
        os.symlink(".." + up + outside, os.path.join(sysroot, "usr", "bin", "rel"))
        os.symlink("/opt/real/prog", os.path.join(sysroot, "usr", "bin", "inside"))
        for name, path in (("dotdot", up + outside),
                           ("abslink", "/usr/bin/abs"),
                           ("rellink", "/usr/bin/rel")):
            # Proof that the path does reach the outside binary naively.
            naive = os.path.realpath(sysroot + path)
            rec = recording("escape-" + name, path)
            rc, out, err = eqp("export", rec, "--format", "folded", "-o", "-",
                               "--symfs", sysroot, "--no-build-id-check")
            t.ok(naive == outside and rc == 0 and folded(out) == {"[unknown]": 40}
                 and "no ELF file found" in err,
                 "--symfs: %s (%s) does not leave the sysroot" % (name, path),
                 "naive=%s rc=%r out=%s err=%s" % (naive, rc, out, err))
        rec = recording("inside", "/usr/bin/inside")
        rc, out, err = eqp("export", rec, "--format", "folded", "-o", "-", "--symfs", sysroot)
        t.eq((rc, folded(out), err), (0, {"spin_a": 30, "spin_b": 10}, ""),
             "--symfs: an absolute symlink inside the sysroot resolves within it")
        rc, _, err = eqp("import", "--samples", csv, "--maps", "7=" + os.path.join(d, "escape-dotdot.maps"),
                         "--energy", "1mJ", "-o", os.path.join(d, "imp.eqp"), "--symfs", sysroot)
        rc2, out, _ = eqp("report", os.path.join(d, "imp.eqp"), "--format", "json")
        t.ok(rc == 0 and rc2 == 0 and "buildid:" not in open(os.path.join(d, "imp.eqp"), "rb").read().decode("latin-1"),
             "import --symfs: no build-id read from outside the sysroot", err)
        rc, _, err = eqp("report", rec, "--symfs", os.path.join(d, "nonexistent"))
        t.ok(rc == 1 and "--symfs" in err and "nonexistent" in err,
             "report --symfs naming no folder: refused by name", err)

        # A debuglink naming a FIFO beside a stripped binary.
        dbg = os.path.join(d, "split")
        os.makedirs(dbg)
        split = os.path.join(dbg, "prog")
        run(["objcopy", "--only-keep-debug", bins["prog_pie"], split + ".debug"])
        run(["strip", "-o", split, bins["prog_pie"]])
        run(["objcopy", "--add-gnu-debuglink=" + split + ".debug", split], cwd=dbg)
        os.unlink(split + ".debug")
        os.mkfifo(split + ".debug")
        rec = recording("dbgfifo", split)
        rc, out, err = eqp("export", rec, "--format", "folded", "-o", "-")
        t.ok(rc == 0 and sum(folded(out).values()) == 40,
             "a debuglink naming a FIFO is skipped, the export finishes", "rc=%r err=%s" % (rc, err))
    t.done()


if __name__ == "__main__":
    main()
