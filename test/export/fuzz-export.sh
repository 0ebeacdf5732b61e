#!/usr/bin/env bash
# power (summary, histogram, traces, regions) and every export format: the
# libFuzzer target over seed recordings (energy- and time-driven, board
# stream, markers, call chains, unordered rings, symbol tables).
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_export" "$SRC/test/export/corpus" \
	6000 16384 "power and exports"
