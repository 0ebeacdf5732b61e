#!/usr/bin/env bash
# The example application energy-driven by the real board firmware
# (docs/target-cortexm.md): sim/hil/hilbridge runs eqfw-simavr.elf in simavr,
# its front end drawing the power of the phase the guest announces on its
# UART1, and pends every IRQ edge in the guest's NVIC through QEMU's qtest
# socket (the guest's edge counter first); eqprof board log records the
# board's stream, eqprof record --target cortexm the guest's samples.
#
#   run-hil.sh OUTDIR [SECONDS] [NAME]
#
# Leaves in OUTDIR: energy.eqp, board.eqp, truth (the bridge's exact
# energies per edge), energy.out (the application's counters), logs.
# Environment: SRC, B, EQPROF; HIL_QUANTUM (board pulses per edge, 16).
set -euo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-$SRC/build}
EQPROF=${EQPROF:-$B/eqprof}
out=$(mkdir -p "$1" && cd "$1" && pwd)
secs=${2:-3}
fw=$B/firmware/eqfw-simavr.elf
elf=$B/cortexm/demo-m3-energy.elf
bridge=$B/sim/hil/hilbridge
counter=0x$(arm-none-eabi-nm "$elf" | awk '$3 == "demo_edges" { print $1 }')
taken=0x$(arm-none-eabi-nm "$elf" | awk '$3 == "eqcm_edges_taken" { print $1 }')
# HIL_LOCKSTEP=0: edges at the board's pace, merging when the guest is late
qtest=16:$counter
[ "${HIL_LOCKSTEP:-1}" = 0 ] || qtest=$qtest:$taken
# the sockets' paths must fit a sockaddr_un: a short directory of its own
work=$(mktemp -d /tmp/eqcmhil.XXXXXX)
bpid= lpid= qpid=
cleanup() {
	[ -n "$qpid" ] && kill -TERM "$qpid" 2>/dev/null
	[ -n "$lpid" ] && kill -INT "$lpid" 2>/dev/null
	[ -n "$bpid" ] && kill -TERM "$bpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
rm -f "$out"/energy.* "$out/board.eqp" "$out/truth"
"$bridge" "$fw" "$work" --qtest "$qtest" --powers 0.27,1.2,0.5 --life 600 2>"$out/bridge.log" &
bpid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
"$EQPROF" board config --port "$port" --quantum "${HIL_QUANTUM:-16}" --jitter 5 --vcomp off >"$out/board-config.txt"
"$EQPROF" board log --port "$port" -o "$out/board.eqp" -q 2>"$out/board-log.txt" &
lpid=$!
sleep 0.3
: >"$out/energy.uart"
(cd "$out" && exec timeout 300 qemu-system-arm -M mps2-an385 -accel tcg -display none -monitor none \
	-kernel "$elf" -semihosting-config "enable=on,target=native,arg=demo,arg=energy,arg=secs=$secs" \
	-serial "file:$out/energy.uart" -chardev "socket,id=ph,path=$work/phase.sock" -serial chardev:ph \
	-qtest "unix:$work/qtest.sock" >"$out/energy.out" 2>"$out/energy.qemu") &
qpid=$!
rc=0
"$EQPROF" record --target cortexm --port "file:$out/energy.uart" --elf "$elf" --idle 20 \
	--quantum "$(sed -n "s/^quantum .* = \([0-9.]*\) \([munk]*J\).*/\1\2/p" "$out/board-config.txt")" \
	-o "$out/energy.eqp" 2>"$out/energy.rec" || rc=1
wait "$qpid" || rc=1
qpid=
kill -INT "$lpid"
wait "$lpid" || rc=1
lpid=
kill -TERM "$bpid"
wait "$bpid" || true
bpid=
cp "$work/truth" "$out/truth"
exit $rc
