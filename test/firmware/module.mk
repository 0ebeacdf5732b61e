# Firmware tests: portable logic (cmocka), the AVR ELF in simavr (TAP),
# and the protocol decoder's fuzz target run over its corpus.
UNIT_TESTS += test/firmware/counter_test test/firmware/proto_test
EXTRA_PROGS += $(B)/test/firmware/fwharness $(B)/test/firmware/proto_fuzz $(B)/test/firmware/boardcmp $(B)/test/firmware/ptybridge
INTEG_TESTS += test/firmware/run-simavr test/firmware/run-fuzz test/firmware/sim-firmware.sh test/firmware/run-ptybridge

# libFuzzer needs clang; the target links only the portable codec.
$(B)/test/firmware/proto_fuzz: test/firmware/proto_fuzz.c firmware/portable/proto.c firmware/portable/cal.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)clang -std=c11 -g -O1 -Ifirmware/portable -fsanitize=fuzzer,address,undefined -o $@ $^
INTEG_SAN_TESTS += test/firmware/run-simavr test/firmware/run-ptybridge test/firmware/sim-firmware.sh
