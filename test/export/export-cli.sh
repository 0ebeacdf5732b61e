#!/usr/bin/env bash
# export-cli.sh - `eqprof export` read back by each format's consumer:
# callgrind_annotate, protoc --decode_raw (and a wire-format decoder written
# here in Python), a JSON parser, flame-graph folded lines and CSV, with
# totals equal to `eqprof report` on the same recording.
#
# The recording: test/fixtures/prog.c + libfix.c built with -g here, samples
# placed in spin_a (2 lines), spin_b, lib_inner and idle, imported with
# `eqprof import`, so symbols and lines come from real DWARF.  Prints TAP.
set -u
: "${EQPROF:?}" "${B:?}" "${SRC:?}"
T=$(mktemp -d /tmp/export-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/test/lib/tap.sh"
cd "$T"

cc -g -O0 -no-pie -o prog "$SRC/test/fixtures/prog.c" "$SRC/test/fixtures/libfix.c" ||
	{ echo "Bail out! cannot build the fixture program"; exit 1; }
# Maps from the ELF's program headers; samples: 60 + 40 in spin_a (two
# lines), 50 in spin_b, 30 in lib_inner, 20 idle; intervals 2, 2, 1, 3, 10 ms.
python3 - <<'EOF' || { echo "Bail out! cannot craft samples"; exit 1; }
import os, subprocess
syms = {}
for l in subprocess.run(["nm", "prog"], capture_output=True, text=True, check=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3 and f[2] in ("spin_a", "spin_b", "lib_inner"):
        syms[f[2]] = int(f[0], 16)
maps = []
for l in subprocess.run(["readelf", "-lW", "prog"], capture_output=True, text=True, check=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == "LOAD":
        off, va, fs, fl = int(f[1], 16), int(f[2], 16), int(f[5], 16), "".join(f[6:-1])
        perm = ("r" if "R" in fl else "-") + ("w" if "W" in fl else "-") + ("x" if "E" in fl else "-") + "p"
        maps.append("%08x-%08x %s %08x 08:01 1 %s" % (va & ~0xfff, (va + fs + 0xfff) & ~0xfff, perm, off & ~0xfff, os.path.abspath("prog")))
open("maps.txt", "w").write("\n".join(maps) + "\n")
plan = [(syms["spin_a"] + 4, 60, 2), (syms["spin_a"] + 0x10, 40, 2), (syms["spin_b"] + 8, 50, 1),
        (syms["lib_inner"] + 6, 30, 3), (0xffffffff81000000, 20, 10)]
rows, t, seq = ["time_ns,pc,pid,tid,cpu,flags"], 0, 0
for pc, k, ms in plan:
    for i in range(k):
        t += ms * 1000000
        idle = pc >> 63
        rows.append("%d,0x%x,%d,%d,0,%d" % (t, pc, 0 if idle else 100, 0 if idle else 100, 7 if idle else 4))
open("s.csv", "w").write("\n".join(rows) + "\n")
EOF
"$EQPROF" import --samples s.csv --maps 100=maps.txt --comm 100=prog --energy 2.94mJ -o rec.eqp >/dev/null 2>imp.err ||
	{ echo "Bail out! eqprof import failed: $(cat imp.err)"; exit 1; }
"$EQPROF" report rec.eqp --by line --format json >report.json 2>/dev/null ||
	{ echo "Bail out! eqprof report failed"; exit 1; }

for f in callgrind pprof folded chrome csv; do
	check "export --format $f" "$EQPROF" export rec.eqp --format $f -o rec.$f
done

# --- callgrind ------------------------------------------------------------------
callgrind_annotate --auto=yes rec.callgrind >annotate.txt 2>annotate.err
check "callgrind_annotate reads it without warnings" test ! -s annotate.err
check "callgrind_annotate totals equal eqprof report (energy in nJ, samples)" python3 -c '
import json, re
r = json.load(open("report.json"))
e_nj = round(r["total_samples"] * r["quantum_j"] * 1e9)
tot = [l for l in open("annotate.txt") if "PROGRAM TOTALS" in l][0]
nums = [int(x.replace(",", "")) for x in re.findall(r"([\d,]+) \(", tot)]
assert nums == [e_nj, r["total_samples"]], (nums, e_nj)
'
check "callgrind_annotate shows energy per source line as eqprof report --by line" python3 -c '
import json, re
r = json.load(open("report.json"))
ann = open("annotate.txt").read()
src = {}
for row in r["rows"]:
    if "file" not in row: continue
    text = open(row["file"]).read().splitlines()[row["line"] - 1]
    want = "{:,}".format(round(row["samples"] * r["quantum_j"] * 1e9))
    pat = re.escape(want) + r" \([\d.]+%\) +" + str(row["samples"]) + r" \([\d.]+%\)\s+" + re.escape(text.strip())
    assert re.search(pat, ann), (row["name"], want, text)
'

# --- pprof ------------------------------------------------------------------------
check "pprof file is gzip" python3 -c 'import gzip; open("rec.pb", "wb").write(gzip.open("rec.pprof").read())'
protoc --decode_raw <rec.pb >decoded.txt 2>decode.err
check "protoc --decode_raw decodes the profile" test -s decoded.txt -a ! -s decode.err
check "protoc --decode_raw: sample values sum to the report's samples and nanojoules" python3 -c '
import json
r = json.load(open("report.json"))
depth, top, sums, nsamples = 0, None, [0, 0], 0
for line in open("decoded.txt"):
    s = line.strip()
    if s.endswith("{"):
        if depth == 0:
            top, vals = s.split()[0], []
        depth += 1
    elif s == "}":
        depth -= 1
        if depth == 0 and top == "2":
            assert len(vals) == 2, vals
            sums[0] += vals[0]; sums[1] += vals[1]; nsamples += 1
    elif depth == 1 and top == "2" and s.startswith("2: "):
        vals.append(int(s[3:]))
assert nsamples == 5, nsamples  # 4 pcs and idle
assert sums == [r["total_samples"], round(r["total_samples"] * r["quantum_j"] * 1e9)], sums
'
check "pprof decoded independently: types, totals, functions and lines match the report" python3 - <<'EOF'
import json
r = json.load(open("report.json"))

def fields(buf):
    """protobuf wire format: yields (field, wiretype, value)."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            ln, i = varint(buf, i)
            v, i = buf[i:i + ln], i + ln
        else:
            raise ValueError("unexpected wire type %d" % wt)
        yield f, wt, v

def varint(buf, i):
    shift = v = 0
    while True:
        b = buf[i]; i += 1
        v |= (b & 0x7f) << shift; shift += 7
        if not b & 0x80: return v, i

prof = open("rec.pb", "rb").read()
strings, types, samples, locs, funcs = [], [], [], {}, {}
for f, wt, v in fields(prof):
    if f == 6: strings.append(v.decode())
    elif f == 1: types.append({g: x for g, _, x in fields(v)})
    elif f == 2: samples.append(list(fields(v)))
    elif f == 4:
        d = list(fields(v)); lid = [x for g, _, x in d if g == 1][0]
        line = [dict((g, x) for g, _, x in fields(x)) for g, _, x in d if g == 4][0]
        locs[lid] = line
    elif f == 5:
        d = {g: x for g, _, x in fields(v)}; funcs[d[1]] = d
assert strings[0] == ""
assert [(strings[t[1]], strings[t[2]]) for t in types] == [("samples", "count"), ("energy", "nanojoules")], types
tot_n = tot_e = 0
by_line = {}
for s in samples:
    vals = [x for g, _, x in s if g == 2]
    loc = [x for g, _, x in s if g == 1][0]
    tot_n += vals[0]; tot_e += vals[1]
    line = locs[loc]; fn = funcs[line[1]]
    key = (strings[fn[4]], line.get(2, 0))
    by_line[key] = by_line.get(key, 0) + vals[0]
assert tot_n == r["total_samples"], tot_n
assert tot_e == round(r["total_samples"] * r["quantum_j"] * 1e9), tot_e
for row in r["rows"]:
    if "file" in row:
        assert by_line[(row["file"], row["line"])] == row["samples"], row
EOF

# pprof itself (go tool pprof) reads the file: totals and per-line samples.
export HOME=$T GOCACHE=$T/gocache PPROF_TMPDIR=$T
go tool pprof -top -sample_index=energy rec.pprof >pprof-energy.txt 2>pprof.err
go tool pprof -top -sample_index=samples -lines rec.pprof >pprof-lines.txt 2>>pprof.err
check "go tool pprof reads the profile: energy total and per-line samples equal the report" python3 -c '
import json, re
r = json.load(open("report.json"))
e = open("pprof-energy.txt").read()
m = re.search(r"Total samples = (\d+)nanojoules", e)
assert m and int(m.group(1)) == round(r["total_samples"] * r["quantum_j"] * 1e9), e
assert "Type: energy" in e
lines = open("pprof-lines.txt").read()
for row in r["rows"]:
    if "file" in row:
        pat = r"^\s*%d\s.*\s%s %s:%d$" % (row["samples"], "\\S+", re.escape(row["file"]), row["line"])
        assert re.search(pat, lines, re.M), (row["name"], lines)
'

# --- folded, chrome, csv ---------------------------------------------------------------
"$EQPROF" report rec.eqp --by proc --format json >proc.json 2>/dev/null
check "folded stacks: exe;module;proc with the report's sample counts" python3 -c '
import json
r = {x["name"]: x["samples"] for x in json.load(open("proc.json"))["rows"]}
lines = dict(l.rsplit(" ", 1) for l in open("rec.folded").read().splitlines())
assert lines == {"prog;prog;spin_a": "100", "prog;prog;spin_b": "50", "prog;prog;lib_inner": "30", "[idle];[idle];[idle]": "20"}, lines
assert all(int(lines["prog;prog;" + k]) == v for k, v in r.items() if k != "[idle]")
'
check "Chrome trace is JSON with one power counter per interval (199) and slices per procedure" python3 -c '
import json
d = json.load(open("rec.chrome"))
ev = d["traceEvents"]
c = [e for e in ev if e["ph"] == "C"]
assert len(c) == 199, len(c)
assert all(e["name"] == "power" and "W" in e["args"] for e in c)
# the spin_b phase: 1 ms intervals of 2.94 mJ = 2.94 W
assert sum(1 for e in c if abs(e["args"]["W"] - 2.94) < 1e-9) == 50
x = [e for e in ev if e["ph"] == "X"]
assert [e["name"] for e in x] == ["spin_a", "spin_b", "lib_inner", "[idle]"], [e["name"] for e in x]
assert sum(e["args"]["samples"] for e in x) == 200
'
"$EQPROF" export rec.eqp --format chrome --exclude-idle -o noidle.chrome
check "Chrome trace without idle: no idle slice, power counter kept" python3 -c '
import json
ev = json.load(open("noidle.chrome"))["traceEvents"]
assert "[idle]" not in [e["name"] for e in ev if e["ph"] == "X"]
assert sum(1 for e in ev if e["ph"] == "C") == 199
'
check "CSV of resolved samples: 200 rows, energy sums to the report, power per interval" python3 -c '
import csv, json
r = json.load(open("report.json"))
rows = list(csv.DictReader(open("rec.csv")))
assert len(rows) == 200
assert abs(sum(float(x["energy_j"]) for x in rows) - r["total_samples"] * r["quantum_j"]) < 1e-9
b = [x for x in rows if x["proc"] == "spin_b"]
assert len(b) == 50 and all(abs(float(x["power_w"]) - 2.94) < 1e-9 for x in b)
assert rows[0]["power_w"] == "" and rows[0]["file"].endswith("prog.c")
'

# --- samples out of time order --------------------------------------------------------
# The same samples in two "rings" drained one after the other (odd rows, then
# even): the profiles stream the file as it is, the timeline and the CSV
# sort; every format must say exactly what it says for the ordered file.
mkdir -p u && python3 -c '
rows = open("s.csv").read().splitlines()
body = rows[1:]
open("u/s.csv", "w").write("\n".join([rows[0]] + body[1::2] + body[0::2]) + "\n")
'
(cd u && "$EQPROF" import --samples s.csv --maps 100=../maps.txt --comm 100=prog --energy 2.94mJ -o rec.eqp) >/dev/null 2>imp.err ||
	{ echo "Bail out! eqprof import of unordered samples failed: $(cat imp.err)"; exit 1; }
for f in callgrind pprof folded chrome csv; do
	(cd u && "$EQPROF" export rec.eqp --format $f -o rec.$f 2>err)
	if [ $f = pprof ]; then
		check "unordered samples: $f export the same as the ordered file" \
			cmp -s <(gzip -dc rec.pprof) <(gzip -dc u/rec.pprof)
	else
		check "unordered samples: $f export the same as the ordered file" cmp -s rec.$f u/rec.$f
	fi
done

# --- errors -------------------------------------------------------------------------
"$EQPROF" export rec.eqp --format svg -o x >out 2>err; rc=$?
if [ $rc -eq 2 ] && grep -q "callgrind, pprof" err; then ok "unknown format is a usage error naming the formats"; else not_ok "unknown format (rc=$rc)"; fi
"$EQPROF" export rec.eqp --format csv >out 2>err; rc=$?
if [ $rc -eq 2 ] && grep -q -- "-o OUT" err; then ok "missing -o is a usage error"; else not_ok "missing -o (rc=$rc)"; fi
"$EQPROF" export rec.eqp --format csv -o nodir/x.csv >out 2>err; rc=$?
if [ $rc -eq 1 ] && grep -q "nodir" err; then ok "unwritable output: exit 1 naming it"; else not_ok "unwritable output (rc=$rc)"; fi
tap_plan
