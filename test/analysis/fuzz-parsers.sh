#!/usr/bin/env bash
# The import parsers' libFuzzer target (CSV samples, maps, symbol lists).
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_parsers" "$SRC/test/analysis/corpus" \
	200000 2048 "import parsers"
