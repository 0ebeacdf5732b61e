#!/usr/bin/env bash
# One run of the example application (test/cortexm/demo.c) in QEMU, recorded
# by eqprof record --target cortexm:
#
#   run-demo.sh OUTDIR NAME MACHINE ELF [DEMO ARGS...]
#
# MACHINE is mps2-an385 (Cortex-M3), mps2-an386 (Cortex-M4) or microbit
# (Cortex-M0, with DEMO args semihost=FILE: its build drains no UART).  The
# application's UART0 is read live by eqprof record (QEMU waits
# for it)... no: QEMU's socket chardev writes the UART's bytes one by one,
# and a UNIX socket holds only a few hundred of those, so the guest's UART
# would stay full whenever this loaded machine is slow to read: UART0 goes
# to a file that eqprof record follows as it grows, while QEMU runs.  With a
# semihost=FILE argument the samples go to that file through semihosting.
# QEMU's virtual clock counts instructions (-icount shift=5: 32 ns each), so
# the target's time is its instruction count.  Leaves OUTDIR/NAME.eqp,
# NAME.out (the application's own counts), NAME.rec (eqprof record's line),
# NAME.ppb (QEMU's log of accesses to system registers it does not model:
# how the library chose its time base).
set -u
out=$(realpath "$1") name=$2 machine=$3 elf=$(realpath "$4")
shift 4
args=arg=demo
semi=
for a in "$@"; do
	args="$args,arg=$a"
	case $a in semihost=*) semi=${a#semihost=} ;; esac
done
rm -f "$out/$name.eqp" "$out/$name.out" "$semi"
if [ -n "$semi" ]; then
	serial=(-serial null)
	file=$out/$semi
else
	serial=(-serial "file:$out/$name.uart")
	file=$out/$name.uart
fi
rm -f "$file"
: >"$file"
(cd "$out" && timeout 300 qemu-system-arm -M "$machine" -display none -monitor none \
	-kernel "$elf" -icount shift=5,sleep=off -d unimp,guest_errors -D "$out/$name.ppb" \
	-semihosting-config "enable=on,target=native,$args" "${serial[@]}" \
	>"$out/$name.out" 2>"$out/$name.qemu") &
qpid=$!
# until the application's final status; --idle only if it died first
"$EQPROF" record --target cortexm --port "file:$file" --elf "$elf" --idle 20 \
	-o "$out/$name.eqp" 2>"$out/$name.rec"
rrc=$?
wait $qpid
qrc=$?
[ $qrc -eq 0 ] && [ $rrc -eq 0 ]
