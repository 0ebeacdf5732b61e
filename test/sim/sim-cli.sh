#!/usr/bin/env bash
# sim-cli.sh - `eqprof sim` as a user meets it: defaults equal to
# hardware/board.values, a user-written scenario through sim and report,
# the built-in scenarios, reproducibility, and bad input refused with a
# clear message and no output left behind.  TAP output.
set -u
: "${EQPROF:?}" "${SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$SRC/test/lib/tap.sh"

# 1: defaults against the board's one source of truth
"$EQPROF" sim --defaults >"$tmp/defaults" 2>&1
check "sim --defaults covers and equals hardware/board.values" python3 - "$SRC/hardware/board.values" "$tmp/defaults" <<'EOF'
import sys
board = {}
for line in open(sys.argv[1]):
    line = line.split('#')[0].split()
    if len(line) >= 2:
        board[line[0]] = float(line[1])
sim = dict((l.split()[0], float(l.split()[1])) for l in open(sys.argv[2]) if l.strip())
bad = [k for k in board if k not in sim or abs(sim[k] - board[k]) > 1e-9 * abs(board[k])]
extra = [k for k in sim if k not in board]
if bad or extra:
    print("# differ:", bad, "not in board.values:", extra)
    sys.exit(1)
EOF

# 2: a user-written scenario
cat >"$tmp/mine.scn" <<'EOF'
# my own handheld
scenario mine
description a user-written scenario
base_power 200mW
consumer radio 300mW period 100ms duty 10%
kernel
  proc cpu_idle 0xc0100000 0x100 15mW
idle cpu_idle
module /usr/bin/player
  proc decode_frame 0x1000 0x2000 900mW
  proc draw_ui      0x4000 0x1000 400mW
process player 1234 /usr/bin/player
  map /usr/bin/player 0x400000
phase play 5s
  cpu_idle 30% granularity 20ms
  run player decode_frame 3
  run player draw_ui 1
EOF
out=$(cd "$tmp" && "$EQPROF" sim mine.scn -o run1 2>&1)
check "sim runs a user scenario and says what it wrote" \
	grep -q "wrote run1/{energy.eqp,time.eqp,truth.json}" <<<"$out"
check "energy.eqp, time.eqp, truth.json and truth-trace.csv exist" \
	test -s "$tmp/run1/energy.eqp" -a -s "$tmp/run1/time.eqp" -a -s "$tmp/run1/truth.json" -a -s "$tmp/run1/truth-trace.csv"

"$EQPROF" report "$tmp/run1/energy.eqp" --by proc --format csv >"$tmp/report.csv" 2>"$tmp/report.err"
check "eqprof report symbolizes the scenario's procedures" \
	grep -q "decode_frame" "$tmp/report.csv"
# Each procedure's share against this run's truth: the bound is z binomial
# standard errors, z chosen for the number of rows checked so that the whole
# check fails less than once in 10,000 correct runs (two-sided 1e-4 split
# over the rows, Bonferroni: z = 4.27 for 5 rows).  Energy-driven samples are
# closer to systematic than to independent ones, so the real rate is lower.
check "report energy shares match truth.json (false-failure rate < 1e-4)" python3 - "$tmp/report.csv" "$tmp/run1/truth.json" <<'EOF'
import csv, json, math, sys
from statistics import NormalDist
truth = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[1])))
n = truth["samples_energy"]
def share(row):
    for k in ("share", "energy_share", "fraction"):
        if k in row and row[k] not in (None, ""):
            v = float(row[k].rstrip('%'))
            return v / 100 if row[k].endswith('%') or v > 1 else v
    return int(row["samples"]) / n
pairs = [(p, row) for p in truth["procedures"] for row in rows
         if (row.get("proc") or row.get("name")) == p["proc"]]
z = NormalDist().inv_cdf(1 - 1e-4 / (2 * max(len(pairs), 1)))
for p, row in pairs:
    s = share(row)
    se = math.sqrt(max(p["energy_share"] * (1 - p["energy_share"]), 1.0 / n) / n)
    print("# %s: %.5f, truth %.5f, bound %.5f (z %.2f)" % (p["proc"], s, p["energy_share"], z * se, z))
    if abs(s - p["energy_share"]) > z * se:
        sys.exit(1)
sys.exit(0 if len(pairs) >= 3 else 1)
EOF

# the example of docs/simulator.md is a working scenario
awk '/^scenario mine  /,/^```$/' "$SRC/docs/simulator.md" | grep -v '^```$' >"$tmp/doc.scn"
check "docs/simulator.md's example scenario runs" "$EQPROF" sim "$tmp/doc.scn" -o "$tmp/doc" -q
check "and its threads and procedures appear in the report" \
	grep -q "decode_frame" <("$EQPROF" report "$tmp/doc/energy.eqp" 2>&1)

