#!/usr/bin/env bash
# The scenario parser's and simulator's libFuzzer target (fuzz_scenario.c
# runs every scenario that parses), with the scenario language's dictionary.
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_scenario" "$SRC/test/sim/corpus" \
	20000 4096 "scenario parser and simulator" "$SRC/test/sim/scenario.dict"
