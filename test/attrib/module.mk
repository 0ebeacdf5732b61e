# test/attrib: asynchronous device energy (seed 000): test_attrib checks the
# device model, its pieces and the attribution against the simulator's
# truth of who caused each device joule over many seeds; attrib-cli.py runs
# eqprof sim and eqprof report --attribute async, and the bad-input messages.
UNIT_TESTS += test/attrib/test_attrib
INTEG_TESTS += test/attrib/attrib-cli.py
INTEG_SAN_TESTS += test/attrib/attrib-cli.py
