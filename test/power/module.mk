# test/power: power summaries, histograms, traces, regions and plots.
# mkrec writes crafted recordings with known power steps (see its header).
UNIT_TESTS += test/power/test_power
INTEG_TESTS += test/power/power-cli.sh
INTEG_SAN_TESTS += test/power/power-cli.sh
EXTRA_PROGS += $(B)/test/power/mkrec
