#!/usr/bin/env bash
# make bench: eqprof report --by proc (and --sort comm,dso,sym, --symbol f1*)
# over 1M and 10M samples spread over a
# generated ELF with 1500 functions (samples/s, peak memory, ratio to just
# reading the file).  Figures only; nothing here passes or fails on time.
. "$(dirname "$0")/../lib.sh"
bench_funcs 1500
"$B/bench/report_bench" "$work/funcs" "$EQPROF" "$work"
