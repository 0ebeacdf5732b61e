#!/usr/bin/env bash
# events.sh - what record --events costs: a program that sends 20,000 UDP
# datagrams over lo as fast as it can (one net_dev_xmit each; the CPUs'
# cpu_idle events as they come), alone, under `record -t -a --no-events`
# and under `record -t -a --events all`: its wall time (median of 3) and
# the events logged per second.  Needs root and tracefs (it says so and
# stops otherwise); prints figures, never fails on time.
set -eu
: "${EQPROF:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ]; then
	echo "record --events: skipped: no tracefs here (as root: mount -t tracefs nodev /sys/kernel/tracing)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/devload" "$SRC/test/linux/devload.c"
python3 - "$EQPROF" "$tmp" <<'PY'
import re, statistics, subprocess, sys, time
eqprof, tmp = sys.argv[1], sys.argv[2]
load = [tmp + "/devload", "/dev/null", "0", "4096", "0", "20000", "256"]
def run(pre):
    walls, logs = [], []
    for _ in range(3):
        t = time.monotonic()
        p = subprocess.run(pre + load, capture_output=True, text=True)
        walls.append(time.monotonic() - t)
        logs.append(p.stderr)
    return statistics.median(walls), logs
base, _ = run([])
print("record --events: 20,000 UDP datagrams over lo (median of 3 wall times)")
print(f"  alone                                   {base:7.3f} s")
for label, opt in (("record -t -a --no-events", ["--no-events"]), ("record -t -a --events all", ["--events", "all"])):
    w, logs = run([eqprof, "record", "-t", "-a", *opt, "-o", tmp + "/r.eqp", "--"])
    m = re.search(r"(\d+) power-state changes .* and (\d+) device requests .*; (\d+) events lost", logs[-1])
    ev = f"; {int(m.group(1)) + int(m.group(2))} events logged ({(int(m.group(1)) + int(m.group(2))) / w:.0f}/s), {m.group(3)} lost" if m else ""
    miss = re.search(r"not logging (.*)", logs[-1])
    print(f"  {label:38s}  {w:7.3f} s ({w / base:.2f}x){ev}" + (f" [not logging {miss.group(1)[:100]}]" if miss else ""))
PY
