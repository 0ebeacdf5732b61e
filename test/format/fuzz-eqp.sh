#!/usr/bin/env bash
# Runs the .eqp reader's libFuzzer target over its seed corpus and then a
# fixed number of mutations (a count, not a time, so the run is repeatable).
set -u
fuzz=$B/fuzz/fuzz_eqp
corpus=$SRC/test/format/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
check() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

[ -x "$fuzz" ]; check $? "fuzz target built ($fuzz)"
"$fuzz" -runs=0 "$corpus" >"$work/seed.log" 2>&1
check $? "reader survives every seed in test/format/corpus"
cp -r "$corpus" "$work/corpus"
"$fuzz" -seed=1 -runs=30000 -max_len=4096 "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -n 40 "$work/fuzz.log"
check $rc "30000 mutated recordings: no crash, leak or undefined behaviour"
