# Firmware tests: portable logic (cmocka); the AVR ELF in simavr (TAP:
# fwharness), under `eqprof sim --firmware` (against the built-in model) and
# behind a pty for `eqprof board`, with faults injected into the link
# (board-faults.sh); the protocol decoder's fuzz target.
UNIT_TESTS += test/firmware/counter_test test/firmware/proto_test test/firmware/client_test
EXTRA_PROGS += $(B)/test/firmware/fwharness $(B)/test/firmware/proto_fuzz $(B)/test/firmware/boardcmp $(B)/test/firmware/ptybridge
# The numbers the docs quote (calibration defaults, pulse rates per load)
# against the firmware's code and the SPICE model.
EXTRA_PROGS += $(B)/test/firmware/caldefaults
INTEG_TESTS += test/firmware/docs-numbers.py
INTEG_TESTS += test/firmware/run-simavr test/firmware/run-fuzz test/firmware/sim-firmware.sh test/firmware/run-ptybridge \
	test/firmware/board-faults.sh test/firmware/board-usb.sh test/firmware/board-qemu.sh
INTEG_SAN_TESTS += test/firmware/run-simavr test/firmware/run-ptybridge test/firmware/sim-firmware.sh \
	test/firmware/board-faults.sh test/firmware/board-usb.sh test/firmware/board-qemu.sh

# libFuzzer needs clang; the target links only the portable codec.
$(B)/test/firmware/proto_fuzz: test/firmware/proto_fuzz.c firmware/portable/proto.c firmware/portable/cal.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)clang -std=c11 -g -O1 -Ifirmware/portable -fsanitize=fuzzer,address,undefined -o $@ $^

# The board client is host code (in eqprof, not in a library): linked in.
$(B)/test/firmware/client_test: $(B)/obj/test/firmware/client_test.o \
		$(B)/obj/host/board/client.o $(B)/obj/host/board/tty.o $(B)/obj/host/board/usb.o \
		$(B)/obj/host/cmd.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIBS) -lcmocka $(LDLIBS_ALL)
