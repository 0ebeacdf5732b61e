# test/states: power states (seed 003): the PSTA chunk, state timelines,
# profiles split by state, cpu and mode against the simulator's truth;
# states-cli.py runs eqprof sim, report and compare on them.
UNIT_TESTS += test/states/test_states
INTEG_TESTS += test/states/states-cli.py
INTEG_SAN_TESTS += test/states/states-cli.py
