#!/usr/bin/env bash
# Runs the report pipeline's libFuzzer target (symbolization, profiles,
# outputs, comparison) over its seed recordings, then a fixed number of
# mutations (a count, not a time, so runs are repeatable).  By hand, longer:
#   build/fuzz/fuzz_profile -max_total_time=600 test/analysis/corpus-eqp
set -u
fuzz=$B/fuzz/fuzz_profile
corpus=$SRC/test/analysis/corpus-eqp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
check() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

[ -x "$fuzz" ]; check $? "fuzz target built ($fuzz)"
"$fuzz" -runs=0 "$corpus" >"$work/seed.log" 2>&1
check $? "report pipeline survives every seed in test/analysis/corpus-eqp"
cp -r "$corpus" "$work/corpus"
"$fuzz" -seed=1 -runs=8000 -max_len=8192 "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -n 40 "$work/fuzz.log"
check $rc "8000 mutated recordings: no crash, leak or undefined behaviour"
