# Firmware tests: portable logic (cmocka); the AVR ELF in simavr (TAP:
# fwharness), under `eqprof sim --firmware` (against the built-in model) and
# behind a pty for `eqprof board`; the protocol decoder's fuzz target.
UNIT_TESTS += test/firmware/counter_test test/firmware/proto_test
EXTRA_PROGS += $(B)/test/firmware/fwharness $(B)/test/firmware/proto_fuzz $(B)/test/firmware/boardcmp $(B)/test/firmware/ptybridge
INTEG_TESTS += test/firmware/run-simavr test/firmware/run-fuzz test/firmware/sim-firmware.sh test/firmware/run-ptybridge
INTEG_SAN_TESTS += test/firmware/run-simavr test/firmware/run-ptybridge test/firmware/sim-firmware.sh

# libFuzzer needs clang; the target links only the portable codec.
$(B)/test/firmware/proto_fuzz: test/firmware/proto_fuzz.c firmware/portable/proto.c firmware/portable/cal.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)clang -std=c11 -g -O1 -Ifirmware/portable -fsanitize=fuzzer,address,undefined -o $@ $^
