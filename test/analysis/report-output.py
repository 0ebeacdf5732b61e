#!/usr/bin/env python3
"""report-output.py - what report, compare and diff print around their
numbers, as a new user reads it (issue 28, "daily use"):

  - several time recordings at different sampling rates pooled: the header
    gives their time (each recording's samples x its own period, computed
    here from the CSVs given to `eqprof import`), not "sampling rate
    unknown: shares only" above a table of times;
  - `--by exe` and `--by exe,state` tables do not repeat a row's name in a
    module column (the name is the only label; CSV keeps its module field);
  - a recording cut before its first complete chunk of samples is an error
    in every command that reads samples (exit 1, naming where the file
    ends: the byte count `head -c` was given), as is one that holds none;
    power still reads a cut file's complete board records;
  - noise (issue 28 item 3): a balanced board cross-check (a simulated
    recording holds the board's stream; every interrupt is a sample) is
    not said by report, compare, diff or power, and is said in full with
    -v; samples without a symbol are one line in a table of procedures,
    a line per module with why under -v, and nothing in a table by exe.

Exact checks: nothing here is statistical."""
import csv
import io
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import Tap, eqprof  # noqa: E402


def write_samples(path, n, pid=1):
    with open(path, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i in range(n):
            f.write("%d,0x1000,%d,%d,0,0\n" % (1000000 * (i + 1), pid, pid))


def pooled_rates(t, d):
    # 300 samples at 1 kHz (1 ms each) and 200 at 4 kHz (250 us each)
    runs = []
    for name, n, hz in (("a", 300, 1000), ("b", 200, 4000)):
        s = os.path.join(d, name + ".csv")
        write_samples(s, n)
        rec = os.path.join(d, name + ".eqp")
        rc, _, err = eqprof("import", "--samples", s, "--time", str(hz), "--comm", "1=app", "-o", rec)
        t.ok(rc == 0, "import %s at %d Hz" % (name, hz), err)
        runs.append(rec)
    want_s = 300 / 1000 + 200 / 4000          # 0.35 s, from the imported counts and rates
    rc, out, err = eqprof("report", *runs, "-q")
    head = out.splitlines()[1] if rc == 0 else ""
    t.ok(rc == 0 and "shares only" not in head and
         "500 samples of 2 recordings with different sampling rates = 350 ms" in head,
         "pooled recordings at 1 kHz and 4 kHz: the header gives their time (%g s)" % want_s, out + err)
    rc, out, _ = eqprof("report", *runs, "-q", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    t.ok(rc == 0 and abs(sum(float(r["time_s"]) for r in rows) - want_s) < 1e-9,
         "... and the rows' times add up to it", out)


def module_column(t, d):
    run = os.path.join(d, "music")
    rc, _, err = eqprof("sim", "Music", "-o", run, "-q")
    t.ok(rc == 0, "sim Music", err)
    rec = os.path.join(run, "energy.eqp")
    for by in ("exe", "exe,state", "state"):
        rc, out, err = eqprof("report", rec, "--by", by, "-q")
        lines = out.splitlines()
        head = [l for l in lines if l.lstrip().startswith("share ")]
        rows = [l for l in lines if l and not l.startswith("#") and l not in head]
        wm = [l for l in rows if "wmplayer" in l]
        t.ok(rc == 0 and head and "module" not in head[0] and head[0].rstrip().endswith(by) and
             (by == "state" and rows and all(r.split()[-2:][0].endswith("MHz") for r in rows) or
              wm and wm[0].count("wmplayer") == 1),
             "report --by %s: each row named once, no module column" % by, out)
    rc, out, _ = eqprof("report", rec, "--by", "proc,state", "-q")
    head = [l for l in out.splitlines() if l.lstrip().startswith("share ")]
    t.ok(rc == 0 and head and "module" in head[0], "report --by proc,state keeps the module column", out)
    rc, out, _ = eqprof("report", rec, "--by", "exe,state", "-q", "--format", "csv")
    t.ok(rc == 0 and out.startswith("name,module,"), "CSV keeps its module field", out[:200])
    rc, out, _ = eqprof("compare", os.path.join(run, "time.eqp"), rec, "--by", "exe,state", "-q")
    wm = [l for l in out.splitlines() if "wmplayer" in l and not l.startswith("#")]
    t.ok(rc == 0 and wm and wm[0].count("wmplayer") == 1, "compare --by exe,state: each row named once", out)
    rc, out, _ = eqprof("diff", rec, rec, "--by", "exe", "-q")
    wm = [l for l in out.splitlines() if "wmplayer" in l and not l.startswith("#")]
    t.ok(rc == 0 and wm and wm[0].count("wmplayer") == 1, "diff --by exe: each row named once", out)


def no_samples(t, d):
    run = os.path.join(d, "music")  # made by module_column
    whole = open(os.path.join(run, "energy.eqp"), "rb").read()
    cut = os.path.join(d, "cut.eqp")
    with open(cut, "wb") as f:
        f.write(whole[:3000])      # header, maps, symbols, the first board chunk cut
    for cmd in (["report", cut], ["report", cut, "--by", "exe"], ["compare", cut, cut],
                ["diff", cut, cut], ["export", cut, "--format", "csv", "-o", os.path.join(d, "x.csv")],
                ["annotate", cut, "main"], ["power", cut],
                ["report", "--attribute", "async", cut]):
        rc, out, err = eqprof(*cmd)
        t.ok(rc == 1 and not out and "no sample left: the file ends at byte 3000" in err,
             "%s of a file cut before its first samples: exit 1, where the file ends" % cmd[0],
             (rc, out[:300], err))
    # cut after one complete chunk of board records: power has them
    with open(cut, "wb") as f:
        f.write(whole[:30000])
    rc, out, err = eqprof("power", cut)
    t.ok(rc == 0 and "board stream" in out, "power of a file cut after board records: power from them",
         (rc, out, err))
    # an intact recording without samples (a header-only CSV imported)
    csvp = os.path.join(d, "empty.csv")
    write_samples(csvp, 0)
    empty = os.path.join(d, "empty.eqp")
    eqprof("import", "--samples", csvp, "--time", "1000", "-o", empty)
    for cmd in (["report", empty], ["power", empty]):
        rc, out, err = eqprof(*cmd)
        t.ok(rc == 1 and "holds no sample" in err, "%s of an intact recording without samples: exit 1, "
             "saying so" % cmd[0], (rc, out, err))


def noise(t, d):
    run = os.path.join(d, "music")  # made by module_column
    rec, trec = os.path.join(run, "energy.eqp"), os.path.join(run, "time.eqp")
    for cmd in (["report", rec], ["report", rec, "--by", "exe"], ["compare", trec, rec],
                ["diff", rec, rec], ["power", rec], ["power", rec, rec, "--hist", os.path.join(d, "h.csv")]):
        rc, out, err = eqprof(*cmd)
        t.ok(rc == 0 and err == "", "%s of balanced recordings: nothing on standard error" % " ".join(
            os.path.basename(c) for c in cmd), err)
    for cmd in (["report", rec, "-v"], ["power", "-v", rec]):
        rc, out, err = eqprof(*cmd)
        t.ok(rc == 0 and err.count("balanced") == 1 and "clocks aligned" in err,
             "%s -v: the cross-check in full" % cmd[0], err)
    # the recording's truth: 4 samples without a symbol, 3 in wmplayer.exe
    # (no symbol of its table covers them) and 1 in the kernel
    rc, out, err = eqprof("report", rec)
    notes = [l for l in out.splitlines() if "no symbol" in l or l.startswith("#   ")]
    t.ok(notes == ["# 4 samples (0.03%) have no symbol: 3 in wmplayer.exe, 1 in [kernel.kallsyms] "
                   "(-v says why)"], "--by proc: samples without a symbol in one line", out)
    rc, out, err = eqprof("report", rec, "-v")
    notes = [l for l in out.splitlines() if "no symbol" in l or l.startswith("#   ")]
    t.ok(len(notes) == 3 and notes[1].startswith("#   3 in /Windows/wmplayer.exe: ") and
         notes[2].startswith("#   1 in [kernel.kallsyms]: "), "-v: a line per module with why", out)
    for by in ("exe", "module", "pid", "exe,state"):
        rc, out, err = eqprof("report", rec, "--by", by)
        t.ok(rc == 0 and "symbol" not in out + err, "--by %s: nothing about symbols" % by, out + err)


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-repout-") as d:
        pooled_rates(t, d)
        module_column(t, d)
        no_samples(t, d)
        noise(t, d)
    t.done()


if __name__ == "__main__":
    main()
