# test/record: eqprof record on real processes.
INTEG_TESTS += test/record/record.sh
INTEG_SAN_TESTS += test/record/record.sh
# Writers killed at random moments: record keeps an unfinished, readable
# recording; import and export leave the old output or the new one, never a
# temporary.
INTEG_TESTS += test/record/killed.py
# Call chains: record -g, report --children/--call-graph, folded stacks,
# against a program of known call structure and against perf.
INTEG_TESTS += test/record/callchain.py
INTEG_SAN_TESTS += test/record/callchain.py
# --call-graph dwarf: stack copies unwound offline, on -O2 code without
# frame pointers where -g cannot see the callers; against perf's own.
INTEG_TESTS += test/record/dwarf.py
INTEG_SAN_TESTS += test/record/dwarf.py
# What report says of missing callers: stacks cut at the copy's end (only
# those), -g on code without frame pointers.
INTEG_TESTS += test/record/chain-notes.py
# Kernel samples of a command's run when permitted, named through kallsyms;
# excluded (--all-user, a refused user) with the reason in the header.
INTEG_TESTS += test/record/kernel.py
# Threads and forks with -g and --call-graph dwarf; record -p (attach) and
# -a through perf; bad values of -p.
INTEG_TESTS += test/record/workloads.py test/record/attach.py
INTEG_SAN_TESTS += test/record/workloads.py
# record --events on this machine: lo packets where the tracepoints open,
# the note and header line where they cannot (test/linux has the real test).
INTEG_TESTS += test/record/events.py
INTEG_SAN_TESTS += test/record/events.py
# eqprof-record (host/record/module.mk), the recorder alone: static for
# x86_64, aarch64 and armhf, no elfutils or capstone, the same recording.
INTEG_TESTS += test/record/static.py
CHECK_EXTRA += record-static
# Markers from the recorded program ($EQPROF_MARKER_FD): their times against
# the program's own clock, report --region, the Chrome trace's instants.
INTEG_TESTS += test/record/marks.py
INTEG_SAN_TESTS += test/record/marks.py
