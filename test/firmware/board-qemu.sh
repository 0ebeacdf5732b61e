#!/usr/bin/env bash
# run-tests: shares guest-x86 (build-guest.sh's image in $B/linux: each test rebuilds it and boots it)
# run-tests: sanitizer build only (3-4 min a run: make check runs it once,
# its USB transports and the board client under ASan+UBSan in the guest;
# make check-plain runs it against the plain build)
# The board over a real USB stack (docs/firmware.md, "Finding the board",
# "When the cable is pulled"): the board firmware in simavr
# (sim/hil/hilbridge) behind QEMU's emulated FT232 (-device usb-serial on a
# qemu-xhci controller), in the Debian-kernel guest test/linux builds, with
# ftdi_sio, libusb and libftdi1 in the guest.  guest-board.sh runs eqprof
# board there; board_qemu.py drives QEMU (QMP device_del/device_add: the
# cable) and the bridge (the board's USB power), then judges every log
# record by record against the firmware's own quanta.  Skipped, and counted
# as skipped, only where QEMU cannot run this guest.
set -u
. "$SRC/test/lib/tap.sh"
out=$B/board-qemu
if [ "$(uname -m)" != x86_64 ] || ! command -v qemu-system-x86_64 >/dev/null; then
	ok "# SKIP the board-over-USB test needs an x86-64 machine with qemu-system-x86 (scripts/deps installs it on Debian)"
	tap_plan
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"
eval "$("$SRC/test/linux/kernel-abi.sh" 2>/dev/null)" || { check_status 1 "Debian's kernel is installed (test/linux/kernel-abi.sh)"; tap_plan; exit 1; }
udevd=$(readlink -f /lib/systemd/systemd-udevd)
[ -x "$udevd" ]
check_status $? "systemd-udevd is installed (udev), for hot-plug through libusb and the udev rules in the guest"

# The guest: test/linux's image (one builder) with udevd, and this test's
# /init, users and the udev rules installed as `make install` puts them.
SRC=$SRC B=$B EQPROF=$EQPROF GUEST_BINS="$udevd:udevadm" \
	"$SRC/test/linux/build-guest.sh" "$B/linux" >"$out/build.log" 2>&1
check_status $? "the guest builds: Debian's $KVER with xhci-pci, usbserial, ftdi_sio, eqprof with libusb and libftdi1, udevd"
r=$out/root
cp -a "$B/linux/root" "$r"
cp "$SRC/test/firmware/guest-board.sh" "$r/init"
chmod 755 "$r/init"
mkdir -p "$r/etc/udev/rules.d" "$r/lib/udev/rules.d" "$r/lib/systemd" "$r/share/eqprof"
ln -sf ../../bin/udevadm "$r/lib/systemd/systemd-udevd"
cp /lib/udev/rules.d/50-udev-default.rules "$r/lib/udev/rules.d/"
cp "$SRC/firmware/60-eqprof-board.rules" "$r/share/eqprof/"
printf 'root:x:0:0:root:/:/bin/sh\neq:x:1000:1000:eq:/tmp:/bin/sh\neqx:x:1001:1001:eqx:/tmp:/bin/sh\n' >"$r/etc/passwd"
printf 'root:x:0:\ndialout:x:20:eq\nplugdev:x:46:eq\neq:x:1000:\neqx:x:1001:\n' >"$r/etc/group"
printf '#!/bin/sh\n# the guest runs as root: sudo only runs the command\nexec "$@"\n' >"$r/bin/sudo"
chmod 755 "$r/bin/sudo"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.gz"

python3 "$SRC/test/firmware/board_qemu.py" "$out" $((tap_n + 1)) >"$out/check.tap" 2>"$out/driver.log"
rc=$?
cat "$out/check.tap"
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' "$out/check.tap")))
[ $rc -eq 0 ] || { sed 's/^/# /' "$out/driver.log" | tail -n 20; tail -n 20 "$out/console.log" 2>/dev/null | sed 's/^/# /'; }
tap_plan
[ $rc -eq 0 ]
