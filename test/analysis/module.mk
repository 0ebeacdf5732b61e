# test/analysis: symbolization, profiles, statistics, the import parsers
# (unit tests, integration on real ELF programs, libFuzzer targets).
UNIT_TESTS += $(patsubst %.c,%,$(wildcard test/analysis/test_*.c))
EQ_ANALYSIS_INTEG = test/analysis/report-real.py test/analysis/compare-real.py test/analysis/buildid-symfs.py
INTEG_TESTS += $(EQ_ANALYSIS_INTEG)
INTEG_SAN_TESTS += $(EQ_ANALYSIS_INTEG)

# The import parsers' libFuzzer target, built with clang like every fuzzer.
FUZZ_PARSERS_SRCS = test/analysis/fuzz_parsers.c analysis/csv_samples.c analysis/maps.c \
	analysis/symfile.c analysis/symtab.c analysis/eq_error.c
EXTRA_PROGS += $(B)/fuzz/fuzz_parsers
INTEG_TESTS += test/analysis/fuzz-parsers.sh

$(B)/fuzz/fuzz_parsers: $(FUZZ_PARSERS_SRCS) analysis/csv_samples.h analysis/maps.h \
		analysis/symfile.h analysis/symtab.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined $(INCLUDES) -o $@ \
		$(FUZZ_PARSERS_SRCS)

# Everything report does with an accepted recording, fuzzed (CRCs skipped
# like the reader's own target so mutations reach the contents).
FUZZ_PROFILE_SRCS = test/analysis/fuzz_profile.c analysis/eqp_read.c analysis/eqp_access.c \
	analysis/eq_error.c analysis/symbolize.c analysis/elfmod.c analysis/profile.c \
	analysis/table.c analysis/compare.c analysis/intern.c analysis/maps.c \
	analysis/symtab.c analysis/stats.c analysis/units.c analysis/power.c analysis/crc32c.c
EXTRA_PROGS += $(B)/fuzz/fuzz_profile
INTEG_TESTS += test/analysis/fuzz-profile.sh

$(B)/fuzz/fuzz_profile: $(FUZZ_PROFILE_SRCS) $(wildcard analysis/*.h)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined -DEQP_FUZZING=1 $(INCLUDES) \
		-o $@ $(FUZZ_PROFILE_SRCS) -ldw -lelf -lz -lm
