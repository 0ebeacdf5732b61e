#!/usr/bin/env bash
# run-tests: long (QEMU's Cortex-M machines beside the board in simavr: a minute of a CPU)
# isr/cortexm in QEMU (docs/target-cortexm.md): the example application
# (test/cortexm/demo.c, built by `make cortexm-demo`) on mps2-an385
# (Cortex-M3) and mps2-an386 (Cortex-M4), recorded by eqprof record
# --target cortexm and judged by check.py:
#   time       time-driven, UART drain: work()'s samples split by caller as
#              the application's own call counts; handler samples marked
#   semihost   the same through the semihosting drain
#   stall      the drain stops for 100 ms: the ring overflows, counted exactly
#   prio-low   the sampler below the application's handler: never inside it
#   m4         the Cortex-M4 build (FPU, hard-float ABI) on mps2-an386
#   m0         the ARMv6-M build (Cortex-M0) on microbit (nRF51822): its
#              timers, the semihosting drain, SysTick as the time base (no
#              DWT on ARMv6-M), and time's checks (shares split by caller)
# then report, annotate (Thumb) and the exports on the time run; then
# energy-driven from the board firmware (run-hil.sh): every edge a sample
# or a counted loss, each pc in the code of the phase running at its edge,
# energy shares against the bridge's truth; and once without lockstep,
# where edges merge and are counted.
set -u
. "$SRC/test/lib/tap.sh"
out=$B/cortexm/run
elf3=$B/cortexm/demo-m3.elf
elf4=$B/cortexm/demo-m4.elf
elf0=$B/cortexm/demo-m0.elf
if ! command -v qemu-system-arm >/dev/null || [ ! -f "$elf3" ]; then
	ok "# SKIP needs qemu-system-arm and the example built by make cortexm-demo (scripts/deps installs gcc-arm-none-eabi and qemu-system-arm)"
	tap_plan
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"
export EQPROF B

judge() { # KIND NAME [DIR]: check.py's PASS/FAIL lines as TAP
	local line
	while IFS= read -r line; do
		case $line in
		PASS\ *) ok "$2: ${line#PASS }" ;;
		FAIL\ *) not_ok "$2: ${line#FAIL }" ;;
		*) echo "$line" ;;
		esac
	done < <(python3 "$SRC/test/cortexm/check.py" "$1" "${3:-$out}" "$([ -n "${3:-}" ] && echo energy || echo "$2")" 2>&1)
}

run() { # NAME MACHINE ELF ARGS...
	local name=$1
	"$SRC/test/cortexm/run-demo.sh" "$out" "$@"
	check_status $? "$name: the application ran in QEMU and eqprof record --target cortexm recorded it"
}

run time mps2-an385 "$elf3" time secs=2 && judge time time
# The time base's choice, from QEMU's own log of the system registers it
# does not model (run-demo.sh: -d unimp,guest_errors).  QEMU 7.2 models no
# DWT (its PPB default region reads as zero, ignores writes) and no DEMCR
# (the NVIC's "bad offset"): TRCENA does not stick, and the Cortex-M3
# build takes SysTick there without touching the DWT.  The DWT branch
# itself (NOCYCCNT, the counter moving, its 64-bit extension) runs on
# silicon only.
ppb=$out/time.ppb
check "time: TRCENA written into DEMCR and read back as clear (QEMU has no DEMCR), so SysTick is the time base and the DWT is never touched" \
	sh -c "grep -q 'Bad write offset 0xdfc' '$ppb' && grep -q 'Bad read offset 0xdfc' '$ppb' && ! grep -qE 'unassigned area of PPB: offset 0x1[0-9a-f]{3}\$' '$ppb' && grep -aqx 'clock=SysTick' '$out/time.eqp'"
