# test/symbols: processes over time (fork, exec, thread names) and the names
# a perf user reads (demangled, canonical aliases, vdso, PLT, JIT maps),
# unit tests and real workloads compared with perf on the same run.
UNIT_TESTS += $(patsubst %.c,%,$(wildcard test/symbols/test_*.c))
# Fork, exec in place, thread names, multiprocessing and subshells on real
# workloads, against perf on the same run (perfcmp.py).
INTEG_TESTS += test/symbols/lifecycle.py
INTEG_SAN_TESTS += test/symbols/lifecycle.py
