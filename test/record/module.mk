# test/record: eqprof record on real processes.
INTEG_TESTS += test/record/record.sh
INTEG_SAN_TESTS += test/record/record.sh
# Writers killed at random moments: record keeps an unfinished, readable
# recording; import and export leave the old output or the new one, never a
# temporary.
INTEG_TESTS += test/record/killed.py
# Call chains: record -g, report --children/--call-graph, folded stacks,
# against a program of known call structure and against perf.
INTEG_TESTS += test/record/callchain.py
INTEG_SAN_TESTS += test/record/callchain.py
