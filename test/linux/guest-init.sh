#!/bin/sh
# /init of the QEMU test's initramfs (test/linux/qemu.sh builds it): loads
# configfs, gpio-sim and eqprof, runs every scenario, and sends /out as a tar
# stream through the second serial port.  Each scenario leaves its samples
# (raw 32-byte records), the module's statistics and what it needs for
# symbolization in /out; test/linux/check.py judges them on the host.
export PATH=/bin
CHIP=eqsim
LINE=3
CFS=/sys/kernel/config/gpio-sim/eq

# irq of eqprof's GPIO line, once eqprof has requested it
eq_irq() { awk '/ eqprof$/ { sub(":", "", $1); print $1 }' /proc/interrupts; }

# fire COUNT HZ CPU: COUNT interrupts from a hard hrtimer (test/linux/eqedge.c)
fire() {
	irq=$(eq_irq)
	[ -n "$irq" ] || { echo "fire: eqprof has no IRQ"; return 1; }
	insmod /ko/eqedge.ko irq="$irq" count="$1" hz="$2" cpu="$3" || return 1
	i=0
	while [ "$(cat /sys/module/eqedge/parameters/fired)" -lt "$1" ] && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "fired=$(cat /sys/module/eqedge/parameters/fired)"
	rmmod eqedge
}

# toggle N: N rising edges through gpio-sim's own path (sysfs pull, irq_work)
toggle() {
	pull=$(ls -d /sys/devices/platform/"$(cat $CFS/dev_name)"/"$(cat $CFS/bank0/chip_name)"/sim_gpio$LINE)/pull
	n=0
	while [ $n -lt "$1" ]; do
		echo pull-up >"$pull"
		echo pull-down >"$pull"
		n=$((n + 1))
	done
	echo "toggled=$n"
}

# espin COUNT: the spinner on CPU 0 while COUNT edges arrive there
espin() {
	taskset -c 0 /bin/spinner 600 >/dev/null &
	spin=$!
	sleep 0.5
	fire "$1" 1000 0
	kill $spin
	wait $spin
	return 0
}

# evload: edges at 1 kHz on CPU 0 while devload (test/linux/devload.c)
# shares CPU 0 with the spinner
evload() {
	irq=$(eq_irq)
	[ -n "$irq" ] || { echo "evload: eqprof has no IRQ"; return 1; }
	insmod /ko/eqedge.ko irq="$irq" count=1000000 hz=1000 cpu=0 || return 1
	sleep 0.3
	taskset -c 0 /bin/devload /dev/nullb0 200 4096 2 100 512
	rc=$?
	sleep 0.3
	rmmod eqedge
	return $rc
}

# sim_setup: configfs, a gpio-sim chip labelled $CHIP, and eqprof.ko
sim_setup() {
	insmod /lib/modules/configfs.ko
	mount -t configfs none /sys/kernel/config
	insmod /ko/gpio-sim.ko
	mkdir $CFS $CFS/bank0
	echo 8 >$CFS/bank0/num_lines
	echo $CHIP >$CFS/bank0/label
	echo 1 >$CFS/live
	insmod /ko/eqprof.ko
}

# The scenarios (and bench/isr/guest-bench.sh) run these as commands:
# /init fire ..., /init toggle ..., /init sim_setup
case ${1:-} in
fire | toggle | espin | evload | sim_setup)
	cmd=$1
	shift
	$cmd "$@"
	exit $?
	;;
esac

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs none /sys/kernel/debug
mkdir -p /out /tmp
case " $(cat /proc/cmdline) " in
*" eqbench "*) exec /bench ;; # make bench (bench/isr)
esac
exec >/out/guest.log 2>&1
set -x

sim_setup && echo "MODULE-LOADED"
cat /sys/kernel/debug/gpio
ls -l /dev/eqprof

# 1. energy-driven, edges in hard-irq context while the spinner runs on CPU 0
taskset -c 0 /bin/spinner 600 /out/espin.maps >/out/espin.pid &
spin=$!
sleep 1
eqctl run gpio $CHIP $LINE /out/energy.bin -- /init fire 2000 1000 0 >/out/energy.stats
kill $spin

# 2. energy-driven, edges through gpio-sim's pull (irq_work: no irq registers)
eqctl run gpio $CHIP $LINE /out/pull.bin -- /init toggle 200 >/out/pull.stats

# 3. a reader that dies: the module stays usable
eqctl hold 1000 >/out/hold.txt &
hold=$!
sleep 1
eqctl stats >/out/busy.txt 2>&1
kill -9 $hold
wait $hold
eqctl stats >/out/afterkill.stats

# poll(2) with no timeout wakes wake_ms after the last read, long before
# wake_samples (256) samples at 20 Hz
timeout 60 eqctl pollwait 20 >/out/pollwait.txt

