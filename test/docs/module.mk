# test/docs: every command the README and docs/ show, run as written; those
# that need what a test machine has not are skipped, naming the need.
INTEG_TESTS += test/docs/examples.py
