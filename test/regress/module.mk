# test/regress: power per procedure by regression (seed 002): test_regress
# checks the linear algebra and the fit's intervals against the simulator's
# truth over many seeds; power-by-cli.py runs eqprof sim and eqprof power
# --by proc, the collinearity warnings and the messages on bad input.
UNIT_TESTS += test/regress/test_regress
INTEG_TESTS += test/regress/power-by-cli.py
INTEG_SAN_TESTS += test/regress/power-by-cli.py
