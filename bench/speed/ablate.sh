#!/usr/bin/env bash
# bench/speed/ablate.sh: what bounds `report --by proc` over many samples at
# few pcs (issue 30's goal: 1.5x reading the file), measured by taking parts
# out of the count.
#
# Builds eqprof from this source tree's HEAD in a scratch clone, then with
# the patches of bench/speed/ablate/ applied one after another (each adds
# to the ones before: without the chunks' checksum; without the pair counts
# too; without the two sums of the intervals too), writes BENCH_ABLATE_N
# samples (default 100 M: 3.2 GB in $TMPDIR) at 64 pcs with speed_rec, and
# prints the median CPU seconds (user + system) of BENCH_ABLATE_ROUNDS
# (default 5) interleaved rounds of reading the file (speed_rec --read) and
# of each build's report --by proc, with its ratio to reading the file.
# The builds with parts taken out are for measuring only: their output is
# wrong.  Not part of make bench (four builds); by hand, in the source tree:
#
#   make build/eqprof build/bench/speed_rec
#   B=build EQPROF=$PWD/build/eqprof bench/speed/ablate.sh
#
# A patch that no longer applies stops the script: make it again from the
# code it names (docs/guide.md, "Beside perf", says what each takes out).
. "$(dirname "$0")/../lib.sh"
n=${BENCH_ABLATE_N:-100000000}
rounds=${BENCH_ABLATE_ROUNDS:-5}

git -C "$SRC" rev-parse --verify -q HEAD >/dev/null ||
	{ echo "ablate.sh: $SRC is not a git checkout (it builds HEAD in a clone)" >&2; exit 1; }
git clone -q "$SRC" "$work/src"
build() # name: make eqprof in the clone, keep it as $work/NAME
{
	make -C "$work/src" -s -j"$(nproc)" build/eqprof >"$work/make.log" 2>&1 ||
		{ cat "$work/make.log" >&2; echo "ablate.sh: the build '$1' failed" >&2; exit 1; }
	cp "$work/src/build/eqprof" "$work/$1"
}
build HEAD
names=(HEAD) without=
for p in "$SRC"/bench/speed/ablate/*.patch; do
	name=$(basename "$p" .patch)
	without="${without:+$without, }${name#ablate-[0-9]-}"
	git -C "$work/src" apply "$p" ||
		{ echo "ablate.sh: $p does not apply to HEAD" >&2; exit 1; }
	build "$name"
	ln -s "$name" "$work/without $without"
	names+=("without $without")
done

bench_funcs 5000
"$B/bench/speed_rec" "$work/funcs" "$n" 64 "$work/big.eqp" >/dev/null
python3 - "$SRC" "$B/bench/speed_rec" "$work/big.eqp" "$n" "$rounds" "$work" "${names[@]}" <<'PY'
import os, sys

src, speed_rec, path, n, rounds, work = sys.argv[1:7]
names = sys.argv[7:]
sys.argv[0] = "ablate.sh"
sys.path.insert(0, os.path.join(src, "bench", "speed"))
from rounds import medians  # noqa: E402

cmds = {"reading the file": [speed_rec, "--read", path]}
cmds.update((k, [os.path.join(work, k), "report", "--by", "proc", path]) for k in names)
m = medians(cmds, int(rounds))
print("report --by proc, %s samples at 64 pcs: median CPU seconds of %s interleaved rounds"
      % (format(int(n), ","), rounds))
for k in cmds:
    print("  %-34s %7.3f s  %5.2fx reading the file" % (k, m[k], m[k] / m["reading the file"]))
PY
