#!/usr/bin/env python3
"""damaged-inputs.py - damaged and absurd recordings through every analysis
(issue 18): a flipped length bit is refused as corruption with the chunk and
offset, not read as a truncation; what a truncated recording loses is in the
output of report, compare, power and export, not only on standard error;
numbers no recording can hold (infinite clocks and quanta, negative board
clocks, NaN) are refused naming the field; inputs that once reached
undefined behaviour (no samples at all, a clock of 1e-300 Hz) give a clean
result (this test also runs against the gcc and clang ASan+UBSan builds,
where undefined behaviour aborts).

Recordings are made byte by byte (test/lib/eqpcraft.py) from
docs/format.md, so the expected numbers do not come from eqprof's writer."""
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
SRC = os.environ.get("SRC", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(SRC, "test", "analysis"))
sys.path.insert(0, os.path.join(SRC, "test", "lib"))
from eqtest import EQPROF, Tap
import eqpcraft as ec

LIMIT = 120


def eqp(*args):
    try:
        p = subprocess.run([EQPROF] + [str(a) for a in args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=LIMIT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def twenty_thousand(mode=1, **head):
    """The audit's recording: 20 000 energy samples in five SAMP chunks."""
    rec = ec.Recording(mode=mode, **head)
    flags = 4 if mode == 1 else 0
    rec.samples([(1000 * (i + 1), 0x401000 + 4 * (i % 50), 5, 5, i, 0, flags)
                 for i in range(20000)])
    return rec


ANALYSES = (["report"], ["power"], ["export", "--format", "folded", "-o", "-"],
            ["export", "--format", "pprof", "-o", "-"])


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-damaged-") as d:
        good = twenty_thousand().bytes()
        offs = ec.chunk_offsets(good)
        good_path = write(d, "good.eqp", good)
        time_path = write(d, "time.eqp", twenty_thousand(mode=2, quantum=0, rate=1e6).bytes())

        # One flipped bit in the second SAMP chunk's length: every bit.
        at, ctype, length = offs[2]
        accepted = []
        for bit in range(64):
            bad = bytearray(good)
            bad[at + 8 + bit // 8] ^= 1 << (bit % 8)
            path = write(d, "flip.eqp", bytes(bad))
            rc, out, err = eqp("report", path)
            if not (rc == 1 and "chunk 2 (SAMP) at byte offset %d" % at in err
                    and "corrupt" in err):
                accepted.append((bit, rc, err.strip()))
        t.eq(accepted, [], "report: each of the 64 length bits of chunk 2 flipped: refused "
             "as corrupt, naming chunk 2 and byte offset %d" % at)
        # The audit's flip (bit 20: 1 MiB more, past the end): every analysis.
        bad = bytearray(good)
        bad[at + 8 + 2] ^= 0x10
        path = write(d, "flip20.eqp", bytes(bad))
        for cmd in ANALYSES:
            rc, out, err = eqp(cmd[0], path, *cmd[1:])
            t.ok(rc == 1 and "chunk 2 (SAMP) at byte offset %d" % at in err and "corrupt" in err,
                 "%s: a length bit flipped past the end is corruption, not truncation" %
                 " ".join(cmd[:3]), "rc=%r err=%s" % (rc, err))
        rc, out, err = eqp("compare", time_path, path)
        t.ok(rc == 1 and "chunk 2 (SAMP)" in err, "compare: the damaged recording is refused", err)

        # Truncated in the middle of the last SAMP chunk: how much is lost.
        at5, _, _ = offs[5]
        cut = at5 + 16 + 8 + 32 * 1000 + 5        # 1000 whole samples and a bit
        path = write(d, "cut.eqp", good[:cut])
        want = {"chunks": 1, "bytes": cut - at5, "samples": 20000 - 4 * 4096, "truncated": True}
        rc, out, err = eqp("report", path, "--format", "json")
        doc = json.loads(out) if rc == 0 else {}
        t.eq((rc, doc.get("total_samples"), doc.get("skipped")), (0, 4 * 4096, want),
             "report --format json: skipped chunks, bytes and samples of a truncated recording")
        rc, out, err = eqp("report", path)
        line = "# skipped (not in this profile): 1 chunk, %d bytes, %d samples (the recording was cut short)" % (
            cut - at5, 20000 - 4 * 4096)
        t.ok(rc == 0 and line in out.splitlines()[:4],
             "report: the table's heading says what was skipped", out[:400])
        rc, out, err = eqp("report", good_path, "--format", "json")
        t.eq(json.loads(out)["skipped"] if rc == 0 else None,
             {"chunks": 0, "bytes": 0, "samples": 0, "truncated": False},
             "report --format json: an intact recording skipped nothing")
        rc, out, err = eqp("compare", time_path, path, "--format", "json")
        doc = json.loads(out) if rc == 0 else {}
        t.eq((doc.get("energy_skipped"), (doc.get("time_skipped") or {}).get("chunks")), (want, 0),
             "compare --format json: energy_skipped and time_skipped")
        rc, out, err = eqp("compare", time_path, path)
        t.ok(rc == 0 and "# skipped in %s (not compared): 1 chunk" % path in out,
             "compare: the table says what was skipped", out[:400])
        rc, out, err = eqp("power", path, "--format", "json")
        doc = json.loads(out) if rc == 0 else {}
        t.eq(doc.get("recordings", [{}])[0].get("skipped"), want,
             "power --format json: skipped")
        rc, out, err = eqp("power", path)
        t.ok(rc == 0 and "cut.eqp: skipped (not in these figures): 1 chunk" in out,
             "power: the summary says what was skipped", out)
        rc, out, err = eqp("power", path, "--format", "csv")
        rows = out.splitlines()
        cols = dict(zip(rows[0].split(","), rows[1].split(","))) if rc == 0 and len(rows) > 1 else {}
        t.eq([cols.get(k) for k in ("skipped_chunks", "skipped_bytes", "skipped_samples", "truncated")],
             ["1", str(cut - at5), str(20000 - 4 * 4096), "1"], "power --format csv: skipped columns")
        rc, out, err = eqp("export", path, "--format", "callgrind", "-o", "-")
        t.ok(rc == 0 and "desc: Skipped: 1 chunk, %d bytes, %d samples" % (cut - at5, 20000 - 4 * 4096) in out,
             "export callgrind: desc: Skipped:", out[:400])
        rc, out, err = eqp("export", path, "--format", "chrome", "-o", "-")
        doc = json.loads(out) if rc == 0 else {}
        t.eq(doc.get("otherData", {}).get("skipped"), want, "export chrome: otherData.skipped")
        pb = os.path.join(d, "cut.pb.gz")
        rc, out, err = eqp("export", path, "--format", "pprof", "-o", pb)
        raw = gzip.decompress(open(pb, "rb").read()) if rc == 0 else b""
        t.ok(("skipped (not in this profile): 1 chunk, %d bytes" % (cut - at5)).encode() in raw,
             "export pprof: a comment in the string table says what was skipped", err)
        garbage(t, d)
        chains(t, d)
        undefined_behaviour(t, d)
        smaller(t, d)
    t.done()


def garbage(t, d):
    """Every numeric field range-checked: a message naming it, exit 1."""
    inf, nan = float("inf"), float("nan")
    samples = [(1000 * (i + 1), 0x401000, 5, 5, i, 0, 4) for i in range(10)]
    heads = (("quantum +inf", dict(quantum=inf), "quantum"),
             ("quantum NaN", dict(quantum=nan), "quantum"),
             ("quantum -1", dict(quantum=-1.0), "quantum"),
             ("clock +inf", dict(clock=inf), "target clock"),
             ("clock 0", dict(clock=0.0), "target clock"),
             ("clock -1e9", dict(clock=-1e9), "target clock"),
             ("rate +inf", dict(mode=2, quantum=0.0, rate=inf), "sampling rate"),
             ("rate NaN", dict(mode=2, quantum=0.0, rate=nan), "sampling rate"),
             # finite, but a quantum over a tick is then an infinite power
             # (fuzz_export: 5.3e305 J at 5.1e180 Hz)
             ("quantum 5e305 J", dict(quantum=5.3e305), "quantum"),
             ("clock 5e180 Hz", dict(clock=5.1e180), "target clock"))
    for what, head, field in heads:
        path = write(d, "garbage.eqp", ec.Recording(**head).samples(samples).bytes())
        for cmd in (["report"], ["power"], ["export", "--format", "csv", "-o", "-"]):
            rc, out, err = eqp(cmd[0], path, *cmd[1:])
            t.ok(rc == 1 and "chunk 0 (HEAD) at byte offset 16" in err and field in err,
                 "%s: header %s refused, naming the field" % (cmd[0], what),
                 "rc=%r err=%s" % (rc, err))
    boards = (("clock -16 MHz", dict(clock=-16e6)), ("clock NaN", dict(clock=nan)),
              ("clock 0", dict(clock=0.0)), ("E_min -46 uJ", dict(e_min=-46e-6)),
              ("E_min +inf", dict(e_min=inf)), ("E_min NaN", dict(e_min=nan)),
              ("battery voltage +inf", dict(vb=inf)), ("dead time -1 s", dict(dead=-1.0)),
              # out of range though finite: each made some power infinite
              # (fuzz_export: a 5e-310 V nominal voltage)
              ("battery voltage 5e-310 V", dict(vb=5e-310)), ("battery voltage 2 kV", dict(vb=2e3)),
              ("E_min 1e300 J", dict(e_min=1e300)), ("clock 1e300 Hz", dict(clock=1e300)),
              ("dead time 1e300 s", dict(dead=1e300)))
    for what, b in boards:
        rec = ec.Recording(mode=2, quantum=0.0, rate=1000.0).samples(samples)
        rec.add(ec.binf(**b)).add(ec.brec([(100 * i, i, 64, 4000000, 0) for i in range(5)]))
        path = write(d, "garbage.eqp", rec.bytes())
        rc, out, err = eqp("power", path)
        t.ok(rc == 1 and "(BINF)" in err and "board clock" in err and "E_min" in err,
             "power: board info with %s refused, naming the fields" % what,
             "rc=%r err=%s" % (rc, err))
    csv = write(d, "s.csv", b"time_ns,pc,pid,tid,cpu,flags\n1000,0x1000,5,5,0,0\n2000,0x1000,5,5,0,0\n")
    out = os.path.join(d, "imported.eqp")
    for value in ("1e308GJ", "infJ", "nanJ", "1e309mJ", "2MJ"):
        rc, _, err = eqp("import", "--samples", csv, "--energy", value, "-o", out)
        t.ok(rc == 2 and "--energy" in err and value in err and not os.path.exists(out),
             "import --energy %s: refused, no output" % value, "rc=%r err=%s" % (rc, err))
    rc, _, err = eqp("import", "--samples", csv, "--time", "1e308GHz", "-o", out)
    t.ok(rc == 2 and "--time" in err and not os.path.exists(out),
         "import --time 1e308GHz: refused, no output", err)


def chains(t, d):
    """A damaged CHNS chunk: refused with eqp_open()'s message (the chunk,
    its offset, what is wrong) by report's inclusive view, which checks each
    chunk's chains as it reads them, by its flat view, by export (which
    checks the file when it opens it), and before a damaged SAMP chunk
    after it; nothing printed on standard output."""
    rec = ec.Recording(mode=2, quantum=0.0, rate=1000.0)
    for part in range(3):
        base = 4096 * part
        rec.add(ec.samp([ec.sample(1000 * (base + i + 1), 0x401000 + 16 * (i % 40), 5, 5, base + i)
                         for i in range(4096)]))
        rec.nsamples += 4096
        rec.add(ec.chns([([], [0x401000 + 16 * (i % 40), 0x402000, 0x403000 + (i % 3)])
                         for i in range(4096)]))
    good = rec.bytes()
    at, ctype, length = [c for c in ec.chunk_offsets(good) if c[1] == b"CHNS"][1]
    flipped = bytearray(good)
    flipped[at + 16 + 8 + 8 * 5 * 100 + 12] ^= 0x20          # a frame of chain 100
    wide = bytearray(good)
    wide[at + 16 + 8 + 3] = 0xff                             # chain 0: 65283 user frames
    wide[at + 16 + length:at + 20 + length] = struct.pack("<I", ec.crc32c(bytes(wide[at:at + 16 + length])))
    later = bytearray(flipped)
    last = [c for c in ec.chunk_offsets(good) if c[1] == b"SAMP"][2][0]
    later[last + 16 + 8 + 32 * 7] ^= 0x01                    # and a sample after it
    cases = (("a frame's bit flipped", flipped, "checksum mismatch"),
             ("65283 user frames where 3 are, under a right CRC", wide,
              "call chain 0 of 0+65283 frames does not fit the chunk"),
             ("a frame's bit flipped, and a later sample's", later, "checksum mismatch"))
    want_at = "chunk 4 (CHNS) at byte offset %d" % at
    path = write(d, "chains.eqp", good)
    rc, out, err = eqp("report", path)
    t.ok(rc == 0 and "children" in out, "report of the intact recording with call chains: "
         "its inclusive view", "rc=%r err=%s" % (rc, err))
    for what, data, why in cases:
        path = write(d, "chains.eqp", bytes(data))
        for cmd in (["report"], ["report", "--children", "--call-graph"], ["report", "--no-children"],
                    ["export", "--format", "folded", "-o", "-"]):
            rc, out, err = eqp(cmd[0], path, *cmd[1:])
            t.ok(rc == 1 and want_at in err and why in err and "corrupt" in err and out == "",
                 "%s of a recording with call chains, %s: refused naming the CHNS chunk, its "
                 "offset and %r, nothing on standard output" % (" ".join(cmd), what, why),
                 "rc=%r out=%r err=%s" % (rc, out[:200], err))


def symt(module, syms, absolute=1):
    body = b"".join(struct.pack("<QQI", a, s, len(n)) + n for a, s, n in syms)
    return ec.chunk("SYMT", struct.pack("<III", absolute, len(syms), len(module)) + module + body)


def smaller(t, d):
    """Item 9 of issue 18."""
    # Two [kernel.kallsyms] tables: the first is used, nothing leaks (the
    # sanitizer builds' LeakSanitizer fails the run on a leak).
    rec = ec.Recording().samples([(1000 * (i + 1), 0xffffffff81000010, 5, 5, i, 0, 5)
                                   for i in range(20)])
    rec.add(symt(b"[kernel.kallsyms]", [(0xffffffff81000000, 0x100, b"first_table")]))
    rec.add(symt(b"[kernel.kallsyms]", [(0xffffffff81000000, 0x100, b"second_table")]))
    path = write(d, "kallsyms2.eqp", rec.bytes())
    rc, out, err = eqp("report", path)
    t.ok(rc == 0 and "first_table" in out and "second_table" not in out,
         "two [kernel.kallsyms] tables: the first is used, exit 0 (no leak)", "rc=%r %s %s" % (rc, out, err))
    # A target description with line breaks stays one callgrind line.
    rec = ec.Recording(target=b"board\ncmd: evil\rx").samples(
        [(1000 * (i + 1), 0x401000, 5, 5, i, 0, 4) for i in range(20)])
    path = write(d, "target.eqp", rec.bytes())
    rc, out, err = eqp("export", path, "--format", "callgrind", "-o", "-")
    lines = out.splitlines()
    t.ok(rc == 0 and "desc: Target: board cmd: evil x" in lines and
         not [l for l in lines if l.startswith("cmd: evil")],
         "export callgrind: a target with line breaks stays on its desc: line", out[:300])
    # -o with only --trace: nothing would be written there; said, exit 2.
    good = os.path.join(d, "good.eqp")
    trace, other = os.path.join(d, "t.csv"), os.path.join(d, "o.txt")
    rc, out, err = eqp("power", good, "--trace", trace, "-o", other)
    t.ok(rc == 2 and "-o" in err and "--summary" in err and not os.path.exists(other),
         "power --trace X -o Y: -o is not silently ignored", "rc=%r err=%s" % (rc, err))
    rc, out, err = eqp("power", good, "--trace", trace, "--summary", "-o", other)
    t.ok(rc == 0 and os.path.exists(other) and os.path.exists(trace),
         "power --trace X --summary -o Y: both written", err)


def undefined_behaviour(t, d):
    """Inputs that reached undefined behaviour in 0.1 (issue 18, item 6)."""
    cases = [("no samples", ec.Recording().bytes(),
              ["folded", "pprof", "callgrind", "chrome", "csv"])]
    for clock in (1e-300, 1e-310):
        # So slow that 2^64 ticks are an infinite number of seconds: refused.
        rec = ec.Recording(clock=clock).samples([(1000, 0x401000, 5, 5, 0, 0, 4)])
        path = write(d, "slow.eqp", rec.bytes())
        rc, out, err = eqp("export", path, "--format", "pprof", "-o", os.path.join(d, "ub.out"))
        t.ok(rc == 1 and "target clock" in err and "runtime error" not in err,
             "a clock of %g Hz is refused by the reader" % clock, "rc=%r err=%s" % (rc, err))
    for clock in (1e-280, 1e-30):
        rec = ec.Recording(clock=clock).samples(
            [(1000 * (i + 1), 0x401000, 5, 5, i, 0, 4) for i in range(200)])
        cases.append(("a clock of %g Hz" % clock, rec.bytes(),
                      ["folded", "pprof", "callgrind", "chrome", "csv"]))
    for what, data, formats in cases:
        path = write(d, "ub.eqp", data)
        for fmt in formats:
            rc, out, err = eqp("export", path, "--format", fmt, "-o", os.path.join(d, "ub.out"))
            if what == "no samples":  # an error in every command (issue 28 item 8)
                t.ok(rc == 1 and "holds no sample" in err and "runtime error" not in err,
                     "export --format %s of a recording with %s: exit 1 saying so, no undefined "
                     "behaviour" % (fmt, what), "rc=%r err=%s" % (rc, err[-600:]))
                continue
            t.ok(rc == 0 and "runtime error" not in err,
                 "export --format %s of a recording with %s: exit 0, no undefined behaviour" %
                 (fmt, what), "rc=%r err=%s" % (rc, err[-600:]))
        if what == "no samples":
            continue
        for args in (["--trace", os.path.join(d, "x.svg")], ["--trace", os.path.join(d, "x.csv")],
                     ["--hist", os.path.join(d, "h.csv")], ["--format", "json"]):
            rc, out, err = eqp("power", path, *args)
            t.ok(rc == 0 and "runtime error" not in err,
                 "power %s of a recording with %s: exit 0, no undefined behaviour" %
                 (args[0], what), "rc=%r err=%s" % (rc, err[-600:]))


if __name__ == "__main__":
    main()
