#!/usr/bin/env bash
# Tracepoint format files and raw records (host/record/trace_events.c) fuzzed.
exec "$SRC/test/lib/fuzz-corpus.sh" "$B/fuzz/fuzz_trace" "$SRC/test/host/corpus-trace" \
	200000 4096 "tracepoint formats and records"
