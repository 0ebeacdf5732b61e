# test/export: every export format read back by its consumer tool
# (callgrind_annotate, protoc --decode_raw, JSON and CSV parsers).
INTEG_TESTS += test/export/export-cli.sh test/export/stacks.py test/export/flamegraph.py test/export/repeatable.py
INTEG_SAN_TESTS += test/export/export-cli.sh test/export/stacks.py

# power and every export over an accepted recording, fuzzed (CRCs skipped
# like the reader's own target so mutations reach the contents).
FUZZ_EXPORT_SRCS = test/export/fuzz_export.c $(filter-out analysis/power/plot.c analysis/power/power_plot.c \
	analysis/annotate/%,$(ANALYSIS_SRCS))
EXTRA_PROGS += $(B)/fuzz/fuzz_export
INTEG_TESTS += test/export/fuzz-export.sh

$(B)/fuzz/fuzz_export: $(call fuzzobj_nocrc,$(FUZZ_EXPORT_SRCS))
	$(call fuzz_link,-ldw -ldebuginfod -lelf -lz -liberty -lm)
