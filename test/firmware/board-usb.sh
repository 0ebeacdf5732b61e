#!/bin/bash
# `eqprof board` finding boards with libusb-1.0 on this machine, where no
# board is plugged in: every path where none is found (or no USB is visible
# at all) and the messages.  Enumerating a board, permission denied and
# hot-plug (docs/firmware.md, "Finding the board") are tested by
# board-qemu.sh: the firmware in simavr behind QEMU's emulated FT232, in a
# guest with ftdi_sio, libusb, libftdi1 and udev.  TAP output.
set -u
. "$SRC/test/lib/tap.sh"
work=$(mktemp -d /tmp/board-usb.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$EQPROF" board list >"$work/list" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "no board found (FT232R 0403:6001 on USB" "$work/list"
check_status $? "board list with no board: exit 0, says what it looked for"
if [ ! -e /dev/bus/usb ]; then
	grep -q "note: USB (libusb): no USB device visible at all" "$work/list"
	check_status $? "no USB bus here: board list says so instead of only 'no board found'"
fi

# --watch: the list, then hot-plug (or a rescan) until SIGTERM.
"$EQPROF" board list --watch >"$work/watch" 2>&1 &
pid=$!
for i in $(seq 100); do grep -q "watching for boards" "$work/watch" && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
rc=$?
[ $rc -eq 0 ] && grep -q "watching for boards" "$work/watch"
check_status $? "board list --watch: watches for boards (libusb hot-plug) and stops cleanly on SIGTERM"

EQPROF_BOARD= "$EQPROF" board info >"$work/info" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "no board found (FT232R 0403:6001 on USB, /dev/ttyUSB\*)" "$work/info" &&
	grep -q "give --port SPEC" "$work/info"
check_status $? "board info with no board and no --port: exit 1, what was looked for and what to do"

"$EQPROF" board info --port ftdi:NOSUCHSERIAL >"$work/ftdi" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "ftdi:NOSUCHSERIAL: device not found" "$work/ftdi" &&
	grep -q "eqprof board list" "$work/ftdi"
check_status $? "--port ftdi:SERIAL with no such board (libftdi1): exit 1, names it, points at board list"

"$EQPROF" board info --port /dev/ttyUSB-none >"$work/tty" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "/dev/ttyUSB-none: No such file or directory" "$work/tty"
check_status $? "--port with a missing tty: exit 1, names the path"

rules="$SRC/firmware/60-eqprof-board.rules"
grep -q 'ATTR{idVendor}=="0403", ATTR{idProduct}=="6001"' "$rules" &&
	grep -q 'SUBSYSTEM=="tty", ATTRS{idVendor}=="0403"' "$rules"
check_status $? "the udev rules ship with the firmware and cover the USB device and its tty"
tap_plan
