# test/format: the .eqp reader/writer, units and atomic outputs; the reader's
# libFuzzer target runs over its corpus (and longer by hand: see docs/format.md).
UNIT_TESTS += test/format/test_eqp test/format/test_units test/format/test_crc32c test/format/test_outfile \
	test/format/test_infile test/format/test_chains test/format/test_ustacks
INTEG_TESTS += test/format/fuzz-eqp.sh

FUZZ_EQP_SRCS = test/format/fuzz_eqp.c analysis/file/eqp_read.c analysis/file/eqp_access.c \
	analysis/file/eqp_write.c analysis/util/eq_error.c analysis/util/grow.c analysis/file/outfile.c analysis/file/crc32c.c \
	analysis/file/infile.c
EXTRA_PROGS += $(B)/fuzz/fuzz_eqp

# Built with clang: libFuzzer is clang's.  Sanitizers on, as a fuzzer should be.
$(B)/fuzz/fuzz_eqp: $(call fuzzobj_nocrc,$(FUZZ_EQP_SRCS))
	$(call fuzz_link,-lz)

# eqprof merge (alignment and the merged file's writer), fuzzed over pairs of
# a target recording and a board log (test/format/corpus-merge).
FUZZ_MERGE_SRCS = test/format/fuzz_merge.c analysis/align/align.c analysis/align/knots.c analysis/file/eqp_merge.c \
	$(filter-out test/format/fuzz_eqp.c,$(FUZZ_EQP_SRCS))
EXTRA_PROGS += $(B)/fuzz/fuzz_merge
INTEG_TESTS += test/format/fuzz-merge.sh

$(B)/fuzz/fuzz_merge: $(call fuzzobj_nocrc,$(FUZZ_MERGE_SRCS))
	$(call fuzz_link,-lz -lm)
