#!/usr/bin/env python3
"""damaged-inputs.py - damaged and absurd recordings through every analysis
(issue 18): a flipped length bit is refused as corruption with the chunk and
offset, not read as a truncation; what a truncated recording loses is in the
output of report, compare, power and export, not only on standard error.

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
    t.done()


if __name__ == "__main__":
    main()
