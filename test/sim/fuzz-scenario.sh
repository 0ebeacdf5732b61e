#!/usr/bin/env bash
# Runs the scenario parser's libFuzzer target over its seed corpus, then a
# fixed number of mutations (a count, not a time: the run is repeatable).
set -u
fuzz=$B/fuzz/fuzz_scenario
corpus=$SRC/test/sim/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
check() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

[ -x "$fuzz" ]; check $? "fuzz target built ($fuzz)"
"$fuzz" -runs=0 "$corpus" >"$work/seed.log" 2>&1
check $? "the parser survives every scenario in test/sim/corpus"
cp -r "$corpus" "$work/corpus"
"$fuzz" -seed=1 -runs=20000 -max_len=4096 "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -n 40 "$work/fuzz.log"
check $rc "20000 mutated scenarios: no crash, leak or undefined behaviour"
echo "1..$n"
