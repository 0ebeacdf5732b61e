#!/usr/bin/env bash
# Builds what the QEMU tests boot, into DIR (default $B/linux):
#   DIR/ko/{eqprof,gpio-sim,eqedge}/*.ko   against the Debian kernel's headers
#   DIR/root/                              the initramfs tree
#   DIR/initramfs.gz                       the initramfs
#   DIR/checkpatch/checkpatch.pl           from the matching linux-source
#   DIR/root/lib/modules/extra/            kernel modules a test loads (order: insmod order)
#   DIR/root/lib/guest-lib.sh              what the guests' /init scripts share
# The kernel is the one linux-image-amd64 installs (test/linux/kernel-abi.sh).
# Environment: SRC (source root), B (build dir), EQPROF (host-built eqprof,
# copied into the guest with its shared libraries), GUEST_KMODS (more kernel
# modules), GUEST_BINS (more host programs, with their shared libraries).
#
# GUEST_ARCH=arm64 builds the same for Debian's arm64 kernel, fetched by
# kernel-abi.sh arm64 into $B/kernel-arm64: eqprof.ko and eqedge.ko
# cross-built (no gpio-sim: the arm64 tests drive the virt machine's PL061),
# busybox-static:arm64, the test programs built with the cross compiler,
# and EQPROF must then be a static binary for arm64 (eqprof-record).  The
# /init (GUEST_INIT, default guest-init.sh) of a foreign guest finds only
# /bin/sh linked to busybox: it runs `busybox --install -s /bin` first.
set -euo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-$SRC/build}
out=${1:-$B/linux}
arch=${GUEST_ARCH:-}
[ "$arch" != amd64 ] || arch=
abi=$("$SRC/test/linux/kernel-abi.sh" ${arch:+"$arch" "$B/kernel-$arch"}) ||
	{ echo "build-guest: no kernel to build against (kernel-abi.sh said why above)" >&2; exit 1; }
eval "$abi"
kmake=(make ${KARCH:+ARCH=$KARCH CROSS_COMPILE=$KCROSS})
tcc=${KCROSS:-}gcc
mkdir -p "$out/ko/gpio-sim" "$out/ko/eqedge" "$out/checkpatch"
out=$(cd "$out" && pwd)  # kbuild's M= wants it absolute
log=$out/build.log
: >"$log"

# The parts of linux-source the tests need, once per kernel package version.
stamp=$out/.linux-source-$KPKGVER
if [ -n "$arch" ]; then
	: # no gpio-sim on a foreign guest; checkpatch runs on the amd64 one
elif [ ! -f "$stamp" ]; then
	tar -xJf "$KSRC_TAR" -C "$out/ko/gpio-sim" --strip-components=3 \
		"$KSRC_DIR/drivers/gpio/gpio-sim.c" "$KSRC_DIR/drivers/gpio/gpiolib.h" \
		"$KSRC_DIR/kernel/irq/irq_sim.c"
	tar -xJf "$KSRC_TAR" -C "$out/checkpatch" --strip-components=2 \
		"$KSRC_DIR/scripts/checkpatch.pl" "$KSRC_DIR/scripts/spelling.txt" \
		"$KSRC_DIR/scripts/const_structs.checkpatch"
	touch "$stamp"
fi

# gpio-sim: Debian's kernel lacks it (and CONFIG_IRQ_SIM): build both into
# one module.  irq_to_desc() is not exported: generic_handle_irq() does the
# same lookup and call.
g=$out/ko/gpio-sim
if [ -z "$arch" ]; then
	mv -f "$g/gpio-sim.c" "$g/gpio-sim-core.c" 2>/dev/null || true
	sed -i 's/handle_simple_irq(irq_to_desc(irqnum))/generic_handle_irq(irqnum)/' "$g/irq_sim.c"
	grep -q 'generic_handle_irq(irqnum)' "$g/irq_sim.c" || { echo "build-guest: irq_sim.c changed: cannot patch irq_to_desc" >&2; exit 1; }
	printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-core.o irq_sim.o\n' >"$g/Kbuild"
	make -C "$KHEADERS" M="$g" modules >>"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }
fi

e=$out/ko/eqedge
ln -sf "$SRC/test/linux/eqedge.c" "$e/eqedge.c"
echo 'obj-m := eqedge.o' >"$e/Kbuild"
"${kmake[@]}" -C "$KHEADERS" M="$e" modules >>"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }

"${kmake[@]}" -C "$SRC/isr/linux" KDIR="$KHEADERS" OUT="$out/ko/eqprof" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }

