#!/usr/bin/env bash
# run-tests: shares guest-arm64 ($B/kernel-arm64 and the image in $B/linux-arm64: each test fetches, rebuilds and boots them)
# The hardware-in-the-loop chain on arm64 (docs/hil.md): the board firmware
# in simavr (sim/hil/hilbridge) interrupting Debian's arm64 kernel in
# qemu-system-aarch64 -M virt through the ivshmem doorbell over the virt
# machine's PCIe, eqprof-record (static, aarch64) in the guest, eqprof
# board log and merge on the host, test/hil/check.py's checks (the
# board<->target loss cross-check, energy shares against the bridge's
# truth, the clocks' alignment).  test/hil/hil.sh with HIL_ARCH=arm64: one
# test, two machines.  make check runs the quick form (phases of 1.5 s,
# about 1.5 minutes, the statistics that need long phases skipped);
# make check-arm (ARM_FULL=1) the full one (about 3 minutes).
# Its module holds each hand-over with the bridge open for 300 ms
# (handover_ms): edges then arrive while a session starts and ends, and
# check.py's "the bridge's own count agrees" checks their accounting in
# every run, not in the rare run a loaded host stalls the guest there.
export HIL_HANDOVER_MS=${HIL_HANDOVER_MS:-300}
[ -n "${ARM_FULL:-}" ] || export HIL_QUICK=1
HIL_ARCH=arm64 exec "$SRC/test/hil/hil.sh"
