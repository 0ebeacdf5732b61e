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

FUZZ_SCN_SRCS = test/sim/fuzz_scenario.c sim/scenario.c sim/scenario_util.c sim/calls.c \
	sim/scenario_parts.c sim/scenario_phase.c sim/params.c sim/devices_parse.c \
	analysis/util/units.c analysis/util/eq_error.c analysis/util/grow.c
EXTRA_PROGS += $(B)/fuzz/fuzz_scenario

# Built with clang: libFuzzer is clang's.  Sanitizers on, as a fuzzer should be.
$(B)/fuzz/fuzz_scenario: $(FUZZ_SCN_SRCS) sim/sim.h sim/sim_internal.h sim/scenario_parse.h sim/devices.h \
		sim/defaults.h sim/rng.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined $(INCLUDES) \
		-o $@ $(FUZZ_SCN_SRCS) -lm
# The simulator's call stacks ("calls" in a scenario), exact by construction.
INTEG_TESTS += test/sim/calls.py
