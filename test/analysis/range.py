#!/usr/bin/env python3
"""range.py - report, compare and power over --from/--to (range.h).

Expected values, each independent of the code under test:
  - report --from A --to B equals report of a recording that holds only the
    samples in (A, B] (rewritten here from docs/format.md with test/lib's
    reader), row for row: samples, shares and their 95% intervals; the whole
    range equals plain report;
  - power --from/--to is recomputed here from the samples as docs/power.md
    defines it: intervals E_q x quanta / dt between samples, proportional
    energy at the ends, bounds, peak, minimum, the median's 1/128-decade bin,
    the 16-per-decade histogram, samples and idle counts;
  - compare --from/--to equals compare of the two trimmed recordings.
"""
import json
import math
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eqp  # noqa: E402
import eqpcraft  # noqa: E402
from eqtest import Tap, eqprof  # noqa: E402

t = Tap()
work = tempfile.mkdtemp(prefix="eqprof-range.")


def head_of(rec):
    for ctype, _, payload in rec.chunks:
        if ctype == "HEAD":
            mode, _, quantum, rate, clock = struct.unpack_from("<IIddd", payload, 0)
            return mode, quantum, clock
    raise ValueError("no HEAD")


def trimmed(rec, path, keep):
    """The recording with only the samples keep(sample) accepts, in time order."""
    out = [eqpcraft.MAGIC + struct.pack("<HHI", 1, 0, 0)]
    n = 0
    for ctype, _, payload in rec.chunks:
        if ctype in ("SAMP", "END ", "CHNS", "USTK"):
            continue
        out.append(eqpcraft.chunk(ctype, payload))
    kept = sorted((s for s in rec.samples if keep(s)), key=lambda s: (s[0], s[4]))
    for i in range(0, len(kept), 4096):
        out.append(eqpcraft.samp([struct.pack("<QQIIIHH", *s) for s in kept[i:i + 4096]]))
        n += len(kept[i:i + 4096])
    nchunks = len(out) - 1
    out.append(eqpcraft.end(n, nchunks))
    with open(path, "wb") as f:
        f.write(b"".join(out))
    return n


def in_range(rel, a, b, clock):
    """range.h: FROM < t <= TO in whole ticks; t = 0 is in a range from <= 0."""
    fa = None if a is None else round(a * clock)
    fb = None if b is None else round(b * clock)
    if fb is not None and rel > fb:
        return False
    return fa is None or rel > fa or (rel == 0 and fa <= 0)


def report_json(*args):
    rc, out, err = eqprof("report", *args, "--format", "json", "-q")
    if rc != 0:
        raise RuntimeError(err)
    return json.loads(out)


def rows_of(doc):
    return [(r["name"], r["module"], r["samples"], r["share"], r["ci95_low"], r["ci95_high"])
            for r in doc["rows"]]


