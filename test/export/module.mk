# test/export: every export format read back by its consumer tool
# (callgrind_annotate, protoc --decode_raw, JSON and CSV parsers).
INTEG_TESTS += test/export/export-cli.sh test/export/stacks.py test/export/flamegraph.py
INTEG_SAN_TESTS += test/export/export-cli.sh test/export/stacks.py
