#!/usr/bin/env bash
# power-cli.sh - `eqprof power` as a user runs it, on crafted recordings with
# known power steps (test/power/mkrec.c): summary values, histogram peaks,
# traces that show the steps, valid PNG/SVG plots, regions, and clear errors.
# Prints TAP.  Env: EQPROF, B (build dir), SRC.
set -u
: "${EQPROF:?}" "${B:?}"
MKREC=$B/test/power/mkrec
T=$(mktemp -d /tmp/power-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/test/lib/tap.sh"
# Python reads our CSV/JSON independently of eqprof's own code.
py() { python3 -c "$@"; }

for k in steps off lost time timeboard unsorted; do
	"$MKREC" $k "$T/$k.eqp" || { echo "Bail out! mkrec $k failed"; exit 1; }
done
cd "$T"

# --- summary (Table 4) ---------------------------------------------------------
"$EQPROF" power steps.eqp time.eqp lost.eqp timeboard.eqp >sum.txt 2>sum.err
check "summary table: steps row has 618.9 mW, 1.179 J, 210.5 Hz" \
	grep -E '^steps\.eqp +energy +1\.9 s +401 +0 +210\.5 Hz +2\.94 mJ +618\.9 mW +1\.179 J +25\.2' sum.txt
check "summary table says why a time-driven file without board has no power" \
	grep -F 'time.eqp: no power: time-driven recording without board data: power needs an energy-driven recording' sum.txt
check "summary table: lost samples counted" grep -E '^lost\.eqp .* 391 +10 ' sum.txt
check "summary table: time-driven file with board gets power from the board" \
	grep -E '^timeboard\.eqp .*885\.5 mW.*board stream' sum.txt

"$EQPROF" power --summary --format json steps.eqp off.eqp time.eqp >sum.json 2>/dev/null
check "summary json: hand-computed values, one row per file, null power for time.eqp" py '
import json, sys
d = json.load(open("sum.json"))["recordings"]
assert len(d) == 3, d
s, o, t = d
q = 2.94e-3
assert s["samples"] == 401 and s["lost"] == 0
assert abs(s["duration_s"] - 1.9) < 1e-9
assert abs(s["freq_hz"] - 400 / 1.9) < 1e-6
assert abs(s["power_w"] - q * 400 / 1.9) < 1e-9
assert abs(s["energy_j"] - q * 401) < 1e-9
assert abs(s["idle_pct"] - 100 * 101 / 401) < 1e-6
assert abs(o["power_w"] - q * 400 / (1.9 * 1.25)) < 1e-9
assert t["power_w"] is None and t["energy_j"] is None and "energy-driven" in t["note"]
assert t["mode"] == "time" and t["power_source"] == "none"
'
"$EQPROF" power --format csv steps.eqp unsorted.eqp >sum.csv
check "summary csv: two rows, unsorted rings give the same power" py '
import csv
r = list(csv.DictReader(open("sum.csv")))
assert len(r) == 2
assert abs(float(r[0]["power_w"]) - float(r[1]["power_w"])) < 1e-12
assert abs(float(r[0]["power_w"]) - 2.94e-3 * 400 / 1.9) < 1e-9
'

# --- recordings that share a base name (issue 28: two rows named energy.eqp) ---
mkdir -p on off
cp steps.eqp on/energy.eqp
cp off.eqp off/energy.eqp
"$EQPROF" power on/energy.eqp off/energy.eqp >same.txt 2>same.err
check "summary rows of on/energy.eqp and off/energy.eqp are told apart by their folders" py '
rows = [l.split()[0] for l in open("same.txt").read().splitlines()[1:]]
assert rows == ["on/energy.eqp", "off/energy.eqp"], rows
'
"$EQPROF" power on/energy.eqp off/energy.eqp --hist same.csv --trace same-t.csv --hist same.svg 2>same.err
check "histogram CSV header, trace CSV and plot legend name each recording by its folder" py '
import csv, xml.etree.ElementTree as ET
assert open("same.csv").readline().strip() == "bucket_lo_w,bucket_hi_w,on/energy.eqp pct,off/energy.eqp pct"
names = {r["recording"] for r in csv.DictReader(open("same-t.csv"))}
assert names == {"on/energy.eqp", "off/energy.eqp"}, names
text = " ".join(ET.parse("same.svg").getroot().itertext())
assert "on/energy.eqp and off/energy.eqp" in text and text.count("off/energy.eqp") >= 2, text[:400]  # title and legend
'
"$EQPROF" power on/energy.eqp off/energy.eqp --label "audio on" --label "audio off" --format csv >lab.csv 2>same.err
check "--label names the recordings, in their order" py '
import csv
assert [r["recording"] for r in csv.DictReader(open("lab.csv"))] == ["audio on", "audio off"]
'
"$EQPROF" power on/energy.eqp off/energy.eqp --label one >out 2>err; rc=$?
if [ $rc -eq 2 ] && grep -q '1 --label for 2 recordings' err; then ok "a --label short of the recordings is refused"
else not_ok "--label count (rc=$rc)"; sed 's/^/# /' err; fi

# --- histogram (Figures 9-11) --------------------------------------------------------
check "histogram csv written" "$EQPROF" power steps.eqp --hist hist.csv
check "histogram peaks: 25 % at 0.25-0.30 W, 50 % at 1.45-1.50 W, 25 % at 0.55-0.60 W" py '
import csv
rows = {(round(float(r["bucket_lo_w"]), 3)): float(r["steps.eqp pct"]) for r in csv.DictReader(open("hist.csv"))}
assert abs(rows[0.25] - 25) < 1e-6 and abs(rows[1.45] - 50) < 1e-6 and abs(rows[0.55] - 25) < 1e-6, rows
assert abs(sum(rows.values()) - 100) < 1e-6
'
check "histogram, 100 mW buckets and idle split" "$EQPROF" power steps.eqp --hist hist2.csv --bucket 100mW --split-idle
check "idle split: the idle peak is the 0.2-0.3 W bucket, busy peaks elsewhere" py '
import csv
r = {round(float(x["bucket_lo_w"]), 3): x for x in csv.DictReader(open("hist2.csv"))}
assert float(r[0.2]["steps.eqp idle pct"]) == 25 and float(r[0.2]["steps.eqp busy pct"]) == 0
assert float(r[1.4]["steps.eqp busy pct"]) == 50 and float(r[0.5]["steps.eqp busy pct"]) == 25
'
check "overlaid histogram of two recordings, PNG" "$EQPROF" power steps.eqp off.eqp --hist cmp.png --split-idle
"$EQPROF" power steps.eqp off.eqp --hist cmp.csv
check "subsystem off: peak moves from 1.45 W to 1.15 W bucket" py '
import csv
r = {round(float(x["bucket_lo_w"]), 3): x for x in csv.DictReader(open("cmp.csv"))}
assert float(r[1.45]["steps.eqp pct"]) == 50 and float(r[1.45]["off.eqp pct"]) == 0
assert float(r[1.15]["off.eqp pct"]) == 50
'

# --- trace (Figures 6, 7) -----------------------------------------------------
check "trace csv written" "$EQPROF" power steps.eqp --trace trace.csv
check "trace shows the three steps, idle marked in phase A" py '
import csv
r = list(csv.DictReader(open("trace.csv")))
assert len(r) == 400
p = [float(x["power_w"]) for x in r]
assert all(abs(v - 0.294) < 1e-6 for v in p[:100])
assert all(abs(v - 1.47) < 1e-6 for v in p[100:300])
assert all(abs(v - 0.588) < 1e-6 for v in p[300:])
assert all(x["idle"] == "1" for x in r[:100]) and all(x["idle"] == "0" for x in r[100:])
'
check "close-up with --range 1.2:1.5 and a moving window of 10" \
	"$EQPROF" power steps.eqp --trace close.csv --range 1.2:1.5 --window 10
check "close-up holds exactly the intervals ending in [1.2, 1.5] s" py '
import csv
r = list(csv.DictReader(open("close.csv")))
t = [float(x["time_s"]) for x in r]
assert min(t) >= 1.2 and max(t) <= 1.5 and len(r) == 101 + 20, len(r)  # both ends included
'
check "trace PNG and SVG, log axis" "$EQPROF" power steps.eqp --trace trace.png --trace trace.svg --log

# A long run (issue 28: a 66 s trace was a solid band): more than two
# intervals a pixel column are drawn as each column's lowest..highest band,
# its mean and, in a strip below, its idle share; a close-up of a few
# intervals stays a step trace.  Idle: 1,849 samples, 600 pixels wide.
"$EQPROF" sim Idle -o idle -q
check "a long trace as an envelope per pixel column" \
	"$EQPROF" power idle/energy.eqp --trace env.svg --size 600x400
check "... whose key names the band, the mean and the idle strip; the close-up is steps" py '
import xml.etree.ElementTree as ET
def text(f):
    return "".join(ET.parse(f).getroot().itertext())
t = text("env.svg")
assert "energy.eqp (lowest..highest)" in t and "energy.eqp mean" in t, t[:400]
assert "idle (% of time)" in t and "envelope per pixel column" in t, t[:400]
'
check "the markers are drawn on the trace, labelled (steps.eqp's A, B, C and end; Idle's phase)" py '
import xml.etree.ElementTree as ET
def texts(f):
    return {"".join(e.itertext()).strip() for e in ET.parse(f).getroot().iter() if e.tag.endswith("text")}
t = texts("trace.svg")
assert {"A", "B", "C", "end"} <= t, sorted(t)
assert any(x.startswith("phase ") for x in texts("env.svg")), sorted(texts("env.svg"))
'
check "close-up of 0.2 s of it" "$EQPROF" power idle/energy.eqp --trace envclose.svg --size 600x400 --range 5:5.2
check "... is drawn interval by interval" py '
import xml.etree.ElementTree as ET
t = "".join(ET.parse("envclose.svg").getroot().itertext())
assert "lowest..highest" not in t and "close-up" in t, t[:400]
'

check "two recordings in one trace CSV, one block each" "$EQPROF" power steps.eqp off.eqp --trace both.csv
check "trace CSV of two recordings: 400 rows each, named" py '
import csv
r = list(csv.DictReader(open("both.csv")))
assert [x["recording"] for x in r].count("steps.eqp") == 400
assert [x["recording"] for x in r].count("off.eqp") == 400
'
mkdir -p "tmp dir's"
check "plots work with a temporary directory whose name has a space and a quote" \
	env TMPDIR="$T/tmp dir's" "$EQPROF" power steps.eqp off.eqp --trace q.svg --hist q.png --split-idle --title "a_b's title"
check "... and leave no temporary files behind" test -z "$(ls -A "tmp dir's")"

# --- images ---------------------------------------------------------------------
check "PNG files have the PNG signature and IEND, and real content" py '
import struct, zlib
for f in ("trace.png", "cmp.png"):
    b = open(f, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", f
    assert b[-8:-4] == b"IEND", f
    w, h = struct.unpack(">II", b[16:24])
    assert (w, h) == (1000, 600), (f, w, h)
    assert len(b) > 8000, (f, len(b))
'
check "SVG is well-formed XML with an svg root, axis labels with units and the title" py '
import xml.etree.ElementTree as ET
root = ET.parse("trace.svg").getroot()
assert root.tag.endswith("svg")
text = "".join(root.itertext())
assert "steps.eqp" in text and "(W)" in text and "(s)" in text, text[:300]
'

# PDF and JPEG: gnuplot's pdfcairo and jpeg terminals, as the name asks
check "histogram as JPEG and trace as PDF" "$EQPROF" power steps.eqp --hist h.jpg --trace t.pdf
check "the .jpg is a complete JPEG and the .pdf a complete PDF, not CSV (issue 28: h.jpg was CSV text)" py '
j = open("h.jpg", "rb").read()
assert j[:3] == b"\xff\xd8\xff" and j[-2:] == b"\xff\xd9" and len(j) > 8000, j[:40]
p = open("t.pdf", "rb").read()
assert p[:5] == b"%PDF-" and b"%%EOF" in p[-32:] and len(p) > 3000, p[:40]
'
# a name that is neither data nor a picture is refused, naming the formats
"$EQPROF" power steps.eqp --hist h.jpeg2 >out 2>err; rc=$?
if [ $rc -ne 0 ] && grep -q -- '--hist h.jpeg2: .*\.csv.*\.png, \.svg, \.pdf or \.jpg' err && [ ! -e h.jpeg2 ]; then
	ok "--hist with an unknown extension: refused, the formats named, nothing written"
else not_ok "--hist h.jpeg2 (rc=$rc)"; sed 's/^/# /' err; fi
"$EQPROF" power steps.eqp --trace tracefile >out 2>err; rc=$?
if [ $rc -ne 0 ] && grep -q -- '--trace tracefile: ' err && [ ! -e tracefile ]; then
	ok "--trace without an extension: refused"
else not_ok "--trace tracefile (rc=$rc)"; sed 's/^/# /' err; fi

# --- regions -------------------------------------------------------------------
"$EQPROF" power steps.eqp --markers --region 0.5:1.5 --format csv >regions.csv
check "regions by markers and by time, hand-computed" py '
import csv
r = {x["region"]: x for x in csv.DictReader(open("regions.csv"))}
b = r["B .. C"]
assert abs(float(b["energy_j"]) - 0.588) < 1e-9 and abs(float(b["power_w"]) - 1.47) < 1e-9
assert abs(float(b["time_s"]) - 0.4) < 1e-9 and int(b["samples"]) == 200
m = r["0.5:1.5"]
assert abs(float(m["energy_j"]) - 0.7938) < 1e-9
assert len(r) == 4
'

# --- errors ---------------------------------------------------------------------
"$EQPROF" power time.eqp --trace t.png >out 2>err; rc=$?
if [ $rc -eq 1 ] && grep -q 'time-driven recording without board data' err && [ ! -e t.png ]; then
	ok "trace of a time-driven file without board: exit 1, clear message, no output"
else not_ok "trace of a time-driven file without board (rc=$rc)"; sed 's/^/# /' err; fi
"$EQPROF" power steps.eqp --bucket 50mJ >out 2>err; rc=$?
if [ $rc -eq 2 ] && grep -q -- '--bucket' err; then ok "bad --bucket is a usage error"; else not_ok "bad --bucket (rc=$rc)"; fi
"$EQPROF" power steps.eqp --range 2:1 >out 2>err; rc=$?
if [ $rc -eq 2 ] && grep -q 'end must come after' err; then ok "reversed --range refused"; else not_ok "reversed --range (rc=$rc)"; fi
"$EQPROF" power steps.eqp --trace nodir/t.png >out 2>err; rc=$?
if [ $rc -eq 1 ] && ! ls nodir 2>/dev/null; then ok "plot into a missing directory fails cleanly"; else not_ok "plot into missing dir (rc=$rc)"; fi
echo "old" >keep.png
PATH=/nonexistent "$EQPROF" power steps.eqp --trace keep.png >out 2>err; rc=$?
if [ $rc -eq 1 ] && grep -q 'gnuplot' err && [ "$(cat keep.png)" = old ] && ! ls keep.png.tmp.* 2>/dev/null; then
	ok "without gnuplot: clear error, existing output untouched"
else not_ok "without gnuplot (rc=$rc)"; sed 's/^/# /' err; fi
"$EQPROF" power missing.eqp >out 2>err; rc=$?
if [ $rc -eq 1 ] && grep -q 'missing.eqp' err; then ok "missing recording named in the error"; else not_ok "missing recording (rc=$rc)"; fi
tap_plan
