#!/bin/sh
# The guest side of bench/isr/isr-bench.sh, run by /init when the kernel
# command line says "eqbench".  Everything it reports goes to the console.
#   phase 1: hrtimer samples at 20 Hz until gdb (on the host) has counted the
#            handler's instructions and sets eqprof's wake_ms parameter to 101
#   phase 2: GPIO edges (hard IRQ, test/linux/eqedge.c) until wake_ms is 102
#   phase 3: eqprof record -t -a at 500 Hz and 10 kHz, and -e -a at 10 kHz
#            edges, with a spinner on the CPU: the recorder's own share
# One CPU: gdb stops every CPU but the one it steps, and a stopped CPU can
# hold a lock (the timekeeping seqcount) that the stepped handler then waits
# for forever.
wait_wake() { # VALUE: gdb sets it when it is done with a phase
	while [ "$(cat /sys/module/eqprof/parameters/wake_ms)" != "$1" ]; do sleep 0.2; done
}
if [ "${1:-}" = wait ]; then
	wait_wake "$2"
	exit 0
fi

CHIP=eqsim # as in test/linux/guest-init.sh
LINE=3
/init sim_setup
s=/sys/module/eqprof/sections
echo "EQBENCH-SECTIONS text=$(cat $s/.text) data=$(cat $s/.data) bss=$(cat $s/.bss)"

eqctl run time 20 0 /tmp/p1.bin -- /bench wait 101 >/dev/null
echo "EQBENCH-PHASE1-DONE"
eqctl run gpio $CHIP $LINE /tmp/p2.bin -- /init fire 100000 20 0 >/dev/null &
run=$!
wait_wake 102
rmmod eqedge 2>/dev/null
wait $run
echo "EQBENCH-PHASE2-DONE"
echo 100 >/sys/module/eqprof/parameters/wake_ms

/bin/spinner 600 >/dev/null &
s0=$!
for hz in 500 10000; do
	eqprof record -t $hz -a --duration 5 -o /tmp/r.eqp 2>/tmp/r.log
	sed "s/^/EQBENCH-T$hz /" /tmp/r.log
done
eqprof record -e -a --gpio $CHIP:$LINE -o /tmp/r.eqp -- /init fire 50000 10000 0 >/dev/null 2>/tmp/r.log
sed "s/^/EQBENCH-E10000 /" /tmp/r.log
kill $s0
echo "EQBENCH-DONE"
poweroff -f
