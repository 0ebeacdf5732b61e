# test/arm: the target side on arm64 (issue 25).  Debian's arm64 kernel in
# qemu-system-aarch64 -M virt (TCG), eqprof.ko cross-built against it, the
# board's edges on the virt machine's PL061 driven from outside the guest.
# The hardware-in-the-loop chain on arm64 (test/arm/hil-arm64.sh).  make
# check runs the quick forms (2-4 and 1.5 minutes on 2 busy cores, most of
# it TCG); `make check-arm` the full ones (ten times the edges, 4-second
# phases with every statistic).
INTEG_TESTS += test/arm/qemu-arm64.sh test/arm/hil-arm64.sh
ARM_TESTS   := test/arm/qemu-arm64.sh test/arm/hil-arm64.sh

.PHONY: check-arm
check-arm: deps
	@$(MAKE) --no-print-directory -j$$(nproc) $(EQPROF) $(HILBRIDGE) firmware-elf $(RECORD_STATIC) B=$(B)
	@ARM_FULL=1 scripts/run-tests --build $(B) --integ "$(ARM_TESTS)"
