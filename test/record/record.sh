#!/usr/bin/env bash
# eqprof record -t on a real process: the time profile of a workload split
# between two functions, as perf samples the same run; threads followed,
# maps and names captured, and every error
# path (bad options, missing command, unwritable output, command's status).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$SRC/test/lib/tap.sh"

# samples of one row of `report --format csv` (name,module,samples,share,...)
samples() { awk -F, -v name="$2" '$1 == name { print $3 }' "$1"; }
near() { awk -v x="$1" -v want="$2" -v tol="$3" 'BEGIN { exit !(x != "" && x - want < tol && want - x < tol) }'; }

# heavy()'s share of the heavy+light samples against perf's share of the
# same run: perf record runs around eqprof record, its own timer sampling
# the same process (test/symbols/perfcmp.py).  Nothing is assumed about how
# fast either loop runs, nor taken from the workload's own CPU-time clock
# (it does not count what a cpu-clock profiler samples: interrupt work
# charged to the task).  perfcmp's bound is 4.9 standard errors of the
# difference plus half a point, a two-sided 9.6e-7 for each of the three
# checks; where perf cannot run they are skipped, saying so.
perf_ok=
perf record -q -e cpu-clock:u -o "$work/probe.perf" -- true >/dev/null 2>&1 && perf_ok=1
ev=cpu-clock:u
{ [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; } && ev=cpu-clock
rec2k() { # OUT ARGS...: eqprof record -t 2kHz ARGS, with perf record around it where perf runs
	local out=$1
	shift
	if [ -n "$perf_ok" ]; then
		perf record -q -m 16 -e "$ev" -c 500000 -o "$out.perf" -- "$EQPROF" record -t 2kHz -q -o "$out" -- "$@"
	else
		"$EQPROF" record -t 2kHz -q -o "$out" -- "$@"
	fi
}
perf_sym() { # PERFDATA SYM: perf's samples of SYM, eqprof's own left out
	perf report -i "$1" --stdio -q -n --no-children -g none --sort comm,sym 2>/dev/null |
		awk -v s="$2" '$3 != "eqprof" && $5 == s { n += $2 } END { print n + 0 }'
}
share_matches() { # CSV PERFDATA WHAT
	local k l pk pl
	k=$(samples "$1" heavy) l=$(samples "$1" light)
	pk=$(perf_sym "$2" heavy) pl=$(perf_sym "$2" light)
	python3 "$SRC/test/symbols/perfcmp.py" share "$3: heavy's share of heavy+light, as perf's" \
		"${k:-0}" $((${k:-0} + ${l:-0})) "$pk" $((pk + pl))
}
share_check() { # WHAT CSV PERFDATA
	if [ -n "$perf_ok" ]; then
		check "$1" share_matches "$2" "$3" "$1"
	else
		ok "# SKIP $1: perf (the reference) cannot run here"
	fi
}

cc -O1 -g -pthread -o "$work/spin" "$SRC/test/record/spin.c" || { not_ok "build spin.c"; exit 1; }

rec2k "$work/spin.eqp" "$work/spin" 1500 >"$work/out" 2>&1
check_status $? "record -t 2kHz runs the command and writes a recording"
"$EQPROF" report "$work/spin.eqp" --by proc --format csv >"$work/proc.csv" 2>"$work/err"
check_status $? "report reads the recording"
share_check "heavy() and light() get perf's shares of the same run" "$work/proc.csv" "$work/spin.eqp.perf"
"$EQPROF" report "$work/spin.eqp" --by exe --format csv >"$work/mod.csv"
# --by exe counts every sample of the process (its kernel time too): 100%
# whenever the captured maps resolve it; not a statistical bound (rate 0).
m=$(awk -F, '$1 == "spin" { print $4 }' "$work/mod.csv")
awk -v m="$m" 'BEGIN { exit !(m >= 0.97) }'; check_status $? "the executable is resolved through the captured maps (spin has $m)"

rec2k "$work/thr.eqp" "$work/spin" 1500 thread >/dev/null 2>&1
"$EQPROF" report "$work/thr.eqp" --by proc --format csv >"$work/thr.csv"
share_check "a second thread is sampled too, at perf's share" "$work/thr.csv" "$work/thr.eqp.perf"

# A child that forks without exec has no maps of its own: it inherits its
# parent's, as the kernel's FORK record says.
rec2k "$work/fork.eqp" "$work/spin" 1500 fork >/dev/null 2>&1
"$EQPROF" report "$work/fork.eqp" --by proc --format csv >"$work/fork.csv"
k=$(samples "$work/fork.csv" light)
[ "${k:-0}" -gt 0 ]; check_status $? "a child forked without exec is symbolized through its parent's maps (light: ${k:-0} samples)"
share_check "the forked child's light() at perf's share" "$work/fork.csv" "$work/fork.eqp.perf"

"$EQPROF" record -t -q -o "$work/st.eqp" -- "$work/spin" 10 no 7
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
# Options are checked before the command starts, and errors name the option
# and the value.
"$EQPROF" record -t -q -o /nonexistent-dir/x.eqp -- touch "$work/ran" 2>"$work/err"
[ $? -eq 1 ] && [ ! -e "$work/ran" ]; check_status $? "an unwritable output is found before the command runs"
for bad in "-t abc" "-t -5" "-t 0" "-t 1x" "--jitter 70" "--jitter x"; do
	"$EQPROF" record $bad -q -o "$work/x.eqp" -- true 2>"$work/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$bad" "$work/err" && ! { [ "$bad" = "-t 0" ] && grep -q jitter "$work/err"; }
	check_status $? "record $bad: exit 2, the message names '$bad' ($(head -c 120 "$work/err"))"
done
"$EQPROF" record -t 1k -q -o "$work/k.eqp" true 2>"$work/err"
[ $? -eq 0 ] && [ -s "$work/k.eqp" ]; check_status $? "record -t 1k CMD: a rate without its unit, a command without '--' (as perf takes them)"
# (a run long enough for samples: a recording with none is an error to report)
(cd "$work" && "$EQPROF" record -q "$work/spin" 50 2>/dev/null && [ -s eqprof.eqp ] && "$EQPROF" report >/dev/null)
check_status $? "record writes eqprof.eqp by default and report reads it without a name"
"$EQPROF" record -t 100kHz -q -o "$work/fast.eqp" -- "$work/spin" 200 2>"$work/err"
[ $? -eq 0 ] && { ! grep -q warning "$work/err" || grep -q -- "-t 100 kHz: this machine took" "$work/err"; }
check_status $? "record -t 100kHz: recorded; a warning, if any, names the rate and what was measured"
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
