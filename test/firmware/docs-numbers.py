#!/usr/bin/env python3
"""docs-numbers.py - the numbers the docs quote about the board, against
their sources of truth, so that they cannot drift again (issue 23 item 8):

  - docs/protocol.md's calibration defaults against what CAL_READ carries
    from a fresh board: the firmware's fw_cal_defaults() packed and read
    back by its own codec (build/test/firmware/caldefaults), and against
    hardware/board.values;
  - every pulse rate quoted for a load current (docs/firmware.md,
    docs/hardware.md, and the line bench/firmware/fwbench.c prints) and
    docs/hardware.md's sweep table (pulse rate, raw E_min) against the
    SPICE model of the front end, run here through
    hardware/tools/spice_sweep.py at each current quoted.

Expected values are independent of the docs: they come from the firmware's
code and the SPICE deck.  A quoted number passes when it is the source's
value rounded to the digits it shows (half a unit of its last digit).
Prints TAP.
"""
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True
SRC = os.environ.get("SRC") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
B = os.environ.get("B") or os.path.join(SRC, "build")
sys.path.insert(0, os.path.join(SRC, "test", "analysis"))
sys.path.insert(0, os.path.join(SRC, "hardware", "tools"))
from eqtest import Tap  # noqa: E402

t = Tap()


def read(rel):
    with open(os.path.join(SRC, rel)) as f:
        return f.read()


def shown(text):
    """A number as the docs write it ('1 954 787', '82.8') and half a unit
    of its last digit."""
    s = text.replace(" ", "").replace("\u202f", "")
    dec = len(s.split(".")[1]) if "." in s else 0
    return float(s), 0.5 * 10 ** -dec


def close(text, value):
    v, half = shown(text)
    return abs(v - value) <= half + 1e-9 * abs(value)


# ---- calibration defaults: protocol.md against the firmware --------------------
helper = os.path.join(B, "test", "firmware", "caldefaults")
p = subprocess.run([helper], capture_output=True, text=True)
fw = dict((k, int(v)) for k, v in (line.split() for line in p.stdout.split("\n") if line)) if p.returncode == 0 else {}
t.ok(p.returncode == 0 and len(fw) == 5, "the firmware's calibration defaults (%s)" % helper, p.stderr)
proto = read("docs/protocol.md")
rows = {}
for m in re.finditer(r"^\| (\d+) \| [ui]32 ([^|]+?) \| ([-\d ][\d ]*)(?: \(.*\))? \|$", proto, re.M):
    rows[int(m.group(1))] = (m.group(2), m.group(3).strip())
fields = {0: "adc_gain", 4: "adc_offset", 8: "vb_nominal", 12: "e_min", 16: "serial"}
t.eq(sorted(rows), sorted(fields), "docs/protocol.md: a default for each calibration field")
for off, key in sorted(fields.items()):
    if off in rows and key in fw:
        t.ok(close(rows[off][1], fw[key]), "protocol.md calibration %s: %s, CAL_READ of a fresh board %d"
             % (rows[off][0], rows[off][1], fw[key]))
values = {}
for line in read("hardware/board.values").split("\n"):
    w = line.split("#")[0].split()
    if len(w) >= 2:
        values[w[0]] = float(w[1])
t.ok(fw.get("e_min") == round(values["e_min_high"] * 1e12) and
     fw.get("vb_nominal") == round(values["vb_nominal"] * 1e6),
     "the firmware's E_min and vb_nominal are board.values' (%s pJ, %s uV)" % (fw.get("e_min"), fw.get("vb_nominal")))
# the gain from the board's reference and divider, x256 (cal.c's formula)
gain = values["adc_vref"] / 1024 * (values["adc_r_top"] + values["adc_r_bottom"]) / values["adc_r_bottom"] * 256 * 1e6
t.ok(abs(fw.get("adc_gain", 0) - gain) <= 0.5, "the firmware's ADC gain is board.values' AREF and divider (%.1f)" % gain)

# ---- pulse rates against the SPICE model ------------------------------------------
def amps(num, unit):
    return float(num) * (1e-3 if unit == "mA" else 1)


quotes = []   # (where, range, current A, "kHz as shown")
for doc in ("docs/firmware.md", "docs/hardware.md"):
    text = read(doc)
    for para in re.split(r"\n\s*\n", text):
        flat = " ".join(para.split())
        for m in re.finditer(r"([\d.]+) kHz at ([\d.]+) (m?A)\b", flat):
            rest = flat[m.end():]
            nxt = re.search(r"kHz at|\. ", rest)
            scope = rest[:nxt.start()] if nxt else rest
            rng = "low" if "low range" in scope else "high"
            quotes.append((doc, rng, amps(m.group(2), m.group(3)), m.group(1), m.group(0)))
        for m in re.finditer(r"(Low|High) range[^:]*?, ([\d.]+) (m?A): ([\d.]+) kHz", flat):
            quotes.append((doc, m.group(1).lower(), amps(m.group(2), m.group(3)), m.group(4), m.group(0)))
        # the old way of writing them ("1.5 A needs ~121 kHz") is not allowed back
        for m in re.finditer(r"\b([\d.]+) (m?A) (?:needs|about|~)[^.;)]*?([\d.]+) kHz", flat):
            quotes.append((doc, "high", amps(m.group(1), m.group(2)), m.group(3), m.group(0)))
table = re.findall(r"^\| (high|low) \| ([\d.]+) (m?A) \| ([\d.]+) (k?Hz) \| ([\d.]+) µJ \|", read("docs/hardware.md"), re.M)
bench = " ".join(re.findall(r'"([^"]*)"', read("bench/firmware/fwbench.c")))
for m in re.finditer(r"([\d.]+) kHz at ([\d.]+) (m?A)\b", bench):
    quotes.append(("bench/firmware/fwbench.c", "high", amps(m.group(2), m.group(3)), m.group(1), m.group(0)))
t.ok(len(quotes) >= 8 and len(table) >= 15, "the docs quote %d pulse rates and hardware.md's table has %d rows"
     % (len(quotes), len(table)))

import spice_sweep  # noqa: E402  (the deck's parameters, one ngspice run a point)

params = spice_sweep.params()
points = set((q[1], q[2]) for q in quotes) | set((r[0], amps(r[1], r[2])) for r in table)


def run(pt):
    try:
        return pt, spice_sweep.run_point(pt[1], pt[0] == "low", params)
    except Exception as e:  # noqa: BLE001  (reported below, per point)
        return pt, e


with ThreadPoolExecutor(max_workers=2) as ex:
    spice = dict(ex.map(run, sorted(points)))
bad = dict((k, v) for k, v in spice.items() if isinstance(v, Exception))
t.ok(not bad, "ngspice gives every point (%d)" % len(spice), "\n".join(str(v) for v in bad.values()))
for doc, rng, i, khz, what in quotes:
    r = spice.get((rng, i))
    if isinstance(r, dict):
        f = 1 / r["period"] / 1e3
        t.ok(close(khz, f), "%s: '%s' (%s range): SPICE gives %.2f kHz" % (doc, what, rng, f))
for rng, num, unit, rate, rate_unit, emin in table:
    i = amps(num, unit)
    r = spice.get((rng, i))
    if isinstance(r, dict):
        f = 1 / r["period"] / (1e3 if rate_unit == "kHz" else 1)
        e = i * r["period"] * params["vb_nominal"] * 1e6
        t.ok(close(rate, f) and close(emin, e), "hardware.md table, %s range %s %s: %s %s and %s uJ; SPICE %.4g and %.4g"
             % (rng, num, unit, rate, rate_unit, emin, f, e))
t.done()
