#!/usr/bin/env bash
# The .eqp reader's libFuzzer target (built without CRC checks, so mutations
# reach the chunk parsers; docs/format.md).
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_eqp" "$SRC/test/format/corpus" \
	30000 4096 ".eqp reader"
