# test/energy: energy sources (host/energy/), eqprof sources and stat, on
# sysfs trees in real machines' formats driven by a workload with known
# phase powers (energytree.c).
EXTRA_PROGS += $(B)/test/energy/energytree
UNIT_TESTS += test/energy/test_eseries
# sources and bad sources, stat on RAPL, INA3221 and AMD trees (a few seconds)
INTEG_TESTS += test/energy/sources.py test/energy/stat.py
INTEG_SAN_TESTS += test/energy/sources.py test/energy/stat.py
# battery gauges that update every 15 s: about 35 s, so the plain build only
INTEG_TESTS += test/energy/battery.py
# record -t --energy and report's joules per procedure against the phases
# known energies; several recordings pooled; power's source trace (~40 s)
INTEG_TESTS += test/energy/record.py
INTEG_SAN_TESTS += test/energy/record.py
# ESRC/ERDG round trip and joules per row worked out by hand
UNIT_TESTS += test/energy/test_eprofile