run semihost mps2-an385 "$elf3" time secs=1 semihost=semihost.bin && judge smoke semihost
run stall mps2-an385 "$elf3" time secs=1 stall && judge stall stall
run prio-low mps2-an385 "$elf3" time secs=1 prio-low && judge prio-low prio-low
run m4 mps2-an386 "$elf4" time secs=1 && judge smoke m4
run m0 microbit "$elf0" time secs=2 semihost=m0.bin && judge time m0
check "m0: the Cortex-M0 build took SysTick as its time base without touching DEMCR or the DWT (ARMv6-M has no cycle counter)" \
	sh -c "! grep -qE 'offset 0xdfc|unassigned area of PPB: offset 0x1[0-9a-f]{3}\$' '$out/m0.ppb' && grep -aqx 'clock=SysTick' '$out/m0.eqp'"
check "m0: annotate disassembles work() in ARMv6-M's Thumb (muls, no mla) with its samples" \
	sh -c "'$EQPROF' annotate '$out/m0.eqp' work > '$out/annotate-m0.txt' && grep -qE '%.* muls r[0-9]' '$out/annotate-m0.txt'"

# The tools on the result.
t=$out/time.eqp
check "report names the handler's exception (report --by thread)" \
	sh -c "'$EQPROF' report '$t' --by thread | grep -q 'IRQ 9 app_timer_handler'"
check "report --by proc lists work, path_a, path_b (call chains from the stacked LR)" \
	sh -c "'$EQPROF' report '$t' --by proc > '$out/report.txt' && grep -q ' work\$' '$out/report.txt' && grep -q ' path_a\$' '$out/report.txt' && grep -q ' path_b\$' '$out/report.txt'"
check "annotate disassembles work() in Thumb mode (capstone) with its samples" \
	sh -c "'$EQPROF' annotate '$t' work > '$out/annotate.txt' && grep -qE '%.* mla r[0-9]' '$out/annotate.txt'"
for f in pprof folded callgrind chrome csv; do
	check "export --format $f" "$EQPROF" export "$t" --format $f -o "$out/time.$f"
done

# Kernel coding style, as isr/linux: checkpatch.pl from Debian's
# linux-source, as test/linux extracts it, else extracted here once per
# build tree (a minute of xz).
cpl=$B/linux/checkpatch/checkpatch.pl
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)
if [ ! -f "$cpl" ] && [ -n "$tarball" ]; then
	cpl=$B/cortexm/checkpatch/checkpatch.pl
	if [ ! -f "$cpl" ]; then
		v=$(basename "$tarball" .tar.xz)
		mkdir -p "$B/cortexm/checkpatch"
		tar -xJf "$tarball" -C "$B/cortexm/checkpatch" --strip-components=2 \
			"$v/scripts/checkpatch.pl" "$v/scripts/spelling.txt" "$v/scripts/const_structs.checkpatch"
	fi
fi
if [ -f "$cpl" ]; then
	check "isr/cortexm is clean under checkpatch.pl --strict (C99 types and volatile registers allowed)" \
		make -s -C "$SRC/isr/cortexm" checkpatch CHECKPATCH="perl $cpl --quiet"
else
	ok "# SKIP checkpatch: no linux-source tarball in /usr/src (scripts/deps installs linux-source)"
fi

# Energy-driven: the board firmware in simavr through sim/hil's bridge,
# every edge pended in the guest's NVIC through QEMU's qtest socket.
hil() { # NAME LOCKSTEP SECONDS KIND
	local d=$out/$1
	SRC=$SRC B=$B EQPROF=$EQPROF HIL_QUANTUM=16 HIL_LOCKSTEP=$2 \
		"$SRC/test/cortexm/run-hil.sh" "$d" "$3" >"$out/$1.log" 2>&1
	check_status $? "$1: the board firmware in simavr interrupted the application in QEMU, recorded by eqprof record --target cortexm"
	[ -s "$d/energy.eqp" ] && judge "$4" "$1" "$d"
}
if [ -x "$B/sim/hil/hilbridge" ] && [ -f "$B/firmware/eqfw-simavr.elf" ] && [ -f "$B/cortexm/demo-m3-energy.elf" ]; then
	hil energy 1 8 energy
	# without lockstep, at the board's pace: edges merge while the guest is
	# slow to take them, and each merge is counted
	hil energy-merge 0 2 energy-acct
else
	ok "# SKIP energy-driven: needs the bridge (make $B/sim/hil/hilbridge) and the board firmware (make firmware-elf)"
fi
tap_plan