# truth.json's Vb for the bias formula of docs/simulator.md ("Bias") is the
# charge-weighted one, E / Q: with it the formula gives the truth's
# expected_power_estimate_w (the same computation, in the engine's
# arithmetic: within 1e-7); the energy-weighted mean is another number
# (505 ppm low here, issue 23 item 9), which the check tells apart.
"$EQPROF" sim Music -o "$tmp/fuse" -q --set r_fuse=0.8
"$EQPROF" sim --defaults --all >"$tmp/defaults-all"
check "truth.json: the bias formula with vb.charge_weighted_v gives expected_power_estimate_w" \
	python3 - "$tmp/fuse/truth.json" "$tmp/defaults-all" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
d = dict((l.split()[0], float(l.split()[1])) for l in open(sys.argv[2]) if len(l.split()) >= 2 and l.split()[1][0] in "-0123456789.")
calib = d["e_min_high"] / (d["c_int"] * d["vx"] / 3 / d["alpha_high"] * d["vb_nominal"])
def est(vb):
    return t["avg_power_w"] * d["vb_nominal"] / vb * (1 - t["bias"]["dead_time_charge_lost"]) * calib
want = t["bias"]["expected_power_estimate_w"]
q, e = est(t["vb"]["charge_weighted_v"]), est(t["vb"]["energy_weighted_v"])
print("# charge-weighted %.6f V: %+.2f ppm; energy-weighted %.6f V: %+.2f ppm" % (
      t["vb"]["charge_weighted_v"], 1e6 * (q / want - 1), t["vb"]["energy_weighted_v"], 1e6 * (e / want - 1)))
sys.exit(0 if abs(q / want - 1) < 1e-7 and abs(e / want - 1) > 2e-5 else 1)
EOF

# A phased run (the paper's CPU-cached+Game: two phases of 34 s and 50 s),
# one recording's run-to-run interval: the batch means see the phases as
# slow variation, and another run repeats them, so the interval is far too
# wide; the warning must say so (issue 23 item 9: it said "probably too
# narrow").  The reference is another run of it: its shares differ from
# this one's by far less than the interval's half-width.
"$EQPROF" sim CPU-cached+Game -o "$tmp/ph1" -q
"$EQPROF" sim CPU-cached+Game -o "$tmp/ph2" -q --seed 2
"$EQPROF" report "$tmp/ph1/energy.eqp" --by exe --interval run-to-run >"$tmp/ph1.txt" 2>&1
"$EQPROF" report "$tmp/ph1/energy.eqp" --by exe --interval run-to-run --format json >"$tmp/ph1.json" 2>/dev/null
"$EQPROF" report "$tmp/ph2/energy.eqp" --by exe --format json >"$tmp/ph2.json" 2>/dev/null
check "phased run, run-to-run interval: the warning says too wide, by how much, not 'probably too narrow'" \
	python3 - "$tmp/ph1.txt" "$tmp/ph1.json" "$tmp/ph2.json" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
other = dict((r["name"], r["share"]) for r in b["rows"])
print("# " + "\n# ".join(l for l in text.split("\n") if l.startswith("# warning")))
ok = "too wide, by up to" in text and "probably too narrow" not in text and a["batch_overwidth"]
for r in a["rows"]:
    half = (r["ci95_high"] - r["ci95_low"]) / 2
    if r["share"] > 0.1:
        # another run is far closer than the interval says (it is too wide)
        print("# %s: %.4f, another run %.4f, half-width %.4f" % (r["name"], r["share"], other[r["name"]], half))
        ok = ok and abs(r["share"] - other[r["name"]]) < half / 10
sys.exit(0 if ok else 1)
EOF

# 3: reproducible runs, seeds that differ
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/run2" -q
check "the same seed gives the same run" cmp -s "$tmp/run1/truth.json" "$tmp/run2/truth.json"
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/run3" -q --seed 2
check "another seed gives another run" bash -c "! cmp -s '$tmp/run1/truth.json' '$tmp/run3/truth.json'"
check "-q prints nothing" test -z "$("$EQPROF" sim "$tmp/mine.scn" -o "$tmp/run4" -q 2>&1)"

# 4: built-in scenarios
check "sim --list names the 17 built-in scenarios" \
	test "$("$EQPROF" sim --list | wc -l)" -eq 17
"$EQPROF" sim --print Idle >"$tmp/idle.scn"
"$EQPROF" sim Idle -o "$tmp/b1" -q && "$EQPROF" sim "$tmp/idle.scn" -o "$tmp/b2" -q
check "a printed built-in scenario runs like the built-in" python3 - "$tmp/b1/truth.json" "$tmp/b2/truth.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(0 if a["energy_j"] == b["energy_j"] and a["samples_energy"] == b["samples_energy"] else 1)
EOF
# The simulated Idle's mean power is a property of the model: across seeds it
# varies by about 1 uW (SD over 8 seeds), so the 5.5 mW window is over a
# thousand SDs wide and a correct program never fails it (rate ~0); the 2% is
# the paper's Table 4 against the model's bias (0.2768 W).
check "Table 4 Idle: 273 mW within 2%" python3 -c "
import json,sys; t=json.load(open('$tmp/b1/truth.json')); sys.exit(0 if abs(t['avg_power_w']-0.273)<0.0055 else 1)"

