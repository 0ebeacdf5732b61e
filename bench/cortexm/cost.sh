#!/usr/bin/env bash
# bench/cortexm: what a sample costs isr/cortexm's handlers on the Cortex-M3
# (QEMU mps2-an385, the example application): instructions per sample,
# counted by single-stepping the handler in QEMU's gdb stub (cost.py), and
# cycles estimated from them with the Cortex-M3 Technical Reference Manual's
# instruction timings (ARM DDI 0337, "Processor instruction timings": zero
# wait states, a taken branch's pipeline refill P = 2, exception entry 12
# cycles and return 10); the library's code and RAM sizes.  Prints figures;
# never fails on them.
set -u
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-$SRC/build}
elf=$B/cortexm/demo-m3.elf
elfe=$B/cortexm/demo-m3-energy.elf
if ! command -v qemu-system-arm >/dev/null || ! command -v gdb-multiarch >/dev/null || [ ! -f "$elf" ]; then
	echo "bench/cortexm: needs qemu-system-arm, gdb-multiarch and make cortexm-demo"
	exit 0
fi
work=$(mktemp -d /tmp/eqcmb.XXXXXX)
trap 'rm -rf "$work"' EXIT
measure() { # NAME ELF HANDLER DEMO-ARGS [qtest]
	local name=$1 e=$2 h=$3 args=$4 port=$((20000 + RANDOM % 20000)) qt=()
	[ "${5:-}" = qtest ] && qt=(-accel tcg -qtest "unix:$work/qt.sock,server=on,wait=off")
	timeout 120 qemu-system-arm -M mps2-an385 "${qt[@]}" -icount shift=5 -display none -monitor none -kernel "$e" \
		-semihosting-config "enable=on,target=native,$args" -serial null -serial null \
		-gdb "tcp:127.0.0.1:$port" -S >"$work/q.out" 2>&1 &
	sleep 0.5
	EQ_HANDLER=$h EQ_CALLS=20 EQ_QTEST=${5:+$work/qt.sock} EQ_START=${5:+run_energy} \
		EQ_COUNTER=0x$(arm-none-eabi-nm "$e" | awk '$3 == "demo_edges" { print $1 }') \
		timeout 120 gdb-multiarch -q -batch -ex "target remote 127.0.0.1:$port" \
		-x "$SRC/bench/cortexm/cost.py" "$e" >"$work/$name.txt" 2>&1
	wait
	python3 "$SRC/bench/cortexm/cycles.py" "$name" <"$work/$name.txt"
}
measure time "$elf" eqcm_timer_handler "arg=demo,arg=time,arg=secs=1"
measure energy "$elfe" eqcm_irq_handler "arg=demo,arg=energy,arg=secs=2" qtest
for d in m3 m3-r1024; do
	make --no-print-directory -s -C "$SRC/isr/cortexm" O="$B/cortexm/$d" \
		RING=$([ $d = m3 ] && echo 64 || echo 1024) size
done
