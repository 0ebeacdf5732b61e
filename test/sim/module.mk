# test/sim: the simulator.  test_scenario checks the parts (parser, front
# end, counter stage on the firmware logic, workload); test_models checks each
# model of the handheld against a hand computation; test_accuracy checks
# estimates against the truth over many seeds; sim-cli.sh runs eqprof sim
# and eqprof report on a user-written scenario; fuzz-scenario.sh runs the
# scenario parser's libFuzzer target over its corpus; demo.sh runs make demo's
# script end to end and checks its report.
UNIT_TESTS += test/sim/test_scenario test/sim/test_accuracy test/sim/test_models
INTEG_TESTS += test/sim/sim-cli.sh test/sim/fuzz-scenario.sh test/sim/demo.sh
INTEG_SAN_TESTS += test/sim/sim-cli.sh

# The parser and the simulator it drives: fuzz_scenario runs what parses.
# The simulator, the firmware's portable logic and the analysis library it
# writes its truth with are compiled once more with clang's instrumentation
# (coverage for the fuzzer, ASan, UBSan) into an archive of their own; the
# link takes the members the simulator needs (not the simavr counter stage,
# which a fuzz input cannot name, nor the built-in scenarios' blobs).
FUZZ_SIM_LIB_SRCS = $(filter-out sim/counter_simavr.c sim/builtin_scenarios.c,$(wildcard sim/*.c)) \
	$(FW_SRCS) $(ANALYSIS_SRCS)
FUZZ_SIM_LIB = $(B)/fuzz/libeqsim-fuzz.a
EXTRA_PROGS += $(B)/fuzz/fuzz_scenario

$(FUZZ_SIM_LIB): $(call fuzzobj,$(FUZZ_SIM_LIB_SRCS))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Built with clang: libFuzzer is clang's.  Sanitizers on, as a fuzzer should be.
$(B)/fuzz/fuzz_scenario: $(call fuzzobj,test/sim/fuzz_scenario.c) $(FUZZ_SIM_LIB)
	$(call fuzz_link,$(LDLIBS_ALL))
# The simulator's call stacks ("calls" in a scenario), exact by construction.
INTEG_TESTS += test/sim/calls.py
