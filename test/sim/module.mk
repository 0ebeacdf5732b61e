# test/sim: the simulator.  test_scenario checks the parts (parser, front
# end, counter stage on the firmware logic, workload); test_accuracy checks
# estimates against the truth over many seeds; sim-cli.sh runs eqprof sim
# and eqprof report on a user-written scenario; fuzz-scenario.sh runs the
# scenario parser's libFuzzer target over its corpus.
UNIT_TESTS += test/sim/test_scenario test/sim/test_accuracy
INTEG_TESTS += test/sim/sim-cli.sh test/sim/fuzz-scenario.sh
INTEG_SAN_TESTS += test/sim/sim-cli.sh
