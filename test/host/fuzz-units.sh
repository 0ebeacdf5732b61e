#!/usr/bin/env bash
# SI quantities and integers (units.h), `eqprof sim --set`, and the board's
# byte stream through the host's client with its range checks: the
# libFuzzer target over its seeds (the first byte of each picks the parser).
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_units" "$SRC/test/host/corpus-units" \
	20000 1024 "units, sim --set, board stream"
