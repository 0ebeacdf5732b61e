#!/usr/bin/env bash
# The hardware-in-the-loop run (docs/hil.md), for the test and for
# `make hil-demo`:
#
#   run-loop.sh OUTDIR [SECONDS]
#
# Starts the bridge (sim/hil/hilbridge: the board firmware in simavr, front
# end driven by the guest's phases, IRQ edges into the guest through an
# ivshmem doorbell), `eqprof board log` on the board's pty, and QEMU booting
# Debian's kernel with test/linux's initramfs plus the workload
# (test/hil/hilwork.c as hilphase, cpucached and game, SECONDS each) and
# test/hil/guest-hil.sh as /init.  Leaves in OUTDIR: board.eqp (the board's
# stream), guest/energy.eqp and guest/time.eqp (recorded in the guest),
# truth (the bridge's exact energies), root/ (the guest's files, for
# symbols), console.log, bridge.log.  Environment: SRC, B, EQPROF.
#
# HIL_ARCH=arm64 runs the same loop on Debian's arm64 kernel in
# qemu-system-aarch64 -M virt (TCG): the guest of test/arm (build-guest.sh
# with GUEST_ARCH=arm64), the workload cross-compiled, the doorbell over
# the virt machine's PCIe, and RECORDER (a static eqprof-record for aarch64)
# as the guest's eqprof.  EQPROF stays the host's, for board log.
#
# HIL_HANDOVER_MS loads the guest's module with handover_ms (test/arm's
# run: edges arrive while a session starts and ends, every run).
set -euo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-$SRC/build}
EQPROF=${EQPROF:-$B/eqprof}
out=$1
secs=${2:-4}
elf=$B/firmware/eqfw-simavr.elf
[ -f "$elf" ] || elf=$B/../firmware/eqfw-simavr.elf
bridge=$B/sim/hil/hilbridge
[ -x "$bridge" ] || bridge=$B/../sim/hil/hilbridge
arch=${HIL_ARCH:-}
[ "$arch" != amd64 ] || arch=
guest=$B/linux${arch:+-$arch}   # shared with test/linux or test/arm (build-guest.sh)
mkdir -p "$out"
out=$(cd "$out" && pwd)
eval "$("$SRC/test/linux/kernel-abi.sh" ${arch:+"$arch" "$B/kernel-$arch"})"

gueq=$EQPROF
[ -z "$arch" ] || gueq=${RECORDER:?HIL_ARCH=$arch needs RECORDER, a static eqprof-record for it}
SRC=$SRC B=$B EQPROF=$gueq GUEST_ARCH=$arch \
	"$SRC/test/linux/build-guest.sh" "$guest" >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; exit 1; }
r=$out/root
rm -rf "$r"
cp -a "$guest/root" "$r"
tcc=${KCROSS:-}gcc
$tcc -static -O1 -g -fno-omit-frame-pointer -I"$SRC" -o "$r/bin/hilphase" "$SRC/test/hil/hilwork.c"
$tcc -static -O1 -g -fno-omit-frame-pointer -DPHASE=1 -I"$SRC" -o "$r/bin/cpucached" "$SRC/test/hil/hilwork.c"
$tcc -static -O1 -g -fno-omit-frame-pointer -DPHASE=2 -I"$SRC" -o "$r/bin/game" "$SRC/test/hil/hilwork.c"
cp "$SRC/test/hil/guest-hil.sh" "$r/init"
chmod 755 "$r/init"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.gz"

# The socket's path must fit a sockaddr_un: a short directory of its own.
work=$(mktemp -d /tmp/eqhil.XXXXXX)
bpid= lpid=
cleanup() {
	[ -n "$lpid" ] && kill -INT "$lpid" 2>/dev/null
	[ -n "$bpid" ] && kill -TERM "$bpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
"$bridge" "$elf" "$work" --life 1200 2>"$out/bridge.log" &
bpid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
"$EQPROF" board config --port "$port" --quantum ${HIL_QUANTUM:-256} --jitter 5 --vcomp off >"$out/board-config.txt"
"$EQPROF" board log --port "$port" -o "$out/board.eqp" -q 2>"$out/board-log.txt" &
lpid=$!
sleep 0.5
rc=0
if [ -z "$arch" ]; then
	qemu=(qemu-system-x86_64 -serial "file:$out/console.log" -serial "file:$work/out.tar")
	con=ttyS0 eqout=/dev/ttyS1
	# no_timer_check: the x86 kernel's boot check that the IO-APIC's timer
	# ticks (timer_irq_works(): 4 jiffies within 40e9/HZ TSC cycles) times
	# the guest against the host's clock; a loaded host keeps a TCG guest
	# from running that long and the kernel panics "IO-APIC + timer doesn't
	# work" (seen here).  QEMU's PIT and IO-APIC are not the broken boards
	# the check is for.
	extra=no_timer_check
else
	# virt: the console on its PL011, /out on a PCI serial port (ttyS0)
	qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57 -nic none -serial "file:$out/console.log"
		-chardev "file,id=out,path=$work/out.tar" -device pci-serial,chardev=out)
	con=ttyAMA0 eqout=/dev/ttyS0 extra=
fi
timeout 1800 "${qemu[@]}" -accel tcg -smp 1 -m 512 -no-reboot \
	-kernel "$VMLINUZ" -initrd "$out/initramfs.gz" \
	-append "console=$con panic=-1 hilsecs=$secs eqout=$eqout${HIL_HANDOVER_MS:+ hilhandover=$HIL_HANDOVER_MS}${extra:+ $extra}" \
	-chardev "socket,path=$work/ivshmem.sock,id=board" \
	-device ivshmem-doorbell,chardev=board,vectors=1 \
	-display none -monitor none >"$out/qemu.log" 2>&1 || rc=$?
# The board keeps counting until its log stops: then the bridge's truth.
kill -INT "$lpid"
wait "$lpid" || rc=$((rc ? rc : 10))
lpid=
kill -TERM "$bpid"
wait "$bpid" || true
bpid=
cp "$work/truth" "$out/truth" 2>/dev/null || true
rm -rf "$out/guest"
mkdir -p "$out/guest"
tar -xzf "$work/out.tar" -C "$out/guest" 2>/dev/null || true
grep -q EQPROF-HIL-DONE "$out/console.log" || rc=$((rc ? rc : 11))
exit $rc
