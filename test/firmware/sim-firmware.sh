#!/bin/sh
# `eqprof sim --firmware ELF`: the simulator's counter stage on the board
# firmware in simavr must raise the same interrupts as the built-in model
# (the firmware's portable logic) for the same pulse train.  TAP output.
set -u
# The sanitizer run (B=build/san) uses the ELF of the plain build.
elf="$B/firmware/eqfw-simavr.elf"
[ -f "$elf" ] || elf="$B/../firmware/eqfw-simavr.elf"
export LSAN_OPTIONS="suppressions=$SRC/test/firmware/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$SRC/test/lib/tap.sh"
# The Idle scenario cut to 2 s: ~180 quanta of 64 pulses, jitter 5 %.
"$EQPROF" sim --print Idle | sed 's/^phase Idle 20s/phase Idle 2s/' >"$work/idle2.scn"
for cfg in "seed=7" "seed=8 quantum_pulses=16 jitter_pct=20"; do
	set -- $cfg
	seed=${1#seed=}; shift
	sets=""
	for s in "$@"; do sets="$sets --set $s"; done
	"$EQPROF" sim "$work/idle2.scn" -o "$work/builtin" --seed "$seed" $sets -q 2>"$work/err1"
	rc1=$?
	"$EQPROF" sim "$work/idle2.scn" -o "$work/simavr" --seed "$seed" $sets -q --firmware "$elf" 2>"$work/err2"
	rc2=$?
	check_status $((rc1 + rc2)) "eqprof sim --firmware runs ($cfg)"
	[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || { cat "$work/err1" "$work/err2" | sed 's/^/# /'; continue; }
	set -- $("$B/test/firmware/boardcmp" "$work/builtin/energy.eqp" "$work/simavr/energy.eqp")
	echo "# $cfg: built-in model $1 quanta, firmware in simavr $2 quanta, first $3 identical"
	[ "$1" -gt 50 ] && [ "$1" -eq "$2" ] && [ "$3" -eq "$1" ]
	check_status $? "same interrupt count and the same preload for every quantum ($1 quanta, $cfg)"
	# The model puts an edge 2 MCU cycles after its pulse; simavr in the pulse's own cycle.
	[ "$4" -le 8 ]
	check_status $? "IRQ edges at the same times within 8 MCU cycles (largest difference $4)"
done
tap_plan
