# test/hil: the whole chain in one test (docs/hil.md): the board firmware in
# simavr (sim/hil/hilbridge) interrupting Debian's kernel under QEMU through
# an ivshmem doorbell; energy shares against the bridge's exact truth, the
# loss cross-check, the clocks' alignment.  `make hil-demo` runs the same.
INTEG_TESTS += test/hil/hil.sh

.PHONY: hil-demo
hil-demo:
	@scripts/deps
	@$(MAKE) --no-print-directory -j$$(nproc) $(EQPROF) $(HILBRIDGE) firmware-elf B=$(B)
	@B=$(B) EQPROF=$(EQPROF) SRC=$(CURDIR) test/hil/demo.sh
