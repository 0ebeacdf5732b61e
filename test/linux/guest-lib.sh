# guest-lib.sh - what the QEMU guests' /init scripts share, sourced as
# `. /lib/guest-lib.sh` (test/linux/build-guest.sh, the one guest image
# builder, copies it there): test/firmware/guest-board.sh,
# bench/board/guest-usb-bench.sh, test/hil/guest-hil.sh.
#
#   guest_start        PATH, busybox's links on a foreign guest (test/arm),
#                      /proc, /sys and /dev mounted, /out and /tmp made; the
#                      rest of /init's output goes to /out/guest.log, traced
#   guest_arg NAME     NAME=VALUE of the kernel's command line: VALUE
#   guest_modules      the kernel modules of /lib/modules/extra, in order
#   guest_done         the trace ends, dmesg into /out, GUEST-DONE; output
#                      back to the console
#   guest_send_out WORD  /out as a tar stream to the host on the second
#                      serial port (eqout= on the command line, else
#                      /dev/ttyS1), WORD on the console, power off

guest_start()
{
	export PATH=/bin
	[ -e /bin/mount ] || /bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	mkdir -p /out /tmp
	exec >/out/guest.log 2>&1
	set -x
}

guest_arg()
{
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" /proc/cmdline
}

guest_modules()
{
	for m in $(cat /lib/modules/extra/order); do insmod /lib/modules/extra/$m.ko; done
}

guest_done()
{
	set +x
	dmesg >/out/dmesg.txt
	echo GUEST-DONE
	exec >/dev/console 2>&1
}

guest_send_out()
{
	eqout=$(guest_arg eqout)
	stty -F "${eqout:-/dev/ttyS1}" raw -echo
	tar -czf - -C /out . >"${eqout:-/dev/ttyS1}"
	sleep 1
	echo "$1"
	poweroff -f
}
