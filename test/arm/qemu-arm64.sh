#!/usr/bin/env bash
# run-tests: shares guest-arm64 ($B/kernel-arm64 and the image in $B/linux-arm64: each test fetches, rebuilds and boots them)
# eqprof.ko on arm64: cross-built against Debian's arm64 kernel (fetched by
# test/linux/kernel-abi.sh arm64, never installed), its vermagic and symbol
# versions checked against the kernel's own modules, loaded in
# qemu-system-aarch64 -M virt under TCG; the board's edges on the virt
# machine's real PL061 GPIO controller, driven from outside the guest
# through QEMU's qtest protocol (test/arm/edges.py), every edge one sample
# or one counted loss; time-driven sampling; the static recorder
# (eqprof-record) when built.  test/arm/check.py judges with test/linux's
# checks.
#
# The quick form runs in make check; ARM_FULL=1 (make check-arm) sends ten
# times the edges.  Skipped, and counted as skipped, only where the tools
# cannot run (not an x86-64 host, no qemu-system-aarch64 or cross compiler).
set -u
. "$SRC/test/lib/tap.sh"
out=$B/linux-arm64
work=$(mktemp -d /tmp/eqarm64.XXXXXX)
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

if [ "$(uname -m)" != x86_64 ] || ! command -v qemu-system-aarch64 >/dev/null ||
	! command -v aarch64-linux-gnu-gcc >/dev/null; then
	ok "# SKIP the arm64 QEMU tests need an x86-64 machine with qemu-system-arm and gcc-aarch64-linux-gnu (scripts/deps installs them on Debian)"
	tap_plan
	exit 0
fi
if [ -n "${ARM_FULL:-}" ]; then n_energy=3000 n_ovf=500 n_rec=2000; else n_energy=400 n_ovf=100 n_rec=300; fi

check "Debian's arm64 kernel, headers and kbuild programs fetched and built for this host (linux-image-arm64)" \
	"$SRC/test/linux/kernel-abi.sh" arm64 "$B/kernel-arm64"
abi=$("$SRC/test/linux/kernel-abi.sh" arm64 "$B/kernel-arm64" 2>/dev/null) || { tap_plan; exit 1; }
eval "$abi"

rec=$B/record/aarch64/eqprof-record
[ -x "$rec" ] || rec=
check "eqprof.ko, eqedge.ko and the aarch64 test programs cross-build against $KVER" \
	env SRC="$SRC" B="$B" GUEST_ARCH=arm64 GUEST_INIT="$SRC/test/arm/guest-init.sh" EQPROF="$rec" \
	"$SRC/test/linux/build-guest.sh" "$out"
# The workloads of known structure that test/record/dwarf.py runs on x86
# (callers: b's share of a+b is 3/4; clockloop: clock_gettime in the vdso),
# cross-built as dynamic PIE programs with the cross toolchain's glibc as the
# guest's shared libc: user code, a shared library and the vdso.  clockloop
# binds its symbols at start-up (-z now), before the recording: glibc 2.36's
# aarch64 _dl_runtime_resolve describes its frame as CFA = sp with the return
# address at CFA + 8, not counting the 16 bytes the PLT pushed, so a sample
# during the first call's lazy binding unwinds into caller with an sp 16
# bytes low and reads caller's return address from a saved register's slot
# (seen once, folded: __libc_start_main;[clockloop];[clockloop];caller;
# three ld.so frames, no main, in a run whose 614 vdso samples were all
# whole).  The lazy binder is not what the vdso check is about; the PLT stub,
# which it is about too, stays.
r=$out/root
mkdir -p "$r/lib"
cp -L /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 /usr/aarch64-linux-gnu/lib/libc.so.6 "$r/lib/"
check "the dwarf workloads (test/fixtures/callers.c, clockloop.c) cross-build for aarch64" \
	sh -c "aarch64-linux-gnu-gcc -O2 -g -fomit-frame-pointer -o '$r/bin/callers' '$SRC/test/fixtures/callers.c' &&
		aarch64-linux-gnu-gcc -O2 -g -fomit-frame-pointer -Wl,-z,now -o '$r/bin/clockloop' '$SRC/test/fixtures/clockloop.c' &&
		cd '$r' && find . | cpio -o -H newc --quiet | gzip -1 >'$out/initramfs.gz'"
