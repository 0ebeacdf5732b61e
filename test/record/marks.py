#!/usr/bin/env python3
"""marks.py - markers from the program being recorded (issue 28 item 12).

test/fixtures/phases.c writes "alpha" to $EQPROF_MARKER_FD, spins in
phase_alpha, writes "@NS beta" (its own CLOCK_MONOTONIC time), spins in
phase_beta, writes "end"; it prints, for each marker, its clock just
before and just after the write.  The expected values come from the
program's own clock and from the whole recording's report, never from
durations:
- the file's MARK chunks (read by test/lib/eqp.py, not eqprof) are
  alpha, beta, end in order; alpha's and end's times lie between the
  program's before and after stamps (the kernel's receive time), beta's
  is exactly the time it gave;
- report --region alpha holds every phase_alpha sample of the whole
  recording and no phase_beta sample (phase_beta starts after beta's
  time), --region beta the reverse: exact, whatever the machine's load;
- --region of an unknown name fails, listing the markers;
- the table's heading names the region (--region alpha, to the next
  marker; --region end, to the end), never "--from/--to", which were not
  given; the JSON says "region";
- the Chrome trace has an instant event per marker.
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from eqtest import SRC, Tap, eqprof, run  # noqa: E402
import eqp  # noqa: E402


def rows(out):
    doc = json.loads(out)
    return dict((r["name"], r["samples"]) for r in doc["rows"])


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eqprof-marks-")
    prog = os.path.join(d, "phases")
    run(["cc", "-O1", "-g", "-o", prog, os.path.join(SRC, "test", "fixtures", "phases.c")])
    rec = os.path.join(d, "ph.eqp")
    rc, out, err = eqprof("record", "-t", "1kHz", "-o", rec, "--", prog, "0.4")
    t.ok(rc == 0 and "3 markers from the command" in err, "record: the program's 3 markers", err)
    stamps = {}
    for line in out.split("\n"):
        if line:
            label, before, after = line.split()
            stamps[label] = (int(before), int(after))
    r = eqp.read(rec)
    labels = [m[1] for m in r.markers]
    t.eq(labels, ["alpha", "beta", "end"], "MARK chunks alpha, beta, end (newline dropped)")
    times = dict((m[1], m[0]) for m in r.markers)
    ok = all(k in times and k in stamps and stamps[k][0] <= times[k] <= stamps[k][1]
             for k in ("alpha", "end"))
    t.ok(ok, "plain writes: the marker's time is the kernel's, between the program's stamps "
         "before and after the write", (times, stamps))
    t.ok("beta" in times and "beta" in stamps and times["beta"] == stamps["beta"][0],
         "'@NS beta': the program's own time, exactly", (times, stamps))

    rc, out, err = eqprof("report", rec, "--format", "json", "-q")
    whole = rows(out) if rc == 0 else {}
    t.ok(whole.get("phase_alpha", 0) > 0 and whole.get("phase_beta", 0) > 0,
         "the whole recording has samples of both phases", whole)
    rc, out, err = eqprof("report", rec, "--region", "alpha", "--format", "json", "-q")
    a = rows(out) if rc == 0 else {}
    t.ok(rc == 0 and a.get("phase_alpha") == whole.get("phase_alpha") and "phase_beta" not in a,
         "--region alpha: every phase_alpha sample (%s), no phase_beta" % a.get("phase_alpha"),
         (a, whole, err))
    rc, out, err = eqprof("report", rec, "--region", "beta", "--format", "json", "-q")
    b = rows(out) if rc == 0 else {}
    t.ok(rc == 0 and b.get("phase_beta") == whole.get("phase_beta") and "phase_alpha" not in b,
         "--region beta: every phase_beta sample (%s), no phase_alpha" % b.get("phase_beta"),
         (b, whole, err))
    rc, out, err = eqprof("report", rec, "--region", "alpha", "-q")
    head = out.split("\n")[1] if rc == 0 and out.count("\n") > 1 else out
    t.ok(rc == 0 and head.startswith("# samples of region 'alpha':") and
         "(--region alpha: from its marker to the next)" in head and "--from/--to" not in out,
         "--region alpha: the heading names the region, not --from/--to", out + err)
    rc, out, err = eqprof("report", rec, "--region", "end", "-q")
    t.ok(rc == 0 and "(--region end: from its marker to the end)" in out and "--from/--to" not in out,
         "--region end (the last marker): the heading says to the end", out + err)
    rc, out, err = eqprof("report", rec, "--region", "beta", "--format", "json", "-q")
    t.ok(rc == 0 and json.loads(out).get("region") == "beta", "--region beta: the JSON says region beta",
         out[:300] + err)
    rc, out, err = eqprof("report", rec, "--region", "gamma")
    t.ok(rc == 1 and "'alpha', 'beta', 'end'" in err and "gamma" in err,
         "--region of no marker: refused, listing the markers", err)
    js = os.path.join(d, "ph.json")
    rc, out, err = eqprof("export", rec, "--format", "chrome", "-o", js, "-q")
    inst = []
    if rc == 0:
        with open(js) as f:
            inst = [e["name"] for e in json.load(f)["traceEvents"] if e.get("ph") == "i"]
    t.eq(inst, ["alpha", "beta", "end"], "the Chrome trace's instant events")
    t.done()


if __name__ == "__main__":
    main()
