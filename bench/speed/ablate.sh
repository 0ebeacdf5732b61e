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
python3 - "$B/bench/speed_rec" "$work/big.eqp" "$n" "$rounds" "$work" "${names[@]}" <<'PY'
import os, statistics, subprocess, sys

speed_rec, path, n, rounds, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
names = sys.argv[6:]
cmds = [("reading the file", [speed_rec, "--read", path])]
cmds += [(n, [os.path.join(work, n), "report", "--by", "proc", path]) for n in names]
cpu = {k: [] for k, _ in cmds}
for r in range(rounds):
    for k, c in cmds:
        p = subprocess.Popen(c, stdout=subprocess.DEVNULL)
        _, st, ru = os.wait4(p.pid, 0)
        if st:
            sys.exit("ablate.sh: %s failed (status %d)" % (" ".join(c), st))
        cpu[k].append(ru.ru_utime + ru.ru_stime)
read = statistics.median(cpu["reading the file"])
print("report --by proc, %s samples at 64 pcs: median CPU seconds of %d interleaved rounds"
      % (format(n, ","), rounds))
for k, _ in cmds:
    m = statistics.median(cpu[k])
    print("  %-34s %7.3f s  %5.2fx reading the file" % (k, m, m / read))
PY
