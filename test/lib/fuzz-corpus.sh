#!/usr/bin/env bash
# Shared by the fuzz tests: runs a libFuzzer target over its seed corpus,
# then a fixed number of mutations from it (a count, not a time, with a fixed
# seed, so a run is repeatable).  Prints TAP.
#
#   fuzz-corpus.sh FUZZER CORPUS RUNS MAX_LEN WHAT [DICT]
#
# DICT: a libFuzzer dictionary (-dict=) of the input language's words.
#
# To fuzz longer by hand: FUZZER -max_total_time=600 -max_len=MAX_LEN COPY_OF_CORPUS
set -u
fuzz=$1 corpus=$2 runs=$3 max_len=$4 what=$5
dict=()
[ -n "${6:-}" ] && dict=("-dict=$6")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/tap.sh"

[ -x "$fuzz" ]; check_status $? "fuzz target built ($fuzz)"
"$fuzz" -runs=0 "$corpus" >"$work/seed.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -n 40 "$work/seed.log"
check_status $rc "$what: every seed in ${corpus#"${SRC:-}/"} ($(ls "$corpus" | wc -l) files)"
cp -r "$corpus" "$work/corpus"
# A failing input (crash-*, oom-*, leak-*, timeout-*) is kept under
# $B/fuzz-artifacts/, not written into the source tree.
art=${B:-/tmp}/fuzz-artifacts/$(basename "$fuzz")
mkdir -p "$work/art"
"$fuzz" -seed=1 -runs="$runs" -max_len="$max_len" -artifact_prefix="$work/art/" \
	"${dict[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	tail -n 40 "$work/fuzz.log"
	mkdir -p "$art" && cp "$work/art/"* "$art/" 2>/dev/null &&
		echo "# the failing input: $(ls "$art" | sed "s|^|$art/|" | tr '\n' ' ')"
fi
check_status $rc "$what: $runs mutated inputs, no crash, leak or undefined behaviour"
tap_plan
