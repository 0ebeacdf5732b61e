#!/usr/bin/env bash
# make bench: eqprof view over synthetic recordings of 100k, 1M, 10M and
# 100M samples (bench/view/view_mkrec): the page's size, the time to build
# it (and eqprof's peak memory), the time Chromium takes to open it, and
# the time of each interaction until the next frame (median and worst of a
# drag's steps; a selection of half the run; zoom steps; switching the
# grouping; highlighting a row).  Figures only: nothing passes or fails on
# time.  VIEW_BENCH_SIZES="100000 1000000" limits the sizes.
set -eu
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
viewer=$B/viewer/viewer.html
if [ ! -f "$viewer" ]; then
	make -C "$SRC" --no-print-directory viewer B="$B" >/dev/null
fi
printf '%10s %9s %9s %8s %9s %8s %9s %9s %9s %9s %9s\n' samples buckets page build peak_mem load \
	"drag med" "drag max" "half run" "zoom med" "group med"
for n in ${VIEW_BENCH_SIZES:-100000 1000000 10000000 100000000}; do
	"$B/bench/view_mkrec" "$n" "$work/r.eqp"
	/usr/bin/time -f '%e %M' -o "$work/time" "$EQPROF" view "$work/r.eqp" -o "$work/r.html" -q
	read -r secs kb <"$work/time"
	rm -f "$work/r.eqp"
	size=$(stat -c %s "$work/r.html")
	json=$(SRC=$SRC node "$SRC/bench/view/measure.mjs" "$work/r.html")
	python3 - "$n" "$size" "$secs" "$kb" "$json" <<'PY'
import json, sys
n, size, secs, kb, doc = sys.argv[1:]
d = json.loads(doc)
print("%10s %9d %8.1fM %7.1fs %8.0fM %7.2fs %8.1fms %8.1fms %8.1fms %8.1fms %8.1fms" % (
    n, d["nb"], int(size) / 1e6, float(secs), int(kb) / 1024, d["load_ms"] / 1000,
    d["drag"]["median"], d["drag"]["max"], d["wide"], d["zoom"]["median"], d["group"]["median"]))
if d["errors"]:
    print("  page errors:", d["errors"])
PY
	rm -f "$work/r.html"
done
echo "(load: from opening the file to the first frame drawn; interactions: until the next frame)"
