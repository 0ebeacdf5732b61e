#!/usr/bin/env bash
# bench/speed/ablate.sh [proc|line|floor|spread]: what bounds a report,
# measured by taking parts out of it (issue 30's goals that eqprof misses).
#
#   proc (the default): `report --by proc` over many samples at few pcs
#        against reading the file (the goal: 1.5x).  The patches of
#        bench/speed/ablate/proc/, each adding to the ones before: without
#        the chunks' checksum; without the pair counts too; without the two
#        sums of the intervals too.  BENCH_ABLATE_N samples (default 100 M:
#        3.2 GB in $TMPDIR) at 64 pcs.
#   line: `report --by line` against `report --by proc` over samples spread
#        over 5,000 functions (the goal: 2x).  bench/speed/ablate/line/:
#        without the batch counts (the run intervals' batch means).
#        BENCH_ABLATE_N samples (default 3.9 M, as make bench) at 320 k pcs.
#   floor: what the first goal leaves for counting, on the samples of proc:
#        bench/speed/ablate/floor/: nothing counted (each 24 KiB of
#        samples checksummed, then every word of it summed, as reading the
#        file sums them); then the checksum's work and the sum in one pass
#        (crc32c.c's 512-bit step, its value not kept: needs AVX-512 with
#        VPCLMULQDQ); then, after the first four chunks counted as ever,
#        that pass with a count a sample in a cell its pc's bits pick (no
#        lookup); with the count by the row the map's recent cache gives;
#        with the two sums of the intervals in sample order too; with the
#        rows' pair counts too; and all that with the count by pc bits
#        again (no lookup).
#   spread: `report --by proc` against reading the file over line's
#        samples, spread over 5,000 functions (the goal: 5x): with the
#        map's recent cache off, the samples looked up and not counted
#        (bench/speed/ablate/spread/).
#
# Builds eqprof from this source tree's HEAD in a scratch clone, then with
# the view's patches applied one after another, writes the recording with
# speed_rec, and prints the median CPU seconds (user + system) of
# BENCH_ABLATE_ROUNDS (default 5) interleaved rounds of each command, and
# each build's ratio.  The builds with parts taken out are for measuring
# only: their output is wrong.  Not part of make bench (several builds); by
# hand, in the source tree:
#
#   make build/eqprof build/bench/speed_rec
#   B=build EQPROF=$PWD/build/eqprof bench/speed/ablate.sh [line|floor|spread]
#
# A patch that no longer applies stops the script: make it again from the
# code it names (docs/guide.md, "Beside perf", says what each takes out).
# A patch's build is named "without" the patches so far unless the patch's
# first line, before its diff, is "label: NAME".
. "$(dirname "$0")/../lib.sh"
view=${1:-proc}
case $view in
proc | floor) n=${BENCH_ABLATE_N:-100000000} pcs=64 ;;
line | spread) n=${BENCH_ABLATE_N:-3900000} pcs=320000 ;;
*) echo "ablate.sh: '$view' is not a view it measures; use proc, line, floor or spread" >&2; exit 2 ;;
esac
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
for p in "$SRC/bench/speed/ablate/$view"/*.patch; do
	name=$(basename "$p" .patch)
	without="${without:+$without, }${name#[0-9]-}"
	git -C "$work/src" apply "$p" ||
		{ echo "ablate.sh: $p does not apply to HEAD" >&2; exit 1; }
	build "$name"
	label=$(sed -n '1s/^label: //p' "$p")
	ln -s "$name" "$work/${label:-without $without}"
	names+=("${label:-without $without}")
done

bench_funcs 5000
"$B/bench/speed_rec" "$work/funcs" "$n" "$pcs" "$work/rec.eqp" >/dev/null
python3 - "$SRC" "$B/bench/speed_rec" "$work/rec.eqp" "$n" "$pcs" "$rounds" "$work" "$view" \
	"${names[@]}" <<'PY'
import os, sys

src, speed_rec, path, n, pcs, rounds, work, view = sys.argv[1:9]
names = sys.argv[9:]
sys.argv[0] = "ablate.sh"
sys.path.insert(0, os.path.join(src, "bench", "speed"))
from rounds import medians  # noqa: E402


def report(name, by):
    return [os.path.join(work, name), "report", "--by", by, path]


n = format(int(n), ",")
if view in ("proc", "floor", "spread"):
    cmds = {"reading the file": [speed_rec, "--read", path]}
    cmds.update((k, report(k, "proc")) for k in names)
    m = medians(cmds, int(rounds))
    print("report --by proc, %s samples at %s pcs: median CPU seconds of %s interleaved rounds"
          % (n, format(int(pcs), ","), rounds))
    for k in cmds:
        print("  %-56s %7.4f s  %5.2fx reading the file" % (k, m[k], m[k] / m["reading the file"]))
else:
    cmds = {}
    for k in names:
        cmds[k + " proc"] = report(k, "proc")
        cmds[k + " line"] = report(k, "line")
    m = medians(cmds, int(rounds))
    print("report --by line against --by proc, %s samples over 5,000 functions (%s pcs): "
          "median CPU seconds of %s interleaved rounds" % (n, format(int(pcs), ","), rounds))
    for k in names:
        p, q = m[k + " proc"], m[k + " line"]
        print("  %-34s proc %7.3f s  line %7.3f s  %5.2fx" % (k, p, q, q / p))
PY