ko=$out/ko/eqprof/eqprof.ko
check "eqprof.ko is an aarch64 module whose vermagic is the kernel's own modules' ($KVER)" \
	python3 "$SRC/test/arm/modcheck.py" vermagic "$ko" "$KMODULES"
check "eqprof.ko's symbol versions (CRCs) are the kernel's: Module.symvers and the kernel's own modules agree" \
	python3 "$SRC/test/arm/modcheck.py" crcs "$ko" "$KMODULES" "$KHEADERS/Module.symvers"

# TCG; two CPUs (the PL061's interrupt goes to CPU 0, the spinner runs
# there); no NIC; /out on a PCI serial port (ttyS0 in the guest).  Under
# TCG on a loaded host a virtual CPU can be starved for tens of seconds,
# which the soft-lockup detector reports as a lockup of whatever the guest
# ran (seen: 23 s in the idle loop): watchdog_thresh=60 moves its limit to
# 120 s, far above such pauses and far below a real lockup's forever.
start=$SECONDS
timeout 1200 qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg -smp 2 -m 512 -no-reboot \
	-kernel "$VMLINUZ" -initrd "$out/initramfs.gz" -append "console=ttyAMA0 panic=-1 watchdog_thresh=60" \
	-display none -monitor none -nic none \
	-serial "file:$work/console.log" \
	-chardev "file,id=out,path=$work/out.tar" -device pci-serial,chardev=out \
	-qmp "unix:$work/qmp.sock,server=on,wait=off" \
	-qtest "unix:$work/qtest.sock,server=on,wait=off" >"$work/qemu.log" 2>&1 &
qpid=$!
python3 "$SRC/test/arm/edges.py" "$work/qmp.sock" "$work/qtest.sock" "$work/console.log" "$work/edges.log" \
	energy=$n_energy overflow=$n_ovf rec-e=$n_rec >"$work/edges.out" 2>&1
erc=$?
wait "$qpid"
rc=$?
qpid=
echo "# arm64 guest: boot, scenarios and power-off in $((SECONDS - start)) s (TCG)"
cp "$work/console.log" "$out/console.log" 2>/dev/null
mkdir -p "$work/out"
tar -xzf "$work/out.tar" -C "$work/out" 2>/dev/null
cp "$work/edges.log" "$work/out/edges.log" 2>/dev/null
[ $rc -eq 0 ] && [ $erc -eq 0 ] && grep -q EQPROF-GUEST-DONE "$work/console.log" && [ -s "$work/out/guest.log" ]
check_status $? "the arm64 guest booted $KVER, took the host's PL061 edges, ran every scenario and sent its results (qemu exit $rc, edges.py exit $erc)"
if [ ! -s "$work/out/guest.log" ]; then
	sed 's/^/# /' "$work/qemu.log" "$work/edges.out" | tail -n 5
	tail -n 30 "$work/console.log" | sed 's/^/# /'
	tap_plan
	exit 1
fi
rm -rf "$out/guest-out"
cp -r "$work/out" "$out/guest-out"
gunzip -f "$work/out/kallsyms.gz"
python3 "$SRC/test/arm/check.py" "$work/out" "$out/root" $((tap_n + 1)) >"$work/check.tap"
cat "$work/check.tap"
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' "$work/check.tap")))
! grep -E "BUG:|Oops|WARNING:|cut here|Call Trace" "$work/console.log" >"$work/splat"
check_status $? "the arm64 guest's console shows no BUG, Oops or WARNING up to power-off"
sed 's/^/# /' "$work/splat" | head -n 10
tap_plan
