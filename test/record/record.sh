#!/usr/bin/env bash
# eqprof record -t on a real process: the time profile of a workload with a
# known 2:1 split, threads followed, maps and names captured, and every error
# path (bad options, missing command, unwritable output, command's status).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$SRC/test/lib/tap.sh"

# share of one row of `report --format csv` (name,module,samples,share,...)
share() { awk -F, -v name="$2" '$1 == name { print $4 }' "$1"; }
near() { awk -v x="$1" -v want="$2" -v tol="$3" 'BEGIN { exit !(x != "" && x - want < tol && want - x < tol) }'; }

cc -O1 -g -pthread -o "$work/spin" "$SRC/test/record/spin.c" || { not_ok "build spin.c"; exit 1; }

"$EQPROF" record -t 2kHz -q -o "$work/spin.eqp" -- "$work/spin" 40000000 >"$work/out" 2>&1
check_status $? "record -t 2kHz runs the command and writes a recording"
"$EQPROF" report "$work/spin.eqp" --by proc --format csv >"$work/proc.csv" 2>"$work/err"
check_status $? "report reads the recording"
h=$(share "$work/proc.csv" heavy) l=$(share "$work/proc.csv" light)
near "$h" 0.6667 0.07; check_status $? "heavy() has two thirds of the samples (got $h)"
near "$l" 0.3333 0.07; check_status $? "light() has one third of the samples (got $l)"
"$EQPROF" report "$work/spin.eqp" --by exe --format csv >"$work/mod.csv"
m=$(share "$work/mod.csv" spin)
near "$m" 0.97 0.031; check_status $? "the executable is resolved through the captured maps (spin has $m)"

"$EQPROF" record -t 2kHz -q -o "$work/thr.eqp" -- "$work/spin" 20000000 thread
"$EQPROF" report "$work/thr.eqp" --by proc --format csv >"$work/thr.csv"
h=$(share "$work/thr.csv" heavy) l=$(share "$work/thr.csv" light)
near "$h" 0.6667 0.08 && near "$l" 0.3333 0.08; check_status $? "a second thread is sampled too (heavy $h, light $l)"

"$EQPROF" record -t -q -o "$work/st.eqp" -- "$work/spin" 1000 no 7
[ $? -eq 7 ] && [ -s "$work/st.eqp" ]; check_status $? "the command's exit status is passed on and the recording still written"

"$EQPROF" record -t -q -o "$work/none.eqp" -- /nonexistent/cmd 2>"$work/err"
[ $? -eq 1 ] && grep -q "cannot run '/nonexistent/cmd'" "$work/err" && [ ! -e "$work/none.eqp" ]
check_status $? "a missing command is named, exit 1, no output left"
"$EQPROF" record -t -q -o "$work/x.eqp" 2>"$work/err"
[ $? -eq 2 ] && grep -q "no command" "$work/err"; check_status $? "no command: usage error"
"$EQPROF" record -t 0Hz -q -o "$work/x.eqp" -- true 2>"$work/err"
[ $? -eq 2 ]; check_status $? "a zero rate is refused"
"$EQPROF" record -e -o "$work/x.eqp" -- true 2>"$work/err"
[ $? -ne 0 ] && grep -q "board" "$work/err"; check_status $? "-e explains what energy-driven recording needs"
"$EQPROF" record -t -q -o /nonexistent-dir/x.eqp -- true 2>"$work/err"
[ $? -eq 1 ] && grep -q "/nonexistent-dir/x.eqp" "$work/err"; check_status $? "an unwritable output is named"
cp "$work/spin.eqp" "$work/keep.eqp"
"$EQPROF" record -t -q -o "$work/keep.eqp" -- /nonexistent/cmd 2>/dev/null
cmp -s "$work/spin.eqp" "$work/keep.eqp"; check_status $? "a failed run leaves an existing recording untouched"

# The recording carries the build-ids of the mapped files: a rebuilt binary
# is noticed instead of being symbolized wrongly.
cc -O2 -g -pthread -o "$work/spin" "$SRC/test/record/spin.c"
"$EQPROF" report "$work/spin.eqp" --by proc --format csv >"$work/rebuilt.csv" 2>"$work/err"
grep -q "build-id of $work/spin is" "$work/err" && ! grep -q '^heavy,' "$work/rebuilt.csv"
check_status $? "a binary rebuilt after recording is detected by its build-id"
tap_plan
