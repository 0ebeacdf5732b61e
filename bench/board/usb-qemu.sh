#!/usr/bin/env bash
# make bench: the board over emulated USB (docs/firmware.md, "Finding the
# board"): the firmware in simavr behind QEMU's FT232 (usb-serial on
# qemu-xhci) in the Debian guest test/linux builds; eqprof board log over
# /dev/ttyUSB0 and over libftdi1, at about 300 quanta/s and at the
# firmware's full record rate.  Prints records/s, records lost on the link,
# and the latency from the moment the board made a quantum (the bridge's
# clock) to its record's arrival in eqprof in the guest (the guest's clock,
# tied to the host's through the bridge's shared memory: bench/board/hilclock.c).
# The guest runs under TCG on a shared machine: the figures are this
# emulation's, printed, never asserted.
set -euo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-build}
B=$(cd "$B" && pwd)
EQPROF=${EQPROF:-$B/eqprof}
out=$B/board-usb-bench
if [ "$(uname -m)" != x86_64 ] || ! command -v qemu-system-x86_64 >/dev/null; then
	echo "board usb bench: skipped (needs x86-64 and qemu-system-x86; scripts/deps installs it)"
	exit 0
fi
[ -x "$B/sim/hil/hilbridge" ] && [ -f "$B/firmware/eqfw-simavr.elf" ] ||
	make -s -C "$SRC" "$B/sim/hil/hilbridge" firmware-elf B="$B" >/dev/null
rm -rf "$out"
mkdir -p "$out"
SRC=$SRC B=$B EQPROF=$EQPROF "$SRC/test/linux/build-guest.sh" "$B/linux" >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log"; exit 1; }
r=$out/root
cp -a "$B/linux/root" "$r"
cp "$SRC/bench/board/guest-usb-bench.sh" "$r/init"
chmod 755 "$r/init"
cc -static -O2 -Wall -Wextra -Werror -I"$SRC" -o "$r/bin/hilclock" "$SRC/bench/board/hilclock.c"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.gz"
SRC=$SRC B=$B python3 "$SRC/test/firmware/board_qemu.py" --bench "$out" 2>"$out/driver.log"