# 4. time-driven on an idle guest, then on the spinner
eqctl run time 300 5 /out/idle.bin -- sleep 4 >/out/idle.stats
eqctl run time 1000 5 /out/tspin.bin -- /bin/spinner 3 /out/tspin.maps >/out/tspin.stats

# 5. overflow: a 32-sample ring with no reader
rmmod eqprof
insmod /ko/eqprof.ko start=energy gpio_chip=$CHIP gpio_line=$LINE ring_bytes=1024
/init fire 500 2000 0 >/out/ovf1.fire
eqctl stats >/out/ovf1.stats
eqctl drain /out/ovf1.bin >/out/ovf1.drain
/init fire 10 1000 0 >/out/ovf2.fire
eqctl stats >/out/ovf2.stats
eqctl drain /out/ovf2.bin >/out/ovf2.drain

# 6. unload while samples arrive: energy (edges still firing), then time
irq=$(eq_irq)
insmod /ko/eqedge.ko irq="$irq" count=1000000 hz=5000 cpu=1
sleep 1
rmmod eqprof && echo "UNLOADED-ENERGY"
sleep 0.5
rmmod eqedge
insmod /ko/eqprof.ko start=time hz=5000
sleep 1
rmmod eqprof && echo "UNLOADED-TIME"
insmod /ko/eqprof.ko && echo "RELOADED"

# An edge that arrived while no session held the line (step 6) is replayed
# by the kernel when the line's IRQ is next requested: take it here.
eqctl run gpio $CHIP $LINE /out/replay.bin -- true >/out/replay.stats

# 7. eqprof record on the target: -e (the board's line given with --gpio),
# -e -a into 32-sample rings at 20 kHz (losses), -t -a for a fixed duration,
# and -t with the module unloaded (perf)
eqprof record -e --gpio $CHIP:$LINE -o /out/rec-e.eqp -- /init espin 1500 >/out/rec-e.out 2>/out/rec-e.log
echo "rec-e=$?"
rmmod eqprof
insmod /ko/eqprof.ko ring_bytes=1024
eqprof record -e -a --gpio $CHIP:$LINE -o /out/rec-lossy.eqp -- /init fire 3000 20000 0 >/out/rec-lossy.out 2>/out/rec-lossy.log
echo "rec-lossy=$?"
rmmod eqprof
insmod /ko/eqprof.ko
eqprof record -t 500 -a --duration 3 -o /out/rec-ta.eqp -- /bin/spinner 2 >/out/rec-ta.out 2>/out/rec-ta.log
echo "rec-ta=$?"
rmmod eqprof
eqprof record -t 1000 -o /out/rec-perf.eqp -- /bin/spinner 1 >/out/rec-perf.out 2>/out/rec-perf.log
echo "rec-perf=$?"

# 8. power states and device requests from the tracepoints (record
# --events, on by default with -a): a null_blk disk (blk-mq, completions
# from a 250 us timer) and UDP over lo.  The events' format files go to
# /out/tracefmt (test/host/fixtures/tracefmt keeps a copy for the unit test).
mount -t tracefs nodev /sys/kernel/tracing
insmod /lib/modules/null_blk.ko nr_devices=1 queue_mode=2 irqmode=2 completion_nsec=250000 gb=1
ip link set lo up
mkdir -p /out/tracefmt
for e in power/cpu_frequency power/cpu_idle block/block_rq_issue block/block_rq_complete block/block_rq_insert net/net_dev_xmit; do
	cp /sys/kernel/tracing/events/$e/format /out/tracefmt/"${e#*/}".format
done
insmod /ko/eqprof.ko
taskset -c 0 /bin/spinner 600 >/dev/null &
spin=$!
echo "spinner-pid=$spin"
sleep 0.5
# (a) time-driven on both CPUs: the spinner on CPU 0, devload on CPU 1
# (idle between its requests)
eqprof record -t 500 -a -o /out/rec-ev.eqp -- taskset -c 1 /bin/devload /dev/nullb0 200 4096 2 100 512 >/out/rec-ev.out 2>/out/rec-ev.log
echo "rec-ev=$?"
# (b) energy-driven, edges on CPU 0 where devload and the spinner share the CPU
eqprof record -e -a --gpio $CHIP:$LINE --quantum 1mJ -o /out/rec-eva.eqp -- /init evload >/out/rec-eva.out 2>/out/rec-eva.log
echo "rec-eva=$?"
kill $spin
wait $spin

gzip -c /proc/kallsyms >/out/kallsyms.gz
set +x
dmesg >/out/dmesg.txt
echo "GUEST-DONE"
exec >/dev/console 2>&1
stty -F /dev/ttyS1 raw -echo
tar -czf - -C /out . >/dev/ttyS1
sleep 1
echo "EQPROF-GUEST-DONE"
poweroff -f
