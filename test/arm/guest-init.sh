#!/bin/sh
# /init of the arm64 guest (test/arm/qemu-arm64.sh builds it with
# test/linux/build-guest.sh, GUEST_ARCH=arm64): Debian's arm64 kernel on
# QEMU's virt machine, eqprof.ko cross-built, the board's edges on the virt
# machine's real PL061 GPIO controller.  The host drives the PL061's input
# lines from outside (QEMU's qtest protocol, test/arm/edges.py):
#   line EDGE  the board's IRQ: one rising edge per quantum;
#   line DONE  the host raises it when it has sent every edge of a scenario.
# The guest says on the console "EQ-READY NAME" when a scenario listens,
# and "EQ-GOT NAME" once it saw DONE high; the host then lowers DONE.
# /out goes back to the host as a tar stream on a PCI serial port.
export PATH=/bin
CHIP=9030000.pl061
EDGE=1
DONE=2

# gpio number of line $1 of the PL061 (sysfs), exported as an input
line_gpio() {
	for c in /sys/class/gpio/gpiochip*; do
		[ "$(cat "$c/label")" = $CHIP ] && echo $(($(cat "$c/base") + $1)) && return 0
	done
	return 1
}

# await NAME: tell the host this scenario listens, wait for DONE high
await() {
	g=$(line_gpio $DONE) || return 1
	[ -d /sys/class/gpio/gpio$g ] || echo "$g" >/sys/class/gpio/export
	echo "EQ-READY $1" >/dev/console
	i=0
	while [ "$(cat /sys/class/gpio/gpio$g/value)" != 1 ] && [ $i -lt 6000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "EQ-GOT $1" >/dev/console
	while [ "$(cat /sys/class/gpio/gpio$g/value)" != 0 ] && [ $i -lt 6000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 6000 ]
}

# espin NAME: await NAME while the spinner runs on CPU 0, where the PL061's
# interrupt is taken
espin() {
	taskset -c 0 /bin/spinner 600 >/dev/null &
	spin=$!
	sleep 0.5
	await "$1"
	rc=$?
	kill $spin
	wait $spin
	return $rc
}

case ${1:-} in
await | espin)
	cmd=$1
	shift
	$cmd "$@"
	exit $?
	;;
esac

/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs none /sys/kernel/debug
mkdir -p /out /tmp
exec >/out/guest.log 2>&1
set -x
uname -a
insmod /ko/eqprof.ko && echo "MODULE-LOADED"
cat /sys/kernel/debug/gpio
cat /sys/module/eqprof/srcversion
grep -i pl061 /proc/interrupts

# 1. energy-driven: the PL061's edges in hard-irq context while the
# spinner runs on CPU 0
taskset -c 0 /bin/spinner 600 /out/espin.maps >/out/espin.pid &
spin=$!
sleep 1
eqctl run gpio $CHIP $EDGE /out/energy.bin -- /init await energy >/out/energy.stats
kill $spin
wait $spin
grep -i pl061 /proc/interrupts

# 2. time-driven at 1 kHz on the spinner, then on an idle guest
eqctl run time 1000 5 /out/tspin.bin -- /bin/spinner 3 /out/tspin.maps >/out/tspin.stats
eqctl run time 300 5 /out/idle.bin -- sleep 3 >/out/idle.stats

# 3. overflow: a 32-sample ring with no reader; every edge the host sends
# is a stored sample or a counted drop
rmmod eqprof
insmod /ko/eqprof.ko start=energy gpio_chip=$CHIP gpio_line=$EDGE ring_bytes=1024
/init await overflow
eqctl stats >/out/ovf.stats
eqctl drain /out/ovf.bin >/out/ovf.drain
rmmod eqprof && echo "UNLOADED"
insmod /ko/eqprof.ko && echo "RELOADED"

# 4. the static recorder (eqprof-record), when the image has it
if [ -x /bin/eqprof ]; then
	eqprof record -e --gpio $CHIP:$EDGE -o /out/rec-e.eqp -- /init espin rec-e >/out/rec-e.out 2>/out/rec-e.log
	echo "rec-e=$?"
	eqprof record -t 500 -a --duration 3 -o /out/rec-ta.eqp -- /bin/spinner 1 >/out/rec-ta.out 2>/out/rec-ta.log
	echo "rec-ta=$?"
	# --call-graph dwarf on the workloads of test/record/dwarf.py
	eqprof record --call-graph dwarf -t 4kHz -o /out/dwarf.eqp -- /bin/callers 1000000 60 >/out/dwarf.out 2>/out/dwarf.log
	echo "dwarf=$?"
	eqprof record --call-graph dwarf --all-user -t 4kHz -o /out/vdso.eqp -- /bin/clockloop 1000000 >/out/vdso.out 2>/out/vdso.log
	echo "vdso=$?"
fi

gzip -c /proc/kallsyms >/out/kallsyms.gz
set +x
dmesg >/out/dmesg.txt
echo "GUEST-DONE"
exec >/dev/console 2>&1
stty -F /dev/ttyS0 raw -echo
tar -czf - -C /out . >/dev/ttyS0
sleep 1
echo "EQPROF-GUEST-DONE"
poweroff -f
