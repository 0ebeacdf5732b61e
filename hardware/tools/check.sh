#!/bin/sh
# `make -C hardware check`: one TAP line per check; exit 1 if any fails.
cd "$(dirname "$0")/.." || exit 1
PY=${PY:-/usr/bin/python3}
OUT=${OUT:-fab}
n=0; failed=0
tap() { # status what
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
log=$(mktemp -d) || exit 1
trap 'rm -rf "$log"' EXIT

DEPS_QUIET=1 ../scripts/deps >"$log/deps" 2>&1; rc=$?
tap $rc "KiCad 9 and ngspice installed (scripts/deps)"
[ $rc -eq 0 ] || { sed 's/^/#   /' "$log/deps"; exit 1; }

kicad-cli sch erc --exit-code-violations --severity-all -o "$log/erc.rpt" eqprof-counter.kicad_sch >/dev/null 2>&1; rc=$?
tap $rc "ERC: no errors or warnings ($(grep -c '^\[' "$log/erc.rpt") violations)"
[ $rc -eq 0 ] || sed 's/^/#   /' "$log/erc.rpt"

kicad-cli pcb drc --exit-code-violations --severity-all --schematic-parity -o "$log/drc.rpt" eqprof-counter.kicad_pcb >/dev/null 2>&1; rc=$?
tap $rc "DRC: no violations, no unconnected items, schematic parity ($(grep -c '^\[' "$log/drc.rpt") issues)"
[ $rc -eq 0 ] || sed 's/^/#   /' "$log/drc.rpt"

rm -f "$OUT/.done"
make -s all OUT="$OUT" >"$log/fab" 2>&1; rc=$?
for f in gerbers/eqprof-counter-F_Cu.gtl gerbers/eqprof-counter-B_Cu.gbl gerbers/eqprof-counter.drl \
	 eqprof-counter-bom.csv eqprof-counter-pos.csv eqprof-counter-cost.md eqprof-counter.net eqprof-counter-schematic.pdf eqprof-counter-board-top.svg eqprof-counter-board-bottom.svg; do
	[ -s "$OUT/$f" ] || { echo "#   missing $OUT/$f"; rc=1; }
done
tap $rc "fabrication outputs regenerated in $OUT"
[ $rc -eq 0 ] || sed 's/^/#   /' "$log/fab"

"$PY" tools/trace_lengths.py eqprof-counter.kicad_pcb >"$log/lengths" 2>&1; rc=$?
sed -e 's/^ok [0-9]* - /  /' -e 's/^not ok [0-9]* - /  FAILED: /' -e 's/^/#/' "$log/lengths"
tap $rc "integrator node and crystal tracks short"

"$PY" tools/design_parity.py "$OUT/eqprof-counter.net" >"$log/parity" 2>&1; rc=$?
sed -e 's/^/#/' "$log/parity"
tap $rc "schematic connects exactly the nets of tools/design.py"

"$PY" tools/intent_check.py --pcb eqprof-counter.kicad_pcb "$OUT/eqprof-counter.net" >"$log/intent" 2>&1; rc=$?
sed -e 's/^ok [0-9]* - /  intent: /' -e 's/^not ok [0-9]* - /  intent FAILED: /' -e 's/^/#/' "$log/intent"
tap $rc "design intent from the netlist and datasheet pin tables (no symbol's pin numbers trusted)"

"$PY" tools/spice_sweep.py --csv "$OUT/spice-sweep.csv" --vbus-csv "$OUT/spice-vbus.csv" >"$log/spice" 2>&1; rc=$?
sed -e 's/^ok [0-9]* - /  spice: /' -e 's/^not ok [0-9]* - /  spice FAILED: /' -e 's/^/#/' "$log/spice"
tap $rc "SPICE front end: linear within 1% (10 mA..1 A) after calibration, dead time matches, E_min and V_b reading within 0.5% over VBUS 4.5-5.5 V"

"$PY" tools/sim_vbus.py "$EQPROF" --csv "$OUT/sim-vbus.csv" >"$log/simvbus" 2>&1; rc=$?
sed -e 's/^ok [0-9]* - /  /' -e 's/^not ok [0-9]* - /  FAILED: /' -e 's/^/#/' "$log/simvbus"
tap $rc "simulator on the SPICE node voltages: E_min and V_b reading within 0.5% over VBUS 4.5-5.5 V"

"$PY" tools/check_values.py "$OUT/eqprof-counter.net" "$EQPROF" >"$log/values" 2>&1; rc=$?
sed -e 's/^/#/' "$log/values"
tap $rc "one source of truth: netlist, SPICE, firmware and simulator agree with board.values"

echo "# $n checks, $failed failed"
[ $failed -eq 0 ]
