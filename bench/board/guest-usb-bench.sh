#!/bin/sh
# /init of the board-over-USB benchmark guest (bench/board/usb-qemu.sh):
# eqprof board log through QEMU's emulated FT232 over each transport, at a
# moderate rate and at the firmware's full record rate, with every record's
# arrival time traced (EQPROF_BOARD_TRACE to a file: buffered, cheap), and
# the host's clock read from the bridge's shared memory before and after
# (hilclock), so that the host can tell each record's latency from the
# moment the board made its quantum.
. /lib/guest-lib.sh
guest_start
SERIAL=$(guest_arg eqserial)
rate=$(guest_arg eqrate)
guest_modules
stty -F /dev/ttyS2 raw -echo
exec 3<>/dev/ttyS2
ctl() {
	echo "$*" >&3
	read -r reply <&3
	echo "ctl $*: $reply"
}
i=0
while [ ! -e /dev/ttyUSB0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
hilclock 300 >/out/sync0.txt
for n in 64 "${rate:-4}"; do
	eqprof board config --port tty:/dev/ttyUSB0 --quantum "$n" --jitter 5 >/dev/null
	for t in tty ftdi; do
		[ $t = tty ] && port=tty:/dev/ttyUSB0 || port=ftdi:$SERIAL
		ctl mark
		EQPROF_BOARD_TRACE=/out/b-$t-$n.trace eqprof board log --port "$port" -o /out/b-$t-$n.eqp \
			--duration 6s -q 2>/out/b-$t-$n.err
		echo "rc=$?"
		i=0
		while [ ! -e /dev/ttyUSB0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	done
done
hilclock 300 >/out/sync1.txt
guest_done
ctl done
guest_send_out EQPROF-BOARD-DONE
