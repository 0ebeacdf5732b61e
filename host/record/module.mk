# host/record: recording, the machinery behind `eqprof record` (perf's
# util/ to its builtin-record.c).  The recorder writing the .eqp while
# samples arrive, and one file per source: the eqprof kernel module, perf's
# cpu-clock and sideband, Linux tracepoints, an energy source read alongside.
# RECORD_SRCS is the recorder's edge: a target-side recorder is built from
# these plus what they name in analysis/file, analysis/util, analysis/symbols
# and host/energy.
RECORD_SRCS := $(wildcard host/record/*.c)
HOST_SRCS += $(RECORD_SRCS)
