#!/usr/bin/env bash
# eqprof record -t on a real process: the time profile of a workload whose
# split between two functions it measures itself, threads followed, maps and names captured, and every error
# path (bad options, missing command, unwritable output, command's status).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$SRC/test/lib/tap.sh"

# samples of one row of `report --format csv` (name,module,samples,share,...)
samples() { awk -F, -v name="$2" '$1 == name { print $3 }' "$1"; }
near() { awk -v x="$1" -v want="$2" -v tol="$3" 'BEGIN { exit !(x != "" && x - want < tol && want - x < tol) }'; }

# heavy()'s share of the heavy+light samples against its share of the CPU
# time spin measured itself (CLOCK_THREAD_CPUTIME_ID around every call; see
# spin.c): nothing is assumed about how fast either loop runs.  The bound is
# 4.15 binomial standard errors, a two-sided false-failure rate of 3.3e-5
# for independent samples, for each of the three share checks below: 1e-4
# for the file; jittered-timer samples are closer to systematic ones and
# vary less, so the real rate is lower.  0.005 more allows for the
# instants at call boundaries that the two clocks attribute differently.
share_matches() { # CSV TRUTH WHAT
	local k l
	k=$(samples "$1" heavy) l=$(samples "$1" light)
	awk -v k="${k:-0}" -v l="${l:-0}" -v truth="$(cat "$2")" -v what="$3" 'BEGIN {
		split(truth, f, /[ =]/); H = f[2]; L = f[4]
		m = k + l; if (m < 200 || H + L <= 0) { print "# too few samples: " m; exit 1 }
		p = H / (H + L); ph = k / m; tol = 4.15 * sqrt(p * (1 - p) / m) + 0.005
		printf "# %s: heavy %.4f of %d samples, measured CPU share %.4f, bound %.4f\n", what, ph, m, p, tol
		exit !(ph - p < tol && p - ph < tol) }'
}

cc -O1 -g -pthread -o "$work/spin" "$SRC/test/record/spin.c" || { not_ok "build spin.c"; exit 1; }

SPIN_TRUTH="$work/truth" "$EQPROF" record -t 2kHz -q -o "$work/spin.eqp" -- "$work/spin" 1500 >"$work/out" 2>&1
check_status $? "record -t 2kHz runs the command and writes a recording"
"$EQPROF" report "$work/spin.eqp" --by proc --format csv >"$work/proc.csv" 2>"$work/err"
check_status $? "report reads the recording"
check "heavy() and light() get the shares of CPU time spin measured itself" \
	share_matches "$work/proc.csv" "$work/truth" "one thread"
"$EQPROF" report "$work/spin.eqp" --by exe --format csv >"$work/mod.csv"
# --by exe counts every sample of the process (its kernel time too): 100%
# whenever the captured maps resolve it; not a statistical bound (rate 0).
m=$(awk -F, '$1 == "spin" { print $4 }' "$work/mod.csv")
awk -v m="$m" 'BEGIN { exit !(m >= 0.97) }'; check_status $? "the executable is resolved through the captured maps (spin has $m)"

SPIN_TRUTH="$work/truth" "$EQPROF" record -t 2kHz -q -o "$work/thr.eqp" -- "$work/spin" 1500 thread
"$EQPROF" report "$work/thr.eqp" --by proc --format csv >"$work/thr.csv"
check "a second thread is sampled too, at its measured share" \
	share_matches "$work/thr.csv" "$work/truth" "two threads"

# A child that forks without exec has no maps of its own: it inherits its
# parent's, as the kernel's FORK record says.
SPIN_TRUTH="$work/truth" "$EQPROF" record -t 2kHz -q -o "$work/fork.eqp" -- "$work/spin" 1500 fork
"$EQPROF" report "$work/fork.eqp" --by proc --format csv >"$work/fork.csv"
check "a child forked without exec is symbolized through its parent's maps" \
	share_matches "$work/fork.csv" "$work/truth" "forked child"

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
(cd "$work" && "$EQPROF" record -q true && [ -s eqprof.eqp ] && "$EQPROF" report >/dev/null)
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
