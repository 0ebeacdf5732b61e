# test/analysis: symbolization, profiles, statistics, the import parsers
# (unit tests, integration on real ELF programs, libFuzzer targets).
UNIT_TESTS += $(patsubst %.c,%,$(wildcard test/analysis/test_*.c))
EQ_ANALYSIS_INTEG = test/analysis/report-real.py test/analysis/compare-real.py test/analysis/compare-runs.py test/analysis/buildid-symfs.py \
	test/analysis/safe-inputs.py test/analysis/intervals-real.py test/analysis/sort-filter.py \
	test/analysis/diff.py test/analysis/children-intervals.py test/analysis/range.py \
	test/analysis/report-output.py test/analysis/report-jobs.py
INTEG_TESTS += $(EQ_ANALYSIS_INTEG)
INTEG_SAN_TESTS += $(EQ_ANALYSIS_INTEG)

# The import parsers' libFuzzer target, built with clang like every fuzzer.
FUZZ_PARSERS_SRCS = test/analysis/fuzz_parsers.c analysis/file/csv_samples.c analysis/symbols/maps.c \
	analysis/symbols/symfile.c analysis/symbols/symtab.c analysis/symbols/addrindex.c analysis/symbols/names.c \
	analysis/symbols/intern.c analysis/util/eq_error.c analysis/util/grow.c analysis/util/bigarr.c analysis/align/knots.c
EXTRA_PROGS += $(B)/fuzz/fuzz_parsers
INTEG_TESTS += test/analysis/fuzz-parsers.sh

$(B)/fuzz/fuzz_parsers: $(call fuzzobj,$(FUZZ_PARSERS_SRCS))
	$(call fuzz_link,-liberty)

# Everything report does with an accepted recording, fuzzed (CRCs skipped
# like the reader's own target so mutations reach the contents).
FUZZ_PROFILE_SRCS = test/analysis/fuzz_profile.c analysis/file/eqp_read.c analysis/file/eqp_access.c \
	analysis/util/eq_error.c analysis/util/grow.c analysis/util/bigarr.c analysis/util/range.c analysis/symbols/symbolize.c analysis/symbols/unwind.c analysis/symbols/elfmod.c analysis/profile/agg.c analysis/profile/keys.c analysis/profile/pool.c analysis/profile/build.c analysis/profile/pcmap.c analysis/profile/slices.c \
	analysis/profile/table.c analysis/profile/compare.c analysis/symbols/intern.c analysis/symbols/maps.c \
	analysis/states/split.c analysis/states/pstate.c analysis/attrib/attrib.c \
	analysis/symbols/symtab.c analysis/symbols/addrindex.c analysis/symbols/tasks.c analysis/symbols/names.c analysis/profile/stats.c analysis/util/units.c analysis/util/fmtnum.c analysis/power/power.c analysis/file/crc32c.c analysis/file/eqp_regs.c \
	analysis/file/infile.c
EXTRA_PROGS += $(B)/fuzz/fuzz_profile
INTEG_TESTS += test/analysis/fuzz-profile.sh

$(B)/fuzz/fuzz_profile: $(call fuzzobj_nocrc,$(FUZZ_PROFILE_SRCS))
	$(call fuzz_link,-ldw -ldebuginfod -lelf -lz -liberty -lm)
# eqprof annotate against objdump and addr2line.
INTEG_TESTS += test/analysis/annotate.py
INTEG_SAN_TESTS += test/analysis/annotate.py

# Synthetic recordings with call chains (deep, recursive, cut, kernel
# frames, idle, threads, an exec), for comparing the call-chain views of
# two builds byte for byte (issue 30).
EXTRA_PROGS += $(B)/test/analysis/chain_rec

$(B)/test/analysis/chain_rec: $(B)/obj/test/analysis/chain_rec.o $(B)/obj/bench/report/synth_elf.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(B)/obj/bench/report/synth_elf.o $(LIBS) $(LDLIBS_ALL)
