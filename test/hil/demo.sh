#!/usr/bin/env bash
# make hil-demo: the whole chain for a user (docs/hil.md).  Runs the loop
# (test/hil/run-loop.sh: the board firmware in simavr interrupting Debian's
# kernel in QEMU), merges the board's stream with the guest's recording and
# prints the energy and time profiles, the loss cross-check, the clocks'
# alignment and the plots, with the bridge's exact truth beside them.
set -euo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-$SRC/build}
B=$(cd "$B" && pwd)
EQPROF=${EQPROF:-$B/eqprof}
out=$B/hil-demo
secs=${HIL_SECONDS:-6}
rm -rf "$out"
echo "hil-demo: booting Debian's kernel in QEMU with the board firmware in simavr beside it (a minute or two)..."
mkdir -p "$out"
if ! SRC=$SRC B=$B EQPROF=$EQPROF "$SRC/test/hil/run-loop.sh" "$out" "$secs" >"$out/run.log" 2>&1; then
	tail -n 20 "$out/run.log" >&2
	echo "hil-demo: the loop failed; see $out/run.log, $out/console.log, $out/bridge.log" >&2
	exit 1
fi
# the two merges check.py judges (test/hil/hil.sh runs this script as the
# README writes it, `make hil-demo`, and judges what it leaves)
EQPROF=$EQPROF "$SRC/test/hil/merge.sh" "$out" || { cat "$out/merge.log" "$out/merge-t.log" >&2; exit 1; }
cat "$out/merge.log" "$out/merge-t.log"
echo
echo "== the energy profile (one sample per board quantum), by program"
"$EQPROF" report "$out/merged.eqp" --by exe --symfs "$out/root" 2>/dev/null | head -n 14
echo
echo "== the time profile of the same run (perf's cpu-clock in the guest), by program"
"$EQPROF" report "$out/guest/time.eqp" --by exe --symfs "$out/root" 2>/dev/null | head -n 12
echo
echo "== where they disagree (the paper's Figure 12)"
"$EQPROF" compare "$out/guest/time.eqp" "$out/merged.eqp" --by exe 2>/dev/null | head -n 12 || true
echo
echo "== power (plots: $out/trace.png, $out/hist.png)"
"$EQPROF" power "$out/merged.eqp" --summary --trace "$out/trace.png" --hist "$out/hist.png" || true
echo
echo "== beside the truth (the bridge integrated each phase's power over the board's time)"
EQPROF=$EQPROF python3 "$SRC/test/hil/check.py" "$out" 1 --summary >"$out/check.tap"
grep '^#' "$out/check.tap" | sed 's/^# //'
echo
# the checks are counted, not the demo's status: it ran (test/hil/hil.sh
# judges the checks one by one)
echo "hil-demo: $(grep -c '^ok' "$out/check.tap" || true) checks against the truth hold," \
	"$(grep -c '^not ok' "$out/check.tap" || true) fail ($out/check.tap)"
echo "hil-demo: everything is in $out (merged.eqp, merged-time.eqp, guest/, board.eqp, truth, trace.png, hist.png)"
