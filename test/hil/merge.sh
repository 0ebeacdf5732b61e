#!/usr/bin/env bash
# The two merges of a hardware-in-the-loop run (docs/hil.md), for
# `make hil-demo` (demo.sh) and test/hil/hil.sh alike:
#
#   merge.sh OUTDIR        (EQPROF in the environment)
#
# OUTDIR/merged.eqp: the guest's energy-driven samples with the board's
# stream (merge.log); OUTDIR/merged-time.eqp: the time-driven run tied to
# the board's clock by the edges the guest recorded meanwhile (merge-t.log;
# docs/power.md: power per procedure by regression).  check.py reads all
# four.  Exit status: the first merge's that failed.
set -u
out=$1
"$EQPROF" merge "$out/guest/energy.eqp" "$out/board.eqp" -o "$out/merged.eqp" 2>"$out/merge.log" || exit
"$EQPROF" merge "$out/guest/time.eqp" "$out/board.eqp" --edges "$out/guest/edges.eqp" \
	-o "$out/merged-time.eqp" 2>"$out/merge-t.log"
