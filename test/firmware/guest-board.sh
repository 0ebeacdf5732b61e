#!/bin/sh
# /init of the board-over-USB guest (test/firmware/board-qemu.sh builds it
# from test/linux's initramfs).  The board firmware runs in simavr on the
# host (sim/hil/hilbridge), its UART is the chardev of QEMU's emulated FT232
# (-device usb-serial on a qemu-xhci controller): here it is a real USB
# device, bound by the kernel's ftdi_sio.  eqprof board runs over every
# transport; the cable is pulled and plugged back by asking the host
# (board_qemu.py) on /dev/ttyS2: "unplug", "plug" (QMP device_del and
# device_add), "power-off", "power-on" (the board's USB power, in the
# bridge), "freeze", "thaw" (the bridge stopped: a board that does not
# answer), "mark" (a numbered mark in the bridge's truth).  Everything
# goes to /out, back to the host as a tar stream on the second serial port.
. /lib/guest-lib.sh
guest_start
mkdir -p /run
chmod 1777 /tmp
SERIAL=$(guest_arg eqserial)
rate=$(guest_arg eqrate)
guest_modules
# TCG on a shared machine, the board in simavr beside it: replies may take
# longer than a board's 300 ms (docs/protocol.md)
export EQPROF_BOARD_REPLY_MS=3000

