# test/host (foundation part): command-line error paths of import, report
# and compare.
EQ_HOST_INTEG = test/host/cli-errors.py
INTEG_TESTS += $(EQ_HOST_INTEG)
INTEG_SAN_TESTS += $(EQ_HOST_INTEG)
# How outputs are written, from the command line (outfile.h).
INTEG_TESTS += test/host/outputs.sh
INTEG_SAN_TESTS += test/host/outputs.sh
# Damaged and absurd recordings and inputs through every analysis (issue 18).
INTEG_TESTS += test/host/damaged-inputs.py
INTEG_SAN_TESTS += test/host/damaged-inputs.py
