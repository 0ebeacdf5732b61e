# test/linux: the eqprof kernel module (isr/linux) in Debian's kernel under
# QEMU: energy- and time-driven sampling, overflow, unload, symbolization.
INTEG_TESTS += test/linux/qemu.sh
