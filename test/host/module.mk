# test/host (foundation part): command-line error paths of import, report
# and compare.
EQ_HOST_INTEG = test/host/cli-errors.py
INTEG_TESTS += $(EQ_HOST_INTEG)
INTEG_SAN_TESTS += $(EQ_HOST_INTEG)
# Every command's --help: exit 0, no printf escape left in it.
INTEG_TESTS += test/host/help.sh
# Every command's option table, through its --help, --list-opts and the bash
# completion (host/parse-options.c, issue 29).
INTEG_TESTS += test/host/options.py
INTEG_SAN_TESTS += test/host/options.py
# How outputs are written, from the command line (outfile.h).
INTEG_TESTS += test/host/outputs.sh
INTEG_SAN_TESTS += test/host/outputs.sh
# Damaged and absurd recordings and inputs through every analysis (issue 18).
INTEG_TESTS += test/host/damaged-inputs.py
INTEG_SAN_TESTS += test/host/damaged-inputs.py
# SI quantities, `sim --set` and the board's byte stream (client, range
# checks): their libFuzzer target over test/host/corpus-units.
FUZZ_UNITS_SRCS = test/host/fuzz_units.c analysis/util/units.c analysis/util/fmtnum.c analysis/util/eq_error.c analysis/util/grow.c \
	sim/scenario.c sim/scenario_util.c sim/scenario_parts.c sim/scenario_phase.c sim/params.c \
	sim/calls.c sim/devices_parse.c \
	host/board/client.c host/cmd.c firmware/portable/proto.c firmware/portable/cal.c
EXTRA_PROGS += $(B)/fuzz/fuzz_units
INTEG_TESTS += test/host/fuzz-units.sh

$(B)/fuzz/fuzz_units: $(call fuzzobj,$(FUZZ_UNITS_SRCS))
	$(call fuzz_link,-lm)
$(call fuzzobj,test/host/fuzz_units.c host/board/client.c): EXTRA_CFLAGS += -Ihost/board
# Tracepoint format files and raw records (host/record/trace_events.c: record
# --events): a unit test on two kernels' real format files, and a
# libFuzzer target over test/host/corpus-trace.
UNIT_TESTS += test/host/test_trace_events
$(B)/test/host/test_trace_events: $(B)/obj/test/host/test_trace_events.o \
		$(B)/obj/host/record/trace_events.o $(B)/libeqanalysis.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lcmocka $(LDLIBS_ALL)
# The board client's reply matching (host/board/client.c): stale replies.
UNIT_TESTS += test/host/test_board_client
$(B)/test/host/test_board_client: $(B)/obj/test/host/test_board_client.o \
		$(B)/obj/host/board/client.o $(B)/obj/host/cmd.o $(B)/libeqanalysis.a $(B)/libeqfw.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lcmocka $(LDLIBS_ALL)
$(B)/obj/test/host/test_board_client.o: EXTRA_CFLAGS += -Ihost/board
FUZZ_TRACE_SRCS = test/host/fuzz_trace.c host/record/trace_events.c analysis/util/eq_error.c analysis/util/grow.c
EXTRA_PROGS += $(B)/fuzz/fuzz_trace
INTEG_TESTS += test/host/fuzz-trace.sh

$(B)/fuzz/fuzz_trace: $(call fuzzobj,$(FUZZ_TRACE_SRCS))
	$(call fuzz_link,)
# The one option parser of every command (host/parse-options.c).
UNIT_TESTS += test/host/test_parse_options
$(B)/test/host/test_parse_options: $(B)/obj/test/host/test_parse_options.o \
		$(B)/obj/host/parse-options.o $(B)/obj/host/cmd.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIBS) -lcmocka $(LDLIBS_ALL)
