#!/usr/bin/env bash
# align.sh - what eqprof merge's alignment costs when the board's log is
# much longer than the recording (a GPIO board, matched by timing): a
# crafted board log of N quanta about 1 ms apart (+-5%) and a recording of
# N/10 of them taken in its middle, 1-4 us after each edge; merge's CPU
# time (median of 3) and the K it found.  Every report of the merged file
# repeats the alignment.  Prints figures, never fails on time.
set -eu
: "${EQPROF:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 40000 400000; do
	python3 - "$SRC" "$tmp" "$n" <<'PY'
import os, random, sys
sys.path.insert(0, os.path.join(sys.argv[1], "test", "lib"))
from eqpcraft import Recording, binf, brec
tmp, nb = sys.argv[2], int(sys.argv[3])
nt, start = nb // 10, nb // 2
random.seed(3)
t, bt = 0.01, []
for i in range(nb):
    t += 0.001 * random.uniform(0.95, 1.05)
    bt.append(int(t * 16e6))
recs = [(x, i, 64, 4000000, 0) for i, x in enumerate(bt)]
b = Recording(mode=1, quantum=46e-6 * 64, clock=16e6).add(binf())
for j in range(0, len(recs), 4096):
    b.add(brec(recs[j:j + 4096]))
open(os.path.join(tmp, "board.eqp"), "wb").write(b.bytes())
s = [(5_000_000 + int(bt[start + i] / 16e6 * 1e9) + random.randint(1000, 4000), 0x401000,
      100, 100, i, 0, 4) for i in range(nt)]
open(os.path.join(tmp, "target.eqp"), "wb").write(Recording(mode=1, quantum=0, clock=1e9).samples(s).bytes())
PY
	best=
	for r in 1 2 3; do
		/usr/bin/time -f "%U %S" -o "$tmp/time" "$EQPROF" merge "$tmp/target.eqp" "$tmp/board.eqp" \
			-o "$tmp/merged.eqp" 2>"$tmp/log" >/dev/null
		best="$best $(awk '{print $1 + $2}' "$tmp/time")"
	done
	med=$(printf '%s\n' $best | sort -g | sed -n 2p)
	echo "merge: board log of $n quanta, recording of $((n / 10)): ${med} s CPU (median of 3);" \
		"$(grep -o 'raised [0-9]* interrupts (quanta [0-9.]*)' "$tmp/log" || echo 'no alignment')"
done