stty -F /dev/ttyS2 raw -echo
exec 3<>/dev/ttyS2
# ctl WHAT: the host does it and answers "ok WHAT"
ctl() {
	echo "$*" >&3
	read -r reply <&3
	echo "ctl $*: $reply"
}
# wait_tty: ftdi_sio has bound the board again (after a plug)
wait_tty() {
	i=0
	while [ ! -e /dev/ttyUSB0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	ls -l /dev/ttyUSB0
}
# usbdev: the board's sysfs name, its usbfs node, its interface's driver
usbdev() {
	for d in /sys/bus/usb/devices/*; do
		[ "$(cat "$d/idVendor" 2>/dev/null)" = 0403 ] || continue
		echo "sysfs=$(basename "$d") node=/dev/bus/usb/$(printf %03d "$(cat "$d/busnum")")/$(printf %03d "$(cat "$d/devnum")") driver=$(basename "$(readlink "$d/$(basename "$d"):1.0/driver")")"
	done
}
# started FILE: eqprof board log -o FILE has its recording going (the link
# open and the board set up; eqprof takes seconds to start under TCG)
started() {
	i=0
	while ! ls "$1".tmp.* >/dev/null 2>&1 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1.5
}
# holds PID NODE: process PID has NODE open (board info is waiting)
holds() {
	i=0
	while ! ls -l /proc/"$1"/fd 2>/dev/null | grep -q "$2" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1
}
# says FILE TEXT [N]: TEXT has appeared in FILE (on N lines)
says() {
	i=0
	while [ "$(grep -c "$2" "$1" 2>/dev/null)" -lt "${3:-1}" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
node() { usbdev | sed 's/.*node=\([^ ]*\).*/\1/'; }
wait_tty
usbdev >/out/usbdev.txt

# 1. the board on USB: libusb's view, and info over both transports
eqprof board list >/out/list.txt 2>&1
eqprof board info --port tty:/dev/ttyUSB0 >/out/info-tty.txt 2>&1
echo "rc=$?" >>/out/info-tty.txt
eqprof board info --port "ftdi:$SERIAL" >/out/info-ftdi.txt 2>&1
echo "rc=$?" >>/out/info-ftdi.txt
sleep 0.5
usbdev >/out/after-ftdi.txt

# 2. logs at a moderate rate over each transport; the ftdi one looks at
# ftdi_sio while libftdi1 holds the board
eqprof board config --port tty:/dev/ttyUSB0 --quantum 64 --jitter 5 >/dev/null
ctl mark
eqprof board log --port tty:/dev/ttyUSB0 -o /out/log-tty.eqp --duration 4s -q 2>/out/log-tty.err
echo "rc=$?" >>/out/log-tty.err
ctl mark
eqprof board log --port "ftdi:$SERIAL" -o /out/log-ftdi.eqp --duration 4s -q 2>/out/log-ftdi.err &
log=$!
while kill -0 $log 2>/dev/null; do
	echo "sample $(usbdev) tty=$(ls /dev/ttyUSB0 2>/dev/null)" >>/out/during-ftdi.txt
	sleep 0.3
done
wait $log
echo "rc=$?" >>/out/log-ftdi.err
wait_tty
usbdev >/out/after-ftdi-log.txt

# 3. the firmware's full record rate (a quantum so short that its UART is
# the limit: the board drops records, counted) over each transport
eqprof board config --port tty:/dev/ttyUSB0 --quantum "${rate:-4}" >/dev/null
ctl mark
eqprof board log --port tty:/dev/ttyUSB0 -o /out/fast-tty.eqp --duration 4s -q 2>/out/fast-tty.err
echo "rc=$?" >>/out/fast-tty.err
ctl mark
eqprof board log --port "ftdi:$SERIAL" -o /out/fast-ftdi.eqp --duration 4s -q 2>/out/fast-ftdi.err
echo "rc=$?" >>/out/fast-ftdi.err
wait_tty
eqprof board config --port tty:/dev/ttyUSB0 --quantum 64 >/dev/null

# 4. the cable pulled mid-log, over each transport: the log ends (status 3)
for t in tty ftdi; do
	[ $t = tty ] && port=tty:/dev/ttyUSB0 || port=ftdi:$SERIAL
	ctl mark
	eqprof board log --port "$port" -o /out/pull-$t.eqp 2>/out/pull-$t.err &
	log=$!
	started /out/pull-$t.eqp
	ctl unplug
	timeout 60 sh -c "while kill -0 $log 2>/dev/null; do sleep 0.1; done"
	wait $log
	echo "rc=$?" >>/out/pull-$t.err
	ctl plug
	wait_tty
	# the board's power stayed on: it counts on until a log stops it
	eqprof board log --port tty:/dev/ttyUSB0 -o /tmp/settle.eqp --count 1 -q
done

# 5. --wait: the link drops and comes back with the board's power on (tty),
# then the cable with the board's power (ftdi)
ctl mark
eqprof board log --port tty:/dev/ttyUSB0 --wait -o /out/wait-tty.eqp 2>/out/wait-tty.err &
log=$!
started /out/wait-tty.eqp
ctl unplug
sleep 2
ctl plug
says /out/wait-tty.err "is back"
sleep 2
kill -INT $log
wait $log
echo "rc=$?" >>/out/wait-tty.err
wait_tty
ctl mark
eqprof board log --port "ftdi:$SERIAL" --wait -o /out/wait-ftdi.eqp 2>/out/wait-ftdi.err &
log=$!
started /out/wait-ftdi.eqp
ctl power-off
ctl unplug
sleep 2
ctl power-on
ctl plug
says /out/wait-ftdi.err "is back"
sleep 3
kill -INT $log
wait $log
echo "rc=$?" >>/out/wait-ftdi.err
wait_tty

# 6. unplugged while board info waits for a board that does not answer
for t in tty ftdi; do
	[ $t = tty ] && port=tty:/dev/ttyUSB0 dev=/dev/ttyUSB0 || port=ftdi:$SERIAL dev=$(node)
	ctl freeze
	EQPROF_BOARD_REPLY_MS=30000 timeout 60 eqprof board info --port "$port" >/out/info-pull-$t.txt 2>&1 &
	info=$!
	holds $info "$dev"
	ctl unplug
	wait $info
	echo "rc=$?" >>/out/info-pull-$t.txt
	ctl thaw
	ctl plug
	wait_tty
done

# 7. board list --watch, without udev running (eqprof rescans), then with
# udevd (libusb hot-plug)
watch() {
	eqprof board list --watch >/out/watch-$1.txt 2>&1 &
	w=$!
	says /out/watch-$1.txt "watching for boards"
	sleep 1
	ctl unplug
	says /out/watch-$1.txt "^left"
	ctl plug
	wait_tty
	says /out/watch-$1.txt "^arrived.*ttyUSB0" 2
	sleep 1
	kill -TERM $w
	wait $w
	echo "rc=$?" >>/out/watch-$1.txt
}
watch noudev
/lib/systemd/systemd-udevd --daemon
udevadm trigger --action=add
udevadm settle -t 30
watch udev
udevadm settle -t 30

# 8. a user without the rights the rules give: Debian's default rules only
# (the USB node 0664 root, the tty root:dialout 0660); then the rule file
# installed with the command the message names, the board replugged
ls -l "$(node)" /dev/ttyUSB0 >/out/perm-nodes.txt
su eq -s /bin/sh -c "eqprof board list" >/out/perm-list.txt 2>&1
su eq -s /bin/sh -c "eqprof board info --port ftdi:$SERIAL" >/out/perm-ftdi.txt 2>&1
echo "rc=$?" >>/out/perm-ftdi.txt
su eq -s /bin/sh -c "eqprof board info --port tty:/dev/ttyUSB0" >/out/perm-tty-dialout.txt 2>&1
echo "rc=$?" >>/out/perm-tty-dialout.txt
su eqx -s /bin/sh -c "eqprof board info --port tty:/dev/ttyUSB0" >/out/perm-tty.txt 2>&1
echo "rc=$?" >>/out/perm-tty.txt
cmd=$(sed -n 's/.*(\(sudo cp .* trigger\)).*/\1/p' /out/perm-ftdi.txt | head -n 1)
echo "$cmd" >/out/perm-cmd.txt
sh -c "$cmd"
echo "rc=$?" >>/out/perm-cmd.txt
ctl unplug
ctl plug
wait_tty
udevadm settle -t 30
ls -l "$(node)" /dev/ttyUSB0 /dev/eqprof-board-* >/out/perm-nodes-rules.txt 2>&1
su eq -s /bin/sh -c "eqprof board info --port ftdi:$SERIAL" >/out/perm-ftdi-rules.txt 2>&1
echo "rc=$?" >>/out/perm-ftdi-rules.txt
su eq -s /bin/sh -c "eqprof board info --port /dev/eqprof-board-$SERIAL" >/out/perm-tty-rules.txt 2>&1
echo "rc=$?" >>/out/perm-tty-rules.txt

guest_done
ctl done
guest_send_out EQPROF-BOARD-DONE
