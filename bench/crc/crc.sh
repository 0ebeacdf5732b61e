#!/usr/bin/env bash
# make bench: eq_crc32c's speed (issue 30), GB/s of each implementation
# this CPU has (crc_bench: 24 KiB pieces in L1 and L2, one call over
# 256 MB; the best of many runs, which take turns), then the instructions
# a byte each spends hashing 1 GB in 24 KiB pieces, by valgrind
# --tool=callgrind (the difference between 1 GB and 0.5 GB, so that the
# set-up drops out).  valgrind's CPU has no vpclmulqdq and no AVX-512:
# that code cannot be counted there (bench/crc/crc_bench.c says how to count
# it by hand).
# Prints figures; nothing here passes or fails.
. "$(dirname "$0")/../lib.sh"

"$B/bench/crc_bench" "${BENCH_CRC_RUNS:-300}"

# count IMPL BYTES: instructions of hashing BYTES with IMPL, or nothing
count() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$B/bench/crc_bench" --bytes "$2" "$1" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

echo "instructions a byte, 1 GB in 24 KiB pieces (difference of 43,690 and 21,845 pieces; valgrind --tool=callgrind):"
for impl in avx512 vpclmulqdq sse4.2 table; do
	if ! valgrind -q "$B/bench/crc_bench" --bytes 24576 "$impl" >/dev/null 2>&1; then
		echo "  $impl: not on valgrind's CPU"
		continue
	fi
	a=$(count "$impl" 536862720)
	b=$(count "$impl" 1073725440)
	awk -v a="$a" -v b="$b" -v i="$impl" \
		'BEGIN { printf "  %-11s %.3f\n", i, (b - a) / (1073725440 - 536862720) }'
done
