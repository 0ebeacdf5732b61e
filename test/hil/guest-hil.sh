#!/bin/sh
# /init of the hardware-in-the-loop guest (test/hil/run-loop.sh builds it
# from test/linux's initramfs): loads eqprof.ko and runs the workload twice,
# energy-driven from the board's doorbell (record -e --ivshmem -a, alone:
# a second recorder beside it would be in the profile it measures), then
# time-driven (record -t -g -a: perf's cpu-clock, since the module serves
# one source at a time) while a second recorder takes the board's
# interrupts (record -e --ivshmem -a: edges.eqp).  Those edges are the only
# thing that ties the guest's clock to the board's: eqprof merge --edges
# joins time.eqp with board.eqp through them, for power --by proc
# (docs/power.md).  The workload (hilrun) announces its phases to the
# bridge (hilphase, around each program's whole run), which gives each its
# power.  /out goes back to the host as a tar
# stream on the second serial port.
. /lib/guest-lib.sh
guest_start
secs=$(guest_arg hilsecs)
handover=$(guest_arg hilhandover)
insmod /ko/eqprof.ko ${handover:+handover_ms=$handover} && echo MODULE-LOADED
lspci 2>/dev/null || grep -l 0x1110 /sys/bus/pci/devices/*/device
cat >/bin/hilrun <<RUN
#!/bin/sh
sleep 1
/bin/hilphase 1 /bin/cpucached ${secs:-4} >>/out/work-\$1.txt
sleep 1
/bin/hilphase 2 /bin/game ${secs:-4} >>/out/work-\$1.txt
sleep 1
RUN
chmod 755 /bin/hilrun
eqprof record -e --ivshmem -a -o /out/energy.eqp -- /bin/hilrun energy >/out/record.out 2>/out/record.log
echo "record=$?"
eqprof record -e --ivshmem -a -o /out/edges.eqp >/out/record-edges.out 2>/out/record-edges.log &
epid=$!
sleep 1
eqprof record -t 250 -g -a -o /out/time.eqp -- /bin/hilrun time >/out/record-t.out 2>/out/record-t.log
echo "record-t=$?"
kill -INT $epid
wait $epid
echo "record-edges=$?"
grep eqprof /proc/interrupts
gzip -c /proc/kallsyms >/out/kallsyms.gz
guest_done
guest_send_out EQPROF-HIL-DONE
