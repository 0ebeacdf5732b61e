#!/usr/bin/env bash
# The whole chain in one test (docs/hil.md): the board firmware in simavr,
# its pulse input driven by the simulator's front end following the phases
# a Linux guest announces, every IRQ edge a real MSI-X interrupt in Debian's
# kernel under QEMU, eqprof record -e/-t in the guest, eqprof board log on
# the board's pty, eqprof merge on the host; check.py judges the result
# (energy shares, and power per procedure by regression) against the
# bridge's exact truth.  Skipped, and counted as skipped, only
# where QEMU cannot run this guest.
#
# HIL_ARCH=arm64 (test/arm/hil-arm64.sh) runs the same chain on Debian's
# arm64 kernel in qemu-system-aarch64 -M virt, with the static recorder
# for aarch64 ($B/record/aarch64/eqprof-record) in the guest.
set -u
. "$SRC/test/lib/tap.sh"
arch=${HIL_ARCH:-}
out=$B/hil${arch:+-$arch}/run
qemu=qemu-system-x86_64
[ -z "$arch" ] || qemu=qemu-system-aarch64
if [ "$(uname -m)" != x86_64 ] || ! command -v $qemu >/dev/null; then
	ok "# SKIP the hardware-in-the-loop test needs an x86-64 machine with $qemu (scripts/deps installs it on Debian)"
	tap_plan
	exit 0
fi
if [ -n "$arch" ]; then
	export HIL_ARCH RECORDER=$B/record/aarch64/eqprof-record
	if [ ! -x "$RECORDER" ]; then
		ok "# SKIP no static recorder for aarch64 at $RECORDER (make record-static)"
		tap_plan
		exit 0
	fi
fi
rm -rf "$out"
mkdir -p "$out"
SRC=$SRC B=$B EQPROF=$EQPROF "$SRC/test/hil/run-loop.sh" "$out" 4 >"$out/run.log" 2>&1
check_status $? "the bridge, eqprof board log and the QEMU guest ran the workload to the end"
if [ ! -s "$out/guest/energy.eqp" ] || [ ! -s "$out/board.eqp" ] || [ ! -s "$out/truth" ]; then
	sed 's/^/# /' "$out/run.log" | tail -n 20
	tail -n 20 "$out/console.log" 2>/dev/null | sed 's/^/# /'
	tail -n 20 "$out/guest/guest.log" 2>/dev/null | sed 's/^/# /'
	tap_plan
	exit 1
fi
"$EQPROF" merge "$out/guest/energy.eqp" "$out/board.eqp" -o "$out/merged.eqp" 2>"$out/merge.log"
check_status $? "eqprof merge wrote one recording of the target's samples and the board's stream"
# the time-driven run, tied to the board's clock by the edges the guest
# recorded meanwhile (docs/power.md): power per procedure by regression
"$EQPROF" merge "$out/guest/time.eqp" "$out/board.eqp" --edges "$out/guest/edges.eqp" \
	-o "$out/merged-time.eqp" 2>"$out/merge-t.log"
check_status $? "eqprof merge --edges joined the time-driven recording with the board's stream"
EQPROF=$EQPROF python3 "$SRC/test/hil/check.py" "$out" $((tap_n + 1)) --summary >"$out/check.tap"
cat "$out/check.tap"
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' "$out/check.tap")))
! grep -E "BUG:|Oops|WARNING:|cut here|Call Trace" "$out/console.log" "$out/guest/dmesg.txt" >"$out/splat" 2>/dev/null
check_status $? "the guest's console and kernel log show no BUG, Oops or WARNING"
sed 's/^/# /' "$out/splat" | head -n 10
tap_plan
