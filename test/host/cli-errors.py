#!/usr/bin/env python3
"""cli-errors.py - every way import, report and compare can be called
wrongly or fed bad input: a message naming the file, line, field or option,
the right exit status (2 usage, 1 failure), and no output file left behind
or half-written."""
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.environ.get("SRC", "."), "test", "analysis"))
from eqtest import EQPROF, Tap, eqprof, run

GOOD_CSV = "time_ns,pc,pid,tid,cpu,flags\n" + "".join(
    "%d,0x%x,5,5,0,0\n" % (1000 * i, 0x401000 + 4 * (i % 50)) for i in range(20000))
GOOD_MAPS = "00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/prog\n"


def write(d, name, text, mode="w"):
    p = os.path.join(d, name)
    with open(p, mode) as f:
        f.write(text)
    return p


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-cli-") as d:
        csvp = write(d, "good.csv", GOOD_CSV)
        maps = write(d, "good.maps", GOOD_MAPS)
        out = os.path.join(d, "out.eqp")

        def imp(*args):
            return eqprof("import", *args)

        def import_fails(what, args, status, *needles):
            rc, _, err = imp(*args)
            t.ok(rc == status and all(n in err for n in needles) and not os.path.exists(out)
                 and not [f for f in os.listdir(d) if ".tmp" in f],
                 "import %s: exit %d, message names %s, no output" % (what, status,
                                                                      ", ".join(needles)),
                 "rc=%d err=%s" % (rc, err))

        base = ["--samples", csvp, "-o", out]
        import_fails("without --samples", ["--energy", "1mJ", "-o", out], 2, "--samples")
        import_fails("without -o", ["--samples", csvp, "--energy", "1mJ"], 2, "-o")
        import_fails("without mode", base, 2, "--energy", "--time")
        import_fails("with both modes", base + ["--energy", "1mJ", "--time", "10Hz"], 2,
                     "exactly one")
        import_fails("bad quantum", base + ["--energy", "lots"], 2, "--energy", "lots")
        import_fails("negative rate", base + ["--time", "-5Hz"], 2, "--time")
        import_fails("unknown option", base + ["--energy", "1mJ", "--frobnicate"], 2,
                     "unknown option '--frobnicate'", "--help")
        import_fails("extra argument", base + ["--energy", "1mJ", "stray"], 2, "stray")
        import_fails("--maps without =", base + ["--energy", "1mJ", "--maps", maps], 2,
                     "PID=")
        import_fails("--maps bad pid", base + ["--energy", "1mJ", "--maps", "x=" + maps], 2,
                     "--maps")
        import_fails("--maps twice for one pid", base + ["--energy", "1mJ", "--maps", "5=" + maps,
                                                        "--maps", "5=" + maps], 2, "pid 5 given twice")
        import_fails("--comm twice for one pid", base + ["--energy", "1mJ", "--comm", "5=a",
                                                        "--comm", "5=b"], 2, "pid 5 given twice")
        import_fails("--comm without name", base + ["--energy", "1mJ", "--comm", "5="], 2,
                     "--comm")
        import_fails("missing maps file", base + ["--energy", "1mJ", "--maps",
                                                  "5=" + d + "/nope.maps"], 1, "nope.maps")
        bad_maps = write(d, "bad.maps", GOOD_MAPS + "00403000-00404000 rwzp 0 08:01 1 /x\n")
        import_fails("bad maps line", base + ["--energy", "1mJ", "--maps", "5=" + bad_maps],
                     1, "bad.maps:2", "permissions")
        overlap = write(d, "overlap.maps", GOOD_MAPS + "00401000-00403000 r-xp 0 08:01 1 /y\n")
        import_fails("overlapping maps", base + ["--energy", "1mJ", "--maps",
                                                 "5=" + overlap], 1, "overlap")
        import_fails("missing samples", ["--samples", d + "/nope.csv", "-o", out, "--energy",
                                         "1mJ"], 1, "nope.csv")
        for name, text, needles in (
                ("empty.csv", "", ["empty.csv", "header"]),
                ("hdr.csv", "time,pc\n1,2\n", ["hdr.csv:1", "header"]),
                ("field.csv", GOOD_CSV + "1,0xzz,1,1,0,0\n", ["field.csv:20002", "pc"]),
                ("few.csv", GOOD_CSV + "1,2,3\n", ["few.csv:20002", "expected 6"]),
                ("many.csv", GOOD_CSV + "1,2,3,4,5,6,7\n", ["many.csv:20002", "more than 6"]),
                ("big.csv", GOOD_CSV + "1,2,99999999999,4,5,6\n", ["big.csv:20002", "pid",
                                                                   "too large"]),
                ("cpu.csv", GOOD_CSV + "1,2,3,4,70000,6\n", ["cpu.csv:20002", "cpu"]),
                ("nul.csv", GOOD_CSV + "1,2\0,3,4,5,6\n", ["nul.csv:20002", "NUL"])):
            p = write(d, name, text)
            import_fails("bad CSV " + name, ["--samples", p, "-o", out, "--energy", "1mJ"],
                         1, *needles)
        bad_syms = write(d, "bad.syms", "ffffffff81000000 T _stext\nnot a symbol line\n")
        import_fails("bad --kallsyms", base + ["--energy", "1mJ", "--kallsyms", bad_syms], 1,
                     "bad.syms:2")
        good_syms = write(d, "good.syms", "ffffffff81000000 T _stext\n")
        import_fails("--kallsyms twice", base + ["--energy", "1mJ", "--kallsyms", good_syms,
                                                 "--kallsyms", good_syms], 2, "twice")
        import_fails("--symtab without =", base + ["--energy", "1mJ", "--symtab", bad_syms], 2,
                     "MODULE=FILE")
        rc, _, err = imp("--samples", csvp, "-o", d + "/no/such/dir/x.eqp", "--energy", "1mJ")
        t.ok(rc == 1 and "no/such/dir" in err, "import into a missing directory: named", err)

        # A failed import never touches an existing output.
        rc, _, err = imp(*base, "--energy", "1mJ", "--maps", "5=" + maps)
        t.eq((rc, err), (0, ""), "good import")
        before = open(out, "rb").read()
        p = write(d, "late.csv", GOOD_CSV + "garbage\n")
        rc, _, err = imp("--samples", p, "-o", out, "--energy", "2mJ")
        t.ok(rc == 1 and open(out, "rb").read() == before and
             not [f for f in os.listdir(d) if ".tmp" in f],
             "bad line after 20000 good ones: existing output unchanged, no temporary", err)
        rc, _, err = imp("--samples", write(d, "hdronly.csv", "time_ns,pc,pid,tid,cpu,flags\n"),
                         "-o", os.path.join(d, "empty.eqp"), "--time", "100Hz")
        t.ok(rc == 0 and "no samples" in err, "header-only CSV: imported with a warning", err)
        rc, so, err = eqprof("report", os.path.join(d, "empty.eqp"), "--format", "json")
        # no sample is an error in report as in power (issue 28 item 8)
        t.ok(rc == 1 and not so and "holds no sample" in err,
             "report of an empty recording: exit 1, saying it holds no sample", so + err)

        # report / compare usage errors.
        for args, needle in ((["report"] + [out] * 65, "too many"),
                             (["report", out, "--by", "function"], "--by function"),
                             (["report", out, "--format", "xml"], "--format xml"),
                             (["report", out, "--bogus"], "'--bogus'"),
                             (["compare", out], "two recordings"),
                             (["compare", out, out, "--by", "x"], "--by x")):
            rc, _, err = eqprof(*args)
            t.ok(rc == 2 and needle in err, "%s: usage error names %s" % (" ".join(
                a if a != out else "OUT" for a in args), needle), "rc=%d %s" % (rc, err))
        # Without a file, report reads eqprof.eqp (what record writes), as
        # perf report reads perf.data, and says so when there is none.
        p = run([EQPROF, "report"], check=False, cwd=d)
        t.ok(p.returncode == 1 and "eqprof.eqp" in p.stderr and "give FILE.eqp" in p.stderr,
             "report with no file and no eqprof.eqp: named, exit 1", p.stderr)
        shutil.copy(out, os.path.join(d, "eqprof.eqp"))
        p = run([EQPROF, "report", "--format", "json"], check=False, cwd=d)
        t.ok(p.returncode == 0 and '"rows"' in p.stdout, "report with no file reads eqprof.eqp",
             p.stderr)
        os.unlink(os.path.join(d, "eqprof.eqp"))
        rc, so, _ = eqprof("report", "--help")
        t.ok(rc == 0 and "--exclude-idle" in so, "report --help")

        # Bad recordings.
        rc, _, err = eqprof("report", d + "/missing.eqp")
        t.ok(rc == 1 and "missing.eqp" in err, "report of a missing file", err)
        empty = write(d, "zero.eqp", b"", "wb")
        rc, _, err = eqprof("report", empty)
        t.ok(rc == 1 and "zero.eqp" in err, "report of an empty file: refused, named", err)
        junk = write(d, "junk.eqp", b"this is not a recording at all\n" * 10, "wb")
        rc, _, err = eqprof("report", junk)
        t.ok(rc == 1 and "junk.eqp" in err, "report of a non-recording: refused, named", err)
        data = bytearray(before)
        data[len(data) // 2] ^= 0xff
        corrupt = write(d, "corrupt.eqp", bytes(data), "wb")
        rc, _, err = eqprof("report", corrupt)
        t.ok(rc == 1 and "corrupt.eqp" in err and "offset" in err,
             "report of a corrupt file: refused with chunk and byte offset", err)
        trunc = write(d, "trunc.eqp", before[:len(before) * 2 // 3], "wb")
        rc, so, err = eqprof("report", trunc, "--format", "json")
        # cut inside a chunk, as a killed recorder's file often is (its
        # writer's buffer holds whole blocks, not whole chunks): unfinished
        t.ok(rc == 0 and "warning" in err and "unfinished recording" in err and '"rows"' in so,
             "report of a truncated file: read up to the last complete chunk, warned that it "
             "is unfinished", err)
        rc, _, err = eqprof("report", out, "-o", d + "/no/dir/r.txt")
        t.ok(rc == 1 and "no/dir" in err, "report -o into a missing directory", err)
        rc, _, err = eqprof("compare", out, d + "/missing.eqp")
        t.ok(rc == 1 and "missing.eqp" in err, "compare with a missing second file", err)
        rc, _, err = eqprof("compare", out, out)
        t.ok(rc == 1 and "time-driven" in err, "compare of two energy recordings", err)
    t.done()


if __name__ == "__main__":
    main()
