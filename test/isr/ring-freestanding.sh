#!/bin/sh
# eq_ring.h is freestanding: it compiles for a Cortex-M3 with no C library
# (clang --target=thumbv7m-none-eabi, a real DMB as EQ_RING_BARRIER) and for
# the host with -ffreestanding, and the objects reference no outside symbol.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$SRC/test/lib/tap.sh"
src=$SRC/test/isr/ring_freestanding.c
flags="-std=c11 -Wall -Wextra -Werror -O2 -ffreestanding -DEQ_RING_BARE_METAL -I$SRC/isr/core"

clang --target=thumbv7m-none-eabi -mcpu=cortex-m3 $flags \
	'-DEQ_RING_BARRIER()=__asm__ __volatile__("dmb" ::: "memory")' \
	-c "$src" -o "$work/arm.o" 2>"$work/arm.log"
rc=$?; [ $rc -eq 0 ] || cat "$work/arm.log"
check_status $rc "compiles for Cortex-M3 without a C library (DMB barriers)"
undef=$(llvm-nm -u "$work/arm.o" 2>&1)
[ $rc -eq 0 ] && [ -z "$undef" ]; r=$?; [ $r -eq 0 ] || echo "# undefined: $undef"
check_status $r "Cortex-M3 object needs no outside symbol"
llvm-objdump -d "$work/arm.o" 2>/dev/null | grep -q 'dmb'
check_status $? "Cortex-M3 code contains the DMB barriers"

cc $flags -c "$src" -o "$work/host.o" 2>"$work/host.log"
rc=$?; [ $rc -eq 0 ] || cat "$work/host.log"
check_status $rc "compiles for the host with -ffreestanding (compiler barrier)"
undef=$(nm -u "$work/host.o" 2>&1)
[ $rc -eq 0 ] && [ -z "$undef" ]; r=$?; [ $r -eq 0 ] || echo "# undefined: $undef"
check_status $r "host object needs no outside symbol"
tap_plan
