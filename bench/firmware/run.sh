#!/bin/sh
# Board firmware figures: flash/RAM from the build, then fwbench in simavr.
set -e
B=$(cd "$B" && pwd)   # make bench may pass a relative build dir; make -C changes directory
make --no-print-directory -s -C "$(dirname "$0")/../../firmware" O="$B/firmware" | grep eqfw:
isr=$(avr-nm "$B/firmware/eqfw.elf" | awk '$3 == "__vector_11" { print $1 }')
exec "$B/bench/firmware/fwbench" "$B/firmware/eqfw.elf" "$isr"
