#!/usr/bin/env bash
# eqprof merge's libFuzzer target: alignment, the merged file's writer and
# the merged file read back (test/format/fuzz_merge.c), over target/board
# pairs (test/format/corpus-merge, made by make-merge-corpus.py).
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_merge" "$SRC/test/format/corpus-merge" \
	6000 8192 "merge"
