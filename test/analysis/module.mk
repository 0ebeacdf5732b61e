# test/analysis: symbolization, profiles, statistics, the import parsers
# (unit tests, integration on real ELF programs, libFuzzer targets).
UNIT_TESTS += $(patsubst %.c,%,$(wildcard test/analysis/test_*.c))
EQ_ANALYSIS_INTEG = test/analysis/report-real.py test/analysis/compare-real.py test/analysis/buildid-symfs.py
INTEG_TESTS += $(EQ_ANALYSIS_INTEG)
INTEG_SAN_TESTS += $(EQ_ANALYSIS_INTEG)
