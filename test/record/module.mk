# test/record: eqprof record on real processes.
INTEG_TESTS += test/record/record.sh
INTEG_SAN_TESTS += test/record/record.sh
