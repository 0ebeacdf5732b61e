#!/usr/bin/env bash
# run-tests: shares guest-x86 (build-guest.sh's image in $B/linux: each test rebuilds it and boots it)
# The eqprof kernel module in a real kernel: boots Debian's kernel (the one
# linux-image-amd64 installs) in QEMU (TCG: no KVM here) with a busybox
# initramfs holding eqprof.ko, gpio-sim.ko (built from linux-source) and the
# test programs; guest-init.sh runs the scenarios, check.py judges them.
# Skipped, and counted as skipped, only where QEMU cannot run this guest.
set -u
. "$SRC/test/lib/tap.sh"
out=$B/linux
work=$(mktemp -d /tmp/eqprof-qemu.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ "$(uname -m)" != x86_64 ] || ! command -v qemu-system-x86_64 >/dev/null; then
	ok "# SKIP the QEMU tests need an x86-64 machine with qemu-system-x86 (scripts/deps installs it on Debian)"
	tap_plan
	exit 0
fi

check "Debian's kernel, headers and source are installed and match (linux-image-amd64)" \
	"$SRC/test/linux/kernel-abi.sh"
eval "$("$SRC/test/linux/kernel-abi.sh" 2>/dev/null)" || { tap_plan; exit 1; }

check "eqprof.ko, gpio-sim.ko and the test programs build against $KVER" \
	env SRC="$SRC" B="$B" EQPROF="$EQPROF" "$SRC/test/linux/build-guest.sh" "$out"
check "isr/linux is clean under checkpatch.pl --strict from $KSRC_DIR" \
	make -s -C "$SRC/isr/linux" checkpatch CHECKPATCH="perl $out/checkpatch/checkpatch.pl --quiet"

# The guest's /out comes back as a tar stream on its second serial port.
# no_timer_check: the kernel's boot check of the IO-APIC timer
# (timer_irq_works(): 4 jiffies within 40e9/HZ TSC cycles) times the TCG
# guest against the host's clock, and panics "IO-APIC + timer doesn't
# work" when a loaded host keeps the guest from running that long.
timeout 600 qemu-system-x86_64 -accel tcg -smp 2 -m 512 -no-reboot \
	-kernel "$VMLINUZ" -initrd "$out/initramfs.gz" -append "console=ttyS0 panic=-1 no_timer_check" \
	-display none -monitor none \
	-serial "file:$work/console.log" -serial "file:$work/out.tar" >"$work/qemu.log" 2>&1
rc=$?
cp "$work/console.log" "$out/console.log" 2>/dev/null
mkdir -p "$work/out"
tar -xzf "$work/out.tar" -C "$work/out" 2>/dev/null
[ $rc -eq 0 ] && grep -q EQPROF-GUEST-DONE "$work/console.log" && [ -s "$work/out/guest.log" ]
check_status $? "the guest booted $KVER, ran every scenario and sent its results (qemu exit $rc)"
if [ ! -s "$work/out/guest.log" ]; then
	sed 's/^/# /' "$work/qemu.log" | tail -n 5
	tail -n 30 "$work/console.log" | sed 's/^/# /'
	tap_plan
	exit 1
fi
rm -rf "$out/guest-out"
cp -r "$work/out" "$out/guest-out"
gunzip -f "$work/out/kallsyms.gz"
python3 "$SRC/test/linux/check.py" "$work/out" "$out/root" $((tap_n + 1)) >"$work/check.tap"
cat "$work/check.tap"
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' "$work/check.tap")))
# The console also shows what happened after the guest saved its dmesg.
! grep -E "BUG:|Oops|WARNING:|cut here|Call Trace" "$work/console.log" >"$work/splat"
check_status $? "the guest's console shows no BUG, Oops or WARNING up to power-off"
sed 's/^/# /' "$work/splat" | head -n 10
tap_plan
