# test/symbols: processes over time (fork, exec, thread names) and the names
# a perf user reads (demangled, canonical aliases, vdso, PLT, JIT maps),
# unit tests and real workloads compared with perf on the same run.
UNIT_TESTS += $(patsubst %.c,%,$(wildcard test/symbols/test_*.c))
# Fork, exec in place, thread names, multiprocessing and subshells on real
# workloads, against perf on the same run (perfcmp.py).
INTEG_TESTS += test/symbols/lifecycle.py
INTEG_SAN_TESTS += test/symbols/lifecycle.py
# Demangled C++, the vdso, PLT stubs, a JIT's perf map, glibc's aliases and
# a stripped binary's header line, on real programs against perf.
INTEG_TESTS += test/symbols/names.py
INTEG_SAN_TESTS += test/symbols/names.py
# Chrome trace per thread and never longer than its samples, callgrind's
# fi=/fe= for inlined code, pprof's build-ids and inline frames.
INTEG_TESTS += test/symbols/exports.py
INTEG_SAN_TESTS += test/symbols/exports.py
# Code outside every symbol named by its function's start (FDE), never
# after another symbol: Debian's stripped gzip, liblzma and libsqlite3 and
# this kernel's vdso, against readelf and perf on the same run.
INTEG_TESTS += test/symbols/cfi.py
INTEG_SAN_TESTS += test/symbols/cfi.py
# Stripped code: rows by function (CFI), debug files by build-id beneath
# --symfs and from a local debuginfod (DEBUGINFOD_URLS); Debian's liblzma.
INTEG_TESTS += test/symbols/stripped.py
