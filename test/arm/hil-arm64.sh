#!/usr/bin/env bash
# The hardware-in-the-loop chain on arm64 (docs/hil.md): the board firmware
# in simavr (sim/hil/hilbridge) interrupting Debian's arm64 kernel in
# qemu-system-aarch64 -M virt through the ivshmem doorbell over the virt
# machine's PCIe, eqprof-record (static, aarch64) in the guest, eqprof
# board log and merge on the host, test/hil/check.py's checks (shares
# against the bridge's truth, the board<->target loss cross-check, the
# clocks' alignment).  test/hil/hil.sh with HIL_ARCH=arm64: one test, two
# machines.  Slow under TCG: make check-arm runs it.
HIL_ARCH=arm64 exec "$SRC/test/hil/hil.sh"
