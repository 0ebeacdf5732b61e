#!/bin/sh
# Board firmware figures: flash/RAM from the build, then fwbench in simavr
# (the firmware built for simavr: docs/firmware.md, "Running in simavr").
set -e
B=$(cd "$B" && pwd)   # make bench may pass a relative build dir; make -C changes directory
make --no-print-directory -s -C "$(dirname "$0")/../../firmware" O="$B/firmware" | grep eqfw
elf="$B/firmware/eqfw-simavr.elf"
avr-nm -n "$elf" >"$B/firmware/eqfw.syms"
exec "$B/bench/firmware/fwbench" "$elf" "$B/firmware/eqfw.syms"
