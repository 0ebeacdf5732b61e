#!/usr/bin/env bash
# run-tests: shares guest-x86 (build-guest.sh's image in $B/linux: each test rebuilds it and boots it)
# The whole chain in one test (docs/hil.md): the board firmware in simavr,
# its pulse input driven by the simulator's front end following the phases
# a Linux guest announces, every IRQ edge a real MSI-X interrupt in Debian's
# kernel under QEMU, eqprof record -e/-t in the guest, eqprof board log on
# the board's pty, eqprof merge on the host; check.py judges the result
# (energy shares, and power per procedure by regression) against the
# bridge's exact truth.  On x86-64 the run is `make hil-demo`, as the
# README's quick start writes it (test/hil/demo.sh), and check.py judges
# what it leaves in build/hil-demo.  Skipped, and counted as skipped, only
# where QEMU cannot run this guest.
#
# HIL_ARCH=arm64 (test/arm/hil-arm64.sh) runs the same chain on Debian's
# arm64 kernel in qemu-system-aarch64 -M virt, with the static recorder
# for aarch64 ($B/record/aarch64/eqprof-record) in the guest.  HIL_QUICK=1
# runs phases of 1.5 s instead of 4 and skips the statistics that need the
# long ones (check.py --quick).
set -u
. "$SRC/test/lib/tap.sh"
arch=${HIL_ARCH:-}
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
secs=4 quick=
[ -z "${HIL_QUICK:-}" ] || secs=1.5 quick=--quick
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ -z "$arch" ]; then
	out=$B/hil-demo
	# as the README writes it (B only when the test runs against another
	# build folder than the default build/)
	if [ "$(cd "$B" && pwd)" = "$(cd "$SRC" && pwd)/build" ]; then
		make -C "$SRC" --no-print-directory hil-demo >"$log" 2>&1
	else
		make -C "$SRC" --no-print-directory hil-demo B="$B" >"$log" 2>&1
	fi
	check_status $? "make hil-demo exits 0: the loop ran, both merges were made and the profiles printed"
	for s in "== the energy profile" "== the time profile" "== where they disagree" "== power (plots" \
		"== beside the truth" "checks against the truth hold" "hil-demo: everything is in $(cd "$B" && pwd)/hil-demo"; do
		check "make hil-demo prints '$s'" grep -qF -- "$s" "$log"
	done
	for p in trace.png hist.png; do
		check "make hil-demo drew $p" test -s "$out/$p"
	done
else
	out=$B/hil-$arch/run
	rm -rf "$out"
	mkdir -p "$out"
	SRC=$SRC B=$B EQPROF=$EQPROF "$SRC/test/hil/run-loop.sh" "$out" "$secs" >"$out/run.log" 2>&1
	check_status $? "the bridge, eqprof board log and the QEMU guest ran the workload to the end"
	EQPROF=$EQPROF "$SRC/test/hil/merge.sh" "$out" >"$log" 2>&1
	check_status $? "eqprof merge joined the guest's recordings with the board's stream (merge --edges for the time-driven one)"
fi
if [ ! -s "$out/guest/energy.eqp" ] || [ ! -s "$out/board.eqp" ] || [ ! -s "$out/truth" ] ||
	[ ! -s "$out/merged.eqp" ] || [ ! -s "$out/merged-time.eqp" ]; then
	sed 's/^/# /' "$log" | tail -n 30
	tail -n 20 "$out/run.log" 2>/dev/null | sed 's/^/# /'
	tail -n 20 "$out/console.log" 2>/dev/null | sed 's/^/# /'
	tail -n 20 "$out/guest/guest.log" 2>/dev/null | sed 's/^/# /'
	not_ok "the run left the guest's recordings, the board's stream, the truth and both merges"
	tap_plan
	exit 1
fi
EQPROF=$EQPROF python3 "$SRC/test/hil/check.py" "$out" $((tap_n + 1)) --summary $quick >"$out/check-test.tap"
cat "$out/check-test.tap"
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' "$out/check-test.tap")))
! grep -E "BUG:|Oops|WARNING:|cut here|Call Trace" "$out/console.log" "$out/guest/dmesg.txt" >"$out/splat" 2>/dev/null
check_status $? "the guest's console and kernel log show no BUG, Oops or WARNING"
sed 's/^/# /' "$out/splat" | head -n 10
tap_plan
