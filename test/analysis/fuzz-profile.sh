#!/usr/bin/env bash
# The report pipeline's libFuzzer target (symbolization, profiles, outputs,
# comparison) over seed recordings.
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_profile" "$SRC/test/analysis/corpus-eqp" \
	8000 8192 "report pipeline"
