#!/usr/bin/env bash
# make bench: eqprof view over synthetic recordings of 100k, 1M, 10M and
# 100M samples (bench/view/view_mkrec): the page's size; the time to build
# it, its CPU time and eqprof's peak memory (and its own, without the mapped recording's pages); the time Chromium takes to
# open it; and what each interaction costs until its frame is painted: a
# Shift+drag's steps, a selection of half the run, zoom steps, pan steps,
# switching the grouping (bench/view/measure.mjs).  Every time comes as the
# wall-clock time (medians over the steps, timed in the page) and as CPU
# time (eqprof's; all of Chromium's processes' per step), with the load
# average beside: on a shared machine the wall-clock figures grow with the
# load, the CPU times much less.  Figures only: nothing passes or fails on
# time.  VIEW_BENCH_SIZES="100000 1000000" limits the sizes.
set -eu
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
viewer=$B/viewer/viewer.html
if [ ! -f "$viewer" ]; then
	make -C "$SRC" --no-print-directory viewer B="$B" >/dev/null
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); times: wall/CPU"
printf '%10s %7s %6s %13s %11s %19s %20s %13s %13s %13s %13s %5s\n' samples buckets page "build" "mem/own" "load (empty)" \
	"drag med/p90/CPU" "half run" "zoom" "pan" "grouping" load
for n in ${VIEW_BENCH_SIZES:-100000 1000000 10000000 100000000}; do
	"$B/bench/view_mkrec" "$n" "$work/r.eqp"
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$EQPROF" view "$work/r.eqp" -o "$work/r.html" -q &
	tpid=$!
	anon=0  # eqprof's own memory (RssAnon, polled): the peak RSS counts the mapped recording's pages too
	while kill -0 "$tpid" 2>/dev/null; do
		for p in $(pgrep -P "$tpid" 2>/dev/null); do
			a=$(awk '/^RssAnon/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
			[ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
		done
		sleep 0.05
	done
	wait "$tpid"
	read -r secs user sys kb <"$work/time"
	rm -f "$work/r.eqp"
	size=$(stat -c %s "$work/r.html")
	json=$(SRC=$SRC node "$SRC/bench/view/measure.mjs" "$work/r.html")
	python3 - "$n" "$size" "$secs" "$user" "$sys" "$kb" "$anon" "$json" <<'PY'
import json, sys
n, size, secs, user, sys_, kb, anon, doc = sys.argv[1:]
d = json.loads(doc)
ms = lambda x: "%.0f" % x
s = lambda x: "%.1fs" % x
pair = lambda k: "%s/%sms" % (ms(d[k]["median"]), ms(d[k]["cpu_ms"]))
print("%10s %7d %5.1fM %13s %11s %19s %20s %13s %13s %13s %13s %5.1f" % (
    n, d["nb"], int(size) / 1e6, s(float(secs)) + "/" + s(float(user) + float(sys_)), "%.0fM/%.0fM" % (int(kb) / 1024, int(anon) / 1024),
    s(d["load"]["wall_ms"] / 1000) + "/" + s(d["load"]["cpu_ms"] / 1000) + " (" + s(d["load"]["empty_cpu_ms"] / 1000) + ")",
    "%s/%s/%sms" % (ms(d["drag"]["median"]), ms(d["drag"]["p90"]), ms(d["drag"]["cpu_ms"])),
    pair("wide"), pair("zoom"), pair("pan"), pair("group"), d["loadavg"]))
if d["errors"]:
    print("  page errors:", d["errors"])
PY
	rm -f "$work/r.html"
done
echo "(build: eqprof view, wall/CPU; mem: its peak RSS (with the pages of the mapped recording) and its own"
echo " memory (peak RssAnon, polled every 50 ms); load: opening the file to the first frame, wall/CPU of"
echo " all Chromium's processes, medians of 3 opens, and (in brackets) the CPU of opening an empty page the"
echo " same way: Chromium's own share; interactions: median wall time from the input to its frame painted, in ms,"
echo " over 60 drag, 20 half-run, 24 zoom, 40 pan and 12 grouping steps, and Chromium's CPU time a step;"
echo " load: the 1-minute load average when the page was measured)"
