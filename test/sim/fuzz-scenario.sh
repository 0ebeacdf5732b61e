#!/usr/bin/env bash
# The scenario parser's libFuzzer target.
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_scenario" "$SRC/test/sim/corpus" \
	20000 4096 "scenario parser"