# The initramfs: busybox, the modules, the test programs, eqprof.
r=$out/root
rm -rf "$r"
mkdir -p "$r/bin" "$r/ko" "$r/lib/modules" "$r/proc" "$r/sys" "$r/dev" "$r/tmp"
cp "${GUEST_BUSYBOX:-/bin/busybox}" "$r/bin/busybox"
if [ -z "$arch" ]; then
	for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -sf busybox "$r/bin/$a"; done
	cp "$g/gpio-sim.ko" "$r/ko/"
else
	ln -sf busybox "$r/bin/sh"
fi
cp "$out/ko/eqprof/eqprof.ko" "$e/eqedge.ko" "$r/ko/"
cfs=$(find "$KMODULES/kernel/fs/configfs" -name 'configfs.ko*' | head -n1)
case $cfs in
*.xz) xz -dc "$cfs" >"$r/lib/modules/configfs.ko" ;;
*) cp "$cfs" "$r/lib/modules/configfs.ko" ;;
esac
# null_blk: a blk-mq disk for the device-request scenario (record --events)
nb=$(find "$KMODULES/kernel/drivers/block/null_blk" -name 'null_blk.ko*' | head -n1)
case $nb in
*.xz) xz -dc "$nb" >"$r/lib/modules/null_blk.ko" ;;
*) cp "$nb" "$r/lib/modules/null_blk.ko" ;;
esac
# Modules of the kernel package a test loads itself, each after the ones it
# needs (modules.dep lists those last-needed-first): /lib/modules/extra/ and
# their insmod order in /lib/modules/extra/order.  USB: QEMU's xHCI
# controller and the FT232's serial driver (test/firmware/board-qemu.sh);
# GUEST_KMODS adds more.
mkdir -p "$r/lib/modules/extra"
: >"$r/lib/modules/extra/order"
for want in xhci-pci usbserial ftdi_sio ${GUEST_KMODS:-}; do
	line=$(awk -v m="$want" '{ f = $1; sub(":$", "", f); n = f; sub(".*/", "", n); sub("[.]ko.*", "", n);
		gsub("-", "_", n); w = m; gsub("-", "_", w); if (n == w) { print; exit } }' "$KMODULES/modules.dep")
	[ -n "$line" ] || { echo "build-guest: module $want is not in $KMODULES/modules.dep" >&2; exit 1; }
	for f in $(echo "$line" | tr -d : | awk '{ for (i = NF; i > 1; i--) print $i; print $1 }'); do
		n=$(basename "$f" | sed 's/\.ko.*//')
		grep -qx "$n" "$r/lib/modules/extra/order" && continue
		case $f in
		*.xz) xz -dc "$KMODULES/$f" >"$r/lib/modules/extra/$n.ko" ;;
		*.zst) zstd -qdc "$KMODULES/$f" >"$r/lib/modules/extra/$n.ko" ;;
		*) cp "$KMODULES/$f" "$r/lib/modules/extra/$n.ko" ;;
		esac
		echo "$n" >>"$r/lib/modules/extra/order"
	done
done
$tcc -static -O1 -g -Wall -Wextra -Werror -o "$r/bin/devload" "$SRC/test/linux/devload.c"
$tcc -static -O2 -Wall -Wextra -Werror -I"$SRC" -I"$SRC/isr/core" -o "$r/bin/eqctl" "$SRC/test/linux/eqctl.c"
$tcc -static -O1 -g -fno-omit-frame-pointer -o "$r/bin/spinner" "$SRC/test/linux/spinner.c"
cp "${GUEST_INIT:-$SRC/test/linux/guest-init.sh}" "$r/init"
cp "$SRC/bench/isr/guest-bench.sh" "$r/bench"
chmod 755 "$r/init" "$r/bench"
# what the guests' /init scripts share (mounts, the tar of /out at the end)
cp "$SRC/test/linux/guest-lib.sh" "$r/lib/guest-lib.sh"
# with_libs PROGRAM NAME: a host program as /bin/NAME with its shared
# libraries (a foreign guest takes static programs only)
with_libs() {
	cp "$1" "$r/bin/$2"
	[ -z "$arch" ] || file -L "$1" | grep -q 'statically linked' ||
		{ echo "build-guest: $1 must be a static binary for $arch" >&2; exit 1; }
	[ -n "$arch" ] || for l in $(ldd "$1" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }'); do
		mkdir -p "$r$(dirname "$l")"
		cp -L "$l" "$r$l"
	done
}
if [ -n "${EQPROF:-}" ] && [ -x "$EQPROF" ]; then
	with_libs "$EQPROF" eqprof
fi
# GUEST_BINS: more host programs a test runs in the guest ("PATH" or "PATH:NAME")
for p in ${GUEST_BINS:-}; do
	with_libs "${p%%:*}" "$(basename "${p#*:}")"
done
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.gz"