def close_rows(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x[:3] != y[:3] or any(abs(p - q) > 1e-12 for p, q in zip(x[3:], y[3:])):
            return False
    return True


def intervals(rec, quantum, clock):
    """docs/power.md: one interval per sample after the first, E_q x quanta / dt;
    samples at the same time pass their quanta on; a loss's seq gap adds quanta."""
    s = sorted(rec.samples, key=lambda x: (x[0], x[4]))
    out, pending = [], 0
    t_first = t_prev = s[0][0]
    seq_prev = s[0][4]
    for time, pc, pid, tid, seq, cpu, flags in s[1:]:
        q = 1
        if flags & 0x8 and 1 < seq - seq_prev < (1 << 24):
            q = seq - seq_prev
        seq_prev = seq
        pending += q
        if time == t_prev:
            continue
        tt = (time - t_first) / clock
        dt = (time - t_prev) / clock
        out.append((tt, dt, quantum * pending, bool(flags & 0x2)))
        pending = 0
        t_prev = time
    return out


def expected_power(rec, ivs, a, b, clock):
    t0 = -math.inf if a is None else round(a * clock) / clock
    t1 = math.inf if b is None else round(b * clock) / clock
    e = lo = hi = 0.0
    ends, idle = [], 0
    first, last = math.inf, -math.inf
    for tt, dt, ej, is_idle in ivs:
        x, y = tt - dt, tt
        if x >= t1:
            break
        l, h = max(x, t0), min(y, t1)
        if h > l:
            e += ej * (h - l) / dt
            hi += ej
            if x >= t0 and y <= t1:
                lo += ej
            first, last = min(first, x), max(last, y)
        if t0 < y <= t1:
            ends.append(ej / dt)
            idle += is_idle
    frm, to = max(t0, first), min(t1, last)
    s0 = min(s[0] for s in rec.samples)
    inside = [s for s in rec.samples if in_range(s[0] - s0, a, b, clock)]
    srt = sorted(ends)
    med = srt[(len(srt) + 1) // 2 - 1]
    k = math.floor(math.log10(med) * 128) + 12 * 128
    return {"energy_j": e, "energy_lo_j": lo, "energy_hi_j": hi, "duration_s": to - frm,
            "power_w": e / (to - frm), "peak_w": max(ends), "min_w": min(ends),
            "median_w": 10 ** ((k + 0.5) / 128 - 12), "intervals": len(ends),
            "idle_intervals": idle, "samples": len(inside),
            "idle_samples": sum(1 for s in inside if s[6] & 0x2)}, ends


def rel_close(x, y, tol):
    return abs(x - y) <= tol * max(abs(x), abs(y), 1e-300)


try:
    rc, _, err = eqprof("sim", "Music", "-o", os.path.join(work, "m"), "-q")
    t.ok(rc == 0, "eqprof sim Music", err)
    energy = os.path.join(work, "m", "energy.eqp")
    timef = os.path.join(work, "m", "time.eqp")
    rec = eqp.read(energy)
    mode, quantum, clock = head_of(rec)
    s0 = min(s[0] for s in rec.samples)
    ivs = intervals(rec, quantum, clock)

    whole = rows_of(report_json(energy))
    t.ok(close_rows(rows_of(report_json(energy, "--from", "0", "--to", "1000")), whole),
         "report --from 0 --to 1000 gives plain report's rows, shares and intervals")

    for a, b in ((10, 20), (0, 5.123456789), (33.3, None), (None, 7), (12.5, 12.75)):
        args = (["--from", str(a)] if a is not None else []) + (["--to", str(b)] if b is not None else [])
        what = " ".join(args)
        path = os.path.join(work, "trim.eqp")
        n = trimmed(rec, path, lambda s: in_range(s[0] - s0, a, b, clock))
        got = report_json(energy, *args)
        t.eq(got["total_samples"], n, "report %s: the samples in (FROM, TO]" % what)
        t.ok(close_rows(rows_of(got), rows_of(report_json(path))),
             "report %s: rows, shares and intervals of a recording of only those samples" % what,
             "%r\n%r" % (rows_of(got)[:3], rows_of(report_json(path))[:3]))

        rc, out, err = eqprof("power", energy, *args, "--format", "json")
        if not t.ok(rc == 0, "power %s runs" % what, err):
            continue
        r = json.loads(out)["ranges"][0]
        want, ends = expected_power(rec, ivs, a, b, clock)
        for key in ("intervals", "idle_intervals", "samples", "idle_samples"):
            t.eq(r[key], want[key], "power %s: %s" % (what, key))
        for key in ("energy_j", "energy_lo_j", "energy_hi_j", "duration_s", "power_w",
                    "peak_w", "min_w", "median_w"):
            t.ok(rel_close(r[key], want[key], 1e-9), "power %s: %s" % (what, key),
                 "got %r want %r" % (r[key], want[key]))
        t.ok(r["energy_lo_j"] <= r["energy_j"] <= r["energy_hi_j"] and
             r["energy_hi_j"] - r["energy_lo_j"] <= 2 * quantum * 1.0000001,
             "power %s: the bounds hold the energy, at most two quanta apart" % what)

        hist = os.path.join(work, "h.csv")
        rc, _, err = eqprof("power", energy, *args, "--hist", hist, "--bucket", "16/decade",
                            "--split-idle")
        t.ok(rc == 0, "power %s --hist --bucket 16/decade" % what, err)
        counts = {}
        idle_ends = [ej / dt for tt, dt, ej, idl in ivs if idl]
        for p in ends:
            k = math.floor(math.log10(p) * 16)
            counts[k] = counts.get(k, 0) + 1
        with open(hist) as f:
            lines = f.read().split("\n")[1:]
        got_pct = {}
        for line in lines:
            if not line:
                continue
            lo_w, hi_w, idle_pct, busy_pct = (float(x) for x in line.split(","))
            k = round(math.log10(lo_w) * 16)
            got_pct[k] = idle_pct + busy_pct
        ok = all(abs(got_pct.get(k, 0) - 100.0 * c / len(ends)) < 2e-6 for k, c in counts.items())
        ok = ok and abs(sum(got_pct.values()) - 100) < 1e-3
        t.ok(ok, "power %s: the 16/decade histogram's percentages" % what,
             "%r\n%r" % (sorted(got_pct.items())[:6], sorted(counts.items())[:6]))
        del idle_ends

    # compare over a range = compare of the two trimmed recordings
    trec = eqp.read(timef)
    _, _, tclock = head_of(trec)
    ts0 = min(s[0] for s in trec.samples)
    et = os.path.join(work, "e-trim.eqp")
    tt_ = os.path.join(work, "t-trim.eqp")
    trimmed(rec, et, lambda s: in_range(s[0] - s0, 20, 40, clock))
    trimmed(trec, tt_, lambda s: in_range(s[0] - ts0, 20, 40, tclock))
    rc1, c1, err1 = eqprof("compare", timef, energy, "--from", "20", "--to", "40", "--format", "json", "-q")
    rc2, c2, err2 = eqprof("compare", tt_, et, "--format", "json", "-q")
    if t.ok(rc1 == 0 and rc2 == 0, "compare --from 20 --to 40 runs", err1 + err2):
        a_rows = [(r["name"], r["time_samples"], r["energy_samples"], r["significant"])
                  for r in json.loads(c1)["rows"]]
        b_rows = [(r["name"], r["time_samples"], r["energy_samples"], r["significant"])
                  for r in json.loads(c2)["rows"]]
        t.eq(a_rows, b_rows, "compare --from/--to: the trimmed recordings' rows and marks")

    rc, _, err = eqprof("report", energy, "--from", "30", "--to", "20")
    t.ok(rc == 2 and "after the start" in err, "report --from 30 --to 20 is refused", err)
    rc, _, err = eqprof("power", energy, "--battery", "20Wh")
    t.ok(rc == 2 and "--from/--to" in err, "power --battery without a range is refused", err)
    rc, out, err = eqprof("power", energy, "--from", "10", "--to", "20", "--battery", "3000mAh@3.7V",
                          "--format", "json")
    r = json.loads(out)["ranges"][0] if rc == 0 else {}
    t.ok(rc == 0 and rel_close(r.get("battery_life_s", 0), 3.0 * 3600 * 3.7 / r["power_w"], 1e-12),
         "power --battery 3000mAh@3.7V: capacity / average power", err)
finally:
    shutil.rmtree(work, ignore_errors=True)
t.done()
