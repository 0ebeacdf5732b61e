#!/usr/bin/env bash
# Runs the import parsers' libFuzzer target (CSV samples, maps, symbol
# lists) over its seed corpus, then a fixed number of mutations (a count,
# not a time, so runs are repeatable).  By hand, longer:
#   build/fuzz/fuzz_parsers -max_total_time=600 test/analysis/corpus
set -u
fuzz=$B/fuzz/fuzz_parsers
corpus=$SRC/test/analysis/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
check() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

[ -x "$fuzz" ]; check $? "fuzz target built ($fuzz)"
"$fuzz" -runs=0 "$corpus" >"$work/seed.log" 2>&1
check $? "parsers survive every seed in test/analysis/corpus"
cp -r "$corpus" "$work/corpus"
"$fuzz" -seed=1 -runs=200000 -max_len=2048 "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -n 40 "$work/fuzz.log"
check $rc "200000 mutated inputs: no crash, leak or undefined behaviour"
