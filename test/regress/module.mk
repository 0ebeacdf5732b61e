# test/regress: power per procedure by regression (seed 002): test_regress
# checks the linear algebra and the fit's intervals against the simulator's
# truth over many seeds; power-by-cli.py runs eqprof sim and eqprof power
# --by proc, the collinearity warnings and the messages on bad input;
# test_regress_real fits recordings built with the eqp_write API: an energy
# source's readings (record -t --energy) and board streams tied to the
# samples' clock by eqprof merge (knots, linear), or refused.
UNIT_TESTS += test/regress/test_regress test/regress/test_regress_real
INTEG_TESTS += test/regress/power-by-cli.py
INTEG_SAN_TESTS += test/regress/power-by-cli.py
