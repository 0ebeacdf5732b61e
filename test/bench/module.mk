# test/bench: the benches' own parts that can rot unseen (ablate.sh's
# patches); their figures are make bench's.
INTEG_TESTS += test/bench/ablate-patches.sh