# 4b: -o a/b creates the parents; Table 1's calibration on the simulated board
"$EQPROF" sim Idle -o "$tmp/deep/er/run" -q --set sampling=shared
check "sim -o creates missing parent folders" test -s "$tmp/deep/er/run/energy.eqp"
check "sampling shared is recorded in truth.json" grep -q '"sampling": "shared"' "$tmp/deep/er/run/truth.json"
"$EQPROF" sim --calibrate --set mirror_noise=0 --current 1A >"$tmp/cal"
# hand: period = C Vx / 3 / (alpha I) + dead time = 11.375 us + 0.3 us; x 1 A x 4.07 V
check "sim --calibrate: E_min = (C Vx / 3 / alpha I + t_d) I Vb" python3 - "$tmp/cal" <<'EOF'
import sys
v = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("e_min_high ")][0]
hand = (9.1e-9 * 3.75 / 3 / (1e-3 * 1.0) + 300e-9) * 1.0 * 4.07
sys.exit(0 if abs(v / hand - 1) < 1e-5 else 1)
EOF

# 5: bad input
printf 'scenario bad\nkernel\n  proc i 0 4 1mW\nidle i\nphase p 1s\n  cpu_idle 50%%\n  run nobody x\n' >"$tmp/bad.scn"
err=$("$EQPROF" sim "$tmp/bad.scn" -o "$tmp/badout" 2>&1); rc=$?
check "a bad scenario exits 1" test "$rc" -eq 1
check "the message names file and line" grep -q "bad.scn:7: run: no process named 'nobody'" <<<"$err"
check "and nothing is written" test ! -e "$tmp/badout/energy.eqp"
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/x" --set dead_time=-3ns 2>"$tmp/err"; rc=$?
check "a bad --set exits 1" test "$rc" -eq 1
check "naming the parameter" grep -q "dead_time" "$tmp/err"
"$EQPROF" sim "$tmp/nothere.scn" -o "$tmp/x" 2>"$tmp/err"; rc=$?
check "a missing scenario file exits 1" test "$rc" -eq 1
check "and says there is no such file or built-in" grep -q "nothere.scn: no such scenario file" "$tmp/err"
"$EQPROF" sim "$tmp/mine.scn" 2>/dev/null; rc=$?
check "no -o is a usage error (2)" test "$rc" -eq 2
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/fw" --firmware "$tmp/none.elf" 2>"$tmp/err"; rc=$?
check "--firmware with a missing ELF exits 1" test "$rc" -eq 1
check "with a message" test -s "$tmp/err"
check "the output folder of a failed run holds no recording" test ! -e "$tmp/fw/energy.eqp"

# 6: the output folder is all or nothing (issue 18): written beside DIR and
# swapped in whole, so DIR never mixes two runs, whatever stops sim.
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/ref1" -q --seed 1
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/ref2" -q --seed 2
same_as() { # DIR REF: the four files of DIR are REF's
	local f
	for f in energy.eqp time.eqp truth.json truth-trace.csv; do
		cmp -s "$1/$f" "$2/$f" || return 1
	done
}
cp -r "$tmp/ref1" "$tmp/aon"
echo "my notes" >"$tmp/aon/notes.txt"
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/aon" -q --seed 2 2>"$tmp/err"; rc=$?
check "a folder holding a file sim does not write is refused, naming it" \
	bash -c "[ $rc -eq 1 ] && grep -q notes.txt '$tmp/err'"
check "and left as it was" same_as "$tmp/aon" "$tmp/ref1"
rm "$tmp/aon/notes.txt"
"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/aon" -q --seed 2
check "a folder of an earlier run is replaced whole" same_as "$tmp/aon" "$tmp/ref2"
# SIGTERM at moments spread over a run (about 50 ms here; the files are
# written in its last third): the folder holds one whole run
# (the one before or the new one), and no temporary is left.
cur=2 mixed=0
for delay in 0.01 0.02 0.03 0.04 0.05 0.06 0.08 0.1 0.15 0.3; do
	new=$((3 - cur))
	"$EQPROF" sim "$tmp/mine.scn" -o "$tmp/aon" -q --seed $new 2>/dev/null &
	pid=$!
	sleep "$delay"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if same_as "$tmp/aon" "$tmp/ref$new"; then
		cur=$new
	elif ! same_as "$tmp/aon" "$tmp/ref$cur"; then
		echo "# SIGTERM after $delay s left a mixed folder"
		mixed=1
	fi
done
check "SIGTERM at any moment: the folder is one whole run, never two mixed" test "$mixed" -eq 0
check "and no temporary file or folder is left beside it" \
	test -z "$(ls -d "$tmp"/aon.tmp.* "$tmp"/aon/*.tmp.* 2>/dev/null)"

tap_plan
