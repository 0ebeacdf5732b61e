# host/record: recording, the machinery behind `eqprof record` (perf's
# util/ to its builtin-record.c).  The recorder writing the .eqp while
# samples arrive, and one file per source: the eqprof kernel module, perf's
# cpu-clock and sideband, Linux tracepoints, an energy source read alongside.
# RECORD_SRCS is the recorder's edge: a target-side recorder is built from
# these plus what they name in analysis/file, analysis/util, analysis/symbols
# and host/energy.
RECORD_SRCS := $(wildcard host/record/*.c)
HOST_SRCS += $(RECORD_SRCS)

# eqprof-record: the recorder alone, a static binary for a target's small
# root filesystem (docs/target-linux.md, "arm64 and 32-bit ARM"), as
# simpleperf is on Android.  eqprof.c's dispatcher with builtin-record.c,
# this folder, the energy sources that read sysfs (no board: libftdi stays
# on the workstation, which logs the board and merges) and, from analysis/,
# only the .eqp writer, errors and units, energy-series tracking (and its
# statistics) and the kallsyms parser; no elfutils, capstone or gnuplot.  The objects go into an
# archive so that only what the recorder calls is linked.
#   make record-static            for x86_64, aarch64 and armhf
#   $(B)/record/ARCH/eqprof-record
RECORD_ARCHES := x86_64 aarch64 armhf
RECORD_CC_x86_64 := cc
RECORD_CC_aarch64 := aarch64-linux-gnu-gcc
RECORD_CC_armhf := arm-linux-gnueabihf-gcc
RECORD_STRIP_x86_64 := strip
RECORD_STRIP_aarch64 := aarch64-linux-gnu-strip
RECORD_STRIP_armhf := arm-linux-gnueabihf-strip
RECORD_MAIN_SRCS := host/eqprof.c host/builtin-record.c host/parse-options.c host/cmd.c host/progress.c $(RECORD_SRCS) \
	host/energy/energy.c host/energy/rapl.c host/energy/battery.c host/energy/hwmon.c
RECORD_LIB_SRCS := $(wildcard analysis/file/*.c analysis/util/*.c) analysis/energy/eseries.c analysis/profile/stats.c \
	analysis/symbols/symfile.c analysis/symbols/intern.c
RECORD_CFLAGS = $(CSTD) $(WARN) -O2 -g $(INCLUDES) -DEQPROF_VERSION='"0.1"' -MMD -MP

define record_static
$(B)/record/$(1)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  CC      $$@")
	$$(Q)$$(RECORD_CC_$(1)) $$(RECORD_CFLAGS) -c $$< -o $$@
$(B)/record/$(1)/librecord.a: $(patsubst %.c,$(B)/record/$(1)/obj/%.o,$(RECORD_LIB_SRCS))
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
$(B)/record/$(1)/eqprof-record: $(patsubst %.c,$(B)/record/$(1)/obj/%.o,$(RECORD_MAIN_SRCS)) $(B)/record/$(1)/librecord.a
	$$(if $$(Q),@echo "  LD      $$@")
	$$(Q)$$(RECORD_CC_$(1)) -static -o $$@.debug $$^ -lm
	$$(Q)$$(RECORD_STRIP_$(1)) -o $$@.tmp $$@.debug && mv $$@.tmp $$@
endef
$(foreach a,$(RECORD_ARCHES),$(eval $(call record_static,$(a))))
RECORD_STATIC := $(foreach a,$(RECORD_ARCHES),$(B)/record/$(a)/eqprof-record)

.PHONY: record-static
record-static: $(RECORD_STATIC)
-include $(shell find $(B)/record -name '*.d' 2>/dev/null)
