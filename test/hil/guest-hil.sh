#!/bin/sh
# /init of the hardware-in-the-loop guest (test/hil/hil.sh builds it from
# test/linux's initramfs): loads eqprof.ko and records the workload twice at
# once, energy-driven from the board's doorbell (record -e --ivshmem) and
# time-driven (record -t, perf's cpu-clock), both whole-system.  The
# workload (hilrun) announces its phases to the bridge, which gives each its
# power.  /out goes back to the host as a tar stream on the second serial port.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /out /tmp
exec >/out/guest.log 2>&1
set -x
secs=$(sed -n 's/.* hilsecs=\([0-9.]*\).*/\1/p' /proc/cmdline)
insmod /ko/eqprof.ko && echo MODULE-LOADED
lspci 2>/dev/null || grep -l 0x1110 /sys/bus/pci/devices/*/device
cat >/bin/hilrun <<RUN
#!/bin/sh
sleep 1
/bin/cpucached ${secs:-4} >>/out/work.txt
sleep 1
/bin/game ${secs:-4} >>/out/work.txt
sleep 1
RUN
chmod 755 /bin/hilrun
eqprof record -t 250 -g -a -o /out/time.eqp -- \
	eqprof record -e --ivshmem -a -o /out/energy.eqp -- /bin/hilrun >/out/record.out 2>/out/record.log
echo "record=$?"
grep eqprof /proc/interrupts
gzip -c /proc/kallsyms >/out/kallsyms.gz
set +x
dmesg >/out/dmesg.txt
echo GUEST-DONE
exec >/dev/console 2>&1
stty -F /dev/ttyS1 raw -echo
tar -czf - -C /out . >/dev/ttyS1
sleep 1
echo EQPROF-HIL-DONE
poweroff -f
